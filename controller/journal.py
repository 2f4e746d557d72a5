"""The match journal: every accepted input, appended and fsynced before anything is published.

One JSON object per line (``{"n": 1, "r": "event", ...}``), ``n`` counting from 1. A table
is a pure function of its journal (:class:`controller.tablestate.TableState`), so
``cardtable run`` resumes after a crash or a power cut with exactly the state it had, and
``cardtable replay`` / ``cardtable export`` read the same file.

A power cut can leave a torn last line; it was never published (the fsync comes first), so
:meth:`Journal.open` drops it and truncates the file to the last complete record.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any, Iterator, Sequence


class JournalError(OSError):
    """The journal cannot be read or written (a clear one-line message)."""


def read_records(path: str | Path) -> tuple[list[dict[str, Any]], int]:
    """(complete records, byte length of the good prefix). A torn or corrupt tail is ignored."""
    p = Path(path)
    try:
        data = p.read_bytes()
    except FileNotFoundError:
        return [], 0
    except OSError as exc:
        raise JournalError(f"{p}: cannot read the journal: {exc.strerror}") from None
    records: list[dict[str, Any]] = []
    good = 0
    pos = 0
    while pos < len(data):
        end = data.find(b"\n", pos)
        if end < 0:
            break                      # torn last line: never fsynced as a whole
        line = data[pos:end]
        try:
            rec = json.loads(line)
        except ValueError:
            break
        if not isinstance(rec, dict) or rec.get("n") != len(records) + 1:
            break
        records.append(rec)
        pos = end + 1
        good = pos
    return records, good


class Journal:
    """Append-only, fsynced JSON Lines file."""

    def __init__(self, path: str | Path, fsync: bool = True) -> None:
        self.path = Path(path)
        self.fsync = fsync
        self.records: list[dict[str, Any]] = []
        self._fd: int | None = None

    def open(self) -> list[dict[str, Any]]:
        """Read what is there (dropping a torn tail) and open for appending; returns the records."""
        self.records, good = read_records(self.path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._fd = os.open(self.path, os.O_WRONLY | os.O_CREAT, 0o644)
            if os.fstat(self._fd).st_size != good:
                os.ftruncate(self._fd, good)
                os.fsync(self._fd)
            os.lseek(self._fd, good, os.SEEK_SET)
        except OSError as exc:
            raise JournalError(f"{self.path}: cannot open the journal for writing: {exc.strerror}") from None
        return list(self.records)

    def append(self, record: dict[str, Any]) -> dict[str, Any]:
        """Write one record (``n`` added) and fsync it; only then may its effects be published."""
        if self._fd is None:
            raise JournalError(f"{self.path}: journal not open")
        rec = {"n": len(self.records) + 1, **record}
        line = (json.dumps(rec, separators=(",", ":"), ensure_ascii=False) + "\n").encode()
        try:
            os.write(self._fd, line)
            if self.fsync:
                os.fsync(self._fd)
        except OSError as exc:
            raise JournalError(f"{self.path}: cannot write the journal: {exc.strerror}") from None
        self.records.append(rec)
        return rec

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


# ----- replay and export ---------------------------------------------------------------
def _replay(path: str) -> Iterator[tuple[dict[str, Any], list[dict[str, Any]], Any]]:
    from controller.tablestate import TableState

    records, good = read_records(path)
    if not records and not Path(path).exists():
        raise JournalError(f"{path}: no such journal")
    if not records and Path(path).stat().st_size > good:    # a torn first line alone is no journal either
        raise JournalError(f"{path}: not a cardtable journal (its first line is not a journal record)")
    ts = TableState()
    for rec in records:
        out = ts.apply(rec)
        yield rec, out.judgments, ts


def replay_main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="cardtable replay",
                                 description="Re-judge a match journal with the rules engine and print it.")
    ap.add_argument("journal")
    ap.add_argument("--json", action="store_true", help="JSON Lines judgments (with seq) instead of text")
    args = ap.parse_args(argv)
    try:
        ts = None
        for rec, judgments, ts in _replay(args.journal):
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
    ts = None
    tricks = []
    for _rec, judgments, ts in _replay(path):
        tricks += [j for j in judgments if j["judgment"] == "trick"]
    if ts is None:
        return {"journal": path, "records": 0, "state": None}
    return {"journal": path, "records": ts.seq, "game": ts.game_name(), "hands": ts.hands,
            "tricks": tricks, "sheet": sheet_rows(ts.referee.accepted), "final": ts.referee.snapshot()}


def sheet_rows(accepted: Sequence[Any]) -> list[dict[str, Any]]:
    """The match as a scoresheet: one row per hand with the running totals after it, and a
    row per game and match won. Re-judged from the accepted events, so undone ones are gone."""
    from controller.rules.referee import Referee   # the pure engine; imported when exporting

    ref, rows = Referee(), []
    for event in accepted:
        for j in ref.feed(event):
            kind = j["judgment"]
            if kind == "hand":
                rows.append({"row": "hand", "hand": j["hand"], "winner": j["winner"], "points": j["points"],
                             "reason": j["reason"], "scores": None})
            elif kind == "score" and rows and rows[-1]["row"] == "hand" and rows[-1]["scores"] is None:
                rows[-1]["scores"] = list(j["scores"])
            elif kind in ("game", "match"):
                rows.append({"row": kind, "winner": j["winner"], "games": j.get("games")})
    return rows


def scoresheet(rec: dict[str, Any]) -> str:
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
