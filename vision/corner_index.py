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
matrix product compares every pair with every template. The sign is also read turned a
few degrees either way (SIGN_TURN): which digit of a 10 it was paired with tilts its frame,
and that tilt must not choose its suit.

A pair is named only when its best card beats every other card clearly, on the whole
patch and on the pixels where the two leading cards differ (vision.duel), with both its
rank half and its sign half matching, and its colour (red or black) agreeing ("never
guess"). Each card is in a deck once: an id read at two places that cannot be one card
is not believed; the two indices of one card give the same card quad and are merged.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace

import cv2
import numpy as np

from vision import duel as duel_mod
from vision.geometry import order_quad, quad_sides

FACE_WINDOW = 15       # px (in a 160 px wide face) whose brightest pixel is the paper under a glyph
INK_CUT = 0.4          # ink strength (less green and blue than the local paper) of a glyph pixel
FACE_CUTS = (INK_CUT, 0.55, 0.7)   # ink cuts tried in turn for a face's index: where its sign touches the
#   picture's frame line (thinner, fainter ink once the face is shrunk to 160 px) no sign is found at
#   INK_CUT, at a stricter cut they part. deepPoker's jack and king of clubs had no template (0.55
#   parts the king's, 0.7 the jack's); with them the reader alone names 2 more peeks and 2 more table
#   photos and crops (tune half), none less and 0 wrong (bench/vision_realdata.py)
CELLS = 16             # cells per side of each glyph's patch
SPAN = 2.6             # patch half-side, in the glyph's own ink spread (std) along "up"; a rank glyph
#   is sampled across "up" in its own spread across it: prints differ in how wide their digits are
#   (bidly deal 4's bolder, wider ones) and a card seen at a slant squashes them (the deepPoker
#   peeks). Reader alone (bench/vision_realdata.py, tune / report half), with the sign's notch:
#   bidly deals 130 / 131 -> 140 / 138 named, peeks 13 / 15 -> 20 / 19, 0 wrong in every set
#   (halfway, widths to the power 0.5: 138 / 143, peeks 17 / 19)
RANK_NARROW = 0.33     # width over height (spreads across and along "up") under which a rank glyph
#   keeps the frame of its height alone: its narrowness is what it shows. The 10's lone "1" is
#   0.22-0.30 in both real decks' enrolled faces, every other glyph 0.36 (a jack) or more
#   (bench/corner_checks.py widths). Without it (every glyph at its own width) a glyph in deepPoker
#   table-hearts_6-3.jpg (report half) read as a 10 of spades
CORNER = (0.24, 0.34)  # share of a face's (w, h) searched for its top-left index
PAIR_SLACK = 1.6       # how far beyond the templates' own range a pair's proportions may lie
# share of the enrolled cards whose faces must show an index in both corners (top left, and bottom
# right turned upright) for any to be read: a deck prints its index twice, while pips or ornaments
# near a corner of a deck with none pair up in one corner of some cards. Both corners of 100 % of
# the deepPoker and bidly enrolled faces, 62 % of the 8 Triestine ones; 12-15 % of the Bresciane
# scans (no index: read, their ornaments claimed cards where none lay, 85-99 phantoms in 24
# renders, bench/vision_renders.py) and 0-2 % of the drawn faces (session 29). In either corner
# (the rule before): deepPoker and bidly 52/52 (48-50 when first measured), Bresciane 36/52,
# drawn 12/52.
MIN_SHARE = 0.5
# An index template must look like its peers: its rank glyph like the same rank's in another suit,
# its sign like the same suit's on another rank (where the profile has such peers). A face enrolled
# from a photo that took in the background at its corner (deepPoker table-*-3.jpg, several on a
# magazine) gives a template of other ink: its 7 of hearts' named "7"s on leather and cloth at 1.0,
# a wrong name in 25 of the 156 other table photos. Best correlation with a peer (bench/
# recognise_checks.py, peers): the -3 profile's hearts 7 and two kings 0.35-0.37, then 0.67 and up;
# the -1 and -2 profiles' court templates whose sign is the picture's frame 0.18-0.34, then 0.76
# and up; bidly's singles 0.82 and up. Left out below PEER_AGREE: -3 names 148 of those photos
# right and none wrong (25 wrong before), -2 156 and none (155 and 1), -1 156 and none (as before)
PEER_AGREE = 0.6
SIGN_SOLID = 0.6       # least solidity (area over that of the ellipse of its spread) of a sign blob:
#   enrolled signs 0.79-0.95 (bidly, deepPoker); keeps a third of a cork deal's blobs
# A rank glyph with a hole (A, 4, 6, 8, 9, Q, a 10's 0) is read only from a blob with a hole
# (holes): a hole survives rotation, scale, slant and another print. bench/corner_checks.py holes
# (reads before "each card once", the rule off): right reads at every bidly label and deepPoker
# photo of their card have a hole in every A, 6, 8, 9 and Q (253) and in 52 of 53 4s, whose
# largest hole is 0.08 of the glyph's area or more (one 4 nearly closed: 0.007); the pips of
# deepPoker 9s and 10s that glyphs sampled at their own resolution (CELL_BLUR) read as aces (55
# reads) have none, or specks between a club's lobes of 0.002 of the pip at most. (A cap on the
# rank blob's solidity instead: the pips 0.80-0.90, enrolled rank glyphs up to 0.76 in the tests'
# drawn faces and a blurred drawn 0 at 0.75: no gap.)
HOLE_MIN = 2           # px: least hole (one pixel is a speck at any size)
HOLE_SHARE = 0.015     # least hole, share of the glyph's area (about the geometric middle of 0.002 and 0.08)
# A court card's index sign touches the thin frame line of its picture, and the two are one ink
# component, neither sign nor rank: an opening (PART_OPEN) parts the solid sign from the line, and
# each solid part of a component that is no sign itself, where the opening took more than a tenth
# of it (PART_SHARE), is also read as a sign (solid_parts). Reader alone (bench/corner_checks.py
# reader, tune / report): bidly 154 / 152 -> 156 / 155 (the queens and jacks of hearts), deepPoker
# table photos 74 / 77 -> 77 / 78, peeks unchanged, 0 wrong. An opening of 5 px: 156 / 157, the
# same on the tune half (3 kept: the least that parts a line of 2 px); PART_SHARE 0.8 or 1.0 named
# the same cards.
PART_OPEN = 3          # px: side of the opening that parts a solid sign from a thin line it touches
PART_SHARE = 0.9       # share of its component above which an opening's part is not read apart
MAX_PAIRS = 6000       # candidate pairs compared per image (the closest first)
FILL_MIN = 0.12        # least share of its box a glyph blob fills (a speckle of cork texture fills less). Its
#   box is taken upright and along its own axes (that of the uniform rectangle with its second moments):
#   upright alone, a thin stroke at 45° fills 0.1 of it and was dropped, which left the slanted 10s of
#   bidly deals 5 and 6 their "0" alone
MIN_AREA = 12          # px: smallest ink blob taken for a glyph (the "1" of a 10 at 1200 px is ~40)
# The largest glyph blob read, as a share of the image, is the enrolled faces' largest index
# glyph's share of its face, times PAIR_SLACK: a card can fill the picture (a tight crop),
# never more. deepPoker faces: 0.0052 median, 0.0073 at most; bidly: 0.0034, 0.0041 (bench/
# corner_checks.py glyphs). A fixed 0.003 left the index of most deepPoker tight crops unread.
RED_CUT = 0.12         # redness of a sign above which it is red (enrolled signs: black <= 0.002, red >= 0.34)
SIGN_MIN = 0.8         # correlation the sign patch must reach with its best suit
#   (tune half; reads of its card within 20 px of a bidly label / reads of another card in a
#   deepPoker single-card photo, before the later guards: 0.7 -> 139 / 20, 0.75 -> 134 / 4,
#   0.8 -> 128 / 0: print on a poster and floor patterns read as an ace or a 10 score 0.70-0.79)
RANK_MIN = 0.8         # correlation the rank patch must reach with its best rank. Measured again
#   with every guard below (bench/corner_checks.py floors: tune half, reads named after "each
#   card once", right / wrong, at DUEL_MIN): 0.70 -> 220 / 1, 0.72 -> 218 / 1, 0.74 -> 218 / 0,
#   0.75 -> 217 / 0, 0.8 -> 210 / 0; the wrong reads (a 10 as a 4, a king as an ace) score 0.72.
#   Kept at 0.8 all the same: at 0.75 the report half named a peek's 8 of clubs, foreshortened,
#   the 6 (rank 0.751, margin 0.023): a glyph seen at a slant scores where another print of a
#   rank does (bidly deal4's barred 7s score 0.5-0.8 against the enrolled ones)
MARGIN_MIN = 0.01      # correlation margin of the rank, and of the suit, over the next best
DUEL_MIN = 0.1         # duel margin (vision.duel) of the rank, and of the suit, over the next best
#   (same measurement, at RANK_MIN: 0.05 -> 211 / 0, 0.08 -> 212 / 0, 0.1 -> 210 / 0, 0.12 ->
#   205 / 0, 0.15 -> 203 / 0; before the later guards, at a 0.7 floor, 0.1 put 1 name on
#   another card's bidly label, hence no lower)
GROUND_MAX = 0.25      # median ink around the glyphs above which they are not print on paper: the
#   texture of a black mat beside a card made a K of spades (bidly deal6, report half; 0.35
#   let it through, 0.25 stops it and costs 8 right reads on the tune half)
# A club's sign is a trefoil: its outline has two deep notches beside its top lobe, which no
# spade, heart or diamond of any print has. The deepest convexity defect of the sign's outline in
# its upper half and off its centre line, as a share of its width (club_notch, on a NOTCH_CELLS
# grid), measured by bench/corner_checks.py notches on every sign read at a labelled index: spades
# 0.00-0.074 (bidly deals 76, deepPoker photos 50, both decks' enrolled faces 51), clubs 0.10-0.19
# at the median and above 0.1 in 50-100 % per set (the rest blurred shut: no notch says nothing).
# The upper half only: a spade's notches lie where its stem meets its head, under the middle (the
# drawn spades of tests/vision/test_corner_index.py, an arrowhead, reached 0.25 at 60 % of its
# height and were read as clubs)
CLUB_NOTCH = 0.1       # notch above which a black sign is a club, never a spade, where the templates hesitate
# Where the spades' templates lead the clubs' by SPADE_CLEAR or more, a notch makes the read unsure
# instead of a club: held out, a small blurred spade (deepPoker table-spades_4-4.jpg read with the
# bidly profile) measured a notch of 0.12 and was named the clubs 4 though its templates read the
# spade 0.06 ahead. Signs with a notch above CLUB_NOTCH, their templates' spade lead (bench/
# corner_checks.py notches, session 33): true clubs (bidly deals, deepPoker photos with both
# profiles: 213) at most 0.029 (8 with the spades ahead at all: another print's clubs, bidly deal
# 4, sit a few hundredths nearer the spades), true spades 0.060 and 0.073 (2); SPADE_CLEAR lies between
SPADE_CLEAR = 0.045    # spades' template lead over clubs' above which a notched sign is left unsure
NOTCH_CELLS = 48       # cells per side of the sign's outline grid (over the same +-SPAN as the patch)
CONF_SLOPE = 20.0      # logistic slope of a read's confidence against its duel margin (0.7 at DUEL_MIN)
CLEARLY = 0.1          # score lead by which a read keeps a blob another read also claims
SAME_CARD = 0.35       # quads whose centres lie closer (share of the short side) are one card
# A card's two indices are turned 180° from each other; a print laid out unlike the enrolled faces
# (bidly deal 4: sign and rank closer together) makes each imply a quad shifted along the card,
# away from the other's. Two reads of one card whose sign-to-rank directions are opposite within
# OPPOSITE_TOL are its two indices when their quads' centres lie within TWIN_NEAR short sides.
# bench/corner_checks.py twins (reads of one card at two places, before "each card once"): the two
# labelled indices of one card (deal 4's diamonds 2 and 5, report and tune half) 179.7-179.9° and
# 0.35-0.39 apart; reads of one card at two cards (a cross pairing, a sign occluded) 57° at 5.3, and
# 178.4° at 2.28 (a pair across two cards of deal 5 read turned over)
OPPOSITE_TOL = 20.0    # degrees
TWIN_NEAR = 0.7        # share of the short side: twice SAME_CARD
BLUR = 0.8             # px sigma of the ink map before sampling (forgives a pixel of jitter)
D = CELLS * CELLS      # length of one glyph's patch
# A rank patch shows its own blob's ink only, each cell weighed by the share of the square around
# it (OWN_SHIFTS: half a cell's step, or half a pixel where the cells are finer) that is the blob's
# own: the nearest label pixel alone made a stroke of 1-2 px, as the photos' index digits are, show
# as a dotted line (a cell falls on it or beside it), so right ranks scored 0.72-0.79 against the
# templates' full strokes. Reader alone (bench/corner_checks.py reader; tune / report half): bidly
# deals 142 / 146 -> 152 / 151 named, deepPoker peeks 22 / 18 -> 22 / 20, table photos 73 / 77 ->
# 74 / 77, 0 wrong (with squares of a pixel). A sign keeps the nearest pixel: a filled shape's edge
# does not alias, and soft edges made a blurred trefoil of bidly deal 7 read as a spade (sign margin
# 0.013, a wrong read before "each card once"). (Labels grown by a pixel instead, in faces and
# photos: 152 / 150 but wrong reads on 2 peeks and 10 table photos, pips read as an A or a 4 whose
# holes the growth filled; in photos only: 148 / 142.)
# Glyphs are compared at one resolution relative to their size, whatever the picture's: each is
# sampled from the level of the ink's Gaussian pyramid (Ink) whose blur, BLUR * 2**k (k < LEVELS), is
# nearest CELL_BLUR of its cells' step, and its own pixels over squares of a cell. A close-up's index
# (a deepPoker peek: glyphs 45 px tall, cells 4 px apart) was sampled at single pixels, its strokes
# thin lines against the bold ones of the templates cut from 160 px faces (the flat-topped 3s and 5s
# scored 0.61-0.73). Reader alone (bench/corner_checks.py reader), tune / report: peeks 22 / 20 ->
# 24 / 24, bidly 156 / 155 -> 156 / 157, table photos 77 / 78 either way, 0 wrong (with holes);
# CELL_BLUR 0.4 and 0.6 the same, 0.8: bidly 155 / 156. Pyramid levels alone: peeks 22 / 21; squares
# of a cell alone: 24 / 23.
CELL_BLUR = 0.5
LEVELS = 4
OWN_SHIFTS = ((-0.5, -0.5), (0.5, -0.5), (-0.5, 0.5), (0.5, 0.5))
SIGN_TURN = 8.0        # degrees: each sign is also read with "up" turned by this either way, and each
#   suit template scores at its best turn. A 10's digits tilt the sign-to-rank direction by 5-7° (the
#   0) and 12-16° (the 1) in the enrolled faces of both real decks, and only some 10s were enrolled
#   with their digits apart, so a sign paired with one digit matched another suit's tilted templates
#   (slanted 10s of spades read as the 10 of clubs in 3 deepPoker photos, one named: the peek).
#   Tune half, reads named before "each card once" (bench/corner_checks.py turns): right / wrong
#   270 / 7 at 0°, 276 / 3 at 8°, 274 / 3 at 14°, 273 / 3 at 20°; again at DUEL_MIN 0.1 and
#   glyphs up to CornerReader.max_area: 285 / 9, 290 / 4, 289 / 4, 289 / 4
RANK_TURN = 8.0        # degrees: each rank glyph is also read with "up" turned by this either way, and
#   each rank template scores at its best turn (TURN_GAIN). Prints set a rank beside its sign
#   differently: bidly deal 4 sets its 7s so that the sign-to-rank direction turns about 8° from the
#   enrolled singles' 7s (median rank correlation 0.62 there, 0.91-0.94 in the other deals:
#   bench/corner_checks.py ranks); turned by 4 / 8 / 12° they match at 0.70-0.78 / 0.79-0.84 /
#   0.69-0.74 (/tmp probe), and deepPoker's print sets its 7s aside the other way. Reader alone
#   (bench/corner_checks.py reader, bidly deals tune / report, before TURN_GAIN): 0° 157 / 157,
#   6° and 8° 159 / 158, 10° 156 / 158 (and a wrong deepPoker table name); deepPoker peeks and
#   table photos the same at 0-8°
TURN_GAIN = 0.1        # least rise of a rank template's score that a turned reading must give over the
#   unturned one to count: the best of three readings is higher by chance. bench/corner_checks.py
#   gains (bidly deals, both halves): right reads named unturned (bidly's profile, 314; deepPoker's,
#   248) gain at most 0.010 and 0.053 by turning; the 7s that only a turn names (23, with both
#   profiles) 0.126-0.225; the other names it gives 0.016-0.058, and one wrong name 0.084: deal 1's
#   flat-topped 3 of diamonds read with deepPoker's profile (whose round-topped 3 it matches less
#   than the 5 at every turn) as the diamonds 5, 0.73 -> 0.81. The floor rests on that one case


@dataclass(frozen=True)
class Template:
    card: str
    patch: np.ndarray      # (2*D,) rank patch then sign patch, each zero-mean unit-norm
    red: bool              # red ink
    corners: np.ndarray    # (4, 2) the face's corners in the frame (sign origin, sign-to-rank = (0, -1))
    shape: tuple[float, float, float]  # sign spread / d, rank spread / d, rank area / sign area
    share: float = 0.0     # its larger glyph's area as a share of the face's
    digit: bool = False    # its rank glyph is one digit of a two-digit rank (a 10 whose digits lie apart)
    hole: bool = False     # its rank glyph encloses a hole (holes)
    turned: bool = False   # read in the bottom-right corner, the face turned upright
    sign_wide: np.ndarray | None = None   # (D,) its sign sampled at its own width too (CornerReader._wide_suits)


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
    blobs: tuple = ()      # (sign, rank): the ink blobs it was read from
    ground: float = 0.0    # median ink around its glyphs (0 on clean paper)
    # the card rank and sign show when each wins clearly, enrolled or not (None: unclear):
    # an unenrolled card's index still contradicts a whole-face name given to its look-alike
    claim: str | None = None
    patch: np.ndarray | None = None    # (2D,) the rank then sign patch it was judged on
    scores: tuple = ()                 # (rank, sign) scores of the patch against every template
    notch: float = 0.0                 # the sign's club notch (club_notch), 0 unless its suit read black
    up: np.ndarray | None = None       # (2,) image vector from its sign to its rank

    @property
    def confidence(self) -> float:
        """0.7 at the naming threshold (as vision.recognise's duels), rising with the duel."""
        return 1.0 / (1.0 + math.exp(-(CONF_SLOPE * (self.duel - DUEL_MIN) + math.log(0.7 / 0.3))))

    def moved(self, offset: np.ndarray) -> "Read":
        """The same read in a larger image whose (x, y) origin lies at ``-offset``."""
        return replace(self, index=self.index + offset, quad=(self.quad + offset).astype(np.float32))


@dataclass(frozen=True)
class Blobs:
    """Ink components of plausible glyph size."""

    centre: np.ndarray     # (N, 2)
    cov: np.ndarray        # (N, 2, 2) covariance of their pixel positions
    area: np.ndarray       # (N,)
    labels: np.ndarray     # float32 label image (connected components of the ink)
    ids: np.ndarray        # (N,) each blob's label there
    whole: int = -1        # blobs from here on are solid parts of others (signs only: solid_parts); -1: none
    parts: np.ndarray | None = None    # float32 label image of those parts
    sizes: np.ndarray | None = None    # pixel count of every label of ``labels``

    def is_part(self, k: np.ndarray) -> np.ndarray:
        """Whether each blob ``k`` is a solid part (its label lies in ``parts``, not ``labels``)."""
        return (self.whole >= 0) & (np.asarray(k) >= self.whole)


def ink_map(bgr: np.ndarray, window: int, shadows: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """(ink, red): 0..1 maps of how much less green and blue than the local paper each
    pixel has (black and red ink alike), and how much more red than green or blue. Red and
    green-or-blue are each divided by the paper there, which also undoes the light's colour
    (a warm lamp is not red ink). The paper is the brightest value within ``window`` px; with
    ``shadows`` (photos) it is the morphological closing (that maximum, then the minimum of it
    over the window): it keeps every glyph narrower than the window but follows a shadow's edge
    and the table beside a card, where the brightest value reaches across onto darker paper and
    makes it read as ink (bidly deal 7, a hand's shadow over the fans: see CornerReader.read)."""
    k = cv2.getStructuringElement(cv2.MORPH_RECT, (window, window))

    def paper(x: np.ndarray) -> np.ndarray:
        bg = cv2.morphologyEx(x, cv2.MORPH_CLOSE, k) if shadows else cv2.dilate(x, k)
        return np.maximum(bg, 8).astype(np.float32)

    gb = np.maximum(bgr[..., 0], bgr[..., 1])
    r = bgr[..., 2]
    gb = gb.astype(np.float32) / paper(gb)
    ink = np.clip(1.0 - gb, 0.0, 1.0)       # black ink and red ink both lack green and blue
    red = np.clip(r.astype(np.float32) / paper(r) - gb, 0.0, 1.0)
    return ink, red


def blobs(ink: np.ndarray, min_area: int, max_area: int, cut: float = INK_CUT) -> Blobs:
    """Ink components (stronger than ``cut``) of plausible glyph size, with their pixel-position
    covariance. A blob the image border cuts is left out: its shape is not the glyph's (a
    poster's print cut by the top of a deepPoker photo read as a 10 of spades). A blob must fill
    FILL_MIN of its box, upright or along its own axes (see there)."""
    mask = (ink > cut).astype(np.uint8)
    n, lab, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    keep = _plausible(stats, ink.shape, min_area, max_area)
    ids = np.flatnonzero(keep)
    centre, cov, cnt = _moments(lab, ids, n)
    w, h = stats[ids, cv2.CC_STAT_WIDTH], stats[ids, cv2.CC_STAT_HEIGHT]
    # its own axes' box: the sides of the uniform rectangle of the same second moments
    own_box = 12.0 * np.sqrt(np.maximum(cov[:, 0, 0] * cov[:, 1, 1] - cov[:, 0, 1] * cov[:, 1, 0], 0.0))
    fill = (cnt >= FILL_MIN * w * h) | (cnt >= FILL_MIN * own_box)
    return Blobs(centre[fill], cov[fill], cnt[fill], lab.astype(np.float32), ids[fill],
                 sizes=stats[:, cv2.CC_STAT_AREA])


def _plausible(stats: np.ndarray, shape: tuple[int, ...], min_area: int, max_area: int) -> np.ndarray:
    """Components (connectedComponentsWithStats rows) of glyph size, not cut by the image border."""
    w, h, a = stats[:, cv2.CC_STAT_WIDTH], stats[:, cv2.CC_STAT_HEIGHT], stats[:, cv2.CC_STAT_AREA]
    x, y = stats[:, cv2.CC_STAT_LEFT], stats[:, cv2.CC_STAT_TOP]
    inside = (x > 0) & (y > 0) & (x + w < shape[1]) & (y + h < shape[0])   # not cut by the frame
    keep = (a >= min_area) & (a <= max_area) & (np.minimum(w, h) >= 2) & inside
    keep[0] = False
    return keep


def _moments(lab: np.ndarray, ids: np.ndarray, n: int, pixels: tuple[np.ndarray, ...] | None = None
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(centres (M, 2), pixel-position covariances (M, 2, 2), areas (M,)) of labels ``ids`` of ``lab``
    (labels below ``n``); ``pixels``: (ys, xs, labels) of its labelled pixels, where known."""
    if pixels is None:
        ys, xs = np.nonzero(lab)
        lb = lab[ys, xs]
    else:
        ys, xs, lb = pixels
    remap = np.full(n, -1)
    remap[ids] = np.arange(len(ids))
    k = remap[lb]
    sel = k >= 0
    ys, xs, k = ys[sel].astype(np.float64), xs[sel].astype(np.float64), k[sel]
    m = len(ids)
    cnt = np.maximum(np.bincount(k, minlength=m), 1)
    mx, my = np.bincount(k, xs, m) / cnt, np.bincount(k, ys, m) / cnt
    dx, dy = xs - mx[k], ys - my[k]
    cov = np.stack([np.bincount(k, dx * dx, m), np.bincount(k, dx * dy, m),
                    np.bincount(k, dx * dy, m), np.bincount(k, dy * dy, m)], axis=1) / cnt[:, None]
    cov += 1.0 / 12                           # a pixel's own extent
    return np.stack([mx, my], axis=1), cov.reshape(m, 2, 2), cnt.astype(np.float64)


def holes(b: Blobs, k: int) -> int:
    """How many holes blob ``k`` encloses: background pieces that do not reach the edge of the
    square around it, of HOLE_MIN pixels and HOLE_SHARE of its area or more."""
    lab = b.parts if b.is_part(k) else b.labels
    r = max(2.0, 3.0 * float(np.sqrt(np.linalg.eigvalsh(b.cov[k])[1])))
    x0, y0 = (max(0, math.floor(v - r)) for v in b.centre[k])
    x1, y1 = (min(n, math.ceil(v + r) + 1) for v, n in zip(b.centre[k], (lab.shape[1], lab.shape[0])))
    own = np.pad((lab[y0:y1, x0:x1] == b.ids[k]).astype(np.uint8), 1)
    _, _, stats, _ = cv2.connectedComponentsWithStats(1 - own, connectivity=4)
    x, y, w, h, a = (stats[1:, i] for i in range(5))
    big = a >= max(HOLE_MIN, HOLE_SHARE * b.area[k])
    return int(((x > 0) & (y > 0) & (x + w < own.shape[1]) & (y + h < own.shape[0]) & big).sum())


def solidity(b: Blobs) -> np.ndarray:
    """Each blob's area over that of the ellipse of its spread (1: a filled ellipse)."""
    return b.area / (4 * np.pi * np.sqrt(np.maximum(np.linalg.det(b.cov), 1e-6)))


def solid_parts(ink: np.ndarray, b: Blobs, min_area: int, max_area: int, cut: float = INK_CUT) -> Blobs:
    """``b`` and, after it (``Blobs.whole``), the solid parts of ink components that are no sign
    themselves: what an opening (PART_OPEN) keeps of them, each part a blob of its own that may
    be read as a sign. A court card's index sign touches the thin frame line of its picture, and
    the two made one component that is neither sign nor rank (bidly: every heart queen and jack)."""
    mask = (ink > cut).astype(np.uint8)
    k = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (PART_OPEN, PART_OPEN))
    n2, lab2, stats2, cent = cv2.connectedComponentsWithStats(cv2.morphologyEx(mask, cv2.MORPH_OPEN, k), connectivity=8)
    parts = np.flatnonzero(_plausible(stats2, ink.shape, min_area, max_area))
    at = np.round(cent[parts]).astype(np.int64)
    parts, at = parts[lab2[at[:, 1], at[:, 0]] == parts], at[lab2[at[:, 1], at[:, 0]] == parts]   # holds its centre
    whole = b.labels[at[:, 1], at[:, 0]].astype(np.int64)        # the component each part lies in
    sizes = b.sizes if b.sizes is not None else np.bincount(b.labels.astype(np.int64).ravel())
    sign = np.zeros(len(sizes), bool)
    sign[b.ids[solidity(b) >= SIGN_SOLID]] = True
    parts = parts[~sign[whole] & (stats2[parts, cv2.CC_STAT_AREA] < PART_SHARE * sizes[whole])]
    if len(parts) == 0:
        return b
    on = np.zeros(n2, bool)
    on[parts] = True
    ys, xs = np.nonzero(on[lab2])
    centre, cov, cnt = _moments(lab2, parts, n2, (ys, xs, lab2[ys, xs]))
    signs = solidity(Blobs(centre, cov, cnt, lab2, parts)) >= SIGN_SOLID     # parts are read as signs only
    return replace(b, centre=np.concatenate([b.centre, centre[signs]]), cov=np.concatenate([b.cov, cov[signs]]),
                   area=np.concatenate([b.area, cnt[signs]]), ids=np.concatenate([b.ids, parts[signs]]),
                   whole=len(b.area), parts=lab2.astype(np.float32))


def spread(cov: np.ndarray, unit: np.ndarray) -> np.ndarray:
    """Standard deviation of each blob's pixels along its unit vector."""
    return np.sqrt(np.einsum("ni,nij,nj->n", unit, cov, unit))


def _grid() -> tuple[np.ndarray, np.ndarray]:
    g = np.linspace(-SPAN, SPAN, CELLS)
    return np.meshgrid(g, g)


def sample(maps: list[np.ndarray], origin: np.ndarray, right: np.ndarray, down: np.ndarray,
           own: tuple[np.ndarray, np.ndarray] | None = None, shifts=OWN_SHIFTS) -> list[np.ndarray]:
    """Each float32 map sampled bilinearly on the CELLS x CELLS grid of each frame (origin,
    scaled axes): (P, D). With ``own`` (a label image, each frame's label) also the share of
    each cell's pixel square that belongs to the frame's own label (OWN_SHIFTS), appended."""
    gx, gy = _grid()
    out: list[list[np.ndarray]] = [[] for _ in range(len(maps) + (own is not None))]
    for s in range(0, len(origin), 1000):      # remap maps stay well under 32767 rows
        sl = slice(s, s + 1000)
        mx = origin[sl, 0, None, None] + gx * right[sl, 0, None, None] + gy * down[sl, 0, None, None]
        my = origin[sl, 1, None, None] + gx * right[sl, 1, None, None] + gy * down[sl, 1, None, None]
        mx, my = mx.reshape(-1, CELLS).astype(np.float32), my.reshape(-1, CELLS).astype(np.float32)
        for k, m in enumerate(maps):
            p = cv2.remap(m, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
            out[k].append(p.reshape(-1, D))
        if own is not None:
            labels, mine = own[0], own[1][sl, None].astype(np.float32)
            share = np.zeros((len(mine), D), np.float32)
            for sh in shifts:
                sh = np.asarray(sh, np.float32)
                if sh.ndim == 2:      # per frame
                    dx = np.repeat(sh[sl, 0], CELLS)[:, None]
                    dy = np.repeat(sh[sl, 1], CELLS)[:, None]
                else:
                    dx, dy = sh[0], sh[1]
                lab = cv2.remap(labels, mx + dx, my + dy, cv2.INTER_NEAREST,
                                borderMode=cv2.BORDER_CONSTANT, borderValue=0)
                share += np.abs(lab.reshape(-1, D) - mine) < 0.5
            out[-1].append(share / len(shifts))
    return [np.concatenate(o, axis=0) if o else np.zeros((0, D), np.float32) for o in out]


class Ink:
    """An ink map blurred by BLUR (level 0) and halved k times (level k: a Gaussian pyramid, each
    made on first use), to sample glyphs at their cells' resolution (CELL_BLUR)."""

    def __init__(self, ink: np.ndarray):
        self.raw = ink
        self.levels: dict[int, np.ndarray] = {}

    def level(self, k: int) -> np.ndarray:
        """Level ``k``, whose pixel (x, y) lies at (2**k x, 2**k y) of the ink map."""
        if k not in self.levels:
            self.levels[k] = cv2.GaussianBlur(self.raw, (0, 0), BLUR) if k == 0 else cv2.pyrDown(self.level(k - 1))
        return self.levels[k]


def glyphs(ink: Ink, red: np.ndarray, b: Blobs, c: np.ndarray, up: np.ndarray, own_width: bool = False
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Blobs ``c`` each sampled in its own frame ("up" along ``up``, its spread along it as
    the unit) -> (patches (P, D) normed, redness (P,), median ink around it (P,): low on
    paper). A patch shows its own blob's ink only: a card edge or a pip beside the index
    is not part of the glyph. ``own_width`` (rank glyphs): across "up" the unit is the glyph's
    own spread across it, unless it is narrower than RANK_NARROW (see there). Each glyph is
    sampled at a resolution matched to its cells (CELL_BLUR, OWN_SHIFTS)."""
    dn = (-up / np.maximum(np.linalg.norm(up, axis=1, keepdims=True), 1e-6)).astype(np.float32)
    rt = np.stack([dn[:, 1], -dn[:, 0]], axis=1)     # for down = (0, 1): right = (1, 0)
    s = spread(b.cov[c], dn)[:, None].astype(np.float32)
    across = s
    if own_width:
        wide = spread(b.cov[c], rt)[:, None].astype(np.float32)
        across = np.where(wide >= RANK_NARROW * s, wide, s)
    step = 2 * SPAN / (CELLS - 1)                     # cells' step in units of the frame
    right, down = rt * across, dn * s
    shifts: list = [(0.0, 0.0)]
    if own_width:       # squares of a cell (of a pixel at least) along the frame's axes
        shifts = [x * rt * np.maximum(1.0, step * across) + y * dn * np.maximum(1.0, step * s) for x, y in OWN_SHIFTS]
    cell = step * np.minimum(s, across)[:, 0]
    level = np.clip(np.round(np.log2(np.maximum(CELL_BLUR * cell, BLUR) / BLUR)), 0, LEVELS - 1).astype(int)
    part = b.is_part(c)
    p, q, own = (np.zeros((len(c), D), np.float32) for _ in range(3))
    origin = b.centre[c].astype(np.float32)
    for k in np.unique(level):
        m, f = level == k, np.float32(0.5 ** k)
        (p[m],) = sample([ink.level(int(k))], origin[m] * f, right[m] * f, down[m] * f)
    for labels, sel in ((b.labels, ~part), (b.parts, part)):   # a solid part's pixels are in b.parts
        if sel.any():
            q[sel], own[sel] = sample([red], origin[sel], right[sel], down[sel], own=(labels, b.ids[c[sel]]),
                                      shifts=[x[sel] if np.ndim(x) == 2 else x for x in shifts])
    ground = np.median(np.where(own > 0, 0.0, p), axis=1)
    p = p * own
    on = p > INK_CUT
    return _normed(p), (q * on).sum(axis=1) / np.maximum(on.sum(axis=1), 1), ground


def club_notch(ink: np.ndarray, b: Blobs, k: int, up: np.ndarray) -> float:
    """How deep the notches beside the top lobe of sign ``k`` are (see CLUB_NOTCH): the deepest
    convexity defect of its outline lying in its upper half and off its centre line, as a share
    of its width, with "up" along ``up``; 0 for a convex sign. The outline is its own blob's ink
    sampled in its frame on a fine grid, so the notches of a 15 px sign are a few cells deep."""
    dn = -up / max(float(np.linalg.norm(up)), 1e-6)
    rt = np.array([dn[1], -dn[0]])
    s = float(spread(b.cov[k][None], dn[None])[0])
    g = np.linspace(-SPAN, SPAN, NOTCH_CELLS)
    gx, gy = np.meshgrid(g, g)
    mx = (b.centre[k, 0] + s * (gx * rt[0] + gy * dn[0])).astype(np.float32)
    my = (b.centre[k, 1] + s * (gx * rt[1] + gy * dn[1])).astype(np.float32)
    p = cv2.remap(ink, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    lab = cv2.remap(b.parts if b.is_part(k) else b.labels, mx, my, cv2.INTER_NEAREST, borderMode=cv2.BORDER_CONSTANT,
                    borderValue=0)
    m = ((p > INK_CUT) & (np.abs(lab - b.ids[k]) < 0.5)).astype(np.uint8)
    cnts, _ = cv2.findContours(m, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    if not cnts:
        return 0.0
    cnt = max(cnts, key=cv2.contourArea)
    if len(cnt) < 4:
        return 0.0
    x, y, w, h = cv2.boundingRect(cnt)
    try:
        defects = cv2.convexityDefects(cnt, cv2.convexHull(cnt, returnPoints=False))
    except cv2.error:          # a self-touching outline: no notch measured
        return 0.0
    if defects is None:
        return 0.0
    far = cnt[defects.reshape(-1, 4)[:, 2], 0]
    depth = defects.reshape(-1, 4)[:, 3] / 256.0
    beside = (far[:, 1] < y + 0.5 * h) & (np.abs(far[:, 0] - (x + w / 2)) > 0.15 * w)
    return float(depth[beside].max() / w) if beside.any() else 0.0


def describe(ink: Ink, red: np.ndarray, b: Blobs, i: np.ndarray, j: np.ndarray
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Pairs (sign i, rank j) -> (patches (P, 2D): rank then sign, redness of the sign (P,),
    sign-to-rank vectors (P, 2))."""
    up = b.centre[j] - b.centre[i]
    pr, _, _ = glyphs(ink, red, b, j, up, own_width=True)
    ps, red_s, _ = glyphs(ink, red, b, i, up)
    return np.concatenate([pr, ps], axis=1), red_s, up


def _normed(p: np.ndarray) -> np.ndarray:
    p = p - p.mean(axis=-1, keepdims=True)
    return p / (np.linalg.norm(p, axis=-1, keepdims=True) + 1e-6)


def _face_index(face: np.ndarray, ink: np.ndarray, cut: float = INK_CUT) -> tuple[Blobs, list[tuple[int, int]]]:
    """The index in a face's top-left corner: its blobs and [(sign, rank)] pairs (one per
    rank component, e.g. two for a 10)."""
    h, w = face.shape[:2]
    b = blobs(ink, 4, int(0.05 * w * h), cut)
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
                for cut in FACE_CUTS:       # a sign touching the picture's frame: a stricter cut parts them
                    b, pairs = _face_index(face, ink, cut)
                    if pairs:
                        break
                if not pairs:
                    continue
                i = np.array([p[0] for p in pairs])
                j = np.array([p[1] for p in pairs])
                inkb = Ink(ink)     # its blurred levels made once, for both samplings of the signs
                patch, reds, up = describe(inkb, red, b, i, j)
                wide, _, _ = glyphs(inkb, red, b, i, up, own_width=True)
                for k in range(len(pairs)):
                    d = float(np.linalg.norm(up[k]))
                    dn = -up[k] / d
                    rt = np.array([dn[1], -dn[0]])
                    rel = box - b.centre[i[k]]
                    corners = np.stack([rel @ rt, rel @ dn], axis=1) / d
                    shape = (float(spread(b.cov[i[k]][None], dn[None])[0] / d),
                             float(spread(b.cov[j[k]][None], dn[None])[0] / d),
                             float(b.area[j[k]] / b.area[i[k]]))
                    if min(shape) <= 0:
                        continue    # a glyph with no extent along "up" (a line across it) is no glyph
                    share = float(max(b.area[i[k]], b.area[j[k]]) / (w * h))
                    out.append(Template(card, patch[k], bool(reds[k] > RED_CUT), corners, shape, share,
                                        len(pairs) > 1, holes(b, int(j[k])) > 0, turned, wide[k]))
    return out


def peer_agreement(ts: list[Template]) -> list[tuple[float | None, float | None]]:
    """For each template, the best correlation of its rank patch with another card's of the
    same rank and of its sign patch with another card's of the same suit (None: no such card)."""
    if not ts:
        return []
    bank = np.stack([t.patch for t in ts]).astype(np.float32)
    parts = [t.card.partition("/")[::2] for t in ts]
    out = []
    for k, (suit, rank) in enumerate(parts):
        other = np.array([ts[m].card != ts[k].card for m in range(len(ts))])
        rank_peers = other & np.array([p[1] == rank for p in parts])
        suit_peers = other & np.array([p[0] == suit for p in parts])
        out.append((float((bank[rank_peers, :D] @ bank[k, :D]).max()) if rank_peers.any() else None,
                    float((bank[suit_peers, D:] @ bank[k, D:]).max()) if suit_peers.any() else None))
    return out


def agreeing(ts: list[Template]) -> list[Template]:
    """The templates that look like their peers (PEER_AGREE), the others left out."""
    return [t for t, (r, s) in zip(ts, peer_agreement(ts))
            if (r is None or r >= PEER_AGREE) and (s is None or s >= PEER_AGREE)]


@dataclass(frozen=True)
class Usable:
    """What a profile's faces give the reader: the templates it reads with, the cards whose
    template was left out as unlike its peers (PEER_AGREE), and why nothing is read (or None)."""

    templates: list[Template]
    unlike: list[str]
    off: str | None


def usable_templates(faces: dict[str, list[np.ndarray]], deck: tuple[str, ...] | None = None) -> Usable:
    """The templates a reader of these faces reads with (see :class:`CornerReader`), and what
    enrolment tells the club about them: which faces to retake, and why no index is read."""
    cards = {c: v for c, v in faces.items() if "/" in c}
    ts = templates(cards)
    kept = agreeing(ts)
    kept_ids = {id(t) for t in kept}
    unlike = sorted({t.card for t in ts if id(t) not in kept_ids})
    twice = {c for c in cards if {t.turned for t in ts if t.card == c} == {False, True}}
    if len(twice) < MIN_SHARE * len(cards):
        # faces without corner indices (drawn stand-ins, Bresciane): nothing to read
        return Usable([], unlike, f"{len(twice)} of {len(cards)} faces show an index in both corners, fewer "
                                  f"than {MIN_SHARE:.0%} (a deck printed without indices, or photos whose "
                                  f"corners are cut off or washed out)")
    if deck is not None:
        shown = {part for t in kept for part in t.card.split("/")[:2]}
        lacking = sorted({part for c in deck if "/" in c for part in c.split("/")[:2]} - shown)
        if lacking:
            # a rank or suit of the deck without a template: any read could be a guess
            return Usable([], unlike, f"no readable index shows {', '.join(lacking)} (a rank or suit without "
                                      f"one would be read as the one it looks most like)")
    return Usable(kept, unlike, None)


class CornerReader:
    """Reads the corner indices of the cards of one profile; build once, call per image.

    Rank and suit are read apart (the rank glyph of the 3 of clubs is the 3 of spades'):
    the rank patch against every template's rank patch, the sign patch against every
    sign patch, each side must win clearly, and the card they make must be enrolled."""

    def __init__(self, faces: dict[str, list[np.ndarray]], deck: tuple[str, ...] | None = None):
        """``deck``: the card ids of the profile's deck; its ranks and suits must all have a
        template, or nothing is read (rank and suit are named apart, so a rank never enrolled
        would be named as the enrolled rank it looks most like: a Triestine 4 read as the 5 at
        0.82 in a profile of four cards, bench/vision_realdata.py --sets italian)."""
        ts = usable_templates(faces, deck).templates
        self.templates = ts
        self.cards = np.array([t.card for t in ts])
        self.bank = np.stack([t.patch for t in ts]).astype(np.float32) if ts else np.zeros((0, 2 * D), np.float32)
        self.red = np.array([t.red for t in ts], bool)
        self.wide = np.stack([t.sign_wide for t in ts]).astype(np.float32) if ts else np.zeros((0, D), np.float32)
        self.digit = np.array([t.digit for t in ts], bool)
        self.hole = np.array([t.hole for t in ts], bool)
        shape = np.array([t.shape for t in ts]) if ts else np.ones((1, 3))
        self.max_area = PAIR_SLACK * max((t.share for t in ts), default=0.0)   # share of an image
        self.lo, self.hi = shape.min(axis=0) / PAIR_SLACK, shape.max(axis=0) * PAIR_SLACK
        # per side (rank, suit): the distinct values and which templates show each
        self.sides = []
        for part in (1, 0):
            vals = sorted({c.split("/")[part] for c in self.cards})
            self.sides.append((vals, np.array([[c.split("/")[part] == v for c in self.cards] for v in vals])))
        self.known = set(self.cards.tolist())
        suits, member = self.sides[1]
        self.spades = member[suits.index("spades")] if "spades" in suits and "clubs" in suits else None
        self.order = []              # per side: templates grouped by value, and each group's start
        for vals, member in self.sides:
            perm = np.concatenate([np.flatnonzero(m) for m in member]) if len(member) else np.zeros(0, int)
            self.order.append((perm, np.cumsum([0] + [int(m.sum()) for m in member[:-1]])))

    def read(self, image_bgr: np.ndarray, candidates=None, claims: bool = False) -> list[Read]:
        """Every index read with a name, each card id at most once (doubtful ones unnamed);
        with ``claims`` also the unnamed reads: those that clearly show a card not enrolled
        (or not among ``candidates``, ``Read.claim``) and those too unclear to name, which can
        only contradict a name (``against``), never give one."""
        if not self.templates or len(self.sides[0][0]) < 2 or len(self.sides[1][0]) < 2:
            return []
        h, w = image_bgr.shape[:2]
        ink, red, b = self.ink_blobs(image_bgr)
        b = solid_parts(ink, b, MIN_AREA, int(self.max_area * h * w))
        i, j = self._pairs(b)
        if len(i) == 0:
            return []
        inkb = Ink(ink)
        up = b.centre[j] - b.centre[i]
        # the sign first (one patch per pair); the rank only where a sign was recognised
        ps, red_s, ground = glyphs(inkb, red, b, i, up)
        ss = self._scores(ps, red_s, 1)                           # (pairs, templates)
        per_s = self._per(ss, 1)
        k = np.flatnonzero((per_s.max(axis=1) >= SIGN_MIN) & (ground <= GROUND_MAX))
        if len(k) == 0:
            return []
        i, j, up, ground = i[k], j[k], up[k], ground[k]
        ps, ss, turn = self._turned(inkb, red, b, i, up, ps[k], ss[k], 1, SIGN_TURN)
        per_s = self._per(ss, 1)
        pr, _, ground_r = glyphs(inkb, red, b, j, up, own_width=True)
        pr, sr, turn_r = self._turned(inkb, red, b, j, up, pr, self._scores(pr, None, 0), 0, RANK_TURN, TURN_GAIN)
        per_r = self._per(sr, 0)
        ground = np.maximum(ground, ground_r)
        ok = (per_r.max(axis=1) >= RANK_MIN) & (ground <= GROUND_MAX)
        ok &= self._both_digits(i, j, sr, per_r)
        lead = per_r.argmax(axis=1)
        for k in np.flatnonzero(ok):      # a rank with a hole is not read from a blob without one (HOLE_MIN)
            if self.hole[self._best(sr[k], 0, int(lead[k]))] and holes(b, int(j[k])) == 0:
                ok[k] = False
        wide_suit = np.full(len(i), -1)
        if ok.any():
            wide_suit[ok] = self._wide_suits(inkb, red, b, i[ok], up[ok])
        reads = []
        if self.spades is not None:
            spades, clubs = self.sides[1][0].index("spades"), self.sides[1][0].index("clubs")
        for k in np.flatnonzero(ok):
            notch, unsure = 0.0, False
            ss_k, per_s_k = ss[k], per_s[k]
            lead = int(np.argmax(per_s_k))
            if self.spades is not None and self.sides[1][0][lead] in ("clubs", "spades"):
                # in the frame the leading suit matched best (SIGN_TURN): a 10's digit tilts "up"
                deg = (0.0, -SIGN_TURN, SIGN_TURN)[turn[k, self._best(ss_k, 1, lead)]]
                notch = club_notch(ink, b, int(i[k]), up[k] @ _turn(deg))
                if notch >= CLUB_NOTCH:
                    if ss_k[self._best(ss_k, 1, spades)] - ss_k[self._best(ss_k, 1, clubs)] >= SPADE_CLEAR:
                        unsure = True    # the templates clearly read a spade, the outline a trefoil: no guess
                    else:                # a trefoil: never a spade, where the templates hesitate
                        ss_k = np.where(self.spades, -1.0, ss_k)
                        per_s_k = self._per(ss_k[None], 1)[0]
            orr, ors = np.argsort(-per_r[k])[:2], np.argsort(-per_s_k)[:2]
            sign_patch = ps[turn[k, self._best(ss_k, 1, ors[0])], k]     # at the leading suit's best turn
            rank_patch = pr[turn_r[k, self._best(sr[k], 0, orr[0])], k]    # at the leading rank's best turn
            r = self._judge(np.concatenate([rank_patch, sign_patch]), sr[k], ss_k, orr, ors, per_r[k], per_s_k,
                            b.centre[i[k]], up[k], candidates, (int(i[k]), int(j[k])))
            if unsure or wide_suit[k] != ors[0]:
                r = replace(r, card=None, claim=None)
            reads.append(replace(r, ground=float(ground[k]), notch=notch))
        named = _once(reads)
        if not claims:
            return named
        return named + [r for r in reads if r.card is None]

    def ink_blobs(self, image_bgr: np.ndarray) -> tuple[np.ndarray, np.ndarray, Blobs]:
        """(ink, red, blobs) of a picture as :meth:`read` finds them, before the solid parts
        (bench/corner_checks.py measures on them too)."""
        h, w = image_bgr.shape[:2]
        # A photo's paper is the closing (ink_map's shadows), which keeps only ink narrower than its
        # window: the window is the side of the largest glyph read (max_area of the picture), so it
        # follows a shadow's edge as closely as the glyphs allow. Reader alone (bench/vision_realdata.py,
        # tune / report half): bidly deals 140 / 138 named with the brightest value within a 25th
        # of the short side, 142 / 146 (deal 7, a hand's shadow: 27 -> 42); peeks 20 / 19 -> 20 / 18;
        # deepPoker rows unchanged; 0 wrong. (A 16th of the side as well changed no read; a 25th
        # alone closed away the glyphs of close-ups, the peeks' signs being a 20th: 14 tune.)
        window = max(FACE_WINDOW, math.ceil(math.sqrt(self.max_area * h * w)))
        ink, red = ink_map(image_bgr, window, shadows=True)
        return ink, red, blobs(ink, MIN_AREA, int(self.max_area * h * w))

    def _scores(self, p: np.ndarray, reds: np.ndarray | None, side: int) -> np.ndarray:
        """Each glyph patch's correlation with every template of one side (0 rank, 1 sign); a
        sign scores -1 against the templates of the other colour (``reds``: its red share)."""
        if side == 0:
            return p @ self.bank[:, :D].T
        return np.where((reds[:, None] > RED_CUT) != self.red[None, :], -1.0, p @ self.bank[:, D:].T)

    def _both_digits(self, i: np.ndarray, j: np.ndarray, sr: np.ndarray, per_r: np.ndarray) -> np.ndarray:
        """False for a pair whose rank matched best one digit of a two-digit rank (a 10 whose digits
        lie apart) unless the rank glyph beside it, paired with the same sign, reads that rank too: a
        lone stroke is the 10's "1" as much as it is a 7's stem or a frame line (bidly deal 3: a 7 whose
        bar had parted from its stem read as the 10 of diamonds, rank 0.89), and a lone ring its "0".
        A 10 whose 0 is hidden is then not named. Reader alone (bench/corner_checks.py reader, tune /
        report): bidly 152 / 151 -> 153 / 151 (that 7 no longer hid the real 10 of diamonds by "each
        card once"), peeks and table photos unchanged, 0 wrong."""
        lead = per_r.argmax(axis=1)
        digit = self.digit[np.argmax(np.where(self.sides[0][1][lead], sr, -9.0), axis=1)]
        keep = ~digit
        for k in np.flatnonzero(digit):
            keep[k] = bool(np.any((i == i[k]) & (j != j[k]) & (lead == lead[k])))
        return keep

    def _wide_suits(self, ink: Ink, red: np.ndarray, b: Blobs, i: np.ndarray, up: np.ndarray) -> np.ndarray:
        """The suit (an index into the suits) that each sign ``i`` leads with when sampled at its
        own width as well as its height, against the templates' signs sampled so.

        A sign is read in a frame scaled by its height alone (its proportions are part of its
        shape), but a card seen obliquely squashes or shears its index: a heart then reads as a
        diamond, a clubs ace's sign as a spade. Scaled by its width too, the squash is undone
        and the proportions are lost, so that reading alone names phantoms beside the card (index
        reads of background ink, mostly "10"s). As a check it only withdraws: :meth:`read` does not
        believe a read whose two readings lead with different suits. Named reads with the
        bench/vision_realdata.py profiles (/tmp probe): the bidly deals, the deepPoker table and
        peek photos with both profiles, and the table photos seen by a camera turned 30, 40 and
        50 degrees further (--sets oblique): the two readings agree on all 2,201 right reads and
        disagree on 43 of the 47 reads of a card not in the picture."""
        p, reds, _ = glyphs(ink, red, b, i, up, own_width=True)
        s = np.where((reds[:, None] > RED_CUT) != self.red[None, :], -1.0, p @ self.wide.T)
        return self._per(s, 1).argmax(axis=1)

    def _turned(self, ink: Ink, red: np.ndarray, b: Blobs, c: np.ndarray, up: np.ndarray, p0: np.ndarray,
                s0: np.ndarray, side: int, deg: float, gain: float = 0.0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Glyphs ``c`` of one side (0 rank, 1 sign) read again with "up" turned by -``deg`` and
        +``deg``, so that where a glyph's centre lies does not decide what it reads as (which
        digit of a 10 a sign is paired with: SIGN_TURN; where a print sets its rank beside its
        sign: RANK_TURN): (patches (3, P, D) at 0°, -, +; each template's best score over the
        turns (P, T), a turn counting only where it adds ``gain`` or more to the unturned score;
        the turn that gave it (P, T))."""
        pats, scores = [p0], [s0]
        for turned in (-deg, deg):
            p, reds, _ = glyphs(ink, red, b, c, up @ _turn(turned), own_width=side == 0)
            pats.append(p)
            scores.append(self._scores(p, reds, side))
        st = np.stack(scores)
        turn = np.where(st.max(axis=0) - st[0] >= gain, st.argmax(axis=0), 0)
        return np.stack(pats), np.take_along_axis(st, turn[None], axis=0)[0], turn

    def _best(self, s: np.ndarray, side: int, value: int) -> int:
        """The template showing ``value`` (an index into the side's values) that scores best in ``s``."""
        return int(np.argmax(np.where(self.sides[side][1][value], s, -9.0)))

    def against(self, read: Read, card: str) -> float:
        """How clearly ``read``'s index shows another rank or suit than ``card``'s: over the two
        sides, the largest duel margin (vision.duel) of the value read over the card's value there;
        0 where both agree, 2 for a sign of the other colour. Withdrawing a name needs no more
        than this: an index that prefers another rank is evidence against the name, even where
        it is not clear enough to give a name of its own (its card not enrolled)."""
        if read.patch is None or "/" not in card:
            return 0.0
        want = card.split("/")
        lead = read.top[0][0].split("/")
        worst = 0.0
        for side, part, half in ((0, 1, slice(0, D)), (1, 0, slice(D, 2 * D))):
            vals, _ = self.sides[side]
            if lead[part] == want[part] or want[part] not in vals:
                continue
            s = read.scores[side]
            a, b = self._best(s, side, vals.index(lead[part])), self._best(s, side, vals.index(want[part]))
            if s[b] <= -1:
                worst = max(worst, 2.0)       # the sign's colour is not the card's
                continue
            shp = (CELLS, CELLS)
            worst = max(worst, duel_mod.duel(read.patch[half].reshape(shp), self.bank[a, half].reshape(shp),
                                             self.bank[b, half].reshape(shp)))
        return worst

    def _per(self, s: np.ndarray, side: int) -> np.ndarray:
        """(pairs, templates) scores -> (pairs, values of the side): each value's best."""
        perm, starts = self.order[side]
        return np.maximum.reduceat(s[:, perm], starts, axis=1)

    def _pairs(self, b: Blobs) -> tuple[np.ndarray, np.ndarray]:
        """(sign, rank) blob pairs of the templates' proportions, closest first."""
        if len(b.area) < 2:
            return np.zeros(0, int), np.zeros(0, int)
        big = np.sqrt(np.linalg.eigvalsh(b.cov)[:, 1])          # each blob's largest spread
        solid = solidity(b)
        reach = np.minimum(big / self.lo[0], big.max() / self.lo[1])   # no spread along up exceeds it
        order = np.argsort(b.centre[:, 0])
        signs = order[solid[order] >= SIGN_SOLID]
        ranks = order[~b.is_part(order)]                          # a solid part is a sign, never a rank
        xs = b.centre[ranks, 0]
        lo_ = np.searchsorted(xs, b.centre[signs, 0] - reach[signs])
        hi_ = np.searchsorted(xs, b.centre[signs, 0] + reach[signs], side="right")
        counts = hi_ - lo_
        i = np.repeat(signs, counts)
        j = ranks[np.arange(counts.sum()) + np.repeat(lo_ - np.cumsum(counts) + counts, counts)]
        d = np.linalg.norm(b.centre[j] - b.centre[i], axis=1)
        ra = b.area[j] / b.area[i]
        ok = ((d > 0) & (d <= reach[i]) & (d <= big[j] / self.lo[1])
              & (ra >= self.lo[2]) & (ra <= self.hi[2]))
        i, j = i[ok], j[ok]
        dij = d[ok]
        u = (b.centre[j] - b.centre[i]) / dij[:, None]
        si = spread(b.cov[i], u) / dij                           # sign spread along up / d
        rj = spread(b.cov[j], u) / dij                           # rank spread along up / d
        ok = (si >= self.lo[0]) & (si <= self.hi[0]) & (rj >= self.lo[1]) & (rj <= self.hi[1])
        i, j, dij = i[ok], j[ok], dij[ok]
        if len(i) > MAX_PAIRS:
            keep = np.argsort(dij)[:MAX_PAIRS]
            i, j = i[keep], j[keep]
        return i, j

    def _judge(self, patch, sr, ss, orr, ors, pr, ps, sign, up, candidates, blobs) -> Read:
        """Name one pair only when its rank and its suit each clearly beat every other."""
        duels, margins, wins = [], [], []
        shp = (CELLS, CELLS)
        for side, s, order, per, half in ((0, sr, orr, pr, slice(0, D)), (1, ss, ors, ps, slice(D, 2 * D))):
            vals = self.sides[side][0]
            t1, t2 = self._best(s, side, order[0]), self._best(s, side, order[1])
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
        clear = min(margins) >= MARGIN_MIN and min(duels) >= DUEL_MIN
        sure = clear and card in self.known and (candidates is None or card in candidates)
        rival = (f"{self.sides[1][0][ors[1]]}/{wins[0]}" if margins[1] < margins[0]
                 else f"{wins[1]}/{self.sides[0][0][orr[1]]}")
        top = ((card, score), (rival, score - min(margins)))
        return Read(card if sure else None, sign + up / 2, quad, score, min(margins), float(min(duels)), top,
                    blobs, claim=card if clear else None, patch=patch, scores=(sr, ss), up=up)


def _turn(deg: float) -> np.ndarray:
    """The matrix that turns row vectors by ``deg`` degrees (``v @ _turn(deg)``)."""
    a = np.radians(deg)
    return np.array([[np.cos(a), np.sin(a)], [-np.sin(a), np.cos(a)]])


def _opposite(a: Read, b: Read) -> bool:
    """Whether two reads' sign-to-rank directions are opposite within OPPOSITE_TOL (a card's two indices)."""
    if a.up is None or b.up is None:
        return False
    cos = float(a.up @ b.up) / max(float(np.linalg.norm(a.up) * np.linalg.norm(b.up)), 1e-9)
    return cos <= -math.cos(math.radians(OPPOSITE_TOL))


def _shown(r: Read) -> str | None:
    """The card a read shows: its name, or the card it clearly shows but may not name (its claim)."""
    return r.card if r.card is not None else r.claim


def _once(reads: list[Read]) -> list[Read]:
    """Each ink blob in one index and each card once. A read whose sign and rank each belong
    to a stronger read is a cross pairing of two indices (one's sign, the other's rank) and
    drops; otherwise named reads sharing a blob but naming different cards: a read beaten by
    CLEARLY in score drops, otherwise all become unsure; reads of one card merge when they
    imply the same card (a 10's digits; both indices, turned 180° from each other: TWIN_NEAR), and
    become unsure when they lie where one card cannot be. A clear read of a card that is not
    enrolled (or not a candidate: ``Read.claim``) takes part as a rival, never named itself: the
    rank of a queen whose card is not enrolled, paired with the picture's large diamond, named
    the queen of hearts (deepPoker, the queen of diamonds left out of the profile) though its own
    sign reads the diamonds' queen far better (0.97 against 0.83)."""
    named = sorted([r for r in reads if _shown(r) is not None], key=lambda r: -r.score)
    alive: list[Read] = []
    doubt: set[int] = set()
    for r in named:
        if len(r.blobs) == 2 and all(any(b in o.blobs for o in alive) for b in r.blobs):
            continue
        rivals = [k for k, o in enumerate(alive) if _shown(o) != _shown(r) and set(o.blobs) & set(r.blobs)]
        if rivals and all(alive[k].score - r.score >= CLEARLY for k in rivals):
            continue
        if rivals:
            doubt |= set(rivals) | {len(alive)}
        alive.append(r)
    for a, r in enumerate(alive):
        short = quad_sides(r.quad)[0]
        for b in range(a):
            o = alive[b]
            if _shown(o) != _shown(r):
                continue
            apart = float(np.linalg.norm(o.quad.mean(axis=0) - r.quad.mean(axis=0)))
            if apart >= SAME_CARD * short and not (_opposite(o, r) and apart < TWIN_NEAR * short):
                doubt |= {a, b}
    kept: list[Read] = []
    for a, r in enumerate(alive):
        if r.card is None:
            continue                                          # a claim: read() returns it with the unnamed
        if a in doubt:
            kept.append(replace(r, card=None, claim=None))   # a doubtful read claims nothing
        elif not any(k.card == r.card for k in kept):
            kept.append(r)
    return kept
