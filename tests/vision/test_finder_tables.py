"""The finder on every table kind: each card found, its corners where the card is.

Rendered scenes with exact truth quads, camera stress included. Corners are checked
against truth as a share of the card's short side; the light table (cards barely lighter
than it) and the lined cloth (lines as light as card paper) are the hard ones. Face-down
cards with a coloured back must be whole cards too, and a phone, coin, chip, paper note or
hand must not become one.
"""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from vision.finder import find_cards
from vision.geometry import quad_sides
from vision.synthetic import (TABLES, Clutter, HandOptions, Placement, StressOptions,
                              render_scene, synthetic_profile)

CAMERA = StressOptions(tilt=0.06, light=0.35, white_balance=0.12, glare=0.4, blur=1.3, noise=5.0, jpeg=70)
SPOTS = [((300, 230), 17), ((960, 220), -38), ((330, 520), 71), ((950, 500), 122)]
CORNER_TOLERANCE = 0.03      # of the card's short side


def _match(scene, cands):
    """Per truth card: (matched candidate or None, worst corner error / short side)."""
    out = []
    for t in scene.truth:
        short, _ = quad_sides(t.quad)
        c = t.quad.mean(axis=0)
        best = min(cands, key=lambda k: float(np.linalg.norm(k.quad.mean(axis=0) - c)), default=None)
        if best is None or np.linalg.norm(best.quad.mean(axis=0) - c) > 0.35 * short:
            out.append((None, np.inf))
            continue
        err = np.linalg.norm(t.quad[:, None, :] - best.quad[None, :, :], axis=2).min(axis=1).max()
        out.append((best, float(err / short)))
    return out


@pytest.mark.parametrize("table", TABLES)
def test_every_card_found_with_its_corners(table):
    prof = synthetic_profile("french-52")
    cards = ["hearts/7", "spades/queen", "clubs/10", "diamonds/ace"]
    pl = [Placement(c, xy, a) for c, (xy, a) in zip(cards, SPOTS)]
    scene = render_scene(prof, pl, table=table, seed=21, stress=CAMERA)
    found = find_cards(scene.image, prof.aspect)
    for (cand, err), t in zip(_match(scene, found.candidates), scene.truth):
        assert cand is not None, (table, t.card)
        assert cand.whole, (table, t.card)
        assert err < CORNER_TOLERANCE, (table, t.card, round(err, 3))
    assert len(found.candidates) == len(pl)


@pytest.mark.parametrize("table", ["light", "cloth", "plain"])
@pytest.mark.parametrize("swap", [(0, 1, 2), (0, 2, 1), (1, 0, 2)])
def test_a_coloured_back_is_a_whole_card(table, swap):
    prof = synthetic_profile("french-52")
    back = prof.faces["back"][0][..., list(swap)]          # the same pattern, another colour
    faces = dict(prof.faces, back=[np.ascontiguousarray(back)])
    prof = dataclasses.replace(prof, faces=faces)
    pl = [Placement("hearts/7", SPOTS[0][0], 25, face_up=False),
          Placement("clubs/3", SPOTS[3][0], -60, face_up=False)]
    scene = render_scene(prof, pl, table=table, seed=5, stress=CAMERA)
    found = find_cards(scene.image, prof.aspect)
    for cand, err in _match(scene, found.candidates):
        assert cand is not None and cand.whole, (table, swap)
        assert err < CORNER_TOLERANCE, (table, swap, round(err, 3))


@pytest.mark.parametrize("table", ["light", "cloth", "wood"])
def test_phone_coin_chip_paper_and_hand_are_not_cards(table):
    prof = synthetic_profile("french-52")
    clutter = [Clutter("phone", (260, 250), 20), Clutter("coin", (640, 200)), Clutter("chip", (1000, 520)),
               Clutter("paper", (1000, 230), 10)]
    hand = HandOptions((560, 470), width=110)
    scene = render_scene(prof, [], table=table, seed=4, stress=CAMERA, clutter=clutter, hand=hand)
    found = find_cards(scene.image, prof.aspect)
    assert not [c for c in found.candidates if c.whole], [c.quad.mean(axis=0) for c in found.candidates]
