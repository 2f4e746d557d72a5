"""Enrolment: a folder of reference photos of one physical deck -> a Profile.

File names say which card each photo shows (CONTRACT §4): the card id with ``/`` written
as ``_``, optionally ``.N`` for extra photos, and ``back`` for the card back. A photo may
be a tight crop or a card lying on a table; the card is found, straightened to portrait
and stored. Everything is checked before anything is written, and the profile is saved
atomically, so a bad folder leaves no half profile behind.
"""
from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import cv2
import numpy as np

from vision.corner_index import usable_templates
from vision.decks import cards_of, deck_cards
from vision.errors import EnrolError, ImageError
from vision.features import describe
from vision import outline
from vision.finder import REFINE_SEARCH, find_cards, refine_quad
from vision.geometry import face_corners, order_quad, quad_sides, warp_face
from vision.paper import face_looks
from vision.profile import FACE_W, SUSPECT_META, Profile, card_to_stem

IMAGE_EXT = {".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp"}
ASPECTS = (1.4, 1.55, 1.75, 1.9)   # card shapes tried when the deck's is not known yet
MIN_SHARE = 0.04        # a reference card covers at least this share of its photo (a card on a shelf
#   photographed from afar, Triestine Img221: 5.4 %; deepPoker and bidly photos: 9 % and more)
TIGHT = 0.6             # a found card covering more of the photo than this means a tight crop
# Look-alikes: a face seen as a table camera sees it (VIEW_*: a card ~60 px wide at 720p, the
# blur and noise measured on tests/vision_live's rendered frames) must beat every other card
# by twice the recogniser's abstention margin (vision.recognise.MIN_MARGIN = 0.05).
LOOKALIKE_MARGIN = 0.10
VIEW_W = 60
VIEW_BLUR = 0.8
VIEW_NOISE = 4.0
CORNER = (0.28, 0.2)    # share of a face's width and height printed with the corner index
CORNER_SHARE = 0.5      # share of two faces' difference in their corners that says "corner index"
# a photo is a tight crop only if card-shaped: French 1.4, Trevigiane 1.75, Bresciane scans
# in ../shared/realdata 2.06-2.1 (long/short side)
CROP_ASPECTS = (1.25, 2.25)
# A photo of a card's own shape (within this |log| of one of ASPECTS) whose edge is card paper
# all round (CROP_RIM_PAPER) is a straightened scan or crop: the whole photo is the card.
# Camera shapes lie farther from the nearest card shape (16:9 0.016, 3:2 0.033, 4:3 0.049),
# a deskewed crop within 0.005 (the bidly singles, 1.544 against 1.55), where the finder's
# rectangles are panels of the picture (court frames, pip areas: 4 of the 52 bidly singles
# were enrolled as such panels, bench/vision_realdata.py --sets bidly).
CROP_SHAPE_MATCH = 0.012
CROP_RIM_PAPER = 0.8    # share of such a photo's rim that must be card paper: rounded corners leave 0.87-0.90 on the bidly singles
REFINE_AREA = 0.25      # |log| of the area change beyond which a refined outline is not taken (it found another edge)
OUTLINE_SIDES = 3       # an outline is a whole card when its four corners were seen and this many of its sides
#   are edges in the photo, or all four sides are (a corner on a stripe as light as the card is not seen)
MAX_SHAPE_OFF = 0.12    # |log| of a face's aspect over the others' beyond which it is cut off
_NAME = re.compile(r"^(?P<stem>[a-z0-9_]+?)(?:\.(?P<n>\d+))?$")


@dataclass(frozen=True)
class BadPhoto:
    """One reference photo that cannot be enrolled: what is wrong and what to do about it."""

    name: str
    problem: str
    retake: str

    def __str__(self) -> str:
        return f"{self.name}: {self.problem}; {self.retake}"


class BadPhotos(EnrolError):
    """Some photos cannot be enrolled; every one of them is listed, not just the first."""

    def __init__(self, bad: list[BadPhoto], total: int):
        self.bad, self.total = bad, total
        super().__init__(str(bad[0]) if len(bad) == 1 else
                         f"{len(bad)} of {total} photos cannot be enrolled")


@dataclass
class EnrolReport:
    profile: Profile
    missing: list[str] = field(default_factory=list)
    lookalikes: list["Lookalike"] = field(default_factory=list)
    photos: int = 0
    suspect: list[str] = field(default_factory=list)   # faces to look at: cut off, or table
    skipped: list[BadPhoto] = field(default_factory=list)   # bad photos left out (skip_bad)
    index_unlike: list[str] = field(default_factory=list)   # corner indices left out: unlike their peers
    index_off: str | None = None        # why no corner index will be read (None: they will)

    @classmethod
    def of(cls, profile: Profile, missing: list[str], photos: int, suspect: list[str],
           skipped: list[BadPhoto] | None = None) -> "EnrolReport":
        """The report on a profile just built: its look-alikes and what its corner indices give."""
        index = usable_templates(profile.faces, deck_cards().get(profile.deck_id))
        return cls(profile, missing, lookalikes(profile), photos, suspect, list(skipped or []),
                   index.unlike, index.off)


def read_image(path: Path) -> np.ndarray:
    """The image at ``path`` (BGR); ImageError when missing or undecodable."""
    if not path.is_file():
        raise ImageError(f"{path}: no such image")
    data = np.fromfile(str(path), dtype=np.uint8)
    img = cv2.imdecode(data, cv2.IMREAD_COLOR) if data.size else None
    if img is None:
        raise ImageError(f"{path}: not a readable image")
    return img


def name_to_card(stem: str, deck_id: str) -> str:
    """``hearts_queen`` -> ``hearts/queen``; ``back`` stays ``back``."""
    if stem == "back":
        return "back"
    cards = cards_of(deck_id)
    for c in cards:
        if c.replace("/", "_") == stem:
            return c
    raise EnrolError(f"{stem!r} is not a card of deck {deck_id} "
                     f"(expected names like {cards[0].replace('/', '_')}.jpg)")


_RENAME = "rename it to the card id with '_' for '/', optionally .N (e.g. hearts_queen.jpg, trump_21.2.png)"


def scan(reference_dir: Path, deck_id: str | None
         ) -> tuple[str, dict[str, list[Path]], list[BadPhoto]]:
    """Photos per card id, the deck (given, or the one deck all good names fit), and the
    files whose names are not cards of it (all of them, so one run lists every bad name)."""
    if not reference_dir.is_dir():
        raise EnrolError(f"{reference_dir}: no such folder")
    files = sorted(p for p in reference_dir.iterdir() if p.is_file() and not p.name.startswith("."))
    images = [p for p in files if p.suffix.lower() in IMAGE_EXT]
    if not images:
        raise EnrolError(f"{reference_dir}: no images (.jpg/.png) in this folder")
    if deck_id is not None and deck_id not in deck_cards():
        raise EnrolError(f"unknown deck {deck_id!r}; known decks: {', '.join(sorted(deck_cards()))}")
    bad: list[BadPhoto] = []
    stems = []
    for p in images:
        m = _NAME.match(p.stem.lower())
        if m:
            stems.append((m.group("stem"), p))
        else:
            bad.append(BadPhoto(p.name, "not a card file name", _RENAME))
    if deck_id is None:
        every = set().union(*({c.replace("/", "_") for c in cards} for cards in deck_cards().values()))
        for s, p in [(s, p) for s, p in stems if s != "back" and s not in every]:
            bad.append(BadPhoto(p.name, f"{s!r} is not a card of any deck", _RENAME))
            stems.remove((s, p))
        names = {s for s, _ in stems if s != "back"}
        fits = [d for d, cards in deck_cards().items()
                if names <= {c.replace("/", "_") for c in cards}]
        if not fits:
            raise EnrolError(f"{reference_dir}: no single deck has all these cards; pass --deck")
        deck_id = min(fits, key=lambda d: len(cards_of(d)))
    photos: dict[str, list[Path]] = {}
    for stem, p in stems:
        try:
            photos.setdefault(name_to_card(stem, deck_id), []).append(p)
        except EnrolError as exc:
            bad.append(BadPhoto(p.name, str(exc), "rename or remove it"))
    return deck_id, photos, bad


NO_CARD = "no card found, and the photo is not a tight crop of one"
RETAKE_NO_CARD = ("photograph the card alone on a plain darker surface, filling a third to two "
                  "thirds of the picture, or crop the photo to the card's edges")
UNREADABLE_RETAKE = "save it again as .jpg or .png, or retake it"


def straighten(img: np.ndarray, name: str = "photo", back: bool = False) -> np.ndarray:
    """The card in a reference photo, straightened to a portrait face FACE_W wide.

    The largest clean rectangle of card-like pixels is the card; when there is none the
    photo must be a tight crop (card to the edges, card-shaped), or it is refused
    (:class:`BadPhotos`): a landscape of table enrolled as a face would spoil every later
    reading. A rectangle found inside a card-shaped photo whose own edge is not card paper
    while the photo's is (:func:`face_looks`) is a picture panel inside a scan or crop: the
    whole photo is the card, and so is a photo of exactly a card's shape with paper to its
    edges (CROP_SHAPE_MATCH). (Not for the ``back``, which may be printed to its edge.)
    """
    h, w = img.shape[:2]
    shape = max(h, w) / max(1, min(h, w))
    crop_shaped = CROP_ASPECTS[0] <= shape <= CROP_ASPECTS[1]
    whole = order_quad(face_corners(w, h))
    if not back and min(abs(np.log(shape / a)) for a in ASPECTS) <= CROP_SHAPE_MATCH:
        as_crop = crop_alternative(img)
        if as_crop is not None:
            return as_crop   # a card-shaped crop with paper to its edges: the card itself
    quad = largest_card_quad(img, back)
    if quad is not None and cv2.contourArea(quad) > TIGHT * h * w:
        quad = None          # the card fills the photo: a crop, whose found "card" is its inner frame
    if quad is None and not crop_shaped:
        raise BadPhotos([BadPhoto(name, NO_CARD, RETAKE_NO_CARD)], 1)
    face = _warp(img, whole if quad is None else quad)
    if quad is not None and crop_shaped and not back and not face_looks(face):
        as_crop = _warp(img, whole)
        if face_looks(as_crop):
            return as_crop
    return face


def crop_alternative(img: np.ndarray, back: bool = False) -> np.ndarray | None:
    """The whole photo straightened as the card, when it may be a scan or crop of one: card-
    shaped (CROP_ASPECTS) with card paper all round its edge (CROP_RIM_PAPER); else None. A
    photo of a card lying on a table has table at its edge. A ``back`` may be printed to its
    edge, so for it the shape alone offers the alternative, taken only in a scanned pack
    (:func:`pack_shaped`): the lattice of the Bresciane back scan in ../shared/realdata holds
    rectangles of its own, and one of them was enrolled as the back."""
    h, w = img.shape[:2]
    shape = max(h, w) / max(1, min(h, w))
    if not CROP_ASPECTS[0] <= shape <= CROP_ASPECTS[1]:
        return None
    as_crop = _warp(img, order_quad(face_corners(w, h)))
    return as_crop if back or face_looks(as_crop, CROP_RIM_PAPER) else None


def pack_shaped(raw: list[tuple[str, np.ndarray]], crops: list[np.ndarray | None]
                ) -> list[tuple[str, np.ndarray]]:
    """``raw`` (card id, straightened face) with faces replaced by their photo taken whole
    (``crops``: :func:`crop_alternative` of each photo, None where there is none) where the
    pack says that photo is a scan or crop of the card.

    A pack's cards all have one shape, which most of its photos show (:func:`pack_aspect`),
    and a club photographs or scans a whole pack one way. Inside a scan, the rectangle found
    can be a panel of the picture with a paper rim of its own (a pip area, a court's frame,
    the ace's medallion). So a photo whose whole is of the pack's shape is taken whole when
    its face is not of that shape, and then, when most of the pack's photos are taken whole
    (a scanned pack), whatever its face. Of the 52 Bresciane card scans in ../shared/realdata,
    21 were enrolled as panels: 15 of another shape (1.28-1.76 long for the pack's 2.05), 6 of
    nearly its shape (1.82-2.04, half the card or less); each scan taken whole is 2.01-2.17
    (bench/vision_renders.py enrols them; now none is a panel). A photo of a card on a table
    has table at its edge, so no alternative (none of the Triestine photos, the deepPoker
    table photos).
    """
    ref = pack_aspect(raw)
    if ref is None:
        return raw
    fits = [crop is not None and not _shape_off(crop, ref) for crop in crops]
    # a back's photo is offered whole for its shape alone (crop_alternative), which a phone
    # photo of a back on the table has too: only a scanned pack takes it whole, below
    out = [(card, crop if ok and card != "back" and _shape_off(face, ref) else face)
           for (card, face), crop, ok in zip(raw, crops, fits)]
    whole = sum(_same_image(face, crop) for (_, face), crop in zip(out, crops))
    if whole > sum(card != "back" for card, _ in out) / 2:
        out = [(card, crop if ok else face) for (card, face), crop, ok in zip(out, crops, fits)]
    return out


def _same_image(a: np.ndarray, b: np.ndarray | None) -> bool:
    """Whether face ``a`` is the photo taken whole, ``b`` (see :func:`pack_shaped`)."""
    return b is not None and a.shape == b.shape and bool(np.array_equal(a, b))


def pack_aspect(raw: list[tuple[str, np.ndarray]]) -> float | None:
    """The pack's shape (long / short side): the median of its faces that look like card faces
    (:func:`face_looks`; the back left out), None when none does."""
    sound = [f.shape[0] / f.shape[1] for card, f in raw if card != "back" and face_looks(f)]
    return float(np.median(sound)) if sound else None


def _shape_off(face: np.ndarray, ref: float) -> bool:
    """Whether a straightened face's shape is farther than MAX_SHAPE_OFF from the pack's."""
    return abs(np.log(face.shape[0] / face.shape[1] / ref)) > MAX_SHAPE_OFF


def _warp(img: np.ndarray, quad: np.ndarray) -> np.ndarray:
    short, long = quad_sides(quad)
    return warp_face(img, quad, (FACE_W, int(round(FACE_W * long / max(short, 1.0)))))


def largest_card_quad(img: np.ndarray, back: bool = False) -> np.ndarray | None:
    """Quad of the biggest card seen covering 6–92 % of the photo.

    Reference photos show one card filling a good part of the picture (the docs ask for a
    third to two thirds); anything smaller is a cell of a lined cloth, a note, a detail.

    The deck's shape is not known yet, so the common card shapes are all tried. Cards are
    proposed two ways: card-like pixels (vision.finder) and straight edges closing a card
    outline (vision.outline), which holds where the paper is no lighter than the table or
    the cloth's lines are as light as the card. A rectangle whose straightened face looks
    like a card face (a paper rim around ink, :func:`face_looks`; not asked of a back) beats
    one that does not: a checked cloth's cell or a picture panel does not. Then a lone
    rectangle beats a card read out of a blob that touches something else, and among the
    rest the card is the rectangle that best explains the card-like pixels: those it covers
    minus the table it claims (``area * (2 * support - 1)``). Area times support alone
    favours the longest shape tried, which reaches past the card onto the table
    (deepPoker table-clubs_10-1.jpg: 1.9 at support 0.76 beat the true 1.4 at 0.98).
    An outline's support is the share of its sides that are edges in the photo.
    """
    h, w = img.shape[:2]
    cands: list[tuple[np.ndarray, bool, float, bool]] = []      # quad, whole, support, outlined
    for aspect, outlined in zip(ASPECTS, outline.propose_shapes(img, ASPECTS)):
        cands += [(c.quad, c.whole, c.support, False) for c in find_cards(img, aspect).candidates]
        cands += [(o.quad, True, o.support, True) for o in outlined
                  if o.sides == 4 or (o.corners == 4 and o.sides >= OUTLINE_SIDES)]
    best = None
    for quad, whole, support, outlined in cands:
        area = cv2.contourArea(quad)
        if not MIN_SHARE * h * w < area < 0.92 * h * w:
            continue
        looks = back or face_looks(_warp(img, quad))
        key = (looks, whole, area * (2 * support - 1))
        if best is None or key > best[0]:
            best = (key, quad, outlined)
    if best is None:
        return None
    _, quad, outlined = best
    if outlined:
        # an outline is closed on a working copy, from corners a few pixels off: its sides are
        # moved onto the card's edges at full resolution, as the finder's are (vision.finder)
        fine = refine_quad(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY), quad, REFINE_SEARCH)
        if abs(np.log(cv2.contourArea(fine) / cv2.contourArea(quad))) < REFINE_AREA and \
                (back or face_looks(_warp(img, fine))):
            quad = fine
    return quad


def enrol(reference_dir: str | Path, deck_id: str | None = None,
          progress: Callable[[int, int, str], None] | None = None, *,
          skip_bad: bool = False) -> EnrolReport:
    """Build (but do not save) a profile from a reference folder.

    Every photo is judged before anything is decided, so one run names all the bad ones;
    with any bad photo the answer is :class:`BadPhotos` (listing them all) unless
    ``skip_bad``, which enrols the rest and reports what it left out.
    """
    ref = Path(reference_dir)
    deck_id, photos, bad = scan(ref, deck_id)
    items = [(card, p) for card, ps in photos.items() for p in ps]
    total = len(items) + len(bad)
    raw: list[tuple[str, np.ndarray]] = []
    crops: list[np.ndarray | None] = []      # each photo taken whole, when it may be a crop
    for i, (card, p) in enumerate(items):
        try:
            img = read_image(p)
            raw.append((card, straighten(img, p.name, back=card == "back")))
            crops.append(crop_alternative(img, back=card == "back"))
        except ImageError:
            bad.append(BadPhoto(p.name, "not a readable image", UNREADABLE_RETAKE))
        except BadPhotos as exc:
            bad += exc.bad
        if progress:
            progress(i + 1, len(items), p.name)
    if bad and not skip_bad:
        raise BadPhotos(bad, total)
    if not raw:
        raise EnrolError(f"{ref}: no photo could be enrolled")
    profile, suspect = build_profile(deck_id, pack_shaped(raw, crops))
    missing = [c for c in cards_of(deck_id) + ("back",) if c not in profile.faces]
    return EnrolReport.of(profile, missing, len(raw), suspect, bad)


def build_profile(deck_id: str, raw: list[tuple[str, np.ndarray]],
                  meta: dict | None = None) -> tuple[Profile, list[str]]:
    """A calibrated profile of straightened faces (card id, face) in deck order, and the
    cards whose face looks cut off or shows table (see :func:`suspect_faces`).

    Photos and the table camera both end here, so a profile is the same whatever made it.
    """
    from vision.recognise import calibrate
    aspect = float(np.median([f.shape[0] / f.shape[1] for _, f in raw]))
    fh = int(round(FACE_W * aspect))
    faces: dict[str, list[np.ndarray]] = {}
    for card, f in raw:
        faces.setdefault(card, []).append(cv2.resize(f, (FACE_W, fh), interpolation=cv2.INTER_AREA))
    order = [c for c in cards_of(deck_id) if c in faces] + (["back"] if "back" in faces else [])
    suspect = suspect_faces(raw)
    # kept in the profile: the recogniser trusts these faces less (Profile.suspect)
    profile = Profile(deck_id=deck_id, faces={c: faces[c] for c in order}, aspect=aspect,
                      meta={**(meta or {}), SUSPECT_META: suspect})
    profile.calibration = calibrate(profile)
    return profile, suspect


def suspect_faces(raw: list[tuple[str, np.ndarray]]) -> list[str]:
    """Cards whose enrolled face is probably not the whole card: worth a retake.

    Every deck we know prints its faces inside a paper margin, with ink (pips, pictures)
    on paper inside it. A face whose rim is mostly not paper shows table (the card was
    not found where it lies); a face with no ink is a blank panel or a sheet; a face of
    another shape than the rest is cut off. Backs may be printed to the edge, so they pass.
    """
    ref = pack_aspect(raw)
    return sorted({card for card, f in raw
                   if card != "back" and (not face_looks(f) or (ref is not None and _shape_off(f, ref)))})


@dataclass(frozen=True)
class Lookalike:
    """Two enrolled cards the recogniser may not tell apart, and the photo that would help."""

    a: str
    b: str
    margin: float        # how far a's camera-like view scores above b (below 0: b wins)
    where: str           # "corner index" or the part of the face where they differ most
    advice: str

    def __str__(self) -> str:
        return f"look-alike: {self.a} ~ {self.b} (margin {self.margin:+.2f}); {self.advice}"


def lookalikes(profile: Profile) -> list[Lookalike]:
    """Pairs of enrolled cards too close for the recogniser to separate, closest first.

    Each face is seen as a table camera would see it (:func:`camera_view`) and scored by
    the recogniser's own template bank against every enrolled face; a pair is reported
    when another card comes within ``LOOKALIKE_MARGIN`` of the right one, the margin under
    which identification abstains (``MIN_MARGIN``) with room for a real camera being
    worse than this simulated one.
    """
    from vision.recognise import Recogniser
    cards = [c for c in profile.faces if c != "back"]
    if len(cards) < 2:
        return []
    bank = Recogniser(profile).bank
    labels = bank.labels
    best: dict[tuple[str, str], float] = {}
    for c in cards:
        for f in profile.faces[c]:
            sc = bank.scores(describe(camera_view(f)))
            own = float(sc[labels == c].max())
            for o in cards:
                if o == c:
                    continue
                m = own - float(sc[labels == o].max())
                if m < LOOKALIKE_MARGIN:
                    key = (min(c, o), max(c, o))
                    best[key] = min(m, best.get(key, 9.0))
    out = []
    for (a, b), m in sorted(best.items(), key=lambda kv: kv[1]):
        where = difference_region(profile.faces[a][0], profile.faces[b][0])
        sa, sb = card_to_stem(a), card_to_stem(b)
        n = len(profile.faces[a]) + 1
        if where == "corner index":
            advice = (f"add a sharp close-up photo of each ({sa}.{n}.jpg, {sb}.{n}.jpg) with the "
                      "corner index in focus: that is where they differ")
        else:
            advice = (f"add a sharper photo of each ({sa}.{n}.jpg, {sb}.{n}.jpg), the {where} of "
                      "the face in focus and without glare: that is where they differ")
        out.append(Lookalike(a, b, m, where, advice))
    return out


def camera_view(face: np.ndarray) -> np.ndarray:
    """``face`` as a table camera sees it: a card ~60 px wide, slightly blurred and noisy."""
    h, w = face.shape[:2]
    small = cv2.resize(face, (VIEW_W, max(2, round(VIEW_W * h / w))), interpolation=cv2.INTER_AREA)
    small = cv2.GaussianBlur(small, (0, 0), VIEW_BLUR)
    noise = np.random.default_rng(0).normal(0, VIEW_NOISE, small.shape)
    small = np.clip(small.astype(np.float32) + noise, 0, 255).astype(np.uint8)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)


def difference_region(a: np.ndarray, b: np.ndarray) -> str:
    """Where two straightened faces differ most: ``"corner index"`` when the corners hold
    at least CORNER_SHARE of the difference, else the top, centre or bottom of the face."""
    h, w = a.shape[:2]
    ga = cv2.GaussianBlur(cv2.cvtColor(a, cv2.COLOR_BGR2GRAY), (0, 0), 2).astype(np.float32)
    gb = cv2.GaussianBlur(cv2.cvtColor(cv2.resize(b, (w, h)), cv2.COLOR_BGR2GRAY), (0, 0), 2)
    d = np.abs(ga - gb.astype(np.float32))
    d = np.minimum(d, np.abs(ga - gb[::-1, ::-1].astype(np.float32)))  # either way round
    cw, ch = int(CORNER[0] * w), int(CORNER[1] * h)
    corners = d[:ch, :cw].sum() + d[h - ch:, w - cw:].sum() + d[:ch, w - cw:].sum() + d[h - ch:, :cw].sum()
    if corners >= CORNER_SHARE * d.sum():
        return "corner index"
    thirds = [d[k * h // 3:(k + 1) * h // 3].sum() for k in range(3)]
    return ("top", "centre", "bottom")[int(np.argmax(thirds))]


def text_progress(done: int, total: int, name: str) -> None:
    """A one-line progress bar on stderr."""
    width = 30
    k = int(width * done / max(total, 1))
    sys.stderr.write(f"\r[{'#' * k}{'.' * (width - k)}] {done}/{total} {name[:30]:<30}")
    if done == total:
        sys.stderr.write("\n")
    sys.stderr.flush()
