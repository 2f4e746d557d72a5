"""Reading corner indices: the rank glyph with the small suit sign under it.

In a fanned hand most cards show nothing but their corner index. Templates are cut from the
enrolled faces (Profile.faces, no format change): in each face the index's ink components
(dark, or red, on the light paper) are found in the top-left corner (and, rotated, in the
bottom-right). The suit sign and one rank component define "up" (sign to rank); each of
the two glyphs is then sampled in its own frame (its centroid, that direction, its own
spread of ink along it as the unit), and so is every pair of ink components of an image
that could be a sign and a rank. Sampling each glyph on its own scale makes the comparison
free of position, rotation, scale and of the index layout, which differs between prints
of one design (the bidly singles space sign and rank wider than the dealt deck), so one
matrix product compares every pair with every template.

A pair is named only when its best card beats every other card clearly, on the whole
patch and on the pixels where the two leading cards differ (vision.duel), with both its
rank half and its sign half matching, and its colour (red or black) agreeing ("never
guess"). Each card is in a deck once: an id read at two places that cannot be one card
is not believed; the two indices of one card give the same card quad and are merged.
"""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision import duel as duel_mod
from vision.geometry import order_quad, quad_sides

FACE_WINDOW = 15       # px (in a 160 px wide face) whose brightest pixel is the paper under a glyph
IMAGE_WINDOW = 25      # an image's shorter side / this = its paper window (wider than the signs of
#                        close-ups such as the deepPoker peeks, whose signs are 1/20 of the side)
INK_CUT = 0.4          # ink strength (less green and blue than the local paper) of a glyph pixel
CELLS = 16             # cells per side of each glyph's patch
SPAN = 2.6             # patch half-side, in the glyph's own ink spread (std) along "up"
CORNER = (0.24, 0.34)  # share of a face's (w, h) searched for its top-left index
PAIR_SLACK = 1.6       # how far beyond the templates' own range a pair's proportions may lie
MAX_PAIRS = 6000       # candidate pairs compared per image (the closest first)
MIN_AREA = 12          # px: smallest ink blob taken for a glyph (the "1" of a 10 at 1200 px is ~40)
MAX_AREA = 0.003       # largest glyph blob, as a share of the image (a close-up's sign is ~0.002)
RED_CUT = 0.12         # redness above which ink is red (bidly: black templates <= 0.07, red >= 0.17)
SCORE_MIN = 0.6        # correlation the rank patch and the sign patch must each reach with their best
MARGIN_MIN = 0.01      # correlation margin of the rank, and of the suit, over the next best
DUEL_MIN = 0.2         # duel margin (vision.duel) of the rank, and of the suit, over the next best
INDEX_NEAR = 0.15      # reads whose index points lie closer (share of the card's short side) are one index
SAME_CARD = 0.35       # quads whose centres lie closer (share of the short side) are one card
BLUR = 0.8             # px sigma of the ink map before sampling (forgives a pixel of jitter)
D = CELLS * CELLS      # length of one glyph's patch


@dataclass(frozen=True)
class Template:
    card: str
    patch: np.ndarray      # (2*D,) rank patch then sign patch, each zero-mean unit-norm
    red: bool              # red ink
    corners: np.ndarray    # (4, 2) the face's corners in the frame (sign origin, sign-to-rank = (0, -1))
    shape: tuple[float, float, float]  # sign spread / d, rank spread / d, rank area / sign area


@dataclass(frozen=True)
class Read:
    """One corner index read in an image."""

    card: str | None       # None: unsure
    index: np.ndarray      # (2,) image point between sign and rank
    quad: np.ndarray       # (4, 2) the card quad the index implies
    score: float           # correlation with the named card's best template
    margin: float          # over the best other card (whole patch)
    duel: float            # on the pixels where the two leading cards differ
    top: tuple = ()        # ((card, score), ...) best first


@dataclass(frozen=True)
class Blobs:
    """Ink components of plausible glyph size."""

    centre: np.ndarray     # (N, 2)
    cov: np.ndarray        # (N, 2, 2) covariance of their pixel positions
    area: np.ndarray       # (N,)
    labels: np.ndarray     # int32 label image (connected components of the ink)
    ids: np.ndarray        # (N,) each blob's label there


def ink_map(bgr: np.ndarray, window: int) -> tuple[np.ndarray, np.ndarray]:
    """(ink, red): 0..1 maps of how much less green and blue than the local paper each
    pixel has (black and red ink alike), and how much more red than green or blue. Each
    channel is divided by its brightest value within ``window`` px (the paper there),
    which also undoes the light's colour (a warm lamp is not red ink)."""
    k = cv2.getStructuringElement(cv2.MORPH_RECT, (window, window))
    f = bgr.astype(np.float32)
    f /= np.maximum(cv2.dilate(f, k), 8.0)
    b, g, r = f[..., 0], f[..., 1], f[..., 2]
    gb = np.maximum(g, b)
    ink = np.clip(1.0 - gb, 0.0, 1.0)       # black ink and red ink both lack green and blue
    red = np.clip(r - gb, 0.0, 1.0)
    return ink, red


def blobs(ink: np.ndarray, min_area: int, max_area: int) -> Blobs:
    """Ink components of plausible glyph size, with their pixel-position covariance."""
    mask = (ink > INK_CUT).astype(np.uint8)
    n, lab, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    w, h, a = stats[:, cv2.CC_STAT_WIDTH], stats[:, cv2.CC_STAT_HEIGHT], stats[:, cv2.CC_STAT_AREA]
    keep = (a >= min_area) & (a <= max_area) & (a >= 0.12 * w * h) & (np.minimum(w, h) >= 2)
    keep[0] = False
    ys, xs = np.nonzero(mask)
    lb = lab[ys, xs]
    sel = keep[lb]
    ys, xs, lb = ys[sel].astype(np.float64), xs[sel].astype(np.float64), lb[sel]
    ids = np.flatnonzero(keep)
    remap = np.full(n, -1)
    remap[ids] = np.arange(len(ids))
    k = remap[lb]
    m = len(ids)
    cnt = np.maximum(np.bincount(k, minlength=m), 1)
    mx, my = np.bincount(k, xs, m) / cnt, np.bincount(k, ys, m) / cnt
    dx, dy = xs - mx[k], ys - my[k]
    cov = np.stack([np.bincount(k, dx * dx, m), np.bincount(k, dx * dy, m),
                    np.bincount(k, dx * dy, m), np.bincount(k, dy * dy, m)], axis=1) / cnt[:, None]
    cov += 1.0 / 12                           # a pixel's own extent
    return Blobs(np.stack([mx, my], axis=1), cov.reshape(m, 2, 2), cnt.astype(np.float64),
                 lab, ids)


def spread(cov: np.ndarray, unit: np.ndarray) -> np.ndarray:
    """Standard deviation of each blob's pixels along its unit vector."""
    return np.sqrt(np.einsum("ni,nij,nj->n", unit, cov, unit))


def _grid() -> tuple[np.ndarray, np.ndarray]:
    g = np.linspace(-SPAN, SPAN, CELLS)
    return np.meshgrid(g, g)


def sample(maps: list[np.ndarray], origin: np.ndarray, right: np.ndarray, down: np.ndarray
           ) -> list[np.ndarray]:
    """Each map sampled on the CELLS x CELLS grid of each frame (origin, scaled axes): (P, D);
    float32 maps bilinearly, the others (labels) at the nearest pixel."""
    gx, gy = _grid()
    out: list[list[np.ndarray]] = [[] for _ in maps]
    for s in range(0, len(origin), 1000):      # remap maps stay well under 32767 rows
        sl = slice(s, s + 1000)
        mx = origin[sl, 0, None, None] + gx * right[sl, 0, None, None] + gy * down[sl, 0, None, None]
        my = origin[sl, 1, None, None] + gx * right[sl, 1, None, None] + gy * down[sl, 1, None, None]
        mx, my = mx.reshape(-1, CELLS).astype(np.float32), my.reshape(-1, CELLS).astype(np.float32)
        for k, m in enumerate(maps):
            how = cv2.INTER_NEAREST if m.dtype == np.int32 else cv2.INTER_LINEAR
            p = cv2.remap(m.astype(np.float32) if how == cv2.INTER_NEAREST else m, mx, my, how,
                          borderMode=cv2.BORDER_CONSTANT, borderValue=0)
            out[k].append(p.reshape(-1, D))
    return [np.concatenate(o, axis=0) if o else np.zeros((0, D), np.float32) for o in out]


def describe(ink: np.ndarray, red: np.ndarray, b: Blobs, i: np.ndarray, j: np.ndarray
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Pairs (sign i, rank j) -> (patches (P, 2D) each half normed, redness (P,), d (P, 2):
    the sign-to-rank vector). Each half shows its own blob's ink only: a card edge or a
    pip beside the index is not part of the glyph."""
    up = b.centre[j] - b.centre[i]
    dist = np.linalg.norm(up, axis=1, keepdims=True)
    dn = -up / np.maximum(dist, 1e-6)
    rt = np.stack([dn[:, 1], -dn[:, 0]], axis=1)     # for down = (0, 1): right = (1, 0)
    halves, reds = [], []
    for c in (j, i):
        s = spread(b.cov[c], dn)[:, None]
        p, q, lab = sample([ink, red, b.labels], b.centre[c], rt * s, dn * s)
        p = np.where(np.abs(lab - b.ids[c][:, None]) < 0.5, p, 0.0)
        halves.append(_normed(p))
        on = p > INK_CUT
        reds.append((q * on).sum(axis=1) / np.maximum(on.sum(axis=1), 1))
    return np.concatenate(halves, axis=1), np.maximum(reds[0], reds[1]), up


def _normed(p: np.ndarray) -> np.ndarray:
    p = p - p.mean(axis=-1, keepdims=True)
    return p / (np.linalg.norm(p, axis=-1, keepdims=True) + 1e-6)


def _face_index(face: np.ndarray, ink: np.ndarray) -> tuple[Blobs, list[tuple[int, int]]]:
    """The index in a face's top-left corner: its blobs and [(sign, rank)] pairs (one per
    rank component, e.g. two for a 10)."""
    h, w = face.shape[:2]
    b = blobs(ink, 4, int(0.05 * w * h))
    c = b.centre
    inside = (c[:, 0] < CORNER[0] * w) & (c[:, 1] < CORNER[1] * h) & (c[:, 0] > 0.02 * w) & (c[:, 1] > 0.02 * h)
    ids = np.flatnonzero(inside)
    if len(ids) < 2:
        return b, []
    ids = ids[b.area[ids] >= 0.15 * b.area[ids].max()]        # not specks
    rank = int(ids[np.argmin(c[ids, 0] + c[ids, 1])])            # the glyph nearest the corner
    size = np.sqrt(b.area[rank])
    below = [k for k in ids if c[k, 1] > c[rank, 1] + 0.5 * size and abs(c[k, 0] - c[rank, 0]) < 1.5 * size
             and b.area[k] >= 0.2 * b.area[rank]]
    if not below:
        return b, []
    sign = int(min(below, key=lambda k: c[k, 1]))
    ranks = [k for k in ids if k != sign and abs(c[k, 1] - c[rank, 1]) < 0.4 * size
             and abs(c[k, 0] - c[rank, 0]) < 2 * size]              # the rank's other digit (10)
    return b, [(sign, int(k)) for k in ranks]


def templates(faces: dict[str, list[np.ndarray]]) -> list[Template]:
    """Index templates of every face (top-left index, and bottom-right one turned upright)."""
    out = []
    for card, imgs in faces.items():
        for img in imgs:
            h, w = img.shape[:2]
            box = np.array([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]], np.float64)
            for turned in (False, True):
                face = np.ascontiguousarray(img[::-1, ::-1]) if turned else img
                ink, red = ink_map(face, FACE_WINDOW)
                b, pairs = _face_index(face, ink)
                if not pairs:
                    continue
                i = np.array([p[0] for p in pairs])
                j = np.array([p[1] for p in pairs])
                patch, reds, up = describe(cv2.GaussianBlur(ink, (0, 0), BLUR), red, b, i, j)
                for k in range(len(pairs)):
                    d = float(np.linalg.norm(up[k]))
                    dn = -up[k] / d
                    rt = np.array([dn[1], -dn[0]])
                    rel = box - b.centre[i[k]]
                    corners = np.stack([rel @ rt, rel @ dn], axis=1) / d
                    shape = (float(spread(b.cov[i[k]][None], dn[None])[0] / d),
                             float(spread(b.cov[j[k]][None], dn[None])[0] / d),
                             float(b.area[j[k]] / b.area[i[k]]))
                    out.append(Template(card, patch[k], bool(reds[k] > RED_CUT), corners, shape))
    return out


class CornerReader:
    """Reads the corner indices of the cards of one profile; build once, call per image.

    Rank and suit are read apart (the rank glyph of the 3 of clubs is the 3 of spades'):
    the rank patch against every template's rank patch, the sign patch against every
    sign patch, each side must win clearly, and the card they make must be enrolled."""

    def __init__(self, faces: dict[str, list[np.ndarray]]):
        ts = templates({c: v for c, v in faces.items() if "/" in c})
        self.templates = ts
        self.cards = np.array([t.card for t in ts])
        self.bank = np.stack([t.patch for t in ts]).astype(np.float32) if ts else np.zeros((0, 2 * D), np.float32)
        self.red = np.array([t.red for t in ts], bool)
        shape = np.array([t.shape for t in ts]) if ts else np.ones((1, 3))
        self.lo, self.hi = shape.min(axis=0) / PAIR_SLACK, shape.max(axis=0) * PAIR_SLACK
        # per side (rank, suit): the distinct values and which templates show each
        self.sides = []
        for part in (1, 0):
            vals = sorted({c.split("/")[part] for c in self.cards})
            self.sides.append((vals, np.array([[c.split("/")[part] == v for c in self.cards] for v in vals])))
        self.known = set(self.cards.tolist())

    def read(self, image_bgr: np.ndarray, candidates=None) -> list[Read]:
        """Every index read with a name, each card id at most once (doubtful ones unnamed)."""
        if len(self.sides[0][0]) < 2 or len(self.sides[1][0]) < 2:
            return []
        h, w = image_bgr.shape[:2]
        ink, red = ink_map(image_bgr, max(FACE_WINDOW, min(h, w) // IMAGE_WINDOW))
        b = blobs(ink, MIN_AREA, int(MAX_AREA * h * w))
        i, j = self._pairs(b)
        if len(i) == 0:
            return []
        pn, pred, up = describe(cv2.GaussianBlur(ink, (0, 0), BLUR), red, b, i, j)
        sr = pn[:, :D] @ self.bank[:, :D].T                    # (pairs, templates): rank glyphs
        ss = pn[:, D:] @ self.bank[:, D:].T                    # sign glyphs
        ss = np.where((pred[:, None] > RED_CUT) != self.red[None, :], -1.0, ss)
        reads = []
        best = []
        for s, (vals, member) in zip((sr, ss), self.sides):
            per = np.stack([np.where(m[None], s, -2.0).max(axis=1) for m in member], axis=1)
            order = np.argsort(-per, axis=1)[:, :2]
            best.append((per, order))
        (pr, orr), (ps, ors) = best
        rows = np.arange(len(i))
        ok = (pr[rows, orr[:, 0]] >= SCORE_MIN) & (ps[rows, ors[:, 0]] >= SCORE_MIN)
        for k in np.flatnonzero(ok):
            reads.append(self._judge(pn[k], sr[k], ss[k], orr[k], ors[k], pr[k], ps[k],
                                     b.centre[i[k]], up[k], candidates))
        return _once([r for r in reads if r is not None])

    def _pairs(self, b: Blobs) -> tuple[np.ndarray, np.ndarray]:
        """(sign, rank) blob pairs of the templates' proportions, closest first."""
        v = b.centre[None, :] - b.centre[:, None]               # [i, j]: from i to j
        d = np.linalg.norm(v, axis=2)
        np.fill_diagonal(d, np.inf)
        u = v / np.maximum(d, 1e-6)[..., None]
        cv = b.cov
        si = np.sqrt(np.einsum("ijk,ikl,ijl->ij", u, cv, u)) / d       # sign spread along up / d
        rj = np.sqrt(np.einsum("ijk,jkl,ijl->ij", u, cv, u)) / d       # rank spread along up / d
        ra = b.area[None, :] / b.area[:, None]
        ok = ((si >= self.lo[0]) & (si <= self.hi[0]) & (rj >= self.lo[1]) & (rj <= self.hi[1])
              & (ra >= self.lo[2]) & (ra <= self.hi[2]))
        i, j = np.nonzero(ok)
        if len(i) > MAX_PAIRS:
            keep = np.argsort(d[i, j])[:MAX_PAIRS]
            i, j = i[keep], j[keep]
        return i, j

    def _judge(self, patch, sr, ss, orr, ors, pr, ps, sign, up, candidates) -> Read | None:
        """Name one pair only when its rank and its suit each clearly beat every other."""
        duels, margins, wins = [], [], []
        shp = (CELLS, CELLS)
        for s, order, per, (vals, member), half in ((sr, orr, pr, self.sides[0], slice(0, D)),
                                                    (ss, ors, ps, self.sides[1], slice(D, 2 * D))):
            t1 = int(np.argmax(np.where(member[order[0]], s, -9)))
            t2 = int(np.argmax(np.where(member[order[1]], s, -9)))
            margins.append(float(per[order[0]] - per[order[1]]))
            duels.append(duel_mod.duel(patch[half].reshape(shp), self.bank[t1, half].reshape(shp),
                                       self.bank[t2, half].reshape(shp)) if per[order[1]] > -1 else 2.0)
            wins.append(vals[order[0]])
        card = f"{wins[1]}/{wins[0]}"
        both = np.where(self.cards == card, sr + ss, -9.0)
        t = self.templates[int(np.argmax(both))]
        dn = -up
        rt = np.array([dn[1], -dn[0]])
        quad = order_quad(sign + t.corners[:, :1] * rt + t.corners[:, 1:] * dn)
        score = float(min(pr[orr[0]], ps[ors[0]]))
        sure = (card in self.known and min(margins) >= MARGIN_MIN and min(duels) >= DUEL_MIN
                and (candidates is None or card in candidates))
        rival = (f"{self.sides[1][0][ors[1]]}/{wins[0]}" if margins[1] < margins[0]
                 else f"{wins[1]}/{self.sides[0][0][orr[1]]}")
        top = ((card, score), (rival, score - min(margins)))
        return Read(card if sure else None, sign + up / 2, quad, score, min(margins), float(min(duels)), top)


def _corr(u: np.ndarray, v: np.ndarray) -> float:
    u, v = u - u.mean(), v - v.mean()
    return float(u @ v / (np.sqrt((u @ u) * (v @ v)) + 1e-6))


def _once(reads: list[Read]) -> list[Read]:
    """One read per index and per card: reads of one spot that disagree, or of one card at
    two spots that cannot be one card, become unsure; agreeing ones merge (best kept)."""
    reads = sorted(reads, key=lambda r: -r.score)
    named = [r for r in reads if r.card is not None]
    out: list[Read] = []
    doubt: set[int] = set()
    for a, r in enumerate(named):
        short = quad_sides(r.quad)[0]
        for b in range(a):
            o = named[b]
            same_spot = np.linalg.norm(o.index - r.index) < INDEX_NEAR * short
            same_card = np.linalg.norm(o.quad.mean(axis=0) - r.quad.mean(axis=0)) < SAME_CARD * short
            if o.card == r.card and not same_card or o.card != r.card and same_spot:
                doubt |= {a, b}
    kept: list[Read] = []
    for a, r in enumerate(named):
        if a in doubt:
            r = Read(None, r.index, r.quad, r.score, r.margin, r.duel, r.top)
        elif any(k.card == r.card for k in kept):
            continue                     # the same card again (its other index, or a 10's other digit)
        kept.append(r)
    return kept
