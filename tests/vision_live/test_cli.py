"""``cardtable track`` / ``calibrate`` / ``watch`` on a written synthetic video, with the real
Vision I recogniser: the played cards come out, seat by seat, as CONTRACT §4 JSON lines."""
from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from controller.cli import main as cardtable
from vision.synthetic import synthetic_profile
from vision.synthetic.sequences import SequenceBuilder, named_sequence, write_sequence

KEYS = ["frame", "event", "seat", "card", "face_up", "confidence"]


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    d = tmp_path_factory.mktemp("track")
    seq = named_sequence("trick")
    video = write_sequence(seq, d / "trick.avi")
    profile = d / "profile"
    synthetic_profile(seq.deck_id).save(profile)
    return seq, video, profile


def _lines(out: str) -> list[dict]:
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def test_track_prints_the_played_cards(recorded, capsys):
    seq, video, profile = recorded
    assert cardtable(["track", str(profile), str(video)]) == 0
    lines = _lines(capsys.readouterr().out)
    assert all(list(line) == KEYS for line in lines)
    assert [(l["event"], l["seat"], l["card"], l["face_up"]) for l in lines] == [e.key() for e in seq.events]
    for line, truth in zip(lines, seq.events):
        assert truth.frame <= line["frame"] <= truth.frame + 12
        assert 0.0 <= line["confidence"] <= 1.0


def test_track_with_a_table_config_and_clockwise(recorded, tmp_path, capsys):
    seq, video, profile = recorded
    table = tmp_path / "table.toml"
    table.write_text("[table]\nwidth_mm = 720\nheight_mm = 380\ncard_mm = [59, 91]\n")
    assert cardtable(["track", str(profile), str(video), "--table", str(table), "--clockwise",
                      "--max-frames", "80"]) == 0
    lines = _lines(capsys.readouterr().out)
    # seat 1 of an anticlockwise game is seat 3 clockwise
    assert [(l["event"], l["seat"], l["card"]) for l in lines] == [("placed", 0, "hearts/7"),
                                                                    ("placed", 3, "hearts/king")]


def test_calibrate_then_track_and_watch_with_the_file(recorded, tmp_path, capsys):
    seq, video, profile = recorded
    cal = tmp_path / "cal.json"
    assert cardtable(["calibrate", str(video), "-o", str(cal), "--markers", str(tmp_path / "print")]) == 2
    assert "the table's size is needed: --size" in capsys.readouterr().err    # no more silent 900x900 mm
    assert cardtable(["calibrate", str(video), "-o", str(cal), "--size", "720x380",
                      "--markers", str(tmp_path / "print")]) == 0
    assert "table 720x380 mm" in capsys.readouterr().out
    assert cal.exists() and (tmp_path / "cal.check.png").exists() and (tmp_path / "print" / "markers.pdf").exists()
    assert (tmp_path / "cal.topdown.png").exists() and (tmp_path / "cal.background.png").exists()
    capsys.readouterr()
    out = tmp_path / "frames"
    assert cardtable(["watch", str(profile), str(video), "--calibration", str(cal), "--out", str(out),
                      "--every", "50", "--max-frames", "70"]) == 0
    lines = _lines(capsys.readouterr().out)
    assert [l["card"] for l in lines] == ["hearts/7", "hearts/king"]
    pictures = sorted(out.glob("*.jpg"))
    assert len(pictures) >= 3 and cv2.imread(str(pictures[-1])).shape == (720, 1280, 3)


def test_bad_inputs_are_one_line_errors(recorded, tmp_path, capsys):
    _, video, profile = recorded
    bad_table = tmp_path / "bad.toml"
    bad_table.write_text("[table]\nwidht_mm = 3\n")
    blank = tmp_path / "blank"
    blank.mkdir()
    cv2.imwrite(str(blank / "f0.png"), np.full((90, 160, 3), 80, np.uint8))
    cases = [
        (["track", str(profile), str(tmp_path / "missing.mp4")], "no such video file"),
        (["track", str(tmp_path / "noprofile"), str(video)], "no such profile folder"),
        (["track", str(profile), str(video), "--table", str(bad_table)], "table.widht_mm: unknown key"),
        (["calibrate", str(video), "--size", "90cm"], "--size '90cm': WIDTHxHEIGHT"),
        (["track", str(profile), str(blank)], "table markers not found"),
        (["calibrate", str(blank / "f0.png")], "table markers not found"),
        (["calibrate", str(blank / "f0.png"), "--points", "1,2", "3,4", "5,6", "x"], "--points"),
    ]
    for argv, message in cases:
        assert cardtable(argv) == 2, argv
        err = capsys.readouterr().err.strip()
        assert message in err and "Traceback" not in err and len(err.splitlines()) == 1, err
