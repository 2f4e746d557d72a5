"""Config validation messages, the journal's torn tail, replay and export."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from controller.config import ConfigError, load_config, parse_config
from controller.journal import Journal, export_main, read_records, replay_main
from controller.sim import simulator

ROOT = Path(__file__).resolve().parents[2]


def test_example_config_is_valid_and_complete():
    cfg = load_config(ROOT / "config" / "table.example.toml")
    assert cfg.table.id == "table1" and cfg.players == 4 and cfg.names()[0] == "Anna"


@pytest.mark.parametrize("data,message", [
    ({"mqtt": {"urll": "x"}}, "mqtt.urll: unknown key"),
    ({"table": {"id": "Table 1"}}, "table.id: must be 1-32 characters"),
    ({"game": {"name": "poker"}}, "game.name: Input should be"),
    ({"game": {"dealer": 4}}, "game.dealer: seat 4 does not exist"),
    ({"game": {"options": {"points": 3}}}, "game.options: unknown vitou option"),
    ({"camera": {"min_confidence": 2}}, "camera.min_confidence: Input should be less than or equal to 1"),
    ({"gpio": {"enabled": True, "turn_leds": [5, 6, 13]}}, "gpio.turn_leds: 3 pins for 4 seats"),
    ({"gpio": {"buttons": [5, 99]}}, "gpio.buttons: GPIO pin 99 does not exist"),
    ({"seats": [{"name": "A"}]}, "seats: 1 seats listed for 4 players"),
    ({"mqtt": {"url": "http://broker"}}, "mqtt.url: must look like mqtt://"),
])
def test_config_errors_name_the_key(data, message):
    with pytest.raises(ConfigError) as exc:
        parse_config(data, "t.toml")
    assert message in str(exc.value) and str(exc.value).startswith("t.toml: ")


def test_check_config_command(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("[game]\nname = 'vitou'\ndealer = 9\n")
    run = [sys.executable, "-m", "controller.cli", "run", "--check-config", "--config"]
    p = subprocess.run(run + [str(bad)], capture_output=True, text=True)
    assert p.returncode == 2 and "game.dealer" in p.stderr and "Traceback" not in p.stderr
    broken = tmp_path / "broken.toml"
    broken.write_text("[game\n")
    p = subprocess.run(run + [str(broken)], capture_output=True, text=True)
    assert p.returncode == 2 and "not valid TOML" in p.stderr and "Traceback" not in p.stderr
    p = subprocess.run(run + [str(ROOT / "config" / "table.example.toml")], capture_output=True, text=True)
    assert p.returncode == 0 and "OK" in p.stdout


def write_match(path: Path, n: int | None = None) -> list[dict]:
    j = Journal(path)
    j.open()
    events = simulator("vitou")(7)[:n]
    for ev in events:
        j.append({"r": "event", "event": ev, "src": "test"})
    j.close()
    return events


def test_torn_tail_is_dropped_and_truncated(tmp_path):
    path = tmp_path / "m.journal"
    write_match(path, 10)
    with open(path, "ab") as f:
        f.write(b'{"n": 11, "r": "event", "event": {"event": "ca')       # power cut mid-write
    recs, good = read_records(path)
    assert len(recs) == 10 and good < path.stat().st_size
    j = Journal(path)
    assert len(j.open()) == 10
    j.append({"r": "event", "event": {"event": "undo"}})
    j.close()
    recs, good = read_records(path)
    assert len(recs) == 11 and good == path.stat().st_size and recs[-1]["n"] == 11


def test_replay_and_export(tmp_path, capsys):
    path = tmp_path / "m.journal"
    write_match(path)
    assert replay_main([str(path)]) == 0
    out = capsys.readouterr().out
    assert "HAND 1" in out and "final:" in out
    assert replay_main([str(path), "--json"]) == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert lines[-1]["judgment"] == "match"
    assert export_main([str(path), "--format", "json"]) == 0
    rec = json.loads(capsys.readouterr().out)
    assert rec["final"]["finished"] and rec["hands"]
    assert export_main([str(path)]) == 0
    text = capsys.readouterr().out
    assert "final score" in text and "match won by" in text
    hand_rows = [r for r in rec["sheet"] if r["row"] == "hand"]
    assert len(hand_rows) == len(rec["hands"]) and hand_rows[-1]["scores"] == rec["final"]["scores"]
    assert [r["row"] for r in rec["sheet"]][-1] == "match" and "MATCH won by" in text
    assert f"{hand_rows[0]['hand']:>4}" in text and " - ".join(map(str, hand_rows[0]["scores"])) in text
    assert replay_main([str(tmp_path / "nope")]) == 2
    assert "no such journal" in capsys.readouterr().err


def test_journal_survives_kill_mid_append(tmp_path):
    """A child appends forever; SIGKILL at any moment leaves only whole records."""
    path = tmp_path / "k.journal"
    code = ("import sys; from controller.journal import Journal\n"
            "j = Journal(sys.argv[1]); j.open()\n"
            "while True: j.append({'r': 'fault', 'fault': {'code': 'x', 'message': 'y' * 3000}})\n")
    p = subprocess.Popen([sys.executable, "-c", code, str(path)])
    import time
    while not path.exists() or path.stat().st_size < 20000:
        time.sleep(0.01)
    os.kill(p.pid, 9)
    p.wait()
    recs, good = read_records(path)
    assert recs and all(r["n"] == i + 1 for i, r in enumerate(recs))


def test_records_carry_wall_time_and_replay_does_not_depend_on_it(tmp_path, capsys):
    """#17: each record says when it was written (UTC); replay and export ignore it."""
    import re

    outs = []
    for k, now in enumerate([1_700_000_000.0, 1_800_000_123.456]):
        path = tmp_path / f"w{k}.journal"
        j = Journal(path, wall=lambda now=now: now)
        j.open()
        for ev in simulator("vitou")(7)[:30]:
            j.append({"r": "event", "event": ev, "src": "test"})
        j.close()
        recs, _ = read_records(path)
        assert all(re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", r["wall"]) for r in recs)
        assert replay_main([str(path), "--json"]) == 0
        outs.append(capsys.readouterr().out)
    assert recs[0]["wall"] == "2027-01-15T08:02:03.456Z"
    assert outs[0] == outs[1] and outs[0]
