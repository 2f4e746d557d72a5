# Type stubs for the host side; the board runs board.py without annotations.
from typing import Any

from . import framing
from .display import Display

VERSION: str
RENDER_MS: int
OUTBOX_MAX: int

class Board:
    cfg: dict[str, Any]
    link: framing.Link
    display: Display
    outbox: list[bytes]
    errors: int
    dropped_presses: int
    event_seq: int
    def __init__(self, cfg: dict[str, Any], clock: Any, buttons: list[list[Any]], pixels: Any,
                 port: Any, nonce: int) -> None: ...
    def step(self) -> None: ...
    def host_present(self, now: int) -> bool: ...
    def press(self, seat: int, index: int, kind: int) -> None: ...
    def apply(self, op: int, fields: tuple[Any, ...], now: int) -> None: ...
    def render(self, now: int) -> None: ...
