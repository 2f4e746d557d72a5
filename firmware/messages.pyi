# Type stubs for the host side; the board runs messages.py without annotations.
from typing import Any, Iterable

NONE: int
TURN: int
WINNER: int
CONFIRM: int
STATUS: int
SCORES: int
QUERY: int
ECHO: int
PRESS: int
STATE: int
INFO: int
STATUSES: tuple[str, ...]
KINDS: tuple[str, ...]
MAX_SCORES: int

def seat_msg(op: int, seat: int | None) -> bytes: ...
def status_msg(code: int) -> bytes: ...
def scores_msg(scores: Iterable[int]) -> bytes: ...
def press_msg(event_seq: int, seat: int, button: int, kind: int) -> bytes: ...
def state_msg(turn: int | None, winner: int | None, confirm: int | None, status: int,
              scores: Iterable[int]) -> bytes: ...
def decode(p: bytes) -> tuple[int, tuple[Any, ...]] | None: ...
