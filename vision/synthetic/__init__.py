"""Synthetic stills: generated stand-in decks and a renderer with exact ground truth."""
from __future__ import annotations

from functools import cache

from vision.decks import cards_of
from vision.profile import Profile
from vision.synthetic.faces import ASPECT, synthetic_face
from vision.synthetic.render import (TABLES, Clutter, HandOptions, Placement, Scene,
                                     StressOptions, Truth, card_long_side, render_scene)

__all__ = ["synthetic_profile", "synthetic_face", "render_scene", "Placement", "Scene",
           "StressOptions", "HandOptions", "Clutter", "Truth", "TABLES", "card_long_side"]


@cache
def _build(deck_id: str) -> Profile:
    from vision.recognise import calibrate
    faces = {c: [synthetic_face(deck_id, c)] for c in cards_of(deck_id) + ("back",)}
    p = Profile(deck_id=deck_id, faces=faces, aspect=ASPECT.get(deck_id, 1.5),
                meta={"synthetic": True})
    p.calibration = calibrate(p)
    return p


def synthetic_profile(deck_id: str) -> Profile:
    """A profile of generated faces (each marked SYNTHETIC), calibrated like an enrolment."""
    return _build(deck_id)
