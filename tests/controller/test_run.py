"""`cardtable run` as a process: config, Mosquitto, commands, SIGTERM, resume."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

from .mqtt_helpers import Watcher


def start(config, timeout=120):
    p = subprocess.Popen([sys.executable, "-m", "controller.cli", "run", "--config", str(config)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return p


def test_run_commands_stop_and_resume(tmp_path, mosquitto):
    cfg = tmp_path / "table.toml"
    cfg.write_text(f"""
[table]
id = "club1"
[game]
name = "vitou"
dealer = 3
[mqtt]
url = "{mosquitto.url}"
[journal]
path = "{tmp_path / 'club1.journal'}"
[web]
port = 0
""")
    w = Watcher(mosquitto.port, "cardtable/v1/tables/club1/#")
    assert w.connected.wait(5)
    p = start(cfg)
    try:
        assert w.wait(lambda m: any(t.endswith("/status") and pl == b"online" for t, pl, _ in m), 120)
        w.publish("cardtable/v1/tables/club1/cmd/event",
                  json.dumps({"id": "c1", "event": {"event": "card", "seat": 0, "card": "hearts/king"}}))
        assert w.wait(lambda m: w.json_of("cmd_result"), 30)
        assert w.json_of("cmd_result")[-1]["ok"] is True
        state = w.wait(lambda m: [s for s in w.json_of("state") if (s.get("detail") or {}).get("current_trick")], 30)[-1]
        p.send_signal(signal.SIGTERM)
        assert p.wait(30) == 0
        assert w.wait(lambda m: m[-1][1] == b"stopped")
    finally:
        if p.poll() is None:
            p.kill()
    # restart: the same state is published again (retained), the old command id is remembered
    n = len(w.json_of("state"))
    p = start(cfg)
    try:
        assert w.wait(lambda m: len(w.json_of("state")) > n, 120)
        assert w.json_of("state")[-1] == state
        w.publish("cardtable/v1/tables/club1/cmd/event",
                  json.dumps({"id": "c1", "event": {"event": "card", "seat": 0, "card": "hearts/king"}}))
        assert w.wait(lambda m: len(w.json_of("cmd_result")) == 2, 30)
        assert w.json_of("cmd_result")[-1]["duplicate"] is True
        os.kill(p.pid, signal.SIGKILL)
        p.wait()
        assert w.wait(lambda m: m[-1][1] == b"offline", 30)          # the last will
    finally:
        if p.poll() is None:
            p.kill()
    w.close()


def test_run_bad_config_is_one_line(tmp_path):
    cfg = tmp_path / "t.toml"
    cfg.write_text("[gpio]\nenabled = true\nturn_leds = [5, 6]\n")
    p = subprocess.run([sys.executable, "-m", "controller.cli", "run", "--config", str(cfg)],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 2 and "gpio.turn_leds" in p.stderr and len(p.stderr.strip().splitlines()) == 1


def test_check_config_refuses_what_run_would_refuse(tmp_path):
    """One validation: a camera without calibration/profile, paths that do not exist, picamera2
    missing; `--check-config` and `run` give the same line and exit 2 (not retried by systemd)."""
    import importlib.util

    cfg = tmp_path / "t.toml"
    cfg.write_text(f'[camera]\nsource = "picamera2"\nprofile = "{tmp_path / "nope"}"\n'
                   f'[mqtt]\nca_file = "{tmp_path / "ca.pem"}"\n[journal]\npath = "{tmp_path}"\n')
    outs = []
    for extra in (["--check-config"], []):
        p = subprocess.run([sys.executable, "-m", "controller.cli", "run", "--config", str(cfg), *extra],
                           capture_output=True, text=True, timeout=120)
        assert p.returncode == 2 and "Traceback" not in p.stderr and len(p.stderr.strip().splitlines()) == 1
        outs.append(p.stderr.split(": ", 1)[1])
    assert outs[0] == outs[1]
    for words in ("camera.calibration: needed", f"camera.profile: {tmp_path / 'nope'} does not exist",
                  "mqtt.ca_file", "journal.path: ", "is a directory"):
        assert words in outs[0], outs[0]
    assert ("picamera2 is not installed" in outs[0]) == (importlib.util.find_spec("picamera2") is None)


def test_run_logs_broker_lost_and_reconnected(tmp_path, mosquitto):
    cfg = tmp_path / "t.toml"
    cfg.write_text(f'[mqtt]\nurl = "{mosquitto.url}"\n[journal]\npath = "{tmp_path / "t.journal"}"\n[web]\nport = 0\n')
    p = subprocess.Popen([sys.executable, "-m", "controller.cli", "run", "--config", str(cfg), "--log-level", "info"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines: list[str] = []
    try:
        def wait_for(word: str, timeout: float = 60) -> None:
            deadline = time.monotonic() + timeout
            while not any(word in ln for ln in lines):
                assert time.monotonic() < deadline and p.poll() is None, (word, lines)
                lines.append(p.stderr.readline())
        wait_for(" connected")
        mosquitto.stop()
        wait_for(" lost")
        mosquitto.start()
        wait_for("reconnected")
        p.send_signal(signal.SIGTERM)
        assert p.wait(30) == 0
    finally:
        if p.poll() is None:
            p.kill()
    logged = [ln for ln in lines if ln.startswith("cardtable ")]
    assert all(ln.count("\n") == 1 for ln in logged) and "Traceback" not in "".join(lines)
    assert any(ln.startswith("cardtable WARNING cardtable.mqtt: MQTT ") and "reconnected" in ln for ln in logged)


def test_version():
    p = subprocess.run([sys.executable, "-m", "controller.cli", "--version"], capture_output=True, text=True,
                       timeout=60)
    assert p.returncode == 0 and p.stdout.startswith("cardtable ") and len(p.stdout.split()) >= 2
