"""An enrolled physical deck: straightened reference faces plus what identification needs.

On disk a profile is a folder: ``profile.json`` (format version, deck id, cards, face
size, confidence calibration) and ``faces/<card>.<n>.png`` (the straightened reference
faces, viewable by a person). Descriptors are recomputed on load, so improving them never
invalidates a club's enrolment. Saving goes to a temporary folder renamed into place, so a
crash never leaves half a profile.
"""
from __future__ import annotations

import json
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from vision.errors import ProfileError

FORMAT_VERSION = 1
FACE_W = 160  # stored face width in pixels; height follows the deck's aspect
SUSPECT_META = "suspect_faces"  # meta key: the cards whose enrolled face enrolment doubted


def card_to_stem(card: str) -> str:
    """``hearts/queen`` -> ``hearts_queen`` (CONTRACT §4 file naming)."""
    return card.replace("/", "_")


@dataclass
class Profile:
    """A deck the recogniser knows: faces per card id (``"back"`` for the card back)."""

    deck_id: str
    faces: dict[str, list[np.ndarray]]
    aspect: float                       # long side / short side
    calibration: tuple[float, float, float] | None = None
    format_version: int = FORMAT_VERSION
    meta: dict = field(default_factory=dict)

    @property
    def cards(self) -> tuple[str, ...]:
        """Card ids it knows (may include ``"back"``)."""
        return tuple(self.faces)

    @property
    def suspect(self) -> frozenset[str]:
        """Cards whose enrolled face enrolment doubted (cut off, table or glare at its rim):
        such a face can outscore the right card's, so such a card is named only where every
        cell of its face agrees, or by its corner index. Profiles enrolled before this was
        kept doubt none."""
        return frozenset(self.meta.get(SUSPECT_META, ()))

    @property
    def face_size(self) -> tuple[int, int]:
        """(w, h) of a straightened face, as :meth:`Recogniser.identify` expects."""
        return FACE_W, int(round(FACE_W * self.aspect))

    @classmethod
    def load(cls, directory: str | Path) -> "Profile":
        d = Path(directory)
        meta_path = d / "profile.json"
        if not meta_path.is_file():
            raise ProfileError(f"{d}: not a profile folder (no profile.json); run 'cardtable enrol' first")
        try:
            meta = json.loads(meta_path.read_text())
        except (OSError, ValueError) as exc:
            raise ProfileError(f"{meta_path}: unreadable ({exc})") from None
        if not isinstance(meta, dict):
            raise ProfileError(f"{meta_path}: not a profile description")
        version = meta.get("format_version")
        if version != FORMAT_VERSION:
            raise ProfileError(f"{d}: profile format version {version!r}, this program reads "
                               f"version {FORMAT_VERSION}; enrol the deck again")
        try:
            faces: dict[str, list[np.ndarray]] = {}
            for card, files in meta["faces"].items():
                imgs = []
                for name in files:
                    img = cv2.imread(str(d / "faces" / name), cv2.IMREAD_COLOR)
                    if img is None:
                        raise ProfileError(f"{d / 'faces' / name}: missing or unreadable face image")
                    imgs.append(img)
                faces[card] = imgs
            cal = meta.get("calibration")
            return cls(deck_id=str(meta["deck_id"]), faces=faces, aspect=float(meta["aspect"]),
                       calibration=tuple(cal) if cal else None, meta=meta.get("meta", {}))
        except (KeyError, TypeError, ValueError) as exc:
            if isinstance(exc, ProfileError):
                raise
            raise ProfileError(f"{meta_path}: damaged profile ({exc})") from None

    def save(self, directory: str | Path) -> None:
        d = Path(directory).resolve()
        d.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{d.name}.", dir=d.parent))
        try:
            (tmp / "faces").mkdir()
            names: dict[str, list[str]] = {}
            for card, imgs in self.faces.items():
                names[card] = []
                for i, img in enumerate(imgs):
                    name = f"{card_to_stem(card)}.{i}.png"
                    if not cv2.imwrite(str(tmp / "faces" / name), img):
                        raise ProfileError(f"{d}: could not write {name}")
                    names[card].append(name)
            meta = {"format_version": self.format_version, "deck_id": self.deck_id,
                    "cards": list(self.faces), "aspect": self.aspect,
                    "calibration": list(self.calibration) if self.calibration else None,
                    "face_size": list(self.face_size), "faces": names, "meta": self.meta}
            (tmp / "profile.json").write_text(json.dumps(meta, indent=1) + "\n")
            old = None
            if d.exists():
                old = d.parent / f".{d.name}.old.{os.getpid()}"
                os.rename(d, old)
            os.rename(tmp, d)
            if old is not None:
                shutil.rmtree(old, ignore_errors=True)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
