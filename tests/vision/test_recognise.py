"""The real pipeline (find, straighten, identify) on rendered scenes with exact truth."""
from __future__ import annotations

import numpy as np
import pytest

from controller.rules.cards import decks
from vision.recognise import Recogniser
from vision.synthetic import (TABLES, Clutter, HandOptions, Placement, StressOptions,
                              render_scene, synthetic_profile)
from vision.synthetic.stress import score

MILD = StressOptions(tilt=0.04, light=0.25, white_balance=0.1, glare=0.3, blur=1.0, noise=4.0, jpeg=75)


def _rec(deck_id: str) -> Recogniser:
    return Recogniser(synthetic_profile(deck_id))


def _cards(deck_id: str, n: int, offset: int = 0) -> list[str]:
    cards = decks()[deck_id].cards
    step = max(1, len(cards) // n)
    return [cards[(offset + i * step) % len(cards)] for i in range(n)]


@pytest.mark.parametrize("deck_id", sorted(decks()))
def test_every_deck_separate_cards_identified(deck_id):
    cards = _cards(deck_id, 4, offset=3)
    pl = [Placement(c, (200 + 290 * i, 330 + 40 * (i % 2)), 25 * i - 30) for i, c in enumerate(cards)]
    scene = render_scene(synthetic_profile(deck_id), pl, table="plain", seed=7, stress=MILD)
    t = score(scene, _rec(deck_id).recognise(scene.image))
    assert t.false_reports == 0, t.errors
    assert t.right == 4, t.errors


@pytest.mark.parametrize("angle", [0, 37, 90, 180, 251, 300])
def test_any_rotation(angle):
    pl = [Placement("hearts/queen", (400, 360), angle), Placement("clubs/9", (880, 360), -angle)]
    scene = render_scene(synthetic_profile("french-52"), pl, table="wood", seed=angle, stress=MILD)
    t = score(scene, _rec("french-52").recognise(scene.image))
    assert (t.right, t.false_reports) == (2, 0), t.errors


def test_face_down_card_is_a_back_without_identity():
    pl = [Placement("trump/21", (400, 360), 10), Placement("cups/king", (850, 360), 80, face_up=False)]
    scene = render_scene(synthetic_profile("tarot-1jj"), pl, table="plain", seed=3, stress=MILD)
    dets = _rec("tarot-1jj").recognise(scene.image)
    got = sorted(((d.card or "-"), d.face_up) for d in dets)
    assert got == [("-", False), ("trump/21", True)]


def test_overlapping_trick_cards_never_misread():
    pl = [Placement("coins/7", (560, 360), 5), Placement("swords/knight", (690, 340), 30)]
    scene = render_scene(synthetic_profile("trevigiane-52"), pl, table="plain", seed=11, stress=MILD)
    assert scene.truth[0].visible_fraction < 0.95       # the 7 is partly under the knight
    t = score(scene, _rec("trevigiane-52").recognise(scene.image))
    assert t.false_reports == 0, t.errors
    assert t.right >= 1 and t.missed == 0 or t.right == 2, t.errors


def test_card_under_a_hand_edge_is_read_or_abstained_never_wrong():
    pl = [Placement("spades/king", (500, 360), 15), Placement("diamonds/7", (850, 380), -20)]
    scene = render_scene(synthetic_profile("french-32"), pl, table="wood", seed=5, stress=MILD,
                         hand=HandOptions((560, 260), width=110))
    t = score(scene, _rec("french-32").recognise(scene.image))
    assert t.false_reports == 0, t.errors
    assert t.right >= 1, t.errors


@pytest.mark.parametrize("table", TABLES)
def test_every_table_texture(table):
    pl = [Placement("hearts/ace", (360, 360), 12), Placement("spades/10", (900, 340), -65)]
    scene = render_scene(synthetic_profile("french-52"), pl, table=table, seed=2, stress=MILD)
    t = score(scene, _rec("french-52").recognise(scene.image))
    assert t.false_reports == 0, t.errors
    # a light-striped cloth is the hardest: there one card may be abstained, never misread
    assert t.right == 2 or (table == "cloth" and t.right == 1), t.errors


def test_phone_coin_chip_and_paper_are_not_cards():
    clutter = [Clutter("phone", (300, 300), 20), Clutter("coin", (700, 200)), Clutter("chip", (900, 500)),
               Clutter("paper", (1000, 250), 10)]
    scene = render_scene(synthetic_profile("french-52"), [], table="wood", seed=4, stress=MILD,
                         clutter=clutter)
    assert _rec("french-52").recognise(scene.image) == [] or all(
        d.card is None for d in _rec("french-52").recognise(scene.image))


def test_a_card_a_twentieth_of_the_picture_wide_is_found_and_named():
    """Cards may be 5-100 % of a picture's short side (issue 14): one 42 px wide in 1280x720
    (5.8 %) is proposed by the finder itself, not only by keypoints, and named."""
    from vision.finder import find_cards
    from vision.geometry import quad_sides
    from vision.synthetic.render import scale_for_width
    p = synthetic_profile("french-32")
    rec = Recogniser(p)
    for i, card in enumerate(("hearts/king", "clubs/9", "spades/ace", "diamonds/7")):
        scene = render_scene(p, [Placement(card, (640, 360), 20 * i, scale=scale_for_width((1280, 720), p.aspect, 42))],
                             table="plain", seed=i)
        assert [abs(quad_sides(c.quad)[0] / 42 - 1) < 0.15 for c in find_cards(scene.image, p.aspect).candidates] == [True], card
        assert [d.card for d in rec.recognise(scene.image)] == [card]


def test_card_of_another_deck_is_never_named():
    # a tarot trump shown to a French profile: abstain (or ignore), never a French id
    tarot = synthetic_profile("tarot-1jj")
    scene = render_scene(tarot, [Placement("trump/13", (640, 360), 20)], table="plain", seed=9, stress=MILD)
    dets = _rec("french-52").recognise(scene.image)
    assert all(d.card is None for d in dets)


def test_candidates_restrict_the_answer():
    pl = [Placement("hearts/4", (640, 360), 0)]
    scene = render_scene(synthetic_profile("french-52"), pl, table="plain", seed=1, stress=MILD)
    rec = _rec("french-52")
    assert [d.card for d in rec.recognise(scene.image, candidates={"hearts/4", "clubs/2"})] == ["hearts/4"]
    # the true card ruled out: whatever is said, it is not a card outside the candidates
    dets = rec.recognise(scene.image, candidates={"spades/king", "clubs/2"})
    assert all(d.card in (None, "spades/king", "clubs/2") for d in dets)


def test_roi_limits_the_search():
    pl = [Placement("hearts/4", (300, 360), 0), Placement("clubs/jack", (950, 360), 0)]
    scene = render_scene(synthetic_profile("french-52"), pl, table="plain", seed=1, stress=MILD)
    dets = _rec("french-52").recognise(scene.image, roi=(700, 100, 500, 520))
    assert [d.card for d in dets] == ["clubs/jack"]
    assert dets[0].quad[:, 0].min() > 700     # quads are in full-image pixels


def test_identify_a_straightened_face_and_big_images():
    p = synthetic_profile("french-40")
    rec = Recogniser(p)
    face = p.faces["clubs/7"][0]
    card, conf, margin = rec.identify(face[::-1, ::-1])           # upside down
    assert card == "clubs/7" and conf >= rec.threshold and margin > 0
    scene = render_scene(p, [Placement("hearts/king", (3000, 2000), 30, scale=0.8)], size=(6000, 4000),
                         table="wood", seed=1)
    dets = rec.recognise(scene.image)
    assert [d.card for d in dets] == ["hearts/king"]
    assert np.abs(dets[0].quad.mean(axis=0) - scene.truth[0].quad.mean(axis=0)).max() < 40
