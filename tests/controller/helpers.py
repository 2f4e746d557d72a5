"""Small fakes shared by the controller tests (real parts everywhere else)."""
from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Ev:
    """A CardEvent look-alike, as Vision II's TableWatcher makes them."""

    event: str
    seat: int | None
    card: str | None
    confidence: float = 1.0
    face_up: bool = True
    frame: int = 0


class FakeVision:
    """Card events on demand; ``fault`` settable like a stalled camera."""

    def __init__(self) -> None:
        self.queue: list[Any] = []
        self.fault: str | None = None
        self.confirmed: list[tuple] = []

    def poll(self) -> list[Any]:
        out, self.queue = self.queue, []
        return out

    def confirm(self, seat, card) -> None:
        self.confirmed.append((seat, card))

    def close(self) -> None:
        pass


class Clock:
    def __init__(self, t: float = 100.0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


def cmd(verb: str, **payload: Any) -> tuple[str, bytes]:
    return verb, json.dumps(payload).encode()


def pump(table: Any, until: Any, timeout: float = 10.0) -> bool:
    """Step a real table loop until ``until()`` holds (or ``timeout`` s pass)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        table.step()
        if until():
            return True
        time.sleep(0.01)
    return until()
