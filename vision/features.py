"""Face descriptors and the template bank: identification is a few matrix multiplies.

A straightened face is described twice. *Colour*: each channel on a small grid, divided
by its own slow trend (uneven light, glare fall-off). *Shape*: the grey-level gradient on a
finer grid, divided by local edge strength, which tells a club from a spade or a 6 from a
7. Each is compared by zero-mean normalised correlation (gain and offset, hence exposure
and white balance, drop out), and the two scores are blended. Nothing here knows where a
deck prints its indices: the whole face counts, so Italian and tarot faces work like
French ones. Masks restrict the comparison to the visible part of a covered card.
"""
from __future__ import annotations

import weakref
from collections import OrderedDict
from dataclasses import dataclass

import cv2
import numpy as np

GRID = (32, 48)          # (w, h) of the colour grid
FINE = (64, 96)          # (w, h) of the shape (gradient) grid
SHAPE_WEIGHT = 0.55      # blend: score = (1-w) colour + w shape
_TREND_SIGMA = 9.0       # colour-grid pixels; the low-pass removed as "lighting"
_INNER = 0.06            # fraction of the face border ignored (finder jitter, rounded corners)
CHROMA_FLOOR = 6.0       # Lab units per pixel: differences below this are "no colour"
_PRE = 1.5               # fine-grid pixels of blur before the gradient (forgives misalignment)
KEPT_SCORES = 64         # recent (face, mask) scorings kept by TemplateBank (~ 64 x N floats)


def _inner_mask(size: tuple[int, int]) -> np.ndarray:
    w, h = size
    m = np.zeros((h, w), np.float32)
    bx, by = max(1, round(w * _INNER)), max(1, round(h * _INNER))
    m[by:h - by, bx:w - bx] = 1.0
    return m.reshape(-1)


INNER = {GRID: _inner_mask(GRID), FINE: _inner_mask(FINE)}


@dataclass
class Descriptor:
    colour: np.ndarray   # (3, GRID w*h)
    shape: np.ndarray    # (2, FINE w*h)

    def rotated(self) -> "Descriptor":
        """The same face turned by 180° (gradients change sign)."""
        return Descriptor(self.colour[:, ::-1].copy(), -self.shape[:, ::-1])


def describe(face_bgr: np.ndarray) -> Descriptor:
    """Descriptor of a straightened face of any size."""
    small = cv2.resize(face_bgr, GRID, interpolation=cv2.INTER_AREA).astype(np.float32)
    grey = small.mean(axis=2)
    grey = grey / (cv2.GaussianBlur(grey, (0, 0), _TREND_SIGMA) + 8.0) - 1.0
    # chroma after balancing on the face's own paper (its brightest tenth): red pips stay
    # red under warm light, and black stays colourless
    px = small.reshape(-1, 3)
    at = 0.9 * (len(px) - 1)        # np.percentile(px, 90, axis=0), at a partition's cost
    k, f = int(at), at - int(at)
    lo, hi = np.partition(px, (k, k + 1), axis=0)[k:k + 2]
    paper = lo + f * (hi - lo) + 1.0
    lab = cv2.cvtColor(np.clip(small / paper, 0, 1.5).clip(0, 1), cv2.COLOR_BGR2LAB)
    colour = np.stack([grey.reshape(-1), lab[..., 1].reshape(-1), lab[..., 2].reshape(-1)])
    g = cv2.cvtColor(face_bgr, cv2.COLOR_BGR2GRAY) if face_bgr.ndim == 3 else face_bgr
    g = cv2.resize(g, FINE, interpolation=cv2.INTER_AREA).astype(np.float32)
    g = cv2.GaussianBlur(g, (0, 0), _PRE)
    gx = cv2.Sobel(g, cv2.CV_32F, 1, 0)
    gy = cv2.Sobel(g, cv2.CV_32F, 0, 1)
    norm = cv2.GaussianBlur(np.sqrt(gx * gx + gy * gy), (0, 0), 6) + 4.0
    shape = np.stack([gx / norm, gy / norm]).reshape(2, -1)
    return Descriptor(colour, shape)


def _normalise(x: np.ndarray, m: np.ndarray, floor: np.ndarray | float = 0.0) -> np.ndarray:
    """Zero-mean, unit-norm over the mask, per channel; (C, D) -> (C, D). Callers cast the
    result to float32 as the bank is (numpy 2 makes it float64 through the float64 scalar
    below, numpy 1.24 did not: a float64 product reads the bank at twice the cost).

    ``floor`` (per channel, per visible pixel) keeps a nearly flat channel (the chroma of
    a black-and-white card) near zero instead of blowing its noise up to unit norm.
    """
    s = max(float(m.sum()), 1.0)
    mu = (x * m).sum(axis=-1, keepdims=True) / s
    y = (x - mu) * m
    n = np.sqrt((y * y).sum(axis=-1, keepdims=True)) + 1e-6 + np.reshape(floor, (-1, 1)) * np.sqrt(s)
    return y / n


def visible_grid(masks: list[np.ndarray], size: tuple[int, int]) -> np.ndarray:
    """Masks (any size, 1 = visible) as (K, w*h) 0/1 rows on a descriptor grid, border
    excluded: the pixels a masked comparison counts."""
    inner = INNER[size]
    rows = [cv2.resize(m, size, interpolation=cv2.INTER_AREA).reshape(-1) for m in masks]
    return (np.stack(rows) > 0.5).astype(np.float32) * inner


class _Part:
    """One descriptor part of all templates, for full and masked correlation."""

    def __init__(self, raw: np.ndarray, size: tuple[int, int], floor: np.ndarray | float = 0.0):
        self.raw = raw.astype(np.float32)                        # (N, C, D)
        self.raw2 = self.raw * self.raw
        self.size = size
        self.floor = np.broadcast_to(np.asarray(floor, np.float32), (raw.shape[1],)).copy()
        inner = INNER[size]
        self.full = np.stack([_normalise(r, inner, self.floor) for r in self.raw]
                             ).reshape(len(raw), -1).astype(np.float32)
        self.c = raw.shape[1]
        # per-channel views (rows stay contiguous, BLAS steps over the other channels)
        self.chan = [self.raw[:, c, :] for c in range(self.c)]
        self.chan2 = [self.raw2[:, c, :] for c in range(self.c)]

    def whole(self, xs: np.ndarray) -> np.ndarray:
        """Scores (K, N) of K faces (K, C, D) on the whole face: one matrix product."""
        inner = INNER[self.size]
        xn = np.stack([_normalise(x, inner, self.floor).reshape(-1) for x in xs]).astype(np.float32)
        return (xn @ self.full.T) / self.c

    def masked(self, xs: np.ndarray, m: np.ndarray) -> np.ndarray:
        """Scores (K, N) of K faces (K, C, D), each on its own visible grid (K, D) (see
        :func:`visible_grid`): one matrix product per statistic and channel for all K."""
        inner = INNER[self.size]
        s = m.sum(axis=1)                                         # (K,) visible pixels
        root = np.sqrt(s)[:, None]
        xn = np.stack([_normalise(x, mk, self.floor) for x, mk in zip(xs, m)]).astype(np.float32)
        out = np.zeros((len(xs), len(self.raw)), np.float32)
        for c in range(self.c):       # (N, D) @ (D, K): BLAS steps over the other channels
            t = self.chan[c]
            t_sum = (t @ m.T).T
            t_sq = (self.chan2[c] @ m.T).T
            cross = (t @ np.ascontiguousarray(xn[:, c]).T).T      # xn is zero-mean on m
            var = np.maximum(t_sq - t_sum * t_sum / np.maximum(s, 1.0)[:, None], 1e-6)   # s 0: scored -1 below
            out += cross / (np.sqrt(var) + 1e-6 + self.floor[c] * root)
        out /= self.c
        out[s < 0.08 * inner.sum()] = -1.0
        return out


class _Chroma:
    """Chroma (a, b) of all templates, compared by normalised squared distance.

    Unlike correlation this tells a black pip from a red one in both directions: two
    colourless faces agree (similarity ~1), a colourless and a red one do not (~0).
    """

    def __init__(self, raw: np.ndarray, size: tuple[int, int], floor: float):
        self.raw = raw.astype(np.float32).reshape(len(raw), -1)   # (N, 2*D)
        self.raw2 = (raw.astype(np.float32) ** 2).sum(axis=1)     # (N, D)
        self.size = size
        self.eps_px = 2 * floor * floor
        inner = INNER[size]
        self.inner2 = np.concatenate([inner, inner])
        self.t2_full = (self.raw * self.raw) @ self.inner2

    def scores(self, xs: np.ndarray, m: np.ndarray | None) -> np.ndarray:
        """Scores (K, N) of K faces (K, 2, D), each on its visible grid (K, D), or all on
        the whole face (``m`` None)."""
        inner = INNER[self.size]
        whole = m is None
        if whole:
            m = np.broadcast_to(inner, (len(xs), len(inner)))
            t2 = self.t2_full[None, :]
        else:
            t2 = m @ self.raw2.T
        x = xs.reshape(len(xs), -1)
        xv = x * np.concatenate([m, m], axis=1)
        x2 = np.einsum("kd,kd->k", xv, x)[:, None]
        cross = xv @ self.raw.T
        d2 = np.maximum(x2 + t2 - 2 * cross, 0.0)
        s = m.sum(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):     # nothing visible: -1 below
            out = 1.0 - 2.0 * d2 / (x2 + t2 + self.eps_px * s[:, None])
        if not whole:
            out[s < 0.08 * inner.sum()] = -1.0
        return out


@dataclass
class Match:
    """Best and runner-up of one face against the bank."""

    card: str
    score: float
    runner_up: float
    orientation: int        # 0 or 180
    index: int
    runner_index: int = -1  # the best template of any other card


class TemplateBank:
    """All enrolled faces of a profile, both orientations, ready to correlate."""

    def __init__(self, labels: list[str], faces: list[np.ndarray]):
        descs, lab, ori = [], [], []
        for card, face in zip(labels, faces):
            d = describe(face)
            for o, dd in ((0, d), (180, d.rotated())):
                descs.append(dd)
                lab.append(card)
                ori.append(o)
        self.labels = np.array(lab, dtype=object)
        self.orient = np.array(ori)
        col = np.stack([d.colour for d in descs])
        self.grey = _Part(col[:, :1], GRID)
        self.chroma = _Chroma(col[:, 1:], GRID, CHROMA_FLOOR)
        self.shape = _Part(np.stack([d.shape for d in descs]), FINE)
        self.cards = sorted(set(lab))
        self._kept: OrderedDict = OrderedDict()    # recent scores, see scores()

    def scores(self, desc: Descriptor, mask: np.ndarray | None = None) -> np.ndarray:
        """Blended correlation (−1..1) of one face with every template, (N,), read-only.

        ``mask``: visible part of the face (any size, 1 = visible), None for all of it.
        """
        return self.scores_many([(desc, mask)])[0]

    def scores_many(self, faces: list[tuple[Descriptor, np.ndarray | None]]) -> list[np.ndarray]:
        """:meth:`scores` of several (face, mask) pairs, compared in one batch: a matrix
        product reads the bank once for all of them, where one product per face read it
        once each (a 10-card still scores ~100 pile rectangles, most of them masked).

        A face is often scored again on the same mask (each pile rectangle, every round
        of choosing the pile's cards: a third of the calls on a 10-card still), so the
        last KEPT_SCORES results are kept, by the descriptor's identity (descriptors are
        not changed in place) and the mask's bytes.
        """
        keys = [(id(d), None if m is None else (m.shape, m.dtype.str, m.tobytes())) for d, m in faces]
        out: list[np.ndarray | None] = []
        for (d, _), key in zip(faces, keys):
            hit = self._kept.get(key)
            if hit is not None and hit[0]() is d:
                self._kept.move_to_end(key)
                out.append(hit[1])
            else:
                out.append(None)
        todo: dict[tuple, int] = {}          # each missing (face, mask) computed once
        for k, key in enumerate(keys):
            if out[k] is None:
                todo.setdefault(key, k)
        for whole in (True, False):
            ks = [k for k in todo.values() if (faces[k][1] is None) == whole]
            if not ks:
                continue
            grey = np.stack([faces[k][0].colour[:1] for k in ks])
            chroma = np.stack([faces[k][0].colour[1:] for k in ks])
            shape = np.stack([faces[k][0].shape for k in ks])
            if whole:
                g, c, f = self.grey.whole(grey), self.chroma.scores(chroma, None), self.shape.whole(shape)
            else:
                coarse = visible_grid([faces[k][1] for k in ks], GRID)
                g, c = self.grey.masked(grey, coarse), self.chroma.scores(chroma, coarse)
                f = self.shape.masked(shape, visible_grid([faces[k][1] for k in ks], FINE))
            blend = (1 - SHAPE_WEIGHT) * (0.5 * (g + c)) + SHAPE_WEIGHT * f
            for k, row in zip(ks, blend):
                row.flags.writeable = False
                out[k] = row
                self._kept[keys[k]] = (weakref.ref(faces[k][0]), row)
                if len(self._kept) > KEPT_SCORES:
                    self._kept.popitem(last=False)
        return [out[k] if out[k] is not None else out[todo[keys[k]]] for k in range(len(faces))]

    def best(self, scores: np.ndarray, allowed: np.ndarray | None = None,
             known: np.ndarray | None = None) -> Match:
        """Top card among ``allowed`` templates, and the best score of any *other* card.

        The runner-up is sought among all ``known`` templates (default: all), allowed or
        not: a card the caller has ruled out still explains what is seen as well as it
        does, so naming its look-alike instead would be a guess.
        """
        known_sc = scores if known is None else np.where(known, scores, -2.0)
        sc = known_sc if allowed is None else np.where(allowed, known_sc, -2.0)
        i = int(np.argmax(sc))
        card = str(self.labels[i])
        other = np.where(self.labels != card, known_sc, -2.0)
        j = int(np.argmax(other))
        ru = float(other[j])
        return Match(card, float(sc[i]), max(ru, -1.0), int(self.orient[i]), i,
                     j if ru > -2.0 else -1)
