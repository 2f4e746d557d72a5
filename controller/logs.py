"""Logging for every ``cardtable`` command: stderr, one line per event.

Under systemd stderr is the journal (``journalctl -u cardtable``), so faults (camera lost,
broker lost and reconnected, board link) reach the person looking. A traceback is folded
into its last line: one event, one line. ``--log-level`` sets the threshold.
"""
from __future__ import annotations

import logging
import sys

LEVELS = ("debug", "info", "warning", "error")
DEFAULT_LEVEL = "warning"     # faults and recoveries; "info" adds connects and start-up steps
QUIET_LIBRARIES = ("amqtt", "transitions", "websockets", "asyncio")   # their chatter is not our events


class OneLineFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        text = super().format(record)
        return " | ".join(part.strip() for part in text.splitlines() if part.strip())

    def formatException(self, ei) -> str:   # noqa: N802 (logging's name)
        exc = ei[1]
        return f"{type(exc).__name__}: {exc}" if exc is not None else ""


class StderrHandler(logging.StreamHandler):
    """Writes to ``sys.stderr`` as it is when the record comes, not as it was at set-up.

    A worker thread (evidence pictures, the MQTT loop) may log after whoever set up logging
    has swapped or closed the stream it saw then (an embedding program, a test's capture):
    binding the stream at set-up would lose those lines to "I/O operation on closed file".
    """

    def __init__(self) -> None:
        super().__init__(sys.stderr)

    @property
    def stream(self):               # type: ignore[override]
        return sys.stderr

    @stream.setter
    def stream(self, _value) -> None:
        pass


def setup(level: str = DEFAULT_LEVEL) -> None:
    """Send every logger's records at ``level`` and above to stderr, one line each.

    Called again (several commands in one process) it replaces its own handler only:
    handlers someone else installed on the root logger keep working.
    """
    if level not in LEVELS:
        raise ValueError(f"--log-level {level!r}: use one of {', '.join(LEVELS)}")
    handler = StderrHandler()
    handler.setFormatter(OneLineFormatter("cardtable %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    for old in list(root.handlers):
        if isinstance(old, StderrHandler):
            root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level.upper())
    for name in QUIET_LIBRARIES:      # we report their failures ourselves, in our words
        logging.getLogger(name).setLevel(logging.DEBUG if root.level <= logging.DEBUG else logging.CRITICAL)
