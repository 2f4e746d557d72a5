"""A table's whole state as a pure fold over its journal records.

``TableState.apply(record)`` is the only way the state moves, live and on replay, so a table
restarted from its journal is exactly the table that crashed (``seq`` included). Records:

- ``{"r": "event", "event": {...}, "src": "vision"|"button"|"cmd"|"demo"|"confirm", "cmd": {...}?}``
  an input event the referee accepted (a ``confirm`` source also settles the pending card);
- ``{"r": "pending", "seat", "card", "confidence", "reason"}`` a card that waits for a human;
- ``{"r": "reject", "cmd": {...}?}`` the pending card was not a play;
- ``{"r": "fault", "fault": {"code", "message"} | null}`` camera or board lost / back;
- ``{"r": "cmd", "id", "verb", "error"}`` a rejected command, kept so a replayed id is
  answered and never judged (no state change, no ``seq``);
- ``{"r": "meta", "table", "game", "players"}`` the first record: whose journal this is
  (checked against the config on start; no state change, no ``seq``).
A camera card's ``event`` or ``pending`` record may name its picture, ``"evidence":
"m0003/000042-placed.jpg"`` (controller/evidence.py): kept in ``pending`` and in the state's
``evidence`` list of the last camera cards, so a display can show what the camera saw.
The journal's own fields (``n``, ``wall``) are ignored here. No clocks, no I/O.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from controller.rules.referee import Referee

MAX_ALERTS = 10
# Camera cards whose pictures the state lists (``evidence``): the current trick and the last
# one of a four-seat game, what a dispute is about.
MAX_EVIDENCE = 8
# The longest evidence name kept (controller.evidence.NAME makes ~36 characters).
MAX_EVIDENCE_CHARS = 64
# Command ids remembered (answered as duplicates, never applied twice). A referee client
# re-sends only what it has not seen answered (paho's QoS 1 redelivery, a tablet retrying
# its last few commands), so the window only has to outlast a session; 4096 ids is hours
# of refereeing (a busy match sends < 1 command/min) at ~200 bytes each.
MAX_SEEN = 4096
FACE_DOWN = "<face down>"      # the card of a face-down play in on_table()


@dataclass
class Outcome:
    """What one record did: judgments to publish (errors excluded), alerts, whether state moved."""

    judgments: list[dict[str, Any]] = field(default_factory=list)
    errors: list[dict[str, Any]] = field(default_factory=list)
    alerts: list[dict[str, Any]] = field(default_factory=list)
    changed: bool = False

    @property
    def error(self) -> dict[str, Any] | None:
        return self.errors[0] if self.errors else None


@dataclass(frozen=True)
class _StartMark:
    """What the table showed before a ``start``: an undo of that start shows it again."""
    hands: list[dict[str, Any]]
    last_trick: dict[str, Any] | None
    marks: list[Any]


class TableState:
    def __init__(self, table_id: str = "table1", names: list[str] | None = None) -> None:
        self.table_id = table_id
        self.names = list(names or [])
        self.referee = Referee()
        self.seq = 0
        self.pending: dict[str, Any] | None = None
        self.fault: dict[str, Any] | None = None
        self.hands: list[dict[str, Any]] = []
        self.last_trick: dict[str, Any] | None = None
        self.alerts: list[dict[str, Any]] = []
        self.seen: dict[str, dict[str, Any]] = {}     # command id -> its cmd_result
        self.match = 0                                  # accepted ``start`` events: the match folder's number
        self.evidence: list[dict[str, Any]] = []        # the last camera cards' pictures
        # One mark per accepted event, so an undo restores what the table showed before it:
        # (hands kept, last trick) for a play, a _StartMark for a start (the match it replaced).
        self._marks: list[Any] = []

    # ----- the fold -------------------------------------------------------------------
    def apply(self, rec: dict[str, Any]) -> Outcome:
        kind = rec.get("r")
        out = Outcome()
        if kind == "event":
            self._event(rec, out)
        elif kind == "pending":
            self.pending = {k: rec.get(k) for k in ("seat", "card", "confidence", "reason")}
            if _evidence(rec):
                self.pending["evidence"] = _evidence(rec)
            card = rec.get("card") or "a card"
            conf = rec.get("confidence")
            alert = {"code": "confirm_card", "seat": rec.get("seat"),
                     "message": f"seat {rec.get('seat')}: {card}? ({rec.get('reason')}"
                                + (f", confidence {conf:.2f}" if isinstance(conf, (int, float)) else "")
                                + ") — confirm or correct",
                     "pending": dict(self.pending)}
            self._alert(alert, out)
            out.changed = True
        elif kind == "reject":
            self._settle()
            out.changed = True
        elif kind == "fault":
            new, old = rec.get("fault"), self.fault
            self.fault = dict(new) if new else None
            if old and (not new or new.get("code") != old.get("code")):
                self.alerts = [a for a in self.alerts if a.get("code") != old.get("code")]   # resolved
                code = str(old.get("code", "fault")).replace("_lost", "_back")
                out.alerts.append({"code": code, "seat": None, "message": f"{code.replace('_', ' ')}"})
            if new:
                self._alert({"code": new.get("code", "fault"), "seat": None, "message": new.get("message", "")}, out)
            out.changed = True
        elif kind in ("cmd", "meta"):
            pass
        else:
            out.errors.append({"judgment": "error", "code": "bad_event", "message": f"unknown journal record {kind!r}"})
        if out.changed:
            self.seq += 1
            self._keep_evidence(rec)
        self._remember_cmd(rec, out)
        return out

    def _keep_evidence(self, rec: dict[str, Any]) -> None:
        name = _evidence(rec)
        if name is None:
            return
        if rec.get("r") == "pending":
            item = {"seq": self.seq, "seat": rec.get("seat"), "card": rec.get("card"), "pending": True,
                    "reason": rec.get("reason"), "evidence": name}
        else:
            ev = rec.get("event") if isinstance(rec.get("event"), dict) else {}
            item = {"seq": self.seq, "seat": ev.get("seat"), "card": ev.get("card"), "pending": False,
                    "face_down": bool(ev.get("face_down")), "src": rec.get("src"), "evidence": name}
        self.evidence = (self.evidence + [item])[-MAX_EVIDENCE:]

    def _event(self, rec: dict[str, Any], out: Outcome) -> None:
        before = (len(self.hands), copy.deepcopy(self.last_trick))
        ev = rec.get("event")
        kind = ev.get("event") if isinstance(ev, dict) else None
        judgments = self.referee.feed_object(ev)
        errors = [j for j in judgments if j.get("judgment") == "error"]
        if errors:
            out.errors = errors
            return
        out.changed = True
        if kind == "start":
            self._marks = [_StartMark(self.hands, self.last_trick, self._marks)]
            self.hands, self.last_trick, self.alerts, self.pending = [], None, [], None
            self.match += 1
            self.evidence = []
        elif kind == "undo":
            mark = self._marks.pop() if self._marks else (0, None)
            if isinstance(mark, _StartMark):       # the referee brought the replaced match back
                self.hands, self.last_trick, self._marks = mark.hands, mark.last_trick, mark.marks
            else:
                n, lt = mark
                self.hands, self.last_trick = self.hands[:n], lt
        else:
            self._marks.append(before)
        if rec.get("src") == "confirm":
            self._settle()
        for j in judgments:
            k = j.get("judgment")
            if k == "trick":
                self.last_trick = {key: v for key, v in j.items() if key != "judgment"}
            elif k == "hand":
                self.hands.append({key: v for key, v in j.items() if key != "judgment"})
            elif k == "alert":
                self._alert({key: v for key, v in j.items() if key != "judgment"}, out)
        out.judgments = judgments

    def _alert(self, alert: dict[str, Any], out: Outcome) -> None:
        """Retain it once: an identical alert already there moves to the end, not piles up."""
        self.alerts = ([a for a in self.alerts if a != alert] + [alert])[-MAX_ALERTS:]
        out.alerts.append(alert)

    def _settle(self) -> None:
        """The pending card was confirmed or rejected: its question is no longer open."""
        self.pending = None
        self.alerts = [a for a in self.alerts if a.get("code") != "confirm_card"]

    def _remember_cmd(self, rec: dict[str, Any], out: Outcome) -> None:
        if rec.get("r") == "cmd":
            cid, verb, err = rec.get("id"), rec.get("verb"), rec.get("error")
        elif isinstance(rec.get("cmd"), dict):
            cid, verb = rec["cmd"].get("id"), rec["cmd"].get("verb")
            err = None if out.changed else self._error_text(out)
        else:
            return
        if isinstance(cid, str):
            self.seen.pop(cid, None)
            while len(self.seen) >= MAX_SEEN:
                del self.seen[next(iter(self.seen))]      # the oldest id
            self.seen[cid] = {"id": cid, "ok": err is None, "error": err, "verb": verb, "seq": self.seq}

    @staticmethod
    def _error_text(out: Outcome) -> str:
        e = out.error or {"code": "bad_command", "message": "rejected"}
        return f"{e.get('code')}: {e.get('message')}"

    # ----- views ------------------------------------------------------------------------
    def snapshot(self) -> dict[str, Any] | None:
        return self.referee.snapshot()

    def game_name(self) -> str | None:
        g = self.referee.game
        return None if g is None else g.name

    @property
    def status(self) -> str:
        return "fault" if self.fault else "confirm" if self.pending else "ok"

    def state(self) -> dict[str, Any]:
        """The retained ``state`` payload (docs/mqtt.md)."""
        snap = self.referee.snapshot()
        out: dict[str, Any] = {"table": self.table_id, "seq": self.seq, "names": self.names, "status": self.status}
        out.update(snap if snap is not None else {"game": None})
        out.update({"last_trick": self.last_trick, "hands": list(self.hands), "pending": self.pending,
                    "alerts": list(self.alerts), "fault": self.fault})
        if self.evidence:
            out["evidence"] = list(self.evidence)
        return out

    def state_summary(self) -> dict[str, Any]:
        snap = self.referee.snapshot() or {}
        return {"seq": self.seq, "game": snap.get("game"), "scores": snap.get("scores"),
                "finished": snap.get("finished"), "match_winner": snap.get("match_winner")}

    def turn(self) -> tuple[int, list[str]] | None:
        g = self.referee.game
        if g is None or g.finished:
            return None
        return g.to_act()

    def candidates(self) -> list[str] | None:
        """Cards vision may see: those not played yet, and those judged and still lying on the
        table (a camera restarted mid-trick must be able to read them as what they are)."""
        g = self.referee.game
        if g is None:
            return None
        cards = g.unplayed_cards()
        lying = sorted({c for _, c in self.on_table() if c != FACE_DOWN} - set(cards))
        return cards + lying

    def on_table(self) -> set[tuple[int, str]]:
        """(seat, card) judged and maybe still lying on the table: the current trick, and the
        last trick while it belongs to this hand (a camera restarted now sees them again).
        A face-down play is (seat, FACE_DOWN)."""
        seen: set[tuple[int, str]] = set()
        snap = self.referee.snapshot() or {}
        detail = snap.get("detail") or {}
        plays = list(detail.get("current_trick") or [])
        lt = self.last_trick or {}
        if lt and lt.get("hand") == detail.get("hand") and not snap.get("finished"):
            plays += list(lt.get("cards") or [])
        for c in plays:
            if isinstance(c, dict) and isinstance(c.get("seat"), int):
                seen.add((c["seat"], c.get("card") or FACE_DOWN))
        return seen

    def deck_id(self) -> str | None:
        g = self.referee.game
        return None if g is None else g.deck_id


def _evidence(rec: dict[str, Any]) -> str | None:
    """The picture a record names, if it names one (a string of sane length)."""
    name = rec.get("evidence")
    return name if isinstance(name, str) and 0 < len(name) <= MAX_EVIDENCE_CHARS else None
