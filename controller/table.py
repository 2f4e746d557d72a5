"""The table loop: camera, buttons and commands in; journal, then LEDs and MQTT out.

:class:`Table` owns one :class:`~controller.tablestate.TableState` and moves it only through
journal records: each input becomes a record, the record is applied, and if it changed
anything (or is a command, whose id must be remembered) it is appended and fsynced
*before* its judgments reach the LEDs or the broker. :meth:`Table.step` does one round
of polling and is all the tests need (no threads, an injectable clock); :func:`main` is
``cardtable run``.

An uncertain or impossible card (low confidence, unidentified, already played, not of
this deck, out of turn, face down where not allowed) is never judged silently: it becomes
``pending``, the seat's LED blinks, an ``alerts`` message goes out, and the referee
confirms or corrects it (seat button short = confirm, long = reject; or ``cmd/confirm``,
``cmd/reject``). While a card is pending, further cards from the camera wait.
"""
from __future__ import annotations

import argparse
import json
import signal
import sys
import time
from collections import deque
from typing import Any, Callable, Protocol, Sequence

from controller.buttons import press_event
from controller.journal import Journal, JournalError
from controller.panel import ButtonPress
from controller.tablestate import Outcome, TableState

MAX_ID = 64


class CommandError(ValueError):
    """A command that cannot be applied; the message starts with its error code."""


class CardInput(Protocol):
    """What the loop needs from vision (controller.camera.VisionInput, or a test fake)."""

    fault: str | None

    def poll(self) -> list[Any]: ...          # CardEvent-likes: event, seat, card, face_up, confidence
    def close(self) -> None: ...


class Table:
    def __init__(self, journal: Journal, link, *, table_id: str = "table1", names: Sequence[str] = (),
                 start_event: dict[str, Any] | None = None, meta: dict[str, Any] | None = None,
                 panels: Sequence[Any] = (), vision: CardInput | None = None, min_confidence: float = 0.8,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.journal = journal
        self.link = link
        self.panels = list(panels)
        self.vision = vision
        self.min_confidence = min_confidence
        self.clock = clock
        self.start_event = start_event
        self.meta = meta or {"table": table_id}
        self.ts = TableState(table_id, list(names))
        self._held: deque[Any] = deque()
        self._shown: tuple | None = None
        self._restored: set[tuple[int, str]] = set()   # cards judged before a restart, still lying there
        self.judged: list[dict[str, Any]] = []       # (seq-tagged) judgments published this run

    # ----- start-up -------------------------------------------------------------------
    def open(self) -> None:
        """Replay the journal (the state before a crash), publish it, start a match if none."""
        for rec in self.journal.open():
            self.ts.apply(rec)
        self._restored = self.ts.on_table()
        self.link.publish_meta(self.meta)
        self.link.publish_state(self.ts.state())
        if self.ts.referee.game is None and self.start_event is not None:
            self.submit({"r": "event", "event": dict(self.start_event), "src": "config"})
        self._refresh_panels(force=True)

    def close(self, status: str = "stopped") -> None:
        self.link.stop(status)
        for p in self.panels:
            p.close()
        if self.vision is not None:
            self.vision.close()
        self.journal.close()

    # ----- the one way the state moves ------------------------------------------------
    def submit(self, rec: dict[str, Any], journal_always: bool = False) -> Outcome:
        out = self.ts.apply(rec)
        if out.changed or journal_always:
            self.journal.append(rec)             # fsync: before anything is published
        if out.changed:
            self._publish(out)
        return out

    def _publish(self, out: Outcome) -> None:
        seq = self.ts.seq
        published = [j for j in out.judgments if j.get("judgment") != "error"]
        self.link.publish_events(seq, published)
        for a in out.alerts:
            self.link.publish_alert(seq, a)
        self.link.publish_state(self.ts.state())
        self.judged += [{"seq": seq, "i": i, **j} for i, j in enumerate(published)]
        for j in published:
            if j.get("judgment") in ("trick", "hand"):
                self._restored.clear()      # a finished trick is gathered: nothing from before is news
            if j.get("judgment") == "trick":
                for p in self.panels:
                    p.flash_winner(j.get("winner"))
        self._refresh_panels()

    def _refresh_panels(self, force: bool = False) -> None:
        turn = self.ts.turn()
        pending = self.ts.pending
        snap = self.ts.snapshot() or {}
        shown = (turn[0] if turn else None, pending.get("seat") if pending else None, self.ts.status,
                 tuple(snap.get("scores") or ()))
        if shown == self._shown and not force:
            return
        self._shown = shown
        for p in self.panels:
            p.show_turn(shown[0])
            p.ask_confirmation(shown[1] if pending else None)
            p.set_status(shown[2])  # type: ignore[arg-type]
            p.show_scores(list(shown[3]))

    # ----- one round --------------------------------------------------------------------
    def step(self) -> int:
        """Poll every input once and act on what came; returns how many inputs were handled."""
        n = 0
        events = self.vision.poll() if self.vision is not None else []
        self._check_fault()
        for ev in events:
            self.on_card_event(ev)
            n += 1
        for p in self.panels:
            for press in p.presses():
                self.on_press(press)
                n += 1
        for verb, payload in self.link.commands():
            self.on_command(verb, payload)
            n += 1
        if self.ts.pending is None:
            while self._held and self.ts.pending is None:
                self.on_card_event(self._held.popleft())
        for p in self.panels:
            tick = getattr(p, "tick", None)
            if tick is not None:
                tick()
        return n

    def _check_fault(self) -> None:
        """Camera or board lost / back: a journalled fault record when the fault's kind changes."""
        cam = self.vision.fault if self.vision is not None else None
        board = None
        for p in self.panels:
            f = getattr(p, "fault", None)
            if isinstance(f, str) and f:
                board = f
                break
        want = {"code": "camera_lost", "message": cam} if cam else \
            {"code": "board_lost", "message": board} if board else None
        cur = self.ts.fault
        if (want or {}).get("code") != (cur or {}).get("code"):
            self.submit({"r": "fault", "fault": want})

    # ----- vision -----------------------------------------------------------------------
    def on_card_event(self, ev: Any) -> None:
        kind = getattr(ev, "event", None)
        if kind == "cleared":
            self._restored.clear()
        if kind == "removed":
            self._restored.discard((ev.seat, ev.card))
        if kind not in ("placed", "needs_confirmation"):
            return                                   # removed / cleared: tricks being gathered
        if kind == "placed" and (ev.seat, ev.card) in self._restored:
            self._restored.discard((ev.seat, ev.card))
            return                                   # judged before a restart; the camera sees it again
        unsure = kind == "needs_confirmation" or ev.card is None or float(ev.confidence) < self.min_confidence
        mine = [rc for rc in self._restored if rc[0] == ev.seat]
        if unsure and len(mine) == 1:                # the same card, seen less well than before
            self._restored.discard(mine[0])
            confirm = getattr(self.vision, "confirm", None)
            if confirm is not None:
                confirm(mine[0][0], mine[0][1])
            return
        if self.ts.pending is not None:
            self._held.append(ev)
            return
        seat, card, conf = ev.seat, ev.card, float(ev.confidence)
        face_up = bool(ev.face_up)
        if kind == "needs_confirmation" or (face_up and (card is None or conf < self.min_confidence)):
            self._pend(seat, card, conf, "low_confidence")
            return
        if seat is None:
            self._pend(seat, card, conf, "no_seat")
            return
        event = {"event": "card", "seat": seat, "card": card} if face_up else \
            {"event": "card", "seat": seat, "face_down": True}
        out = self.submit({"r": "event", "event": event, "src": "vision"})
        if out.errors:
            self._pend(seat, card, conf, str(out.errors[0].get("code")))

    def _pend(self, seat: int | None, card: str | None, conf: float, reason: str) -> None:
        self.submit({"r": "pending", "seat": seat, "card": card, "confidence": round(conf, 3), "reason": reason})

    # ----- buttons -----------------------------------------------------------------------
    def on_press(self, press: ButtonPress) -> None:
        pending = self.ts.pending
        if pending is not None and pending.get("seat") == press.seat and press.button == 0:
            if press.kind == "short" and pending.get("card"):
                self.submit({"r": "event", "event": {"event": "card", "seat": press.seat, "card": pending["card"]},
                             "src": "confirm"})
            elif press.kind == "long":
                self.submit({"r": "reject"})
            return
        event = press_event(self.ts.game_name(), self.ts.snapshot(), press)
        if event is None:
            return
        out = self.submit({"r": "event", "event": event, "src": "button"})
        if out.errors:
            e = out.errors[0]
            self.link.publish_alert(self.ts.seq, {"code": "rejected_press", "seat": press.seat,
                                                  "message": f"{e.get('code')}: {e.get('message')}"})

    # ----- commands (referee tablet over MQTT) -------------------------------------------
    def on_command(self, verb: str, payload: bytes) -> dict[str, Any]:
        """Apply one command at most once; always answers on ``cmd_result``; never raises."""
        try:
            obj = json.loads(payload)
        except (ValueError, UnicodeDecodeError, RecursionError):
            return self._result({"id": None, "ok": False, "error": "bad_command: not valid JSON", "verb": verb})
        cid = obj.get("id") if isinstance(obj, dict) else None
        if not isinstance(cid, str) or not 0 < len(cid) <= MAX_ID:
            return self._result({"id": cid if isinstance(cid, (str, int)) else None, "ok": False,
                                 "error": f"bad_command: a command is a JSON object with a string id (1-{MAX_ID} characters)",
                                 "verb": verb})
        if cid in self.ts.seen:
            return self._result({**self.ts.seen[cid], "duplicate": True})
        try:
            handler = COMMANDS.get(verb)
            if handler is None:
                raise CommandError(f"bad_command: unknown verb {verb[:40]!r} (verbs: {', '.join(COMMANDS)})")
            rec = handler(self, obj)
        except CommandError as exc:
            rec = {"r": "cmd", "id": cid, "verb": verb[:40], "error": str(exc)}
            self.submit(rec, journal_always=True)
            return self._result(dict(self.ts.seen[cid]))
        rec["cmd"] = {"id": cid, "verb": verb}
        out = self.submit(rec, journal_always=True)
        if out.changed and self.vision is not None and rec.get("src") == "confirm":
            confirm = getattr(self.vision, "confirm", None)
            if confirm is not None:
                confirm(rec["event"]["seat"], rec["event"]["card"])
        return self._result(dict(self.ts.seen[cid]))

    def _result(self, result: dict[str, Any]) -> dict[str, Any]:
        result.setdefault("seq", self.ts.seq)
        self.link.publish_cmd_result(result)
        return result

    def _cmd_event(self, obj: dict[str, Any]) -> dict[str, Any]:
        _only(obj, {"event"})
        ev = obj.get("event")
        if not isinstance(ev, dict):
            raise CommandError('bad_command: cmd/event needs "event": a CONTRACT §3.1 event object')
        return {"r": "event", "event": ev, "src": "cmd"}

    def _cmd_confirm(self, obj: dict[str, Any]) -> dict[str, Any]:
        _only(obj, {"card", "seat"})
        p = self.ts.pending
        if p is None:
            raise CommandError("nothing_pending: no card is waiting for confirmation")
        card = obj.get("card", p.get("card"))
        seat = obj.get("seat", p.get("seat"))
        if not isinstance(card, str):
            raise CommandError('bad_command: the waiting card was not identified: give "card"')
        if not isinstance(seat, int) or isinstance(seat, bool):
            raise CommandError('bad_command: the waiting card has no seat: give "seat"')
        return {"r": "event", "event": {"event": "card", "seat": seat, "card": card}, "src": "confirm"}

    def _cmd_reject(self, obj: dict[str, Any]) -> dict[str, Any]:
        _only(obj, set())
        if self.ts.pending is None:
            raise CommandError("nothing_pending: no card is waiting for confirmation")
        return {"r": "reject"}

    def _cmd_undo(self, obj: dict[str, Any]) -> dict[str, Any]:
        _only(obj, set())
        return {"r": "event", "event": {"event": "undo"}, "src": "cmd"}

    def _cmd_start(self, obj: dict[str, Any]) -> dict[str, Any]:
        _only(obj, {"game", "dealer", "players", "options"})
        ev = dict(self.start_event or {"event": "start", "game": "vitou", "dealer": 0})
        for k in ("game", "dealer", "players", "options"):
            if k in obj:
                ev[k] = obj[k]
        if "game" in obj and "players" not in obj:
            ev.pop("players", None)
        return {"r": "event", "event": ev, "src": "cmd"}


def _only(obj: dict[str, Any], allowed: set[str]) -> None:
    extra = sorted(set(obj) - allowed - {"id"})
    if extra:
        raise CommandError(f"bad_command: unknown field(s) {', '.join(map(str, extra))[:80]}")


COMMANDS: dict[str, Callable[[Table, dict[str, Any]], dict[str, Any]]] = {
    "event": Table._cmd_event,
    "confirm": Table._cmd_confirm,
    "reject": Table._cmd_reject,
    "undo": Table._cmd_undo,
    "start": Table._cmd_start,
}


# ----- building a table from its config ------------------------------------------------
def meta_for(cfg) -> dict[str, Any]:
    from controller.rules import find_game
    from controller.rules.engine import team_of, teams_for
    from importlib.metadata import PackageNotFoundError, version as _version

    try:
        version = _version("cardtable")
    except PackageNotFoundError:
        version = "dev"

    cls = find_game(cfg.game.name)
    n = cfg.players
    seats = [{"seat": i, "name": name, "position": cfg.seats[i].position if cfg.seats else None}
             for i, name in enumerate(cfg.names())]
    teams = [[s for s in range(n) if team_of(s, n) == t] for t in range(teams_for(n))]
    return {"table": cfg.table.id, "name": cfg.table.name or cfg.table.id, "game": cfg.game.name,
            "deck": cls.deck_id, "players": n, "clockwise": cls.clockwise, "seats": seats, "teams": teams,
            "options": dict(cfg.game.options), "version": version}


def build_link(cfg, mqtt_url: str, table_id: str | None = None):
    from controller.mqtt import MqttLink, NullLink

    if mqtt_url == "off":
        return NullLink()
    m = cfg.mqtt
    return MqttLink(mqtt_url, table_id or cfg.table.id, username=m.username, password=m.password,
                    ca_file=m.ca_file, keepalive=m.keepalive)


def build_panels(cfg, clock: Callable[[], float]) -> list[Any]:
    panels: list[Any] = []
    if cfg.gpio.enabled:
        from controller.leds import from_config

        panels.append(from_config(cfg.gpio, cfg.players, clock))
    if cfg.board.url:
        from controller.board import BoardError, open_board

        try:    # connect in the background: an unplugged board is a fault shown, not a dead table
            panels.append(open_board(cfg.board.url, connect_timeout=0, clock=clock))
        except (BoardError, OSError) as exc:
            raise ValueError(f"board.url: {exc}") from None
    return panels


def main(argv: Sequence[str] | None = None) -> int:
    from controller.config import ConfigError, load_config

    ap = argparse.ArgumentParser(prog="cardtable run", description="Run a table: camera, referee, LEDs, board, MQTT.")
    ap.add_argument("--config", "-c", default=None, help="table config (TOML); default: built-in defaults")
    ap.add_argument("--check-config", action="store_true", help="validate the config and exit")
    ap.add_argument("--journal", help="override [journal] path")
    ap.add_argument("--mqtt", help="override [mqtt] url ('off': no MQTT)")
    args = ap.parse_args(argv)
    try:
        cfg = load_config(args.config)
    except ConfigError as exc:
        print(f"cardtable run: {exc}", file=sys.stderr)
        return 2
    if args.check_config:
        print(f"{args.config or '(defaults)'}: OK — table {cfg.table.id}, {cfg.game.name}, {cfg.players} players")
        return 0
    from controller.runtime import Runtime, RuntimeError_

    try:
        rt = Runtime(cfg, journal=args.journal, mqtt_url=args.mqtt)
        rt.start()
    except (RuntimeError_, JournalError, OSError, ValueError) as exc:
        print(f"cardtable run: {exc}", file=sys.stderr)
        return 1            # may pass (camera plugged in, broker up): systemd retries; config errors are 2
    stop = {"now": False}

    def on_signal(*_):
        stop["now"] = True
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    print(rt.banner(), flush=True)
    code = 0
    try:
        while not stop["now"]:
            busy = rt.table.step()
            vision = rt.table.vision
            if not busy and (vision is None or getattr(vision, "idle", False)):
                time.sleep(0.01)           # no camera, or no frame ready: don't spin
    except JournalError as exc:            # disk full or gone: stop before judging unrecorded play
        print(f"cardtable run: {exc}; stopping (nothing unrecorded was published)", file=sys.stderr)
        code = 3
    finally:
        rt.close("offline" if code else "stopped")
    return code
