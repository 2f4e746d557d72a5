"""Piles: card rectangles in a blob that is more than one card (a trick, a fanned pair, a
card under a hand).

Every card side that can be seen is a straight edge, on the blob's outline (card against
table) or inside it (the top card's border over the card below). Where two such edges meet
at a right angle, each ending there, lies a corner of some card; with the card size (one
per image: one camera height) it gives that card's rectangle, up to which of its arms is
the long side. The size comes from lone cards or from sides seen whole, between two
corners. Geometry only proposes here; identification (vision.recognise) chooses.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import cv2
import numpy as np

from vision.geometry import order_quad, order_quads, square_meetings
from vision.outline import ARM_SLACK

MIN_SEGMENT = 0.045      # shortest straight edge kept, share of the image's short side
CORNER_GAP = 0.025       # how far a side may stop short of its corner (rounded corners), same
MAX_SKEW = 0.17          # |cos| between a corner's two sides (about 10° off square)
SIZE_TOL = 0.05          # two full sides agree on the card size within this share
MIN_COVER = 0.45         # a card rectangle must be this much card-like (the rest: hand, table)
MIN_NEW = 0.25           # ... and, to be kept by geometry alone, this much not yet explained
OUTLINE_TOL = 0.008      # how far an outline may stray from a straight run (image short sides)
ARM_SHARE = 1.06         # a card's long side over the longest straight edge seen along it
ARM_MAX = 1.08           # no straight edge from a corner is longer than this many long sides
# The numbers below were set by hand in Vision I (2026-11-30) on rendered piles (drawn faces) and
# have not been measured again one by one on real photographs; bench/vision_realdata.py (bidly's
# fanned deals) and bench/vision_renders.py check them as a whole. Lengths are working-copy pixels
# or shares of its short side (``short``: the card's short side).
PARALLEL = 0.985         # |cos| of two edges' directions for them to be parallel (within ~10°)
SAME_ARM = 0.97          # cos between two corners' arms for them to point the same way (~14°)
ALONG_SIDE = 0.995       # cos between a corner's arm and the line to another corner for both to end one side (~6°)
RUN_SEEN = 0.01          # an outline run lies along a detected edge within twice this share of the short side
INSIDE_PROBE = 0.02      # share of the short side inside a corner where the mask must be card
ARM_END = 0.3            # an edge ends at a corner within this share of its length (at most CORNER_GAP)
MERGE_GAPS = 0.5         # corners closer than this many corner gaps, with the same arms: one corner
FRAME_GAP = 1.5          # a like corner within this many corner gaps outward ...
FRAME_DIAGONAL = 0.9     # ... along the corner's diagonal (cos) makes this one a printed frame's
MIN_SIDE = 3             # corner gaps: two corners closer than this are no whole side
ARM_HALF = 0.5           # a whole side's corner has an edge along at least this share of it
ARM_BETTER = 0.15        # the longest edge's size is taken when it explains this share more of the edges seen
WHOLE_ARM = (0.8, 1.02)  # an edge from a corner this share of a card's side is that side, nearly whole
SIDE_POINTS = np.linspace(0.05, 0.95, 12)   # points along a quad's side checked for an edge along it
ON_EDGE = 2.5            # pixels off an edge's line for a point to lie on it ...
EDGE_RUN = 2             # ... and pixels past its ends
SNAP_OVERLAP = 0.3       # an edge overlaps this share of a side's half-length to move it
SNAP_REACH = 0.07        # share of the short side an edge may lie off a side to move it
SNAP_BAND = 1.5          # pixels: the edges this near the outermost one are averaged
SIZE_AGREES = 0.1        # two inner edges this near the card's size apart are its sides
SIZE_SNUG = (0.98, 1.05)  # any two edges this near its size apart are its sides
BEYOND_POINTS = np.linspace(0.2, 0.8, 5)    # points along an edge checked for table beyond it ...
BEYOND_STEP = 3          # ... this many pixels out
PRE_COVER = 0.1          # rectangles are snapped when their cover is at most this short of MIN_COVER
NEAR_EDGES = 0.2         # share of the short side around a rectangle whose edges may move it
ONE_CARD_CENTRE = 0.25   # rectangles with centres this share of the short side apart ...
SAME_TURN = np.radians(12)   # ... and sides this near parallel are one card
SPILL = 1.5              # weight of rectangle area outside the blobs against the area inside

Coverage = Callable[[np.ndarray, np.ndarray], float]


@dataclass
class Corner:
    """A right-angled meeting of two straight edges, each running away from ``p``."""

    p: np.ndarray        # working-copy pixels
    a: np.ndarray        # unit direction of one side, away from the corner
    b: np.ndarray        # unit direction of the other side
    la: float            # how far an edge is seen along a
    lb: float


@dataclass
class Hypothesis:
    """A card rectangle proposed by a corner (working-copy pixels)."""

    quad: np.ndarray
    cover: float         # share of it that is card-like
    edges: float         # share of its outline that lies on a straight edge

    @property
    def score(self) -> float:
        return self.cover + self.edges


def segments(grey: np.ndarray, region: np.ndarray) -> np.ndarray:
    """Straight edges (x1, y1, x2, y2) on or inside the blobs of ``region`` (0/255)."""
    h, w = grey.shape
    min_len = MIN_SEGMENT * min(h, w)
    near = cv2.dilate(region, np.ones((5, 5), np.uint8))
    n, _, stats, _ = cv2.connectedComponentsWithStats(near)
    lsd = cv2.createLineSegmentDetector(cv2.LSD_REFINE_STD)
    out = []
    for i in range(1, n):
        x, y, bw, bh, _ = stats[i]
        found = lsd.detect(np.ascontiguousarray(grey[y:y + bh, x:x + bw]))[0]
        if found is None:
            continue
        s = found.reshape(-1, 4) + np.float32([x, y, x, y])
        s = s[np.hypot(s[:, 2] - s[:, 0], s[:, 3] - s[:, 1]) >= min_len]
        mid = np.clip(np.round((s[:, :2] + s[:, 2:]) / 2).astype(int), 0, [w - 1, h - 1])
        out.append(s[near[mid[:, 1], mid[:, 0]] > 0])
    lsd = np.concatenate(out).astype(np.float64) if out else np.zeros((0, 4))
    runs = _outline_runs(region, min_len).astype(np.float64)
    return np.concatenate([lsd, runs[~_seen(runs, lsd, RUN_SEEN * min(h, w))]])


def _seen(runs: np.ndarray, segs: np.ndarray, tol: float) -> np.ndarray:
    """Which runs already have a detected edge along them (parallel, mid-point on it)."""
    if not len(segs) or not len(runs):
        return np.zeros(len(runs), bool)
    p1, v = segs[:, :2], segs[:, 2:] - segs[:, :2]
    L = np.linalg.norm(v, axis=1) + 1e-9
    u = v / L[:, None]
    rv = runs[:, 2:] - runs[:, :2]
    ru = rv / (np.linalg.norm(rv, axis=1, keepdims=True) + 1e-9)
    rel = (runs[:, :2] + runs[:, 2:])[:, None] / 2 - p1[None]
    along = (rel * u[None]).sum(-1)
    off = np.abs(rel[..., 0] * u[None, :, 1] - rel[..., 1] * u[None, :, 0])
    par = np.abs(ru @ u.T) > PARALLEL
    return (par & (off < tol * 2) & (along > 0) & (along < L[None])).any(axis=1)


def _outline_runs(region: np.ndarray, min_len: float) -> np.ndarray:
    """The straight runs of the blobs' outlines: a card's edge against a lined or busy
    table, or a patterned back's, can be too weak or broken for the segment detector
    while the mask still draws it."""
    contours, _ = cv2.findContours(region, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    out = []
    for c in contours:
        poly = cv2.approxPolyDP(c, OUTLINE_TOL * min(region.shape), True).reshape(-1, 2)
        if len(poly) < 3:
            continue
        s = np.hstack([poly, np.roll(poly, -1, axis=0)]).astype(np.float32)
        out.append(s[np.hypot(s[:, 2] - s[:, 0], s[:, 3] - s[:, 1]) >= min_len])
    return np.concatenate(out) if out else np.zeros((0, 4), np.float32)


def corners(segs: np.ndarray, mask: np.ndarray) -> list[Corner]:
    """Right-angled L-junctions of edges whose inside angle is card-like, outermost only."""
    h, w = mask.shape
    if len(segs) < 2:
        return []
    gap = CORNER_GAP * min(h, w)
    i, j, u, L, P, ti, tj = square_meetings(segs, MAX_SKEW)
    ai, oki = _arm(ti, L[i], gap)
    aj, okj = _arm(tj, L[j], gap)
    a = u[i] * ai[:, None]
    b = u[j] * aj[:, None]
    inside = np.round(P + INSIDE_PROBE * min(h, w) * (a + b)).astype(int)
    inb = (inside[:, 0] >= 0) & (inside[:, 0] < w) & (inside[:, 1] >= 0) & (inside[:, 1] < h)
    ok = oki & okj & inb
    ok[ok] = mask[inside[ok, 1], inside[ok, 0]] > 0
    cs = [Corner(P[k], a[k], b[k], float(L[i[k]]), float(L[j[k]])) for k in np.flatnonzero(ok)]
    return _outermost(_merge(cs, gap), gap)


def _arm(t: np.ndarray, length: np.ndarray, gap: float) -> tuple[np.ndarray, np.ndarray]:
    """(+1 or -1: the direction away from the corner, whether it lies at a segment end)."""
    g = np.minimum(gap, ARM_END * length)
    start = np.abs(t) < g
    end = np.abs(t - length) < g
    return np.where(start, 1.0, -1.0), start | end


def _merge(cs: list[Corner], gap: float) -> list[Corner]:
    """One corner per spot and orientation (an edge is often found on both of its sides)."""
    cs = sorted(cs, key=lambda c: -(c.la + c.lb))
    if not cs:
        return []
    p, a, b = (np.array([getattr(c, f) for c in cs]) for f in "pab")
    kept: list[int] = []            # compared with the kept ones at once (hundreds of corners)
    for k in range(len(cs)):
        if kept:
            near = np.asarray(kept)[np.linalg.norm(p[kept] - p[k], axis=1) < MERGE_GAPS * gap]
            if len(near) and _same_arms_any(a[k], b[k], a[near], b[near]).any():
                continue
        kept.append(k)
    return [cs[k] for k in kept]


def _outermost(cs: list[Corner], gap: float) -> list[Corner]:
    """Drop the corners of a face's printed frame: a like corner lies just outside them."""
    if not cs:
        return []
    p, a, b = (np.array([getattr(c, f) for c in cs]) for f in "pab")
    out = []
    for k, c in enumerate(cs):
        diag = (c.a + c.b) / np.linalg.norm(c.a + c.b)
        d = c.p - p
        dist = np.linalg.norm(d, axis=1)
        near = (dist > 0) & (dist < FRAME_GAP * gap)
        near[k] = False
        near &= d @ diag > FRAME_DIAGONAL * dist
        if not (near.any() and _same_arms_any(c.a, c.b, a[near], b[near]).any()):
            out.append(c)
    return out


def _same_arms_any(ca: np.ndarray, cb: np.ndarray, oa: np.ndarray, ob: np.ndarray) -> np.ndarray:
    """Whether one corner has the same two arm directions (either way round) as each of' many corners (rows)."""
    return ((oa @ ca > SAME_ARM) & (ob @ cb > SAME_ARM)) | ((ob @ ca > SAME_ARM) & (oa @ cb > SAME_ARM))


def full_sides(cs: list[Corner], gap: float, mask: np.ndarray) -> list[tuple[float, float]]:
    """Card sides seen whole: two corners facing each other along one edge of the blob's
    outline (a card's printed frame makes such corners too, but inside), as (length,
    longest edge seen at right angles to it at either end)."""
    out = []
    for m, c in enumerate(cs):
        for o in cs[m + 1:]:
            d = o.p - c.p
            e = float(np.linalg.norm(d))
            if e < MIN_SIDE * gap:
                continue
            t = d / e
            for ca, cb, la, lb in ((c.a, c.b, c.la, c.lb), (c.b, c.a, c.lb, c.la)):
                if ca @ t < ALONG_SIDE or la < ARM_HALF * e:
                    continue
                for oa, ob, olb in ((o.a, o.b, o.lb), (o.b, o.a, o.la)):
                    # o's side runs back to c, and the card lies on the same side of it
                    if oa @ t < -ALONG_SIDE and ob @ cb > SAME_ARM and \
                            _outline(mask, np.concatenate([c.p, o.p])[None], -cb):
                        out.append((e, max(lb, olb)))
    return out


def card_shorts(cs: list[Corner], gap: float, aspect: float, mask: np.ndarray) -> list[float]:
    """Likely short sides of the cards (at most two, best first) from sides seen whole."""
    sides = full_sides(cs, gap, mask)
    opts = []
    for e, _ in sides:
        for s in (e, e / aspect):
            if any(x > s * aspect * (1 + 2 * SIZE_TOL) for f, x in sides if abs(f - s) < SIZE_TOL * s):
                continue        # then an edge longer than this card runs across its short side
            votes = sum(abs(f - s) < SIZE_TOL * s or abs(f - s * aspect) < SIZE_TOL * s * aspect
                        for f, _ in sides)
            # a short side with a long edge across it settles which side it was
            proof = sum(abs(f - s) < SIZE_TOL * s and x > s * (1 + 2 * SIZE_TOL) for f, x in sides)
            opts.append((votes + 2 * proof, s))
    opts.sort(key=lambda t: -t[0])
    best: list[float] = []
    for v, s in opts:
        if v >= opts[0][0] - 1 and not any(abs(s - b) < SIZE_TOL * b for b in best):
            best.append(s)
    if not best:
        return []
    arms = np.array([x for c in cs for x in (c.la, c.lb)])
    best = [b for b in best if arms.max() <= ARM_MAX * b * aspect][:2]
    # the longest edge running from a corner is nearly a whole long side (all but the
    # rounding of its corners): a size of its own when the sides taken for whole were
    # cut short (by a hand, by a card on top) and the edges seen agree with it far better
    arm = float(arms.max()) * ARM_SHARE / aspect
    if best and _arm_fit(arms, arm, aspect) > max(_arm_fit(arms, b, aspect) for b in best) + ARM_BETTER:
        best.append(arm)
    return best


def _arm_fit(arms: np.ndarray, short: float, aspect: float) -> float:
    """Share of the edges seen from corners that look like a nearly whole side of a card
    of this size (those cut short by other cards look like nothing in particular)."""
    lo, hi = WHOLE_ARM
    whole = ((arms > lo * short) & (arms < hi * short)) | \
        ((arms > lo * short * aspect) & (arms < hi * short * aspect))
    return float(whole.mean())


def rectangles(cs: list[Corner], short: float, aspect: float) -> np.ndarray:
    """The card rectangles (R, 4, 2) with a corner at each of ``cs`` (long side along
    either arm, in that order), all at once."""
    if not cs:
        return np.zeros((0, 4, 2), np.float32)
    p, a0, b0 = (np.array([getattr(c, f) for c in cs]) for f in "pab")
    bis = a0 + b0
    bis /= np.linalg.norm(bis, axis=1, keepdims=True) + 1e-9
    perp = np.stack([-bis[:, 1], bis[:, 0]], axis=1)
    s = np.where((perp * a0).sum(axis=1) > 0, 1, -1)[:, None]
    a = (bis + s * perp) / np.sqrt(2)     # the arms made exactly square, splitting the error
    b = (bis - s * perp) / np.sqrt(2)
    la, lb = np.array([c.la for c in cs]), np.array([c.lb for c in cs])
    long = short * aspect
    quads, fits = [], []
    for sa, sb in ((long, short), (short, long)):
        fits.append(~((la > sa * ARM_SLACK) | (lb > sb * ARM_SLACK)))
        quads.append(np.stack([p, p + a * sa, p + a * sa + b * sb, p + b * sb], axis=1))
    keep = np.stack(fits, axis=1).reshape(-1)          # corner by corner, both ways each
    return order_quads(np.stack(quads, axis=1).reshape(-1, 4, 2)[keep])


def edge_support(quads: np.ndarray, segs: np.ndarray, near: np.ndarray) -> np.ndarray:
    """Share of each quad's outline (R, 4, 2) lying along a parallel straight edge, of the
    segments ``near`` it (R, S): all quads at once."""
    q = np.asarray(quads, np.float64)
    p1 = segs[:, :2]
    v = segs[:, 2:] - p1
    L = np.linalg.norm(v, axis=1) + 1e-9
    u = v / L[:, None]
    t = SIDE_POINTS
    e = np.roll(q, -1, axis=1) - q                                   # (R, 4, 2) the sides
    unit = e / (np.linalg.norm(e, axis=2, keepdims=True) + 1e-9)
    r, k, j = np.nonzero(near[:, None, :] & (np.abs(unit @ u.T) > PARALLEL))   # parallel edges
    pts = q[r, k][:, None, :] + t[None, :, None] * e[r, k][:, None, :]     # (pairs, 12, 2)
    rel = pts - p1[j][:, None, :]
    along = (rel * u[j][:, None, :]).sum(-1)
    off = np.abs(rel[..., 0] * u[j, 1][:, None] - rel[..., 1] * u[j, 0][:, None])
    on = (off < ON_EDGE) & (along > -EDGE_RUN) & (along < L[j][:, None] + EDGE_RUN)
    hit = np.zeros((len(q), 4, len(t)), np.int32)        # edges along each point of each side
    np.add.at(hit, (r, k), on.astype(np.int32))
    return (hit > 0).sum(axis=(1, 2)) / (4 * len(t))


def snap(quads: np.ndarray, segs: np.ndarray, near: np.ndarray, mask: np.ndarray, short: float
         ) -> list[np.ndarray]:
    """Each rectangle (R, 4, 2) moved onto the straight edges along its sides, of the
    segments ``near`` it (R, S): all rectangles at once.

    It turns by the edges' mean deviation. Along each axis, a side on the blob's outline
    (table beyond it) is put on its edge; a side inside the blob only when the other one
    is inside too, or when it agrees with the card's size (the border of a card lying on
    another is faint, its printed frame a little inside is not). A side without a good
    edge is placed from the other at the card's size. A rectangle with no edge along any
    side is returned as it was.
    """
    q = np.asarray(quads, np.float64)
    c = q.mean(axis=1)                                               # (R, 2)
    e = np.stack([q[:, 1] - q[:, 0], q[:, 2] - q[:, 1]], axis=1)     # (R, axis, 2)
    half = np.linalg.norm(e, axis=2) / 2                             # (R, axis)
    e = e / (2 * half[..., None])
    mid = (segs[:, :2] + segs[:, 2:]) / 2
    v = segs[:, 2:] - segs[:, :2]
    L = np.linalg.norm(v, axis=1) + 1e-9
    u = v / L[:, None]
    rel = mid[None] - c[:, None]                                     # (R, S, 2)
    proj = np.einsum("rsk,rak->rsa", rel, e)                         # (R, S, axis)
    ue = np.einsum("sk,rak->rsa", u, e)
    sides = {}       # (axis, sign) -> (selected (R, S), weights (R, S), on outline (R,), any (R,))
    for ax in (0, 1):
        hw = half[:, 1 - ax, None]          # sides across axis ax run along the other axis
        along = proj[..., 1 - ax]
        over = np.minimum(along + L / 2, hw) - np.maximum(along - L / 2, -hw)
        base = near & (np.abs(ue[..., 1 - ax]) > PARALLEL) & (over > SNAP_OVERLAP * hw)
        for sign in (1, -1):
            off = proj[..., ax] * sign - half[:, ax, None]
            ok = base & (np.abs(off) < SNAP_REACH * short)
            top = np.where(ok, off, -np.inf).max(axis=1, keepdims=True)
            sel = ok & (off > top - SNAP_BAND)
            n = sel.sum(axis=1)
            r, j = np.nonzero(sel)
            beyond = np.bincount(r, _beyond(mask, segs[j], e[r, ax] * sign).sum(axis=1), len(q))
            sides[ax, sign] = (sel, np.where(sel, over, 0.0), 2 * beyond > 5 * n, n > 0)
    num = np.zeros(len(q))
    den = np.zeros(len(q))
    for (ax, _), (sel, w, _, _) in sides.items():
        t = e[:, 1 - ax]
        d = u * np.sign(ue[..., 1 - ax])[..., None]                  # (R, S, 2)
        ang = np.arctan2(d[..., 0] * t[:, None, 1] - d[..., 1] * t[:, None, 0],
                         np.einsum("rsk,rk->rs", d, t))
        num -= (ang * w).sum(axis=1)
        den += w.sum(axis=1)
    seen = den > 0
    rot = np.where(seen, num / np.where(seen, den, 1.0), 0.0)
    cos, sin = np.cos(rot), np.sin(rot)
    e = np.stack([cos[:, None] * e[..., 0] - sin[:, None] * e[..., 1],
                  sin[:, None] * e[..., 0] + cos[:, None] * e[..., 1]], axis=-1)
    proj = np.einsum("rsk,rak->rsa", rel, e)
    pos = {key: (proj[..., key[0]] * w).sum(axis=1) / np.where(any_, w.sum(axis=1), 1.0)
           for key, (_, w, _, any_) in sides.items()}
    moved = np.zeros_like(q)
    for r in range(len(q)):
        shift = np.zeros(2)
        hr = half[r].copy()
        for ax in (0, 1):
            at = {sg: float(pos[ax, sg][r]) for sg in (1, -1) if sides[ax, sg][3][r]}
            rim = {sg: bool(sides[ax, sg][2][r]) for sg in at}
            if len(at) == 2:
                size = (at[1] - at[-1]) / (2 * hr[ax])
                if all(rim.values()) or (not any(rim.values()) and abs(size - 1) < SIZE_AGREES) \
                        or SIZE_SNUG[0] < size < SIZE_SNUG[1]:
                    shift += e[r, ax] * (at[1] + at[-1]) / 2
                    hr[ax] = (at[1] - at[-1]) / 2
                    continue
                at = {sg: p for sg, p in at.items() if rim[sg]}
            if at:
                sign = max(at, key=lambda sg: (rim[sg], float(sides[ax, sg][1][r].sum())))
                shift += e[r, ax] * (at[sign] - sign * hr[ax])
        cr = c[r] + shift
        a0, a1 = e[r, 0] * hr[0], e[r, 1] * hr[1]
        moved[r] = [cr - a0 - a1, cr + a0 - a1, cr + a0 + a1, cr - a0 + a1]
    found = np.any([sides[key][3] for key in sides], axis=0)
    ordered = iter(order_quads(moved[found]))
    return [next(ordered) if f else q[r] for r, f in enumerate(found)]


def _beyond(mask: np.ndarray, segs: np.ndarray, out: np.ndarray) -> np.ndarray:
    """(n, 5): whether the table (not card) lies just beyond 5 points along each of n edges
    (n, 4), each on its side ``out`` (n, 2)."""
    h, w = mask.shape
    t = BEYOND_POINTS
    pts = segs[:, None, :2] + t[None, :, None] * (segs[:, None, 2:] - segs[:, None, :2]) + BEYOND_STEP * out[:, None]
    p = np.round(pts).astype(int)
    inb = (p[..., 0] >= 0) & (p[..., 0] < w) & (p[..., 1] >= 0) & (p[..., 1] < h)
    beyond = np.zeros(inb.shape, bool)
    beyond[inb] = mask[p[..., 1][inb], p[..., 0][inb]] == 0
    return beyond


def _outline(mask: np.ndarray, segs: np.ndarray, out: np.ndarray) -> bool:
    """Whether the table (not card) lies just beyond these edges, on the ``out`` side."""
    return bool(_beyond(mask, segs, np.broadcast_to(out, (len(segs), 2))).mean() > 0.5)


def hypotheses(cs: list[Corner], segs: np.ndarray, mask: np.ndarray, short: float,
               aspect: float, coverage: Coverage) -> list[Hypothesis]:
    """The corners' card rectangles that the mask supports, one per card, best first."""
    raw = [q for q in rectangles(cs, short, aspect) if coverage(mask, q) >= MIN_COVER - PRE_COVER]
    if not raw:
        return []
    near = _near(np.array(raw), segs, NEAR_EDGES * short)
    snapped = snap(np.array(raw), segs, near, mask, short)
    cover = np.array([coverage(mask, q) for q in snapped])
    ok = np.flatnonzero(cover >= MIN_COVER)
    edges = edge_support(np.array([snapped[k] for k in ok]).reshape(-1, 4, 2), segs, near[ok])
    out = [Hypothesis(snapped[k], float(cover[k]), float(x)) for k, x in zip(ok, edges)]
    out.sort(key=lambda hy: -hy.score)
    keep = _distinct([hy.quad for hy in out], short)
    return [hy for hy in out if any(hy.quad is k for k in keep)]


def _near(quads: np.ndarray, segs: np.ndarray, margin: float) -> np.ndarray:
    """Which segments (S) come within ``margin`` of each quad's (R, 4, 2) circumcircle (the
    only ones that can lie along its sides, before and after snapping), (R, S)."""
    c = quads.mean(axis=1)
    r = np.linalg.norm(quads - c[:, None], axis=2).max(axis=1).astype(np.float64) + margin
    p1, v = segs[:, :2], segs[:, 2:] - segs[:, :2]
    t = np.clip(((c[:, None] - p1) * v).sum(2) / ((v * v).sum(1) + 1e-9), 0, 1)
    return np.linalg.norm(p1 + t[..., None] * v - c[:, None], axis=2) < r[:, None]


def _distinct(quads: list[np.ndarray], short: float) -> list[np.ndarray]:
    """The quads in order, each dropped when an earlier one is the same card."""
    if not quads:
        return []
    q = np.array(quads)
    c = q.mean(axis=1)
    d = q[:, 2] - q[:, 1]
    d /= np.linalg.norm(d, axis=1, keepdims=True) + 1e-9
    near = np.linalg.norm(c[:, None] - c[None], axis=2) < ONE_CARD_CENTRE * short
    para = np.abs(d @ d.T) > np.cos(SAME_TURN)
    same = near & para
    keep: list[int] = []
    for i in range(len(quads)):
        if not same[i, keep].any():
            keep.append(i)
    return [quads[i] for i in keep]


def explain(hyps: list[Hypothesis], mask: np.ndarray, coverage: Coverage) -> list[Hypothesis]:
    """Geometry's own choice: best supported first, each explaining something new."""
    kept: list[Hypothesis] = []
    explained = np.zeros_like(mask)
    for hy in hyps:
        free = cv2.bitwise_and(mask, cv2.bitwise_not(explained))
        if coverage(free, hy.quad) < MIN_NEW:
            continue
        kept.append(hy)
        cv2.fillPoly(explained, [np.round(hy.quad).astype(np.int32)], 255)
    return kept


def fit(region: np.ndarray, quads: list[np.ndarray]) -> float:
    """How well quads cover the blobs: covered share minus the share they spill outside."""
    cover = np.zeros_like(region)
    for q in quads:
        cv2.fillPoly(cover, [np.round(q).astype(np.int32)], 255)
    n = max(1, int(np.count_nonzero(region)))
    inside = np.count_nonzero(cover & region)
    return (inside - SPILL * (np.count_nonzero(cover) - inside)) / n
