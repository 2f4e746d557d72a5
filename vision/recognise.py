"""Find and identify every card in a still: the stills API of docs/vision-interfaces.md.

Finding gives quads (vision.finder); each is straightened and compared with every enrolled
face at 0° and 180° (vision.features), then the leading templates are fitted to the face
(vision.align) and it is read again where it really lies. Where part of a card is hidden,
by a card on top of it or a hand, the comparison uses only its visible part. The best
score and its margin over the best *other* card become a calibrated confidence
(vision.confidence); below the threshold the answer is ``card=None`` rather than a guess.
A reading is also not believed when another card explains the face almost as well, when
some cell of the face disagrees with the named card, or when only part of a card is seen
at a quad of the wrong shape.
"""
from __future__ import annotations

import math
import weakref
from collections import OrderedDict
from dataclasses import dataclass, replace
from typing import Callable, Collection, Sequence

import cv2
import numpy as np

from vision import align
from vision import corner_index
from vision import confidence as conf_mod
from vision import duel as duel_mod
from vision import keypoints as kp_mod
from vision import outline
from vision import squared
from vision.decks import deck_cards, look_alikes, unenrolled_lookalikes
from vision.features import FINE, INNER, Descriptor, TemplateBank, describe
from vision.finder import Candidate, FindResult, blobs_of, find_cards, slanted_quads
from vision.geometry import face_corners, grown, inside, order_quad, quad_sides, warp_face
from vision.paper import INK_CONTRAST, face_looks, ink_contrast, paper_level, printed
from vision.profile import Profile

BACK = "back"
IMPOSTOR_WEIGHT = 0.3  # how often, relative to genuine cards, an unenrolled card is shown
FACE = (FINE[0] * 2, FINE[1] * 2)  # pixels a found face is straightened to before describing
MAX_ALIGN = 3              # templates fitted per found card
CLOSE = 0.3                # score margin under which the runner-up is fitted too
CELL = 16                  # fine-grid pixels per side of the cells checked one by one
# Cells are compared at each face's own contrast: a cell's gradient energy is taken relative
# to the face's INK_CELL quantile of cell energies (its inked cells), so a dim or blurred photo
# and a crisp render are judged alike.
INK_CELL = 80              # percentile of a face's cell energies that stands for "inked"
CELL_FLOOR = 0.1           # relative energy added to both sides: weak texture counts little
CELL_BLANK = 0.25          # relative energy under which a cell is blank on both faces: agreeing.
#   Blank paper on real photos carries 0.05-0.12 of the ink energy (paper grain, JPEG), whose
#   directions are random: deepPoker table-diamonds_4-2.jpg, a right read at whole-face score
#   0.99, had cosine 0.2 there (absolute floor 0.1 per pixel) and was vetoed
CELL_MIN = 0.3             # worst cell agreement below which a reading is not believed: on the
#   deepPoker tune half (bench/vision_realdata.py) it vetoes 5 of 66 right readings (oblique,
#   glared "-4" photos) and 32 of 66 readings of the same photos with the card's own face
#   hidden (an unenrolled card read as its look-alike); 0.2 kept 2 more right, let 6 more in
MIN_MARGIN = 0.05          # score margin below which the runner-up is as likely
MAX_SKEW = 0.1             # |log| of a partly seen card's quad aspect over the deck's
WHOLE_SKEW = 0.2           # ... of any card's quad: named cards of the deepPoker table photos (slanted phone
#   shots, bench/vision_realdata.py) lie within 0.17; a Bresciane 8 of coins cut to 6 of its coins, 0.25
TABLE_SLANT = MAX_SKEW     # vision.squared.slant of the largest named card (or back) beyond which a still
#   is read again seen square: a partly covered card on such a table no longer has the deck's shape
#   MAX_SKEW asks of the visible part of a card (bench/vision_renders.py oblique, Bresciane: the
#   guides of 10 of 11 stills lie at 0.11-0.39, one at 0.04)
LEFT_PAPER = 0.5           # the finder's paper outside the named cards (as a share of one card's area) that
#   a slanted still must hold to be read again seen square: a card at least half visible. deepPoker's
#   table photos (one card each, bench/vision_realdata.py) were read twice in 20 of 26 without it; the
#   paper their named card leaves is 0.10 of a card (median), 0.22 at most (/tmp probe, 26 photos)
PARTIAL_THRESHOLD = 0.76   # confidence needed for a card read from a partly covered face
WHOLE_SEEN = 0.9           # ... a face seen more than this share is judged as a whole one
ALL_SEEN = 0.97            # a face the finder's mask shows this much of is read without a mask
READ_PART = 0.2            # a visible part smaller than this share of the face is not read on its own
FIT_FLOOR = 0.4            # a pile rectangle matching its best card less than this is not fitted
# a partly hidden card of a pile that fitting moved by more than FIT_TRUST of its short
# side (or that could not be fitted at all): the fit favours the face it was fitted to (a 2 fitted
# onto a 3 whose third pip is hidden), so the reading must be surer
PILE_PARTIAL = 0.85
FIT_TRUST = 0.03
NOT_A_CARD = 0.40          # a lone card-shaped region matching nothing this well is not a card by its
#   face alone (Recogniser._with_unmatched still reports one that looks like a printed face)
# Naming by duels (vision.duel), measured on the tune half of bench/vision_realdata.py:
DUEL_RIVALS = 4            # best cards by whole-face score that a named card must beat in duels
DUEL_MARGIN = 0.2          # least duel margin over every rival to name a card (confidence 0.7): right
#   readings of the deepPoker tune half had 0.15-1.7 (3 of 92 under 0.2); an unenrolled
#   synthetic clubs/king read as spades/queen 0.125 (tests/vision/test_identify.py)
DUEL_SLOPE = 20.0          # logistic slope of confidence against duel margin
DUEL_FACE_MIN = 0.45       # whole-face score a card named by duels must also reach
# ... and one named where only its name says it is a card (a slanted paper blob of any four-cornered
# shape, Recogniser._with_slanted_cards). Every name that stage gave (session 46, /tmp probe logging
# it in bench/vision_realdata.py, every set, and bench/vision_renders.py): 28 right on real photos at
# 0.593-0.977, 11 right in renders at 0.579-0.980, and one wrong, the lower two thirds of a
# Bresciane 6 of cups under an arm (renders, photo, seed 1021) named the coins 8 at 0.497 (duel
# margin 0.68): a part of a card stretched to a whole face matches no face well. Halfway between.
SLANT_FACE_MIN = 0.54
CORNER_AGAINST = 0.25      # duel margin by which an index on a named card prefers its own rank or suit to
#   the name's (corner_index.CornerReader.against) that withdraws the name. Tune half, names given
#   before the corner merge (bench/corner_checks.py against): right names 0.18 at most (1 of 129
#   above 0; 0 of 127 at corner_index.DUEL_MIN 0.1), wrong ones 0.33-2.0 (10, all unenrolled cards
#   read as their look-alike: a diamonds 8 as the 7 at 1.45, a hearts 3 as the 2 at 0.33); the
#   duels cannot see a rival never enrolled, its index can, even where it is not clear enough to
#   name (or claim) a card of its own
# Leaning indices (_with_corners): a name the face gave is withdrawn when index reads lie on its
#   card and every one of them leads with another card (Read.top), however slightly, even where
#   none is clear enough to name anything: its index does not lean to the name. Names given before
#   the corner merge with a read on them (bench/corner_checks.py leaning: deepPoker photos with
#   both profiles, bidly deals with both): every right one has a read leading with its own card;
#   the black-* clubs 10 named spades 10 (session 32's unseparable wrong name) has 3 reads, each
#   leading with the clubs 10, and two other wrong names 1-2 such reads
# A pip card whose look-alike (vision.decks.look_alikes) the profile lacks: no duel saw that
# rival, so its face alone names it only when no other card lies on it (blank paper on top
# could hide the pip that makes it the look-alike) and every cell agrees with the named card's
# as no look-alike's did. deepPoker table photos, each quarter of the deck left out in turn,
# corner index off (bench/lookalike_checks.py): the 39 unenrolled cards named as the card one
# pip away agreed in their worst cell at 0.30-0.74 (tune half) and 0.54-0.72 (report half);
# right names at 0.14-1.0, median 0.95. At 0.8 none of the first is named, and 172 of the 207
# right names whose colour twin is enrolled are. A colour twin is never told apart so (a clubs
# 2 named as the spades 2 agreed at 0.82, report half): lacking it, only the corner index
# names the card (it reads rank and suit apart, each against every template, when each rank
# and suit of the deck has one). Drawn faces confuse any two suits of a rank (0.34-0.84, e.g.
# a coins 10 as the cups 10: tests/vision/test_identify.py; a drawn diamonds 6 named as the
# spades 6 at 0.84 is still named); real photos showed none.
LOOKALIKE_CELL = 0.8
KEPT_WORST = 64            # whole-face worst-cell agreements kept (see Recogniser._worst_cell)
KP_UNSURE_INLIERS = 14     # keypoint inliers for reporting an unnamed card (below: likely noise)
SAME_CENTRE = 0.3          # centres closer than this share of the short side: one card
OUTLINE_SEEN = 0.3         # least share of an outlined card no detection covers for it to be read
ONE_SIZE = 0.5             # |log| of an unmatched card shape's short side over the named cards' median
#   beyond which it is no card at the table: named cards of one bidly deal lie within 0.15 of theirs,
#   the framed pictures of a magazine under three deepPoker table photos at 1.5-1.8; room for a slant
PAPER_SHADE = 0.7          # least paper lightness of an unmatched card shape, as a share of the named cards'
#   median: named cards of a still lie at 0.78-1.0 of theirs (vision_renders real and small, six bidly deals;
#   one card in a hand's shadow, bidly deal 7, at 0.48), the renders' only two such shapes that were
#   no card (dark cloth, a glare on it) at 0.14 and 0.56
OUTLINED_SIZE = 0.15      # |log| of an outlined card's short side over the named cards' median within
#   which it is a card of this table (_with_outlined_cards): named cards of one bidly deal lie within
#   0.15 of theirs; the renders' face-down cards (bench/vision_renders.py real and small, deepPoker,
#   24 scenes each) at 0.004-0.061
AGREED_SIDES = 2          # sides of an outline seen as straight edges for it to confirm a finder's
#   region as a card (_with_agreed_cards): on the Triestine photos (a deck not enrolled; bench/
#   vision_realdata.py triestine, /tmp probe) 0 or 1 side found 7 cards more, 2 or 3 sides 6,
#   4 sides 4, none of them a phantom; 2 keeps an edge cue besides the corners that closed the quad
# the paper margin round a card's printed frame line, as a share of the frame's short side: an
# outline along the frame line of a Trentine court (whose picture reaches the line, so the margin
# inside it is no paper) is judged on the quad grown by this (_with_outlined_cards). Measured on
# bench/vision_realdata.py's Trentine frames (/tmp probe): the knight of frame 126 has 10 px of
# paper beside a frame 139 px wide (0.07) and 13 px at its ends (0.09); its face grown by 0.05-0.07
# still fails paper.printed at the end where the picture meets the line (that end's margin 0.40-0.46
# of the rim's lightness), by 0.08-0.12 it passes. The widest margin measured, so the ends' margin
# is paper: the sides' rim then lies half on the table, which paper's rim test allows (RIM_DEPTH_PAPER).
# Only for an outline whose own rim is paper: a coloured box lid alone on a light table, grown, has the
# table for a rim round its colour (tests/vision/test_recognise.py)
FRAME_MARGIN = 0.09
ALONE_SIDES = 2           # sides seen as straight edges and corners seen as corners of an outline for it
ALONE_CORNERS = 3         # to be reported by itself where nothing is named (_with_outlined_cards).
#   Triestine photos (a deck not enrolled, bench/vision_realdata.py; /tmp probe, reported of 45 / on no
#   card): session 40, 3 sides and 3 corners 24 / 1 (was 22 / 1: the batons 3 of Img201 on a checked
#   cloth); 2 corners with 3 sides 27 / 2, with 2 sides 28 / 4 (cells of the checked cloth of Img202,
#   Img201, Img215); 4 sides 23 / 1. Session 52 (paper judged per part of the face, paper.WHITE_TILES):
#   3 sides and 3 corners 26 / 1, 2 sides and 3 corners 27 / 1 (Img193: a long side along a pale
#   flower of the quilt), the Trentine frames with the Triestine profile as before (13 / 13 reported
#   once, 2 / 0 merged). 2 corners (of 5 sides and corners in all) add 2 cards merged with a neighbour
#   in each half there, quads of the Triestine shape over a Trentine card and the cloth beside it.
#   Three corners close the quad as seen (a parallelogram's fourth), not from the deck's shape
AGREED_SHARE = 0.8         # least share of each of the two quads (finder's, outline's) the other covers
HALVES_COVER = 0.75        # share of a card two rectangles found as its halves fill (0.79-0.83: the
#   card's middle lies between them: the 2s and 3s of the 'other design' row of bench/vision_realdata.py)
PIECE_AREA = 0.75          # an unnamed quad at most this share of a named card's area ...
PIECE_INSIDE = 0.8         # ... with this share of it inside that card is a piece of it (_part_of).
#   bench/recognise_checks.py (pieces): the second detections of four deepPoker tight crops are
#   0.02-0.40 of the named card's area and 0.97-1.0 inside it; unnamed true cards overlapping named
#   ones (12 pairs in 18 renders) 0.92-1.09 of its area and at most 0.30 inside it
INDEX_CORNER = 0.4         # an index lies this share of its card's short side from a corner at most:
#   bench/recognise_checks.py (corners): index reads inside a final detection on every third deepPoker
#   photo lie 0.20-0.29 from its nearest corner on table-* (52 reads), 0.08-0.38 on the black-* design (32)
CROP_SHAPE = 0.3           # |log| of a picture's aspect over the deck's for it to be read as a tight
#   crop: loose (a rotated card's crop is squarer, deepPoker crops in bench/vision_realdata.py)


@dataclass(frozen=True)
class Detection:
    quad: np.ndarray     # (4, 2) float32, image pixels, corners in order around the card
    card: str | None     # canonical card id, None when face down or abstaining
    face_up: bool
    confidence: float    # calibrated 0..1
    margin: float        # score margin over the runner-up (0..1)
    top: tuple = ()      # ((card, whole-face score), ...) of the leading contenders, best first


@dataclass(frozen=True)
class _Answer:
    card: str | None
    score: float
    margin: float
    confidence: float
    index: int = -1      # the winning template (card and orientation) in the bank
    top: tuple = ()      # (card, score) of the leading contenders, for annotation
    runner_index: int = -1   # the best template of any other card
    worst_cell: float = 1.0  # agreement with the named card in the worst-matching cell


class Recogniser:
    """Identifies cards of one profile; build once, call per image."""

    def __init__(self, profile: Profile, *, threshold: float = 0.7):
        self.profile = profile
        self.threshold = threshold
        labels, faces = [], []
        for card, imgs in profile.faces.items():
            for img in imgs:
                labels.append(card)
                faces.append(img)
        if not labels:
            raise ValueError("profile has no faces")
        self.bank = TemplateBank(labels, faces)
        # worst-cell agreements of whole faces lately checked, by (descriptor id, template):
        # a new card's reading is checked once when believed and again after its duels
        self._worst_kept: OrderedDict[tuple[int, int], tuple[weakref.ref, float]] = OrderedDict()
        # grey faces to align found cards to, in the bank's order (each face at 0° and 180°)
        self.align_templates = []
        for img in faces:
            t = align.template(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY) if img.ndim == 3 else img)
            self.align_templates += [t, np.ascontiguousarray(t[::-1, ::-1])]
        self.coef = tuple(profile.calibration) if profile.calibration else conf_mod.DEFAULT
        self._known: np.ndarray | None = None   # templates that exist (calibration hides some)
        self._labels, self._faces = labels, faces
        self._kp: kp_mod.KeypointIndex | None = None
        self._corners: corner_index.CornerReader | None = None
        # duel-ready faces in the bank's order (each face at 0° and 180°)
        self._prep = []
        for img in faces:
            d = duel_mod.prepare(cv2.resize(img, profile.face_size, interpolation=cv2.INTER_AREA))
            self._prep += [d, d[::-1, ::-1]]      # 180°: a view, no copy
        # enrolled pip cards with a look-alike not enrolled -> whether that is its colour twin
        self._lacking = {c: look_alikes(c, profile.deck_id)[1] == lacks[0]
                         for c, lacks in unenrolled_lookalikes(profile.faces, profile.deck_id).items()}

    @property
    def keypoints(self) -> kp_mod.KeypointIndex:
        """The enrolled faces' keypoint index, built on first use (identify() needs none)."""
        if self._kp is None:
            self._kp = kp_mod.KeypointIndex(self._labels, self._faces)
        return self._kp

    @property
    def corners(self) -> corner_index.CornerReader:
        """The corner-index reader (fanned hands show only indices), built on first use."""
        if self._corners is None:
            self._corners = corner_index.CornerReader(self.profile.faces, deck_cards().get(self.profile.deck_id))
        return self._corners

    # -- identification -------------------------------------------------------------
    def _allowed(self, candidates: Collection[str] | None) -> np.ndarray | None:
        if candidates is None:
            return None
        allow = set(candidates) | {BACK}
        return np.array([lab in allow for lab in self.bank.labels])

    def _answer(self, ch: Descriptor, allowed, mask: np.ndarray | None = None) -> _Answer:
        return self._answer_of(self.bank.scores(ch, mask), allowed)

    def _answer_of(self, s: np.ndarray, allowed) -> _Answer:
        """The reading given by a face's scores against the bank."""
        m = self.bank.best(s, allowed, self._known)
        margin = max(0.0, m.score - m.runner_up)
        # another card (ruled out or not) explaining the face about as well: no answer
        conf = conf_mod.confidence(m.score, margin, self.coef) if margin >= MIN_MARGIN else 0.0
        return _Answer(m.card, m.score, margin, conf, m.index, runner_index=m.runner_index)

    def _decide(self, face_bgr: np.ndarray, allowed, desc: Descriptor | None = None,
                cover: np.ndarray | None = None) -> _Answer:
        """Name a straightened face by duels among the best cards on the whole face.

        The card named must beat each of the DUEL_RIVALS best other cards (allowed or not)
        on the pixels where the two differ; its confidence grows with the smallest of
        those margins. Otherwise ``card`` is the leader with confidence below threshold.
        ``desc``: the face's descriptor when the caller has it (the same quad, straightened
        to FACE), not computed again. ``cover`` (descriptor grid, 1 where seen): the face is
        compared, duelled and checked on that part only (a card partly under another).
        """
        desc = describe(face_bgr) if desc is None else desc
        s = self.bank.scores(desc, cover)
        if self._known is not None:
            s = np.where(self._known, s, -2.0)
        best: dict[str, int] = {}
        for i in np.argsort(-s):
            best.setdefault(str(self.bank.labels[i]), int(i))
            if len(best) > DUEL_RIVALS:
                break
        cards = list(best)
        f = duel_mod.prepare(cv2.resize(face_bgr, self.profile.face_size, interpolation=cv2.INTER_AREA))
        seen = None if cover is None else cv2.resize(cover, self.profile.face_size, interpolation=cv2.INTER_NEAREST) > 0.5
        # each pair fought once: duel(f, b, a) is exactly -duel(f, a, b)
        fought = {(c, o): duel_mod.duel(f, self._prep[best[c]], self._prep[best[o]], seen)
                  for i, c in enumerate(cards) for o in cards[i + 1:]}
        margins = {c: min((fought[(c, o)] if (c, o) in fought else -fought[(o, c)]
                           for o in cards if o != c), default=1.0) for c in cards}
        ok = [c for c in cards if allowed is None or allowed[best[c]]]
        top = tuple((c, float(s[best[c]])) for c in cards[:3])
        if not ok:
            return _Answer(cards[0], float(s[best[cards[0]]]), 0.0, 0.0, best[cards[0]], top=top)
        win = max(ok, key=lambda c: margins[c])
        m, score = margins[win], float(s[best[win]])
        conf = 1.0 / (1.0 + math.exp(-(DUEL_SLOPE * (m - DUEL_MARGIN) + math.log(0.7 / 0.3))))
        if score < DUEL_FACE_MIN:
            conf = min(conf, 0.5)
        # a cell of the face that disagrees with the winner (an extra pip of an unenrolled
        # card, another suit sign) vetoes it, however it fared against its rivals
        return self._checked(desc, _Answer(win, score, max(0.0, m), conf, best[win], top=top), cover)

    def _detection(self, quad: np.ndarray, a: _Answer) -> Detection:
        return Detection(np.asarray(quad, np.float32), None if a.card == BACK or a.confidence < self.threshold
                         else a.card, a.card != BACK, a.confidence, a.margin, a.top)

    def _described(self, faces: list[np.ndarray]) -> list[tuple[Descriptor, np.ndarray]]:
        """Straightened faces, each as (its descriptor, itself), compared with the bank in
        one batch (the bank keeps the scores: reading them one by one later costs nothing)."""
        descs = [describe(f) for f in faces]
        self.bank.scores_many([(d, None) for d in descs])
        return list(zip(descs, faces))

    def _keypoint_cards(self, image, allowed) -> list[tuple[Detection, _Answer]]:
        """Cards proposed by keypoint homographies, each named by duels (or unnamed)."""
        out: list[tuple[Detection, _Answer]] = []
        hyps = self.keypoints.propose(image)
        looks = self._described([kp_mod.warp_from(image, h.homography, self.profile.face_size) for h in hyps])
        for h, (desc, face) in zip(hyps, looks):
            short, _ = quad_sides(h.quad)
            c = h.quad.mean(axis=0)
            same = [k for k, (d, _) in enumerate(out) if np.linalg.norm(d.quad.mean(axis=0) - c) < SAME_CENTRE * short]
            if same:
                # another card's homography on a card already named: each registers the face to
                # fit its own card (a Bresciane 10 of batons seen slanted, fitted by the 9's 14
                # inliers among its repeated baton tips, read as the 9 at 0.998 and as the 10 through
                # the 10's 12). Two readings of one card that name two cards: the one whose face
                # matches better by MIN_MARGIN stands (that 10: 0.939 against the 9's 0.831, and
                # 0.966 against 0.858 where the 10's fit had more inliers), else neither
                k = same[0]
                d, a0 = out[k]
                # most fits of a card's look-alikes read it as it is: its whole face leads with
                # the name given (the scores are kept from _described), so no duels are needed
                if d.card is not None and self._answer(desc, allowed).card != d.card:
                    a = self._decide(face, allowed, desc)
                    if a.card not in (d.card, BACK) and a.confidence >= self.threshold:
                        if a.score >= a0.score + MIN_MARGIN:
                            out[k] = (self._detection(h.quad, a), a)
                        elif a0.score < a.score + MIN_MARGIN:
                            out[k] = (replace(d, card=None, confidence=min(d.confidence, 1 - a.confidence)), a0)
                continue
            a = self._decide(face, allowed, desc)
            named = a.confidence >= self.threshold
            if not named and (h.inliers < KP_UNSURE_INLIERS or a.score < NOT_A_CARD):
                continue
            out.append((self._detection(h.quad, a), a))
        return out

    def identify(self, face_bgr: np.ndarray, candidates: Collection[str] | None = None
                 ) -> tuple[str | None, float, float]:
        """A straightened face -> (card or None when abstaining, confidence, margin)."""
        desc = describe(face_bgr)
        a = self._checked(desc, self._answer(desc, self._allowed(candidates)), None)
        if a.confidence < self.threshold:
            return None, a.confidence, a.margin
        if not self._face_names(desc, a.card):
            return None, 0.0, a.margin
        return a.card, a.confidence, a.margin

    def read_quad(self, image_bgr: np.ndarray, quad: np.ndarray,
                  candidates: Collection[str] | None = None) -> Detection | None:
        """The card at a quad found elsewhere (the live table finds new cards as the change
        from the empty table), named as a lone whole card of the finder is; None when
        nothing like a card face lies there (blank paper, a phone)."""
        allowed = self._allowed(candidates)
        a, q, desc = self._aligned_read(image_bgr, np.asarray(quad, np.float32), allowed)
        det = _verdict(q, self._believed(desc, q, True, [(a, None)]), self.threshold, whole=True)
        if det is None:
            return None
        return self._guarded(image_bgr, [self._rechecked(image_bgr, det, allowed, desc)])[0]

    # -- whole images ---------------------------------------------------------------
    def recognise(self, image_bgr: np.ndarray, candidates: Collection[str] | None = None,
                  roi: tuple[int, int, int, int] | None = None,
                  search: tuple[int, int, int, int] | None = None) -> list[Detection]:
        """Every visible card once, each with its quad, identity and confidence.

        ``roi``: the part of the image the finder looks at (None: all of it); ``search``: a
        smaller part where keypoints and corner indices are looked for (default ``roi``;
        the live table's last look shows the finder the whole table but asks about one
        region: SIFT over a whole 1280x720 frame costs ~0.2 s, ~0.7 s on a Pi 4). A whole
        still whose cards are seen slanted is read again seen square (:meth:`_with_table_squared`).
        """
        dets, found = self._recognise(image_bgr, candidates, roi, search)
        return dets if roi is not None else self._with_table_squared(image_bgr, dets, found, candidates)

    def _with_table_squared(self, image, dets: list[Detection], found: FindResult,
                            candidates: Collection[str] | None) -> list[Detection]:
        """``dets`` and the cards named or read as the back on the table seen square
        (vision.squared), where a named card or a back (the largest) shows it slanted by more
        than TABLE_SLANT. A card read there is added where no named card or back lies, in place
        of unnamed detections at its spot, and only under a name not given already (a deck
        holds each card once); the view's unnamed cards are not: the still's own stages judged
        those spots. Only where the finder's paper (``found.mask``) outside the named cards and
        backs adds up to LEFT_PAPER of a card: a photo of one card named already has nothing
        left to find."""
        sure = [d for d in dets if d.card is not None or not d.face_up]
        if not sure:
            return dets
        guide = max(sure, key=lambda d: cv2.contourArea(np.float32(d.quad)))
        if squared.slant(guide.quad, self.profile.aspect) <= TABLE_SLANT:
            return dets
        left = found.mask.copy()
        for d in sure:
            cv2.fillPoly(left, [np.round(d.quad * found.scale).astype(np.int32)], 0)
        card = cv2.contourArea(np.float32(guide.quad)) * found.scale ** 2
        if cv2.countNonZero(left) < LEFT_PAPER * card:
            return dets
        view = squared.squaring_view(guide.quad, self.profile.aspect, (image.shape[1], image.shape[0]))
        if view is None:
            return dets
        h_mat, size = view
        flat = cv2.warpPerspective(image, h_mat, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        back = np.linalg.inv(h_mat)
        out = list(dets)
        for d in self._recognise(flat, candidates)[0]:
            if d.face_up and (d.card is None or any(k.card == d.card for k in out)):
                continue
            q = cv2.perspectiveTransform(np.float32(d.quad).reshape(-1, 1, 2), back).reshape(4, 2)
            on = _on_spot(out, q)
            if any(k.card is not None or not k.face_up for k in on):
                continue
            out = [k for k in out if not any(k is o for o in on)]
            out.append(replace(d, quad=np.float32(q)))
        return out

    def _recognise(self, image_bgr: np.ndarray, candidates: Collection[str] | None = None,
                   roi: tuple[int, int, int, int] | None = None,
                   search: tuple[int, int, int, int] | None = None) -> tuple[list[Detection], FindResult]:
        """:meth:`recognise` of the still as it is, and what the finder found in it."""
        found = find_cards(image_bgr, self.profile.aspect, roi)
        allowed = self._allowed(candidates)
        out: list[Detection] = []
        blanks: list[Candidate] = []    # whole card shapes that no enrolled face matched
        quads = [c.quad for c in found.candidates]
        for i, cand in enumerate(found.candidates):
            others = quads[:i] + quads[i + 1:]
            if not cand.whole and (not others or _others_mask(cand.quad, others) is None):
                # no other found card touches it: a card by itself, whose blob the finder
                # saw broken (glare, a shadow, dark wood seen obliquely: deepPoker
                # table-spades_2-4.jpg), not a piece of a pile
                cand = replace(cand, whole=True)
            if cand.whole or not found.hypotheses:
                det = self._classify(image_bgr, cand, found, others, allowed, roi)
                if det is not None:
                    out.append(det)
                elif cand.whole:
                    blanks.append(cand)
        out += self._piles(image_bgr, found, allowed, roi)
        looks = iter(self._described([_face_crop(image_bgr, d.quad, self.profile.face_size)
                                      for d in out if d.face_up]))
        out = [self._rechecked(image_bgr, d, allowed, *next(looks)) if d.face_up else d for d in out]
        box = search or roi
        x0, y0 = (0, 0) if box is None else (max(0, box[0]), max(0, box[1]))
        sub = image_bgr if box is None else image_bgr[y0:y0 + box[3], x0:x0 + box[2]]
        kp = []
        if roi is None or not _all_named(out):
            kp = [(replace(d, quad=d.quad + np.float32([x0, y0])), a) for d, a in self._keypoint_cards(sub, allowed)]
        # one detection per card: a named reading before an unnamed one, keypoint cards
        # (whose quad is the homography's) before the finder's at equal standing
        kept: list[Detection] = []
        for d in sorted([d for d, _ in kp] + out, key=lambda d: d.card is None):
            if not any(_same_spot(k.quad, d.quad) for k in kept):
                kept.append(d)
        # the finder's named cards a keypoint fit displaced: _guarded may judge a name at them
        spare = [d for d in out if d.card is not None and not any(k is d for k in kept)]
        kept += self._leftovers(image_bgr, found, kept, allowed)
        outlines = outline.propose(image_bgr, self.profile.aspect) if roi is None else []
        if roi is None:
            kept = self._outlined(image_bgr, kept, allowed, outlines)
        if roi is None and not found.candidates and not kept:
            kept += self._whole_picture(image_bgr, allowed)
        kept = self._guarded(image_bgr, _one_per_card(kept), spare)
        if roi is None or not _all_named(kept):
            reads = [r.moved(np.float32([x0, y0])) for r in self.corners.read(sub, candidates, claims=True)]
            kept = _with_corners(kept, reads, self.corners.against)
            if roi is None:
                kept += _claimed_cards(kept, reads)
        if roi is None:
            # the named cards do not change below (only unnamed ones are added): measured once
            table = self._named_size_and_paper(image_bgr, kept)
            kept = self._with_unmatched(image_bgr, blanks, kept, allowed, table)
            kept = self._with_agreed_cards(image_bgr, found, outlines, kept, table)
            kept = self._with_outlined_cards(image_bgr, outlines, kept, table[0])
            kept = self._with_slanted_cards(image_bgr, found, kept, allowed, candidates)
        return _without_pieces(kept), found

    def _with_slanted_cards(self, image, found: FindResult, kept: list[Detection], allowed,
                            candidates: Collection[str] | None = None) -> list[Detection]:
        """``kept`` and the cards seen obliquely (vision.finder.slanted_quads: paper blobs
        with four corners, of any shape) where no card was found, each named by duels when
        they separate or by its corner index read on the face straightened there
        (:meth:`_slanted_card`), or read surely as the enrolled back (that card face down), else
        dropped: any convex quad is a view of some rectangle, so only a name says it is a card.
        A card named so takes the place of the unnamed pieces at its spot. Where any detection
        of the deck's shape lies (named, a back, or unnamed), the card was found and judged
        there: duels of a card not enrolled, found whole and rightly left unnamed, name its
        pip-count neighbour (deepPoker's unenrolled clubs 9 as the clubs 10,
        bench/vision_realdata.py, 7 of 38 photos).

        One blob holding several detections, some unnamed and the rest of one name, may be
        one card found in pieces (:func:`_pieces_of_one`): its slanted quad is named too, and
        stands for the pieces only when it takes the name they have, if any."""
        pieces = _pieces_of_one(kept, blobs_of(found, [d.quad for d in kept]))
        taken = [d.quad for k, d in enumerate(kept) if k not in pieces and (
            d.card is not None or not d.face_up or _skew(d.quad, self.profile.aspect) <= MAX_SKEW)]
        for quad in slanted_quads(image, found, self.profile.aspect, taken):
            if any(_same_spot(t, quad) for t in taken):
                continue        # another fit of a blob named already
            det = self._slanted_card(image, quad, allowed, candidates)
            if det is None or any(_same_spot(t, det.quad) for t in taken):
                continue        # two blobs of one card: named once
            on = _on_spot(kept, quad)
            if any(d.card not in (None, det.card) for d in on):
                continue        # a piece named otherwise: two readings disagree, no guess
            kept = [d for d in kept if not any(d is o for o in on)]
            kept.append(det)
            taken.append(det.quad)
        return kept

    def _with_unmatched(self, image, blanks: list[Candidate], kept: list[Detection], allowed,
                        table: tuple[float | None, float | None]) -> list[Detection]:
        """``kept`` and the cards of a design not enrolled (another deck's courts and aces
        match no enrolled face): the whole card shapes the finder found and identification
        dropped as "not a card" that still look like a printed face (vision.paper: a paper
        rim around ink, which a table, a phone or a blank sheet lacks; ink as strong as print,
        INK_CONTRAST, which a cloth's pale checks and flowers are not; a paper margin on
        every side, which a quad half on a blank sheet lacks), each reported once,
        unnamed (CONTRACT §4), where no detection lies on them (a part of a card found
        otherwise, a pip panel, is not another card). Largest first: a court's inner frame
        is the same card. Half of a card reported unnamed and the other half found here are
        that card (:func:`_halves_joined`; not a named one: two cards side by side make a
        box of a card's shape too, renders of cards 40-60 px wide). Where cards are named, one
        of another size (ONE_SIZE) or with darker paper (PAPER_SHADE) is not a card at this
        table: a framed picture in a magazine has a paper rim around ink too, and so, to the
        rim test, has a patch of dark cloth or a glare on it. Whole stills only, as for the
        other cards only a still reports. ``table``: the named cards' size and paper
        (:meth:`_named_size_and_paper`)."""
        if not blanks:
            return kept
        out = list(kept)
        size, paper = table
        for cand in sorted(blanks, key=lambda c: -cv2.contourArea(c.quad)):
            if size is not None and abs(math.log(quad_sides(cand.quad)[0] / size)) > ONE_SIZE:
                continue
            joined = [(k, _halves_joined(d.quad, cand.quad, self.profile.aspect)) for k, d in enumerate(out)
                      if d.card is None and d.face_up]
            k, box = next(((k, box) for k, box in joined if box is not None), (-1, None))
            if box is not None:
                out[k] = replace(out[k], quad=box)
                continue
            # the rectangle fitted to the leading face (the finder's may reach onto a dark
            # table: deepPoker black-*), or the finder's (fitting a face of another design
            # can pull a corner onto the table): the first that looks like a card face
            fitted = self._aligned_read(image, cand.quad, allowed)[1]
            looks = next(((q, face) for q in (fitted, cand.quad)
                          if face_looks(face := _face_crop(image, q, self.profile.face_size))), None)
            if looks is None or not printed(looks[1]):
                continue
            q, face = looks
            others = [d.quad for d in out]
            if (others and _others_mask(q, others) is not None) or \
                    (paper is not None and paper_level(face) < PAPER_SHADE * paper):
                continue
            out.append(Detection(np.asarray(q, np.float32), None, True, 0.0, 0.0))
        return out

    def _with_outlined_cards(self, image, outlines: list[outline.Outline], dets: list[Detection],
                             named_size: float | None) -> list[Detection]:
        """``dets`` and the cards seen by their outline alone that nothing named and no
        detection lies on, each reported once, unnamed (CONTRACT §4: every visible card once).

        Where cards are named (``named_size``: their median short side), a quad at their size
        (OUTLINED_SIZE) with all four corners and four sides seen as straight edges
        (vision.outline): a back when the deck's back is not enrolled (no paper, no ink: the
        finder and the unmatched-shape test both look for paper), a card of another design
        on a cloth its paper does not stand out from; a magazine picture, a tile or a box lid
        at the table is of another size or lacks a corner. Such a card is not called a back:
        without an enrolled back nothing tells a back from a face bleached by a colour cast,
        so it stays face up and unnamed, for a person to confirm.

        Where nothing is named there is no size to go by: an outline with ALONE_SIDES sides
        seen and ALONE_CORNERS corners that looks like a printed face (a paper rim,
        ``framed``: a Triestine card's frame line lies in its rim; ink as strong as print; a
        paper margin all round; the margin and print may be judged round the outline instead,
        FRAME_MARGIN: a court outlined along its printed frame line, whose picture meets the
        line) and, where cards are reported unnamed, is of their size (ONE_SIZE: the framed
        pictures of a magazine beside a deepPoker card not enrolled are not); largest first (a
        court's inner frame is the same card)."""
        out = list(dets)
        if named_size is not None:
            shaped = [o for o in outlines if o.corners >= 4 and o.sides >= 4 and
                      abs(math.log(quad_sides(o.quad)[0] / named_size)) <= OUTLINED_SIZE]
        else:
            size = float(np.median([quad_sides(d.quad)[0] for d in dets])) if dets else None
            shaped = sorted((o for o in outlines if o.sides >= ALONE_SIDES and o.corners >= ALONE_CORNERS and
                             (size is None or abs(math.log(quad_sides(o.quad)[0] / size)) <= ONE_SIZE)),
                            key=lambda o: -cv2.contourArea(o.quad))
        for o in shaped:
            if out and _others_mask(o.quad, [d.quad for d in out]) is not None:
                continue
            if named_size is None:
                face = _face_crop(image, o.quad, self.profile.face_size)
                if not face_looks(face, framed=True):
                    continue        # no paper rim: a box lid, a plain back not enrolled
                card = grown(o.quad, FRAME_MARGIN * quad_sides(o.quad)[0])     # round a frame line
                if not (printed(face) or self._looks_printed(image, card)):
                    continue
            out.append(Detection(np.asarray(o.quad, np.float32), None, True, 0.0, 0.0))
        return out

    def _looks_printed(self, image, quad: np.ndarray) -> bool:
        """Whether the face at ``quad`` looks like a printed card to an outline alone: a
        paper rim judged part by part (vision.paper.face_looks ``framed``) around print."""
        face = _face_crop(image, quad, self.profile.face_size)
        return face_looks(face, framed=True) and printed(face)

    def _named_size_and_paper(self, image, dets: list[Detection]) -> tuple[float | None, float | None]:
        """The named cards' median short side and paper lightness: what a card of this table
        looks like (None, None where nothing is named)."""
        named = [d.quad for d in dets if d.card is not None]
        if not named:
            return None, None
        return (float(np.median([quad_sides(q)[0] for q in named])),
                float(np.median([paper_level(_face_crop(image, q, self.profile.face_size)) for q in named])))

    def _with_agreed_cards(self, image, found: FindResult, outlines: list[outline.Outline],
                           kept: list[Detection], table: tuple[float | None, float | None]
                           ) -> list[Detection]:
        """``kept`` and the cards two independent cues agree on that nothing reported yet,
        each once, unnamed (CONTRACT §4): a region the finder proposed (a lone card, or a
        piece of what it took for a pile: on light wood, a towel or a pale cloth a lone
        card's paper blob takes in some table and is explained as a pile, and unnamed pile
        pieces are not reported) where an outline (vision.outline) with AGREED_SIDES sides
        seen as straight edges covers the same ground (AGREED_SHARE both ways). It must look
        like a printed face (a paper rim around ink as strong as print, INK_CONTRAST) whose
        margin is paper too (a light line framing a cloth's check is a rim of sorts), lie
        under no detection and, where cards are named, be of their size and paper (ONE_SIZE,
        PAPER_SHADE, as for :meth:`_with_unmatched`; ``table``). Reported at the outline's
        quad, which lies on the edges."""
        size, paper = table
        out = list(kept)
        for cand in found.candidates:
            for o in outlines:
                if o.sides < AGREED_SIDES or not _agree(o.quad, cand.quad):
                    continue
                if size is not None and abs(math.log(quad_sides(o.quad)[0] / size)) > ONE_SIZE:
                    continue
                if out and _others_mask(o.quad, [d.quad for d in out]) is not None:
                    continue
                face = _face_crop(image, o.quad, self.profile.face_size)
                if not (face_looks(face) and printed(face)) or \
                        (paper is not None and paper_level(face) < PAPER_SHADE * paper):
                    continue
                out.append(Detection(np.asarray(o.quad, np.float32), None, True, 0.0, 0.0))
                break
        return out

    def _guarded(self, image, dets: list[Detection], spare: Sequence[Detection] = ()) -> list[Detection]:
        """``dets`` without the names their faces cannot give: a pip card whose look-alike is
        not enrolled stays named only when no other card overlaps its face (which lies on top
        is not known) and every cell of the face agrees with it (LOOKALIKE_CELL); never when
        the one lacking is its colour twin. A card whose enrolled face enrolment doubted
        (Profile.suspect) stays named only when every cell agrees with it too. Unnamed here,
        the corner index can still name it.

        ``spare``: detections set aside for one in ``dets`` at the same spot. Where a spare
        gives the same name, the cells are judged at its quad too: a keypoint fit of few
        inliers (12, a drawn spades ace on a light table, tests/vision/test_enrol_camera.py)
        is a corner 10 px off, and its cells agree 0.77 where the finder's aligned quad
        agrees over LOOKALIKE_CELL."""
        out = []
        for d in dets:
            if d.card not in self._lacking and d.card not in self.profile.suspect:
                out.append(d)
                continue
            quads = [d.quad] + [s.quad for s in spare
                                if s.card == d.card and _same_spot(s.quad, d.quad)]
            others = [o.quad for o in dets if o is not d]
            for q in quads:
                hidden = False
                if d.card in self._lacking:
                    cover = _others_mask(q, others) if others else None
                    hidden = cover is not None and bool(
                        (INNER[FINE].reshape(cover.shape) * (1 - cover)).any())
                if not hidden and self._face_names(describe(_face_crop(image, q, FACE)), d.card):
                    out.append(replace(d, quad=q))
                    break
            else:
                out.append(replace(d, card=None, confidence=0.0))
        return out

    def _face_names(self, desc: Descriptor, card: str) -> bool:
        """Whether a whole face (``desc``) alone can name ``card`` (see :meth:`_guarded`).

        A doubted face (glare washing out half of it, table at its rim) matches a look-alike
        weakly everywhere and can outscore that card's own face: enrolled from deepPoker's
        ``table-*-4`` close-ups (29 of 50 faces doubted), the other 156 table photos gave 6
        wrong names, all of doubted faces, whose worst cells agreed 0.32-0.64 with them; of
        the 61 right names of doubted faces 38 agree from LOOKALIKE_CELL up
        (bench/recognise_checks.py doubted)."""
        twin = self._lacking.get(card)
        if twin:
            return False
        if twin is None and card not in self.profile.suspect:
            return True
        return self._agreement(desc, card) >= LOOKALIKE_CELL

    def _own_template(self, desc: Descriptor, card: str) -> int:
        """The template of ``card`` (either way up) that the face ``desc`` matches best."""
        own = np.flatnonzero(self.bank.labels == card)
        return int(own[np.argmax(self.bank.scores(desc)[own])])

    def _agreement(self, desc: Descriptor, card: str) -> float:
        """Worst-cell agreement of the whole face ``desc`` with ``card`` (:meth:`_worst_cell`)."""
        return self._worst_cell(desc, self._own_template(desc, card), None)

    def _whole_picture(self, image, allowed) -> list[Detection]:
        """A still cut to its card (the card fills the picture, so the finder and the
        keypoints found nothing): the whole picture fitted to its leading face and named by duels, when
        it is card-shaped. The shape only keeps landscapes of table from being read as a
        face; duels and cells decide, as for any card."""
        h, w = image.shape[:2]
        if abs(math.log(max(h, w) / max(1, min(h, w)) / self.profile.aspect)) > CROP_SHAPE:
            return []
        det = self._named_by_duels(image, order_quad(face_corners(w, h)), allowed)
        return [] if det is None else [det]

    def _leftovers(self, image, found: FindResult, kept: list[Detection], allowed) -> list[Detection]:
        """Card-shaped regions no detection explains (e.g. a lone card the finder took for
        part of a pile), fitted to their leading face and named by duels when they separate."""
        out: list[Detection] = []
        for cand in found.candidates:
            c = cand.quad.mean(axis=0)
            if any(inside(d.quad, c) for d in kept + out):
                continue
            det = self._named_by_duels(image, cand.quad, allowed)
            if det is not None:
                out.append(det)
        return out

    def _outlined(self, image, kept: list[Detection], allowed, outlines: list[outline.Outline]
                  ) -> list[Detection]:
        """``kept`` and the cards outlined by straight edges (vision.outline) that no
        detection already is: each fitted to its leading face and named by duels on its
        part no detection covers (a card half under another is outlined by its visible
        corners), surer when partly seen, as a pile card is. An outlined card also takes
        the place of a detection of the same card at a quad of the wrong shape (part of
        the card, which can look just like another card). An outline read as the enrolled
        back is that card face down: a back shows no paper to the finder on a table as light
        as its paper or a cloth checked as light (session 50: such a back half under a card
        was missed in 7 of 12 renders on pale wood and 12 of 12 on a checked cloth; now in 1
        and 8), and a pile's top card is outlined where the finder's quad spans the cards
        under it (the Trentine frames with their back enrolled, bench/vision_realdata.py).
        A whole outline on bare ground whose face as proposed leads with the back, however
        little (a fine pattern off by a few pixels), is fitted too, and read only as the back
        (session 53)."""
        dets = list(kept)
        # proposals with a side seen and not a shaped detection already, screened in one batch
        todo = []
        for o in outlines:
            rest = self._other_cards(dets, o.quad)
            if o.sides < 1 or rest is None:
                continue
            others = [d.quad for d in rest]
            cover = _others_mask(o.quad, others) if others else None
            if cover is None or cover.mean() >= OUTLINE_SEEN:
                todo.append((o, describe(_face_crop(image, o.quad, FACE)), cover))
        screen = self.bank.scores_many([(desc, cover) for _, desc, cover in todo])
        for (o, _, proposed_cover), s in zip(todo, screen):
            lead = self._answer_of(s, allowed)
            # a back's fine pattern on its outline as proposed (often its inner frame line) matches
            # little before the fit: the Trentine piles' backs score 0.20-0.38 there, 0.50-0.73 fitted
            # (bench/vision_realdata.py, /tmp probe). A whole outline on bare ground that leads
            # with the back is fitted; it stands only as the back
            back_only = lead.score < FIT_FLOOR
            if back_only and not (lead.card == BACK and proposed_cover is None and
                                  o.corners >= ALONE_CORNERS and o.sides >= ALONE_SIDES):
                continue
            rest = self._other_cards(dets, o.quad)
            if rest is None:
                continue        # named meanwhile, from another of its outlines
            others = [d.quad for d in rest]
            _, q, desc = self._aligned_read(image, o.quad, allowed)
            cover = _others_mask(q, others) if others else None
            seen = 1.0 if cover is None else float(cover.mean())
            a = self._decide(_face_crop(image, q, self.profile.face_size), allowed, desc, cover)
            need = self.threshold if seen > WHOLE_SEEN else max(self.threshold, PARTIAL_THRESHOLD)
            if a.confidence < need or _skew(q, self.profile.aspect) > WHOLE_SKEW or (back_only and a.card != BACK):
                continue
            if any(_same_cards([d.quad for d in rest], q)):
                continue            # fitting moved it onto a card found otherwise
            dets = rest
            dets.append(self._detection(q, a))
        return dets

    def _other_cards(self, dets: list[Detection], quad: np.ndarray) -> list[Detection] | None:
        """The detections of other cards than the one at ``quad``; None when a named card or
        a back there already has the deck's shape (nothing for an outline to mend). An unnamed
        one may yet be named through its outline: a keypoint fit of a card half under another
        (14 inliers, a Bresciane 4 of batons under a jack, bench/vision_renders.py real, seed
        1007) reads the covered part too and names nothing."""
        same = _same_cards([d.quad for d in dets], quad)
        if any(_skew(d.quad, self.profile.aspect) <= MAX_SKEW
               for d, s in zip(dets, same) if s and (d.card is not None or not d.face_up)):
            return None
        return [d for d, s in zip(dets, same) if not s]

    def _slanted_card(self, image, quad: np.ndarray, allowed, candidates: Collection[str] | None
                      ) -> Detection | None:
        """The card at a slanted quad, read both ways round: seen far across a table, a card's
        long side can look shorter than its short side, and a face straightened with its
        sides swapped is the card turned a quarter and squashed, which names nothing (nor
        does its index). Named when one way names it, or both name the same card; a back the
        same way (face down: session 51, every back seen obliquely was lost before, 9 of 9 in
        bench/vision_renders.py's Bresciane oblique scenes)."""
        dets = [self._named_by_duels(image, q, allowed, SLANT_FACE_MIN, index=True, candidates=candidates,
                                     back=True) for q in (quad, np.roll(quad, 1, axis=0))]
        named = [d for d in dets if d is not None]
        if len({d.card for d in named}) != 1:
            return None
        return max(named, key=lambda d: d.confidence)

    def _named_by_duels(self, image, quad: np.ndarray, allowed, face_min: float = 0.0,
                        index: bool = False, candidates: Collection[str] | None = None,
                        back: bool = False) -> Detection | None:
        """The face at ``quad`` fitted to its leading enrolled face and named by duels; None
        unless the duels name a face surely (or, with ``back``, the enrolled back: that card
        face down), whose whole-face score reaches ``face_min``. With ``index``, a face the
        duels leave unnamed may be named by its corner index (:meth:`_named_by_face_index`)."""
        _, fitted, desc = self._aligned_read(image, quad, allowed)
        face = _face_crop(image, fitted, self.profile.face_size)
        a = self._decide(face, allowed)
        if a.confidence >= self.threshold and (a.card != BACK or back) and a.score >= face_min:
            return self._detection(fitted, a)
        return self._named_by_face_index(face, desc, fitted, candidates, face_min) if index else None

    def _named_by_face_index(self, face: np.ndarray, desc: Descriptor, quad: np.ndarray,
                             candidates: Collection[str] | None, face_min: float) -> Detection | None:
        """The card whose corner index is read on ``face`` (straightened at ``quad``; ``desc``
        its descriptor), or None.

        Seen far across a table, a card's index is foreshortened past what the reader takes
        in the picture, but upright and at its printed size on the face straightened from the
        card's quad; and where duels of a slanted face leave two black 2s within a few hundredths,
        the index tells their suits apart (deepPoker table-spades_2-4 turned 50°: spades 2 against
        clubs 2 at 0.809 / 0.798 on the whole face, its index read spades/2 at 1.0). Every index
        read must name that one card (none another, none claiming a card not enrolled), and
        the whole face must match that card as cards do (``face_min``): a piece of a card shows
        an index too."""
        reads = self.corners.read(face, candidates, claims=True)
        names = {r.card for r in reads if r.card is not None}
        if len(names) != 1 or any(r.claim is not None and r.claim not in names for r in reads):
            return None
        card = names.pop()
        if float(self.bank.scores(desc)[self._own_template(desc, card)]) < face_min or \
                not self._face_names(desc, card):
            return None
        r = max((r for r in reads if r.card == card), key=lambda r: r.confidence)
        return Detection(np.asarray(quad, np.float32), card, True, r.confidence, r.margin, r.top)

    def _rechecked(self, image, det: Detection, allowed, desc: Descriptor | None = None,
                   face: np.ndarray | None = None, cover: np.ndarray | None = None) -> Detection:
        """A finder detection named again by duels: a name the duels contradict is
        withdrawn, an unnamed card the duels separate is named (``desc``: the face at
        ``det.quad`` described, ``face``: straightened to the profile's face size, when
        the caller has them; ``cover``: its part seen, see :meth:`_decide`)."""
        if not det.face_up:
            return det
        face = _face_crop(image, det.quad, self.profile.face_size) if face is None else face
        a = self._decide(face, allowed, desc, cover)
        if det.card is not None and a.card == det.card and a.margin > 0:
            return replace(det, top=a.top)      # both readings agree: the surer one stands
        if det.card is not None:                # the duels favour another card: no guess
            return replace(det, card=None, confidence=min(det.confidence, a.confidence), top=a.top)
        if det.card is None and a.confidence >= self.threshold and a.card != BACK:
            return replace(det, card=a.card, confidence=a.confidence, margin=a.margin, top=a.top)
        return replace(det, top=a.top)

    def _piles(self, image, found: FindResult, allowed, roi) -> list[Detection]:
        """The cards of piles, chosen among the finder's rectangles by identification.

        Most confident first: a card whose whole face matches is on top; each further one
        is read on the part the cards chosen before leave visible (so a wrong rectangle,
        half on one card and half on another, matches nothing well). Before a rectangle
        is judged the face it resembles is fitted to it (vision.align), as for a single
        card, and it is read again there. A card is named once.
        """
        pieces = [self._piece(image, h.quad, found, roi) for h in found.hypotheses]
        chosen: list[Detection] = []
        while pieces:
            self._read([p for p in pieces if p.answer is None], [d.quad for d in chosen], allowed)
            p = max(pieces, key=lambda p: p.answer.confidence)
            if not p.fitted:
                if p.answer.score < FIT_FLOOR:
                    break
                q = self._align(image, p.quad, p.answer.index)
                short, _ = quad_sides(p.quad)
                # how far the face must move to fit (none: could not be fitted at all)
                moved = np.inf if q is None else float(np.linalg.norm(q.mean(0) - p.quad.mean(0))) / short
                fit = None if q is None else self._piece(image, q, found, roi, fitted=True)
                if fit is not None:
                    self._read([fit], [d.quad for d in chosen], allowed)
                if fit is not None and fit.answer.score > p.answer.score:
                    pieces[pieces.index(p)] = p = fit
                else:           # the rectangle as found fits better: read it again, judged
                    p.fitted, p.answer = True, None
                p.moved = moved
                continue
            pieces.remove(p)
            need = self.threshold if p.seen > WHOLE_SEEN else max(
                self.threshold, PILE_PARTIAL if p.moved > FIT_TRUST else PARTIAL_THRESHOLD)
            if p.answer.confidence < need:
                continue
            a = p.answer
            det = Detection(p.quad, None if a.card == BACK else a.card, a.card != BACK,
                            a.confidence, a.margin)
            chosen.append(det)
            short, _ = quad_sides(det.quad)
            pieces = [o for o in pieces if not _clash(o, det, short)]
            for o in pieces:
                if _others_mask(o.quad, [det.quad]) is not None:
                    o.answer = None
        return chosen

    def _piece(self, image, quad: np.ndarray, found: FindResult, roi, fitted: bool = False
               ) -> "_Piece":
        vis = _visible_mask(quad, found, roi)
        return _Piece(quad, describe(_face_crop(image, quad, FACE)),
                      None if vis.mean() >= ALL_SEEN else vis, fitted)

    def _read(self, pieces: list["_Piece"], above: list[np.ndarray], allowed) -> None:
        """Each piece's best reading (whole face, visible part, part not under ``above``)
        and how much of it is seen, set on the piece; all compared in one batch."""
        plans = [_read_masks(p.quad, p.vis, above) for p in pieces]
        reads = self._reads([(p.desc, masks) for p, (masks, _) in zip(pieces, plans)], allowed)
        for p, r, (_, seen) in zip(pieces, reads, plans):
            p.seen = seen
            if not p.fitted:      # a rough rectangle: judged only once the face is fitted to it
                p.answer = max((a for a, _ in r), key=lambda a: a.confidence)
            else:
                p.answer = self._believed(p.desc, p.quad, False, r, cells=False)

    def _classify(self, image, cand: Candidate, found: FindResult, others, allowed, roi
                  ) -> Detection | None:
        best, quad, seen = self._best_answer(image, cand, found, others, allowed, roi)
        # a partly hidden face can lack just the pip that tells a 7 from an 8: ask more
        # A lone whole rectangle that no other found card overlaps is all there, even when
        # the finder's mask is broken up (a lined cloth) and so reports it partly seen.
        lone = cand.whole and (not others or _others_mask(quad, others) is None)
        need = self.threshold if (seen > WHOLE_SEEN or lone) else max(self.threshold, PARTIAL_THRESHOLD)
        det = _verdict(quad, best, need, cand.whole)
        if det is not None and det.card is None and det.face_up and \
                ink_contrast(_face_crop(image, quad, self.profile.face_size)) < INK_CONTRAST:
            return None     # unnamed, and no print on it: a pale cloth's check, a sheet (vision.paper)
        return det

    def _best_answer(self, image, cand: Candidate, found: FindResult, others, allowed, roi
                     ) -> tuple[_Answer, np.ndarray, float]:
        """The most confident reading of one candidate (whole face, visible part, or the
        part no other card covers), the quad it was read at, and how much of it is seen."""
        _, best_q, ch = self._aligned_read(image, cand.quad, allowed)
        masks, seen = _read_masks(best_q, _visible_mask(best_q, found, roi), others)
        reads = self._reads([(ch, masks)], allowed)[0]
        return self._believed(ch, best_q, cand.whole, reads), best_q, seen

    def _reads(self, faces: list[tuple[Descriptor, list[np.ndarray]]], allowed
               ) -> list[list[tuple[_Answer, np.ndarray | None]]]:
        """Readings of each face (descriptor, masks from :func:`_read_masks`), each with
        the mask it was read on (None: the whole face, first); all scored in one batch."""
        scores = iter(self.bank.scores_many([(d, m) for d, masks in faces for m in [None, *masks]]))
        return [[(self._answer_of(next(scores), allowed), m) for m in [None, *masks]] for _, masks in faces]

    def _believed(self, desc: Descriptor, quad: np.ndarray, whole: bool,
                  reads: list[tuple[_Answer, np.ndarray | None]], cells: bool = True) -> _Answer:
        """The most confident of ``reads`` (answer, mask it was read on) after the checks.

        Each must pass the worst-cell rule (``cells``; not for pile cards: there the rule
        rejects right readings of cards partly under a hand, and the surer confidence for
        partly seen pile cards, PILE_PARTIAL, does its job); the visible part of a card
        read at a quad of the wrong shape is not believed: its hidden end could hold the
        pip that makes a 6 a 7, at a place the face as read cannot show. Nor is any reading
        at a quad farther from the deck's shape than a slanted view makes it (WHOLE_SKEW):
        such a quad is part of a card, which can look just like another card (six of the
        eight coins of a Bresciane 8 are a 6).
        """
        skew = _skew(quad, self.profile.aspect)
        shaped = whole or skew <= MAX_SKEW
        answers = [(self._checked(desc, a, m) if cells else a) if (shaped or m is None) and skew <= WHOLE_SKEW
                   else replace(a, confidence=0.0) for a, m in reads]
        return max(answers, key=lambda a: a.confidence)

    def _aligned_read(self, image, quad: np.ndarray, allowed
                      ) -> tuple[_Answer, np.ndarray, Descriptor]:
        """The best whole-face reading of ``quad`` or of a quad fitted to the face there.

        The finder's corners may be off (an inner frame line, a lined cloth, a guessed
        corner): the leading template is fitted to the face and the face read again where
        it really lies; when that changes the leader, or the runner-up is close, that
        card's template is fitted too, so close cards are compared each at its own fit.
        """
        best_q, ch = quad, describe(_face_crop(image, quad, FACE))
        best_a = self._answer(ch, allowed)
        tried: set[int] = set()
        queue = self._contenders(best_a)
        crop = None         # every template is fitted to the same crop around ``quad``
        while queue and len(tried) < MAX_ALIGN:
            index = queue.pop(0)
            if index in tried or index < 0:
                continue
            tried.add(index)
            crop = self._align_crop(image, quad) if crop is None else crop
            q = self._align(image, quad, index, crop)
            if q is None:
                continue
            d = describe(_face_crop(image, q, FACE))
            a = self._answer(d, allowed)
            if a.score > best_a.score:
                best_q, best_a, ch = q, a, d
            queue += self._contenders(a)
        return best_a, best_q, ch

    def _checked(self, desc: Descriptor, a: _Answer, mask: np.ndarray | None) -> _Answer:
        """``a``, or ``a`` with no confidence when some part of the face it was read on
        disagrees with the named card (a pip too many, another suit sign): a card whose
        distinguishing part does not fit is not that card, however well the rest does."""
        if a.card == BACK or a.index < 0:
            return a
        worst = self._worst_cell(desc, a.index, mask)
        if worst >= CELL_MIN:
            return replace(a, worst_cell=worst)
        return replace(a, confidence=0.0, worst_cell=worst)

    def _worst_cell(self, desc: Descriptor, index: int, mask: np.ndarray | None) -> float:
        """Gradient agreement (cosine, blank cells agreeing) of the face with template
        ``index`` in its worst-matching visible cell: 1 alike, 0 or less unlike."""
        if mask is None:
            key = (id(desc), index)
            hit = self._worst_kept.get(key)
            if hit is not None and hit[0]() is desc:
                return hit[1]
            worst = self._worst_cell_of(desc, index, None)
            self._worst_kept[key] = (weakref.ref(desc), worst)
            if len(self._worst_kept) > KEPT_WORST:
                self._worst_kept.popitem(last=False)
            return worst
        return self._worst_cell_of(desc, index, mask)

    def _worst_cell_of(self, desc: Descriptor, index: int, mask: np.ndarray | None) -> float:
        w, h = FINE
        t = self.bank.shape.raw[index].reshape(2, h // CELL, CELL, w // CELL, CELL)
        f = desc.shape.reshape(2, h // CELL, CELL, w // CELL, CELL)
        m = INNER[FINE].reshape(h, w)
        if mask is not None:
            m = m * cv2.resize(mask, (w, h), interpolation=cv2.INTER_AREA)
        m = m.reshape(h // CELL, CELL, w // CELL, CELL)
        tt = (t * t * m).sum(axis=(0, 2, 4))
        ff = (f * f * m).sum(axis=(0, 2, 4))
        tf = (t * f * m).sum(axis=(0, 2, 4))
        cover = m.mean(axis=(1, 3))
        ok = cover > 0.5
        if not ok.any():
            return 1.0
        area = CELL * CELL * cover[ok]
        te, fe = tt[ok] / area, ff[ok] / area
        rt = max(float(np.percentile(te, INK_CELL)), 1e-6)
        rf = max(float(np.percentile(fe, INK_CELL)), 1e-6)
        T, F = te / rt, fe / rf
        cos = (tf[ok] / area / np.sqrt(rt * rf) + CELL_FLOOR) / np.sqrt((T + CELL_FLOOR) * (F + CELL_FLOOR))
        cos = np.where(np.maximum(T, F) < CELL_BLANK, 1.0, cos)
        return float(cos.min())

    def _contenders(self, a: _Answer) -> list[int]:
        """Templates worth fitting after reading ``a``: its leader and, when close, the
        runner-up card turned the same way up as the leader."""
        out = [a.index]
        r = a.runner_index
        if a.margin < CLOSE and r >= 0:
            same = self.bank.orient[r] == self.bank.orient[a.index]
            out.append(r if same else r ^ 1)      # the bank holds each face at 0° then 180°
        return out

    def _align(self, image, quad: np.ndarray, index: int, crop: np.ndarray | None = None) -> np.ndarray | None:
        """``quad`` moved to where template ``index`` fits the face best (None: no fit);
        ``crop``: :meth:`_align_crop` of ``quad`` when the caller has it."""
        crop = self._align_crop(image, quad) if crop is None else crop
        warp = align.refine(self.align_templates[index], crop)
        return None if warp is None else align.aligned_quad(quad, warp)

    @staticmethod
    def _align_crop(image, quad: np.ndarray) -> np.ndarray:
        """The grey face at ``quad`` with the margins that templates are fitted in (align.refine)."""
        mx, my = align.margins()
        size = (align.SIZE[0] + 2 * mx, align.SIZE[1] + 2 * my)
        return cv2.cvtColor(_face_crop(image, align.outer_quad(quad), size), cv2.COLOR_BGR2GRAY)


@dataclass(eq=False)
class _Piece:
    """A rectangle of a pile being considered: its face read once, its reading cached."""

    quad: np.ndarray
    desc: Descriptor
    vis: np.ndarray | None     # the finder's card-like part (None: all of it)
    fitted: bool = False
    moved: float = 0.0         # how far fitting moves its centre, share of its short side
    answer: _Answer | None = None
    seen: float = 1.0


def _clash(p: _Piece, det: Detection, short: float) -> bool:
    """A piece that cannot be another card besides ``det``: the same spot, or its name."""
    if np.linalg.norm(p.quad.mean(axis=0) - det.quad.mean(axis=0)) < SAME_CENTRE * short:
        return True
    return det.card is not None and p.answer is not None and p.answer.card == det.card


def _all_named(dets: list[Detection]) -> bool:
    """True when the shape path found cards in a region and named every face-up one.

    The live table (``roi``: the region where a change settled) then skips the keypoint
    stage: SIFT on the region cost 117 ms median CPU on the frame that names a card against
    34 ms without it (bench/vision_live.py --quick, one x86 core), and it adds nothing
    where every card is already named. A region with an unnamed card, or none found, still
    gets it: that is where real tables defeat the shape finder. Whole stills always do."""
    return bool(dets) and all(d.card is not None for d in dets if d.face_up)


def _with_corners(dets: list[Detection], reads: list[corner_index.Read],
                  against: Callable[[corner_index.Read, str], float] | None = None) -> list[Detection]:
    """Detections merged with the corner indices read (vision.corner_index).

    A read index on a detection of the same card (its point inside the detection, whose
    centre is near that of the card the index implies; or, on a detection named as it, in one
    of its corners: seen slanted, a card is not where its index implies) names an unnamed detection and
    unnames one named otherwise (two readings disagree: no guess); an index on no
    detection adds its card. A card named by a detection elsewhere is in two places at
    once: neither is believed. An unnamed index only contradicts: it unnames the detection
    it lies on when it clearly shows a card not enrolled (a claim: the whole-face duels
    never saw that card as a rival), or when it prefers its own rank or suit to the
    detection's by ``against`` (CornerReader.against) >= CORNER_AGAINST; and the indices read
    on a card its face named unname it when every one of them leads with another card (see
    "Leaning indices" among this module's constants)."""
    out = list(dets)
    read_on: dict[int, list[corner_index.Read]] = {}
    for r in reads:
        on = _under(dets, r)
        if r.card is not None:
            # in a slanted view the card an index implies (scaled by the index, drawn square)
            # lies off the card's centre; an index in a corner of a card named as it is that card
            on += [k for k, d in enumerate(out) if k not in on and d.card == r.card and _at_corner(d.quad, r.index)]
        for k in on:
            read_on.setdefault(k, []).append(r)
        if r.card is None:      # an index that names nothing only contradicts
            for k in on:
                d = out[k]
                if d.card is not None and ((r.claim is not None and d.card != r.claim) or (
                        against is not None and against(r, d.card) >= CORNER_AGAINST)):
                    out[k] = replace(d, card=None)
            continue
        twin = [k for k, d in enumerate(out) if d.card == r.card and k not in on]
        for k in twin:
            out[k] = replace(out[k], card=None)
        if twin:
            continue
        for k in on:
            d = out[k]
            if d.card is None and d.face_up:
                out[k] = replace(d, card=r.card, confidence=r.confidence, margin=r.margin, top=r.top)
            elif d.card != r.card:
                out[k] = replace(d, card=None, confidence=min(d.confidence, 1 - r.confidence))
        if not on:
            lone = _lone_card_of(out, r)
            if lone is not None:
                out[lone] = replace(out[lone], card=r.card, confidence=r.confidence, margin=r.margin, top=r.top)
            else:
                out.append(Detection(r.quad, r.card, True, r.confidence, r.margin, r.top))
    for k, seen in read_on.items():
        d = out[k]
        if d.card is not None and d.card == dets[k].card and all(r.top and r.top[0][0] != d.card for r in seen):
            out[k] = replace(d, card=None)      # its index, read wherever, leans to another card
    return out


def _lone_card_of(dets: list[Detection], r: corner_index.Read) -> int | None:
    """The detection ``r``'s index is printed on though no detection lies under it
    (:func:`_under`): an unnamed face-up card that no other detection overlaps, with the index
    inside it within INDEX_CORNER of one of its corners, or at the same spot as the card the
    index implies. The first: a print of another layout (deepPoker's black-* indices sit
    nearer the edge than the enrolled faces', so the implied card ran off the photo and was
    added beside the card, which stayed unnamed). The second: a card seen slanted, found at a
    quad a little off its edges, its index just outside that quad, was reported twice, unnamed
    and named (deepPoker's table-hearts_3-4.jpg with the camera turned 30°). Only a lone card:
    in a fan the next card's quad holds this index too."""
    for k, d in enumerate(dets):
        if d.card is not None or not d.face_up or not (_at_corner(d.quad, r.index) or _same_spot(d.quad, r.quad)):
            continue
        others = [o.quad for o in dets if o is not d]
        if others and _others_mask(d.quad, others) is not None:
            continue
        return k
    return None


def _at_corner(quad: np.ndarray, point: np.ndarray) -> bool:
    """``point`` lies where a card at ``quad`` prints an index: inside it, within
    INDEX_CORNER of its short side from one of its corners."""
    short = quad_sides(quad)[0]
    return inside(quad, point) and \
        float(np.linalg.norm(np.asarray(quad) - point, axis=1).min()) <= INDEX_CORNER * short


def _under(dets: list[Detection], r: corner_index.Read) -> list[int]:
    """The detections ``r``'s index lies on as that card's index: its point inside each,
    whose centre is near that of the card the index implies."""
    c, short = r.quad.mean(axis=0), quad_sides(r.quad)[0]
    return [k for k, d in enumerate(dets) if inside(d.quad, r.index)
            and np.linalg.norm(d.quad.mean(axis=0) - c) < corner_index.SAME_CARD * short]


def _claimed_cards(dets: list[Detection], reads: list[corner_index.Read]) -> list[Detection]:
    """Cards seen only by an index that clearly shows a card not enrolled (or not among the
    candidates): each reported once, unnamed, at the quad its index implies (CONTRACT §4:
    every visible card once). Found otherwise, such a card is already a detection (unnamed:
    its claim withdraws a look-alike's name). Whole stills only: a live table's look asks
    about the cards still to be played."""
    out: list[Detection] = []
    claimed: set[str] = set()
    for r in sorted((r for r in reads if r.card is None and r.claim is not None), key=lambda r: -r.score):
        # a card found but unnamed is the claimed one where it lies (its quad from the finder
        # or keypoints, not quite the index's); a named one only where the index is its own
        # (in a fan the next card's quad holds this one's centre too). A deck holds each card
        # once: its two indices, which may imply quads apart (a print laid out unlike the
        # enrolled faces), are one card.
        if r.claim not in claimed and not _under(dets, r) and \
                not any(d.card is None and _same_spot(d.quad, r.quad) for d in dets):
            out.append(Detection(r.quad, None, True, 0.0, r.margin, r.top))
        claimed.add(r.claim)
    return out


def _pieces_of_one(dets: list[Detection], blobs: list[int]) -> set[int]:
    """Indices of the detections that may be pieces of one card seen slanted: two or more on
    one blob of the finder's mask, face up, at least one unnamed and the named ones of one
    name (deepPoker table-diamonds_2-2 with the camera turned 50°: its upper half found
    unnamed, its lower half named by its index, both the one foreshortened card). Cards of a
    trick each named, or a back among them, are several cards."""
    groups: dict[int, list[int]] = {}
    for k, (d, b) in enumerate(zip(dets, blobs)):
        if b:
            groups.setdefault(b, []).append(k)
    out: set[int] = set()
    for ks in groups.values():
        ds = [dets[k] for k in ks]
        if len(ds) >= 2 and all(d.face_up for d in ds) and any(d.card is None for d in ds) and \
                len({d.card for d in ds if d.card is not None}) <= 1:
            out.update(ks)
    return out


def _same_spot(a: np.ndarray, b: np.ndarray) -> bool:
    """Two quads of one card: each centre inside the other quad (cards of a pile overlap
    too, but the top card's centre does not lie within the card it covers both ways)."""
    return inside(a, b.mean(axis=0)) and inside(b, a.mean(axis=0))


def _on_spot(dets: list[Detection], quad: np.ndarray) -> list[Detection]:
    """The detections lying at ``quad``'s spot: its centre inside theirs, or theirs inside it
    (a piece of the card there, or a quad around it). Looser than :func:`_same_spot`, which
    asks both."""
    c = quad.mean(axis=0)
    return [d for d in dets if inside(d.quad, c) or inside(quad, d.quad.mean(axis=0))]


def _skew(quad: np.ndarray, aspect: float) -> float:
    """|log| of a quad's side ratio over the deck's: 0 for a card's own shape."""
    short, long = quad_sides(quad)
    return float(abs(np.log(long / max(short, 1.0) / aspect)))


def _same_cards(quads: list[np.ndarray], b: np.ndarray) -> list[bool]:
    """For each of ``quads``, whether it and ``b`` are quads of one card: centres closer than
    SAME_CENTRE of ``b``'s short side (two cards of a trick overlap, but their centres lie
    farther apart). All at once: an outlined still asks this of every detection for each of
    ~100 outlines."""
    if not quads:
        return []
    centres = np.stack(quads).mean(axis=1)
    return (np.linalg.norm(centres - b.mean(axis=0), axis=1) < SAME_CENTRE * quad_sides(b)[0]).tolist()


def _halves_joined(a: np.ndarray, b: np.ndarray, aspect: float) -> np.ndarray | None:
    """The card whose two halves ``a`` and ``b`` are, or None. Half a card has nearly the
    card's shape (a French card's half 1.43 against 1.4), and the finder can split a plain
    card along its middle (the 2s, 3s and aces of deepPoker's black-* photos): two quads
    are halves when the rectangle around both has the deck's shape (MAX_SKEW) and they
    fill HALVES_COVER of it. Two unnamed cards lying edge to edge are joined too: reported
    once instead of twice, neither named either way."""
    box = order_quad(cv2.boxPoints(cv2.minAreaRect(np.vstack([a, b]).astype(np.float32)))).astype(np.float32)
    fill = cv2.contourArea(np.float32(a)) + cv2.contourArea(np.float32(b))
    return box if _skew(box, aspect) <= MAX_SKEW and fill >= HALVES_COVER * cv2.contourArea(box) else None


def _agree(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether quads ``a`` and ``b`` cover the same ground: each has AGREED_SHARE of its area
    inside the other."""
    ratio, inside = overlap_shares(a, b)
    return inside >= AGREED_SHARE and inside * ratio >= AGREED_SHARE


def _one_per_card(dets: list[Detection]) -> list[Detection]:
    """Each card once: of detections lying on the same spot, keep the most confident."""
    keep: list[Detection] = []
    for d in sorted(dets, key=lambda d: -d.confidence):
        if any(_same_cards([k.quad for k in keep], d.quad)):
            continue
        keep.append(d)
    return keep


def _without_pieces(dets: list[Detection]) -> list[Detection]:
    """``dets`` without the unnamed pieces of named cards (:func:`_part_of`): the last step,
    since a card's index can name it after the piece was found."""
    named = [d.quad for d in dets if d.card is not None]
    return [d for d in dets if d.card is not None or not any(_part_of(d.quad, q) for q in named)]


def _part_of(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether quad ``a`` is a piece of the card at ``b``: smaller than it (PIECE_AREA) and
    lying within it (PIECE_INSIDE). The cards of one deck are one size, so a card cannot lie
    within another; the finder's half of a plain card, a corner index's box or a court's
    frame can (tight crops of deepPoker table photos, bench/vision_realdata.py)."""
    area, inside = overlap_shares(a, b)
    return 0 < area <= PIECE_AREA and inside >= PIECE_INSIDE


def overlap_shares(a: np.ndarray, b: np.ndarray) -> tuple[float, float]:
    """(quad ``a``'s area over ``b``'s, the share of ``a`` inside ``b``), of their hulls."""
    pa, pb = (cv2.convexHull(np.asarray(q, np.float32).reshape(-1, 1, 2)) for q in (a, b))
    area_a, area_b = cv2.contourArea(pa), cv2.contourArea(pb)
    if area_a <= 0 or area_b <= 0:
        return 0.0, 0.0
    shared, _ = cv2.intersectConvexConvex(pa, pb)
    return area_a / area_b, shared / area_a


def _face_crop(image: np.ndarray, quad: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """Straighten ``quad`` to ``size``, shrinking first with area averaging (no aliasing)."""
    short, long = quad_sides(quad)
    f = min(1.0, 2.0 * size[1] / max(long, 1.0))
    if f < 0.9:
        x, y, w, h = cv2.boundingRect(np.round(quad).astype(np.int32))
        x0, y0 = max(0, x - 2), max(0, y - 2)
        x1, y1 = min(image.shape[1], x + w + 2), min(image.shape[0], y + h + 2)
        crop = image[y0:y1, x0:x1]
        crop = cv2.resize(crop, (max(1, round(crop.shape[1] * f)), max(1, round(crop.shape[0] * f))),
                          interpolation=cv2.INTER_AREA)
        q = (quad - np.float32([x0, y0])) * f
        return warp_face(crop, q, size, cv2.INTER_LINEAR)
    return warp_face(image, quad, size, cv2.INTER_LINEAR)


def _visible_mask(quad: np.ndarray, found: FindResult, roi) -> np.ndarray | None:
    """Card-like pixels of the finder's mask, in descriptor-grid coordinates."""
    q = np.asarray(quad, np.float32).copy()
    if roi is not None:
        q -= np.float32([max(0, roi[0]), max(0, roi[1])])
    q *= found.scale
    w, h = FINE
    m = cv2.getPerspectiveTransform(q, face_corners(w, h))
    vis = cv2.warpPerspective(found.mask, m, (w, h), flags=cv2.INTER_LINEAR)
    return (vis > 127).astype(np.float32)


def _read_masks(quad: np.ndarray, vis: np.ndarray | None, others: list[np.ndarray]
                ) -> tuple[list[np.ndarray], float]:
    """The masks a face is read on besides the whole face: its visible part (the finder's
    mask ``vis``) and the part no card of ``others`` covers; and how much of it is seen."""
    masks: list[np.ndarray] = []
    seen = 1.0 if vis is None else float(vis.mean())
    if vis is not None and seen < ALL_SEEN:
        masks.append(vis)
    cover = _others_mask(quad, others) if others else None
    if cover is not None:
        m = cover if vis is None else cover * vis
        seen = min(seen, float(m.mean()))
        if m.mean() > READ_PART:
            masks.append(m)
    return masks, seen


def _verdict(quad: np.ndarray, best: _Answer, need: float, whole: bool) -> Detection | None:
    """What one believed reading of a face reports: the card named (or a back) at confidence
    ``need``; else a card without identity when it is a whole card that looks like a card
    face (not enrolled, another deck, too blurred); else nothing (a piece of a pile that
    matches nothing, blank paper, a note pad)."""
    if best.confidence >= need:
        return Detection(quad, None if best.card == BACK else best.card, best.card != BACK,
                         best.confidence, best.margin)
    if not whole or best.score < NOT_A_CARD:
        return None
    return Detection(quad, None, True, best.confidence, best.margin)


def _others_mask(quad: np.ndarray, others: list[np.ndarray]) -> np.ndarray | None:
    """1 where no other found card overlaps this one (descriptor grid), None if none do."""
    w, h = FINE
    m = cv2.getPerspectiveTransform(np.asarray(quad, np.float32), face_corners(w, h))
    out = np.ones((h, w), np.float32)
    hit = False
    for o in others:
        p = cv2.perspectiveTransform(np.asarray(o, np.float32).reshape(-1, 1, 2), m).reshape(4, 2)
        if not np.isfinite(p).all() or np.abs(p).max() > 8 * (w + h):
            continue          # seen from this card's plane the other one is degenerate
        if p[:, 0].max() < 0 or p[:, 0].min() > w or p[:, 1].max() < 0 or p[:, 1].min() > h:
            continue
        cv2.fillPoly(out, [np.round(p).astype(np.int32)], 0.0)
        hit = True
    return out if hit else None


def calibrate(profile: Profile, *, scenes: int = 12, seed: int = 0) -> tuple[float, float, float]:
    """Fit the confidence mapping on rendered stress scenes of the profile's own faces.

    Genuine: each found card read against the whole deck (right or wrong). Impostor: the
    same card read as if its own face were not enrolled, as for a card of another deck. (A
    card the caller rules out by ``candidates`` still counts as a rival, see
    ``TemplateBank.best``, so it needs no calibration of its own.)
    """
    from vision.synthetic.stress import random_scene
    rec = Recogniser(profile)
    labels = rec.bank.labels
    scores, margins, correct, weight = [], [], [], []
    n_cards = max(1, min(4, len(profile.cards) - 1))
    for k in range(scenes):
        scene = random_scene(profile, seed * 1000 + k, size=(960, 540), n_cards=n_cards)
        found = find_cards(scene.image, profile.aspect)
        for i, cand in enumerate(found.candidates):
            c = cand.quad.mean(axis=0)
            truth = min(scene.truth, key=lambda t: float(np.linalg.norm(t.quad.mean(axis=0) - c)))
            short, _ = quad_sides(truth.quad)
            if np.linalg.norm(truth.quad.mean(axis=0) - c) > SAME_CENTRE * short:
                continue
            want = truth.card if truth.face_up else BACK
            others = [o.quad for j, o in enumerate(found.candidates) if j != i]
            a, _, _ = rec._best_answer(scene.image, cand, found, others, None, None)
            scores.append(a.score)
            margins.append(a.margin)
            correct.append(a.card == want)
            weight.append(1.0)
            if want in rec.bank.cards and len(rec.bank.cards) > 2:
                rec._known = labels != want       # as if the card were not enrolled
                b, _, _ = rec._best_answer(scene.image, cand, found, others, None, None)
                rec._known = None
                scores.append(b.score)
                margins.append(b.margin)
                correct.append(False)
                weight.append(IMPOSTOR_WEIGHT)
    if len(set(correct)) < 2:
        return conf_mod.DEFAULT
    return conf_mod.fit(np.array(scores), np.array(margins), np.array(correct), np.array(weight))
