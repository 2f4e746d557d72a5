"""Telling look-alikes apart: compare two contenders only where their faces differ.

Whole-face correlation cannot separate the 9 and 10 of clubs or the 7 of clubs and of
spades: they differ in a few percent of the pixels (a pip, the corner index, a suit sign).
Once a card is straightened (quad or homography), each pair of contenders is compared on
the pixels where their two enrolled faces differ most; the face is named only if it beats
every contender there by a clear margin ("never guess").
"""
from __future__ import annotations

import cv2
import numpy as np

DIFF_SHARE = 0.15      # the most different share of the face's pixels a duel is fought on
BLUR = 1.5             # px of blur before comparing (forgives a pixel of misregistration)
BORDER = 0.05          # share of each side ignored (rounded corners, the quad's jitter)
TREND = 12.0           # px sigma of the low-pass removed as lighting


def prepare(face_bgr: np.ndarray) -> np.ndarray:
    """Grey, lighting-flattened, blurred, zero-mean unit-variance face (float32)."""
    g = face_bgr if face_bgr.ndim == 2 else cv2.cvtColor(face_bgr, cv2.COLOR_BGR2GRAY)
    g = g.astype(np.float32)
    g = g - cv2.GaussianBlur(g, (0, 0), TREND)
    g = cv2.GaussianBlur(g, (0, 0), BLUR)
    h, w = g.shape
    by, bx = max(1, int(h * BORDER)), max(1, int(w * BORDER))
    inner = g[by:h - by, bx:w - bx]
    out = np.zeros_like(g)
    out[by:h - by, bx:w - bx] = (inner - inner.mean()) / (inner.std() + 1e-3)
    return out


def duel(face: np.ndarray, a: np.ndarray, b: np.ndarray) -> float:
    """How much better prepared ``face`` matches prepared ``a`` than ``b`` (−2..2) on the
    pixels where ``a`` and ``b`` differ most: > 0 favours ``a``."""
    d = np.abs(a - b)
    flat = d.ravel()
    k = int(flat.size * (1.0 - DIFF_SHARE))
    cut = np.partition(flat, k)[k]        # the (1 - DIFF_SHARE) quantile, without a sort
    m = d >= max(cut, 1e-6)
    if m.sum() < 16:
        return 0.0
    f, x, y = face[m], a[m], b[m]
    f = f - f.mean()
    return float(_corr(f, x - x.mean()) - _corr(f, y - y.mean()))


def _corr(u: np.ndarray, v: np.ndarray) -> float:
    return float(u @ v / (np.sqrt((u @ u) * (v @ v)) + 1e-6))
