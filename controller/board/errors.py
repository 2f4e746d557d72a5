"""Typed failures of the board link; each also speaks the matching builtin."""
from __future__ import annotations


class BoardError(Exception):
    """Root of every board-link failure."""


class BoardUrlError(BoardError, ValueError):
    """The port URL cannot be understood (bad ``sim://`` options, say)."""


class BoardPortError(BoardError, OSError):
    """The serial port cannot be opened (no such device, no permission, unplugged)."""


class BoardTimeout(BoardError, TimeoutError):
    """The board did not answer in time (no handshake, no reply, not acknowledged)."""
