"""The board simulator: the firmware's own ``Board`` behind a real pty.

Like OctoPrint's virtual printer, it speaks bytes through the same surface a real board
does (here a pseudo-terminal that pyserial opens like any tty), and it reuses
``firmware/`` unchanged, so the protocol is written once. The hardware modules are
replaced by shims: :class:`SimPin` (driven like gpiozero's ``MockPin``) and
:class:`SimPixels` (records every strip update). Faults are injected on the byte streams
in both directions (:mod:`controller.board.faults`), and :meth:`BoardSimulator.unplug`
closes the pty like a pulled USB cable; the port path (a symlink) stays the same, so the
host reconnects to it like to a board plugged back in.
"""
from __future__ import annotations

import os
import random
import select
import shutil
import tempfile
import threading
import time
import tty
from typing import Any, Callable

from firmware import config as fw_config
from firmware.board import Board

from .faults import FaultSpec, FaultyPipe

Colour = tuple[int, int, int]


class SimPin:
    """A button pin: ``value()`` for the firmware, ``drive_low/high`` for tests."""

    def __init__(self, number: int, clock: Callable[[], float]) -> None:
        self.number = number
        self._clock = clock
        self._level = 1  # pulled up: released
        self.history: list[tuple[float, int]] = [(clock(), 1)]

    def value(self) -> int:
        return self._level

    def drive_low(self) -> None:
        self._level = 0
        self.history.append((self._clock(), 0))

    def drive_high(self) -> None:
        self._level = 1
        self.history.append((self._clock(), 1))


class SimPixels:
    """A NeoPixel stand-in that keeps every frame written, with its time."""

    def __init__(self, n: int, clock: Callable[[], float]) -> None:
        self._buf: list[Colour] = [(0, 0, 0)] * n
        self._clock = clock
        self.history: list[tuple[float, tuple[Colour, ...]]] = []

    def __len__(self) -> int:
        return len(self._buf)

    def __setitem__(self, i: int, c: Colour) -> None:
        self._buf[i] = tuple(c)  # type: ignore[assignment]

    def __getitem__(self, i: int) -> Colour:
        return self._buf[i]

    def write(self) -> None:
        frame = tuple(self._buf)
        if not self.history or self.history[-1][1] != frame:
            self.history.append((self._clock(), frame))


class _Clock:
    """The ``time`` module's ticks API over a float-seconds clock."""

    def __init__(self, clock: Callable[[], float]) -> None:
        self._clock = clock

    def ticks_ms(self) -> int:
        return int(self._clock() * 1000)

    @staticmethod
    def ticks_diff(a: int, b: int) -> int:
        return a - b


class _Port:
    """The board's end of the wire: what arrived, and where writes go."""

    def __init__(self, out: FaultyPipe, clock: Callable[[], float]) -> None:
        self.rx = bytearray()
        self.out = out
        self._clock = clock

    def read(self) -> bytes:
        data = bytes(self.rx)
        self.rx.clear()
        return data

    def write(self, data: bytes) -> None:
        self.out.push(bytes(data), self._clock())


class RecordingBoard(Board):
    """The firmware's Board, keeping a log of every command it applied."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.applied: list[tuple[int, tuple[Any, ...]]] = []
        super().__init__(*args, **kwargs)

    def apply(self, op: int, fields: tuple[Any, ...], now: int) -> None:
        self.applied.append((op, fields))
        super().apply(op, fields, now)


class BoardSimulator:
    """A simulated board on a pty; ``port`` is the path to hand to the host.

    ``clock`` (seconds, float) drives the firmware and the faults; tests may pass a fake
    one. ``applied`` lists the commands the current boot applied, ``boots`` counts boots,
    ``pixels.history`` holds every LED frame.
    """

    def __init__(self, cfg: dict[str, Any] | None = None, faults: FaultSpec | None = None,
                 clock: Callable[[], float] = time.monotonic, step_s: float = 0.001) -> None:
        self.cfg = fw_config.normalise(cfg or {})
        self.faults = faults or FaultSpec()
        self._clock = clock
        self._step_s = step_s
        # One random stream per direction and one for unplugs, so each is reproducible
        # from the seed whatever the threads' timing.
        self._rng = random.Random(self.faults.seed * 3)
        self.to_board = FaultyPipe(self.faults, random.Random(self.faults.seed * 3 + 1))
        self.to_host = FaultyPipe(self.faults, random.Random(self.faults.seed * 3 + 2))
        self.pins = [[SimPin(g, clock) for g in group] for group in self.cfg["buttons"]]
        self.pixels = SimPixels(self.cfg["leds"], clock)
        self._dir = tempfile.mkdtemp(prefix="cardtable-board-")
        self.port = os.path.join(self._dir, "tty")
        self._lock = threading.RLock()
        self._actions: list[tuple[float, Callable[[], None]]] = []
        self._master: int | None = None
        self._slave: int | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.boots = 0
        self.unplugs = 0
        # Scheduled actions wait until the firmware has seen the previous level for a
        # debounce period, so a stalled thread can never merge two presses into one.
        self._settle_s = (self.cfg["debounce_ms"] + 5) / 1000
        self._first_step: float | None = None
        self._last_step = 0.0
        self._acted = False
        self.board: RecordingBoard = self._boot()
        self._plug()

    # -- lifecycle -------------------------------------------------------------
    def start(self) -> "BoardSimulator":
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="board-sim", daemon=True)
            self._thread.start()
        return self

    def close(self) -> None:
        """Stop the simulator and remove its pty; may be called twice."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2)
            self._thread = None
        with self._lock:
            self._unplug_now()
        shutil.rmtree(self._dir, ignore_errors=True)

    def __enter__(self) -> "BoardSimulator":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _boot(self) -> RecordingBoard:
        self.boots += 1
        self.to_board.clear()
        self.to_host.clear()
        self.port_io = _Port(self.to_host, self._clock)
        nonce = random.Random(self.faults.seed * 1000 + self.boots).getrandbits(32) or 1
        return RecordingBoard(self.cfg, _Clock(self._clock), self.pins, self.pixels,
                              self.port_io, nonce)

    def _plug(self) -> None:
        master, slave = os.openpty()
        tty.setraw(slave)
        os.set_blocking(master, False)
        self._master, self._slave = master, slave
        tmp = self.port + ".new"
        if os.path.lexists(tmp):
            os.unlink(tmp)
        os.symlink(os.ttyname(slave), tmp)
        os.replace(tmp, self.port)

    def _unplug_now(self) -> None:
        if os.path.lexists(self.port):
            os.unlink(self.port)
        for fd in (self._master, self._slave):
            if fd is not None:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self._master = self._slave = None

    # -- what tests and the selftest do ------------------------------------------
    def at(self, delay_s: float, action: Callable[[], None]) -> None:
        """Run ``action`` in the simulator thread ``delay_s`` from now."""
        with self._lock:
            self._actions.append((self._clock() + delay_s, action))
            self._actions.sort(key=lambda a: a[0])

    def press(self, seat: int, button: int = 0, long: bool = False, after_s: float = 0.0) -> float:
        """Press and release a seat's button; returns when (seconds from now) it is released."""
        pin = self.pins[seat][button]
        hold_ms: int = (self.cfg["long_press_ms"] + 150 if long else
                        max(60, self.cfg["debounce_ms"] * 3))
        hold = hold_ms / 1000
        self.at(after_s, pin.drive_low)
        self.at(after_s + hold, pin.drive_high)
        return after_s + hold

    def unplug(self, for_s: float = 0.3, reboot: bool = False) -> None:
        """Pull the cable: the pty goes away, and comes back after ``for_s``.

        ``reboot`` also restarts the firmware (a bus-powered board loses power).
        """
        def pull() -> None:
            self.unplugs += 1
            self._unplug_now()
            if reboot:
                self.board = self._boot()

        self.at(0.0, pull)
        self.at(for_s, self._plug)

    @property
    def applied(self) -> list[tuple[int, tuple[Any, ...]]]:
        return list(self.board.applied)

    def leds(self) -> tuple[Colour, ...]:
        return tuple(self.pixels[i] for i in range(len(self.pixels)))

    def wait_for(self, predicate: Callable[[], bool], timeout: float = 5.0) -> bool:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if predicate():
                return True
            time.sleep(0.005)
        return predicate()

    # -- the simulator thread --------------------------------------------------------
    def _run(self) -> None:
        last_unplug_check = self._clock()
        while not self._stop.is_set():
            with self._lock:
                now = self._clock()
                settled = self._first_step is None or self._last_step - self._first_step >= self._settle_s
                if self._actions and self._actions[0][0] <= now and settled:
                    self._actions.pop(0)[1]()
                    self._acted = True
                master = self._master
            if master is not None:
                try:
                    ready, _, _ = select.select([master], [], [], self._step_s)
                    if ready:
                        data = os.read(master, 4096)
                        if data:
                            self.to_board.push(data, self._clock())
                except OSError:
                    pass  # the host end is closed or the pty just went away
            else:
                time.sleep(self._step_s)
            with self._lock:
                now = self._clock()
                self.port_io.rx += self.to_board.pop_ready(now)
                self.board.step()
                self._last_step = self._clock()
                if self._acted:
                    self._acted = False
                    self._first_step = self._last_step
                out = self.to_host.pop_ready(now)
                if out and self._master is not None:
                    try:
                        os.write(self._master, out)
                    except OSError:
                        pass  # nobody reading and the pty is full: bytes lost, like USB
                if self.faults.unplug and now - last_unplug_check >= 1.0:
                    last_unplug_check = now
                    if self._rng.random() < self.faults.unplug:
                        self.unplug(self.faults.unplug_ms / 1000)
