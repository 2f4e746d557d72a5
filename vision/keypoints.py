"""Finding cards by local features matched to the enrolled faces.

A RANSAC homography from an enrolled face's keypoints to the image gives the card *and* its
pose at once, whatever the table, however much of the card is covered and even when the card
fills the whole image (where there is no outline to find). It complements the shape finder
(vision.finder), which covers plain low-pip cards that have few distinctive keypoints.

SIFT is used (in OpenCV's main module since 4.4; no GPU needed): on the real deepPoker
photos it found more cards than ORB at the same cost of matching against a shared index.
Descriptors of the faces are computed once, at Recogniser construction, from Profile.faces.
"""
from __future__ import annotations

import hashlib
import math
import threading
from collections import OrderedDict
from dataclasses import dataclass

import cv2
import numpy as np

from vision.geometry import face_corners, order_quad, quad_sides

# Faces are stored 160 px wide (vision.profile); upscaled by this before describing so that
# pips and corner indices give keypoints at the scale cards appear in photos.
FACE_UPSCALE = 2.0
FACE_FEATURES = 600        # keypoints kept per enrolled face (strongest first)
# SIFT is invariant to rotation and scale, not to foreshortening: past ~40° of tilt a card's
# keypoints no longer match its face seen square (affine-SIFT, Morel & Yu 2009, simulates the
# tilts instead). So each face is also described squeezed across its width and across its
# height, as a camera turned ~53° across the table sees it, each keypoint mapped back onto the
# face. deepPoker's table photos with the camera turned further (bench/vision_realdata.py
# --sets oblique, both halves, 156 cards; /tmp probe of the same images), named right:
#   keypoints kept per squeezed view   none   80  100  120  150  300   (4 views, diagonals too: 300)
#   turned 50°                          111  116  119  121  121  124   124
#   turned 40°                          149  149  150    -    -  150   153
# and 0 wrong in each. Each keypoint costs ~1.3 KB at the peak (descriptor, FLANN trees, heap):
# bench/vision_stills.py --speed peaks at 232 MB with none, 242 / 247 / 249 / 254 / 265 MB with
# 80-300, for a 250 MB target. 100 keeps a margin and most of the gain.
TILT_SQUEEZE = 0.6         # the views' foreshortening (cos 53°)
TILT_ANGLES = (0.0, 90.0)  # degrees the face is turned before squeezing: across its width, its height
TILTED_FEATURES = 100      # keypoints kept per squeezed view (strongest first)
KEPT_PROFILES = 4          # sets of faces whose keypoints a process keeps (face_keypoints)
IMAGE_FEATURES = 4000      # keypoints kept per image
MAX_SIDE = 800             # an image is described at most this many pixels on its long side. SIFT
#   builds its pyramid from twice the image's size, so this sets most of a still's CPU and its
#   peak memory. Measured at 1400, 800 and 640 (bench/vision_realdata.py --keypoint-side, every
#   deepPoker and bidly set, both halves; bench/vision_stills.py --keypoint-side, 300 synthetic
#   french-52 cards per scenario): 800 named the same cards as 1400 in every set, real and
#   synthetic, with 0.71x the CPU of a 10-card 1280x720 still (paired, same scenes); 640 the same
#   real cards, but one synthetic separate card fewer (99.33 % against 99.67 %)
#   Session 40 tried 640 again: every real set's line the same as at 800, the 10-card still 0.90 of the
#   CPU, but a Bresciane render (bench/vision_renders.py, real faces, seed 1017) named batons/10 the
#   batons/9 at 0.998, a wrong name that 800 does not give: 800 stays
# SIFT's pyramid (the image doubled, 6 blurred and 5 difference images per octave) costs ~230 bytes
# per pixel described at once: +146 MB for an 800x800 still, the peak of a square 1200x1200 one
# (bench/vision_stills.py --speed: 306 MB with one profile loaded, for a 250 MB target). A larger
# image than a 16:9 frame at MAX_SIDE (800x450: camera stills, the live table) is described in
# overlapping strips of at most MAX_PIXELS, each keypoint taken from the strip where it lies
# farthest from a cut. On the 7 bidly deals and the 1200x1200 synthetic still (two strips of
# 800x600), 99.6-99.8 % of the keypoints (position, angle, descriptor) were those of one pass
# over the whole image; the rest are of the coarsest scales near a cut.
MAX_PIXELS = 800 * 450
STRIP_MARGIN = 100         # least pixels between a cut and the keypoints a strip keeps
NEIGHBOURS = 6             # nearest face descriptors looked up per image keypoint
NEAR_BEST = 1.2            # a neighbour this much farther than the nearest still counts as a match
# SIFT descriptor distance (L2, OpenCV's 512-scaled descriptors) above which a match is noise:
# on deepPoker table photos, background texture matched court faces at 250-350, card
# features their own face below 220 (bench/vision_realdata.py, tune half; /tmp probe)
MAX_DISTANCE = 220.0
RANSAC_PX = 0.004          # reprojection tolerance, share of the image's long side
# OpenCV's USAC with local optimisation, not plain RANSAC: on the 320 fits of 40 deepPoker table
# photos (44 matches each, median) plain RANSAC took 9.9 ms a fit (its 1000 iterations: few
# inliers never let it stop early), USAC_ACCURATE 0.18 ms, and the same cards were named in every
# real set (bench/vision_realdata.py) and one more synthetic stress card (bench/vision_stills.py,
# 300 per scenario: 76.41 % against 76.08 %, 0 false reports both). Its sampler has its own fixed
# seed: the same homography whatever OpenCV's random state or the order of the fits.
HOMOGRAPHY = cv2.USAC_ACCURATE
SHORTLIST = 8              # cards (by votes) whose homography is tried
MIN_VOTES = 6              # fewer near-best matches to a card than this: not tried
MIN_INLIERS = 10           # RANSAC inliers for a hypothesis (random ones reach 8-9; vision_realdata tune half)
MAX_SKEW = 0.45            # |log| of the quad's side ratio over the deck's (oblique views allowed)
MIN_SHORT = 20.0           # pixels: a smaller card is not believed (noise homography)
MIN_SPREAD = 0.04          # inliers must cover this share of the face (not one pip's corner)


@dataclass(frozen=True)
class Hypothesis:
    """A card proposed by keypoints: which enrolled face, where, and how well supported."""

    face: int              # index into the faces given to KeypointIndex
    card: str
    quad: np.ndarray       # (4, 2) float32 image pixels, the face's corners in face order
    homography: np.ndarray  # 3x3, face pixels -> image pixels
    inliers: int
    spread: float          # share of the face covered by the inliers' convex hull


def _sift(features: int):
    return cv2.SIFT_create(nfeatures=features)


# the keypoints of the latest faces described (face_keypoints), shared by every index of them
_kept: OrderedDict[bytes, tuple[np.ndarray, np.ndarray, np.ndarray] | None] = OrderedDict()
_kept_lock = threading.Lock()


def face_keypoints(faces: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """The faces' keypoints, square and squeezed (TILT_SQUEEZE): face positions (n, 2), float32
    descriptors (n, 128) and the face each belongs to (n,); None when no face has any.

    Kept for the last KEPT_PROFILES sets of faces, read-only: describing 52 faces three
    times takes ~3.6 s on one x86 core, and each Recogniser of a profile (a replay, a
    reloaded table, every test) would otherwise do it again."""
    key = _digest(faces)
    with _kept_lock:
        if key in _kept:
            _kept.move_to_end(key)
            return _kept[key]
    sift, tilted = _sift(FACE_FEATURES), _sift(TILTED_FEATURES)
    pts, descs, owner = [], [], []
    for i, face in enumerate(faces):
        g = face if face.ndim == 2 else cv2.cvtColor(face, cv2.COLOR_BGR2GRAY)
        g = cv2.resize(g, None, fx=FACE_UPSCALE, fy=FACE_UPSCALE, interpolation=cv2.INTER_CUBIC)
        for view, inside, to_face, det in ((g, None, np.eye(3), sift),
                                           *((*v, tilted) for v in _tilted_views(g))):
            kp, d = det.detectAndCompute(view, inside)
            if d is None or not kp:     # a blank face (a washed-out enrolment photo) has none
                continue
            at = cv2.transform(_points(kp).reshape(-1, 1, 2), to_face[:2]).reshape(-1, 2)
            pts.append(at / FACE_UPSCALE)
            descs.append(d)
            owner.append(np.full(len(kp), i, np.int32))
    described = None
    if descs:
        described = (np.concatenate(pts), np.concatenate(descs).astype(np.float32), np.concatenate(owner))
        for a in described:
            a.setflags(write=False)
    with _kept_lock:
        _kept[key] = described
        while len(_kept) > KEPT_PROFILES:
            _kept.popitem(last=False)
    return described


def _digest(faces: list[np.ndarray]) -> bytes:
    h = hashlib.blake2b(digest_size=16)
    for f in faces:
        h.update(repr((f.shape, f.dtype.str)).encode())
        h.update(np.ascontiguousarray(f).data)
    return h.digest()


class KeypointIndex:
    """All enrolled faces' SIFT descriptors in one FLANN index, labelled by face."""

    def __init__(self, labels: list[str], faces: list[np.ndarray]):
        self.labels = list(labels)
        self.size = (faces[0].shape[1], faces[0].shape[0])   # (w, h) face pixels
        self.sift = _sift(IMAGE_FEATURES)
        described = face_keypoints(faces)
        self.empty = described is None
        if described is None:
            return
        self.pts, self.descs, self.owner = described
        # FLANN's randomised kd-trees draw from OpenCV's random generator: from wherever earlier
        # work left it, each index came out different, and so did the cards proposed (an
        # unenrolled 7 of spades was proposed and named as the 3 of spades by 1 index in 8,
        # failing a test by the order tests ran in). Seed 0 is the generator as a fresh thread
        # has it: every index of a profile is the same, the first of a fresh process.
        # The index itself, not a FlannBasedMatcher: the same trees and search (the matcher
        # builds this index on a merged copy of the descriptors, 10 MB for 52 faces, and
        # answers with one DMatch object per neighbour: 24,000 per still).
        cv2.setRNGSeed(0)
        self.index = cv2.flann_Index(self.descs, {"algorithm": 1, "trees": 4})

    def propose(self, image_bgr: np.ndarray, allowed: set[str] | None = None) -> list[Hypothesis]:
        """Card hypotheses in the image, best supported first (at most one per face)."""
        if self.empty:
            return []
        g = image_bgr if image_bgr.ndim == 2 else cv2.cvtColor(image_bgr, cv2.COLOR_BGR2GRAY)
        f = min(1.0, MAX_SIDE / max(g.shape[:2]))
        if f < 1.0:
            g = cv2.resize(g, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
        pts, d = self._describe(g)
        if d is None or len(pts) < MIN_INLIERS:
            return []
        q_pts = pts / f
        near, sq = self.index.knnSearch(d.astype(np.float32), NEIGHBOURS, params={"checks": 48})
        dist = np.sqrt(sq).astype(np.float64)        # FLANN answers squared L2 distances
        ok = (near >= 0) & (dist <= NEAR_BEST * dist[:, :1] + 1e-6) & (dist < MAX_DISTANCE)
        qi, j = np.nonzero(ok)
        if not len(qi):
            return []
        ti = near[qi, j]
        face_of = self.owner[ti]
        votes = np.bincount(face_of, minlength=len(self.labels))
        out = []
        for face in np.argsort(-votes)[:SHORTLIST]:
            if votes[face] < MIN_VOTES:
                break
            if allowed is not None and self.labels[face] not in allowed:
                continue
            h = self._fit(int(face), q_pts[qi[face_of == face]], self.pts[ti[face_of == face]],
                          RANSAC_PX * max(image_bgr.shape[:2]))
            if h is not None:
                out.append(h)
        return sorted(out, key=lambda h: -h.inliers)

    def _describe(self, g: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        """SIFT keypoint positions (n, 2) and descriptors of a grey image, in strips across
        its long side when it has more than MAX_PIXELS (see there)."""
        h, w = g.shape
        if h * w <= MAX_PIXELS:
            kp, d = self.sift.detectAndCompute(g, None)
            return _points(kp), d
        axis = 0 if h >= w else 1                # cut across the long side (never transposed:
        span, across = (h, w) if axis == 0 else (w, h)   # SIFT would describe a mirror image)
        length = MAX_PIXELS // across
        n = 1 + math.ceil((span - length) / max(1, length - 2 * STRIP_MARGIN))
        starts = [round(i * (span - length) / (n - 1)) for i in range(n)]
        cuts = [0.0] + [(a + length + b) / 2 for a, b in zip(starts, starts[1:])] + [float(span)]
        found = []
        for i, s0 in enumerate(starts):
            part = (np.s_[s0:s0 + length], np.s_[:]) if axis == 0 else (np.s_[:], np.s_[s0:s0 + length])
            kp, d = self.sift.detectAndCompute(g[part], None)
            if d is None:
                continue
            at = _points(kp)
            at[:, 1 - axis] += s0
            keep = (at[:, 1 - axis] >= cuts[i]) & (at[:, 1 - axis] < cuts[i + 1])
            found += [(k, p, row) for k, p, row, ok in zip(kp, at, d, keep) if ok]
        if not found:
            return np.zeros((0, 2), np.float32), None
        if len(found) > IMAGE_FEATURES:     # as SIFT's own cut: the strongest, ties kept
            least = sorted((k.response for k, _, _ in found), reverse=True)[IMAGE_FEATURES - 1]
            found = [x for x in found if x[0].response >= least]
        # in SIFT's own order of keypoints (by x, y, larger size, angle, response, octave)
        found.sort(key=lambda x: (x[1][0], x[1][1], -x[0].size, x[0].angle, -x[0].response, -x[0].octave))
        return np.float32([p for _, p, _ in found]), np.stack([row for _, _, row in found])

    def _fit(self, face: int, img_pts: np.ndarray, face_pts: np.ndarray, tol: float
             ) -> Hypothesis | None:
        if len(img_pts) < MIN_INLIERS:
            return None
        H, mask = cv2.findHomography(face_pts, img_pts, HOMOGRAPHY, max(2.0, tol), maxIters=1000)
        if H is None:
            return None
        inl = mask.ravel().astype(bool)
        # one image keypoint may have been matched to two pips: count it once
        n = len({tuple(p) for p in np.round(img_pts[inl]).astype(int)})
        if n < MIN_INLIERS:
            return None
        w, h = self.size
        quad = cv2.perspectiveTransform(face_corners(w, h).reshape(-1, 1, 2), H).reshape(4, 2)
        if not _plausible(quad, w, h):
            return None
        hull = cv2.convexHull(face_pts[inl].reshape(-1, 1, 2).astype(np.float32))
        spread = float(cv2.contourArea(hull)) / (w * h)
        if spread < MIN_SPREAD:
            return None
        return Hypothesis(face, self.labels[face], quad.astype(np.float32), H, n, spread)


def _tilted_views(g: np.ndarray) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """The face as a camera tilted across it at each of TILT_ANGLES sees it: (view, mask of the
    face in the view, 3x3 view->face affine). Turned by the angle, then squeezed across by
    TILT_SQUEEZE after blurring that way as affine-SIFT does (sigma 0.8 sqrt(t^2 - 1) for a
    tilt t), so the view is not aliased; the mask keeps keypoints off the view's empty border."""
    h, w = g.shape
    sigma = 0.8 * math.sqrt(1.0 / TILT_SQUEEZE ** 2 - 1.0)
    squeeze = np.diag([TILT_SQUEEZE, 1.0, 1.0])
    views = []
    for angle in TILT_ANGLES:
        c, s = abs(math.cos(math.radians(angle))), abs(math.sin(math.radians(angle)))
        W, H = int(round(w * c + h * s)), int(round(w * s + h * c))
        turn = cv2.getRotationMatrix2D((w / 2, h / 2), angle, 1.0)
        turn[:, 2] += ((W - w) / 2, (H - h) / 2)
        turned = cv2.warpAffine(g, turn, (W, H), flags=cv2.INTER_LINEAR)
        inside = cv2.warpAffine(np.full_like(g, 255), turn, (W, H), flags=cv2.INTER_NEAREST)
        size = (max(8, int(round(W * TILT_SQUEEZE))), H)
        view = cv2.resize(cv2.GaussianBlur(turned, (0, 0), sigmaX=sigma, sigmaY=0.01), size,
                          interpolation=cv2.INTER_LINEAR)
        inside = cv2.erode(cv2.resize(inside, size, interpolation=cv2.INTER_NEAREST), np.ones((5, 5), np.uint8))
        views.append((view, inside, np.linalg.inv(squeeze @ np.vstack([turn, (0, 0, 1)]))))
    return views


def _points(kp) -> np.ndarray:
    """Keypoint positions as an (n, 2) float32 array (cv2.KeyPoint_convert answers an empty
    tuple for no keypoints)."""
    return np.asarray(cv2.KeyPoint_convert(kp), np.float32).reshape(-1, 2)


def _plausible(quad: np.ndarray, w: int, h: int) -> bool:
    """A convex, card-shaped quad of sensible size (a bad homography folds or stretches)."""
    if not np.isfinite(quad).all():
        return False
    if not cv2.isContourConvex(quad.reshape(-1, 1, 2).astype(np.float32)):
        return False
    short, long = quad_sides(order_quad(quad))
    if short < MIN_SHORT:
        return False
    return abs(np.log(long / max(short, 1e-6) / (h / w))) <= MAX_SKEW


def warp_from(image: np.ndarray, homography: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """The image straightened to face ``size`` through a face->image homography, shrinking
    first with area averaging when the card is much larger than the face (no aliasing)."""
    w, h = size
    quad = cv2.perspectiveTransform(face_corners(w, h).reshape(-1, 1, 2), homography).reshape(4, 2)
    _, long = quad_sides(quad)
    f = min(1.0, 2.0 * h / max(long, 1.0))
    H = homography
    if f < 0.9:
        image = cv2.resize(image, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
        H = np.diag([f, f, 1.0]) @ homography
    return cv2.warpPerspective(image, H, size, flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                               borderMode=cv2.BORDER_REPLICATE)
