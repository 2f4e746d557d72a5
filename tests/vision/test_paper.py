"""Whether a straightened region looks like a printed card (vision.paper)."""
from __future__ import annotations

import numpy as np
import pytest

from controller.rules.cards import decks
from vision.paper import face_looks, margin_like_rim
from vision.synthetic import synthetic_profile


@pytest.mark.parametrize("deck_id", sorted(decks()))
def test_every_face_has_a_paper_margin_as_light_as_its_rim(deck_id):
    faces = synthetic_profile(deck_id).faces
    assert [c for c, f in faces.items() if c != "back" and not margin_like_rim(f[0])] == []


def test_a_light_line_framing_cloth_is_a_rim_without_a_paper_margin():
    """A cell of a checked cloth, framed by its light lines: the rim test sees a paper rim
    around ink (face_looks), the margin just inside the line is cloth."""
    h, w = 280, 160
    cell = np.full((h, w, 3), (90, 40, 20), np.uint8)         # dark blue cloth
    line = round(0.05 * w)
    cell[:line], cell[-line:], cell[:, :line], cell[:, -line:] = 235, 235, 235, 235
    assert face_looks(cell)
    assert not margin_like_rim(cell)
    card = cell.copy()
    m = round(0.15 * w)
    card[line:m], card[h - m:h - line], card[:, line:m], card[:, w - m:w - line] = 235, 235, 235, 235
    assert margin_like_rim(card)     # the same picture inside a paper margin: a card
