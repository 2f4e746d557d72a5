"""Hard real-table events through ``cardtable track`` with the real recogniser (issue 15): a lamp
switched on and off with the exposure drifting back, arms' shadows and a player leaning over,
cards nudged after they were placed, each card dropped partly over the previous one, a card
dropped on the spot of the one before, a trick gathered into a pile that stays while the next
trick starts, a face-down card turned over where it lies (no event:
Truco counts it 0 whatever it is), and the cloths the stills finder's "paper is lighter and
greyer" rule breaks on (a light table, a patterned one). Every placement with the right card and
seat; no other event."""
from __future__ import annotations

import json

import pytest

from controller.cli import main as cardtable
from vision.synthetic import synthetic_profile
from vision.synthetic.sequences import named_sequence, write_sequence

CASES = [("lamp", "light", 7), ("shadow", "plain", 7), ("nudge", "wood", 7), ("stacked", "plain", 7),
         ("trick", "light", 7), ("trick", "patterned", 7), ("turned", "wood", 5),
         # a card dropped on the spot of the one before: taken for that card, unchanged, until
         # a quad found in the change since the table settled was no longer matched to a card
         # reported before that change (the Troccas demo's miss)
         ("restack", "wood", 7),
         # the stills finder names 2 of these 4 cards, and reports 2 false events (bench/vision_live.py)
         ("trick", "cloth", 8)]


@pytest.fixture(scope="module")
def profile(tmp_path_factory):
    path = tmp_path_factory.mktemp("profile") / "french-32"
    synthetic_profile("french-32").save(path)
    return path


@pytest.mark.parametrize("name, table, seed", CASES)
def test_track_reports_every_card_through_hard_events(name, table, seed, profile, tmp_path, capsys):
    seq = named_sequence(name, size=(960, 540), table=table, seed=seed)
    video = write_sequence(seq, tmp_path / f"{name}.avi")
    assert cardtable(["track", str(profile), str(video)]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.strip()]
    got = [(l["event"], l["seat"], l["card"], l["face_up"]) for l in lines]
    assert got == [e.key() for e in seq.events]
    for line, truth in zip(lines, seq.events):
        assert truth.frame - 8 <= line["frame"] <= truth.frame + 14, (line, truth)


def test_change_detector_follows_a_lamp_but_not_a_card():
    """A lamp's smooth gain over the whole table is followed; a card appearing under it is not."""
    import numpy as np

    from vision.change import ChangeDetector
    from vision.synthetic.sequences import _light_field   # the renderer's lamp

    rng = np.random.default_rng(0)
    table = np.clip(rng.normal(190, 4, (540, 960, 3)), 0, 255).astype(np.float32)
    cd = ChangeDetector((960, 540))
    cd.update(table.astype(np.uint8), 0)
    lit = table * _light_field((960, 540), 7, 1.0)[..., None] * 0.85
    moving, changed = cd.update(np.clip(lit, 0, 255).astype(np.uint8), 1)
    assert cd.gain is not None and not changed
    card = lit.copy()
    card[200:340, 400:500] = 250
    _, changed = cd.update(np.clip(card, 0, 255).astype(np.uint8), 2)
    regions = cd.regions()
    assert changed and len(regions) == 1
    x, y, w, h = regions[0].bbox
    assert 380 <= x <= 400 and 480 <= x + w <= 520 and 180 <= y <= 200 and 320 <= y + h <= 360


def test_track_next_trick_starts_while_the_gathered_pile_still_lies(profile, tmp_path, capsys):
    """A trick swept into a pile at its winner's edge, the last card played face up on top, and
    the next trick led and followed before the pile is carried off: each new card is placed at
    its seat, the pile's top card is not played again, and every card is removed once."""
    seq = named_sequence("pileup", size=(960, 540), table="patterned", seed=3)
    video = write_sequence(seq, tmp_path / "pileup.avi")
    assert cardtable(["track", str(profile), str(video)]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.strip()]
    placed = [l for l in lines if l["event"] in ("placed", "needs_confirmation")]
    want = [e for e in seq.events if e.event == "placed"]
    assert [(l["event"], l["seat"], l["card"]) for l in placed] == [(e.event, e.seat, e.card) for e in want]
    for line, truth in zip(placed, want):
        assert truth.frame - 8 <= line["frame"] <= truth.frame + 14, (line, truth)
    # the cards the pile hides go when it covers them, its top card when it is carried off
    removed = sorted((l["seat"], l["card"]) for l in lines if l["event"] == "removed")
    assert removed == sorted((e.seat, e.card) for e in seq.events if e.event == "removed")
    assert [l["event"] for l in lines].count("cleared") == 1 and lines[-1]["event"] == "cleared"
