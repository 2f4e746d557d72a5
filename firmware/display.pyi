# Type stubs for the host side; the board runs display.py without annotations.
from typing import Any, Callable

Colour = tuple[int, int, int]
OFF: Colour
TURN: Colour
WINNER: Colour
CONFIRM: Colour
OK: Colour
FAULT: Colour
OFFLINE: Colour
TENS: Colour
UNITS: Colour
NEGATIVE: Colour
STATUS_OK: int
STATUS_CONFIRM: int
STATUS_FAULT: int
STATUS_OFFLINE: int
WINNER_FLASH_MS: int

class Display:
    turn: int | None
    winner: int | None
    confirm: int | None
    status: int
    scores: tuple[int, ...]
    def __init__(self, cfg: dict[str, Any], diff: Callable[[int, int], int] | None = ...) -> None: ...
    def set_winner(self, seat: int | None, now: int) -> None: ...
    def render(self, now: int, host_present: bool = ...) -> list[Colour]: ...
