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

Every input is bounded before it becomes a record (:data:`MAX_COMMAND_BYTES`,
:data:`MAX_INPUT_DEPTH`, :func:`_card_of`, :func:`_press_ok`). If the journal cannot be
written (full disk, I/O error) or anything unexpected fails, the table *halts*: it judges
nothing more, lights the fault LED, and ``cardtable run`` exits non-zero with the retained
``status`` ``offline``; nothing unrecorded was published.
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
from controller.evidence import NAME as EVIDENCE_NAME
from controller.journal import Journal, JournalError
from controller.limits import ECHO_CHARS, MAX_COMMAND_BYTES, MAX_ID, MAX_INPUT_DEPTH, json_depth
from controller.panel import ButtonPress
from controller.tablestate import FACE_DOWN, Outcome, TableState

# Input bounds (controller.limits), checked before anything is parsed further or journalled.
MAX_CARD_CHARS = 40        # card ids are "suit/rank" (CONTRACT §1): the longest is 17 characters
MAX_SEAT = 15              # seats are 0..players-1, players <= 6; a board frame claiming more is noise
MAX_BUTTON = 7             # the board has at most a few buttons per seat
# Judgments of this run kept for inspection (tests, the demo); the journal has them all.
MAX_JUDGED = 1000


class CommandError(ValueError):
    """A command that cannot be applied; the message starts with its error code."""


class JournalMismatch(JournalError):
    """The journal belongs to another table, game or player count than the config."""


class TableHalted(JournalError):
    """The table stopped judging after a fault (the journal could not be written)."""


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
        self.judged: deque[dict[str, Any]] = deque(maxlen=MAX_JUDGED)   # (seq-tagged) published this run
        self.halted: str | None = None
        self.identity = {"table": table_id,
                         "game": self.meta.get("game") or (start_event or {}).get("game"),
                         "players": self.meta.get("players") or (start_event or {}).get("players")}

    # ----- start-up -------------------------------------------------------------------
    def open(self) -> None:
        """Replay the journal (the state before a crash), publish it, start a match if none.
        Raises JournalCorrupt / JournalMismatch (one line, the file left as it was)."""
        records = self.journal.open()
        if records:
            self._check_identity(records[0])
        else:
            self.journal.append({"r": "meta", **self.identity})
        for rec in records:
            self.ts.apply(rec)
        self._restored = self.ts.on_table()
        self.link.publish_meta(self.meta)
        self.link.publish_state(self.ts.state())
        if self.ts.referee.game is None and self.start_event is not None:
            self.submit({"r": "event", "event": dict(self.start_event), "src": "config"})
        self._refresh_panels(force=True)

    def _check_identity(self, first: dict[str, Any]) -> None:
        """The journal's first record names its table, game and players: they must be the config's."""
        if first.get("r") == "meta":
            theirs = {k: first.get(k) for k in self.identity}
        elif first.get("r") == "event" and isinstance(first.get("event"), dict) \
                and first["event"].get("event") == "start":     # a journal from before meta records
            theirs = {"table": None, "game": first["event"].get("game"), "players": first["event"].get("players")}
        else:
            return
        keys = {"table": "[table] id", "game": "[game] name", "players": "[game] players"}
        wrong = [k for k, v in theirs.items() if v is not None and self.identity.get(k) is not None
                 and v != self.identity[k]]
        if wrong:
            fix = ", ".join(f"{keys[k]} = {theirs[k]!r}" for k in wrong)
            mine = ", ".join(f"{k} {self.identity[k]!r}" for k in wrong)
            self.journal.close()
            raise JournalMismatch(f"{self.journal.path} is the journal of another match ({fix.replace(' = ', ' ')}; "
                                  f"the config has {mine}): set {fix}, or give a new [journal] path")

    def halt(self, reason: str) -> None:
        """Stop judging (the journal failed): the fault LED, nothing more published."""
        self.halted = reason
        for p in self.panels:
            try:
                p.set_status("fault")
            except Exception:       # a dying board must not hide the journal's fault
                pass

    def close(self, status: str = "stopped") -> None:
        self.link.stop(status)
        for p in self.panels:
            p.close()
        if self.vision is not None:
            self.vision.close()
        self.journal.close()

    # ----- the one way the state moves ------------------------------------------------
    def submit(self, rec: dict[str, Any], journal_always: bool = False) -> Outcome:
        if self.halted:
            raise TableHalted(self.halted)
        out = self.ts.apply(rec)
        if out.changed or journal_always:
            try:
                self.journal.append(rec)         # fsync: before anything is published
            except JournalError as exc:
                self.halt(str(exc))              # self.ts moved past the journal: judge no more
                raise
        if out.changed:
            self._publish(out, rec.get("evidence"))
        return out

    def _publish(self, out: Outcome, evidence: str | None = None) -> None:
        seq = self.ts.seq
        published = [j for j in out.judgments if j.get("judgment") != "error"]
        if evidence:       # the judgments of a card the camera saw name its picture
            published = [{**j, "evidence": evidence} for j in published]
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
        if self.halted:
            raise TableHalted(self.halted)
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
        seat, card, conf, face_up = _seat_of(ev), _card_of(ev), _confidence_of(ev), bool(getattr(ev, "face_up", True))
        seen = (seat, card if face_up else FACE_DOWN)
        if kind == "cleared":
            self._restored.clear()
        if kind == "removed":
            self._restored.discard(seen)
        if kind not in ("placed", "needs_confirmation"):
            return                                   # removed / cleared: tricks being gathered
        if seen in self._restored and not (face_up and card is None):
            # judged before a restart, matched by seat AND card: the camera sees it again
            self._restored.discard(seen)
            confirm = getattr(self.vision, "confirm", None)
            if face_up and confirm is not None and (kind == "needs_confirmation" or conf < self.min_confidence):
                confirm(seat, card)                  # the same card by seat and id, seen less well
            return
        if self.ts.pending is not None:
            self._held.append(ev)
            return
        pic = _evidence_of(ev)
        if kind == "needs_confirmation" or (face_up and (card is None or conf < self.min_confidence)):
            self._pend(seat, card, conf, "low_confidence", pic)
            return
        if seat is None:
            self._pend(seat, card, conf, "no_seat", pic)
            return
        event = {"event": "card", "seat": seat, "card": card} if face_up else \
            {"event": "card", "seat": seat, "face_down": True}
        out = self.submit({"r": "event", "event": event, "src": "vision", **_named(pic)})
        if out.errors:
            self._pend(seat, card, conf, str(out.errors[0].get("code")), pic)

    def _pend(self, seat: int | None, card: str | None, conf: float, reason: str, pic: str | None = None) -> None:
        self.submit({"r": "pending", "seat": seat, "card": card, "confidence": round(conf, 3), "reason": reason,
                     **_named(pic)})

    # ----- buttons -----------------------------------------------------------------------
    def on_press(self, press: ButtonPress) -> None:
        if not _press_ok(press):
            self.link.publish_alert(self.ts.seq, {"code": "rejected_press", "seat": None,
                                                  "message": f"ignored a malformed button press {str(press)[:ECHO_CHARS]!r}"})
            return
        pending = self.ts.pending
        if pending is not None and pending.get("seat") == press.seat and press.button == 0:
            if press.kind == "short" and pending.get("card"):
                self.submit({"r": "event", "event": {"event": "card", "seat": press.seat, "card": pending["card"]},
                             "src": "confirm", **_named(pending.get("evidence"))})
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
        """Apply one command at most once; always answers on ``cmd_result``; never raises
        (but a journal failure, which halts the table)."""
        verb = str(verb)[:ECHO_CHARS]
        if len(payload) > MAX_COMMAND_BYTES:
            return self._result({"id": None, "ok": False, "verb": verb,
                                 "error": f"bad_command: {len(payload)} bytes (at most {MAX_COMMAND_BYTES})"})
        if json_depth(payload) > MAX_INPUT_DEPTH:
            return self._result({"id": None, "ok": False, "verb": verb,
                                 "error": f"bad_command: nested deeper than {MAX_INPUT_DEPTH} levels"})
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
        return {"r": "event", "event": {"event": "card", "seat": seat, "card": card}, "src": "confirm",
                **_named(p.get("evidence"))}

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


def _seat_of(ev: Any) -> int | None:
    seat = getattr(ev, "seat", None)
    return seat if isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat <= MAX_SEAT else None


def _card_of(ev: Any) -> str | None:
    card = getattr(ev, "card", None)
    return card if isinstance(card, str) and 0 < len(card) <= MAX_CARD_CHARS else None


def _evidence_of(ev: Any) -> str | None:
    """The evidence picture's name an event carries (controller.evidence.NAME), or None."""
    name = getattr(ev, "evidence", None)
    return name if isinstance(name, str) and EVIDENCE_NAME.fullmatch(name) else None


def _named(pic: str | None) -> dict[str, str]:
    """The record field naming a picture: absent when there is none (journals stay as they were)."""
    return {"evidence": pic} if pic else {}


def _confidence_of(ev: Any) -> float:
    try:
        conf = float(getattr(ev, "confidence", 0.0))
    except (TypeError, ValueError):
        return 0.0
    return conf if 0.0 <= conf <= 1.0 else 0.0


def _press_ok(press: Any) -> bool:
    """A press from a pin or a board frame: seat, button and kind within their ranges."""
    seat, button = getattr(press, "seat", None), getattr(press, "button", None)
    return (isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat <= MAX_SEAT
            and isinstance(button, int) and not isinstance(button, bool) and 0 <= button <= MAX_BUTTON
            and getattr(press, "kind", None) in ("short", "long"))


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
    except JournalError as exc:            # another match's journal, a corrupt line: retrying cannot help
        print(f"cardtable run: {exc}", file=sys.stderr)
        return 2
    except (RuntimeError_, OSError, ValueError) as exc:
        print(f"cardtable run: {exc}", file=sys.stderr)
        return 1            # may pass (camera plugged in, broker up): systemd retries; config errors are 2
    except Exception as exc:               # unexpected: one line, a fault exit (Runtime left it offline)
        print(f"cardtable run: internal error while starting ({type(exc).__name__}: {str(exc)[:200]})",
              file=sys.stderr)
        return 4
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
    except Exception as exc:               # a bug or a part failing unexpectedly: a fault, not a clean stop
        rt.table.halt(f"{type(exc).__name__}: {exc}")
        print(f"cardtable run: internal error ({type(exc).__name__}: {str(exc)[:200]}); stopping", file=sys.stderr)
        code = 4
    finally:
        rt.close("offline" if code else "stopped")
    return code
