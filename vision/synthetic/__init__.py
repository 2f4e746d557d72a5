"""Synthetic stills: generated stand-in decks and a renderer with exact ground truth."""
from __future__ import annotations

import hashlib
import json
import os
import tempfile
from functools import cache
from pathlib import Path

from vision.decks import cards_of
from vision.profile import Profile
from vision.synthetic.faces import ASPECT, synthetic_face
from vision.synthetic.render import (TABLES, Clutter, HandOptions, Placement, Scene,
                                     StressOptions, Truth, card_long_side, render_scene)

__all__ = ["synthetic_profile", "synthetic_face", "render_scene", "Placement", "Scene",
           "StressOptions", "HandOptions", "Clutter", "Truth", "TABLES", "card_long_side"]


@cache
def _build(deck_id: str) -> Profile:
    faces = {c: [synthetic_face(deck_id, c)] for c in cards_of(deck_id) + ("back",)}
    p = Profile(deck_id=deck_id, faces=faces, aspect=ASPECT.get(deck_id, 1.5),
                meta={"synthetic": True})
    p.calibration = _calibration(p)
    return p


def _calibration(p: Profile) -> tuple[float, float, float]:
    """The profile's confidence calibration, kept in the user's cache between processes.

    Calibrating renders and reads a dozen scenes (seconds); every ``cardtable demo`` and
    every test process would pay it per deck. It is a deterministic function of the deck and
    of this package's code and libraries, so the cache key is a hash of those: any change to
    the vision code calibrates afresh. An unreadable or unwritable cache only costs time.
    """
    from vision.recognise import calibrate

    where = _cache_dir() / f"{p.deck_id.replace('/', '_')}-{_code_fingerprint()}.json"
    try:
        cal = json.loads(where.read_text())
        if isinstance(cal, list) and len(cal) == 3 and all(isinstance(v, float) for v in cal):
            return (cal[0], cal[1], cal[2])
    except (OSError, ValueError):
        pass
    cal = calibrate(p)
    try:
        where.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".cal.", dir=where.parent)
        with os.fdopen(fd, "w") as f:
            json.dump([float(v) for v in cal], f)
        os.replace(tmp, where)        # whole or not at all, even with processes racing
    except OSError:
        pass
    return cal


def _cache_dir() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "cardtable" / "synthetic"


@cache
def _code_fingerprint() -> str:
    import cv2
    import numpy

    h = hashlib.sha256(f"{cv2.__version__} {numpy.__version__}".encode())
    root = Path(__file__).resolve().parents[1]         # the vision package
    for path in sorted(root.rglob("*.py")):
        h.update(str(path.relative_to(root)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


def synthetic_profile(deck_id: str) -> Profile:
    """A profile of generated faces (each marked SYNTHETIC), calibrated like an enrolment."""
    return _build(deck_id)
