"""Cheap change detection: the only work done on every frame of an unchanged table.

Each frame is shrunk to a small grey image (1/8 size: 160x90 for 1280x720, ~0.5 ms) and
compared twice: with the previous frame (*motion*: something is moving here now) and with a
*reference* (*change*: the table differs from the last state we accepted). Per small pixel we keep
the frame number of the last motion, so a region is *settled* once nothing has moved in it for a
whole still window, without any per-region bookkeeping. Finding and identifying cards then run
only on settled changed regions; see :mod:`vision.tracking`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from vision.geometry import warp_to


CORRECT_SCALE = 4      # a knocked camera's small image is warped at this many times the small size.
#   bench/registration.py, every rendered cloth knocked 6 px: it then differs from the calibrated
#   one by at most 10 grey levels (the fine cloth; warped at 2x: 29, 1x: 76, over the change
#   threshold of 18; the full frame warped: 5), for ~0.6 ms a frame against ~2.8 ms

# A change of light (a lamp, auto-exposure, clouds) changes the whole table smoothly; a card or a
# hand changes a card-sized patch. Measured on the ``lamp`` sequences of bench/vision_live.py:
LIGHT_TRIGGER = 0.02   # share of the table changed before a change of light is looked for (a card
#   is ~2 %: a drift crossing the change threshold in patches is caught before they settle)
LIGHT_INLIERS = 0.6    # share of the table a smooth gain must explain to be taken for light
LIGHT_TOL = 0.05       # |log gain| residual of a pixel that the smooth gain explains (~5 %)
LIGHT_MIN = 0.02       # |log gain| below which the light is taken as unchanged
LIGHT_BLOCKS = (6, 8)  # rows, columns of blocks whose median residual refines the quadratic


def light_field(cur: np.ndarray, ref: np.ndarray, mask: np.ndarray, step: int = 2,
                least: float = LIGHT_MIN) -> np.ndarray | None:
    """The smooth gain ``g`` (cur ~ ref * g, quadratic in x and y in log) that a change of light
    explains on most of ``mask``; None when no such gain explains it (cards, hands, a cloth
    moved) or the light did not change (|log g| < ``least`` everywhere; with ``least=0`` the
    caller tells an unchanged light from an unexplained change). Robust: fitted again on the
    pixels it explains."""
    h, w = cur.shape[:2]
    basis, blocks = _grid(h, w, step)
    c, r = cur[::step, ::step].astype(np.float32), ref[::step, ::step].astype(np.float32)
    sel = mask[::step, ::step].astype(bool) & (r > 8) & (c < 250) & (r < 250)   # clipped: no measure
    if np.count_nonzero(sel) < 12:
        return None
    logr = np.log((c + 1) / (r + 1))
    keep = sel
    for tol in (0.3, 0.12, LIGHT_TOL):
        if np.count_nonzero(keep) < 12:
            return None
        p = _least_squares(basis[keep], logr[keep])
        keep = sel & (np.abs(logr - basis @ p) < tol)
    # what the quadratic leaves (a lamp's falloff is not one): the median residual per block of
    # the table, where most of the block is explained, smoothed
    res = logr - basis @ p
    grid = _block_medians(res, sel & (np.abs(res) < 0.15), blocks)
    grid = cv2.GaussianBlur(grid, (3, 3), 0.8)
    hs, ws = res.shape
    corr = cv2.resize(grid, (ws, hs), interpolation=cv2.INTER_LINEAR)
    keep = sel & (np.abs(res - corr) < LIGHT_TOL)
    if np.count_nonzero(keep) < LIGHT_INLIERS * np.count_nonzero(sel):
        return None
    field = _grid(h, w, 1)[0] @ p.astype(np.float32)
    field += cv2.resize(grid, (w, h), interpolation=cv2.INTER_LINEAR)
    if least > 0 and float(np.abs(field[mask.astype(bool)]).max(initial=0.0)) < least:
        return None
    return np.exp(field).astype(np.float32)


def light_changed(gain: np.ndarray, mask: np.ndarray) -> bool:
    """Whether ``gain`` (from ``light_field(..., least=0)``) changes the light anywhere on
    ``mask`` by LIGHT_MIN or more (in log)."""
    g = gain[mask.astype(bool)]
    return g.size > 0 and (float(g.max()) >= math.exp(LIGHT_MIN) or float(g.min()) <= math.exp(-LIGHT_MIN))


@lru_cache(maxsize=8)
def _grid(h: int, w: int, step: int) -> tuple[np.ndarray, np.ndarray]:
    """For an ``h`` x ``w`` image sampled every ``step`` px: the quadratic's six terms per sample
    (1, x, y, x², xy, y² on [-0.5, 0.5)) and each sample's block of LIGHT_BLOCKS (row-major).
    Kept: the frame loop fits the light on every frame while a hand is over the table."""
    yy, xx = np.mgrid[0:h:step, 0:w:step].astype(np.float32)
    xx, yy = xx / w - 0.5, yy / h - 0.5
    basis = np.stack([np.ones_like(xx), xx, yy, xx * xx, xx * yy, yy * yy], axis=-1)
    hs, ws = xx.shape
    gy, gx = LIGHT_BLOCKS
    row = np.searchsorted([by * hs // gy for by in range(1, gy)], np.arange(hs), side="right")
    col = np.searchsorted([bx * ws // gx for bx in range(1, gx)], np.arange(ws), side="right")
    blocks = row[:, None] * gx + col[None, :]
    basis.setflags(write=False)
    blocks.setflags(write=False)
    return basis, blocks


def _block_medians(res: np.ndarray, ok: np.ndarray, blocks: np.ndarray) -> np.ndarray:
    """The median of ``res`` (within ±0.5 where ``ok``) over the ``ok`` samples of each block,
    where they are more than 40 % of the block (else 0): one sort for all blocks, not a median
    call per block."""
    gy, gx = LIGHT_BLOCKS
    b = blocks.ravel()
    size = np.bincount(b, minlength=gy * gx)
    n = np.bincount(b, weights=ok.ravel(), minlength=gy * gx).astype(np.int64)
    vals = res.ravel()[ok.ravel()]
    # sorted by block, then value: the ok residuals lie within (-0.15, 0.15), so one key does both
    order = np.argsort(b[ok.ravel()] + (vals.astype(np.float64) + 0.5) / 2.0)
    v = vals[order]
    start = np.concatenate(([0], np.cumsum(n)[:-1]))
    good = n > 0.4 * size
    lo = start + np.maximum(n - 1, 0) // 2
    hi = start + n // 2
    grid = np.zeros(gy * gx, np.float32)
    grid[good] = (v[lo[good]] + v[hi[good]]) / 2
    return grid.reshape(gy, gx)


def _least_squares(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``argmin |a p - b|`` by the normal equations, in float64: for six smooth terms on [-0.5, 0.5]
    as exact as ``np.linalg.lstsq`` and ~10x quicker (no SVD, and no BLAS threads contending with
    the frame loop on a 2-core machine: 0.07 ms against 0.9 ms for 2,000 points here)."""
    a64 = a.astype(np.float64)
    return np.linalg.solve(a64.T @ a64, a64.T @ b.astype(np.float64))


def relit(image: np.ndarray, gain: np.ndarray) -> np.ndarray:
    """``image`` (uint8, grey or colour) under ``gain`` (any size: resized to the image's)."""
    h, w = image.shape[:2]
    g = gain if gain.shape == (h, w) else cv2.resize(gain, (w, h), interpolation=cv2.INTER_LINEAR)
    if image.ndim == 3:
        g = g[..., None]
    return np.clip(image.astype(np.float32) * g + 0.5, 0, 255).astype(np.uint8)


@dataclass(frozen=True)
class Region:
    """A connected patch of change, in small-image pixels and in full-image pixels."""

    mask: np.ndarray                       # bool, small-image size, this region only
    bbox_small: tuple[int, int, int, int]  # x, y, w, h
    bbox: tuple[int, int, int, int]        # x, y, w, h in full-image pixels
    area_small: int
    last_motion: int                       # frame number of the latest motion inside it


class FrameSizeError(ValueError):
    """A frame whose size differs from the calibration's (another camera mode: calibrate again)."""


class ChangeDetector:
    """Motion and change masks on a downscaled grey frame, plus per-pixel last-motion frames.

    ``motion_threshold`` / ``change_threshold`` are grey levels (0-255) on the smoothed small
    image: above camera noise, below a card's contrast against the cloth.
    """

    def __init__(self, image_size: tuple[int, int], *, factor: int = 8, motion_threshold: int = 12,
                 change_threshold: int = 18, table_polygon: np.ndarray | None = None) -> None:
        w, h = image_size
        self.image_size = (int(w), int(h))
        self.factor = factor
        self.small_size = (max(1, w // factor), max(1, h // factor))
        self.sx, self.sy = w / self.small_size[0], h / self.small_size[1]
        self.motion_threshold = motion_threshold
        self.change_threshold = change_threshold
        sw, sh = self.small_size
        self.table_mask = np.ones((sh, sw), np.uint8)
        if table_polygon is not None:
            self.table_mask = np.zeros((sh, sw), np.uint8)
            poly = (np.asarray(table_polygon, np.float32) / [self.sx, self.sy]).astype(np.int32)
            cv2.fillPoly(self.table_mask, [poly], 1)
        self.prev: np.ndarray | None = None
        self.reference: np.ndarray | None = None
        self.last_motion = np.full((sh, sw), -(10 ** 9), np.int32)
        self.small: np.ndarray | None = None
        self.motion: np.ndarray | None = None
        self.change: np.ndarray | None = None
        self.gain: np.ndarray | None = None     # this frame's change of light (small size), if any
        self._table_px = int(np.count_nonzero(self.table_mask))

    def shrink(self, image_bgr: np.ndarray) -> np.ndarray:
        """The small grey image change detection works on (area-averaged, so noise cancels)."""
        if image_bgr.shape[1] != self.image_size[0] or image_bgr.shape[0] != self.image_size[1]:
            raise FrameSizeError(f"frame size {image_bgr.shape[1]}x{image_bgr.shape[0]} differs from the "
                             f"calibrated {self.image_size[0]}x{self.image_size[1]}; calibrate again for this camera mode")
        grey = cv2.cvtColor(image_bgr, cv2.COLOR_BGR2GRAY) if image_bgr.ndim == 3 else image_bgr
        return cv2.resize(grey, self.small_size, interpolation=cv2.INTER_AREA)

    def _corrected(self, image_bgr: np.ndarray, correction: np.ndarray) -> np.ndarray:
        """The small image of ``image_bgr`` brought through ``correction`` (3x3, full-size pixels):
        warped at CORRECT_SCALE times the small size, then shrunk, so the markers' and a
        cloth's sharp edges are not smeared (warped at the small size itself they differ by up
        to 66 grey levels from the warped full frame shrunk, which costs ~2 ms more)."""
        grey = cv2.cvtColor(image_bgr, cv2.COLOR_BGR2GRAY) if image_bgr.ndim == 3 else image_bgr
        sw, sh = self.small_size
        mid = (sw * CORRECT_SCALE, sh * CORRECT_SCALE)
        s = np.diag([mid[0] / self.image_size[0], mid[1] / self.image_size[1], 1.0])
        g = cv2.resize(grey, mid, interpolation=cv2.INTER_AREA)
        g = warp_to(g, s @ correction @ np.linalg.inv(s), mid)
        return cv2.resize(g, self.small_size, interpolation=cv2.INTER_AREA)

    def set_reference(self, image_bgr: np.ndarray) -> None:
        self.reference = self.shrink(image_bgr)

    def update(self, image_bgr: np.ndarray, frame: int, correction: np.ndarray | None = None) -> tuple[bool, bool]:
        """Take one frame: returns (anything moving on the table, anything changed vs reference).
        ``correction``: the 3x3 map from the frame to the calibrated geometry (a knocked camera),
        applied to the small image only."""
        small = self.shrink(image_bgr) if correction is None else self._corrected(image_bgr, correction)
        if self.prev is None:
            self.prev = small
        if self.reference is None:
            self.reference = small.copy()
        motion = cv2.absdiff(small, self.prev)
        cv2.threshold(motion, self.motion_threshold, 1, cv2.THRESH_BINARY, dst=motion)
        motion &= self.table_mask
        moving = bool(cv2.countNonZero(motion))
        if moving:
            # grow by one small pixel: a hand's blurred edge still counts as moving
            motion = cv2.dilate(motion, np.ones((3, 3), np.uint8))
            self.last_motion[motion.astype(bool)] = frame
        change = cv2.absdiff(small, self.reference)
        cv2.threshold(change, self.change_threshold, 1, cv2.THRESH_BINARY, dst=change)
        change &= self.table_mask
        changed = bool(cv2.countNonZero(change))
        self.gain = None
        if changed and cv2.countNonZero(change) > LIGHT_TRIGGER * self._table_px:
            # the light changed: follow it in the reference, so only real change is left
            self.gain = light_field(small, self.reference, self.table_mask)
            if self.gain is not None:
                self.reference = relit(self.reference, self.gain)
                change = cv2.absdiff(small, self.reference)
                cv2.threshold(change, self.change_threshold, 1, cv2.THRESH_BINARY, dst=change)
                change &= self.table_mask
                changed = bool(cv2.countNonZero(change))
        self.prev, self.small, self.motion, self.change = small, small, motion, change
        return moving, changed

    def regions(self, min_area: int = 2, join: int = 2) -> list[Region]:
        """Connected patches of change (grown by ``join`` small pixels so a card's parts stay one)."""
        if self.change is None:
            return []
        grown = cv2.dilate(self.change, np.ones((2 * join + 1, 2 * join + 1), np.uint8)) & self.table_mask
        n, labels, stats, _ = cv2.connectedComponentsWithStats(grown, connectivity=8)
        out = []
        for k in range(1, n):
            x, y, w, h, _area = (int(v) for v in stats[k])
            mask = labels == k
            area = int(np.count_nonzero(mask & self.change.astype(bool)))
            if area < min_area:
                continue
            full = (int(x * self.sx), int(y * self.sy), int(np.ceil(w * self.sx)), int(np.ceil(h * self.sy)))
            out.append(Region(mask, (x, y, w, h), full, area, int(self.last_motion[mask].max())))
        return out

    def absorb(self, mask: np.ndarray) -> None:
        """Accept the current frame as the reference inside ``mask`` (this change has been handled)."""
        if self.reference is not None and self.small is not None:
            self.reference[mask] = self.small[mask]
            if self.change is not None:
                self.change[mask] = 0

    def to_small(self, points: np.ndarray) -> np.ndarray:
        return np.asarray(points, np.float32) / [self.sx, self.sy]
