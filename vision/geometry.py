"""Quadrilaterals and straightening: the shared geometry of finding and identifying.

A card quad is four image points in order around the card, starting at a corner of a
*short* edge, so that warping it to a portrait face needs no further guessing (0° and
180° are both tried by identification).
"""
from __future__ import annotations

import math

import cv2
import numpy as np


def order_quad(pts: np.ndarray) -> np.ndarray:
    """The 4 points clockwise (in image coordinates), first edge a short edge."""
    p = np.asarray(pts, dtype=np.float32).reshape(4, 2)
    # in plain Python floats: four points, asked for thousands of times a still (a numpy
    # call per step cost 60 us a quad)
    xs, ys = p[:, 0].tolist(), p[:, 1].tolist()
    cx, cy = sum(xs) / 4, sum(ys) / 4
    ang = [math.atan2(y - cy, x - cx) for x, y in zip(xs, ys)]
    k = sorted(range(4), key=ang.__getitem__)       # clockwise on screen (y down)

    def side(i: int, j: int) -> float:
        return math.hypot(xs[k[j]] - xs[k[i]], ys[k[j]] - ys[k[i]])
    if side(0, 1) + side(2, 3) > side(1, 2) + side(3, 0):
        k = k[1:] + k[:1]
    # start at the top-most of the two short-edge starts, for stable output
    if ys[k[2]] + ys[k[3]] < ys[k[0]] + ys[k[1]]:
        k = k[2:] + k[:2]
    return p[k]


def order_quads(pts: np.ndarray) -> np.ndarray:
    """:func:`order_quad` of many quads (R, 4, 2) at once (the finder proposes dozens)."""
    p = np.asarray(pts, dtype=np.float32).reshape(-1, 4, 2)
    c = p.mean(axis=1, keepdims=True)
    ang = np.arctan2(p[..., 1] - c[..., 1], p[..., 0] - c[..., 0])
    p = np.take_along_axis(p, np.argsort(ang, axis=1)[..., None], axis=1)
    side = np.linalg.norm(p - np.roll(p, 1, axis=1), axis=2)       # side k: p[k-1] to p[k]
    p = np.where((side[:, 1] + side[:, 3] > side[:, 2] + side[:, 0])[:, None, None], np.roll(p, -1, axis=1), p)
    alt = np.roll(p, -2, axis=1)
    return np.where((alt[:, 0, 1] + alt[:, 1, 1] < p[:, 0, 1] + p[:, 1, 1])[:, None, None], alt, p)


def quad_sides(q: np.ndarray) -> tuple[float, float]:
    """Mean (short, long) side length of an ordered quad."""
    q = np.asarray(q)
    d = q[[1, 2, 3, 0]] - q          # the four sides at once (a still asks this ~1,000 times)
    side = np.sqrt((d * d).sum(axis=1))
    return float((side[0] + side[2]) / 2), float((side[1] + side[3]) / 2)


def grown(q: np.ndarray, by: float) -> np.ndarray:
    """An ordered quad with each side moved out by ``by`` pixels of its own plane (a card's
    paper margin round its printed frame line, seen in perspective)."""
    q = np.asarray(q, np.float32)
    w, h = float(np.linalg.norm(q[1] - q[0])), float(np.linalg.norm(q[3] - q[0]))
    m = cv2.getPerspectiveTransform(np.float32([[0, 0], [w, 0], [w, h], [0, h]]), q)
    out = np.float32([[-by, -by], [w + by, -by], [w + by, h + by], [-by, h + by]])
    return cv2.perspectiveTransform(out.reshape(-1, 1, 2), m).reshape(4, 2)


def face_corners(w: int, h: int) -> np.ndarray:
    """Corners of a portrait face image, in the order of :func:`order_quad`."""
    return np.array([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]], dtype=np.float32)


def warp_face(image: np.ndarray, quad: np.ndarray, size: tuple[int, int],
              interpolation: int = cv2.INTER_AREA) -> np.ndarray:
    """The card inside ``quad`` straightened to a portrait ``size`` = (w, h) image."""
    w, h = size
    m = cv2.getPerspectiveTransform(np.asarray(quad, np.float32), face_corners(w, h))
    return cv2.warpPerspective(image, m, (w, h), flags=interpolation,
                               borderMode=cv2.BORDER_REPLICATE)


def rect_quad(centre: tuple[float, float], w: float, h: float, angle_deg: float) -> np.ndarray:
    """Ordered quad of a w×h (portrait) rectangle at ``centre`` rotated by ``angle_deg``."""
    a = np.deg2rad(angle_deg)
    ux = np.array([np.cos(a), np.sin(a)]) * w / 2
    uy = np.array([-np.sin(a), np.cos(a)]) * h / 2
    c = np.asarray(centre, dtype=np.float64)
    pts = np.array([c - ux - uy, c + ux - uy, c + ux + uy, c - ux + uy])
    return order_quad(pts)


def inside(quad: np.ndarray, pt: np.ndarray) -> bool:
    """Whether point ``pt`` lies inside (or on) ``quad`` (or any polygon, e.g. a contour)."""
    return cv2.pointPolygonTest(np.asarray(quad, np.float32).reshape(-1, 1, 2),
                                (float(pt[0]), float(pt[1])), False) >= 0


def polygon_area(q: np.ndarray) -> float:
    """Area of a simple polygon."""
    return float(abs(cv2.contourArea(np.asarray(q, np.float32).reshape(-1, 1, 2))))


def warp_to(image: np.ndarray, homography: np.ndarray, size: tuple[int, int] | None = None) -> np.ndarray:
    """``image`` through the 3x3 ``homography`` (output ``size`` (w, h), default the image's own),
    edges replicated: a knocked camera's frame brought back to the calibrated view."""
    return cv2.warpPerspective(image, homography, size or (image.shape[1], image.shape[0]),
                               flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def square_meetings(segs: np.ndarray, max_cos: float
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Where the lines of segments (x1, y1, x2, y2) about square to each other meet: the
    candidate corners of a card (vision.piles, vision.outline). Returns the pairs (i, j) whose
    directions' |cos| is under ``max_cos``, the segments' unit directions ``u`` and lengths
    ``L``, the meeting points ``P`` and how far along each segment from its start they lie
    (``ti``, ``tj``; negative before the start, beyond ``L`` past the end)."""
    p1 = segs[:, :2]
    v = segs[:, 2:] - p1
    L = np.linalg.norm(v, axis=1)
    u = v / L[:, None]
    i, j = np.triu_indices(len(segs), 1)
    sq = np.abs((u[i] * u[j]).sum(1)) < max_cos
    i, j = i[sq], j[sq]
    cross = u[i, 0] * u[j, 1] - u[i, 1] * u[j, 0]
    d = p1[j] - p1[i]
    ti = (d[:, 0] * u[j, 1] - d[:, 1] * u[j, 0]) / cross
    P = p1[i] + ti[:, None] * u[i]
    tj = ((P - p1[j]) * u[j]).sum(1)
    return i, j, u, L, P, ti, tj
