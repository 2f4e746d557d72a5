"""Kill -9 the table at random moments of a demo match: the journal always restores the state.

A real `cardtable demo` subprocess (real vision on rendered frames, real Mosquitto) is killed
with SIGKILL at 20+ random points and started again on the same journal each time; after
every kill the state the journal restores must equal the uninterrupted run's state at the
same point of the match, and the finished match must end exactly as the uninterrupted one.
(`seq` is not compared across the two runs: it also counts camera confirmations, which
depend on when the camera happened to look; within one run it never goes back.)
"""
from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

from controller.journal import read_records
from controller.tablestate import TableState
from .mqtt_helpers import Watcher

ARGS = ["--headless", "--speed", "0", "--seed", "3", "--web-port", "0",
        "--option", "points_to_win=14", "--option", "games_to_win=1"]
KILLS = 20


def demo(journal: Path, url: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "controller.cli", "demo", *ARGS, "--journal", str(journal),
                             "--mqtt", url], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def game_state(ts: TableState) -> str:
    return json.dumps({"snap": ts.snapshot(), "hands": ts.hands, "last_trick": ts.last_trick}, sort_keys=True)


def fold(path: Path) -> tuple[TableState, dict[int, str]]:
    ts = TableState("demo1")
    by_accepted: dict[int, str] = {}
    for rec in read_records(path)[0]:
        ts.apply(rec)
        by_accepted[len(ts.referee.accepted)] = game_state(ts)
    return ts, by_accepted


def records(path: Path) -> int:
    return len(read_records(path)[0])


def test_kill_dash_nine_anywhere(tmp_path, mosquitto):
    ref_journal = tmp_path / "reference.journal"
    p = demo(ref_journal, mosquitto.url)
    assert p.wait(400) == 0, p.stderr.read().decode()
    ref_ts, ref_states = fold(ref_journal)
    assert ref_ts.snapshot()["finished"]

    rng = random.Random(8)
    journal = tmp_path / "killed.journal"
    status = Watcher(mosquitto.port, "cardtable/v1/tables/demo1/status")
    kills = 0
    last_seq = 0
    while True:
        before = records(journal)
        p = demo(journal, mosquitto.url)
        # let it get going (at least one new record), then kill it at a random moment
        deadline = time.monotonic() + 180
        while p.poll() is None and records(journal) <= before and time.monotonic() < deadline:
            time.sleep(0.01)
        if kills < KILLS and p.poll() is None:
            time.sleep(rng.uniform(0, 0.25))
            os.kill(p.pid, signal.SIGKILL)
            p.wait()
            if p.returncode != -signal.SIGKILL:     # it ended first: must be the match's end
                assert p.returncode == 0, p.stderr.read().decode()
                break
            kills += 1
            ts, _ = fold(journal)
            assert ts.seq >= last_seq
            last_seq = ts.seq
            n = len(ts.referee.accepted)
            assert game_state(ts) == ref_states[n], f"state after kill {kills} differs at event {n}"
            if kills == 1:     # the broker told everyone the table went away
                assert status.wait(lambda m: m and m[-1][1] == b"offline")
            continue
        assert p.wait(400) == 0, p.stderr.read().decode()
        break
    assert kills >= KILLS, f"only {kills} kills before the match ended"
    final, _ = fold(journal)
    assert game_state(final) == game_state(ref_ts)
    assert status.wait(lambda m: m and m[-1][1] == b"stopped")
    status.close()
