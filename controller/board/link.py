"""The host's end of the serial link: a port, a reader thread, reconnects.

The protocol itself (handshake, sequence numbers, acks, retransmission) is the shared
``firmware.framing.Link``, driven here with the injectable ``clock``. This module only
moves bytes: it opens any pyserial URL, feeds what arrives to the protocol, writes what
the protocol wants sent, and when the port fails (a pulled cable) closes it and keeps
trying to reopen the same URL. Delivered messages go to ``on_message`` in the reader
thread.
"""
from __future__ import annotations

import logging
import os
import threading
import time
from typing import Any, Callable

import serial

from firmware import framing

from .errors import BoardPortError

log = logging.getLogger(__name__)

OpenPort = Callable[[str], Any]

BOARD_QUIET_S = 2.0      # no valid frame for this long: confirm the board afresh
RETRY_S = 0.1            # first reopen delay after a failure; doubles up to RETRY_MAX_S
RETRY_MAX_S = 1.0
HOST_QUEUE = 256
SEND_WAIT_S = 2.0


def open_serial(url: str) -> serial.SerialBase:
    """Open a pyserial URL or device path for the board (115200 8N1; USB ignores speed)."""
    try:
        return serial.serial_for_url(url, baudrate=115200, timeout=0.01, write_timeout=1.0)
    except (serial.SerialException, OSError, ValueError) as exc:
        raise BoardPortError(f"cannot open {url}: {_reason(exc)}") from exc


def _reason(exc: BaseException) -> str:
    text = str(exc)
    # pyserial wraps errno text as "[Errno 2] could not open port X: [Errno 2] No such ..."
    return text.rsplit("] ", 1)[-1] if "] " in text else text or type(exc).__name__


class SerialLink:
    """Keeps one board connected over ``url`` for as long as it is open."""

    def __init__(self, url: str, on_message: Callable[[bytes], None], *,
                 on_restart: Callable[[framing.Link, bool], None] | None = None,
                 clock: Callable[[], float] = time.monotonic,
                 open_port: OpenPort = open_serial, nonce: int | None = None) -> None:
        self.url = url
        self._on_message = on_message
        self._on_restart = on_restart
        self._clock = clock
        self._open_port = open_port
        self._lock = threading.RLock()
        self._out = bytearray()
        self.proto = framing.Link(self._out.extend,
                                  nonce if nonce is not None else int.from_bytes(os.urandom(4), "big"),
                                  queue_max=HOST_QUEUE,
                                  rto_ms=20, hello_max_ms=250, fast_ms=10)
        self._port: Any = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._restarts_seen = 0
        self._up = threading.Condition(self._lock)
        self._room = threading.Condition(self._lock)
        self.connects = 0
        self.disconnects = 0
        self.dropped = 0
        self.last_error: str | None = None

    def _now_ms(self) -> int:
        return int(self._clock() * 1000)

    # -- lifecycle -------------------------------------------------------------
    def start(self, port: Any = None) -> None:
        """Start the reader thread, optionally with a port the caller already opened."""
        if port is not None:
            self._attach(port)
        self._thread = threading.Thread(target=self._run, name="board-link", daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=2)
        self._thread = None
        with self._lock:
            self._detach()

    @property
    def connected(self) -> bool:
        """The port is open (the board may still be silent)."""
        return self._port is not None

    @property
    def up(self) -> bool:
        """Handshake done: the board is there and knows us."""
        return self._port is not None and self.proto.up

    def wait_up(self, timeout: float) -> bool:
        end = time.monotonic() + timeout
        with self._up:
            while not self.up:
                left = end - time.monotonic()
                if left <= 0:
                    return False
                self._up.wait(min(left, 0.05))
        return True

    def pending(self) -> int:
        with self._lock:
            return self.proto.pending()

    def stats(self) -> dict[str, int]:
        with self._lock:
            s = dict(self.proto.stats)
        s.update(connects=self.connects, disconnects=self.disconnects,
                 board_restarts=max(0, self.proto.restarts - 1), dropped=self.dropped)
        return s

    # -- sending ---------------------------------------------------------------------
    def send(self, payload: bytes) -> None:
        """Queue a message; it is delivered exactly once, whenever the board is there.

        A full queue while the board is connected means a burst: wait (up to
        ``SEND_WAIT_S``) for acknowledgements to make room. If the board is away so long
        that the queue fills, the oldest unsent message is dropped instead (board
        commands set state, so the latest ones matter most; a reboot resends it all).
        """
        with self._room:
            if self.proto.pending() >= self.proto.queue_max and self.up:
                self._room.wait_for(lambda: self.proto.pending() < self.proto.queue_max or not self.up,
                                    SEND_WAIT_S)
            if not self.proto.send(payload):
                if self.proto.queue:
                    self.proto.queue.pop(0)
                self.dropped += 1
                self.proto.send(payload)
            self._pump()

    def _pump(self) -> None:
        """Run the protocol clock and write what it produced (lock held)."""
        self.proto.poll(self._now_ms())
        if self._out:
            data = bytes(self._out)
            self._out.clear()
            if self._port is not None:
                try:
                    self._port.write(data)
                except (serial.SerialException, OSError) as exc:
                    self._lost(exc)

    # -- the reader thread -------------------------------------------------------------
    def _attach(self, port: Any) -> None:
        with self._lock:
            self._port = port
            try:
                port.reset_input_buffer()
            except (serial.SerialException, OSError, AttributeError):
                pass
            self.connects += 1
            self.proto.restart_handshake()
            self._pump()

    def _detach(self) -> None:
        port, self._port = self._port, None
        if port is not None:
            try:
                port.close()
            except (serial.SerialException, OSError):
                pass

    def _lost(self, exc: BaseException) -> None:
        self.disconnects += 1
        self.last_error = _reason(exc)
        log.warning("board on %s lost: %s", self.url, self.last_error)
        self._detach()

    def _run(self) -> None:
        delay = RETRY_S
        while not self._stop.is_set():
            port = self._port
            if port is None:
                try:
                    self._attach(self._open_port(self.url))
                    delay = RETRY_S
                except (BoardPortError, serial.SerialException, OSError) as exc:
                    self.last_error = _reason(exc)
                    self._stop.wait(delay)
                    delay = min(delay * 2, RETRY_MAX_S)
                continue
            try:
                waiting = port.in_waiting
                data = port.read(waiting if waiting else 1)
            except (serial.SerialException, OSError, TypeError, AttributeError) as exc:
                # TypeError/AttributeError: pyserial's posix read racing a close.
                with self._lock:
                    if self._port is port:
                        self._lost(exc)
                continue
            delivered: list[bytes] = []
            with self._lock:
                now = self._now_ms()
                if data:
                    delivered = self.proto.feed(data, now)
                    if self.proto.peer_nonce == self.proto.nonce:
                        self.last_error = "the port echoes our own frames (loop:// or a wired-back port): no board there"
                    if self.proto.restarts != self._restarts_seen:
                        first = self._restarts_seen == 0
                        self._restarts_seen = self.proto.restarts
                        if self._on_restart is not None:
                            self._on_restart(self.proto, first)
                quiet = self.proto.quiet_for(now)
                if self.proto.up and quiet is not None and quiet > BOARD_QUIET_S * 1000:
                    self.proto.restart_handshake()
                self._pump()
                if self.proto.up:
                    self._up.notify_all()
                self._room.notify_all()
            for payload in delivered:
                try:
                    self._on_message(payload)
                except Exception:  # a handler bug must not kill the link
                    log.exception("board message handler failed")
