"""Random stress scenes and their scoring, shared by the tests and bench/vision_stills.py.

A scene holds a few cards (some overlapping like a trick, some face down), maybe a hand
and a phone or coin, on a random table, photographed with random stress. Scoring matches
detections to truth by centre distance: a truth card is *found* when a detection's centre
is within a quarter card of it, *right* when also the identity (or face-down) agrees.
A detection that matches nothing, or names a card that is not the one there, is a
*false report*: the kind of error the referee must never see.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from vision.geometry import quad_sides
from vision.profile import Profile
from vision.synthetic.render import (TABLES, Clutter, HandOptions, Placement, Scene,
                                     StressOptions, card_long_side, render_scene)


def random_scene(profile: Profile, seed: int, *, size=(1280, 720), n_cards: int = 4,
                 overlap: bool = True, hands: bool = True, clutter: bool = True,
                 face_down: bool = True, stress: StressOptions | None = StressOptions(),
                 tables: Sequence[str | np.ndarray] | None = None,
                 scale_range: tuple[float, float] = (0.9, 1.1)) -> Scene:
    """A random stress scene of ``profile``'s cards (deterministic by ``seed``).

    ``tables``: kinds of :data:`TABLES` or real table photos to choose from (default: every
    kind); ``scale_range``: the card scale drawn per scene (see ``scale_for_width``)."""
    rng = np.random.default_rng(seed)
    w, h = size
    cards = [c for c in profile.cards if c != "back"]
    chosen = list(rng.choice(len(cards), size=n_cards, replace=False))
    scale = float(rng.uniform(*scale_range))   # one camera height per scene: one card size
    L = card_long_side(size, scale)
    placements: list[Placement] = []
    centres: list[tuple[float, float]] = []
    for k, ci in enumerate(chosen):
        for _ in range(50):
            if overlap and centres and rng.random() < 0.4:
                bx, by = centres[int(rng.integers(0, len(centres)))]
                a, r = rng.uniform(0, 2 * np.pi), rng.uniform(0.4, 0.6) * L   # a trick: offset cards
                c = (bx + r * np.cos(a), by + r * np.sin(a))
            else:
                c = (rng.uniform(0.15 * w, 0.85 * w), rng.uniform(0.25 * h, 0.75 * h))
            if not (0.1 * w < c[0] < 0.9 * w and 0.2 * h < c[1] < 0.8 * h):
                continue
            d = [np.hypot(c[0] - a, c[1] - b) for a, b in centres]
            lim = 0.38 * L if overlap else 1.05 * L
            if all(x > lim for x in d):
                break
        down = face_down and rng.random() < 0.12
        placements.append(Placement(cards[ci], c, float(rng.uniform(0, 360)), face_up=not down,
                                    scale=scale * float(rng.uniform(0.98, 1.02))))
        centres.append(c)
    hand = None
    if hands and rng.random() < 0.5:
        tgt = placements[int(rng.integers(0, len(placements)))].centre_xy
        tip = (tgt[0] + rng.uniform(-0.6, 0.6) * L, tgt[1] + rng.uniform(-0.6, 0.6) * L)
        hand = HandOptions(tip, width=float(rng.uniform(0.3, 0.45) * L),
                           skin_bgr=tuple(int(v) for v in rng.choice(
                               [(120, 150, 200), (80, 110, 160), (60, 80, 120), (150, 170, 215)])))
    cl: list[Clutter] = []
    if clutter and rng.random() < 0.5:
        for _ in range(int(rng.integers(1, 3))):
            kind = str(rng.choice(["phone", "coin", "chip", "paper"]))
            cl.append(Clutter(kind, (float(rng.uniform(0.05, 0.95) * w), float(rng.uniform(0.1, 0.9) * h)),
                              float(rng.uniform(0, 180))))
    table = str(rng.choice(TABLES)) if tables is None else tables[int(rng.integers(0, len(tables)))]
    return render_scene(profile, placements, size=size, table=table, seed=seed, stress=stress,
                        hand=hand, clutter=cl)


@dataclass
class Tally:
    """Accumulated outcome of scoring scenes."""

    cards: int = 0              # truth cards visible enough to be required (>= min_visible)
    right: int = 0              # ... identified correctly (card, or face down)
    abstained: int = 0          # ... found but card=None while face up
    missed: int = 0             # ... not found at all
    wrong: int = 0              # ... found and given another card id (a false report)
    phantoms: int = 0           # detections where no card lies (false reports)
    optional_right: int = 0     # mostly hidden cards (< min_visible) that were still right
    errors: list = field(default_factory=list)

    @property
    def accuracy(self) -> float:
        return self.right / self.cards if self.cards else 1.0

    @property
    def false_reports(self) -> int:
        return self.wrong + self.phantoms

    def add(self, other: "Tally") -> None:
        for k in ("cards", "right", "abstained", "missed", "wrong", "phantoms", "optional_right"):
            setattr(self, k, getattr(self, k) + getattr(other, k))
        self.errors += other.errors


def score(scene: Scene, detections: Sequence, min_visible: float = 0.5, tag: object = None) -> Tally:
    """Compare detections with the scene's truth (see module doc)."""
    t = Tally()
    used = set()
    for ti, tr in enumerate(scene.truth):
        short, _ = quad_sides(tr.quad)
        c = tr.quad.mean(axis=0)
        best, bd = None, 0.35 * short
        for di, d in enumerate(detections):
            if di in used:
                continue
            dd = float(np.linalg.norm(np.asarray(d.quad).mean(axis=0) - c))
            if dd < bd:
                best, bd = di, dd
        required = tr.visible_fraction >= min_visible
        if best is None:
            if required:
                t.cards += 1
                t.missed += 1
                t.errors.append((tag, "missed", tr.card, round(tr.visible_fraction, 2)))
            continue
        used.add(best)
        d = detections[best]
        ok = (d.face_up == tr.face_up) and (d.card == tr.card)
        if required:
            t.cards += 1
        if ok:
            t.right += required
            t.optional_right += not required
        elif d.card is None and d.face_up:
            t.abstained += required
            if required:
                t.errors.append((tag, "abstained", tr.card, round(tr.visible_fraction, 2)))
        else:
            t.wrong += 1
            t.errors.append((tag, "wrong", tr.card, d.card, d.face_up, round(d.confidence, 3)))
    for di, d in enumerate(detections):
        if di not in used:
            t.phantoms += 1
            t.errors.append((tag, "phantom", d.card, d.face_up, round(d.confidence, 3)))
    return t
