"""Whether a straightened region looks like a printed card (vision.paper)."""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from controller.rules.cards import decks
from vision.paper import INK_CONTRAST, face_looks, ink_contrast, margin_like_rim
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


@pytest.mark.parametrize("deck_id", sorted(decks()))
def test_every_face_has_ink_as_strong_as_print(deck_id):
    faces = synthetic_profile(deck_id).faces
    assert [c for c, f in faces.items() if c != "back" and ink_contrast(f[0]) < INK_CONTRAST] == []


def _pale_checks(line: tuple[int, int, int]) -> np.ndarray:
    """A card-sized patch of white cloth checked with lines of colour ``line`` inside a
    white rim, as a light checked tablecloth is seen by the camera (softly)."""
    h, w = 280, 160
    patch = np.full((h, w, 3), 236, np.float32)
    yy, xx = np.mgrid[0:h, 0:w]
    inner = (xx > 12) & (xx < w - 12) & (yy > 12) & (yy < h - 12)
    patch[inner & (((xx - 14) % 24 < 4) | ((yy - 14) % 24 < 4))] = line
    return cv2.GaussianBlur(patch, (0, 0), 1.2).astype(np.uint8)


def test_the_pale_checks_of_a_cloth_are_not_print():
    """A white cloth checked in pale blue has a paper-like rim around "ink" (face_looks), but
    its lines are far paler than any print; the same checks drawn in dark ink are print."""
    cloth = _pale_checks((205, 175, 150))
    assert face_looks(cloth)
    assert ink_contrast(cloth) < INK_CONTRAST
    assert ink_contrast(_pale_checks((120, 40, 20))) >= INK_CONTRAST


def test_a_frame_line_just_inside_the_edge_is_paper_rim_when_framed():
    """A card printed with a thin frame line just inside its edge (the Triestine pattern) has
    under half of its rim's pixels paper: by pixels it does not look like a card; by points
    along the edge (``framed``: a point is paper when a third of the rim's depth behind it
    is) it does. A face with table at its rim is no card either way."""
    h, w = 280, 160
    face = np.full((h, w, 3), 236, np.uint8)
    cv2.rectangle(face, (40, 60), (w - 40, h - 60), (40, 110, 200), -1)     # the picture: ink
    b = round(0.04 * w)                                                     # the rim's depth (vision.paper.RIM)
    line = np.zeros((h, w), bool)                                           # 3 px of the rim's 6, 1 px in
    line[1:h - 1, 1:w - 1] = True
    line[4:h - 4, 4:w - 4] = False
    face[line] = (60, 60, 140)
    assert not face_looks(face)
    assert face_looks(face, framed=True)
    tabled = face.copy()
    tabled[:, :2 * b], tabled[:2 * b] = (40, 60, 90), (40, 60, 90)          # dark table over two sides
    tabled[:, -2 * b:] = (40, 60, 90)
    assert not face_looks(tabled, framed=True)


def test_a_framed_card_half_in_shadow_still_has_a_paper_rim():
    """A card lying across a shadow (Triestine Img203: a quilt's fold shades its top half)
    has a rim far darker at one end than its lit paper: judged against the whole face's white,
    most of its rim is not paper; judged against the white of each part of the face
    (``framed``, paper.WHITE_TILES) it is, and dark table at its rim is still no paper."""
    h, w = 280, 160
    face = np.full((h, w, 3), 236, np.float32)
    cv2.rectangle(face, (40, 60), (w - 40, h - 60), (40, 110, 200), -1)     # the picture: ink
    shade = np.clip(np.linspace(0.5, 1.15, h), None, 1.0)[:, None, None]      # dark at the top
    face = (face * shade).astype(np.uint8)
    assert face_looks(face, framed=True)
    tabled = face.copy()
    b = round(0.04 * w)
    tabled[:, :2 * b], tabled[:, -2 * b:] = (40, 60, 90), (40, 60, 90)      # dark table at both long sides
    assert not face_looks(tabled, framed=True)
