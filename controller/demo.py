"""``cardtable demo``: a whole simulated match through the real product.

Simple legal-playing bots (``controller.sim``) decide what happens; the demo is the room
they play in: it *renders camera frames* of each card being put down (a hand reaching in,
then the card lying still), and the real pipeline does the rest: Vision II's
``TableWatcher`` with the Vision I recogniser finds and identifies the card, the table loop
journals and judges it, gpiozero ``MockFactory`` LEDs light up, and everything goes out over
the real MQTT path (an embedded broker unless ``--mqtt``). Calls and answers are made by
pressing the seat's (mock) button like a player would; what has no button goes through
``cmd/event`` as the referee's tablet would. A card the camera is unsure of is confirmed by
the demo's "referee" over MQTT (``cmd/confirm``), exactly as in a club.

Killed and started again on the same ``--journal``, it resumes the match where the journal
ends (the reliability tests do this at random moments).
"""
from __future__ import annotations

import argparse
import json
import signal
import sys
import time
import uuid
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Sequence

import numpy as np

from controller.config import ConfigError

FPS = 30.0
SIZE = (960, 540)
MARGIN = 36
MARKER_PX = 44
BUTTON_PINS = [17, 27, 22, 23, 16, 20]
LED_PINS = [5, 6, 13, 19, 26, 21]
STATUS_PINS = {"ok": 24, "confirm": 25, "fault": 12}


class DemoError(RuntimeError):
    """The demo cannot go on (one-line message)."""


class FakeClock:
    """Simulated time: 1/30 s per camera frame, whatever the wall clock does."""

    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t

    def advance(self, dt: float) -> None:
        self.t += dt


@dataclass(frozen=True)
class _Frame:
    index: int
    image: np.ndarray
    t: float


class ScriptedCamera:
    """A frame source fed by the demo: the frames the room's camera would see."""

    status = "ok"
    finished = False
    message = ""

    def __init__(self, clock: FakeClock) -> None:
        self.clock = clock
        self.frames: deque[np.ndarray] = deque()
        self.index = 0

    def push(self, image: np.ndarray, n: int = 1) -> None:
        self.frames.extend([image] * n)

    def read(self) -> _Frame | None:
        if not self.frames:
            return None
        f = _Frame(self.index, self.frames.popleft(), self.clock())
        self.index += 1
        return f

    def close(self) -> None:
        self.finished = True


class Room:
    """The physical table seen from above: cards lying on it, rendered as camera frames."""

    def __init__(self, deck_id: str, clockwise: bool, players: int, seed: int) -> None:
        from vision.calibration import calibrate, paste_markers
        from vision.synthetic import synthetic_profile      # built once, then from the user's cache
        from vision.synthetic.render import card_long_side
        from vision.table import measured_table

        self.profile = synthetic_profile(deck_id)
        self.seed = seed
        self._paste = paste_markers
        w, h = SIZE
        self.corners = np.array([[MARGIN, MARGIN], [w - MARGIN, MARGIN], [w - MARGIN, h - MARGIN],
                                 [MARGIN, h - MARGIN]], np.float32)
        self.cards: list[tuple[int, Any]] = []       # (seat, Placement), bottom first
        self._frames: dict[tuple, np.ndarray] = {}
        self._bare: np.ndarray | None = None
        empty = self.frame()
        # calibrated as a club does (`cardtable calibrate --size WxH`): the table measured between
        # the markers, so the card size is known from the first card (the default guess is 7.8x
        # too small here, and the first card would be read by the slower stills finder)
        table = measured_table(self.corners, card_long_side(SIZE), clockwise=clockwise, source="demo room")
        self.calibration = calibrate(empty, table, clockwise=clockwise)
        self.spots = []
        centre = self.corners.mean(axis=0)
        for poly in self.calibration.zones.seats[:players]:
            c = np.asarray(poly, np.float32).mean(axis=0)
            self.spots.append(tuple(centre + 0.9 * (c - centre)))
        self._rng = np.random.default_rng(seed)

    def frame(self) -> np.ndarray:
        """What the camera sees now. Cards are laid one at a time, so each new card is
        rendered alone on the bare table and its pixels laid over the previous picture: the
        picture of the pile at a fraction of the cost of rendering the pile again."""
        from vision.synthetic.render import render_scene

        key = tuple(self.cards)
        hit = self._frames.get(key)
        if hit is not None:
            return hit
        if self._bare is None:
            self._bare = render_scene(self.profile, [], size=SIZE, table="wood", seed=self.seed).image
            self._frames[()] = self._paste(self._bare, self.corners, MARKER_PX)
        img = self._frames[()]
        for n in range(1, len(key) + 1):
            sub = key[:n]
            if sub in self._frames:
                img = self._frames[sub]
                continue
            one = render_scene(self.profile, [key[n - 1][1]], size=SIZE, table="wood", seed=self.seed).image
            changed = np.any(one != self._bare, axis=2)
            img = img.copy()
            img[changed] = one[changed]
            self._frames[sub] = img
        self._frames = {k: v for k, v in self._frames.items() if key[:len(k)] == k}
        return img

    def with_hand(self, still: np.ndarray, seat: int) -> np.ndarray:
        """``still`` with a forearm reaching from the seat's table edge to its newest card: the
        camera sees motion over the card, then the card alone (cheaper than re-rendering)."""
        import cv2

        img = still.copy()
        poly = np.asarray(self.calibration.zones.seats[seat], np.float32)
        edge = (poly[0] + poly[1]) / 2
        tip = np.asarray(self.cards[-1][1].centre_xy if self.cards else self.spots[seat], np.float32)
        start = edge + (edge - tip) * 0.5
        cv2.line(img, tuple(int(v) for v in start), tuple(int(v) for v in tip), (120, 150, 200), 70, cv2.LINE_AA)
        cv2.circle(img, tuple(int(v) for v in tip), 42, (110, 140, 190), -1, cv2.LINE_AA)
        return img

    def put(self, seat: int, card: str | None, face_up: bool = True) -> None:
        from vision.synthetic.render import Placement

        x, y = self.spots[seat]
        jitter = self._rng.normal(0, 6, 2)
        angle = float(self._rng.uniform(-25, 25)) + (90.0 if seat % 2 else 0.0)
        self.cards.append((seat, Placement(card, (float(x + jitter[0]), float(y + jitter[1])), angle, face_up)))

    def clear(self) -> None:
        self.cards = []


def demo_config(game: str, table_id: str, dealer: int, players: int | None, journal: str, mqtt_url: str,
                web_port: int, options: dict | None = None, ws_url: str = ""):
    from controller.config import parse_config

    n = players or 4
    return parse_config({
        "table": {"id": table_id, "name": f"Demo table {table_id[-1]}"},
        "game": {"name": game, "dealer": dealer, **({"players": players} if players else {}),
                 "options": dict(options or {})},
        "seats": [{"name": nm, "position": pos} for nm, pos in
                  zip(["Anna", "Bruno", "Carla", "Dario", "Elsa", "Fabio"][:n], ["south", "west", "north", "east", None, None])],
        "camera": {"source": "none", "still_frames": 5, "min_confidence": 0.6},
        "gpio": {"enabled": True, "factory": "mock", "turn_leds": LED_PINS[:n], "buttons": BUTTON_PINS[:n],
                 "status": STATUS_PINS},
        "mqtt": {"url": mqtt_url},
        "journal": {"path": journal},
        "web": {"port": web_port, "public_ws_url": ws_url},
    }, "<demo>")


class Referee:
    """The human referee's tablet, as an MQTT client with the referee role."""

    def __init__(self, url: str) -> None:
        import paho.mqtt.client as mqtt

        from paho.mqtt.client import MQTT_CLEAN_START_FIRST_ONLY
        from paho.mqtt.packettypes import PacketTypes
        from paho.mqtt.properties import Properties

        from controller.mqtt import SESSION_EXPIRY_S, parse_url, url_protocol

        scheme, host, port, path = parse_url(url)
        from urllib.parse import urlparse

        u = urlparse(url)
        # a persistent session (like the table's): results sent while the broker was away
        # are delivered on return, and the subscription is made again on every connect
        v5 = url_protocol(url) == mqtt.MQTTv5
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"demo-referee-{uuid.uuid4().hex[:6]}",
                                  transport="websockets" if scheme.startswith("ws") else "tcp",
                                  protocol=url_protocol(url), **({} if v5 else {"clean_session": False}))
        if u.username:
            self.client.username_pw_set(u.username, u.password)
        self.results: dict[str, dict] = {}
        self.client.on_message = self._on_message
        self.client.on_connect = self._on_connect
        self.client.reconnect_delay_set(0.25, 2)
        props = None
        if v5:
            props = Properties(PacketTypes.CONNECT)
            props.SessionExpiryInterval = SESSION_EXPIRY_S
        self.client.connect(host, port, clean_start=False if v5 else MQTT_CLEAN_START_FIRST_ONLY, properties=props)
        self.client.loop_start()

    def _on_connect(self, client, userdata, flags, reason_code, properties=None) -> None:
        if not reason_code.is_failure:        # after a broker restart too, not just the first time
            client.subscribe("cardtable/v1/tables/+/cmd_result", qos=1)

    def _on_message(self, client, userdata, msg) -> None:
        try:
            r = json.loads(msg.payload)
            self.results[str(r.get("id"))] = r
        except ValueError:
            pass

    def send(self, table_id: str, verb: str, payload: dict) -> str:
        cid = uuid.uuid4().hex
        self.client.publish(f"cardtable/v1/tables/{table_id}/cmd/{verb}", json.dumps({"id": cid, **payload}), qos=1)
        return cid

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


class TableDriver:
    """One table of the demo: the script, the room, the runtime; :meth:`run` yields per frame."""

    def __init__(self, rt, room: Room, camera: ScriptedCamera, clock: FakeClock, script: list[dict],
                 referee: Referee, still_frames: int, pace) -> None:
        self.rt, self.room, self.camera, self.clock = rt, room, camera, clock
        self.script, self.referee, self.still = script, referee, still_frames
        self.pace = pace
        self.table = rt.table
        self.panel = rt.table.panels[0]
        self.done = 0
        self.hand_lines: list[str] = []

    @property
    def accepted(self) -> int:
        ref = self.table.ts.referee
        return len(ref.accepted) if ref.game is not None else 0

    def _frames(self) -> Iterator[None]:
        while self.camera.frames:
            self.table.step()
            self.clock.advance(1 / FPS)
            yield
        self.table.step()

    def _wait(self, until, seconds: float = 30.0) -> Iterator[None]:
        deadline = time.monotonic() + seconds
        while not until():
            if time.monotonic() > deadline:
                raise DemoError("the table did not answer in time (is the MQTT broker reachable?)")
            self.table.step()
            self.clock.advance(1 / FPS)
            time.sleep(0.002)
            yield

    def _confirm_pending(self, want: dict | None) -> Iterator[None]:
        """The referee confirms (or corrects) what the seat's blinking LED asks about."""
        p = self.table.ts.pending
        assert p is not None
        payload: dict[str, Any] = {}
        verb = "reject"                    # not the play the referee saw being made: take it back
        if want and want.get("event") == "card" and want.get("card") and (
                p.get("card") == want["card"] or (p.get("card") is None and p.get("seat") == want["seat"])):
            payload = {"card": want["card"], "seat": want["seat"]}
            verb = "confirm"
        cid = self.referee.send(self.table.ts.table_id, verb, payload)
        yield from self._wait(lambda: cid in self.referee.results)
        if not self.referee.results[cid].get("ok") and self.table.ts.pending is not None:
            cid = self.referee.send(self.table.ts.table_id, "reject", {})
            yield from self._wait(lambda: cid in self.referee.results)

    def _settle_room(self) -> Iterator[None]:
        """Players gather a finished trick (or a hand ended): the cards leave the table."""
        snap = self.table.ts.snapshot() or {}
        on_table = (snap.get("detail") or {}).get("current_trick") or []
        if self.room.cards and not on_table:
            self.room.clear()
            self.camera.push(self.room.frame(), self.still + 3)
            yield from self._frames()

    def resume(self) -> None:
        """Put back on the room's table the cards the journal says lie there."""
        snap = self.table.ts.snapshot() or {}
        for c in (snap.get("detail") or {}).get("current_trick") or []:
            self.room.put(c["seat"], c.get("card"), c.get("card") is not None)
        self.camera.push(self.room.frame(), 2)

    def run(self) -> Iterator[None]:
        from controller.buttons import press_for

        ref = self.table.ts.referee
        first, want = (ref.accepted[0].raw if ref.accepted else {}), self.script[0]
        if any(first.get(k) != want.get(k) for k in ("game", "dealer", "options")):
            raise DemoError("this journal holds another match; give a new --journal")
        self.resume()
        yield from self._frames()
        while True:
            i = self.accepted
            self.done = i
            if self.table.ts.pending is not None:
                yield from self._confirm_pending(self.script[i] if i < len(self.script) else None)
                yield from self._settle_room()
                continue
            if i >= len(self.script):
                return
            ev = self.script[i]
            if ev["event"] == "card":
                self.room.put(ev["seat"], ev.get("card"), not ev.get("face_down", False))
                still = self.room.frame()
                self.camera.push(self.room.with_hand(still, ev["seat"]), 2)
                self.camera.push(still, self.still + 1)
                yield from self._frames()
                tries = 0
                while self.accepted == i and self.table.ts.pending is None and tries < 3:
                    self.camera.push(self.room.frame(), self.still + 2)   # let the camera look again
                    yield from self._frames()
                    tries += 1
                if self.accepted == i and self.table.ts.pending is None:
                    raise DemoError(f"the camera never reported seat {ev['seat']}'s {ev.get('card')}")
            else:
                press = press_for(self.table.ts.game_name(), self.table.ts.snapshot(), ev)
                if press is not None and press.button == 0:     # the demo's seats have one button
                    pin = self.panel.buttons[press.seat].pin
                    pin.drive_low()
                    self.clock.advance(1.2 if press.kind == "long" else 0.15)
                    pin.drive_high()
                    self.table.step()
                    yield
                else:
                    cid = self.referee.send(self.table.ts.table_id, "event", {"event": ev})
                    yield from self._wait(lambda: cid in self.referee.results)
                if self.accepted == i:
                    raise DemoError(f"the table refused {json.dumps(ev)}")
            if self.accepted > i:
                yield from self._settle_room()


# ----- the terminal -------------------------------------------------------------------------
_RANKS = {"ace": "A", "king": "K", "queen": "Q", "jack": "J", "knight": "C"}
_SUITS = {"hearts": "♥", "diamonds": "♦", "clubs": "♣", "spades": "♠"}


def card_label(card: str | None) -> str:
    """What a person reads: ``hearts/king`` -> ``K♥``, ``coins/7`` -> ``7 coins``, ``trump/21`` ->
    ``trump 21``; a face-down card is ``▯``."""
    if not card:
        return "▯"
    suit, _, rank = card.partition("/")
    if not rank:
        return card.capitalize()                       # fool, back
    if suit == "trump":
        return f"trump {rank}"
    r = _RANKS.get(rank, rank)
    return f"{r}{_SUITS[suit]}" if suit in _SUITS else f"{r} {suit}"


def side_name(names: list[str], sides: int, side: int | None) -> str:
    """A score side as people say it: a seat's name, or a team's names (team = seat % sides)."""
    if side is None:
        return "nobody (tied)"
    if sides < len(names):
        return " & ".join(names[side::sides])
    return names[side]


def bar(done: int, total: int, width: int = 30) -> str:
    frac = done / total if total else 1.0
    full = int(frac * width)
    return "[" + "#" * full + "." * (width - full) + f"] {100 * frac:5.1f}%"


def board_lines(driver: TableDriver) -> list[str]:
    ts = driver.table.ts
    snap = ts.snapshot() or {}
    names = ts.names
    d = snap.get("detail") or {}
    lines = [f"table {ts.table_id} · {snap.get('game')} · seq {ts.seq} · status {ts.status}"]
    scores = snap.get("scores") or []
    games = d.get("games")
    lines.append("  " + "    ".join(f"{side_name(names, len(scores), i)}: {sc:>3}" for i, sc in enumerate(scores))
                 + (f"    games won {'–'.join(map(str, games))}" if games else ""))
    turn = snap.get("turn") or {}
    trick = ", ".join(f"{names[c['seat']]} {card_label(c.get('card'))}" for c in d.get("current_trick", []))
    where = (f"smazzata {d['smazzata']} " if d.get("smazzata") is not None else "") + \
        f"hand {d.get('hand', '-')} trick {d.get('trick', '-')}"
    stake = f" stake {d['stake']}" if d.get("stake") is not None else ""
    lines.append(f"  {where}{stake}: {trick}")
    lt = ts.last_trick
    if lt:
        won = names[lt['winner']] if lt.get("winner") is not None else "tied"
        lines.append(f"  last trick → {won}: " + ", ".join(card_label(c.get("card")) for c in lt["cards"]))
    if turn:
        lines.append(f"  to act: {names[turn['seat']]} ({'/'.join(turn['expects'])})")
    if ts.pending:
        lines.append(f"  ? confirm seat {ts.pending['seat']}: {card_label(ts.pending.get('card'))} "
                     f"({ts.pending.get('reason')})")
    leds = "".join("●" if l.is_lit else "○" for l in driver.panel.turn_leds)
    lines.append(f"  LEDs {leds}  status {'/'.join(k for k, l in driver.panel.status_leds.items() if l.is_lit) or '-'}")
    lines.append("  " + bar(driver.done, len(driver.script)))
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="cardtable demo", description=__doc__.split("\n\n")[0])
    ap.add_argument("--game", default="vitou", choices=("vitou", "truco", "trionfetti", "troccas"))
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--speed", type=float, default=4.0, help="times real time (0: as fast as possible)")
    ap.add_argument("--headless", action="store_true", help="no live scoreboard; exit when the match ends")
    ap.add_argument("--mqtt", default="", help="broker URL (default: start an embedded broker)")
    ap.add_argument("--tables", type=int, default=1, help="run N tables at once (club dashboard)")
    ap.add_argument("--players", type=int, default=None, help="players at the table (Troccas: 3-6; default: "
                    "the game's usual number)")
    ap.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                    help="a game option (JSON value), e.g. --option points_to_win=6")
    ap.add_argument("--journal", help="journal file (one table); resumes the match if it exists")
    ap.add_argument("--journal-dir", default="demo-journals", help="where new journals go")
    ap.add_argument("--board", default="", help="also drive an LED/button board: a pyserial URL or sim:// "
                    "(the board simulator)")
    ap.add_argument("--web-port", type=int, default=8080, help="web scoreboard port (0: none)")
    ap.add_argument("--ws-url", default="", help="the broker's websocket URL for browsers on the LAN "
                    "(default: from --mqtt, or the embedded broker's, as the page's host sees it)")
    ap.add_argument("--linger", type=float, default=None,
                    help="seconds to keep serving the scoreboard after the match (default: until Ctrl-C "
                         "in a terminal; 0, i.e. exit, when headless or without a terminal)")
    ap.add_argument("--serve", action="store_true", help="keep serving the scoreboard after the match "
                    "until Ctrl-C, also when headless")
    args = ap.parse_args(argv)
    problem = _bad_args(args)
    if problem:
        print(f"cardtable demo: {problem}", file=sys.stderr)
        return 2
    try:
        args.options = {}
        for item in args.option:
            key, sep, value = item.partition("=")
            if not sep:
                raise DemoError(f"--option {item!r}: use KEY=VALUE")
            try:
                args.options[key] = json.loads(value)
            except ValueError:
                args.options[key] = value
        return _run(args)
    except (DemoError, OSError) as exc:       # JournalError, BrokerError, ports: one line
        print(f"cardtable demo: {exc}", file=sys.stderr)
        return 1
    except ConfigError as exc:                # e.g. a bad --ws-url
        print(f"cardtable demo: {exc}", file=sys.stderr)
        return 2
    except KeyError as exc:
        print(f"cardtable demo: {exc.args[0]} is not available yet in this installation", file=sys.stderr)
        return 2


MAX_TABLES = 8      # one process renders every table's camera frames: beyond this it crawls


def _bad_args(args) -> str | None:
    """The first argument a person got wrong, as one line (argparse only checks types)."""
    if not 1 <= args.tables <= MAX_TABLES:
        return f"--tables {args.tables}: give 1 to {MAX_TABLES} tables"
    if args.journal and args.tables != 1:
        return "--journal names one table's journal: use it with --tables 1"
    if not 0 <= args.web_port <= 65535:
        return f"--web-port {args.web_port}: a port is 1-65535 (0: no web scoreboard)"
    if not args.speed >= 0:
        return f"--speed {args.speed:g}: times real time, 0 (as fast as possible) or more"
    if args.linger is not None and not args.linger >= 0:
        return f"--linger {args.linger:g}: seconds, 0 or more"
    return None


# A connection whose CONNACK never comes is given up by paho after one keepalive (15 s), and
# tried again. The embedded broker (amqtt 0.12.1) left 5 of 39 demo starts' table connections
# unanswered (/tmp probe, session 45: its debug log stops after "Connection from"; in the failing
# run logged, it accepted the socket just before paho sent CONNECT); a 10 s wait made those demos
# fail. The demo waits for this many tries before it says the broker cannot be reached.
CONNECT_TRIES = 3


def _run(args) -> int:
    from controller.broker import BrokerError, EmbeddedBroker
    from controller.camera import VisionInput, make_watcher
    from controller.leds import from_config as leds_from_config
    from controller.rules import find_game
    from controller.runtime import Runtime, RuntimeError_
    from controller.sim import simulator

    try:
        sim = simulator(args.game)
        cls = find_game(args.game)
    except (ImportError, KeyError) as exc:
        raise DemoError(f"{args.game} is not available yet in this installation ({exc})") from None
    if args.players is not None and args.players not in cls.player_counts:
        raise DemoError(f"--players {args.players}: {args.game} is played by "
                        f"{', '.join(map(str, cls.player_counts))} players")
    if "players" in args.options:
        raise DemoError("--option players=N: the number of players is --players N, not a rule option")
    broker = None
    mqtt_url = args.mqtt
    if mqtt_url:
        from controller.reach import BrokerUnreachable, check_broker

        try:
            check_broker(mqtt_url)
        except BrokerUnreachable as exc:
            raise DemoError(str(exc)) from None
    else:
        try:
            broker = EmbeddedBroker(ws_host="0.0.0.0" if args.web_port else "").start()   # TVs on the LAN
        except BrokerError:           # 1883 taken between the look and the bind: any free ports
            try:
                broker = EmbeddedBroker(port=0, ws_port=0, ws_host="0.0.0.0" if args.web_port else "").start()
            except BrokerError as exc:
                raise DemoError(str(exc)) from None
        mqtt_url = broker.url
    signal.signal(signal.SIGTERM, signal.default_int_handler)   # systemctl stop = Ctrl-C: "stopped"
    stamp = time.strftime("%Y%m%d-%H%M%S")
    ids = [f"demo{i + 1}" for i in range(args.tables)]
    drivers: list[TableDriver] = []
    runtimes = []
    referee = Referee(mqtt_url)
    from vision.recognise import Recogniser

    try:
        for i, tid in enumerate(ids):
            try:
                cls.resolve_options(dict(args.options))
            except ValueError as exc:
                raise DemoError(f"--option: {exc}") from None
            script = sim(args.seed + i, args.players, args.options or None)
            start = script[0]
            journal = args.journal or str(Path(args.journal_dir) / f"{tid}-{args.game}-s{args.seed + i}-{stamp}.journal")
            cfg = demo_config(args.game, tid, start["dealer"], start.get("players"), journal, mqtt_url,
                              args.web_port if i == 0 else 0, start.get("options"), args.ws_url)
            clock = FakeClock()
            room = Room(cls.deck_id, cls.clockwise, cfg.players, seed=args.seed + i)
            camera = ScriptedCamera(clock)
            from gpiozero.pins.mock import MockFactory

            panel = leds_from_config(cfg.gpio, cfg.players, clock, pin_factory=MockFactory())
            panels: list[Any] = [panel]
            if args.board:
                from controller.board import BoardError, open_board

                try:
                    panels.append(open_board(args.board, connect_timeout=5))
                except (BoardError, OSError) as exc:
                    raise DemoError(f"--board {args.board}: {exc}") from None
            rt = Runtime(cfg, mqtt_url=mqtt_url, clock=clock, panels=panels, broker=broker, web=(i == 0),
                         table_ids=ids, vision=VisionInput(camera, None), web_fallback=True)
            rt.broker_owned = False
            try:
                rt.start()
            except RuntimeError_ as exc:
                raise DemoError(str(exc)) from None
            runtimes.append(rt)                    # started: closed cleanly whatever comes next
            if not rt.table.link.wait_connected(CONNECT_TRIES * rt.table.link.keepalive):
                raise DemoError(f"cannot reach the MQTT broker at {mqtt_url}")
            rt.table.vision = VisionInput(camera, make_watcher(room.calibration, Recogniser(room.profile),
                                                               rt.table.ts.candidates, cfg.camera.still_frames),
                                          evidence=rt.evidence)
            if rt.evidence is not None and runtimes[0].web is not None:
                runtimes[0].web.evidence[tid] = rt.evidence.root     # one scoreboard serves every table
            drivers.append(TableDriver(rt, room, camera, clock, script, referee, cfg.camera.still_frames, None))
        web_url = runtimes[0].web.url if runtimes[0].web is not None else None
        if web_url and args.web_port and runtimes[0].web.port != args.web_port:
            print(f"cardtable demo: web port {args.web_port} is busy; the scoreboard is on {web_url} instead",
                  file=sys.stderr, flush=True)
        _play(drivers, args)
    except KeyboardInterrupt:                 # a clean stop mid-match: status "stopped", not the will
        _shutdown(referee, runtimes, broker)
        raise
    # the end: what to look at
    for d in drivers:
        ts = d.table.ts
        snap = ts.snapshot() or {}
        names = ts.names
        sc = snap.get("scores", [])
        who = snap.get("match_winner")
        if len(names) == 4 and len(sc) == 2:
            score = f"{names[0]} & {names[2]} {sc[0]} – {sc[1]} {names[1]} & {names[3]}"
            winner = f"{names[who]} & {names[who + 2]}" if isinstance(who, int) else "nobody"
        else:
            score = ", ".join(f"{n} {s}" for n, s in zip(names, sc))
            winner = names[who] if isinstance(who, int) else "nobody"
        print(f"{ts.table_id}: final score {score}; match won by {winner} (seq {ts.seq})")
        print(f"{ts.table_id}: journal {d.rt.journal_path}  (cardtable export {d.rt.journal_path})")
    print(f"MQTT: {mqtt_url}" + (" (embedded)" if broker else "") + f" · topics cardtable/v1/tables/{ids[0]}/#")
    if web_url:
        lan = runtimes[0].web.lan_url
        print(f"web scoreboard: {web_url}" + (f" (on the LAN: {lan})" if lan else ""))
    interactive = not args.headless and sys.stdout.isatty()
    linger = None if args.serve else args.linger if args.linger is not None else (None if interactive else 0)
    try:
        if linger is None:
            print("serving the scoreboard; Ctrl-C to stop", flush=True)
            while True:
                time.sleep(3600)
        elif linger > 0:
            time.sleep(linger)
    except KeyboardInterrupt:
        pass
    _shutdown(referee, runtimes, broker)
    return 0


def _shutdown(referee: Referee, runtimes: list, broker: Any) -> None:
    """Close the referee, then every table (status ``stopped``), then the embedded broker."""
    referee.close()
    for rt in runtimes:
        rt.broker = None
        rt.close()
    if broker is not None:
        broker.stop()


class News:
    """The lines a log (no terminal) gets: each hand with who won it, each game won (the scores
    start again), each new Trionfetti smazzata (its hands count from 1 again)."""

    def __init__(self, driver: TableDriver) -> None:
        ts = driver.table.ts
        d = (ts.snapshot() or {}).get("detail") or {}
        self.hands = len(ts.hands)
        self.games = list(d.get("games") or [])
        self.smazzata = d.get("smazzata")

    def lines(self, driver: TableDriver) -> list[str]:
        ts = driver.table.ts
        snap = ts.snapshot() or {}
        d = snap.get("detail") or {}
        sides = len(snap.get("scores") or []) or len(ts.names)
        out = []
        while self.hands < len(ts.hands):
            h = ts.hands[self.hands]
            self.hands += 1
            # "score [a, b]" as before: scripts and tests read it (tests/web/test_demo.py)
            out.append(f"{ts.table_id} hand {h['hand']:>2}: {side_name(ts.names, sides, h['winner'])} "
                       f"+{h['points']} ({h['reason']})  score {snap.get('scores')}  "
                       f"{bar(driver.accepted, len(driver.script), 20)}")
        games = list(d.get("games") or [])
        if games != self.games and len(games) == len(self.games) and sum(games) > sum(self.games):
            won = next(i for i, (a, b) in enumerate(zip(games, self.games)) if a > b)
            out.append(f"{ts.table_id} GAME won by {side_name(ts.names, sides, won)} "
                       f"(games {'–'.join(map(str, games))}); the score starts again")
        self.games = games
        if d.get("smazzata") is not None and self.smazzata is not None and d["smazzata"] != self.smazzata:
            out.append(f"{ts.table_id} smazzata {d['smazzata']}: the next four hands (counted from 1 again)")
        self.smazzata = d.get("smazzata")
        return out


def _play(drivers: list[TableDriver], args) -> None:
    runs = [(d, d.run()) for d in drivers]
    frame_wall = (1 / FPS) / args.speed if args.speed > 0 else 0.0
    next_t = time.monotonic()
    last_draw = 0.0
    news = {d.table.ts.table_id: News(d) for d in drivers}
    live = not args.headless and sys.stdout.isatty()
    while runs:
        for item in list(runs):
            d, gen = item
            try:
                next(gen)
            except StopIteration:
                runs.remove(item)
        if frame_wall:
            next_t += frame_wall
            delay = next_t - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            else:
                next_t = time.monotonic()
        now = time.monotonic()
        if live and now - last_draw > 0.1:
            last_draw = now
            lines = []
            for d in drivers:
                lines += board_lines(d) + [""]
            sys.stdout.write("\x1b[H\x1b[J" + "\n".join(lines) + "\n")
            sys.stdout.flush()
        elif not live:
            for d in drivers:
                for line in news[d.table.ts.table_id].lines(d):
                    print(line, flush=True)
    if live:
        lines = []
        for d in drivers:
            d.done = d.accepted
            lines += board_lines(d) + [""]
        sys.stdout.write("\x1b[H\x1b[J" + "\n".join(lines) + "\n")
