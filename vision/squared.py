"""The table seen square: the homography that undoes a slanted camera, from one card it sees.

A phone photo taken across the table shows every card as a trapezoid, foreshortened along
the line of sight. The stages that work at the deck's shape (the finder's rectangles and
piles, the outlines) then find a lone card only as a slanted paper blob
(vision.finder.slanted_quads), and a card half under another not at all: its visible part
has no four corners of its own (bench/vision_renders.py "oblique", a /tmp probe: 17 of 20
partly covered Bresciane cards of the deck's shape missed, 13 of 13 seen slanted). A card
named at its slanted quad tells how the table is seen: the homography taking that quad to
a rectangle of the deck's shape takes the whole table plane to a view from straight above,
where the other cards are the deck's rectangles again (vision.recognise reads that view).
"""
from __future__ import annotations

import math

import cv2
import numpy as np

SQUARED_PIXELS = 2.0   # the squared view has at most this many times the still's pixels (a cost
#   bound: its far side is magnified; a larger view is scaled down as a whole)


def slant(quad: np.ndarray, aspect: float) -> float:
    """How far a card's quad is from the deck's rectangle seen square: the largest |log| of
    its side ratio over the deck's and of each pair of opposite sides (0 for a card seen from
    straight above; a trapezoid has the deck's side ratio and unequal opposite sides)."""
    q = np.asarray(quad, np.float64)
    s = np.linalg.norm(q - np.roll(q, -1, axis=0), axis=1)      # top, right, bottom, left
    s = np.maximum(s, 1.0)
    return float(max(abs(math.log((s[1] + s[3]) / (s[0] + s[2]) / aspect)),
                     abs(math.log(s[0] / s[2])), abs(math.log(s[1] / s[3]))))


def squaring_view(quad: np.ndarray, aspect: float, size: tuple[int, int]
                  ) -> tuple[np.ndarray, tuple[int, int]] | None:
    """(H, (w, h)): the homography taking a still of ``size`` (w, h) to the table seen from
    above, where the card at ``quad`` (ordered as its face is read: top side first) is a
    rectangle of the deck's shape at its own place and width, and the size of that view.
    None when the table's horizon lies in the picture (a plane seen so slanted has no square
    view of all of it)."""
    q = np.asarray(quad, np.float32)
    s = np.linalg.norm(q - np.roll(q, -1, axis=0), axis=1)
    w = float(s[0] + s[2]) / 2
    half = np.float32([w, w * aspect]) / 2
    rect = q.mean(axis=0) + half * np.float32([[-1, -1], [1, -1], [1, 1], [-1, 1]])
    h_mat = cv2.getPerspectiveTransform(q, np.float32(rect)).astype(np.float64)
    sw, sh = size
    corners = np.float64([[0, 0, 1], [sw, 0, 1], [sw, sh, 1], [0, sh, 1]])
    mapped = corners @ h_mat.T
    if (mapped[:, 2] <= 1e-9).any():
        return None
    pts = mapped[:, :2] / mapped[:, 2:]
    (x0, y0), (x1, y1) = pts.min(axis=0), pts.max(axis=0)
    scale = min(1.0, math.sqrt(SQUARED_PIXELS * sw * sh / max((x1 - x0) * (y1 - y0), 1.0)))
    fit = np.float64([[scale, 0, -scale * x0], [0, scale, -scale * y0], [0, 0, 1]])
    return fit @ h_mat, (max(1, math.ceil(scale * (x1 - x0))), max(1, math.ceil(scale * (y1 - y0))))
