"""Byte-level fault injection for one direction of the simulated serial line.

A real USB serial line never reorders bytes, so neither does this: it drops, flips,
duplicates, inserts garbage and delays, but what it delivers comes out in order. The
random source is seeded, so a given spec and seed corrupt the same bytes every run.
"""
from __future__ import annotations

import random
from collections import deque
from dataclasses import dataclass, fields

from .errors import BoardUrlError


@dataclass(frozen=True)
class FaultSpec:
    """Per-byte fault probabilities (0..1); ``unplug`` is a chance per second."""

    drop: float = 0.0
    flip: float = 0.0
    dup: float = 0.0
    garbage: float = 0.0
    delay: float = 0.0
    delay_ms: float = 40.0
    unplug: float = 0.0
    unplug_ms: float = 300.0
    seed: int = 0

    @classmethod
    def parse(cls, text: str) -> "FaultSpec":
        """``"drop:0.01,flip:0.01,seed:3"``; an empty text means a clean line."""
        known = {f.name for f in fields(cls)}
        values: dict[str, float | int] = {}
        for item in filter(None, (p.strip() for p in text.split(","))):
            name, sep, raw = item.partition(":")
            if not sep or name not in known:
                raise BoardUrlError(
                    f"bad fault {item!r}: expected NAME:VALUE with NAME one of {', '.join(sorted(known))}")
            try:
                values[name] = int(raw) if name == "seed" else float(raw)
            except ValueError:
                raise BoardUrlError(f"bad fault value {item!r}") from None
        spec = cls(**values)  # type: ignore[arg-type]
        for name in ("drop", "flip", "dup", "garbage", "delay"):
            if not 0.0 <= getattr(spec, name) <= 1.0:
                raise BoardUrlError(f"fault {name} must be a probability in 0..1")
        return spec

    @property
    def clean(self) -> bool:
        return not (self.drop or self.flip or self.dup or self.garbage or self.delay)


class FaultyPipe:
    """Bytes in at ``push``, out (corrupted, in order) at ``pop_ready`` once due."""

    def __init__(self, spec: FaultSpec, rng: random.Random) -> None:
        self.spec = spec
        self.rng = rng
        self._queue: deque[tuple[float, bytes]] = deque()
        self._release = 0.0
        self.counts = {"bytes": 0, "dropped": 0, "flipped": 0, "duplicated": 0,
                       "garbage": 0, "delayed": 0}

    def push(self, data: bytes, now: float) -> None:
        s = self.spec
        c = self.counts
        c["bytes"] += len(data)
        if s.clean:
            out = data
        else:
            rnd = self.rng.random
            buf = bytearray()
            for b in data:
                if s.garbage and rnd() < s.garbage:
                    junk = bytes(self.rng.randrange(256) for _ in range(self.rng.randint(1, 6)))
                    buf += junk
                    c["garbage"] += len(junk)
                if s.drop and rnd() < s.drop:
                    c["dropped"] += 1
                    continue
                if s.flip and rnd() < s.flip:
                    b ^= 1 << self.rng.randrange(8)
                    c["flipped"] += 1
                buf.append(b)
                if s.dup and rnd() < s.dup:
                    buf.append(b)
                    c["duplicated"] += 1
                if s.delay and rnd() < s.delay:
                    # Everything from here on waits: a stall, not a reordering.
                    self._enqueue(bytes(buf), now)
                    buf = bytearray()
                    self._release = max(self._release, now + s.delay_ms / 1000)
                    c["delayed"] += 1
            out = bytes(buf)
        if out:
            self._enqueue(out, now)

    def _enqueue(self, data: bytes, now: float) -> None:
        if data:
            self._queue.append((max(self._release, now), data))

    def pop_ready(self, now: float) -> bytes:
        out = bytearray()
        while self._queue and self._queue[0][0] <= now:
            out += self._queue.popleft()[1]
        return bytes(out)

    def clear(self) -> None:
        self._queue.clear()
