"""The match journal: every accepted input, appended and fsynced before anything is published.

One JSON object per line (``{"n": 1, "r": "event", ..., "wall": "...Z", "crc": "1a2b3c4d"}``):
``n`` counts from 1, ``wall`` is the UTC wall-clock time it was written (for the director's
audit; nothing judges by it), ``crc`` is the CRC-32 of the line's bytes before ``,"crc"``, so
a flipped bit anywhere in a record is found, not judged. A table is a pure function of its
journal (:class:`controller.tablestate.TableState`), so ``cardtable run`` resumes after a crash
or a power cut with exactly the state it had, and ``cardtable replay`` / ``cardtable export``
(:mod:`controller.scoresheet`) read the same file.

Only a *torn last line* (bytes after the last newline, or a last line of NUL padding: a write
cut by a power loss, never fsynced, so never published) is cut by :meth:`Journal.open`, and it
is first copied aside to ``<journal>.torn-<k>``. A bad line anywhere else is
:class:`JournalCorrupt`: the table refuses to start and leaves the file untouched
(``cardtable journal check|repair``, :mod:`controller.journal_cli`).
"""
from __future__ import annotations

import errno
import json
import os
import re
import time
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

# The largest record the table may write. The largest legitimate one is a cmd/start with
# options (< 1 KB); controller.table caps every input well below this first, so hitting it
# is a bug, refused before any byte is written.
MAX_RECORD_BYTES = 64 * 1024
_CRC_TAIL = re.compile(rb',"crc":"([0-9a-f]{8})"\}$')


class JournalError(OSError):
    """The journal cannot be read or written (a clear one-line message)."""


class JournalCorrupt(JournalError):
    """A bad line before the end of the journal: refuse it, never cut it."""


@dataclass
class Problem:
    line: int           # 1-based line number
    offset: int         # byte offset of the line
    why: str
    raw: bytes


@dataclass
class Scan:
    """What a journal file holds: the good records and everything wrong with it."""

    records: list[dict[str, Any]] = field(default_factory=list)
    good: int = 0                   # byte length of the good prefix (with the records read)
    size: int = 0
    torn: bytes = b""               # a torn last line (may be cut, after keeping it aside)
    problems: list[Problem] = field(default_factory=list)   # bad lines before the end
    lines: list[tuple[int, bytes]] = field(default_factory=list)   # (offset, raw) of each good record


def encode(rec: dict[str, Any]) -> bytes:
    """One journal line, ``crc`` last. Raises ValueError when the record cannot be a line."""
    try:
        body = json.dumps(rec, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError, RecursionError) as exc:
        raise ValueError(f"record cannot be written as JSON ({type(exc).__name__})") from None
    raw = body[:-1].encode()
    return raw + b',"crc":"%08x"}\n' % zlib.crc32(raw)


def _decode(raw: bytes, expect_n: int) -> tuple[dict[str, Any] | None, str, bool]:
    """(record, why it is bad, whether it carries a crc)."""
    m = _CRC_TAIL.search(raw)
    if m is not None and zlib.crc32(raw[:m.start()]) != int(m.group(1), 16):
        return None, "checksum mismatch (damaged bytes)", True
    try:
        rec = json.loads(raw)
    except (ValueError, RecursionError):
        return None, "not valid JSON", m is not None
    if not isinstance(rec, dict):
        return None, "not a JSON object", m is not None
    if m is None and "crc" in rec:
        return None, "damaged checksum field", True
    if rec.get("n") != expect_n:
        return None, f"record number {rec.get('n')!r} where {expect_n} was due", m is not None
    rec.pop("crc", None)
    return rec, "", m is not None


def _is_padding(raw: bytes) -> bool:
    return not raw.strip(b"\0 \t\r\n")


def scan(path: str | Path) -> Scan:
    """Read every line; never raises for the content (see :func:`read_records`). Line k must
    hold record ``n == k``."""
    p = Path(path)
    try:
        data = p.read_bytes()
    except FileNotFoundError:
        return Scan()
    except OSError as exc:
        raise JournalError(f"{p}: cannot read the journal: {exc.strerror}") from None
    s = Scan(size=len(data))
    pos, line, with_crc, without_crc = 0, 0, 0, []
    while pos < len(data):
        line += 1
        end = data.find(b"\n", pos)
        if end < 0 or _is_padding(data[pos:]):       # torn last line, or NUL padding at the end
            whole = data[pos:].rstrip(b"\0")
            if whole and whole[-1:] != b"}" and _decode(whole[:-1], line)[2] and _decode(whole[:-1], line)[0]:
                # a complete, checksummed record whose newline became another byte: it was fsynced
                # and published (a write cut short lacks bytes; it cannot end in a good checksum
                # followed by one more byte)
                s.problems.append(Problem(line, pos, "a whole record with a damaged line end", whole))
            else:
                s.torn = data[pos:]
            break
        raw = data[pos:end]
        rec, why, has_crc = _decode(raw, line)
        if rec is None:
            s.problems.append(Problem(line, pos, why, raw))
        else:
            if has_crc:
                with_crc += 1
            elif with_crc:            # journals from before checksums have none: only as a prefix
                without_crc.append(Problem(line, pos, "no checksum after records that have one", raw))
            s.records.append(rec)
            s.lines.append((pos, raw))
        pos = end + 1
    if without_crc:                   # a damaged checksum field
        bad = {pr.line for pr in without_crc}
        keep = [i for i, (off, _) in enumerate(s.lines) if data.count(b"\n", 0, off) + 1 not in bad]
        s.records = [s.records[i] for i in keep]
        s.lines = [s.lines[i] for i in keep]
        s.problems = sorted(s.problems + without_crc, key=lambda pr: pr.line)
    first = s.problems[0].offset if s.problems else len(data) - len(s.torn)
    s.good = max([off + len(raw) + 1 for off, raw in s.lines if off < first], default=0)
    return s


def read_records(path: str | Path) -> tuple[list[dict[str, Any]], int]:
    """(records, byte length of the good prefix). A torn last line is left out; a bad line
    anywhere else raises :class:`JournalCorrupt` naming the file and the line."""
    s = scan(path)
    if s.problems:
        pr = s.problems[0]
        more = f" (and {len(s.problems) - 1} more bad line(s))" if len(s.problems) > 1 else ""
        raise JournalCorrupt(f"{path}: line {pr.line}: {pr.why}{more}; the journal was left untouched — "
                             f"see 'cardtable journal check {path}'")
    return s.records, s.good


def aside_path(path: Path, kind: str) -> Path:
    """``<journal>.<kind>-<k>`` with the first k not taken: nothing set aside is overwritten."""
    k = 1
    while True:
        cand = path.with_name(f"{path.name}.{kind}-{k}")
        if not cand.exists():
            return cand
        k += 1


def write_file(path: Path, data: bytes) -> None:
    """Write and fsync a whole new file (fails if it exists)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    try:
        _write_all(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)


def _write_all(fd: int, data: bytes) -> None:
    """os.write until every byte is down (a full disk may write short, then raise)."""
    view = memoryview(data)
    while view:
        k = os.write(fd, view)
        if k <= 0:
            raise OSError(errno.EIO, "write wrote nothing")
        view = view[k:]


def wall_time(now: float) -> str:
    """ISO-8601 UTC with milliseconds: what a person reads in an audit."""
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(now)) + f".{int(now * 1000) % 1000:03d}Z"


class Journal:
    """Append-only, fsynced JSON Lines file.

    Keeps no records in memory (a match of hours would grow it): only the count and the
    byte length of the good prefix, which a failed write is truncated back to.
    """

    def __init__(self, path: str | Path, fsync: bool = True, wall: Callable[[], float] = time.time) -> None:
        self.path = Path(path)
        self.fsync = fsync
        self.wall = wall
        self.count = 0
        self.good = 0
        self.torn_aside: Path | None = None
        self.broken: str | None = None
        self._fd: int | None = None

    def open(self) -> list[dict[str, Any]]:
        """Read what is there (a torn last line is kept aside, then cut) and open for appending.
        Returns the records; raises :class:`JournalCorrupt` (file untouched) on a bad line."""
        s = scan(self.path)
        records, good = read_records(self.path) if s.problems else (s.records, s.good)
        try:
            if s.torn:
                self.torn_aside = aside_path(self.path, "torn")
                write_file(self.torn_aside, s.torn)
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._fd = os.open(self.path, os.O_WRONLY | os.O_CREAT, 0o644)
            if os.fstat(self._fd).st_size != good:
                os.ftruncate(self._fd, good)
                os.fsync(self._fd)
            os.lseek(self._fd, good, os.SEEK_SET)
        except OSError as exc:
            raise JournalError(f"{self.path}: cannot open the journal for writing: {exc.strerror}") from None
        self.count, self.good = len(records), good
        return records

    def append(self, record: dict[str, Any]) -> dict[str, Any]:
        """Write one record (``n`` and ``wall`` added) and fsync it; only then may its effects
        be published. On any failure the file is cut back to the last good record and the
        journal refuses further appends (:attr:`broken`)."""
        if self._fd is None:
            raise JournalError(f"{self.path}: journal not open")
        if self.broken:
            raise JournalError(self.broken)
        rec = {"n": self.count + 1, **record, "wall": wall_time(self.wall())}
        try:
            line = encode(rec)
        except ValueError as exc:
            raise JournalError(f"{self.path}: record {rec['n']}: {exc}") from None
        if len(line) > MAX_RECORD_BYTES:
            raise JournalError(f"{self.path}: record {rec['n']} is {len(line)} bytes (max {MAX_RECORD_BYTES})")
        try:
            _write_all(self._fd, line)
            if self.fsync:
                os.fsync(self._fd)
        except OSError as exc:
            self.broken = f"{self.path}: cannot write the journal: {exc.strerror or exc}"
            self._cut_back()
            raise JournalError(self.broken) from None
        self.count += 1
        self.good += len(line)
        return rec

    def _cut_back(self) -> None:
        """Leave nothing half-written: back to the last good length (best effort on a dying disk)."""
        try:
            os.ftruncate(self._fd, self.good)
            os.lseek(self._fd, self.good, os.SEEK_SET)
            os.fsync(self._fd)
        except OSError:
            pass      # what stays is a torn last line: the next open keeps it aside and cuts it

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
