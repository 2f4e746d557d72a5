"""The LED/button board on a serial link: host driver, simulator and tools.

Build one from a config URL with :func:`open_board`; it implements
:class:`controller.panel.Panel`, so the table loop cannot tell it from the gpiozero pins.
"""
from __future__ import annotations

from .errors import BoardError, BoardPortError, BoardTimeout, BoardUrlError
from .host import BoardInfo, BoardPanel, BoardState, open_board

__all__ = [
    "BoardError", "BoardPortError", "BoardTimeout", "BoardUrlError",
    "BoardInfo", "BoardPanel", "BoardState", "open_board",
]
