"""`cardtable demo` end to end: rendered frames → vision → referee → journal → MQTT."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from controller.journal import export_record, read_records
from .mqtt_helpers import Watcher

pytestmark = pytest.mark.opencv      # through OpenCV/numpy: the Pi lane runs it (.ci/pi-lane)

FAST = ["--headless", "--speed", "0", "--web-port", "0"]
SHORT = FAST + ["--option", "points_to_win=4", "--option", "games_to_win=1"]


def run(args, tmp_path, timeout=400, base=SHORT):
    return subprocess.run([sys.executable, "-m", "controller.cli", "demo", *base, "--journal-dir", str(tmp_path), *args],
                          capture_output=True, text=True, timeout=timeout)


def test_demo_with_embedded_broker(tmp_path):
    p = run(["--seed", "4", "--journal", str(tmp_path / "d.journal")], tmp_path)
    assert p.returncode == 0, p.stderr
    assert "final score" in p.stdout and "(embedded)" in p.stdout and "Traceback" not in p.stderr
    rec = export_record(str(tmp_path / "d.journal"))
    assert rec["final"]["finished"]
    recs = read_records(tmp_path / "d.journal")[0]
    srcs = {r.get("src") for r in recs}
    assert "vision" in srcs                      # cards really came through the camera pipeline
    # every camera card names its picture, written beside the journal before the demo ended
    named = [r.get("evidence") for r in recs if r.get("src") == "vision" or r.get("r") == "pending"]
    assert named and all(named), [r for r in recs if r.get("src") == "vision" and not r.get("evidence")][:3]
    assert all((tmp_path / "d.journal.evidence" / n).is_file() for n in named)


def test_two_tables_on_mosquitto(tmp_path, mosquitto):
    w = Watcher(mosquitto.port, "cardtable/v1/tables/#")
    assert w.connected.wait(5)
    p = run(["--seed", "6", "--tables", "2", "--mqtt", mosquitto.url], tmp_path)
    assert p.returncode == 0, p.stderr
    for tid in ("demo1", "demo2"):
        states = [json.loads(pl) for t, pl, _ in w.messages if t == f"cardtable/v1/tables/{tid}/state"]
        assert states[-1]["finished"] and states[-1]["table"] == tid
        seqs = [s["seq"] for s in states]
        assert seqs == sorted(seqs)
        events = [json.loads(pl) for t, pl, _ in w.messages if t == f"cardtable/v1/tables/{tid}/events"]
        assert events[-1]["judgment"] == "match"
        status = [pl for t, pl, _ in w.messages if t == f"cardtable/v1/tables/{tid}/status"]
        assert status[-1] == b"stopped"
    w.close()




@pytest.mark.parametrize("game,options", [
    ("truco", ["--option", "games_to_win=1"]),
    ("trionfetti", ["--option", "points_to_win=3", "--option", "games_to_win=1"]),
    ("troccas", ["--option", "hands_per_game=1"]),
])
def test_demo_every_game(tmp_path, game, options):
    """Each game's bots through the camera (face-down plays too), buttons and the tablet."""
    p = run(["--game", game, "--journal", str(tmp_path / "g.journal"), *options], tmp_path, base=FAST)
    assert p.returncode == 0, p.stderr
    rec = export_record(str(tmp_path / "g.journal"))
    assert rec["final"]["finished"] and rec["game"] == game


def test_demo_bad_option_is_one_line(tmp_path):
    p = run(["--game", "truco", "--option", "points_to_win=3"], tmp_path, base=FAST)
    assert p.returncode == 1 and "unknown truco option" in p.stderr and "Traceback" not in p.stderr


def test_demo_without_a_terminal_ends_with_the_match_and_names_a_busy_port(tmp_path):
    """No --headless, no TTY (a pipe): it must end with the match (it used to serve for ever), say
    that the web port was busy, and print what a person reads: game winners, K♥ not hearts/king."""
    import socket

    with socket.socket() as s:
        s.bind(("0.0.0.0", 0))
        s.listen()
        busy = s.getsockname()[1]
        p = run(["--seed", "4", "--web-port", str(busy)], tmp_path, timeout=400,
                base=["--speed", "0", "--option", "points_to_win=4", "--option", "games_to_win=1"])
    assert p.returncode == 0, p.stderr
    assert f"web port {busy} is busy; the scoreboard is on http://" in p.stderr
    assert "final score" in p.stdout and "match won by" in p.stdout
    assert "GAME won by" in p.stdout and "score starts again" in p.stdout
    assert "None" not in p.stdout and "hearts/" not in p.stdout


def test_card_labels_and_sides():
    from controller.demo import card_label, side_name

    assert [card_label(c) for c in ("hearts/king", "spades/10", "coins/7", "cups/knight", "trump/21", "fool",
                                    None)] == ["K♥", "10♠", "7 coins", "C cups", "trump 21", "Fool", "▯"]
    names = ["Anna", "Bruno", "Carla", "Dario"]
    assert side_name(names, 2, 1) == "Bruno & Dario" and side_name(names, 4, 2) == "Carla"
    assert side_name(names[:3], 3, 0) == "Anna" and side_name(names, 2, None) == "nobody (tied)"
