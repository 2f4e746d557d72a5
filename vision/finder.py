"""Finding cards: every card-shaped region of an image as a quadrilateral.

Cards are paper: lighter and greyer than the table around them, with a light border that
closes around any picture. On a copy about 800 px across, pixels clearly lighter than the
local table (a large-window median) and low in colour are marked, holes are filled so a
card becomes a solid blob, and thin table texture is opened away. A blob that is one
rectangle of the deck's shape is one card. A blob of several (a trick, a fanned pair) or
a card cut by a hand is explained by card rectangles at the right-angled corners of its
straight edges, outline and inside alike (vision.piles); all of them are also handed on
as hypotheses for identification to choose from. Corners of lone cards are refined on
the full-resolution image by fitting each side to the straight edge that runs along all
of it (see ``refine_quad``).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import cv2
import numpy as np

from vision import piles
from vision.geometry import inside, order_quad, quad_sides

WORK_SIZE = 800          # longest side of the working copy
MAX_CHROMA = 20         # card paper is grey once the image is white-balanced; skin is not
SOLID_FALLBACK = True
# a card's short side is at least this share of the image's short side: issue 14 asks for cards
# 5-100 % of it, and the outlines' MIN_CARD is 0.05 too. At 0.07 the finder dropped cards 40-50 px
# wide at 720p; at 0.05 the renders' 40-60 px cards are named 72.2 / 51.1 % (Bresciane / deepPoker,
# were 64.4 / 48.9 %), 0 wrong, 0 phantoms, and every real set and single-card photo gives the same
# detections (bench/vision_renders.py, bench/vision_realdata.py; session 29)
MIN_SHORT = 0.05
# The numbers below were set by hand in Vision I (2026-11-30) on rendered scenes (drawn faces on
# procedural tables) and have not been measured again one by one on real photographs; the real
# sets (bench/vision_realdata.py) and the renders of real photographs (bench/vision_renders.py)
# check them as a whole. Pixels are the working copy's (WORK_SIZE) unless said otherwise.
# card_mask: paper is lighter than the local table and grey
TABLE_SIDE = 160         # pixels across the tiny copy the table (and the white balance) is estimated on
PAPER_LIGHTER = 22       # CIELAB L (0-255) by which paper is lighter than the table's local median
EDGE_PAPER_DARKER = 25   # ... a region closed off by an edge may be this much darker and still be paper (a light table)
THIN_LINE = 3            # pixels: light lines this thin (a cloth's weave) are opened away
OPEN_PER = 160           # the blobs' opening is the working copy's long side over this (5 px at 800)
SOLID_PER = 110          # ... the wider opening that keeps only solid paper (7 px at 800)
COMPACT = 0.75           # a blob filling less of its hull than this is not compact (cells of a lined cloth) ...
COMPACT_AREA = 0.02      # ... when it is larger than this share of the image: its solid paper is used
EDGE_LOW, EDGE_HIGH = 20, 60    # Canny thresholds of the edges that close paper regions
PAPER_SHARE = 0.6        # share of a region (or of its rim) that is paper-like for it to be paper
REGION_MIN = 0.04        # a paper region's side at least this share of the short side ...
REGION_MAX = 0.3         # ... and its area at most this share of the image
BRIGHTEST = 99.5         # percentile of the tiny copy's brightness taken as paper by the white balance
MAX_GAIN = 0.3           # a channel gain off 1 by more than this: no paper in view, no balance
HOLE_MIN = 50            # pixels: smaller outlines are not filled as open frames
OPEN_FRAME = 0.5         # an outline filling less of its hull than this is an open frame (a border cut by a hand)
# find_cards: a blob that is one card rectangle
SQUARE_TOL = 10          # degrees: a lone blob's polygon corners this near square are its corners
POLY_EPS = (0.02, 0.03, 0.04, 0.06)   # polygon fits tried, share of the hull's perimeter
MAX_BLOB = 0.9           # a blob larger than this share of the image is the table, not a card
RECT_FILL = 0.9          # a blob filling its least rectangle more than this is one card ...
RAGGED_FILL = 0.85       # ... or, filling more than this, when its hull fills the rectangle HULL_FILL
HULL_FILL = 0.93         # ... and it fills its hull BLOB_HULL (a ragged outline on a lined cloth;
BLOB_HULL = 0.92         #     two overlapping cards lose a whole corner to the hull)
ONE_SHAPE = 0.16         # relative difference of a one-card blob's side ratio from the deck's
REFINE_SEARCH = 0.12     # refine_quad's search, share of the card's short side, for the finder's cards
# _size_options: card sizes for a pile with no lone card to measure
POLY_STEP = 0.012        # polygon fit of a pile's outline, share of its perimeter
SIZE_LOW, SIZE_HIGH = 0.15, 1.05   # a card's short side between these shares of the pile's least rectangle's
# refine_quad / _side_edge: a side moved onto the straight step along all of it
SIDE_SEARCH = 0.07       # default search either side of a side, share of the short side
INSIDE_LIGHT = 0.02      # the card is light this share of its short side inside its edge (at least 2 px)
MAX_MOVE = 3             # a refined corner moving more than this many searches is not believed
SLOPE = 0.03             # a side's slope searched, end-to-end offset as a share of its length
MIN_STEP = 8.0           # grey levels: a weaker step along a side is no edge ...
STEP_OF_BEST = 0.4       # ... nor one weaker than this share of the side's strongest
RUNS_ON = 0.7            # a step past the side's ends this strong (of its own) is a table line running on
THIN_LINE_LIGHT = 0.5    # the outermost step is a thin light line's outer side when the paper inside it is
#   darker than this share of the next step's (a blurred thin line is much greyer)


@dataclass
class Candidate:
    """A card-shaped region: ``quad`` in full-image pixels."""

    quad: np.ndarray
    whole: bool          # the region is exactly one card (all four sides seen)
    support: float       # fraction of the quad's area that looks like card


@dataclass
class FindResult:
    candidates: list[Candidate]
    mask: np.ndarray     # card-like pixels on the working copy (uint8 0/255)
    scale: float         # working copy pixels per full-image pixel
    # every card rectangle proposed in blobs of several cards (full-image pixels, best
    # supported first, unrefined), for identification to choose from
    hypotheses: list[Candidate] = field(default_factory=list)


def card_mask(small: np.ndarray) -> np.ndarray:
    """Card-like (light, grey, lighter than the local table) pixels, as solid blobs."""
    h, w = small.shape[:2]
    lab = cv2.cvtColor(white_balance(small), cv2.COLOR_BGR2LAB)
    L = lab[..., 0]
    chroma = cv2.magnitude((lab[..., 1].astype(np.float32) - 128), (lab[..., 2].astype(np.float32) - 128))
    # table estimate: median over a window much larger than a card, on a tiny copy
    f = float(TABLE_SIDE) / max(h, w)
    tiny = cv2.resize(L, (max(8, int(w * f)), max(8, int(h * f))), interpolation=cv2.INTER_AREA)
    k = (min(tiny.shape) // 2) | 1
    bg = cv2.medianBlur(tiny, max(3, min(k, 255)))
    bg = cv2.resize(bg, (w, h), interpolation=cv2.INTER_LINEAR).astype(np.int16)
    light = (L.astype(np.int16) - bg) > PAPER_LIGHTER
    grey = chroma < MAX_CHROMA
    raw = (light & grey).astype(np.uint8) * 255
    raw |= _edge_enclosed(L, grey & ((L.astype(np.int16) - bg) > -EDGE_PAPER_DARKER))
    # thin light lines (a tablecloth's weave) go before holes are filled; a card's border
    # is wider than this at the working scale
    raw = cv2.morphologyEx(raw, cv2.MORPH_OPEN, np.ones((THIN_LINE, THIN_LINE), np.uint8))
    raw = cv2.morphologyEx(raw, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
    k = max(3, int(round(max(h, w) / OPEN_PER)))
    ker = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    thin = cv2.morphologyEx(_fill_holes(raw), cv2.MORPH_OPEN, ker)
    # A light-lined cloth closes cells that hole filling turns into one huge blob. Where a
    # blob is not compact, use instead the solid paper that survives a wider opening.
    s = max(5, int(round(max(h, w) / SOLID_PER)))
    solid = cv2.morphologyEx(raw, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (s, s)))
    solid = cv2.morphologyEx(_fill_holes(solid), cv2.MORPH_OPEN, ker)
    contours, _ = cv2.findContours(thin, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    out = np.zeros_like(thin)
    for c in contours:
        area = cv2.contourArea(c)
        hull = cv2.contourArea(cv2.convexHull(c))
        part = np.zeros_like(thin)
        cv2.drawContours(part, [c], -1, 255, -1)
        if SOLID_FALLBACK and hull > 0 and area / hull < COMPACT and area > COMPACT_AREA * h * w:
            part &= solid
        out |= part
    return out


def _edge_enclosed(L: np.ndarray, paperish: np.ndarray) -> np.ndarray:
    """Light grey regions closed off by an edge: cards on a table as light as they are.

    Two readings of one edge map: each region between edges that is mostly paper (a
    card's inside, within its frame line), and each closed outline filled whole when its
    rim is paper (a card's own outline with its light margin, whatever the picture).
    """
    edges = canny(cv2.GaussianBlur(L, (3, 3), 0), EDGE_LOW, EDGE_HIGH)
    edges = cv2.dilate(edges, np.ones((3, 3), np.uint8))
    inside = (edges == 0).astype(np.uint8)
    out = _paper_regions(inside, paperish, inside.astype(bool), PAPER_SHARE)
    outlines = np.zeros_like(edges)
    contours, _ = cv2.findContours(edges, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    cv2.drawContours(outlines, contours, -1, 1, -1)
    outlines = cv2.erode(outlines, np.ones((3, 3), np.uint8))     # the dilated edge's outer rim
    rim = outlines.astype(bool) & ~cv2.erode(outlines, np.ones((7, 7), np.uint8)).astype(bool)
    out |= _paper_regions(outlines, paperish, rim, PAPER_SHARE)
    return cv2.dilate(out, np.ones((3, 3), np.uint8), iterations=1)


def _paper_regions(regions: np.ndarray, paperish: np.ndarray, where: np.ndarray, share: float
                   ) -> np.ndarray:
    """Connected regions of card size, off the image border, whose ``where`` pixels are
    at least ``share`` paper-like (uint8 0/255)."""
    h, w = regions.shape
    n, lab, stats, _ = cv2.connectedComponentsWithStats(regions, connectivity=4)
    x, y, bw, bh, area = stats.T
    fits = ((area >= (REGION_MIN * min(h, w)) ** 2) & (area <= REGION_MAX * h * w) & (x > 0) & (y > 0)
            & (x + bw < w) & (y + bh < h))
    out = np.zeros((h, w), np.uint8)
    for i in np.nonzero(fits[1:])[0] + 1:
        box = np.s_[y[i]:y[i] + bh[i], x[i]:x[i] + bw[i]]
        sel = lab[box] == i
        seen = paperish[box][sel & where[box]]
        if seen.size and seen.mean() >= share:
            out[box][sel] = 255
    return out


_TG22 = int(0.4142135623730950488016887242097 * (1 << 15) + 0.5)   # tan 22.5°, 15-bit fixed point


def canny(img: np.ndarray, low: int, high: int) -> np.ndarray:
    """The same edges as ``cv2.Canny(img, low, high)`` (3×3 Sobel, L1 magnitude), 0/255.

    Not cv2.Canny itself: single-threaded (one core, or ``cv2.setNumThreads(1)``), its
    hysteresis stack overruns its heap block on some images (OpenCV 4.10 to 5.0 alike;
    valgrind: invalid 8-byte writes just past a block allocated by Canny), which later
    aborts with "free(): invalid next size". Here the non-maximum suppression is done in
    numpy with OpenCV's own integer rule, and the hysteresis is what it computes anyway:
    the candidate pixels 8-connected to a strong one.
    """
    dx = cv2.Sobel(img, cv2.CV_16S, 1, 0, ksize=3, borderType=cv2.BORDER_REPLICATE).astype(np.int32)
    dy = cv2.Sobel(img, cv2.CV_16S, 0, 1, ksize=3, borderType=cv2.BORDER_REPLICATE).astype(np.int32)
    ax, ay = np.abs(dx), np.abs(dy)
    mag = ax + ay
    h, w = mag.shape
    p = np.zeros((h + 2, w + 2), np.int32)
    p[1:-1, 1:-1] = mag

    def at(di: int, dj: int) -> np.ndarray:
        return p[1 + di:h + 1 + di, 1 + dj:w + 1 + dj]

    y = ay << 15
    tg22x = ax * _TG22
    horiz = y < tg22x
    vert = ~horiz & (y > tg22x + (ax << 16))
    neg = (dx ^ dy) < 0                       # gradient along the anti-diagonal
    peak = np.where(horiz, (mag > at(0, -1)) & (mag >= at(0, 1)),
                    np.where(vert, (mag > at(-1, 0)) & (mag >= at(1, 0)),
                             np.where(neg, (mag > at(-1, 1)) & (mag > at(1, -1)),
                                      (mag > at(-1, -1)) & (mag > at(1, 1)))))
    cand = peak & (mag > low)
    n, lab = cv2.connectedComponents(cand.astype(np.uint8), connectivity=8, ltype=cv2.CV_32S)
    keep = np.zeros(n, bool)
    keep[lab[cand & (mag > high)]] = True
    keep[0] = False
    return keep[lab].astype(np.uint8) * 255


def white_balance(img: np.ndarray) -> np.ndarray:
    """Scale channels so the brightest pixels (card paper, usually) come out neutral."""
    tiny = cv2.resize(img, (TABLE_SIDE, max(1, round(TABLE_SIDE * img.shape[0] / img.shape[1]))),
                      interpolation=cv2.INTER_AREA)
    grey = tiny.max(axis=2)
    thr = np.percentile(grey, BRIGHTEST)
    sel = grey >= thr
    ref = tiny[sel].reshape(-1, 3).astype(np.float32).mean(axis=0) + 1.0
    gains = ref.mean() / ref
    if np.abs(gains - 1).max() > MAX_GAIN:      # no paper in view: leave it alone
        return img
    return cv2.transform(img, np.diag(gains).astype(np.float32))     # saturating, as uint8


def _fill_holes(mask: np.ndarray) -> np.ndarray:
    """Fill each outline; a thin open frame (a card border cut by a hand) gets its hull."""
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    out = np.zeros_like(mask)
    cv2.drawContours(out, contours, -1, 255, -1)
    for c in contours:
        area = cv2.contourArea(c)
        if area < HOLE_MIN:
            continue
        hull = cv2.convexHull(c)
        ha = cv2.contourArea(hull)
        if area < OPEN_FRAME * ha:
            cv2.fillPoly(out, [hull], 255)
    return out


def _angle(u: np.ndarray, v: np.ndarray) -> float:
    c = float(np.dot(u, v) / (np.linalg.norm(u) * np.linalg.norm(v) + 1e-9))
    return float(np.degrees(np.arccos(np.clip(c, -1, 1))))


def _single_quad(contour: np.ndarray) -> np.ndarray:
    hull = cv2.convexHull(contour)
    peri = cv2.arcLength(hull, True)
    for eps in POLY_EPS:
        poly = cv2.approxPolyDP(hull, eps * peri, True)
        if len(poly) == 4:
            p = poly.reshape(4, 2).astype(np.float64)
            angles = [_angle(p[i - 1] - p[i], p[(i + 1) % 4] - p[i]) for i in range(4)]
            if max(abs(a - 90) for a in angles) < SQUARE_TOL:
                return order_quad(p)
            break
    return order_quad(cv2.boxPoints(cv2.minAreaRect(contour)))


def _coverage(mask: np.ndarray, quad: np.ndarray) -> float:
    H, W = mask.shape
    if not _sane(np.asarray(quad, np.float64), W, H):
        return 0.0
    x, y, w, h = cv2.boundingRect(np.round(quad).astype(np.int32))
    if w <= 0 or h <= 0:
        return 0.0
    poly = np.zeros((h, w), np.uint8)
    cv2.fillPoly(poly, [np.round(quad - (x, y)).astype(np.int32)], 255)
    area = cv2.countNonZero(poly)
    x0, y0, x1, y1 = max(0, x), max(0, y), min(W, x + w), min(H, y + h)
    if area == 0 or x1 <= x0 or y1 <= y0:
        return 0.0
    inside = poly[y0 - y:y1 - y, x0 - x:x1 - x]
    return cv2.countNonZero(cv2.bitwise_and(mask[y0:y1, x0:x1], inside)) / area


def find_cards(image: np.ndarray, aspect: float, roi: tuple[int, int, int, int] | None = None,
               refine: bool = True) -> FindResult:
    """Every card-shaped region of ``image`` (BGR); ``aspect`` = long/short side of the deck."""
    ox = oy = 0
    full = image
    if roi is not None:
        x, y, w, h = roi
        ox, oy = max(0, x), max(0, y)
        full = image[oy:y + h, ox:x + w]
    H, W = full.shape[:2]
    scale = min(1.0, WORK_SIZE / max(H, W))
    small = cv2.resize(full, (max(1, round(W * scale)), max(1, round(H * scale))),
                       interpolation=cv2.INTER_AREA) if scale < 1 else full
    mask = card_mask(small)
    h, w = mask.shape
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    min_side = MIN_SHORT * min(h, w)
    amin = (min_side ** 2) * aspect
    singles: list[np.ndarray] = []
    complex_: list[np.ndarray] = []
    for c in contours:
        area = cv2.contourArea(c)
        if area < amin or area > MAX_BLOB * h * w:
            continue
        (cx, cy), (rw, rh), _ = cv2.minAreaRect(c)
        if min(rw, rh) < min_side:
            continue
        rect_fill = area / (rw * rh + 1e-9)
        asp = max(rw, rh) / max(1e-9, min(rw, rh))
        # a ragged outline (a card on a lined cloth) fills its rectangle a little less but
        # its hull still fills it; two overlapping cards lose a whole corner to the hull
        hull = cv2.contourArea(cv2.convexHull(c)) if RAGGED_FILL < rect_fill <= RECT_FILL else 0.0
        one = rect_fill > RECT_FILL or (hull > HULL_FILL * rw * rh and area > BLOB_HULL * hull)
        if one and abs(asp - aspect) / aspect < ONE_SHAPE:
            singles.append(c)
        else:
            complex_.append(c)
    quads: list[Candidate] = []
    sizes = []
    for c in singles:
        q = _single_quad(c)
        sizes.append(quad_sides(q))
        quads.append(Candidate(q, True, 1.0))
    hypotheses: list[Candidate] = []
    if complex_:
        known = float(np.median([s for s, _ in sizes])) if sizes else None
        picked, hyps = _explain_piles(small, mask, complex_, known, aspect, min_side)
        quads += [Candidate(hy.quad, False, hy.cover) for hy in picked]
        hypotheses = [Candidate(hy.quad, False, hy.cover) for hy in hyps]
    return FindResult(_to_full(quads, full, scale, (ox, oy), refine), mask, scale,
                      _to_full(hypotheses, full, scale, (ox, oy), False))


# slanted_quads: four-cornered paper blobs of any shape (cards seen obliquely)
# A blob's thin attachments (a shadow's edge, a strip of light table touching the card) are
# opened away with a disc whose diameter is this share of the blob's inscribed radius (about a
# quarter of a card's short side; a card's own corners stay). Without it, in 14 of the 37
# deepPoker table photos turned 50° that nothing named, no blob's hull had four corners
# (/tmp probe, session 45).
SLANT_OPEN = 0.5
# Any convex quad is some view of a rectangle, so a slanted blob's shape cannot tell a whole card
# from a piece of one cut by a hand or a card lying over it (a Bresciane 6 of cups under an
# arm, its lower two thirds a "4 of cups" named at 1.0: bench/vision_renders.py oblique, seed
# 1021). So each of its sides must be the card's own edge against one table: the strip just
# outside each side (SIDE_STRIP of the short side deep) has the colour of the strips outside
# the other three, within SIDE_TABLE (CIELAB distance of the medians, OpenCV's 8-bit scale).
# Measured on every card this stage named (/tmp probe, session 45): the deepPoker table photos
# turned 30-50° (bench/vision_realdata.py oblique), 24 right names at 6.8-38 and 3 at 110-155
# (a side along the photo's repeated border); the renders turned 40°, 12 right names at 1-16,
# a clubs 7 lying on a blue back at 92, and the 6 of cups under the arm at 109
SIDE_STRIP = 0.12
SIDE_TABLE = 60.0


def slanted_quads(image: np.ndarray, found: FindResult, aspect: float,
                  taken: Sequence[np.ndarray] = ()) -> list[np.ndarray]:
    """Quads (full-image pixels, refined onto the edges) of the mask's paper blobs whose outline
    has four corners, whatever their shape: a card seen obliquely is a trapezoid, not the deck's
    rectangle, so find_cards leaves it out (or takes it for a pile). Any convex quad is some
    view of a rectangle, so the shape proves nothing; only naming may keep one
    (Recogniser._with_slanted_cards). A blob at one of the ``taken`` quads (cards found
    already: a taken quad's centre inside the blob, or the blob's centre inside it) is that
    card, or a pile of found cards, and is left out before anything else is computed."""
    mask, scale = found.mask, found.scale
    h, w = mask.shape
    amin = (MIN_SHORT * min(h, w)) ** 2 * aspect
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    taken = [np.asarray(t, np.float64) * scale for t in taken]     # on the working copy
    grey = small = None
    out = []
    for c in contours:
        if not amin <= cv2.contourArea(c) <= MAX_BLOB * h * w:
            continue
        m = cv2.moments(c)
        centre = (m["m10"] / max(m["m00"], 1e-9), m["m01"] / max(m["m00"], 1e-9))
        if any(inside(c, t.mean(axis=0)) or inside(t, centre) for t in taken):
            continue
        x, y, bw, bh = cv2.boundingRect(c)
        blob = np.zeros((bh + 2, bw + 2), np.uint8)
        cv2.drawContours(blob, [c - (x - 1, y - 1)], -1, 255, -1)
        if small is None:
            grey = as_grey(image)
            small = cv2.resize(grey, (w, h), interpolation=cv2.INTER_AREA)
        patch = cv2.copyMakeBorder(small[y:y + bh, x:x + bw], 1, 1, 1, 1, cv2.BORDER_CONSTANT, value=0)
        fits = []
        for region in (blob, _bright_core(blob, patch)):
            part = _opened_part(region, amin)
            if part is not None:
                fits += _polygon_fits(part)
        kept: list[np.ndarray] = []
        for q in fits:
            q = (q + (x - 1, y - 1)) / scale
            q = refine_quad(grey, q, REFINE_SEARCH)
            if _sane(q, *image.shape[1::-1]) and not any(_one_quad(order_quad(q), k) for k in kept) \
                    and _on_one_table(image, q):
                kept.append(order_quad(q))
        out += kept
    return out


def _opened_part(region: np.ndarray, amin: float) -> np.ndarray | None:
    """The outline of the largest part of ``region`` (a 0/255 mask) once its thin attachments
    are opened away (SLANT_OPEN), or None when no part of ``amin`` working pixels is left."""
    k = max(3, int(SLANT_OPEN * cv2.distanceTransform(region, cv2.DIST_L2, 3).max()) | 1)
    opened = cv2.morphologyEx(region, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    parts, _ = cv2.findContours(opened, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    part = max(parts, key=cv2.contourArea) if parts else None
    return part if part is not None and cv2.contourArea(part) >= amin else None


def _polygon_fits(part: np.ndarray) -> list[np.ndarray]:
    """Quads fitted to an outline (working pixels): its hull's four-cornered polygon, and the
    meeting of its four longest straight runs (:func:`_sides_quad`)."""
    hull = cv2.convexHull(part)
    peri = cv2.arcLength(hull, True)
    for eps in POLY_EPS:
        poly = cv2.approxPolyDP(hull, eps * peri, True)
        if len(poly) <= 4:
            break
    fits = [poly.reshape(4, 2).astype(np.float64)] if len(poly) == 4 else []
    sides = _sides_quad(part)
    return fits + ([sides] if sides is not None else [])


def _bright_core(blob: np.ndarray, grey: np.ndarray) -> np.ndarray:
    """The lighter of the two grey levels that split ``blob`` best (Otsu, over the blob's own
    pixels): white card paper out of a blob that also holds paler table, lighter than the
    table around but darker than the card (wood grain, a lit patch of leather), its print's
    holes filled. ``grey`` is the blob's patch of the working copy, aligned with it. No
    constant: Otsu's split is the blob's own. bench/vision_realdata.py oblique, report half,
    0 wrong either way: 40° 76 -> 78 and 50° 74 -> 76 named with the core's fits (tune halves
    the same; session 48)."""
    vals = grey[blob > 0]
    t, _ = cv2.threshold(vals.reshape(-1, 1), 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    light = np.where((grey > t) & (blob > 0), 255, 0).astype(np.uint8)
    outlines, _ = cv2.findContours(light, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    return cv2.drawContours(light, outlines, -1, 255, -1)


# A blob's hull is the card's only when nothing lighter touches it: a streak of pale wood grain
# or a leather highlight against one side (deepPoker table-clubs_8-4 and table-diamonds_2-2 with
# the camera turned 50°, bench/vision_realdata.py oblique) puts a false corner on the hull, and
# the quad it gives names nothing. The card's four sides are still the four longest straight
# runs of the blob's outline, each broken at most by the attachment or by a pip printed at the
# edge: at SIDES_EPS those two cards' quads were named right (clubs 8 at 0.92, diamonds 2 at 0.97;
# the clubs 8's hull quad matched no face above 0.35, the diamonds 2's blob gave no four-cornered
# hull), their sides' runs covering 0.52-0.91 of each side (/tmp probe, session 48). Coarser fits cut the rounded corners into long edges of their own (at 0.01 and
# 0.02 both quads were wrong).
SIDES_EPS = 0.005        # polygon fit of a blob's outline, share of its perimeter
SIDES_COVER = 0.4        # each of the four runs covers at least this share of the side it lies on
SAME_QUAD = 0.1          # two fits whose corners all lie within this share of the short side are one


def _sides_quad(contour: np.ndarray) -> np.ndarray | None:
    """The quad whose sides lie along the four longest straight runs of ``contour`` (taken in
    its order, each meeting the next), or None when they do not make a convex quad or a run
    covers less than SIDES_COVER of its side."""
    poly = cv2.approxPolyDP(contour, SIDES_EPS * cv2.arcLength(contour, True), True).reshape(-1, 2)
    n = len(poly)
    if n < 4:
        return None
    ends = np.roll(poly, -1, axis=0)
    runs = np.linalg.norm(ends - poly, axis=1)
    k = np.sort(np.argsort(-runs)[:4])
    lines = np.cross(np.c_[poly[k], np.ones(4)], np.c_[ends[k], np.ones(4)])    # homogeneous
    meets = np.cross(np.roll(lines, 1, axis=0), lines)
    if np.abs(meets[:, 2]).min() < 1e-9:
        return None         # two runs in a row are parallel
    q = meets[:, :2] / meets[:, 2:]
    sides = np.linalg.norm(np.roll(q, -1, axis=0) - q, axis=1)
    if not cv2.isContourConvex(q.astype(np.float32).reshape(-1, 1, 2)) or \
            (runs[k] < SIDES_COVER * sides).any():
        return None
    return q


def _one_quad(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two ordered quads are one fit: every corner within SAME_QUAD of the short side."""
    return float(np.linalg.norm(a - b, axis=1).max()) < SAME_QUAD * quad_sides(a.astype(np.float32))[0]


def blobs_of(found: FindResult, quads: Sequence[np.ndarray]) -> list[int]:
    """The mask blob each quad's centre lies on (a label > 0; 0: on no blob), so that
    detections can be told apart as pieces of one paper blob or cards of several. For a
    FindResult of the whole image (no ``roi``), as slanted_quads."""
    if not len(quads):
        return []
    labels = cv2.connectedComponents(found.mask, connectivity=8)[1]
    h, w = labels.shape
    out = []
    for q in quads:
        x, y = np.asarray(q, np.float64).mean(axis=0) * found.scale
        out.append(int(labels[int(y), int(x)]) if 0 <= x < w and 0 <= y < h else 0)
    return out


def _on_one_table(image: np.ndarray, quad: np.ndarray) -> bool:
    """Whether the strips just outside the four sides of ``quad`` are one table (SIDE_TABLE):
    no side runs along a hand, another card or the picture's edge."""
    q = np.asarray(quad, np.float64).reshape(4, 2)
    # the depth from the mean of the first and third sides as given (the polygon's own order,
    # not always the short ones): SIDE_TABLE was measured so
    r = max(3.0, SIDE_STRIP * quad_sides(q.astype(np.float32))[0])
    H, W = image.shape[:2]
    x0, y0 = np.maximum(0, np.floor(q.min(axis=0) - r - 3)).astype(int)
    x1, y1 = np.minimum((W, H), np.ceil(q.max(axis=0) + r + 3)).astype(int)
    crop = image[y0:y1, x0:x1]
    lab = cv2.cvtColor(crop if crop.ndim == 3 else cv2.cvtColor(crop, cv2.COLOR_GRAY2BGR), cv2.COLOR_BGR2LAB)
    centre = q.mean(axis=0)
    medians = []
    for i in range(4):
        a, b = q[i], q[(i + 1) % 4]
        along = b - a
        out = np.array([along[1], -along[0]]) / max(1e-9, float(np.linalg.norm(along)))
        if np.dot((a + b) / 2 - centre, out) < 0:
            out = -out
        strip = np.array([a + 0.1 * along + 2 * out, b - 0.1 * along + 2 * out,
                          b - 0.1 * along + (2 + r) * out, a + 0.1 * along + (2 + r) * out]) - (x0, y0)
        m = np.zeros(lab.shape[:2], np.uint8)
        cv2.fillPoly(m, [np.round(strip).astype(np.int32)], 255)
        px = lab[m > 0]
        if not len(px):
            return False        # a side along the picture's edge: the card may go on past it
        medians.append(np.median(px.astype(np.float32), axis=0))
    meds = np.array(medians)
    return all(float(np.linalg.norm(meds[i] - np.median(np.delete(meds, i, axis=0), axis=0))) <= SIDE_TABLE
               for i in range(4))


def as_grey(image: np.ndarray) -> np.ndarray:
    """A BGR image in grey levels (a grey one as it is)."""
    return cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image


def _to_full(cands: list[Candidate], full: np.ndarray, scale: float, origin: tuple[int, int],
             refine: bool) -> list[Candidate]:
    """Working-copy candidates in full-image pixels, sides moved onto the edges."""
    H, W = full.shape[:2]
    out = []
    grey = as_grey(full) if refine and cands else full
    for cand in cands:
        q = cand.quad / scale
        if refine:
            q = refine_quad(grey, q, REFINE_SEARCH)
        if not _sane(q, W, H):
            continue
        q = q + np.float32(origin)
        out.append(Candidate(order_quad(q), cand.whole, cand.support))
    return out


def _explain_piles(small: np.ndarray, mask: np.ndarray, blobs: list[np.ndarray], known: float | None,
                   aspect: float, min_side: float
                   ) -> tuple[list[piles.Hypothesis], list[piles.Hypothesis]]:
    """Card rectangles of blobs that are more than one card: (geometry's choice, all of them).

    The card size is that of the lone cards, else the one the piles' whole sides agree on;
    of two such sizes, the one whose choice covers the blobs best.
    """
    h, w = mask.shape
    region = np.zeros_like(mask)
    cv2.drawContours(region, blobs, -1, 255, -1)
    segs = piles.segments(as_grey(small), region)
    cs = piles.corners(segs, mask)
    shorts = [known] if known else (piles.card_shorts(cs, piles.CORNER_GAP * min(h, w), aspect, mask)
                                    or _size_options(max(blobs, key=cv2.contourArea), aspect, min_side))
    best = None
    for short in shorts:
        hyps = piles.hypotheses(cs, segs, mask, short, aspect, _coverage)
        picked = piles.explain(hyps, mask, _coverage)
        fit = piles.fit(region, [hy.quad for hy in picked])
        if best is None or fit > best[0]:
            best = (fit, picked, hyps)
    return (best[1], best[2]) if best else ([], [])


def _size_options(contour: np.ndarray, aspect: float, min_short: float) -> list[float]:
    """Plausible card short sides for a blob with no lone card to measure."""
    peri = cv2.arcLength(contour, True)
    poly = cv2.approxPolyDP(contour, max(2.0, POLY_STEP * peri), True).reshape(-1, 2).astype(np.float64)
    n = len(poly)
    d = [float(np.linalg.norm(poly[(i + 1) % n] - poly[i])) for i in range(n)]
    opts = sorted(set(round(v, 1) for e in sorted(d)[-4:] for v in (e, e / aspect)))
    (_, _), (rw, rh), _ = cv2.minAreaRect(contour)
    return [o for o in opts if SIZE_LOW * min(rw, rh) < o <= min(rw, rh) * SIZE_HIGH and o >= min_short] \
        or [max(d) / aspect]


def _sane(q: np.ndarray, w: int, h: int) -> bool:
    """Finite, mostly inside the image and not degenerate (guards the C code downstream)."""
    if not np.isfinite(q).all():
        return False
    if q[:, 0].min() < -w or q[:, 0].max() > 2 * w or q[:, 1].min() < -h or q[:, 1].max() > 2 * h:
        return False
    return cv2.contourArea(q.astype(np.float32).reshape(-1, 1, 2)) > 16


def refine_quad(image: np.ndarray, quad: np.ndarray, search: float = SIDE_SEARCH) -> np.ndarray:
    """Move each side of ``quad`` onto the card's edge nearby (full resolution).

    A side's edge is a straight step, lighter inside, along the whole side: a low quantile
    over points along the side, for a few slopes, keeps only such steps (a tablecloth line
    crossing the side, a finger, do not count). Of those, the outermost is the card's
    edge (frame lines and pictures lie inside it) unless it runs on past both ends of the
    side, or is the outer side of a thin light line: then it belongs to the table.
    """
    q = np.asarray(quad, np.float64)
    short, _ = quad_sides(q.astype(np.float32))
    r = max(2.0, search * short)
    grey = as_grey(image)
    c = q.mean(axis=0)
    lines = []
    for i in range(4):
        a, b = q[i], q[(i + 1) % 4]
        if np.linalg.norm(b - a) < 4:
            return quad.astype(np.float32)
        lines.append(_side_edge(grey, a, b, c, r, max(2, int(round(INSIDE_LIGHT * short)))))
    out = []
    for i in range(4):
        p1, t1 = lines[i - 1]
        p2, t2 = lines[i]
        m = np.array([t1, -t2]).T
        if abs(np.linalg.det(m)) < 1e-6:
            out.append(q[i])
            continue
        s = np.linalg.solve(m, p2 - p1)
        out.append(p1 + s[0] * t1)
    out = np.array(out)
    if not np.isfinite(out).all() or np.abs(out - q).max() > MAX_MOVE * r:
        return quad.astype(np.float32)
    return out.astype(np.float32)


_ALONG = np.linspace(0.1, 0.9, 17)                                # points along a side
_BEYOND = np.array([-0.34, -0.27, -0.2, -0.13, 1.13, 1.2, 1.27, 1.34])  # ... and past its ends
_LOW = 5                                                           # of 17: the 30th percentile


def _side_edge(grey: np.ndarray, a: np.ndarray, b: np.ndarray, c: np.ndarray, r: float,
               margin: int) -> tuple[np.ndarray, np.ndarray]:
    """The card edge near side ``a``-``b`` (``c`` inside) as (point, unit direction);
    the card is light for at least ``margin`` pixels inside its edge."""
    d = b - a
    length = float(np.linalg.norm(d))
    t = d / length
    nrm = np.array([-t[1], t[0]])
    if np.dot(nrm, (a + b) / 2 - c) < 0:
        nrm = -nrm
    tilt = max(1, int(round(min(SLOPE * length, r))))            # slope: end-to-end offset, px
    reach = int(np.ceil(r)) + tilt + max(margin, 3)
    offs = np.arange(-reach, reach + 1, dtype=np.float64)
    ts = np.concatenate([_ALONG, _BEYOND])
    pts = a[None, :] + ts[:, None] * d[None, :]
    samp = pts[:, None, :] + offs[None, :, None] * nrm[None, None, :]
    prof = cv2.remap(grey, samp[..., 0].astype(np.float32), samp[..., 1].astype(np.float32),
                     cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
    grad = np.zeros_like(prof)
    grad[:, 1:-1] = prof[:, :-2] - prof[:, 2:]          # inside minus outside, at offs[1:-1]
    n_off = int(2 * np.ceil(r)) + 1
    base = np.arange(n_off) + (reach - int(np.ceil(r)))
    rows = np.arange(len(ts))[None, :, None]
    slopes = np.arange(-tilt, tilt + 1, max(1, tilt // 3))
    shift = np.round(slopes[:, None] * (ts[None, :] - 0.5)).astype(int)       # (slopes, rows)
    idx = base[None, None, :] + shift[:, :, None]                             # (slopes, rows, offs)
    g = grad[rows, idx]
    # a low quantile, not the mean: the step must be there at most points along the side
    along = np.partition(g[:, :len(_ALONG)], _LOW, axis=1)[:, _LOW]             # (slopes, offs)
    k = len(_ALONG)
    # past each end, the same step in 3 of 4 points (within a pixel: the slope drifts)
    ends = [cv2.dilate(np.partition(g[:, e], 1, axis=1)[:, 1], np.ones((1, 3), np.uint8))
            for e in (slice(k, k + 4), slice(k + 4, None))]
    beyond = (ends[0] + ends[1]) / 2
    j = along.argmax(axis=0)                                   # best slope per offset
    col = np.arange(n_off)
    strength = along[j, col]
    ok = strength > max(MIN_STEP, STEP_OF_BEST * strength.max())
    ok[[0, -1]] = False                                        # a peak, not a search limit
    ok[1:-1] &= (strength[1:-1] >= strength[:-2]) & (strength[1:-1] >= strength[2:])
    ok &= beyond[j, col] < RUNS_ON * strength                  # not a table line running on
    if not ok.any():
        return a, t
    # the outermost step, unless it is the outer side of a thin light line: inside a
    # card's edge lies paper, as light as inside the next step further in (a blurred thin
    # line is much greyer)
    cand = np.nonzero(ok)[0]
    cols = base[cand][:, None, None] + np.arange(-margin, 3)[None, None, :] + shift[j[cand], :k, None]
    level = np.median(prof[np.arange(k)[None, :, None], cols], axis=1)    # (cand, margin + 3)
    plateau, dark = level[:, :margin - 1].min(axis=1), level[:, -1]
    for n in range(len(cand) - 1, -1, -1):
        o = int(cand[n])
        inner = np.nonzero(cand <= o - max(3, margin))[0]
        if not len(inner) or plateau[n] - dark[n] >= THIN_LINE_LIGHT * (plateau[inner[-1]] - dark[n]):
            break
    sub = 0.0
    if 0 < o < n_off - 1:
        y0, y1, y2 = strength[o - 1], strength[o], strength[o + 1]
        den = y0 - 2 * y1 + y2
        sub = float(np.clip(0.5 * (y0 - y2) / den, -0.5, 0.5)) if den < 0 else 0.0
    off = offs[base[o]] + sub
    s = float(slopes[j[o]])
    mid = a + 0.5 * d + nrm * off
    direction = d + nrm * s
    return mid, direction / np.linalg.norm(direction)
