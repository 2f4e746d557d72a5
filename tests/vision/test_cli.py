"""enrol and recognise end to end, and one clear message for every bad input."""
from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.cli import enrol_main, print_summary, recognise_main
from vision.profile import Profile
from vision.synthetic import Placement, StressOptions, render_scene, synthetic_profile

DECK = "french-32"


def _reference(folder: Path, deck_id: str = DECK) -> Path:
    """Reference photos: a third tight crops, the rest a card lying on a table."""
    p = synthetic_profile(deck_id)
    folder.mkdir(parents=True, exist_ok=True)
    for i, card in enumerate(p.cards):
        stem = card.replace("/", "_")
        if i % 3 == 0:
            img = p.faces[card][0]
        else:
            up = card != "back"
            img = render_scene(p, [Placement(card if up else None, (320, 240), (i * 37) % 360, face_up=up,
                                             scale=1.5)], size=(640, 480),
                               table=("wood", "plain", "light")[i % 3], seed=i,
                               stress=StressOptions(tilt=0.02, light=0.1, white_balance=0.05, glare=0.0,
                                                    blur=0.6, noise=2, jpeg=90)).image
        cv2.imwrite(str(folder / f"{stem}.jpg"), img)
    return folder


@pytest.fixture(scope="module")
def profile_dir(tmp_path_factory) -> Path:
    base = tmp_path_factory.mktemp("enrol")
    ref = _reference(base / "ref")
    out = base / "profile"
    assert enrol_main([str(out), str(ref), "-q"]) == 0
    return out


def test_enrol_then_recognise_round_trip(profile_dir, tmp_path, capsys):
    prof = Profile.load(profile_dir)
    assert prof.deck_id == DECK and len(prof.cards) == 33 and prof.format_version == 1
    scene = render_scene(synthetic_profile(DECK), [Placement("hearts/queen", (400, 360), 20),
                                                   Placement("spades/8", (880, 380), -60),
                                                   Placement(None, (640, 200), 5)],
                         table="wood", seed=2, stress=StressOptions(glare=0.3, blur=1.0))
    img = tmp_path / "table.jpg"
    cv2.imwrite(str(img), scene.image)
    capsys.readouterr()
    assert recognise_main([str(profile_dir), str(img), "--annotate", str(tmp_path / "ann")]) == 0
    line = json.loads(capsys.readouterr().out.strip())
    assert line["image"] == str(img) and line["ms"] > 0
    got = sorted((c["card"] or "-", c["face_up"]) for c in line["cards"])
    assert got == [("-", False), ("hearts/queen", True), ("spades/8", True)]
    c = line["cards"][0]
    assert len(c["quad"]) == 4 and 0 <= c["confidence"] <= 1
    assert (tmp_path / "ann" / "table.annotated.png").is_file()


def test_enrol_reports_progress_missing_and_deck(tmp_path, capsys):
    ref = tmp_path / "ref"
    ref.mkdir()
    p = synthetic_profile(DECK)
    for c in ("hearts_7", "clubs_ace"):
        cv2.imwrite(str(ref / f"{c}.png"), p.faces[c.replace("_", "/")][0])
    cv2.imwrite(str(ref / "clubs_ace.2.png"), p.faces["clubs/ace"][0])
    assert enrol_main([str(tmp_path / "prof"), str(ref), "--deck", DECK]) == 0
    err = capsys.readouterr().err
    assert "2/3" not in err or "3/3" in err
    assert "missing (31)" in err and "back" in err
    # what a partial profile cannot name from faces alone, and which photos would fix it
    assert "may stay unnamed until their look-alikes are enrolled too (2): " in err
    assert "hearts/7 needs diamonds/7 hearts/8" in err and "clubs/ace needs spades/ace" in err
    assert len(Profile.load(tmp_path / "prof").faces["clubs/ace"]) == 2


def _err(capsys) -> str:
    out = capsys.readouterr()
    assert "Traceback" not in out.err
    lines = [ln for ln in out.err.splitlines() if ln.strip()]
    assert len(lines) == 1, out.err
    return lines[0]


def test_bad_inputs_one_clear_line_each(tmp_path, capsys, profile_dir):
    empty = tmp_path / "empty"
    empty.mkdir()
    assert enrol_main([str(tmp_path / "p1"), str(empty)]) == 1
    assert "no images" in _err(capsys)

    assert enrol_main([str(tmp_path / "p1"), str(tmp_path / "nope")]) == 1
    assert "no such folder" in _err(capsys)

    bad = tmp_path / "badname"
    bad.mkdir()
    cv2.imwrite(str(bad / "Hearts Queen!.png"), np.full((90, 60, 3), 255, np.uint8))
    assert enrol_main([str(tmp_path / "p1"), str(bad)]) == 1
    assert "not a card file name" in _err(capsys)

    other = tmp_path / "notindeck"
    other.mkdir()
    cv2.imwrite(str(other / "hearts_2.png"), np.full((90, 60, 3), 255, np.uint8))
    assert enrol_main([str(tmp_path / "p1"), str(other), "--deck", "french-32"]) == 1
    assert "not a card of deck french-32" in _err(capsys)

    assert enrol_main([str(tmp_path / "p1"), str(other), "--deck", "uno"]) == 1
    assert "unknown deck" in _err(capsys)

    broken = tmp_path / "broken"
    broken.mkdir()
    cv2.imwrite(str(broken / "hearts_7.png"), np.full((90, 60, 3), 255, np.uint8))
    (broken / "hearts_8.jpg").write_bytes(b"not a jpeg")
    assert enrol_main([str(tmp_path / "p1"), str(broken)]) == 1
    assert "hearts_8.jpg: not a readable image" in _err(capsys)
    assert not (tmp_path / "p1").exists()                      # nothing half-written
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".p1")]

    # a failed enrol into an existing profile leaves it as it was
    before = sorted(x.name for x in (profile_dir / "faces").iterdir())
    assert enrol_main([str(profile_dir), str(broken)]) == 1
    _err(capsys)
    assert sorted(x.name for x in (profile_dir / "faces").iterdir()) == before

    assert recognise_main([str(tmp_path / "noprofile"), str(tmp_path / "x.jpg")]) == 1
    assert "not a profile folder" in _err(capsys)

    assert recognise_main([str(profile_dir), str(tmp_path / "missing.jpg")]) == 1
    assert "missing.jpg: no such image" in _err(capsys)

    assert recognise_main([str(profile_dir), str(broken / "hearts_8.jpg")]) == 1
    assert "not a readable image" in _err(capsys)


def test_profile_of_another_format_version_is_refused(tmp_path, capsys):
    p = synthetic_profile("french-40")
    p.save(tmp_path / "prof")
    meta = json.loads((tmp_path / "prof" / "profile.json").read_text())
    meta["format_version"] = 99
    (tmp_path / "prof" / "profile.json").write_text(json.dumps(meta))
    img = tmp_path / "a.png"
    cv2.imwrite(str(img), np.zeros((480, 640, 3), np.uint8))
    assert recognise_main([str(tmp_path / "prof"), str(img)]) == 1
    assert "format version 99" in _err(capsys)


def test_profile_save_load_round_trip(tmp_path):
    p = synthetic_profile("french-40")
    p.save(tmp_path / "prof")
    q = Profile.load(tmp_path / "prof")
    assert q.cards == p.cards and q.deck_id == p.deck_id and q.calibration == pytest.approx(p.calibration)
    assert np.array_equal(q.faces["hearts/7"][0], p.faces["hearts/7"][0])


def test_recognise_candidates_take_ids_and_refuse_strangers(profile_dir, tmp_path, capsys):
    scene = render_scene(synthetic_profile(DECK), [Placement("hearts/queen", (640, 360), 10)],
                         table="wood", seed=3, stress=StressOptions(glare=0.0, blur=0.8))
    img = tmp_path / "one.jpg"
    cv2.imwrite(str(img), scene.image)
    capsys.readouterr()
    assert recognise_main([str(profile_dir), str(img), "--candidates", "hearts/queen,spades_8"]) == 0
    assert [c["card"] for c in json.loads(capsys.readouterr().out)["cards"]] == ["hearts/queen"]
    assert recognise_main([str(profile_dir), str(img), "--candidates", "hearts/queen,trump/21"]) == 1
    err = capsys.readouterr().err
    assert "--candidates" in err and "trump_21" in err and "Traceback" not in err


def test_enrol_refuses_a_photo_with_no_card_that_is_not_a_crop(tmp_path, capsys):
    ref = tmp_path / "ref"
    ref.mkdir()
    p = synthetic_profile(DECK)
    cv2.imwrite(str(ref / "hearts_queen.jpg"), p.faces["hearts/queen"][0])      # a tight crop: fine
    table = np.full((300, 900, 3), (40, 90, 140), np.uint8)                       # wide, no card
    cv2.imwrite(str(ref / "spades_8.jpg"), table)
    capsys.readouterr()
    assert enrol_main([str(tmp_path / "prof"), str(ref), "-q", "--deck", DECK]) == 1
    err = capsys.readouterr().err
    assert "spades_8.jpg: no card found" in err and "Traceback" not in err
    assert not (tmp_path / "prof").exists()


def test_enrol_names_a_face_that_shows_table(tmp_path, capsys):
    ref = tmp_path / "ref"
    ref.mkdir()
    p = synthetic_profile(DECK)
    for card in ("hearts/queen", "clubs/7", "diamonds/ace"):
        cv2.imwrite(str(ref / f"{card.replace('/', '_')}.jpg"), p.faces[card][0])
    # a card-shaped photo of table with the card running off its side: no face to trust
    face = p.faces["spades/8"][0]
    h, w = face.shape[:2]
    crop = np.full((h, w, 3), (40, 90, 140), np.uint8)
    crop[h // 10:h // 10 + int(0.8 * h), w // 2:] = cv2.resize(face, (w - w // 2, int(0.8 * h)))
    cv2.imwrite(str(ref / "spades_8.jpg"), crop)
    capsys.readouterr()
    assert enrol_main([str(tmp_path / "prof"), str(ref), "-q", "--deck", DECK]) == 0
    err = capsys.readouterr().err
    assert "faces/spades_8.*.png: its edge is not card paper" in err
    assert "retake spades_8.jpg (until then spades/8 is named only where every part of its face agrees" in err
    assert "faces/hearts_queen" not in err and "faces/clubs_7" not in err and "faces/diamonds_ace" not in err
    assert Profile.load(tmp_path / "prof").suspect == {"spades/8"}


def test_a_camera_enrolment_says_to_deal_a_doubted_card_again_not_to_retake_a_photo(capsys):
    from vision.enrol import EnrolReport
    p = synthetic_profile(DECK)
    prof = Profile(DECK, {c: p.faces[c] for c in ("hearts/queen", "spades/8")}, p.aspect,
                   meta={"enrolled_from": "camera"})
    print_summary(EnrolReport(prof, [], [], 2, ["spades/8"]), "prof")
    err = capsys.readouterr().err
    assert "deal spades_8 into the box again" in err and "retake" not in err
