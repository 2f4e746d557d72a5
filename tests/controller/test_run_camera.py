"""`cardtable run` with a real camera configuration: calibration file, deck profile, and a
recorded frame folder as the source (what `picamera2` is on a Pi)."""
from __future__ import annotations

import signal
import subprocess
import sys
import time

import cv2
import pytest

from controller.demo import Room
from controller.journal import read_records

pytestmark = pytest.mark.opencv      # through OpenCV/numpy: the Pi lane runs it (.ci/pi-lane)


def test_run_judges_cards_from_recorded_frames(tmp_path):
    room = Room("french-32", True, 4, seed=9)
    room.calibration.save(tmp_path / "calibration.json")
    room.profile.save(tmp_path / "profile")
    frames = tmp_path / "frames"
    frames.mkdir()
    shots = [room.frame()] * 5
    room.put(0, "hearts/king")
    shots += [room.with_hand(room.frame(), 0)] * 2 + [room.frame()] * 14
    room.put(1, "spades/ace")
    shots += [room.with_hand(room.frame(), 1)] * 2 + [room.frame()] * 14
    for i, img in enumerate(shots):
        cv2.imwrite(str(frames / f"f{i:04d}.png"), img)
    cfg = tmp_path / "table.toml"
    cfg.write_text(f"""
[game]
name = "vitou"
dealer = 3
[camera]
source = "folder:{frames}"
calibration = "{tmp_path / 'calibration.json'}"
profile = "{tmp_path / 'profile'}"
min_confidence = 0.5
still_frames = 6
[mqtt]
url = "off"
[journal]
path = "{tmp_path / 'run.journal'}"
[web]
port = 0
""")
    p = subprocess.Popen([sys.executable, "-m", "controller.cli", "run", "--config", str(cfg)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            recs = read_records(tmp_path / "run.journal")[0]
            if sum(1 for r in recs if r.get("r") in ("event", "pending") and r.get("src") != "config") >= 2:
                break
            time.sleep(0.1)
        p.send_signal(signal.SIGTERM)
        assert p.wait(30) == 0, p.stderr.read()
    finally:
        if p.poll() is None:
            p.kill()
    recs = read_records(tmp_path / "run.journal")[0]
    cards = [(r["event"]["seat"], r["event"]["card"]) for r in recs if r.get("src") == "vision"]
    pend = [r for r in recs if r.get("r") == "pending"]
    assert cards == [(0, "hearts/king"), (1, "spades/ace")] or pend, recs
