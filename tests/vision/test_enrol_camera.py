"""Enrolment from the table camera, end to end: a rendered video of a sorted deck dealt one card
at a time, read through the real frame source and the real finder, then the enrolled faces
recognised in rendered stills."""
from __future__ import annotations

import pytest

from vision.cli import enrol_main
from vision.enrol import EnrolError
from vision.enrol_camera import read_order
from vision.profile import Profile
from vision.recognise import Recogniser
from vision.synthetic import Placement, StressOptions, render_scene, synthetic_profile
from vision.synthetic.sequences import deal_sequence, write_sequence

DECK = "french-32"
# with each pip card's colour twin: a profile lacking it names the card only by its corner index
# (vision.recognise.LOOKALIKE_CELL), and this one is too small for the index to be read
DEALT = ["hearts/7", "hearts/8", "hearts/9", "hearts/queen", "spades/ace", "spades/king",
         "diamonds/7", "diamonds/8", "diamonds/9", "clubs/ace", "back"]
CAMERA = StressOptions(tilt=0.03, light=0.2, white_balance=0.08, glare=0.2, blur=0.8, noise=3, jpeg=80)


@pytest.fixture(scope="module")
def dealt(tmp_path_factory):
    """A profile enrolled from a video where the 3rd card is taken off and dealt again."""
    base = tmp_path_factory.mktemp("deal")
    video = write_sequence(deal_sequence(DECK, DEALT, seed=3, stress=CAMERA, table="wood",
                                         take_back=(2,)), base / "deal.avi")
    order = base / "order.txt"
    order.write_text("# our test pack\n" + "\n".join(c.replace("/", "_") if i % 2 else c
                                                      for i, c in enumerate(DEALT)) + "\n")
    return base, video, order


def test_a_dealt_deck_is_enrolled_label_by_label_from_the_video(dealt, capsys):
    base, video, order = dealt
    assert enrol_main([str(base / "prof"), "--from-camera", str(video), "--deck", DECK,
                       "--order", str(order)]) == 0
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert "1:hearts/7  2:hearts/8  3:hearts/9" in err               # the order, printed first
    took = [ln.split(" took ")[1].split(";")[0] for ln in err.splitlines() if " took " in ln]
    assert took == DEALT[:3] + ["hearts/9"] + DEALT[3:]              # each label as it is taken
    assert "hearts/9 was taken off: deal it again" in err
    assert err.index("1:hearts/7") < err.index("took hearts/7")
    prof = Profile.load(base / "prof")
    assert set(prof.cards) == set(DEALT) and prof.meta["enrolled_from"] == "camera"
    assert all(len(prof.faces[c]) == 1 for c in DEALT)


def test_the_camera_enrolled_faces_recognise_the_cards(dealt):
    base = dealt[0]
    prof_dir = base / "prof"
    if not prof_dir.exists():
        assert enrol_main([str(prof_dir), "--from-camera", str(dealt[1]), "--deck", DECK,
                           "--order", str(dealt[2]), "-q"]) == 0
    rec = Recogniser(Profile.load(prof_dir))
    truth = synthetic_profile(DECK)
    for k, (a, b) in enumerate([("hearts/8", "spades/king"), ("hearts/queen", "hearts/7"),
                                ("spades/ace", "hearts/9")]):
        scene = render_scene(truth, [Placement(a, (400, 360), 15 + 40 * k),
                                     Placement(b, (880, 360), -30 + 25 * k)],
                             table=("plain", "wood", "light")[k], seed=10 + k, stress=CAMERA)
        got = sorted(d.card for d in rec.recognise(scene.image))
        assert got == sorted([a, b]), (a, b, got)


def test_order_file_errors_are_all_listed(tmp_path):
    bad = tmp_path / "order.txt"
    bad.write_text("hearts/7 hearts/77\nhearts_7, jokers\n")
    with pytest.raises(EnrolError) as e:
        read_order(bad, DECK)
    msg = str(e.value)
    assert "line 1: 'hearts/77' is not a card of french-32" in msg
    assert "line 2: hearts/7 is listed twice" in msg and "'jokers'" in msg


def test_camera_enrol_edges_say_what_is_wrong(tmp_path, capsys):
    assert enrol_main([str(tmp_path / "p"), "--from-camera", str(tmp_path / "none.avi"),
                       "--deck", DECK]) == 1
    assert "no such video file" in capsys.readouterr().err
    assert enrol_main([str(tmp_path / "p"), "--from-camera", "synthetic:trick"]) == 1
    assert "--from-camera needs --deck" in capsys.readouterr().err
    assert enrol_main([str(tmp_path / "p")]) == 2
    assert "either REFERENCE_DIR" in capsys.readouterr().err
    idle = write_sequence(deal_sequence(DECK, [], gap=12), tmp_path / "idle")   # nobody deals
    assert enrol_main([str(tmp_path / "p"), "--from-camera", str(idle), "--deck", DECK, "-q"]) == 1
    assert "no card was taken" in capsys.readouterr().err
    assert not (tmp_path / "p").exists()


def test_with_a_calibration_the_box_is_its_trick_area(tmp_path):
    from vision.calibration import calibrate
    from vision.enrol_camera import box_of
    from vision.synthetic.sequences import render_frames
    seq = deal_sequence(DECK, [], size=(1280, 720), gap=2)
    image, _ = next(render_frames(seq))
    cal = calibrate(image)
    cal.save(tmp_path / "cal.json")
    x, y, w, h = box_of(str(tmp_path / "cal.json"))
    assert x < 640 < x + w and y < 360 < y + h          # around the middle of the table
    assert w < 1280 and h < 720
