"""Bad input as a user types it (issue 18): one clear line on stderr, a non-zero exit, never a
traceback or a hang. Every case runs the real ``cardtable`` command in a subprocess."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import free_port

ROOT = Path(__file__).resolve().parents[1]
HANG_S = 60      # far above any case's real time (a few seconds): only a hang reaches it


def cardtable(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "controller.cli", *args], capture_output=True, text=True,
                          timeout=HANG_S, cwd=cwd or ROOT, stdin=subprocess.DEVNULL)


def one_line(p: subprocess.CompletedProcess, *words: str) -> str:
    err = p.stderr.strip()
    assert p.returncode != 0, (p.returncode, p.stdout, err)
    assert "Traceback" not in err, err
    assert len(err.splitlines()) == 1, err
    for w in words:
        assert w in err, err
    return err


@pytest.mark.parametrize("args, words", [
    (["--web-port", "18080000"], ["--web-port 18080000"]),
    (["--tables", "0"], ["--tables 0"]),
    (["--speed", "-1"], ["--speed -1"]),
    (["--linger", "-5"], ["--linger -5"]),
    (["--journal", "x.journal", "--tables", "2"], ["--journal", "--tables 1"]),
    (["--mqtt", "mqtt://127.0.0.1:1"], ["cannot reach the MQTT broker at mqtt://127.0.0.1:1", "refused"]),
    (["--mqtt", "http://example"], ["broker URL"]),
])
def test_demo(args, words, tmp_path):
    err = one_line(cardtable("demo", "--headless", "--journal-dir", str(tmp_path), *args), *words)
    assert "--journal" not in err or "--journal" in " ".join(args)     # `--tables 0` used to blame --journal


def test_recognise_threshold(tmp_path):
    one_line(cardtable("recognise", str(tmp_path), "x.png", "--threshold", "7"), "--threshold 7", "between 0 and 1")


def test_track_threshold(tmp_path):
    one_line(cardtable("track", str(tmp_path), "x.mp4", "--threshold", "-0.5"), "--threshold -0.5")


def test_calibrate_missing_image():
    err = one_line(cardtable("calibrate", "/nonexist.jpg"), "/nonexist.jpg", "no such image")
    assert "video" not in err


@pytest.mark.parametrize("source", ["picamera2", "opencv:7"])
def test_calibrate_without_a_camera_gives_up(source, tmp_path):
    p = cardtable("calibrate", source, "--wait", "1", "-o", str(tmp_path / "c.json"))
    one_line(p, source, "no frame in 1 s")
    assert not (tmp_path / "c.json").exists()


def test_replay_not_a_journal(tmp_path):
    f = tmp_path / "syntax.toml"
    f.write_text('[table]\nid = "t1"\n')
    one_line(cardtable("replay", str(f)), "syntax.toml", "not a cardtable journal")


def test_export_not_a_journal(tmp_path):
    f = tmp_path / "events.jsonl"
    f.write_text(json.dumps({"event": "start", "game": "vitou", "dealer": 3}) + "\n")
    one_line(cardtable("export", str(f)), "events.jsonl", "not a cardtable journal")


def test_run_with_the_broker_down(tmp_path):
    port = free_port()       # nothing listens there
    cfg = tmp_path / "t.toml"
    cfg.write_text(f'[mqtt]\nurl = "mqtt://127.0.0.1:{port}"\n[journal]\npath = "{tmp_path / "t.journal"}"\n'
                   f'[web]\nport = 0\n')
    p = cardtable("run", "--config", str(cfg))
    one_line(p, f"mqtt://127.0.0.1:{port}", "cannot reach the MQTT broker")
    assert p.returncode == 1            # start-up fault: systemd retries (config errors are 2, not retried)


def test_run_busy_web_port_is_one_line(tmp_path):
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        cfg = tmp_path / "t.toml"
        cfg.write_text(f'[mqtt]\nurl = "off"\n[journal]\npath = "{tmp_path / "t.journal"}"\n'
                       f'[web]\nport = {port}\nhost = "127.0.0.1"\n')
        one_line(cardtable("run", "--config", str(cfg)), f"web port {port}", "cannot be used")


def test_bad_log_level():
    one_line(cardtable("--log-level", "loud", "referee"), "--log-level", "debug")
