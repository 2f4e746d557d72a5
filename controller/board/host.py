"""The LED/button board as a :class:`controller.panel.Panel`.

:func:`open_board` builds one from a config URL: a device path, ``hwgrep://2e8a:0005``
(the Pico by USB id), ``loop://``, a pty path, or ``sim://`` for the simulator
(``sim://?faults=drop:0.01,flip:0.01&seats=4&leds=30``). The panel remembers what the
table should show, so when the board restarts (power cut, cable pulled) the whole
display is sent again; presses come back exactly once, in order.
"""
from __future__ import annotations

import itertools
import re
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence
from urllib.parse import parse_qs, urlsplit

from controller.panel import ButtonPress, Status
from firmware import framing, messages

from .errors import BoardTimeout, BoardUrlError
from .faults import FaultSpec
from .link import OpenPort, SerialLink, open_serial

STATUS_CODES: dict[str, int] = {name: i for i, name in enumerate(messages.STATUSES)}


@dataclass(frozen=True)
class BoardInfo:
    """What the board said about itself in the handshake."""

    version: str
    seats: int
    leds: int
    buttons: tuple[int, ...]
    raw: str

    @classmethod
    def parse(cls, raw: bytes) -> "BoardInfo":
        text = raw.decode("ascii", "replace")
        words = text.split()
        kv = dict(w.split("=", 1) for w in words if "=" in w)
        version = words[0][1:] if words and words[0].startswith("v") else "unknown"
        buttons = tuple(int(b) for b in kv.get("buttons", "") if b.isdigit())
        return cls(version, int(kv.get("seats", 0) or 0), int(kv.get("leds", 0) or 0),
                   buttons, text)


@dataclass(frozen=True)
class BoardState:
    """The board's own account of what it shows (answer to a query)."""

    turn: int | None
    winner: int | None
    confirm: int | None
    status: Status
    scores: tuple[int, ...]


@dataclass
class _Shown:
    """What the host wants on the strip; resent as a whole after a board restart."""

    turn: int | None = None
    confirm: int | None = None
    status: int = 0
    scores: tuple[int, ...] = ()
    ever: set[str] = field(default_factory=set)

    def snapshot(self) -> list[bytes]:
        out = []
        if "turn" in self.ever:
            out.append(messages.seat_msg(messages.TURN, self.turn))
        if "confirm" in self.ever:
            out.append(messages.seat_msg(messages.CONFIRM, self.confirm))
        if "status" in self.ever:
            out.append(messages.status_msg(self.status))
        if "scores" in self.ever:
            out.append(messages.scores_msg(self.scores))
        return out


class BoardPanel:
    """A Panel on the serial board; construct with :func:`open_board`."""

    def __init__(self, url: str, *, clock: Callable[[], float] = time.monotonic,
                 open_port: OpenPort = open_serial, simulator: Any = None,
                 nonce: int | None = None) -> None:
        self.url = url
        self.simulator = simulator
        self._lock = threading.Lock()
        self._reply = threading.Condition(self._lock)
        self._shown = _Shown()
        self._presses: list[ButtonPress] = []
        self._last_event: int | None = None
        self._echoes: dict[bytes, float] = {}
        self._states: list[BoardState] = []
        self._tokens = itertools.count(1)
        self._clock = clock
        self.duplicate_presses = 0
        self.bad_messages = 0
        self.info: BoardInfo | None = None
        self.link = SerialLink(url, self._on_message, on_restart=self._on_restart,
                               clock=clock, open_port=open_port, nonce=nonce)
        self._closed = False

    # -- Panel ---------------------------------------------------------------------
    def show_turn(self, seat: int | None) -> None:
        self._set("turn", seat)
        self.link.send(messages.seat_msg(messages.TURN, seat))

    def flash_winner(self, seat: int | None) -> None:
        self.link.send(messages.seat_msg(messages.WINNER, seat))

    def ask_confirmation(self, seat: int | None) -> None:
        self._set("confirm", seat)
        self.link.send(messages.seat_msg(messages.CONFIRM, seat))

    def set_status(self, status: Status) -> None:
        try:
            code = STATUS_CODES[status]
        except KeyError:
            raise ValueError(f"unknown status {status!r}; expected one of {', '.join(STATUS_CODES)}") from None
        self._set("status", code)
        self.link.send(messages.status_msg(code))

    def show_scores(self, scores: Sequence[int]) -> None:
        if len(scores) > messages.MAX_SCORES:
            raise ValueError(f"at most {messages.MAX_SCORES} scores fit the board")
        self._set("scores", tuple(int(s) for s in scores))
        self.link.send(messages.scores_msg(scores))

    def presses(self) -> list[ButtonPress]:
        with self._lock:
            out, self._presses = self._presses, []
        return out

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self.link.close()
        if self.simulator is not None:
            self.simulator.close()

    def __enter__(self) -> "BoardPanel":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- beyond Panel: what the selftest and the controller's health check use --------
    @property
    def connected(self) -> bool:
        return self.link.up

    @property
    def fault(self) -> str:
        """Why the board is not usable now ("" while it answers); the table loop reports it."""
        if self.link.up:
            return ""
        if not self.link.connected:
            why = self.link.last_error or "port closed"
            return f"LED board on {self.url} unplugged ({why}); reconnecting"
        return f"LED board on {self.url} not answering; reconnecting"

    def stats(self) -> dict[str, int]:
        s = self.link.stats()
        s.update(duplicate_presses=self.duplicate_presses, bad_messages=self.bad_messages)
        return s

    def wait_ready(self, timeout: float = 3.0) -> BoardInfo:
        """Block until the handshake is done and the board has introduced itself."""
        with self._reply:
            if not self._reply.wait_for(lambda: self.info is not None and self.link.up, timeout):
                why = f" ({self.link.last_error})" if self.link.last_error else ""
                raise BoardTimeout(f"no handshake from the board on {self.url} within {timeout:g} s{why}")
            return self.info  # type: ignore[return-value]

    def wait_idle(self, timeout: float = 3.0) -> bool:
        """True once every command sent so far has been acknowledged by the board."""
        end = time.monotonic() + timeout
        while self.link.pending():
            if time.monotonic() > end:
                return False
            time.sleep(0.001)
        return True

    def echo(self, timeout: float = 1.0) -> float:
        """Round-trip time in seconds of one message to the board and back."""
        token = next(self._tokens).to_bytes(4, "big")
        start = self._clock()
        self.link.send(bytes((messages.ECHO,)) + token)
        with self._reply:
            if not self._reply.wait_for(lambda: token in self._echoes, timeout):
                raise BoardTimeout(f"no echo from the board within {timeout:g} s")
            return self._echoes.pop(token) - start

    def query_state(self, timeout: float = 1.0) -> BoardState:
        """Ask the board what it shows now (after every earlier command)."""
        with self._lock:
            self._states.clear()
        self.link.send(bytes((messages.QUERY,)))
        with self._reply:
            if not self._reply.wait_for(lambda: bool(self._states), timeout):
                raise BoardTimeout(f"no state reply from the board within {timeout:g} s")
            return self._states.pop()

    # -- link callbacks ------------------------------------------------------------------
    def _set(self, what: str, value: Any) -> None:
        with self._lock:
            setattr(self._shown, what, value)
            self._shown.ever.add(what)

    def _on_restart(self, proto: framing.Link, first: bool) -> None:
        """The board (re)started: on a restart, replace the backlog by the whole display."""
        with self._lock:
            self._last_event = None
            self.info = None
            snapshot = self._shown.snapshot()
        if not first:
            proto.clear()
            for p in snapshot:
                proto.send(p)

    def _on_message(self, payload: bytes) -> None:
        msg = messages.decode(payload)
        now = self._clock()
        with self._reply:
            if msg is None:
                self.bad_messages += 1
                return
            op, f = msg
            if op == messages.PRESS:
                seq, seat, button, kind = f
                # The link is exactly-once already; event numbers guard the app as well.
                if self._last_event is not None and not 0 < (seq - self._last_event) & 0xFFFF < 0x8000:
                    self.duplicate_presses += 1
                    return
                self._last_event = seq
                self._presses.append(ButtonPress(seat, messages.KINDS[kind], button))
            elif op == messages.INFO:
                self.info = BoardInfo.parse(f[0])
            elif op == messages.ECHO:
                self._echoes[f[0]] = now
            elif op == messages.STATE:
                turn, winner, confirm, status, scores = f
                self._states.append(BoardState(turn, winner, confirm,
                                               messages.STATUSES[status], scores))
            else:
                self.bad_messages += 1
                return
            self._reply.notify_all()


_SIM_KEYS = {"faults", "seed", "seats", "leds"}


def parse_sim_url(url: str) -> tuple[FaultSpec, dict[str, Any]]:
    """Faults and board config overrides from ``sim://?faults=...&seed=N&seats=N&leds=N``."""
    parts = urlsplit(url)
    if parts.netloc or parts.path not in ("", "/"):
        raise BoardUrlError(f"bad simulator URL {url!r}: expected sim:// or sim://?faults=...")
    try:
        query = parse_qs(parts.query, keep_blank_values=True, strict_parsing=bool(parts.query))
    except ValueError:
        raise BoardUrlError(f"bad simulator URL {url!r}") from None
    unknown = set(query) - _SIM_KEYS
    if unknown:
        raise BoardUrlError(f"unknown simulator option {sorted(unknown)[0]!r}; known: {', '.join(sorted(_SIM_KEYS))}")
    spec = FaultSpec.parse(",".join(query.get("faults", [])))
    cfg: dict[str, Any] = {}
    try:
        if "seed" in query:
            spec = FaultSpec(**{**spec.__dict__, "seed": int(query["seed"][-1])})
        for key in ("seats", "leds"):
            if key in query:
                cfg[key] = int(query[key][-1])
    except ValueError:
        raise BoardUrlError(f"bad number in simulator URL {url!r}") from None
    if "seats" in cfg and "leds" not in cfg:
        cfg["leds"] = max(30, cfg["seats"] * 7)
    return spec, cfg


def open_board(url: str, *, connect_timeout: float = 3.0,
               clock: Callable[[], float] = time.monotonic,
               sim_config: dict[str, Any] | None = None) -> BoardPanel:
    """The board panel for a config URL; the one way the controller builds it.

    The port must open now (else :class:`BoardPortError`); with ``connect_timeout`` > 0
    the board must also answer the handshake in that time (else :class:`BoardTimeout`).
    With 0 the panel returns at once and connects in the background. Either way it
    reconnects by itself after an unplug.
    """
    simulator = None
    port_url = url
    if re.match(r"^sim://", url):
        from firmware.config import ConfigError

        from .sim import BoardSimulator

        spec, cfg = parse_sim_url(url)
        cfg.update(sim_config or {})
        try:
            simulator = BoardSimulator(cfg, spec).start()
        except ConfigError as exc:
            raise BoardUrlError(f"bad simulated board in {url!r}: {exc}") from None
        port_url = simulator.port
    try:
        port = open_serial(port_url)
    except Exception:
        if simulator is not None:
            simulator.close()
        raise
    panel = BoardPanel(port_url, clock=clock, simulator=simulator)
    panel.url = url
    panel.link.start(port)
    if connect_timeout > 0:
        try:
            panel.wait_ready(connect_timeout)
        except BoardTimeout:
            panel.close()
            raise
    return panel
