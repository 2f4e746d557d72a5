"""``cardtable journal check|repair FILE``: the club's way out of a damaged journal.

``check`` reads every line and says what is wrong (exit 0: the table can resume it; 1: it
refuses it). ``repair`` keeps every record that is still whole (checksum and JSON good),
renumbers them, copies each bad line and a torn tail aside to ``FILE.bad-<k>``, keeps the
original as ``FILE.orig-<k>``, and says what was lost: the lines, and the kept records the
referee no longer accepts once the lost ones are gone (their play must be re-entered with
``cmd/event`` or corrected with ``cmd/undo``). Nothing is ever deleted.
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any, Sequence

from controller.journal import JournalError, Scan, aside_path, encode, scan, write_file

EXCERPT = 120        # characters of a bad line shown to a person


def _excerpt(raw: bytes) -> str:
    text = raw.decode("utf-8", "replace").replace("\0", "\\0")
    return text if len(text) <= EXCERPT else text[:EXCERPT] + "…"


def describe(path: str, s: Scan) -> list[str]:
    lines = [f"{path}: line {pr.line}: {pr.why}: {_excerpt(pr.raw)}" for pr in s.problems]
    if s.torn:
        lines.append(f"{path}: torn last line ({len(s.torn)} bytes, a write cut short; never published): "
                     f"'cardtable run' keeps it aside as {Path(path).name}.torn-<k> and cuts it")
    first = s.records[0] if s.records else {}
    whose = f" (table {first.get('table')!r}, {first.get('game')}, {first.get('players')} players)" \
        if first.get("r") == "meta" else ""
    lines.append(f"{path}: {len(s.records)} good record(s){whose}, {len(s.problems)} bad line(s)"
                 + ("" if s.problems else "; the table can resume it"))
    return lines


def refold(records: list[dict[str, Any]], after: int) -> tuple[int, list[int]]:
    """(final seq, numbers of event records from index ``after`` on that the referee now refuses)."""
    from controller.tablestate import TableState

    ts, refused = TableState(), []
    for i, rec in enumerate(records):
        out = ts.apply(rec)
        if i >= after and rec.get("r") == "event" and not out.changed:
            refused.append(rec["n"])
    return ts.seq, refused


def repair(path: Path) -> list[str]:
    s = scan(path)
    if not s.problems and not s.torn:
        return [f"{path}: nothing to repair ({len(s.records)} good records)"]
    data = path.read_bytes()
    orig = aside_path(path, "orig")
    write_file(orig, data)
    bad = b"".join(pr.raw + b"\n" for pr in s.problems) + (s.torn + b"\n" if s.torn else b"")
    bad_path = aside_path(path, "bad")
    write_file(bad_path, bad)
    kept = []
    for i, rec in enumerate(s.records):
        kept.append({**rec, "n": i + 1})
    tmp = path.with_name(path.name + ".repair-tmp")
    if tmp.exists():
        tmp.unlink()
    write_file(tmp, b"".join(encode(r) for r in kept))
    os.replace(tmp, path)
    dfd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(dfd)
    finally:
        os.close(dfd)
    first_lost = s.problems[0].line - 1 if s.problems else len(kept)
    seq, refused = refold(kept, first_lost)
    out = [f"{path}: lost line {pr.line} ({pr.why}): {_excerpt(pr.raw)}" for pr in s.problems]
    if s.torn:
        out.append(f"{path}: cut a torn last line of {len(s.torn)} bytes (never published)")
    out.append(f"{path}: kept {len(kept)} record(s), renumbered; state seq is now {seq}; "
               f"bad lines in {bad_path.name}, the original in {orig.name}")
    if refused:
        shown = ", ".join(map(str, refused[:10])) + (" …" if len(refused) > 10 else "")
        out.append(f"{path}: {len(refused)} later event record(s) are refused by the referee without the lost "
                   f"line(s) (new numbers {shown}): check that play, re-enter it with cmd/event")
    return out


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="cardtable journal", description="Check or repair a match journal.")
    ap.add_argument("action", choices=("check", "repair"))
    ap.add_argument("journal")
    args = ap.parse_args(argv)
    path = Path(args.journal)
    try:
        if not path.exists():
            raise JournalError(f"{path}: no such journal")
        if args.action == "check":
            s = scan(path)
            print("\n".join(describe(str(path), s)))
            return 1 if s.problems else 0
        print("\n".join(repair(path)))
        return 0
    except (JournalError, OSError) as exc:
        print(f"cardtable journal: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
