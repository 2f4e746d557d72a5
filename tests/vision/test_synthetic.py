"""Generated faces and the renderer: distinct, marked, deterministic, truthful."""
from __future__ import annotations

import numpy as np

from controller.rules.cards import decks
from vision.synthetic import Placement, StressOptions, render_scene, synthetic_face, synthetic_profile


def test_faces_are_distinct_for_every_card_of_every_deck():
    for deck_id, d in decks().items():
        faces = [synthetic_face(deck_id, c) for c in d.cards + ("back",)]
        flat = {f.tobytes() for f in faces}
        assert len(flat) == len(faces), deck_id


def test_profile_knows_every_card_and_the_back():
    p = synthetic_profile("tarot-1jj")
    assert set(p.cards) == set(decks()["tarot-1jj"].cards) | {"back"}
    assert p.meta.get("synthetic") is True


def test_render_is_deterministic_by_seed_and_truth_counts_cover():
    p = synthetic_profile("french-40")
    pl = [Placement("hearts/7", (600, 360), 0), Placement("clubs/king", (680, 360), 0)]
    a = render_scene(p, pl, seed=3, stress=StressOptions())
    b = render_scene(p, pl, seed=3, stress=StressOptions())
    c = render_scene(p, pl, seed=4, stress=StressOptions())
    assert np.array_equal(a.image, b.image) and not np.array_equal(a.image, c.image)
    assert a.truth[1].visible_fraction > 0.97
    assert 0.3 < a.truth[0].visible_fraction < 0.8
    assert a.truth[0].card == "hearts/7" and a.truth[0].quad.shape == (4, 2)


def test_face_down_placement_has_no_identity_in_truth():
    p = synthetic_profile("french-32")
    s = render_scene(p, [Placement("hearts/7", (600, 360), 0, face_up=False)], seed=1)
    assert s.truth[0].card is None and s.truth[0].face_up is False
