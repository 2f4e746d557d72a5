"""Aligning a found card with an enrolled face: a better quad than the finder's.

The finder's corners can be off by several per cent of the card (a lined cloth, an inner
frame line taken for the edge, a corner guessed under another card), and a face compared
at the wrong place can look like another card (a 5 seen shifted reads as a 4). So the
face is cut out with a margin around the found quad and the enrolled face is fitted to it
by an affine warp (Gauss-Newton on grey levels, coarse to fine, gain and offset
normalised away, occluders down-weighted), which gives the quad where the face really
lies. Nothing here knows what is printed on the face.
"""
from __future__ import annotations

import functools
import math

import cv2
import numpy as np

from vision.geometry import face_corners, quad_sides

SIZE = (32, 48)          # (w, h) of the face as aligned (small: the warp is smooth)
MARGIN = 0.25            # fraction of the face added on every side of the crop
MAX_SHIFT = 0.30         # of the short side: a larger correction is not trusted
MIN_SCALE = 0.8          # the found card is at most this much too big (or small)
MAX_STRETCH = 1.2        # a card keeps its shape: so much anisotropy (perspective, a bad side) at most
_ITERS = (8, 5)          # Gauss-Newton steps at half and at full SIZE
_ROBUST = 1.0            # residual (in standard deviations) where occluders start to count less


def template(face_grey: np.ndarray) -> np.ndarray:
    """An enrolled face (grey, any size) as :func:`refine` wants it."""
    g = face_grey.astype(np.float32)
    h, w = g.shape
    # corner pixels onto corner pixels, as a found quad is straightened (geometry.warp_face)
    sx, sy = (SIZE[0] - 1) / (w - 1), (SIZE[1] - 1) / (h - 1)
    g = cv2.GaussianBlur(g, (0, 0), 0.5 / sx)
    t = cv2.warpAffine(g, np.float32([[sx, 0, 0], [0, sy, 0]]), SIZE, flags=cv2.INTER_AREA,
                       borderMode=cv2.BORDER_REPLICATE)
    return cv2.GaussianBlur(t, (0, 0), 0.8)


def margins() -> tuple[int, int]:
    """Pixels of margin (x, y) on each side of the face in the crop."""
    return round(MARGIN * SIZE[0]), round(MARGIN * SIZE[1])


def outer_quad(quad: np.ndarray) -> np.ndarray:
    """The quad grown by :data:`MARGIN` in the face's own (perspective) coordinates."""
    w, h = SIZE
    mx, my = margins()
    hf = cv2.getPerspectiveTransform(face_corners(w, h), np.asarray(quad, np.float32))
    pts = np.float32([[-mx, -my], [w - 1 + mx, -my], [w - 1 + mx, h - 1 + my], [-mx, h - 1 + my]])
    return cv2.perspectiveTransform(pts.reshape(-1, 1, 2), hf).reshape(4, 2)


def refine(tmpl: np.ndarray, crop_grey: np.ndarray) -> np.ndarray | None:
    """Affine warp (2x3, template pixels -> crop pixels) fitting ``tmpl`` into ``crop_grey``.

    ``crop_grey`` is the face with margins (see :func:`outer_quad`), size SIZE + 2 margins.
    None when the fit fails or wanders too far to be believed.
    """
    mx, my = margins()
    warp = np.float64([[1, 0, mx], [0, 1, my], [0, 0, 1]])
    crop = crop_grey.astype(np.float32)
    half = np.diag([0.5, 0.5, 1.0])
    small_t = cv2.resize(tmpl, (SIZE[0] // 2, SIZE[1] // 2), interpolation=cv2.INTER_AREA)
    small_c = cv2.resize(crop, (crop.shape[1] // 2, crop.shape[0] // 2), interpolation=cv2.INTER_AREA)
    w1 = _gauss_newton(small_t, small_c, half @ warp @ np.linalg.inv(half), _ITERS[0], similar=True)
    if w1 is None:
        return None
    warp = _gauss_newton(tmpl, crop, np.linalg.inv(half) @ w1 @ half, _ITERS[1], similar=False)
    if warp is None or not _plausible(warp):
        return None
    return warp[:2]


def _plausible(warp: np.ndarray) -> bool:
    a = warp[:2, :2]
    sv = np.linalg.svd(a, compute_uv=False)
    if sv.min() < MIN_SCALE or sv.max() > 1 / MIN_SCALE or sv.max() > MAX_STRETCH * sv.min():
        return False
    if np.linalg.det(a) <= 0:
        return False
    mx, my = margins()
    w, h = SIZE
    corners = np.float64([[0, 0, 1], [w - 1, 0, 1], [w - 1, h - 1, 1], [0, h - 1, 1]])
    moved = corners @ warp[:2].T - (corners[:, :2] + [mx, my])
    return float(np.abs(moved).max()) <= MAX_SHIFT * w


def _gauss_newton(t: np.ndarray, img: np.ndarray, warp: np.ndarray, iters: int,
                  similar: bool) -> np.ndarray | None:
    """Forward-compositional Gauss-Newton on normalised grey levels (an ECC-like fit).

    ``similar``: rotation, scale and shift only (a card keeps its shape), else affine.
    """
    h, w = t.shape
    xs, ys = _grid(h, w)
    tn = _standardise(t.reshape(-1), np.ones(t.size, np.float32))
    weight = np.ones(t.size, np.float32)
    n = 4 if similar else 6
    damping = _DAMPING[n]
    jac = np.empty((n, t.size), np.float32)      # rows: d(residual)/d(parameter), per pixel
    for it in range(iters):
        iw = cv2.warpAffine(img, warp[:2].astype(np.float32), (w, h),
                            flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP, borderMode=cv2.BORDER_REPLICATE)
        gx = cv2.Sobel(iw, cv2.CV_32F, 1, 0, ksize=3, scale=0.125).reshape(-1)
        gy = cv2.Sobel(iw, cv2.CV_32F, 0, 1, ksize=3, scale=0.125).reshape(-1)
        v = iw.reshape(-1)
        total = float(weight.sum())
        mu = float(v @ weight) / total
        dv = v - mu
        sd = math.sqrt(float((dv * dv) @ weight) / total) + 1e-3
        dv /= sd
        r = np.subtract(tn, dv, out=dv)
        if it > 0:        # occluders and glare: pixels that disagree a lot count less
            np.divide(r, _ROBUST, out=weight)
            np.square(weight, out=weight)
            weight += 1.0
            np.reciprocal(weight, out=weight)
        gx /= sd
        gy /= sd
        # the Jacobian filled in place, row by row: a stacked (pixels, n) copy each step cost
        # a third of a fit (bench/vision_live.py's naming job)
        if similar:
            np.multiply(gx, xs, out=jac[0])
            jac[0] += gy * ys
            np.multiply(gy, xs, out=jac[1])
            jac[1] -= gx * ys
            jac[2], jac[3] = gx, gy
        else:
            np.multiply(gx, xs, out=jac[0])
            np.multiply(gx, ys, out=jac[1])
            jac[2] = gx
            np.multiply(gy, xs, out=jac[3])
            np.multiply(gy, ys, out=jac[4])
            jac[5] = gy
        jw = jac * weight
        jtj = jw @ jac.T
        hess = jtj + damping * (1.0 + jtj.trace() / n)
        d = np.linalg.solve(hess, jw @ r)
        if similar:
            d = np.float64([d[0], -d[1], d[2], d[1], d[0], d[3]])
        step = np.float64([[1 + d[0], d[1], d[2]], [d[3], 1 + d[4], d[5]], [0, 0, 1]])
        warp = warp @ step
        if not np.isfinite(warp).all():
            return None
        if abs(d[2]) + abs(d[5]) < 0.02 and max(abs(d[0]), abs(d[1]), abs(d[3]), abs(d[4])) < 1e-3:
            break
    return warp


# Levenberg-style damping of the normal equations, per parameter count (4 similar, 6 affine)
_DAMPING = {n: 1e-3 * np.eye(n) for n in (4, 6)}


@functools.cache
def _grid(h: int, w: int) -> tuple[np.ndarray, np.ndarray]:
    """Pixel x and y coordinates of an (h, w) template, flattened (two sizes are used)."""
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    xs, ys = xs.reshape(-1), ys.reshape(-1)
    xs.flags.writeable = ys.flags.writeable = False
    return xs, ys


def _standardise(v: np.ndarray, weight: np.ndarray) -> np.ndarray:
    mu = float((v * weight).sum() / weight.sum())
    sd = float(np.sqrt(((v - mu) ** 2 * weight).sum() / weight.sum())) + 1e-3
    return (v - mu) / sd


def aligned_quad(quad: np.ndarray, warp: np.ndarray) -> np.ndarray:
    """Image quad of the template's corners under ``warp`` (crop cut around ``quad``)."""
    w, h = SIZE
    mx, my = margins()
    outer = outer_quad(quad)
    hc = cv2.getPerspectiveTransform(face_corners(w + 2 * mx, h + 2 * my), outer)
    corners = np.float64([[0, 0, 1], [w - 1, 0, 1], [w - 1, h - 1, 1], [0, h - 1, 1]])
    in_crop = (corners @ warp.T).astype(np.float32)
    return cv2.perspectiveTransform(in_crop.reshape(-1, 1, 2), hc).reshape(4, 2)


def shift(q0: np.ndarray, q1: np.ndarray) -> float:
    """Largest corner displacement between two quads, in short sides of ``q0``."""
    short, _ = quad_sides(q0)
    return float(np.linalg.norm(np.asarray(q1) - np.asarray(q0), axis=1).max() / max(short, 1.0))
