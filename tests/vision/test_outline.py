"""Card outlines from straight edges (vision.outline): cards found where the paper is no
lighter than the table, and named by the recogniser there."""
from __future__ import annotations

import numpy as np
import pytest

from vision import outline
from vision.geometry import order_quad, quad_sides
from vision.recognise import Recogniser
from vision.synthetic import Placement, StressOptions, render_scene, synthetic_profile

pytestmark = pytest.mark.opencv

DECK = "french-32"
CAMERA = StressOptions(tilt=0.02, light=0.1, white_balance=0.05, glare=0.0, blur=0.6, noise=2, jpeg=90)


def check_cloth(size=(960, 540), cell=46, line=9, ground=(70, 40, 25), stripe=(225, 228, 230)) -> np.ndarray:
    """A navy cloth checked with stripes as light as card paper: the paper-mask finder
    sees one blob of cloth and cards alike."""
    w, h = size
    img = np.full((h, w, 3), ground, np.uint8)
    for x in range(0, w, cell):
        img[:, x:x + line] = stripe
    for y in range(0, h, cell):
        img[y:y + line, :] = stripe
    return img


def pale_wood(size=(960, 540), seed=0) -> np.ndarray:
    """A table as light as the cards' paper, with faint grain."""
    w, h = size
    rng = np.random.default_rng(seed)
    grain = np.cumsum(rng.normal(0, 1.0, (1, w)), axis=1)
    grain = (grain - grain.mean()) / (grain.std() + 1e-6)
    img = np.empty((h, w, 3), np.float32)
    img[:] = np.array([212, 226, 236], np.float32)
    img += 4 * grain[..., None] + rng.normal(0, 2, (h, w, 1))
    return np.clip(img, 0, 255).astype(np.uint8)


def _error(q: np.ndarray, truth: np.ndarray) -> float:
    """Largest corner distance of two quads of one card (either way round), share of its short side."""
    t = order_quad(truth)
    q = order_quad(q)
    return min(float(np.abs(np.roll(q, r, axis=0) - t).max()) for r in (0, 2)) / quad_sides(t)[0]


def _scene(table: np.ndarray, placements: list[Placement], seed: int = 3):
    return render_scene(synthetic_profile(DECK), placements, size=(960, 540), table=table, seed=seed,
                        stress=CAMERA)


@pytest.mark.parametrize("table", ["check", "pale"])
def test_lone_cards_are_outlined_whole_on_a_table_as_light_as_their_paper(table):
    cloth = check_cloth() if table == "check" else pale_wood()
    scene = _scene(cloth, [Placement("hearts/queen", (330, 270), 20, scale=1.2),
                           Placement("clubs/7", (640, 300), -35, scale=1.2)])
    found = outline.propose(scene.image, synthetic_profile(DECK).aspect)
    whole = [o for o in found if o.sides >= 3]
    for truth in scene.truth:
        assert min(_error(o.quad, truth.quad) for o in whole) < 0.08, truth.card   # alignment takes up the rest


def test_a_check_cloth_alone_closes_no_card():
    scene = _scene(check_cloth(), [])
    assert [o for o in outline.propose(scene.image, synthetic_profile(DECK).aspect) if o.corners >= 3] == []


def test_crossing_lines_make_no_corner_and_card_sides_do():
    # two lines crossing in their middles (a cloth's check) and a card's two sides meeting
    segs = np.array([[0, 50, 100, 50], [50, 0, 50, 100],
                     [200, 10, 300, 10], [200, 10, 200, 150]], np.float64)
    cs = outline.corners(segs, 300)
    assert len(cs.p) == 1 and np.allclose(cs.p[0], [200, 10])


def test_pieces_of_one_edge_are_joined():
    segs = np.array([[0, 0, 40, 0], [45, 0.5, 90, 0.8], [0, 30, 40, 30]], np.float64)
    joined = outline.join(segs, gap=8)
    assert len(joined) == 2
    long = joined[np.argmax(np.hypot(joined[:, 2] - joined[:, 0], joined[:, 3] - joined[:, 1]))]
    assert np.hypot(long[2] - long[0], long[3] - long[1]) > 88


def test_recognise_names_cards_on_a_check_cloth_even_one_half_under_another():
    profile = synthetic_profile(DECK)
    scene = _scene(check_cloth(), [Placement("hearts/queen", (400, 280), 20, scale=1.2),
                                   Placement("clubs/7", (470, 300), -10, scale=1.2),
                                   Placement("diamonds/ace", (760, 250), 60, scale=1.2)], seed=4)
    assert 0.4 < scene.truth[0].visible_fraction < 0.7          # the queen lies half under the 7
    dets = Recogniser(profile).recognise(scene.image)
    named = {d.card: d for d in dets if d.card is not None}
    assert set(named) == {"hearts/queen", "clubs/7", "diamonds/ace"}
    for truth in scene.truth:
        assert np.linalg.norm(named[truth.card].quad.mean(axis=0) - truth.quad.mean(axis=0)) < \
            0.1 * quad_sides(truth.quad)[0]
