"""Replay and export of a match journal: ``cardtable replay`` and the ``cardtable export`` scoresheet.

Everything here is re-judged from the journal's records through :class:`TableState` and the
pure :class:`~controller.rules.referee.Referee`, so it never writes and never disagrees with
what the table published.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, Iterator, Sequence

from controller.journal import JournalCorrupt, JournalError, read_records, scan


def _replay(path: str) -> Iterator[tuple[dict[str, Any], Any, Any]]:
    """(record, its Outcome, the TableState after it) for every record of the journal."""
    from controller.tablestate import TableState

    try:
        records, good = read_records(path)
    except JournalCorrupt:
        if not scan(path).records:         # not one line of it is a record: another kind of file
            raise JournalError(f"{path}: not a cardtable journal (no line of it is a journal record)") from None
        raise
    if not records and not Path(path).exists():
        raise JournalError(f"{path}: no such journal")
    if not records and Path(path).stat().st_size > good:    # a torn first line alone is no journal either
        raise JournalError(f"{path}: not a cardtable journal (its first line is not a journal record)")
    ts = TableState()
    for rec in records:
        out = ts.apply(rec)
        yield rec, out, ts


def replay_main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="cardtable replay",
                                 description="Re-judge a match journal with the rules engine and print it.")
    ap.add_argument("journal")
    ap.add_argument("--json", action="store_true", help="JSON Lines judgments (with seq) instead of text")
    args = ap.parse_args(argv)
    try:
        ts = None
        for rec, outcome, ts in _replay(args.journal):
            judgments = outcome.judgments
            if args.json:
                for j in judgments:
                    print(json.dumps({"seq": ts.seq, **j}, separators=(",", ":")))
                continue
            what = describe_record(rec)
            if what:
                print(f"{ts.seq:5d}  {what}")
            for j in judgments:
                line = describe_judgment(j)
                if line:
                    print(f"       {line}")
        if ts is not None and not args.json:
            print(f"final: {json.dumps(ts.state_summary())}")
    except JournalError as exc:
        print(f"cardtable replay: {exc}", file=sys.stderr)
        return 2
    return 0


def describe_record(rec: dict[str, Any]) -> str:
    r = rec.get("r")
    src = rec.get("src", "")
    if r == "event":
        ev = rec["event"]
        fields = " ".join(f"{k}={v}" for k, v in ev.items() if k != "event")
        return f"{ev['event']:<8} {fields}  [{src}]"
    if r == "pending":
        return f"confirm? seat {rec.get('seat')} {rec.get('card')} ({rec.get('reason')}, {rec.get('confidence')})"
    if r == "reject":
        return "pending card rejected"
    if r == "fault":
        return f"fault: {rec.get('fault')}" if rec.get("fault") else "fault cleared"
    return ""


def describe_judgment(j: dict[str, Any]) -> str:
    k = j.get("judgment")
    if k == "trick":
        cards = ", ".join(f"{c['seat']}:{c.get('card') or 'down'}" for c in j["cards"])
        return f"trick {j['hand']}.{j['trick']}: {cards} -> {j['winner']}"
    if k == "hand":
        return f"HAND {j['hand']}: winner {j['winner']}, {j['points']} point(s) ({j['reason']})"
    if k == "score":
        return f"score {j['scores']}"
    if k == "call":
        return f"call {j['call']} by {j['seat']}, stake {j['stake']}"
    if k in ("game", "match"):
        return f"{k.upper()} won by {j['winner']}"
    if k == "alert":
        return f"ALERT {j.get('code')}: {j.get('message')}"
    if k == "error":
        return f"error {j.get('code')}: {j.get('message')}"
    return ""


def export_record(path: str) -> dict[str, Any]:
    """The match as JSON: tricks, the scoresheet rows (hands, penalties, games) and the
    corrections made on the way (undo, confirm, reject), each with the journal's ``n`` and,
    when the journal has one, its wall-clock ``wall``."""
    ts = None
    tricks: list[dict[str, Any]] = []
    corrections: list[dict[str, Any]] = []
    # (accepted Event, its record's wall time). The list holds each event alive, so an id below
    # is never one an undone event's id was reused for.
    stamped: list[tuple[Any, Any]] = []
    pending: dict[str, Any] | None = None
    for rec, outcome, ts in _replay(path):
        tricks += [j for j in outcome.judgments if j["judgment"] == "trick"]
        accepted = outcome.changed and not outcome.errors
        row = _correction(rec, pending, accepted, ts)
        if row is not None:
            corrections.append(row)
        event = rec.get("event") if rec.get("r") == "event" else None
        if accepted and isinstance(event, dict) and event.get("event") != "undo" and "wall" in rec:
            # an accepted event other than undo is the referee's last; an undo's wall is its own
            stamped.append((ts.referee.accepted[-1], rec["wall"]))
        pending = None if ts.pending is None else dict(ts.pending)
    if ts is None:
        return {"journal": path, "records": 0, "state": None}
    live = {id(event) for event in ts.referee.accepted}
    walls = {id(event): wall for event, wall in stamped if id(event) in live}
    return {"journal": path, "records": ts.seq, "game": ts.game_name(), "hands": ts.hands,
            "tricks": tricks, "sheet": sheet_rows(ts.referee.accepted, walls),
            "corrections": corrections, "final": ts.referee.snapshot()}


def _correction(rec: dict[str, Any], pending: dict[str, Any] | None, accepted: bool,
                ts: Any) -> dict[str, Any] | None:
    """A correction row for an accepted undo, a confirmed (or corrected) card or a rejected one."""
    r, ev = rec.get("r"), rec.get("event")
    row: dict[str, Any] | None = None
    if r == "event" and isinstance(ev, dict) and accepted:
        if ev.get("event") == "undo":
            row = {"row": "undo"}
        elif rec.get("src") == "confirm":
            seen = None if pending is None else pending.get("card")
            row = {"row": "confirm", "seat": ev.get("seat"), "card": ev.get("card"), "seen": seen}
    elif r == "reject" and pending is not None:
        row = {"row": "reject", "seat": pending.get("seat"), "card": pending.get("card")}
    if row is not None:
        row["n"], row["seq"] = rec.get("n"), ts.seq
        if "wall" in rec:
            row["wall"] = rec["wall"]
    return row


def sheet_rows(accepted: Sequence[Any], walls: dict[int, Any] | None = None) -> list[dict[str, Any]]:
    """The match as a scoresheet: one row per hand with the running totals after it, one per
    penalty (who, what, the points it moved), and a row per game and match won. Re-judged
    from the accepted events, so undone ones are gone. ``walls`` maps ``id(event)`` to the
    wall-clock time its journal record carries, shown on penalty rows."""
    from controller.rules.referee import Referee   # the pure engine; imported when exporting

    ref, rows = Referee(), []
    for event in accepted:
        before = None if ref.game is None else list(ref.game.scores())
        judgments = ref.feed(event)
        if event.kind == "penalty" and before is not None:
            after = next((list(j["scores"]) for j in judgments if j["judgment"] == "score"), before)
            row = {"row": "penalty", "team": event.team, "offence": event.offence,
                   "points": [a - b for a, b in zip(after, before)], "scores": after}
            if walls and id(event) in walls:
                row["wall"] = walls[id(event)]
            rows.append(row)
        for j in judgments:
            kind = j["judgment"]
            if kind == "hand":
                rows.append({"row": "hand", "hand": j["hand"], "winner": j["winner"], "points": j["points"],
                             "reason": j["reason"], "scores": None})
            elif kind == "score" and rows and rows[-1]["row"] == "hand" and rows[-1]["scores"] is None:
                rows[-1]["scores"] = list(j["scores"])
            elif kind in ("game", "match"):
                rows.append({"row": kind, "winner": j["winner"], "games": j.get("games")})
    return rows


def _signed(points: Sequence[int]) -> str:
    return " ".join(f"{p:+d}" for p in points)


def scoresheet(rec: dict[str, Any]) -> str:
    """The text scoresheet: hands, penalties and games in order, then the corrections."""
    if not rec.get("final"):
        return f"{rec['journal']}: no match recorded\n"
    final = rec["final"]
    lines = [f"cardtable scoresheet — {rec['game']}, {final['players']} players, journal {rec['journal']}",
             "", f"{'hand':>4}  {'winner':>6}  {'points':>6}  {'reason':<8}  running score"]
    for row in rec["sheet"]:
        if row["row"] == "hand":
            winner = "-" if row["winner"] is None else str(row["winner"])
            totals = " - ".join(map(str, row["scores"] or []))
            lines.append(f"{row['hand']:>4}  {winner:>6}  {row['points']:>6}  {row['reason']:<8}  {totals}")
        elif row["row"] == "penalty":
            totals = " - ".join(map(str, row["scores"]))
            wall = f"  [{row['wall']}]" if row.get("wall") else ""
            lines.append(f"      penalty on team {row['team']} ({row['offence']}): {_signed(row['points'])}"
                         f"  -> {totals}{wall}")
        elif row["row"] == "game":
            games = " - ".join(map(str, row["games"] or []))
            lines.append(f"      game won by {row['winner']}  (games {games})")
        else:
            lines.append(f"      MATCH won by {row['winner']}")
    lines += ["", f"final score: {' - '.join(map(str, final['scores']))}"]
    if final.get("finished"):
        lines.append(f"match won by: {final.get('match_winner')}")
    else:
        lines.append("match not finished")
    corrections = rec.get("corrections") or []
    if corrections:
        lines += ["", f"corrections ({len(corrections)}):"]
        for c in corrections:
            wall = f"  [{c['wall']}]" if c.get("wall") else ""
            if c["row"] == "undo":
                what = "undo: the last accepted event taken back"
            elif c["row"] == "confirm":
                seen = c.get("seen")
                what = (f"confirm: seat {c['seat']} {c['card']}" if seen in (None, c["card"])
                        else f"confirm: seat {c['seat']} {c['card']} (the camera saw {seen})")
            else:
                what = f"reject: seat {c['seat']} {c.get('card') or 'card'} was not a play"
            lines.append(f"  record {c['n']:>5}  {what}{wall}")
    return "\n".join(lines) + "\n"


def export_main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="cardtable export", description="Export a match record from a journal.")
    ap.add_argument("journal")
    ap.add_argument("--format", choices=("json", "text"), default="text")
    args = ap.parse_args(argv)
    try:
        rec = export_record(args.journal)
    except JournalError as exc:
        print(f"cardtable export: {exc}", file=sys.stderr)
        return 2
    if args.format == "json":
        print(json.dumps(rec, indent=1))
    else:
        sys.stdout.write(scoresheet(rec))
    return 0
