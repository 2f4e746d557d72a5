"""Face descriptors and the template bank: identification is one matrix multiply.

A straightened face is shrunk to a small grid (which also forgives blur), each colour
channel has its slow illumination trend removed (uneven light, glare fall-off) and is then
compared by zero-mean normalised correlation, which ignores each channel's gain and
offset (white balance, exposure). Nothing here knows where a deck prints its indices:
the whole face counts, so Italian and tarot faces work like French ones.
"""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

GRID = (32, 48)          # (w, h) of the descriptor grid
_TREND_SIGMA = 9.0       # grid pixels; the low-pass removed as "lighting"
_INNER = 0.06            # fraction of the face border ignored (finder jitter, rounded corners)


def _inner_mask() -> np.ndarray:
    w, h = GRID
    m = np.zeros((h, w), np.float32)
    bx, by = max(1, round(w * _INNER)), max(1, round(h * _INNER))
    m[by:h - by, bx:w - bx] = 1.0
    return m


INNER_MASK = _inner_mask()


def channels(face_bgr: np.ndarray) -> np.ndarray:
    """(3, H*W) float32 band-passed channels of a face of any size."""
    small = cv2.resize(face_bgr, GRID, interpolation=cv2.INTER_AREA).astype(np.float32)
    small = cv2.GaussianBlur(small, (0, 0), 0.7)
    trend = cv2.GaussianBlur(small, (0, 0), _TREND_SIGMA)
    # divide-then-subtract: lighting multiplies, so a ratio removes it; keep contrast
    x = small / (trend + 8.0) - 1.0
    return x.reshape(-1, 3).T.copy()


def rotate180(ch: np.ndarray) -> np.ndarray:
    """Descriptor channels of the same face turned by 180°."""
    return ch[:, ::-1].copy()


def _normalise(x: np.ndarray, m: np.ndarray) -> np.ndarray:
    """Zero-mean, unit-norm over the mask, per channel; (C, D) -> (C, D)."""
    s = m.sum()
    mu = (x * m).sum(axis=-1, keepdims=True) / s
    y = (x - mu) * m
    n = np.sqrt((y * y).sum(axis=-1, keepdims=True)) + 1e-6
    return y / n


@dataclass
class Match:
    """Best and runner-up of one face against the bank."""

    card: str | None
    score: float
    runner_up: float
    orientation: int        # 0 or 180
    index: int


class TemplateBank:
    """All enrolled faces of a profile, both orientations, ready to correlate."""

    def __init__(self, labels: list[str], faces: list[np.ndarray]):
        chans = []
        lab = []
        ori = []
        for card, face in zip(labels, faces):
            c = channels(face)
            for o, cc in ((0, c), (180, rotate180(c))):
                chans.append(cc)
                lab.append(card)
                ori.append(o)
        self.labels = np.array(lab, dtype=object)
        self.orient = np.array(ori)
        self.raw = np.stack(chans).astype(np.float32)            # (N, 3, D)
        m = INNER_MASK.reshape(-1)
        self.full = np.stack([_normalise(c, m) for c in self.raw]).reshape(len(lab), -1)
        self._raw2 = self.raw * self.raw
        self.cards = sorted(set(lab))

    def scores(self, face_ch: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
        """Correlation (−1..1) of one face with every template (N,)."""
        m = INNER_MASK.reshape(-1) if mask is None else (mask.reshape(-1) * INNER_MASK.reshape(-1))
        x = _normalise(face_ch, m)                                 # (3, D)
        if mask is None:
            return (self.full @ x.reshape(-1)) / 3.0
        s = m.sum()
        if s < 30:
            return np.full(len(self.labels), -1.0, np.float32)
        # masked ZNCC of templates: mean and norm over the visible part only
        t_sum = self.raw @ m                                       # (N, 3)
        t_sq = self._raw2 @ m                                      # (N, 3)
        cross = np.einsum("ncd,cd->nc", self.raw, x)               # x is zero-mean on mask
        var = np.maximum(t_sq - t_sum * t_sum / s, 1e-6)
        return (cross / np.sqrt(var)).mean(axis=1)

    def best(self, scores: np.ndarray, allowed: np.ndarray | None = None) -> Match:
        """Top card and the best score of any *other* card among ``allowed`` templates."""
        sc = scores if allowed is None else np.where(allowed, scores, -2.0)
        i = int(np.argmax(sc))
        card = self.labels[i]
        other = np.where(self.labels != card, sc, -2.0)
        ru = float(other.max()) if other.size else -1.0
        return Match(card, float(sc[i]), max(ru, -1.0), int(self.orient[i]), i)
