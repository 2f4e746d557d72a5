"""Telling look-alikes apart: compare two contenders only where their faces differ.

Whole-face correlation cannot separate the 9 and 10 of clubs or the 7 of clubs and of
spades: they differ in a few percent of the pixels (a pip, the corner index, a suit sign).
Once a card is straightened (quad or homography), each pair of contenders is compared on
the pixels where their two enrolled faces differ most; the face is named only if it beats
every contender there by a clear margin ("never guess").
"""
from __future__ import annotations

import weakref
from collections import OrderedDict

import cv2
import numpy as np

DIFF_SHARE = 0.15      # the most different share of the face's pixels a duel is fought on
BLUR = 1.5             # px of blur before comparing (forgives a pixel of misregistration)
BORDER = 0.05          # share of each side ignored (rounded corners, the quad's jitter)
MIN_SEEN = 0.25        # share of a pair's differing pixels that must be seen for a duel on part of a face
TREND = 12.0           # px sigma of the low-pass removed as lighting
# The trend is that blur taken at 1/TREND_STEP of the size and scaled back: at full size a blur this
# wide cost 0.7 of prepare()'s 1.05 ms on a 160x250 face, this way prepare() takes 0.3 ms. On 60
# drawn faces of three decks the two trends differ by 0.6 % (at most 0.8 %) of the face's contrast
# inside its border; at 1/4 size 1.5 % (2.2 %) for no further saving
# (tests/vision/test_keypoints.py: the duel lighting trend)
TREND_STEP = 2


def prepare(face_bgr: np.ndarray) -> np.ndarray:
    """Grey, lighting-flattened, blurred, zero-mean unit-variance face (float32)."""
    g = face_bgr if face_bgr.ndim == 2 else cv2.cvtColor(face_bgr, cv2.COLOR_BGR2GRAY)
    g = g.astype(np.float32)
    g = g - _trend(g)
    g = cv2.GaussianBlur(g, (0, 0), BLUR)
    h, w = g.shape
    by, bx = max(1, int(h * BORDER)), max(1, int(w * BORDER))
    inner = g[by:h - by, bx:w - bx]
    out = np.zeros_like(g)
    out[by:h - by, bx:w - bx] = (inner - inner.mean()) / (inner.std() + 1e-3)
    return out


def _trend(g: np.ndarray) -> np.ndarray:
    """The slow change of a grey face (its lighting): a Gaussian of TREND px, at 1/TREND_STEP size."""
    h, w = g.shape
    small = cv2.resize(g, (max(1, w // TREND_STEP), max(1, h // TREND_STEP)), interpolation=cv2.INTER_AREA)
    small = cv2.GaussianBlur(small, (0, 0), TREND / TREND_STEP)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)


def duel(face: np.ndarray, a: np.ndarray, b: np.ndarray, visible: np.ndarray | None = None) -> float:
    """How much better prepared ``face`` matches prepared ``a`` than ``b`` (−2..2) on the
    pixels where ``a`` and ``b`` differ most: > 0 favours ``a``.

    What depends on ``a`` and ``b`` alone (where they differ, their own statistics there)
    is computed once per pair and kept (see :class:`_Pairs`): a card is fought against
    the same rivals again and again, from either side (``duel(f, b, a)`` is exactly
    ``-duel(f, a, b)``). ``visible`` (bool, the face's shape): fought only on the pixels
    of the card that are seen (a card half under another); 0 (no evidence either way)
    when fewer than MIN_SEEN of those pixels are."""
    pair, sign = _PAIRS.get(a, b)
    if pair is None:
        return 0.0
    idx, xa, xb, na, nb = pair
    if visible is not None:
        seen = visible.reshape(-1)[idx]
        if seen.sum() < max(16, MIN_SEEN * len(idx)):
            return 0.0
        idx, xa, xb = idx[seen], xa[seen], xb[seen]
        xa, xb = xa - xa.mean(), xb - xb.mean()
        na, nb = xa @ xa, xb @ xb
    f = face.reshape(-1)[idx]
    f = f - f.mean()
    ff = f @ f
    return sign * float(_cos(f @ xa, ff, na) - _cos(f @ xb, ff, nb))


def _cos(uv: float, uu: float, vv: float) -> float:
    return float(uv / (np.sqrt(uu * vv) + 1e-6))


_Pair = tuple  # (flat pixel indices, a there zero-mean, b there zero-mean, |a'|², |b'|²)


class _Pairs:
    """The pixels each pair of prepared faces is fought on, most recently used first.

    Keyed by the arrays' identities; a weak reference to each checks that the key still
    names the same arrays (an id is reused once its array is gone). At most MAX_PAIRS
    entries (~ 6 pairs per identification; each entry is DIFF_SHARE of a face as indices).
    """

    MAX_PAIRS = 512

    def __init__(self) -> None:
        self._d: OrderedDict = OrderedDict()

    def get(self, a: np.ndarray, b: np.ndarray) -> tuple[_Pair | None, float]:
        for key, sign, first, second in (((id(a), id(b)), 1.0, a, b), ((id(b), id(a)), -1.0, b, a)):
            hit = self._d.get(key)
            if hit is not None and hit[0]() is first and hit[1]() is second:
                self._d.move_to_end(key)
                return hit[2], sign
        pair = _pair(a, b)
        try:
            refs = (weakref.ref(a), weakref.ref(b))
        except TypeError:        # not weakly referable: computed, not kept
            return pair, 1.0
        self._d[(id(a), id(b))] = (*refs, pair)
        if len(self._d) > self.MAX_PAIRS:
            self._d.popitem(last=False)
        return pair, 1.0


def _pair(a: np.ndarray, b: np.ndarray) -> _Pair | None:
    """Where ``a`` and ``b`` differ most, and each of them there (None: too few pixels)."""
    d = np.abs(a - b)
    flat = d.ravel()
    cut = _kth(flat, int(flat.size * (1.0 - DIFF_SHARE)))   # the (1 - DIFF_SHARE) quantile
    idx = np.flatnonzero(flat >= max(cut, 1e-6))
    if idx.size < 16:
        return None
    x, y = a.reshape(-1)[idx], b.reshape(-1)[idx]
    x, y = x - x.mean(), y - y.mean()
    return idx.astype(np.int32), x, y, x @ x, y @ y


def _kth(flat: np.ndarray, k: int) -> float:
    """``np.partition(flat, k)[k]``, exactly, partitioning only the values above a lower
    quantile of every 8th value: a new pair (each identification meets a few) costs ~0.1 ms
    instead of ~0.4 ms of partitioning a whole face."""
    sample = flat[::8]
    j = int(sample.size * (k / flat.size) * 0.9)
    lo = np.partition(sample, j)[j]
    above = flat[flat >= lo]
    below = flat.size - above.size
    if below > k:                        # the sample misled (never seen on faces): the whole face
        return float(np.partition(flat, k)[k])
    return float(np.partition(above, k - below)[k - below])


_PAIRS = _Pairs()
