"""The match journal: every accepted input, appended and fsynced before anything is published.

One JSON object per line (``{"n": 1, "r": "event", ...}``), ``n`` counting from 1. A table
is a pure function of its journal (:class:`controller.tablestate.TableState`), so
``cardtable run`` resumes after a crash or a power cut with exactly the state it had, and
``cardtable replay`` / ``cardtable export`` (:mod:`controller.scoresheet`) read the same file.

A power cut can leave a torn last line; it was never published (the fsync comes first), so
:meth:`Journal.open` drops it and truncates the file to the last complete record.
"""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any


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


def __getattr__(name: str) -> Any:
    """The replay/export functions moved to :mod:`controller.scoresheet`; old imports still work."""
    if name in ("describe_record", "describe_judgment", "export_record", "sheet_rows", "scoresheet",
                "export_main", "replay_main"):
        from controller import scoresheet
        return getattr(scoresheet, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
