"""Journal faults injected for real: torn last line, NUL padding, a corrupt middle line, bit
flips, another match's journal, short writes, ENOSPC (injected, and on a real 64 KB tmpfs).

Each gives the documented outcome (docs/controller.md, "The journal") and never loses an
accepted record silently: a record is either still there, or the table refuses the file
with one line naming it and the line, leaving every byte as it was.
"""
from __future__ import annotations

import errno
import json
import os
import random
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory

import controller.journal as journal_mod
from controller.journal import Journal, JournalCorrupt, JournalError, read_records, scan
from controller.leds import GpioPanel
from controller.mqtt import NullLink
from controller.sim import simulator
from controller.table import JournalMismatch, Table, TableHalted
from controller.tablestate import TableState
from .helpers import Clock, Ev, FakeVision, cmd
from .mqtt_helpers import Watcher

START = {"event": "start", "game": "vitou", "dealer": 3, "players": 4}
SIM = simulator("vitou")(7)          # a whole simulated match; SIM[0] is its start


def cli(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "controller.cli", *args], capture_output=True, text=True,
                          timeout=timeout)


def make(path: Path, start=None, meta=None, table_id="t1"):
    start = start or dict(SIM[0], players=4)
    clock = Clock()
    factory = MockFactory()
    panel = GpioPanel([5, 6, 13, 19], [17, 27, 22, 23], {"ok": 24, "confirm": 25, "fault": 12},
                      clock=clock, pin_factory=factory)
    vision, link = FakeVision(), NullLink()
    t = Table(Journal(path), link, table_id=table_id, names=["A", "B", "C", "D"], start_event=start, meta=meta,
              panels=[panel], vision=vision, clock=clock)
    return t, vision, link, factory


def play_match(path: Path, n: int = 40) -> list[dict]:
    """A real table journals n simulated events (via cmd/event); returns the records."""
    t, _, link, _ = make(path)
    t.open()
    for i, ev in enumerate(SIM[1:n + 1]):
        assert t.on_command(*cmd("event", id=f"c{i}", event=ev))["ok"], ev
    t.close()
    return read_records(path)[0]


def fold_state(path: Path) -> dict:
    ts = TableState("t1", ["A", "B", "C", "D"])
    for rec in read_records(path)[0]:
        ts.apply(rec)
    return ts.state()


# ----- what may be cut: only a torn last line, kept aside --------------------------------
@pytest.mark.parametrize("tail", [b'{"n":99,"r":"event","event":{"event":"ca', b"\0" * 300, b"\0" * 40 + b"\n",
                                  b'{"n":99,"r":"ev' + b"\0" * 100])
def test_torn_last_line_is_kept_aside_then_cut(tmp_path, tail):
    path = tmp_path / "m.journal"
    recs = play_match(path)
    good = path.read_bytes()
    path.write_bytes(good + tail)
    t, _, link, _ = make(path)
    t.open()
    assert t.journal.torn_aside == tmp_path / "m.journal.torn-1"
    assert t.journal.torn_aside.read_bytes() == tail            # not destroyed
    assert path.read_bytes() == good and link.state == fold_state(path)
    assert link.state["seq"] == len([r for r in recs if r["r"] == "event"])      # start + every command
    t.close()
    path.write_bytes(good + tail)                            # again: a second file, the first kept
    t, _, _, _ = make(path)
    t.open()
    assert t.journal.torn_aside == tmp_path / "m.journal.torn-2" and (tmp_path / "m.journal.torn-1").exists()
    t.close()


# ----- what is refused: a bad line anywhere else ------------------------------------------
def corrupt_line(path: Path, line: int, how: str) -> None:
    lines = path.read_bytes().split(b"\n")
    raw = bytearray(lines[line - 1])
    if how == "garbage":
        raw[10:20] = b"\xff#garbage#"
    elif how == "nul":
        raw[:] = b"\0" * len(raw)
    elif how == "value":               # still valid JSON: only the checksum can tell
        i = raw.index(b'"seat":') + 7
        raw[i] = ord("3") if raw[i] != ord("3") else ord("2")
    elif how == "drop":
        del lines[line - 1]
        path.write_bytes(b"\n".join(lines))
        return
    lines[line - 1] = bytes(raw)
    path.write_bytes(b"\n".join(lines))


@pytest.mark.parametrize("how", ["garbage", "nul", "value", "drop"])
def test_corrupt_middle_line_stops_the_table_and_leaves_the_file(tmp_path, how):
    path = tmp_path / "m.journal"
    play_match(path)
    corrupt_line(path, 20, how)
    before = path.read_bytes()
    with pytest.raises(JournalCorrupt) as exc:
        read_records(path)
    assert f"{path}: line 20:" in str(exc.value)
    t, _, link, _ = make(path)
    with pytest.raises(JournalCorrupt):
        t.open()
    assert path.read_bytes() == before and link.state is None          # nothing published, nothing cut
    # the real command: one line naming the file and the line, non-zero exit, file untouched
    p = cli("run", "--journal", str(path), "--mqtt", "off")
    assert p.returncode == 2, p.stderr
    assert p.stderr.count("\n") == 1 and f"{path}: line 20:" in p.stderr and "Traceback" not in p.stderr
    assert path.read_bytes() == before
    assert not list(tmp_path.glob("m.journal.*"))
    print(f"\n[{how}] refused: {p.stderr.strip()}")


def test_check_and_repair_say_what_was_lost(tmp_path):
    path = tmp_path / "m.journal"
    recs = play_match(path)
    corrupt_line(path, 30, "value")
    original = path.read_bytes()
    p = cli("journal", "check", str(path))
    assert p.returncode == 1 and f"{path}: line 30: checksum mismatch" in p.stdout
    assert f"{len(recs) - 1} good record(s)" in p.stdout
    p = cli("journal", "repair", str(path))
    assert p.returncode == 0, p.stderr
    assert f"lost line 30" in p.stdout and f"kept {len(recs) - 1} record(s)" in p.stdout
    print("\n" + p.stdout.strip())
    assert (tmp_path / "m.journal.orig-1").read_bytes() == original          # nothing deleted
    assert (tmp_path / "m.journal.bad-1").read_bytes() == original.split(b"\n")[29] + b"\n"
    assert cli("journal", "check", str(path)).returncode == 0
    kept, _ = read_records(path)
    assert [r["n"] for r in kept] == list(range(1, len(recs)))
    strip = lambda r: {k: v for k, v in r.items() if k != "n"}               # noqa: E731
    assert [strip(r) for r in kept] == [strip(r) for r in recs[:29] + recs[30:]]
    t, _, link, _ = make(path)                                              # the table resumes it
    t.open()
    assert link.state["seq"] == t.ts.seq > 0
    t.close()


def test_every_single_bit_flip_is_found(tmp_path):
    """200 random single-bit flips anywhere in the file: each is refused (naming a line) or,
    in the torn last line only, kept aside; no flip ever yields a different record list."""
    path = tmp_path / "m.journal"
    recs = play_match(path, 30)
    good = path.read_bytes()
    rng = random.Random(16)
    refused = aside = 0
    for _ in range(200):
        data = bytearray(good)
        pos = rng.randrange(len(data))
        data[pos] ^= 1 << rng.randrange(8)
        path.write_bytes(bytes(data))
        try:
            got, _ = read_records(path)
        except JournalCorrupt as exc:
            assert "line " in str(exc)
            refused += 1
            continue
        s = scan(path)
        assert got == recs[:len(got)] and s.torn, f"flip at byte {pos} changed the records silently"
        aside += 1
    print(f"\nbit flips: 200, refused {refused}, torn tail kept aside {aside}, records silently changed 0")
    assert refused >= 190


def test_a_whole_last_record_with_a_damaged_line_end_is_refused_not_cut(tmp_path):
    path = tmp_path / "m.journal"
    play_match(path, 5)
    data = path.read_bytes()
    path.write_bytes(data[:-1] + b"\x0b")
    with pytest.raises(JournalCorrupt, match="line 7"):
        read_records(path)


# ----- whose journal ----------------------------------------------------------------------
def test_another_games_journal_is_refused_with_what_to_change(tmp_path):
    path = tmp_path / "m.journal"
    play_match(path, 3)
    before = path.read_bytes()
    truco = {"event": "start", "game": "truco", "dealer": 0, "players": 4}
    t, _, link, _ = make(path, start=truco, meta={"table": "t1", "game": "truco", "players": 4})
    with pytest.raises(JournalMismatch) as exc:
        t.open()
    assert "[game] name = 'vitou'" in str(exc.value) and path.read_bytes() == before and link.state is None
    t, _, _, _ = make(path, table_id="t2", meta={"table": "t2", "game": "vitou", "players": 4})
    with pytest.raises(JournalMismatch, match=r"\[table\] id = 't1'"):
        t.open()
    cfg = tmp_path / "truco.toml"
    cfg.write_text(f'[table]\nid = "t1"\n[game]\nname = "truco"\n[journal]\npath = "{path}"\n[web]\nport = 0\n')
    p = cli("run", "--config", str(cfg), "--mqtt", "off")
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and "[game] name = 'vitou'" in p.stderr, p.stderr
    assert path.read_bytes() == before
    print(f"\nanother game's journal: {p.stderr.strip()}")


# ----- writing: short writes, ENOSPC, EIO -------------------------------------------------
def test_short_writes_are_completed(tmp_path, monkeypatch):
    real = os.write
    calls = []

    def short(fd, data):
        calls.append(len(data))
        return real(fd, bytes(data[:max(1, len(data) // 3)]))      # a third at a time
    monkeypatch.setattr(journal_mod.os, "write", short)
    path = tmp_path / "m.journal"
    recs = play_match(path, 10)
    monkeypatch.undo()
    assert len(calls) > 3 * len(recs) and read_records(path)[0] == recs and not scan(path).torn


@pytest.mark.parametrize("err", [errno.ENOSPC, errno.EIO])
def test_write_failure_halts_and_publishes_nothing_unrecorded(tmp_path, monkeypatch, err):
    path = tmp_path / "m.journal"
    t, vision, link, factory = make(path, start=START)
    t.open()
    assert t.on_command(*cmd("event", id="a", event={"event": "card", "seat": 0, "card": "hearts/king"}))["ok"]
    good_size = path.stat().st_size
    seen = (link.state, len(link.events), len(link.results), len(link.alerts))
    real = os.write

    def failing(fd, data):        # half the record goes down, then the disk is full
        if len(data) > 20:
            return real(fd, bytes(data[:len(data) // 2]))
        raise OSError(err, os.strerror(err))
    monkeypatch.setattr(journal_mod.os, "write", failing)
    with pytest.raises(JournalError, match=os.strerror(err)):
        t.on_command(*cmd("event", id="b", event={"event": "card", "seat": 1, "card": "hearts/7"}))
    monkeypatch.undo()
    assert path.stat().st_size == good_size                     # cut back: nothing half-written
    assert (link.state, len(link.events), len(link.results), len(link.alerts)) == seen
    assert t.halted and factory.pin(12).state is True           # the fault LED
    vision.queue.append(Ev("placed", 1, "hearts/7"))
    with pytest.raises(TableHalted):                            # judges nothing more
        t.step()
    assert (link.state, len(link.events)) == seen[:2]
    t.close("offline")
    t2, _, link2, _ = make(path, start=START)                   # after the disk is fixed: the published state
    t2.open()
    assert link2.state == seen[0]
    assert t2.on_command(*cmd("event", id="b", event={"event": "card", "seat": 1, "card": "hearts/7"}))["ok"]
    t2.close()


@pytest.fixture
def tiny_fs(tmp_path):
    """A real 64 KB tmpfs mounted for the test (needs root)."""
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    p = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mnt)], capture_output=True, text=True)
    if p.returncode != 0:
        reason = f"cannot mount a tmpfs here ({(p.stderr or p.stdout).strip()})"
        print(reason)
        pytest.skip(reason)
    try:
        yield mnt
    finally:
        subprocess.run(["umount", "-l", str(mnt)], check=False)


def test_enospc_on_a_real_full_filesystem(tiny_fs, tmp_path):
    """`cardtable run` on a 64 KB tmpfs with a real Mosquitto: commands until the disk is full.
    Every answered command and every published state is on disk; the table exits 3 with one
    line, retained status `offline`; after space is freed it resumes the published state."""
    path = tiny_fs / "club.journal"
    (tiny_fs / "filler").write_bytes(b"x" * (48 * 1024))
    cfg = tmp_path / "t.toml"
    return_code, w = _run_until_full(cfg, path, tmp_path)
    results = w.json_of("cmd_result")
    states = [s for s in w.json_of("state")]
    recs, good = read_records(path)
    assert good == path.stat().st_size and not scan(path).torn          # nothing half-written stays
    on_disk = {r["cmd"]["id"] for r in recs if isinstance(r.get("cmd"), dict)}
    answered = {r["id"] for r in results if r.get("ok")}
    assert answered and answered <= on_disk, answered - on_disk          # nothing unrecorded reached MQTT
    ts = TableState("club")
    for r in recs:
        ts.apply(r)
    assert max(s["seq"] for s in states) == ts.seq
    print(f"\nENOSPC on tmpfs: {len(recs)} records on disk, {len(answered)} commands answered, "
          f"exit {return_code}, records lost 0")
    (tiny_fs / "filler").unlink()
    t = Table(Journal(path), NullLink(), table_id="club", start_event={"event": "start", "game": "vitou", "dealer": 3,
                                                                        "players": 4},
              meta={"table": "club", "game": "vitou", "players": 4})
    t.open()
    assert t.ts.state()["seq"] == ts.seq
    t.close()
    w.close()


def _run_until_full(cfg: Path, path: Path, tmp_path: Path):
    import tests.conftest as conftest
    port = conftest.free_port()
    conf = tmp_path / "mosq.conf"
    conf.write_text(f"user root\nlistener {port} 127.0.0.1\nallow_anonymous true\n")
    broker = conftest.Mosquitto(conf, port)
    broker.start()
    try:
        cfg.write_text(f'[table]\nid = "club"\n[game]\nname = "vitou"\ndealer = 3\n[mqtt]\nurl = "{broker.url}"\n'
                       f'[journal]\npath = "{path}"\n[web]\nport = 0\n')
        w = Watcher(port, "cardtable/v1/tables/club/#")
        assert w.connected.wait(5)
        p = subprocess.Popen([sys.executable, "-m", "controller.cli", "run", "--config", str(cfg)],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        try:
            assert w.wait(lambda m: any(t.endswith("/status") and pl == b"online" for t, pl, _ in m), 120)
            # undo/redo pairs of a long-named card play: each command a journal record of ~300 bytes
            for i in range(200):
                if p.poll() is not None:
                    break
                verb = "undo" if i % 2 else "event"
                body = {"id": f"{i:04d}-{uuid.uuid4().hex}"}
                if verb == "event":
                    body["event"] = {"event": "card", "seat": 0, "card": "hearts/king"}
                w.publish(f"cardtable/v1/tables/club/cmd/{verb}", json.dumps(body))
                w.wait(lambda m: len(w.json_of("cmd_result")) > i or p.poll() is not None, 10)
            code = p.wait(60)
            err = p.stderr.read()
        finally:
            if p.poll() is None:
                p.kill()
                p.wait()
        assert code == 3, err
        assert err.count("\n") == 1 and "No space left on device" in err and "Traceback" not in err, err
        assert w.wait(lambda m: w.last("status") == b"offline", 10)
        return code, w
    finally:
        broker.stop()


def test_a_record_cut_just_before_its_newline_is_torn(tmp_path):
    """The write stopped one byte short: never fsynced, so never published: kept aside, cut."""
    path = tmp_path / "m.journal"
    recs = play_match(path, 5)
    data = path.read_bytes()
    path.write_bytes(data[:-1])
    got, good = read_records(path)
    assert got == recs[:-1] and scan(path).torn == data[data.rindex(b"\n", 0, len(data) - 1) + 1:-1]


def test_a_journal_from_before_checksums_is_still_read_and_checked(tmp_path, capsys):
    """Journals written by earlier versions (no crc, no wall, no meta record) resume and export."""
    path = tmp_path / "old.journal"
    lines = [{"n": i + 1, "r": "event", "event": ev, "src": "test"} for i, ev in enumerate(SIM[:40])]
    path.write_text("".join(json.dumps(r, separators=(",", ":")) + "\n" for r in lines))
    recs, good = read_records(path)
    assert len(recs) == 40 and good == path.stat().st_size
    t, _, link, _ = make(path)
    t.open()
    assert link.state == fold_state(path)
    assert t.on_command(*cmd("event", id="new", event=SIM[40]))["ok"]       # a checksummed record after them
    t.close()
    assert len(read_records(path)[0]) == 41
    t, _, link, _ = make(path)
    t.open()
    assert link.state == fold_state(path) and link.state["seq"] == 41
    t.close()
    assert journal_mod.export_main([str(path), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["records"] > 0
    truco = {"event": "start", "game": "truco", "dealer": 0, "players": 4}
    t, _, _, _ = make(path, start=truco, meta={"table": "t1", "game": "truco", "players": 4})
    with pytest.raises(JournalMismatch, match=r"\[game\] name = 'vitou'"):
        t.open()
