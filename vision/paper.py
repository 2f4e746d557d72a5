"""Whether a straightened face looks like a printed card: a paper rim around ink.

Every deck we know prints its faces inside a paper margin, with ink (pips, pictures) on
paper inside it; a table, a phone or a blank sheet lacks one or the other. Enrolment asks
it of every photo's face (a suspect photo), recognition of a card-shaped region no enrolled
face matches (a card of another deck, reported unnamed).
"""
from __future__ import annotations

import cv2
import numpy as np

PAPER_PERCENTILE = 90   # percentile of a face's lightness that is its paper (ink, shadow and pictures lie below)
RIM = 0.04              # share of the face's short side checked for card paper at its edge
MIN_RIM_PAPER = 0.5     # a face whose rim is less paper than this probably shows table
# a point of a face's edge is paper when this share of the rim's depth behind it is: Triestine
# cards print a frame line 1-3 px inside the edge (of a 6 px rim at the profile's face size),
# which halves the rim's paper pixels. Img201's batons 3 on a checked cloth: 0.47 of the rim's
# pixels are paper (under MIN_RIM_PAPER), 0.85 of its points by this rule (/tmp probe)
RIM_DEPTH_PAPER = 1 / 3
# ``framed`` faces judge paper against the white of their own part of the face: the face is cut into
# WHITE_TILES x WHITE_TILES tiles, each tile's PAPER_PERCENTILE is its white, interpolated between the
# tiles' centres. A card half in shadow (a fold of a quilt) has its shaded rim 70-90 below its lit
# paper. Triestine photos and Trentine frames with the Triestine profile (bench/vision_realdata.py;
# /tmp probe; Triestine reported of 45 / on no card, Trentine reported once tune, report / merged with
# a neighbour), with ALONE_SIDES 2: the whole face's white (1 tile) 26 / 1, 13 13 / 2 0; 2 tiles 27 / 1
# (the cups jack of Img203, its top half shaded), the same Trentine lines; 3 and 4 tiles 27 / 2 (a cell
# of Img201's checked cloth), 14 13 / 2 0. The brightest within 0.3 of the short side (a dilation)
# instead: 27 / 1, but 10 10 / 2 0 (a back's thin light frame line is its white, its grey rim no paper)
WHITE_TILES = 2
MIN_INK = 0.02          # share of the inside (within INK_MARGIN) that is ink: a blank sheet or panel has less
INK_MARGIN = 0.12       # share of the short side left out around the inside (the paper margin)
# least lightness of a face's paper margin (between RIM and INK_MARGIN) as a share of its rim's:
# a card's margin is paper as light as its rim; a cell of a checked cloth has a light line for a
# "rim" and cloth just inside it. 622 detections on every deepPoker photo and the seven bidly
# deals (bench/vision_realdata.py profiles; /tmp probe) lie at 0.82-1.1, 1 % under 0.90 (the
# lowest: shadowed cards of a fanned hand, bidly deal 7); six unnamed Triestine cards on light
# wood, towels and paper at 0.96-1.1; the one checked-cloth cell a finder blob and an outline
# both proposed (Triestine Img200) at 0.67
MARGIN_SHADE = 0.8
# least lightness of *each* side's paper margin as a share of the rim's: a card's margin is paper
# all round; a card-shaped quad half on a sheet of paper and half on the table has one side's
# margin all table, and a quad inside a court's picture has picture there. Measured on the card
# shapes reported unnamed as a design not enrolled (bench/vision_realdata.py profiles, /tmp
# probe): the 25 deepPoker black-* and five Triestine cards at 0.70-1.03 (named cards 0.67-1.03);
# two pieces of a court's picture (black-diamonds_king-1.jpg) at 0.43 and 0.57, blank sheets on
# rendered wood and plain tables at 0.30-0.46 (tests/vision/test_recognise.py)
MARGIN_SIDE_SHADE = 0.6
# least colour distance (CIELAB, OpenCV's 8-bit scale) between a face's rim paper and its strongest
# ink inside (the 99th percentile of the inside's distances): print is dark or saturated on paper,
# the pale lines and soft roses of a cloth are not. Measured on every card shape the recogniser
# reported unnamed as a design not enrolled (bench/vision_realdata.py profiles; /tmp probe):
# 22 deepPoker black-* cards at 93-184 (the lowest a lone red ace), five Triestine cards at
# 155-188; the Triestine phantoms at 26-68 (four checked or flowered cloth patches and a card in
# a wallet). Enrolled cards washed out by glare reach 43 (deepPoker table-diamonds_3-4.jpg):
# those are named by their faces, not by this test.
INK_CONTRAST = 80.0


def face_looks(face: np.ndarray, rim_paper: float = MIN_RIM_PAPER, framed: bool = False) -> bool:
    """A paper rim (at least ``rim_paper`` of it), and ink on paper inside it.

    ``framed``: a point of the rim counts as paper when RIM_DEPTH_PAPER of the rim's depth
    behind it is (a card printed with a frame line just inside its edge), and paper is judged
    against the white of its part of the face (:func:`_local_white`: a card half in shadow);
    else the share of the rim's pixels that are paper counts, against the whole face's white.
    Enrolment and the finder-based tests of unnamed cards judge by pixels, as they were
    measured (by points, enrolment flagged other deepPoker photos and left out other corner
    indices); recognition's outline-alone cards ask ``framed``."""
    h, w = face.shape[:2]
    lab = cv2.cvtColor(face, cv2.COLOR_BGR2LAB).astype(np.float32)
    white = _local_white(lab[..., 0]) if framed else np.percentile(lab[..., 0], PAPER_PERCENTILE)
    light = lab[..., 0] > white - 30
    chroma = np.hypot(lab[..., 1] - 128, lab[..., 2] - 128)
    paper = light & (chroma < 25)
    ink = ~light | (chroma > 40)
    rim, b = _rim(h, w)
    inner = np.zeros((h, w), bool)
    m = max(2, round(INK_MARGIN * min(h, w)))
    inner[m:h - m, m:w - m] = True
    ink_inside = float(ink[inner].mean())
    rim_share = float((_rim_depths(paper, b) >= RIM_DEPTH_PAPER).mean()) if framed else float(paper[rim].mean())
    return bool(rim_share >= rim_paper and ink_inside >= MIN_INK)


def _local_white(lightness: np.ndarray) -> np.ndarray:
    """The paper's white at each pixel: each of WHITE_TILES x WHITE_TILES tiles' own
    PAPER_PERCENTILE, interpolated between their centres (a shadow across a card lowers it
    where it falls; a thin light line does not raise it)."""
    h, w = lightness.shape
    n = WHITE_TILES
    tiles = np.float32([[np.percentile(lightness[i * h // n:(i + 1) * h // n, j * w // n:(j + 1) * w // n],
                                       PAPER_PERCENTILE) for j in range(n)] for i in range(n)])
    return cv2.resize(tiles, (w, h), interpolation=cv2.INTER_LINEAR)


def _rim_depths(mask: np.ndarray, b: int) -> np.ndarray:
    """For each point along the four sides, the share of the rim's depth ``b`` behind it
    that ``mask`` holds."""
    h, w = mask.shape
    return np.concatenate([mask[:b].mean(0), mask[h - b:].mean(0), mask[:, :b].mean(1), mask[:, w - b:].mean(1)])


def margin_like_rim(face: np.ndarray) -> bool:
    """Whether the paper margin just inside the face's rim is as light as the rim
    (MARGIN_SHADE), and on every side nearly so (MARGIN_SIDE_SHADE): a printed card's
    margin is paper all round; a light line framing cloth, or a quad half on a sheet of
    paper, has cloth or table there."""
    h, w = face.shape[:2]
    light = cv2.cvtColor(face, cv2.COLOR_BGR2LAB)[..., 0]
    rim, b = _rim(h, w)
    m = max(b + 1, round(INK_MARGIN * min(h, w)))
    band = np.zeros((h, w), bool)
    band[b:h - b, b:w - b] = True
    band[m:h - m, m:w - m] = False
    paper = max(1.0, float(np.median(light[rim])))
    sides = (light[b:m, b:w - b], light[h - m:h - b, b:w - b], light[b:h - b, b:m], light[b:h - b, w - m:w - b])
    return float(np.median(light[band])) >= MARGIN_SHADE * paper and \
        min(float(np.median(s)) for s in sides) >= MARGIN_SIDE_SHADE * paper


def ink_contrast(face: np.ndarray) -> float:
    """How far the strongest ink inside the face's paper margin lies from its rim paper in
    colour (CIELAB distance; see INK_CONTRAST)."""
    h, w = face.shape[:2]
    lab = cv2.cvtColor(face, cv2.COLOR_BGR2LAB).astype(np.float32)
    rim, _ = _rim(h, w)
    m = max(2, round(INK_MARGIN * min(h, w)))
    inside = lab[m:h - m, m:w - m].reshape(-1, 3)
    return float(np.percentile(np.linalg.norm(inside - np.median(lab[rim], axis=0), axis=1), 99))


def printed(face: np.ndarray) -> bool:
    """Whether a face that looks like a card (:func:`face_looks`) bears print: ink as strong
    as print (INK_CONTRAST) inside a paper margin on every side (:func:`margin_like_rim`).
    Asked of card shapes that match no enrolled face before they are reported unnamed."""
    return ink_contrast(face) >= INK_CONTRAST and margin_like_rim(face)


def _rim(h: int, w: int) -> tuple[np.ndarray, int]:
    """The mask of a face's rim (RIM of its short side, at least 2 px) and its width."""
    b = max(2, round(RIM * min(h, w)))
    rim = np.ones((h, w), bool)
    rim[b:h - b, b:w - b] = False
    return rim, b


def paper_level(face: np.ndarray) -> float:
    """The lightness of a face's paper (CIELAB L, 0-255): cards lit alike have paper alike."""
    return float(np.percentile(cv2.cvtColor(face, cv2.COLOR_BGR2LAB)[..., 0], PAPER_PERCENTILE))
