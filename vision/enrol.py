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

from vision.decks import cards_of, deck_cards
from vision.errors import EnrolError, ImageError
from vision.features import TemplateBank, describe
from vision.finder import find_cards
from vision.geometry import order_quad, quad_sides, warp_face
from vision.profile import FACE_W, Profile

IMAGE_EXT = {".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp"}
ASPECTS = (1.4, 1.55, 1.75, 1.9)   # card shapes tried when the deck's is not known yet
MIN_SHARE = 0.06        # a reference card covers at least this share of its photo
TIGHT = 0.6             # a found card covering more of the photo than this means a tight crop
LOOKALIKE = 0.88        # two enrolled cards this similar are reported as look-alikes
CROP_ASPECTS = (1.25, 2.0)  # a photo with no card found is a tight crop only if card-shaped
RIM = 0.04              # share of the face's short side checked for card paper at its edge
MIN_RIM_PAPER = 0.5     # a face whose rim is less paper than this probably shows table
MAX_SHAPE_OFF = 0.12    # |log| of a face's aspect over the others' beyond which it is cut off
_NAME = re.compile(r"^(?P<stem>[a-z0-9_]+?)(?:\.(?P<n>\d+))?$")


@dataclass
class EnrolReport:
    profile: Profile
    missing: list[str] = field(default_factory=list)
    lookalikes: list[tuple[str, str, float]] = field(default_factory=list)
    photos: int = 0
    suspect: list[str] = field(default_factory=list)   # faces to look at: cut off, or table


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


def scan(reference_dir: Path, deck_id: str | None) -> tuple[str, dict[str, list[Path]]]:
    """Photos per card id, and the deck (given, or the one deck all names fit)."""
    if not reference_dir.is_dir():
        raise EnrolError(f"{reference_dir}: no such folder")
    files = sorted(p for p in reference_dir.iterdir() if p.is_file() and not p.name.startswith("."))
    images = [p for p in files if p.suffix.lower() in IMAGE_EXT]
    if not images:
        raise EnrolError(f"{reference_dir}: no images (.jpg/.png) in this folder")
    stems = []
    for p in images:
        m = _NAME.match(p.stem.lower())
        if not m:
            raise EnrolError(f"{p.name}: not a card file name (card id with '_' for '/', "
                             f"optionally .N, e.g. hearts_queen.jpg or trump_21.2.png)")
        stems.append((m.group("stem"), p))
    if deck_id is None:
        names = {s for s, _ in stems if s != "back"}
        fits = [d for d, cards in deck_cards().items()
                if names <= {c.replace("/", "_") for c in cards}]
        if not fits:
            bad = sorted(names - set().union(*({c.replace('/', '_') for c in cards}
                                                for cards in deck_cards().values())))
            what = f"{bad[0]!r} is not a card of any deck" if bad else "no single deck has all these cards"
            raise EnrolError(f"{reference_dir}: {what}; name files by card id or pass --deck")
        deck_id = min(fits, key=lambda d: len(cards_of(d)))
    elif deck_id not in deck_cards():
        raise EnrolError(f"unknown deck {deck_id!r}; known decks: {', '.join(sorted(deck_cards()))}")
    photos: dict[str, list[Path]] = {}
    for stem, p in stems:
        photos.setdefault(name_to_card(stem, deck_id), []).append(p)
    return deck_id, photos


def straighten(img: np.ndarray, name: str = "photo") -> np.ndarray:
    """The card in a reference photo, straightened to a portrait face FACE_W wide.

    The largest clean rectangle of card-like pixels is the card; when there is none the
    photo must be a tight crop (card to the edges, card-shaped), or it is refused: a
    landscape of table enrolled as a face would spoil every later reading.
    """
    h, w = img.shape[:2]
    quad = largest_card_quad(img)
    if quad is not None and cv2.contourArea(quad) > TIGHT * h * w:
        quad = None          # the card fills the photo: a crop, whose found "card" is its inner frame
    if quad is None:
        shape = max(h, w) / max(1, min(h, w))
        if not CROP_ASPECTS[0] <= shape <= CROP_ASPECTS[1]:
            raise EnrolError(f"{name}: no card found, and the photo is not a tight crop of one; "
                             "photograph the card alone on a plain darker surface, or crop the "
                             "photo to the card's edges")
        quad = order_quad(np.float32([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]]))
    short, long = quad_sides(quad)
    fh = int(round(FACE_W * long / max(short, 1.0)))
    return warp_face(img, quad, (FACE_W, fh))


def largest_card_quad(img: np.ndarray) -> np.ndarray | None:
    """Quad of the biggest card the finder sees covering 6–92 % of the photo.

    Reference photos show one card filling a good part of the picture (the docs ask for a
    third to two thirds); anything smaller is a cell of a lined cloth, a note, a detail.

    The deck's shape is not known yet, so the common card shapes are all tried; a lone
    rectangle beats a card read out of a blob that touches something else.
    """
    h, w = img.shape[:2]
    best = None
    for aspect in ASPECTS:
        for cand in find_cards(img, aspect).candidates:
            area = cv2.contourArea(cand.quad)
            if not MIN_SHARE * h * w < area < 0.92 * h * w:
                continue
            key = (cand.whole, area * cand.support)
            if best is None or key > best[0]:
                best = (key, cand.quad)
    return None if best is None else best[1]


def enrol(reference_dir: str | Path, deck_id: str | None = None,
          progress: Callable[[int, int, str], None] | None = None) -> EnrolReport:
    """Build (but do not save) a profile from a reference folder."""
    from vision.recognise import calibrate
    ref = Path(reference_dir)
    deck_id, photos = scan(ref, deck_id)
    # read everything first: a bad image fails before any work is kept
    items = [(card, p) for card, ps in photos.items() for p in ps]
    imgs = [(card, p, read_image(p)) for card, p in items]
    faces: dict[str, list[np.ndarray]] = {}
    raw: list[tuple[str, np.ndarray]] = []
    total = len(imgs)
    for i, (card, p, img) in enumerate(imgs):
        raw.append((card, straighten(img, p.name)))
        if progress:
            progress(i + 1, total, p.name)
    aspect = float(np.median([f.shape[0] / f.shape[1] for _, f in raw]))
    fh = int(round(FACE_W * aspect))
    for card, f in raw:
        faces.setdefault(card, []).append(cv2.resize(f, (FACE_W, fh), interpolation=cv2.INTER_AREA))
    order = [c for c in cards_of(deck_id) if c in faces] + (["back"] if "back" in faces else [])
    profile = Profile(deck_id=deck_id, faces={c: faces[c] for c in order}, aspect=aspect)
    profile.calibration = calibrate(profile)
    missing = [c for c in cards_of(deck_id) if c not in faces]
    if "back" not in faces:
        missing.append("back")
    suspect = suspect_faces(raw)
    return EnrolReport(profile, missing, lookalikes(profile), total, suspect)


def suspect_faces(raw: list[tuple[str, np.ndarray]]) -> list[str]:
    """Cards whose enrolled face is probably not the whole card: worth a retake.

    Every deck we know prints its faces inside a paper margin, with ink (pips, pictures)
    on paper inside it. A face whose rim is mostly not paper shows table (the card was
    not found where it lies); a face with no ink is a blank panel or a sheet; a face of
    another shape than the rest is cut off. Backs may be printed to the edge, so they pass.
    """
    looks = {id(f): face_looks(f) for _, f in raw}
    sound = [f.shape[0] / f.shape[1] for _, f in raw if looks[id(f)]]
    ref = float(np.median(sound)) if sound else None
    out = set()
    for card, f in raw:
        if card == "back":
            continue
        off = ref is not None and abs(np.log(f.shape[0] / f.shape[1] / ref)) > MAX_SHAPE_OFF
        if not looks[id(f)] or off:
            out.add(card)
    return sorted(out)


def face_looks(face: np.ndarray) -> bool:
    """A paper rim, and ink on paper inside it (see :func:`suspect_faces`)."""
    h, w = face.shape[:2]
    lab = cv2.cvtColor(face, cv2.COLOR_BGR2LAB).astype(np.float32)
    light = lab[..., 0] > np.percentile(lab[..., 0], 90) - 30
    chroma = np.hypot(lab[..., 1] - 128, lab[..., 2] - 128)
    paper = light & (chroma < 25)
    ink = ~light | (chroma > 40)
    b = max(2, round(RIM * min(h, w)))
    rim = np.ones((h, w), bool)
    rim[b:h - b, b:w - b] = False
    inner = np.zeros((h, w), bool)
    m = max(2, round(0.12 * min(h, w)))
    inner[m:h - m, m:w - m] = True
    ink_inside = float(ink[inner].mean())
    return bool(paper[rim].mean() >= MIN_RIM_PAPER and ink_inside >= 0.02)


def lookalikes(profile: Profile) -> list[tuple[str, str, float]]:
    """Pairs of enrolled cards whose faces are alarmingly similar, most similar first."""
    cards = list(profile.faces)
    if len(cards) < 2:
        return []
    bank = TemplateBank(cards, [profile.faces[c][0] for c in cards])
    out = []
    for i, c in enumerate(cards):
        s = bank.scores(describe(profile.faces[c][0]))
        for j in range(len(s)):
            o = str(bank.labels[j])
            if o != c and c < o and s[j] > LOOKALIKE:
                out.append((c, o, float(s[j])))
    best: dict[tuple[str, str], float] = {}
    for a, b, s in out:
        best[(a, b)] = max(s, best.get((a, b), -1))
    return sorted(((a, b, s) for (a, b), s in best.items()), key=lambda t: -t[2])


def text_progress(done: int, total: int, name: str) -> None:
    """A one-line progress bar on stderr."""
    width = 30
    k = int(width * done / max(total, 1))
    sys.stderr.write(f"\r[{'#' * k}{'.' * (width - k)}] {done}/{total} {name[:30]:<30}")
    if done == total:
        sys.stderr.write("\n")
    sys.stderr.flush()
