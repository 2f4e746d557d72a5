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
MIN_INK = 0.02          # share of the inside (within INK_MARGIN) that is ink: a blank sheet or panel has less
INK_MARGIN = 0.12       # share of the short side left out around the inside (the paper margin)


def face_looks(face: np.ndarray, rim_paper: float = MIN_RIM_PAPER) -> bool:
    """A paper rim (at least ``rim_paper`` of it), and ink on paper inside it."""
    h, w = face.shape[:2]
    lab = cv2.cvtColor(face, cv2.COLOR_BGR2LAB).astype(np.float32)
    light = lab[..., 0] > np.percentile(lab[..., 0], PAPER_PERCENTILE) - 30
    chroma = np.hypot(lab[..., 1] - 128, lab[..., 2] - 128)
    paper = light & (chroma < 25)
    ink = ~light | (chroma > 40)
    b = max(2, round(RIM * min(h, w)))
    rim = np.ones((h, w), bool)
    rim[b:h - b, b:w - b] = False
    inner = np.zeros((h, w), bool)
    m = max(2, round(INK_MARGIN * min(h, w)))
    inner[m:h - m, m:w - m] = True
    ink_inside = float(ink[inner].mean())
    return bool(paper[rim].mean() >= rim_paper and ink_inside >= MIN_INK)


def paper_level(face: np.ndarray) -> float:
    """The lightness of a face's paper (CIELAB L, 0-255): cards lit alike have paper alike."""
    return float(np.percentile(cv2.cvtColor(face, cv2.COLOR_BGR2LAB)[..., 0], PAPER_PERCENTILE))
