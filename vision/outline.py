"""Card outlines from straight edges: finding that does not depend on the table.

A card is a rectangle of known shape whose sides are straight edges, whatever lies around
it: paper on dark wood, on light wood as pale as the paper, on a checked cloth whose
lines are as light as the card, or on another card. So the image's straight edges are
found (OpenCV's line segment detector, on a working copy), pieces of one edge joined,
and every right-angled meeting of two edges *at their ends* is a corner. A cloth's
lines cross each other in their middles and make no such corners; a card's sides end
at its corners.

Card quads are then closed from the corners: four corners in a cycle give the card as
seen, perspective and all; two corners along one side give that side, and the deck's
shape gives the rest (a card half under another); lone corners take the size of the
cards closed elsewhere in the picture. Each quad is scored by how much of its outline
is an edge in the image (``side_support``), and identification decides among them.
"""
from __future__ import annotations

import statistics
from dataclasses import dataclass
from itertools import combinations

import cv2
import numpy as np

from vision.geometry import order_quad, quad_sides, square_meetings

WORK_SIDE = 800          # longest side of the working copy (as vision.finder)
MIN_SEGMENT = 0.035      # shortest straight edge kept, share of the working copy's short side
JOIN_ANGLE = np.radians(2.5)   # pieces of one edge: directions within this
JOIN_OFFSET = 1.5        # ... lying within this many working pixels of each other's line
JOIN_GAP = 0.03          # ... with a gap of at most this share of the short side
SQUARE_FULL = np.radians(22)    # a corner of a cycle of four may be this far off square (a slanted view)
SQUARE_PART = np.radians(12)    # a corner that closes a card from the deck's shape, this far
CORNER_GAP = 0.2         # an edge may stop this share of its length short of the corner (rounded corners)
CORNER_GAP_MAX = 0.045   # ... but never more than this share of the short side
THROUGH = 2.0            # working pixels an edge may run on past its corner
SHAPE_TOL = 0.15         # |log| of a closed quad's side ratio over the deck's
ARM_SLACK = 1.12         # an edge from a corner is at most this much longer than the side it lies on
MIN_CARD = 0.05          # a card's short side is at least this share of the short side


@dataclass(frozen=True)
class Outline:
    """A card quad proposed from straight edges (full-image pixels)."""

    quad: np.ndarray     # (4, 2) float32, ordered (vision.geometry.order_quad)
    corners: int         # how many of its corners were seen as corners (4: a whole card)
    support: float       # share of its outline that is an edge in the image
    sides: int           # how many of its sides are edges along most of their length


def segments(grey: np.ndarray) -> np.ndarray:
    """Straight edges (x1, y1, x2, y2) of at least MIN_SEGMENT, pieces of one edge joined."""
    h, w = grey.shape
    lsd = cv2.createLineSegmentDetector(cv2.LSD_REFINE_STD)
    found = lsd.detect(grey)[0]
    if found is None:
        return np.zeros((0, 4))
    s = found.reshape(-1, 4).astype(np.float64)
    s = s[np.hypot(s[:, 2] - s[:, 0], s[:, 3] - s[:, 1]) >= 0.5 * MIN_SEGMENT * min(h, w)]
    s = join(s, JOIN_GAP * min(h, w))
    return s[np.hypot(s[:, 2] - s[:, 0], s[:, 3] - s[:, 1]) >= MIN_SEGMENT * min(h, w)]


def join(segs: np.ndarray, gap: float) -> np.ndarray:
    """Collinear pieces of one edge made one segment (an edge broken by glare, a pip
    touching it, the detector's own splits): pieces whose lines agree within JOIN_ANGLE
    and JOIN_OFFSET and that overlap or leave a gap of at most ``gap`` are grouped, and each
    group becomes the segment spanning its pieces along their length-weighted line."""
    n = len(segs)
    if n < 2:
        return segs
    p, q = segs[:, :2], segs[:, 2:]
    v = q - p
    L = np.linalg.norm(v, axis=1) + 1e-9
    u = v / L[:, None]
    theta = np.mod(np.arctan2(u[:, 1], u[:, 0]), np.pi)
    order = np.argsort(theta)
    th = theta[order]
    # candidate pairs: directions within JOIN_ANGLE (sorted sweep, wrapping at 180°)
    ext = np.concatenate([th, th + np.pi])
    hi = np.searchsorted(ext, th + JOIN_ANGLE, side="right")
    counts = np.minimum(hi - np.arange(n) - 1, n - 1)
    if counts.sum() == 0:
        return segs
    i = np.repeat(np.arange(n), counts)
    j = (np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)) + i + 1
    a, b = order[i], order[j % n]
    # a textured table (wood grain) gives thousands of short parallel pieces and a million
    # pairs: x and y as separate columns, and the pairs whose first end lies off the line
    # dropped before anything else is computed (the same test, a tenth of the work)
    ux, uy, px, py, qx, qy = u[:, 0], u[:, 1], p[:, 0], p[:, 1], q[:, 0], q[:, 1]
    dpx, dpy = px[b] - px[a], py[b] - py[a]
    near = np.abs(dpx * -uy[a] + dpy * ux[a]) < JOIN_OFFSET
    a, b, dpx, dpy = a[near], b[near], dpx[near], dpy[near]
    dqx, dqy = qx[b] - px[a], qy[b] - py[a]
    off = np.abs(dqx * -uy[a] + dqy * ux[a])
    ta, tb = dpx * ux[a] + dpy * uy[a], dqx * ux[a] + dqy * uy[a]
    lo, hi_ = np.minimum(ta, tb), np.maximum(ta, tb)
    ok = (off < JOIN_OFFSET) & (lo < L[a] + gap) & (hi_ > -gap)
    a, b = a[ok], b[ok]
    if not len(a):
        return segs
    parent = np.arange(n)

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for x, y in zip(a.tolist(), b.tolist()):
        rx, ry = find(x), find(y)
        if rx != ry:
            parent[max(rx, ry)] = min(rx, ry)
    roots = np.array([find(x) for x in range(n)])
    single = np.bincount(roots, minlength=n)[roots] == 1
    out = [segs[single]]
    for r in np.unique(roots[~single]):
        k = np.flatnonzero(roots == r)
        d = u[k] * np.where((u[k] @ u[k[np.argmax(L[k])]]) < 0, -1.0, 1.0)[:, None]
        t = (d * L[k, None]).sum(0)
        t /= np.linalg.norm(t)
        pts = np.concatenate([p[k], q[k]])
        w = np.concatenate([L[k], L[k]])
        c = (pts * w[:, None]).sum(0) / w.sum()
        nr = np.array([-t[1], t[0]])
        if np.abs((pts - c) @ nr).max() > 2 * JOIN_OFFSET:     # a drifting chain: keep its pieces
            out.append(segs[k])
            continue
        s = (pts - c) @ t
        out.append(np.concatenate([c + s.min() * t, c + s.max() * t])[None])
    return np.concatenate(out)


@dataclass(frozen=True)
class _Corners:
    """Right-angled meetings of two edges at their ends (arrays, one row per corner)."""

    p: np.ndarray        # (n, 2) the point where the two edges' lines meet
    a: np.ndarray        # (n, 2) unit direction of the first edge, away from the corner
    b: np.ndarray        # (n, 2) ... of the second
    la: np.ndarray       # (n,) how far the first edge runs from the corner
    lb: np.ndarray
    si: np.ndarray       # (n,) index of the first edge, and which of its ends (0/1) is here
    ei: np.ndarray
    sj: np.ndarray
    ej: np.ndarray
    off: np.ndarray      # (n,) how far off square, radians


def corners(segs: np.ndarray, short_side: float) -> _Corners:
    """Every meeting of two edges near a right angle, each edge ending at it."""
    n = len(segs)
    empty = _Corners(*(np.zeros((0, 2)) for _ in range(3)), *(np.zeros(0) for _ in range(7)))
    if n < 2:
        return empty
    i, j, u, L, P, ti, tj = square_meetings(segs, np.sin(SQUARE_FULL))
    gmax = CORNER_GAP_MAX * short_side

    def end(t: np.ndarray, length: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        g = np.minimum(gmax, np.maximum(3.0, CORNER_GAP * length))
        at0 = (t < THROUGH) & (t > -g)                 # the corner lies before the start
        at1 = (t > length - THROUGH) & (t < length + g)  # ... or past the end
        arm = np.where(at0, length - t, t)            # how far the edge runs from the corner
        return at0 | at1, np.where(at0, 0, 1), arm

    oki, ei, ai = end(ti, L[i])
    okj, ej, aj = end(tj, L[j])
    ok = oki & okj
    k = np.flatnonzero(ok)
    si, sj = i[k], j[k]
    ei, ej = ei[k], ej[k]
    a = u[si] * np.where(ei == 0, 1.0, -1.0)[:, None]
    b = u[sj] * np.where(ej == 0, 1.0, -1.0)[:, None]
    off = np.abs(np.arcsin(np.clip(np.abs((u[si] * u[sj]).sum(1)), 0, 1)))
    P = P[k]
    # a crossing of two lines (a cloth's check, a grid) is no corner: one of them runs on
    # past the meeting point, while a card's sides both end at its corner
    keep = ~(_runs_on(P, a, segs, gmax) | _runs_on(P, b, segs, gmax))
    ks = _one_per_spot(P, a, b, np.minimum(ai[k], aj[k]), keep)
    return _Corners(P[ks], a[ks], b[ks], ai[k][ks], aj[k][ks], si[ks], ei[ks], sj[ks], ej[ks], off[ks])


SAME_SPOT = 5.0          # working pixels: corners this close with the same arms are one (an edge found on both its sides)


def _one_per_spot(P: np.ndarray, a: np.ndarray, b: np.ndarray, arm: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """Indices of the kept corners, one per spot and pair of arm directions: of corners
    within SAME_SPOT with the same arms (an edge found on both its sides, a card's printed
    frame just inside its border) the outermost, which is the card's own corner."""
    idx = np.flatnonzero(keep)
    out = (-(a + b) / (np.linalg.norm(a + b, axis=1, keepdims=True) + 1e-9) * P).sum(1)   # how far outward
    chosen: list[int] = []
    for k in idx[np.argsort(-arm[idx])]:
        if chosen:
            o = np.array(chosen)
            near = np.linalg.norm(P[o] - P[k], axis=1) < SAME_SPOT
            same = ((a[o] @ a[k] > 0.97) & (b[o] @ b[k] > 0.97)) | ((b[o] @ a[k] > 0.97) & (a[o] @ b[k] > 0.97))
            hit = np.flatnonzero(near & same)
            if len(hit):
                j = int(o[hit[0]])
                if out[k] > out[j]:
                    chosen[chosen.index(j)] = int(k)
                continue
        chosen.append(int(k))
    return np.array(sorted(chosen), int)


RUN_ON = 0.5             # an edge running on past a corner by this share of the corner gap makes it a crossing


def _runs_on(P: np.ndarray, arm: np.ndarray, segs: np.ndarray, gap: float) -> np.ndarray:
    """Whether some edge continues each corner's ``arm`` line backwards past the corner:
    collinear with it, starting within ``gap`` of the corner and reaching RUN_ON * gap beyond."""
    if not len(P) or not len(segs):
        return np.zeros(len(P), bool)
    p1, p2 = segs[:, :2], segs[:, 2:]
    v = p2 - p1
    u = v / (np.linalg.norm(v, axis=1, keepdims=True) + 1e-9)
    # the edges parallel to each arm first (a few of them), the rest tested on those only;
    # in chunks of corners: bounded memory on a busy picture
    pairs = [np.nonzero(np.abs(arm[c:c + 256] @ u.T) > np.cos(2 * JOIN_ANGLE)) for c in range(0, len(P), 256)]
    ci = np.concatenate([k + c for c, (k, _) in zip(range(0, len(P), 256), pairs)])
    si = np.concatenate([s for _, s in pairs])
    ax, ay = arm[ci, 0], arm[ci, 1]
    d1x, d1y = p1[si, 0] - P[ci, 0], p1[si, 1] - P[ci, 1]
    d2x, d2y = p2[si, 0] - P[ci, 0], p2[si, 1] - P[ci, 1]
    o1, o2 = np.abs(d1x * -ay + d1y * ax), np.abs(d2x * -ay + d2y * ax)
    t1, t2 = -(d1x * ax + d1y * ay), -(d2x * ax + d2y * ay)     # how far behind the corner, along -arm
    hit = (np.maximum(o1, o2) < 2 * JOIN_OFFSET) & (np.minimum(t1, t2) < gap) & (np.maximum(t1, t2) > RUN_ON * gap)
    out = np.zeros(len(P), bool)
    out[ci[hit]] = True
    return out


def _card_shaped(q: np.ndarray, aspect: float, min_short: float) -> bool:
    """Whether the ordered quad ``q`` has the deck's shape and a card's least size."""
    short, long = quad_sides(q)
    return short >= min_short and short > 0 and abs(np.log(long / short / aspect)) <= SHAPE_TOL


def _convex(q: np.ndarray) -> bool:
    return bool(cv2.isContourConvex(np.asarray(q, np.float32).reshape(-1, 1, 2)))


def _square(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Two arm directions made exactly square, splitting the error between them."""
    bis = a + b
    bis /= np.linalg.norm(bis) + 1e-9
    perp = np.array([-bis[1], bis[0]])
    s = 1 if perp @ a > 0 else -1
    return (bis + s * perp) / np.sqrt(2), (bis - s * perp) / np.sqrt(2)


LINK_ANGLE = np.radians(10)     # two corners along one side: the side's direction within this of each arm
LINK_OFFSET = 0.06       # ... and each corner within this share of the side's length off the other's arm
LINK_SEEN = 0.25         # ... and the two arms along it cover at least this share of it


def links(cs: _Corners, min_short: float) -> np.ndarray:
    """(n, n, 2) array: ``links[i, j, s]`` when corner j lies along arm s (0: a, 1: b) of
    corner i, with an arm of its own pointing back and its other arm on the same side as
    i's: the two ends of one card side."""
    n = len(cs.p)
    out = np.zeros((n, n, 2), bool)
    if n < 2:
        return out
    d = cs.p[None, :, :] - cs.p[:, None, :]                  # i -> j
    dist = np.linalg.norm(d, axis=2)
    t = d / (dist[..., None] + 1e-9)
    cos_lim = np.cos(LINK_ANGLE)
    arms = (cs.a, cs.b)
    lens = (cs.la, cs.lb)
    for s in (0, 1):
        along = (t * arms[s][:, None, :]).sum(2)                # cos between i's arm s and i->j
        back_a = -(t * cs.a[None, :, :]).sum(2)                 # j's arm a points back to i
        back_b = -(t * cs.b[None, :, :]).sum(2)
        back = np.maximum(back_a, back_b)
        back_len = np.where(back_a >= back_b, cs.la[None, :], cs.lb[None, :])
        # the card lies on the same side of the side at both ends: j's other arm points
        # where i's does (a stripe ending on the card's side points away from the card)
        across_i = arms[1 - s][:, None, :]
        across_j = np.where((back_a >= back_b)[..., None], cs.b[None, :, :], cs.a[None, :, :])
        same_side = (across_i * across_j).sum(2) > np.cos(SQUARE_FULL)
        off = np.sqrt(np.maximum(0.0, 1 - along ** 2)) * dist
        ok = ((along > cos_lim) & (back > cos_lim) & same_side & (dist >= min_short)
              & (off < LINK_OFFSET * dist)
              & (lens[s][:, None] + back_len >= LINK_SEEN * dist))
        # only the nearest few along each arm: a grid's corners (a check cloth) would
        # otherwise close every rectangle of its cells
        d = np.where(ok, dist, np.inf)
        out[..., s] = ok & (d <= LINK_NEAREST * d.min(axis=1, keepdims=True))
    return out


LINK_NEAREST = 1.25      # corners linked along an arm lie at most this much farther than the nearest
#   (one corner seen several times: edge, inner frame line; a grid's next cell lies twice as far)


def closed_quads(cs: _Corners, aspect: float, min_short: float) -> list[tuple[np.ndarray, int]]:
    """Card quads closed from the corners, each with how many of its corners were seen.

    Four corners linked side to side are the card as seen (any slant); three give its
    fourth corner as a parallelogram's; two along one side give that side and the deck's
    shape the other; a lone corner takes the size of the nearest card closed otherwise.
    """
    n = len(cs.p)
    lk = links(cs, min_short)
    adj = lk.any(axis=2)
    adj = adj & adj.T
    nxt = [np.flatnonzero(adj[i]) for i in range(n)]
    turns = _turns_at(cs.p, nxt)
    out: list[tuple[np.ndarray, int]] = []
    seen_cycles = set()
    chains3 = []
    for k0 in range(n):
        for k1 in nxt[k0]:
            for k2 in nxt[k1]:
                if k2 not in turns[k1][k0]:
                    continue
                chains3.append((k0, k1, k2))
                for k3 in nxt[k2]:
                    # a card turns square at each of its four corners. With only the first two
                    # turns asked, two corners a few pixels apart on one edge closed a "quad" folded
                    # back on itself: corners (502, 89), (510, 89), (506, 1161), (77, 92) of the
                    # Bresciane back scan's lattice (../shared/realdata), enrolled as the back
                    if k3 in (k0, k1) or not adj[k3, k0] or not (
                            k3 in turns[k2][k1] and k0 in turns[k3][k2] and k1 in turns[k0][k3]):
                        continue
                    key = tuple(sorted((k0, k1, k2, k3)))
                    if key in seen_cycles:
                        continue
                    seen_cycles.add(key)
                    q = order_quad(cs.p[[k0, k1, k2, k3]])
                    if _convex(q) and _card_shaped(q, aspect, min_short):
                        out.append((q, 4))
    closed = {frozenset(t) for c in seen_cycles for t in combinations(c, 3)}
    for k0, k1, k2 in chains3:
        if frozenset((k0, k1, k2)) in closed:
            continue
        p = cs.p[[k0, k1, k2]]
        q = order_quad(np.array([p[0], p[1], p[2], p[0] + p[2] - p[1]]))
        if _convex(q) and _card_shaped(q, aspect, min_short):
            out.append((q, 3))
    part = cs.off <= SQUARE_PART
    sizes: list[tuple[np.ndarray, float]] = [(q.mean(axis=0), quad_sides(q)[0]) for q, _ in out]
    for k0 in range(n):
        for k1 in nxt[k0]:
            if k1 <= k0 or not (part[k0] and part[k1]):
                continue
            P0, P1 = cs.p[k0], cs.p[k1]
            d = float(np.linalg.norm(P1 - P0))
            t = (P1 - P0) / d
            b0 = _arm_across(cs, k0, t)
            b1 = _arm_across(cs, k1, -t)
            if b0 is None or b1 is None or b0[0] @ b1[0] < np.cos(SQUARE_PART):
                continue
            nrm = b0[0] + b1[0]
            nrm /= np.linalg.norm(nrm)
            for other in (d * aspect, d / aspect):
                if max(b0[1], b1[1]) > ARM_SLACK * other or other < min_short:
                    continue
                q = order_quad(np.array([P0, P1, P1 + nrm * other, P0 + nrm * other]))
                out.append((q, 2))
                sizes.append((q.mean(axis=0), min(d, other)))
    if sizes:
        centres = np.array([c for c, _ in sizes])
        shorts = np.array([s for _, s in sizes])
        for k in np.flatnonzero(part):
            near = np.argsort(np.linalg.norm(centres - cs.p[k], axis=1))[:LONE_SIZES]
            a, b = _square(cs.a[k], cs.b[k])
            P = cs.p[k]
            for short in _distinct_sizes(list(shorts[near])):
                for sa, sb in ((short * aspect, short), (short, short * aspect)):
                    if cs.la[k] > ARM_SLACK * sa or cs.lb[k] > ARM_SLACK * sb:
                        continue
                    out.append((order_quad(np.array([P, P + a * sa, P + a * sa + b * sb, P + b * sb])), 1))
    return out


LONE_SIZES = 3           # closed cards nearest a lone corner whose sizes it tries


def _turns_at(p: np.ndarray, nxt: list[np.ndarray]) -> list[dict[int, set[int]]]:
    """``turns[k1][k0]``: the corners k2 linked to k1 for which k0 -> k1 -> k2 turns by about
    a right angle (three corners of one card). All at once per corner, as sets: the cycle
    search asks ~1,500 times a still, and a numpy call per question cost a tenth of
    :func:`propose`'s time."""
    out: list[dict[int, set[int]]] = []
    for k1, near in enumerate(nxt):
        if len(near) < 2:
            out.append({int(k): set() for k in near})
            continue
        u = p[k1] - p[near]                     # k0 -> k1, and k1 -> k2 reversed
        u = u / np.linalg.norm(u, axis=1, keepdims=True)
        square = np.abs(u @ u.T) < np.sin(SQUARE_FULL)
        out.append({int(k0): set(near[square[i]].tolist()) for i, k0 in enumerate(near)})
    return out


def _arm_across(cs: _Corners, k: int, t: np.ndarray) -> tuple[np.ndarray, float] | None:
    """Corner k's arm that is not along ``t`` (direction and length), or None when
    neither of its arms runs along ``t``."""
    if cs.a[k] @ t > np.cos(SQUARE_PART):
        return cs.b[k], float(cs.lb[k])
    if cs.b[k] @ t > np.cos(SQUARE_PART):
        return cs.a[k], float(cs.la[k])
    return None


SIZE_TOL = 0.06          # two cards' short sides within this share are one card size


def _distinct_sizes(sizes: list[float]) -> list[float]:
    """The card sizes seen, near-equal ones as one (their median), most seen first."""
    groups: list[list[float]] = []
    for s in sorted(sizes):
        if groups and s <= groups[-1][0] * (1 + 2 * SIZE_TOL):
            groups[-1].append(s)
        else:
            groups.append([s])
    groups.sort(key=len, reverse=True)
    return [float(statistics.median(g)) for g in groups[:2]]   # a few floats: numpy's costs 70 us


EDGE_STEP = 4.0          # grey levels per pixel across a side for that point to be on an edge
SIDE_SEEN = 0.6          # a side is an edge when this share of its points is
ALONG = np.linspace(0.12, 0.88, 16)    # points along a side (its rounded ends left out)
OFFSETS = np.arange(-2.0, 2.5, 1.0)    # working pixels across a side searched for its edge


def side_support(gx: np.ndarray, gy: np.ndarray, quads: np.ndarray) -> np.ndarray:
    """(n, 4): for each side of each quad, the share of its points where the image steps
    across it the same way along the side (one edge, not texture)."""
    q = np.asarray(quads, np.float64).reshape(-1, 4, 2)
    if not len(q):
        return np.zeros((0, 4))
    a, b = q, np.roll(q, -1, axis=1)                             # (n, 4, 2) side ends
    d = b - a
    L = np.linalg.norm(d, axis=2, keepdims=True) + 1e-9
    t = d / L
    nrm = np.stack([-t[..., 1], t[..., 0]], axis=2)
    c = q.mean(axis=1, keepdims=True)
    flip = ((nrm * ((a + b) / 2 - c)).sum(2, keepdims=True) < 0)
    nrm = np.where(flip, -nrm, nrm)                              # outward
    pts = a[:, :, None, :] + ALONG[None, None, :, None] * d[:, :, None, :]      # (n, 4, P, 2)
    samp = pts[:, :, :, None, :] + OFFSETS[None, None, None, :, None] * nrm[:, :, None, None, :]
    mx = samp[..., 0].reshape(-1, len(ALONG) * len(OFFSETS)).astype(np.float32)   # remap: < 32767 rows
    my = samp[..., 1].reshape(-1, len(ALONG) * len(OFFSETS)).astype(np.float32)
    sx = cv2.remap(gx, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT).reshape(samp.shape[:-1])
    sy = cv2.remap(gy, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT).reshape(samp.shape[:-1])
    across = sx * nrm[:, :, None, None, 0] + sy * nrm[:, :, None, None, 1]      # (n, 4, P, O)
    col = np.abs(across.mean(axis=2)).argmax(axis=2)                           # (n, 4)
    v = np.take_along_axis(across, col[:, :, None, None], axis=3)[..., 0]      # (n, 4, P)
    sign = np.sign(np.median(v, axis=2, keepdims=True))
    sign[sign == 0] = 1.0
    out = ((v * sign) > EDGE_STEP).mean(axis=2)
    out[L[..., 0] < 4] = 0.0
    return out


def gradients(grey: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Grey-level derivatives in grey levels per pixel (Sobel scaled to one pixel)."""
    g = cv2.GaussianBlur(grey, (3, 3), 0)
    return (cv2.Sobel(g, cv2.CV_32F, 1, 0, ksize=3) / 8.0,
            cv2.Sobel(g, cv2.CV_32F, 0, 1, ksize=3) / 8.0)


def propose(image: np.ndarray, aspect: float) -> list[Outline]:
    """Card quads in ``image`` (BGR or grey) from its straight edges, best supported first."""
    return propose_shapes(image, (aspect,))[0]


def propose_shapes(image: np.ndarray, aspects: tuple[float, ...]) -> list[list[Outline]]:
    """:func:`propose` for each of several card shapes (enrolment, before the deck's shape is
    known): the edges, corners and gradients do not depend on the shape and are found once."""
    H, W = image.shape[:2]
    f = min(1.0, WORK_SIDE / max(H, W))
    small = cv2.resize(image, (max(1, round(W * f)), max(1, round(H * f))),
                       interpolation=cv2.INTER_AREA) if f < 1 else image
    grey = small if small.ndim == 2 else cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
    h, w = grey.shape
    cs = corners(segments(grey), min(h, w))
    gx, gy = None, None
    out: list[list[Outline]] = []
    for aspect in aspects:
        closed = closed_quads(cs, aspect, MIN_CARD * min(h, w))
        if not closed:
            out.append([])
            continue
        quads = np.array([q for q, _ in closed])
        seen = np.array([s for _, s in closed])
        if gx is None:
            gx, gy = gradients(grey)
        sup = side_support(gx, gy, quads)
        sides = (sup >= SIDE_SEEN).sum(axis=1)
        mean = sup.mean(axis=1)
        order = np.lexsort((-mean, -sides))
        keep = distinct(quads[order])
        out.append([Outline((quads[k] / f).astype(np.float32), int(seen[k]), float(mean[k]), int(sides[k]))
                    for k in order[keep]])
    return out


DISTINCT = 0.12          # quads whose corners all lie within this share of the short side: one card


def distinct(quads: np.ndarray) -> np.ndarray:
    """Indices of the quads (in order) each unlike every earlier one kept."""
    q = np.asarray(quads, np.float64)
    n = len(q)
    if not n:
        return np.zeros(0, int)
    short = np.minimum(np.linalg.norm(q[:, 1] - q[:, 0], axis=1), np.linalg.norm(q[:, 2] - q[:, 1], axis=1))
    flat, turned = q.reshape(n, 8), np.roll(q, 2, axis=1).reshape(n, 8)
    kept = np.zeros(n, int)
    k = 0
    for i in range(n):      # each against the few kept so far, not all n x n pairs
        d = np.minimum(np.abs(flat[i] - flat[kept[:k]]).max(axis=1), np.abs(flat[i] - turned[kept[:k]]).max(axis=1))
        if not (d < DISTINCT * np.minimum(short[i], short[kept[:k]])).any():
            kept[k] = i
            k += 1
    return kept[:k]
