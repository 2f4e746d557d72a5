"""Synthetic table videos with exact ground-truth card events.

A :class:`SequenceBuilder` scripts what players do (a hand carries a card in from its seat's
edge, lets go and withdraws; a hand waves or rests over the table; a card is slid; the winner
sweeps the trick off the table) and records, per frame, what lies on the table and where the
hand is. Each frame is drawn by Vision I's :func:`render_scene` (cards, hand) and then
photographed by one fixed :class:`CameraModel` per sequence (tilt, uneven light, white balance,
glare, blur from :class:`StressOptions`, plus fresh sensor noise every frame), with the four
ArUco table markers at the corners, so ``cardtable track`` can calibrate from the video itself.

Ground truth is *semantic*: an event happens at the first frame after the motion that caused it
ends (the hand has left); a tracker may report it up to its still window later.

Seats follow CONTRACT §4 as seen in the image: 0 bottom, 1 right, 2 top, 3 left.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import Iterator, Sequence as Seq

import cv2
import numpy as np

from vision.calibration import paste_markers

SEAT_DIRS = {0: (0.0, 1.0), 1: (1.0, 0.0), 2: (0.0, -1.0), 3: (-1.0, 0.0)}   # towards the seat's edge


@dataclass(frozen=True)
class TruthEvent:
    frame: int
    event: str
    seat: int | None
    card: str | None
    face_up: bool

    def key(self) -> tuple:
        return (self.event, self.seat, self.card, self.face_up)


@dataclass(frozen=True)
class OnTable:
    card: str | None
    centre: tuple[float, float]
    angle: float
    face_up: bool
    seat: int | None


@dataclass(frozen=True)
class Shot:
    """What the camera sees in one frame: cards bottom first, and the hand's fingertip (or None)."""

    cards: tuple[OnTable, ...]
    hand_tip: tuple[float, float] | None = None
    exposure: float = 1.0                            # the camera's overall gain (auto-exposure)
    lamp: float = 0.0                                # 0 off .. 1 on: a lamp lighting one side
    shadow: tuple[float, float] | None = None        # centre of an arm's soft shadow, or None
    camera: tuple[float, float, float] = (0.0, 0.0, 0.0)   # the camera knocked: (dx, dy) px, turn in degrees
    sleeve: int | None = None                        # the table marker (0-3) a sleeve lies over, or None


@dataclass
class TableSequence:
    name: str
    deck_id: str
    size: tuple[int, int]
    fps: float
    seed: int
    table: str
    stress: object | None                  # vision.synthetic StressOptions or None
    shots: list[Shot]
    events: list[TruthEvent]
    marker_centres: np.ndarray
    marker_px: int
    card_scale: float

    def __len__(self) -> int:
        return len(self.shots)

    def table_config_toml(self, card_long_mm: float = 91.0) -> str:
        """The table this video shows, in millimetres, as a ``--table`` TOML (cards 91 mm long)."""
        from vision.synthetic.faces import ASPECT
        from vision.synthetic.render import card_long_side
        from vision.table import measured_table

        aspect = ASPECT.get(self.deck_id, 1.5)
        t = measured_table(self.marker_centres, card_long_side(self.size, self.card_scale),
                           (card_long_mm / aspect, card_long_mm))
        return (f"[table]\nwidth_mm = {t.width_mm:.1f}\nheight_mm = {t.height_mm:.1f}\n"
                f"card_mm = [{t.card_mm[0]:.1f}, {t.card_mm[1]:.1f}]\n")


def _ease(t: float) -> float:
    return t * t * (3 - 2 * t)


class SequenceBuilder:
    """Script a table video frame by frame; see the module docstring."""

    def __init__(self, deck_id: str = "french-32", *, name: str = "custom", size=(1280, 720), fps: float = 30.0,
                 seed: int = 0, table: str = "plain", stress=None, card_scale: float = 0.7,
                 reach_frames: int = 9, withdraw_frames: int = 8) -> None:
        self.deck_id, self.name, self.size, self.fps, self.seed = deck_id, name, tuple(size), fps, seed
        self.table, self.stress, self.card_scale = table, stress, card_scale
        self.reach_frames, self.withdraw_frames = reach_frames, withdraw_frames
        w, h = self.size
        self.marker_px = max(24, int(min(w, h) * 0.07))
        m = self.marker_px * 1.1   # ArUco misses markers hugging the image border in noise
        self.marker_centres = np.array([[m, m], [w - m, m], [w - m, h - m], [m, h - m]], np.float32)
        self.cards: list[OnTable] = []
        self.pile: list[OnTable] = []      # a gathered trick still lying at its winner's edge
        self.pile_seat: int | None = None
        self.shots: list[Shot] = []
        self.events: list[TruthEvent] = []
        self.card_long = 0.30 * min(w, h) * card_scale
        self.exposure, self.lamp = 1.0, 0.0
        self.camera: tuple[float, float, float] = (0.0, 0.0, 0.0)
        self.sleeve: int | None = None
        self.shadow_offset: tuple[float, float] | None = None   # hands cast a shadow this far off

    # -- geometry ---------------------------------------------------------------------------------
    def spot(self, seat: int, offset: float = 0.0, along: float = 0.0) -> tuple[float, float]:
        """Where ``seat`` naturally plays: between the table centre and its edge."""
        w, h = self.size
        dx, dy = SEAT_DIRS[seat]
        reach = 0.78 * self.card_long + offset
        return (w / 2 + dx * reach * 1.3 - dy * along, h / 2 + dy * reach + dx * along)

    def _outside(self, seat: int, near: tuple[float, float]) -> tuple[float, float]:
        w, h = self.size
        margin = 220.0
        dx, dy = SEAT_DIRS[seat]
        x = near[0] if dx == 0 else (w + margin if dx > 0 else -margin)
        y = near[1] if dy == 0 else (h + margin if dy > 0 else -margin)
        return (x, y)

    def _grip(self, seat: int, centre: tuple[float, float]) -> tuple[float, float]:
        """The fingertip when holding a card at ``centre``: on the card's edge nearest the seat."""
        dx, dy = SEAT_DIRS[seat]
        r = 0.4 * self.card_long
        return (centre[0] + dx * r, centre[1] + dy * r)

    # -- frames -----------------------------------------------------------------------------------
    def _shot(self, extra: Seq[OnTable] = (), tip=None, shadow=None) -> None:
        if shadow is None and tip is not None and self.shadow_offset is not None:
            shadow = (tip[0] + self.shadow_offset[0], tip[1] + self.shadow_offset[1])
        self.shots.append(Shot(tuple(self.pile) + tuple(self.cards) + tuple(extra), None if tip is None else (float(tip[0]), float(tip[1])),
                               self.exposure, self.lamp,
                               None if shadow is None else (float(shadow[0]), float(shadow[1])),
                               self.camera, self.sleeve))

    def _move_hand(self, seat: int, a, b, frames: int, carrying: Seq[OnTable] = (), carry_from=None,
                   carry_to=None) -> None:
        for i in range(1, frames + 1):
            t = _ease(i / frames)
            tip = (a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t)
            extra = []
            for c, c0, c1 in zip(carrying, carry_from or [], carry_to or []):
                centre = (c0[0] + (c1[0] - c0[0]) * t, c0[1] + (c1[1] - c0[1]) * t)
                extra.append(replace(c, centre=centre))
            self._shot(extra, tip)

    def idle(self, frames: int) -> "SequenceBuilder":
        for _ in range(frames):
            self._shot()
        return self

    @property
    def frame(self) -> int:
        return len(self.shots)

    def play(self, seat: int, card: str | None, *, face_up: bool = True, at: tuple[float, float] | None = None,
             angle: float | None = None, hold: int = 2, jitter: float = 3.0) -> "SequenceBuilder":
        """A hand brings ``card`` from ``seat``'s edge to ``at``, lets go, withdraws: one ``placed``.
        The card lies up to 2 * ``jitter`` degrees off ``angle``, as a hand places it."""
        at = at or self.spot(seat)
        angle = (90.0 if seat in (1, 3) else 0.0) if angle is None else angle
        c = OnTable(card if face_up else None, at, angle + jitter * (self.frame % 5 - 2), face_up, seat)
        grip = self._grip(seat, at)
        start = self._outside(seat, grip)
        off = (start[0] - grip[0], start[1] - grip[1])
        c_start = (at[0] + off[0], at[1] + off[1])
        self._move_hand(seat, start, grip, self.reach_frames, [c], [c_start], [at])
        self.cards.append(c)
        for _ in range(hold):
            self._shot(tip=grip)
        self._move_hand(seat, grip, start, self.withdraw_frames)
        self.events.append(TruthEvent(self.frame, "placed", seat, c.card, face_up))
        return self

    def wave(self, seat: int, across: float = 0.6, frames: int = 16) -> "SequenceBuilder":
        """A hand sweeps in over the table and out again (reaching for a glass): no event."""
        w, h = self.size
        target = (w / 2 - SEAT_DIRS[seat][0] * w * (across - 0.5), h / 2 - SEAT_DIRS[seat][1] * h * (across - 0.5))
        target = (target[0] + 0.15 * w * SEAT_DIRS[seat][1], target[1] + 0.15 * h * SEAT_DIRS[seat][0])
        start = self._outside(seat, target)
        self._move_hand(seat, start, target, frames // 2)
        self._move_hand(seat, target, start, frames - frames // 2)
        return self

    def rest(self, seat: int, at: tuple[float, float], frames: int = 30) -> "SequenceBuilder":
        """A hand comes in and rests still on the table for ``frames``, then leaves: no event."""
        start = self._outside(seat, at)
        self._move_hand(seat, start, at, self.reach_frames)
        for _ in range(frames):
            self._shot(tip=at)
        self._move_hand(seat, at, start, self.withdraw_frames)
        return self

    def switch_lamp(self, on: bool, settle: int = 45, drift: float = 0.2) -> "SequenceBuilder":
        """A lamp beside the table goes on (off) in one frame; the camera's auto-exposure then
        drifts back by ``drift`` over ``settle`` frames: no event."""
        self.lamp = 1.0 if on else 0.0
        self._shot()
        start = self.exposure
        target = start * (1 - drift) if on else min(1.0, start / (1 - drift))
        for i in range(1, settle + 1):
            self.exposure = start + (target - start) * i / settle
            self._shot()
        return self

    def knock_camera(self, dx: float, dy: float, turn: float = 0.0, frames: int = 4) -> "SequenceBuilder":
        """Someone knocks the camera's arm: over ``frames`` the view shifts by (``dx``, ``dy``) px
        and turns ``turn`` degrees about its centre, and stays so: no event."""
        x0, y0, a0 = self.camera
        for i in range(1, frames + 1):
            t = i / frames
            self.camera = (x0 + dx * t, y0 + dy * t, a0 + turn * t)
            self._shot()
        return self

    def cover_marker(self, marker: int | None) -> "SequenceBuilder":
        """From the next frame a sleeve lies over table marker ``marker`` (0-3; None: lifted off):
        no event."""
        self.sleeve = marker
        return self

    def lean(self, seat: int, at: tuple[float, float], frames: int = 30) -> "SequenceBuilder":
        """A player leans over: an arm's shadow (not the arm) crosses to ``at``, stays, leaves."""
        start = self._outside(seat, at)
        for a, b, n in ((start, at, self.reach_frames), (at, at, frames), (at, start, self.withdraw_frames)):
            for i in range(1, n + 1):
                t = _ease(i / n)
                self._shot(shadow=(a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t))
        return self

    def slide(self, card_index: int, to: tuple[float, float], frames: int = 10) -> "SequenceBuilder":
        """The owner nudges a card already on the table to ``to``: no event."""
        c = self.cards.pop(card_index)
        seat = c.seat if c.seat is not None else 0
        grip0, grip1 = self._grip(seat, c.centre), self._grip(seat, to)
        start = self._outside(seat, grip0)
        self._move_hand(seat, start, grip0, self.reach_frames, [c], [c.centre], [c.centre])
        self._move_hand(seat, grip0, grip1, frames, [c], [c.centre], [to])
        moved = replace(c, centre=to)
        self.cards.insert(card_index, moved)
        self._move_hand(seat, grip1, start, self.withdraw_frames)
        return self

    def turn_over(self, card_index: int, card: str) -> "SequenceBuilder":
        """The owner turns a face-down card over where it lies, showing ``card`` (Truco: a card
        played face down counts 0 whatever it is): no event, the table keeps it as placed."""
        c = self.cards[card_index]
        seat = c.seat if c.seat is not None else 0
        grip = self._grip(seat, c.centre)
        start = self._outside(seat, grip)
        self._move_hand(seat, start, grip, self.reach_frames)
        self.cards[card_index] = replace(c, card=card, face_up=True)
        self._move_hand(seat, grip, start, self.withdraw_frames)
        return self

    def take(self, card_index: int = -1, seat: int = 0) -> "SequenceBuilder":
        """A hand picks a card up (default: the top one) and carries it off at ``seat``'s edge:
        one ``removed``."""
        c = self.cards.pop(card_index)
        grip = self._grip(seat, c.centre)
        start = self._outside(seat, grip)
        self._move_hand(seat, start, grip, self.reach_frames)
        off = (start[0] - grip[0], start[1] - grip[1])
        self._move_hand(seat, grip, start, self.withdraw_frames, [c], [c.centre],
                        [(c.centre[0] + off[0], c.centre[1] + off[1])])
        self.events.append(TruthEvent(self.frame, "removed", c.seat, c.card, c.face_up))
        return self

    def gather(self, winner: int, frames: int = 12, *, leave: bool = False) -> "SequenceBuilder":
        """The winner sweeps the trick into a pile and off the table at their edge:
        ``removed`` for each card (in the order played), then ``cleared``. With ``leave`` the
        pile, squared under the last card played, stays on the table at the winner's edge
        while the next trick starts; ``carry_off()`` takes it later, with those events."""
        taken = list(self.cards)
        self.cards = []
        pile = self.spot(winner, offset=(0.72 if leave else -0.3) * self.card_long)
        grip = self._grip(winner, pile)
        start = self._outside(winner, grip)
        self._move_hand(winner, start, grip, self.reach_frames, taken, [c.centre for c in taken],
                        [c.centre for c in taken])
        if leave:
            # squared as a player squares a trick: each card within a few degrees of the top one
            top = taken[-1].angle if taken else 0.0
            taken = [replace(c, angle=top + 2.0 * (k % 3 - 1)) for k, c in enumerate(taken)]
        self._move_hand(winner, grip, grip, frames, taken, [c.centre for c in taken], [pile] * len(taken))
        if leave:
            self.pile, self.pile_seat = [replace(c, centre=pile) for c in taken], winner
            self._move_hand(winner, grip, start, self.withdraw_frames)
            return self
        off = (start[0] - grip[0], start[1] - grip[1])
        gone = (pile[0] + off[0], pile[1] + off[1])
        self._move_hand(winner, grip, start, self.withdraw_frames + 4, taken, [pile] * len(taken), [gone] * len(taken))
        for c in taken:
            self.events.append(TruthEvent(self.frame, "removed", c.seat, c.card, c.face_up))
        if taken:
            self.events.append(TruthEvent(self.frame, "cleared", None, None, False))
        return self

    def carry_off(self) -> "SequenceBuilder":
        """The winner takes the pile that ``gather(leave=True)`` left off the table: ``removed``
        for each of its cards (in the order played), and ``cleared`` if no other card lies there."""
        taken, seat = self.pile, self.pile_seat if self.pile_seat is not None else 0
        self.pile, self.pile_seat = [], None
        if not taken:
            return self
        centre = taken[-1].centre
        grip = self._grip(seat, centre)
        start = self._outside(seat, grip)
        self._move_hand(seat, start, grip, self.reach_frames, taken, [centre] * len(taken), [centre] * len(taken))
        off = (start[0] - grip[0], start[1] - grip[1])
        gone = (centre[0] + off[0], centre[1] + off[1])
        self._move_hand(seat, grip, start, self.withdraw_frames + 4, taken, [centre] * len(taken), [gone] * len(taken))
        for c in taken:
            self.events.append(TruthEvent(self.frame, "removed", c.seat, c.card, c.face_up))
        if not self.cards:
            self.events.append(TruthEvent(self.frame, "cleared", None, None, False))
        return self

    def build(self) -> TableSequence:
        return TableSequence(self.name, self.deck_id, self.size, self.fps, self.seed, self.table, self.stress,
                             list(self.shots), list(self.events), self.marker_centres, self.marker_px,
                             self.card_scale)


# -- the camera ------------------------------------------------------------------------------------
@dataclass
class CameraModel:
    """One camera for a whole video: the same tilt, light, colour, glare and blur every frame (so an
    unchanged table really is unchanged), and fresh sensor noise per frame."""

    size: tuple[int, int]
    tilt: np.ndarray | None = None            # 3x3 homography ideal -> image
    light: np.ndarray | None = None           # (h, w, 1) float gain
    gains: np.ndarray = field(default_factory=lambda: np.ones(3, np.float32))
    glare: np.ndarray | None = None           # (h, w, 1) additive
    blur: float = 0.0
    noise: float = 2.0
    jpeg: int = 100

    @classmethod
    def from_stress(cls, size: tuple[int, int], stress, seed: int) -> "CameraModel":
        if stress is None:
            return cls(size)
        rng = np.random.default_rng(seed + 7919)
        w, h = size
        tilt = None
        if getattr(stress, "tilt", 0) > 0:
            j = stress.tilt * min(size) * 0.35
            src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
            tilt = cv2.getPerspectiveTransform(src, src + rng.uniform(-j, j, (4, 2)).astype(np.float32))
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        a = rng.uniform(0, 2 * np.pi)
        g = np.cos(a) * (xx / w - 0.5) + np.sin(a) * (yy / h - 0.5)
        light = 1.0 + rng.uniform(0, stress.light) * g * 1.6
        light *= 1.0 - rng.uniform(0, stress.light * 0.5) * (((xx / w - 0.5) ** 2 + (yy / h - 0.5) ** 2) * 2)
        gains = 1.0 + rng.uniform(-stress.white_balance, stress.white_balance, 3).astype(np.float32)
        glare = None
        if stress.glare > 0:
            c = (rng.uniform(0, w), rng.uniform(0, h))
            s = rng.uniform(0.03, 0.10) * min(w, h)
            glare = (255 * rng.uniform(0.2, stress.glare) *
                     np.exp(-(((xx - c[0]) ** 2 + (yy - c[1]) ** 2) / (2 * s * s))))[..., None].astype(np.float32)
        return cls(size, tilt, light[..., None].astype(np.float32), gains, glare,
                   float(rng.uniform(0.3, stress.blur)) if stress.blur > 0 else 0.0,
                   max(1.0, float(stress.noise) * 0.5), int(rng.integers(max(stress.jpeg, 70), 96)))

    def warp_points(self, pts: np.ndarray) -> np.ndarray:
        if self.tilt is None:
            return np.asarray(pts, np.float32)
        return cv2.perspectiveTransform(np.asarray(pts, np.float32).reshape(-1, 1, 2), self.tilt).reshape(-1, 2)

    def optics(self, ideal_bgr: np.ndarray) -> np.ndarray:
        """Everything but the noise (cacheable per distinct scene)."""
        img = ideal_bgr.astype(np.float32)
        if self.tilt is not None:
            img = cv2.warpPerspective(img, self.tilt, self.size, borderMode=cv2.BORDER_REFLECT)
        if self.light is not None:
            img = img * self.light
        img = img * self.gains
        if self.glare is not None:
            img = img + self.glare
        if self.blur > 0:
            img = cv2.GaussianBlur(img, (0, 0), self.blur)
        return img

    def expose(self, optics: np.ndarray, frame: int, seed: int) -> np.ndarray:
        if not hasattr(self, "_noise"):
            # a small bank of noise fields, picked and shifted per frame: fresh-looking and cheap
            rng = np.random.default_rng(seed + 104729)
            self._noise = [rng.standard_normal(optics.shape[:2] + (1,), np.float32) * self.noise for _ in range(4)]
        k = (frame * 2654435761 + seed) & 0xFFFFFFFF
        noise = np.roll(self._noise[k % 4], (k >> 8) % optics.shape[0], axis=0)
        img = np.clip(optics + noise, 0, 255).astype(np.uint8)
        if self.jpeg < 100:
            ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, self.jpeg])
            img = cv2.imdecode(buf, cv2.IMREAD_COLOR)
        return img


# -- rendering -------------------------------------------------------------------------------------
@lru_cache(maxsize=8)
def _profile(deck_id: str):
    from vision.synthetic import synthetic_profile   # Vision I
    return synthetic_profile(deck_id)


@dataclass(frozen=True)
class FrameTruth:
    """Cards visible in a rendered frame (image coordinates), for tests and oracles."""

    card: str | None
    face_up: bool
    quad: np.ndarray
    visible_fraction: float
    seat: int | None


def render_frames(seq: TableSequence, profile=None, *, start: int = 0,
                  stop: int | None = None) -> Iterator[tuple[np.ndarray, list[FrameTruth]]]:
    """(image, truth) per frame. Distinct scenes are rendered once; repeated ones get new noise."""
    from vision.synthetic.render import HandOptions, Placement, render_scene   # Vision I

    profile = profile or _profile(seq.deck_id)
    cam = CameraModel.from_stress(seq.size, seq.stress, seq.seed)
    # markers live on the table: drawn on the ideal image, then photographed with it
    last_key, optics, truth = None, None, []
    for i in range(start, len(seq.shots) if stop is None else min(stop, len(seq.shots))):
        shot = seq.shots[i]
        key = (shot.cards, shot.hand_tip, shot.sleeve)     # light, shadow and a knock are applied per frame
        if key != last_key:
            placements = [Placement(c.card, c.centre, c.angle, c.face_up, seq.card_scale) for c in shot.cards]
            hand = None if shot.hand_tip is None else HandOptions(shot.hand_tip, width=0.42 * 0.30 * min(seq.size) * seq.card_scale / 0.7)
            scene = render_scene(profile, placements, size=seq.size, table=seq.table, seed=seq.seed, hand=hand)
            ideal = paste_markers(scene.image, seq.marker_centres, seq.marker_px)
            if shot.sleeve is not None:
                ideal = _sleeve_over(ideal, seq.marker_centres[shot.sleeve], seq.marker_px)
            optics = cam.optics(ideal)
            truth = [FrameTruth(t.card, t.face_up, cam.warp_points(t.quad), t.visible_fraction, c.seat)
                     for t, c in zip(scene.truth, shot.cards)]
            last_key = key
        image = cam.expose(_lit(optics, shot, seq.size, seq.seed), i, seq.seed)
        if shot.camera != (0.0, 0.0, 0.0):
            m = _knock(seq.size, shot.camera)
            image = cv2.warpAffine(image, m, seq.size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
            yield image, [replace(t, quad=cv2.transform(t.quad.reshape(-1, 1, 2), m).reshape(-1, 2)) for t in truth]
        else:
            yield image, truth


def _knock(size: tuple[int, int], camera: tuple[float, float, float]) -> np.ndarray:
    """The 2x3 map of a knocked camera's picture: turned about the centre, then shifted."""
    m = cv2.getRotationMatrix2D((size[0] / 2, size[1] / 2), camera[2], 1.0)
    m[:, 2] += camera[:2]
    return m


def _sleeve_over(ideal: np.ndarray, centre: np.ndarray, marker_px: int) -> np.ndarray:
    """A dark sleeve over a table marker, reaching in from the picture's edge beyond it."""
    out = ideal.copy()
    h, w = out.shape[:2]
    toward_edge = np.float32([-1 if centre[0] < w / 2 else 1, -1 if centre[1] < h / 2 else 1])
    c = np.asarray(centre, np.float32) + 0.5 * marker_px * toward_edge
    axes = (int(1.3 * marker_px), int(0.9 * marker_px))
    cv2.ellipse(out, (int(c[0]), int(c[1])), axes, 45.0 * toward_edge[0] * toward_edge[1], 0, 360,
                (70, 45, 40), -1, cv2.LINE_AA)
    return out


def _lit(optics: np.ndarray, shot: Shot, size: tuple[int, int], seed: int) -> np.ndarray:
    """The scene under this frame's light: exposure, a lamp to one side, an arm's shadow."""
    if shot.exposure == 1.0 and shot.lamp == 0.0 and shot.shadow is None:
        return optics
    gain = _light_field(size, seed, shot.lamp) * shot.exposure
    if shot.shadow is not None:
        gain = gain * _shadow_field(size, shot.shadow)
    return optics * gain[..., None]


@lru_cache(maxsize=4)
def _lamp_shape(size: tuple[int, int], seed: int) -> np.ndarray:
    w, h = size
    rng = np.random.default_rng(seed + 31337)
    cx, cy = rng.uniform(-0.3, 1.3) * w, rng.choice([-0.4, 1.4]) * h
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    return np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * (0.9 * w) ** 2)).astype(np.float32)


def _light_field(size, seed, lamp: float) -> np.ndarray:
    return 1.0 + 0.4 * lamp * _lamp_shape(tuple(size), seed)


def _shadow_field(size, centre) -> np.ndarray:
    """A soft elongated shadow (an arm seen from above, lit from the side): 45 % darker at its core."""
    w, h = size
    r = 0.14 * min(w, h)
    sigma = 0.35 * r
    m = np.zeros((h, w), np.float32)
    c = (int(centre[0]), int(centre[1]))
    cv2.ellipse(m, c, (int(1.8 * r), int(0.7 * r)), 30.0, 0, 360, 1.0, -1)
    # blurred around the ellipse only: beyond its reach plus the kernel's (OpenCV: 4 sigma) the
    # mask is 0 either way, and at the picture's edge the border is the same
    reach = int(1.8 * r + 4 * sigma) + 2
    x0, y0 = max(0, c[0] - reach), max(0, c[1] - reach)
    x1, y1 = min(w, c[0] + reach + 1), min(h, c[1] + reach + 1)
    if x1 > x0 and y1 > y0:
        m[y0:y1, x0:x1] = cv2.GaussianBlur(m[y0:y1, x0:x1], (0, 0), sigma)
    return 1.0 - 0.45 * m


def sequence_frames(seq: TableSequence, profile=None) -> Iterator[np.ndarray]:
    for image, _ in render_frames(seq, profile):
        yield image


def write_sequence(seq: TableSequence, path: str | Path, profile=None) -> Path:
    """Write the frames as a video (``.avi``: MJPG, ``.mp4``: mp4v) or, for any other path, a folder
    of ``frame_00000.jpg`` images (quality 95: PNG of noisy frames is slow and huge); the ground
    truth goes beside it as ``<path>.truth.jsonl`` and the table as ``<path>.table.toml``."""
    path = Path(path)
    if path.suffix.lower() in (".avi", ".mp4"):
        fourcc = cv2.VideoWriter_fourcc(*("MJPG" if path.suffix.lower() == ".avi" else "mp4v"))
        writer = cv2.VideoWriter(str(path), fourcc, seq.fps, seq.size)
        if not writer.isOpened():
            raise OSError(f"{path}: cannot write a video here")
        try:
            for image in sequence_frames(seq, profile):
                writer.write(image)
        finally:
            writer.release()
    else:
        path.mkdir(parents=True, exist_ok=True)
        for i, image in enumerate(sequence_frames(seq, profile)):
            cv2.imwrite(str(path / f"frame_{i:05d}.jpg"), image, [cv2.IMWRITE_JPEG_QUALITY, 95])
    truth = path.parent / (path.name + ".truth.jsonl")
    truth.write_text("".join(json.dumps(e.__dict__) + "\n" for e in seq.events))
    (path.parent / (path.name + ".table.toml")).write_text(seq.table_config_toml())
    return path


def deal_sequence(deck_id: str, cards: Seq[str], *, size=(640, 360), seed: int = 0, stress=None,
                  table: str = "plain", pile: bool = True, take_back: Seq[int] = (),
                  card_scale: float = 1.0, gap: int = 10, jitter: float = 0.5) -> TableSequence:
    """Enrolment from the camera: ``cards`` (``"back"`` = face down) dealt face up one at a time
    into the middle of the view, onto a pile or (``pile=False``) each taken away before the next.
    After the k-th card for each k in ``take_back`` the person takes it off again and deals it
    once more (a mistake undone). Cards lie within 2 * ``jitter`` degrees of square (a pile
    squared up as it is dealt). Events: ``placed`` per deal, ``removed`` per card taken off."""
    b = SequenceBuilder(deck_id, name="deal", size=size, seed=seed, table=table, stress=stress,
                        card_scale=card_scale)
    w, h = b.size
    b.idle(gap)
    for k, card in enumerate(cards):
        up = card != "back"
        b.play(0, card if up else None, face_up=up, at=(w / 2, h / 2), angle=0.0, jitter=jitter)
        b.idle(gap)
        if k in take_back:
            b.take(-1)
            b.idle(gap)
            b.play(0, card if up else None, face_up=up, at=(w / 2, h / 2), angle=0.0, jitter=jitter)
            b.idle(gap)
        if not pile:
            b.take(-1)
            b.idle(gap)
    return b.build()


# -- named sequences -------------------------------------------------------------------------------
def trick(b: SequenceBuilder, plays: Seq[tuple[int, str | None]], winner: int, *, gap: int = 14,
          face_up: bool = True) -> SequenceBuilder:
    b.idle(gap)
    for seat, card in plays:
        b.play(seat, card, face_up=face_up and card is not None)
        b.idle(gap)
    b.gather(winner)
    return b.idle(gap)


def deck_tricks(deck_id: str, tricks: int = 2, *, size=(1280, 720), seed: int = 0, stress=None,
                table: str = "plain", cards: Seq[str] | None = None) -> TableSequence:
    """``tricks`` tricks of four cards drawn at random from ``deck_id`` (no card twice), each
    led by the previous winner, each gathered: every deck's faces through the live table.
    ``cards``: draw from these only (a profile enrolled from photos may lack a few)."""
    from vision.decks import cards_of

    rng = np.random.default_rng(seed)
    deck = [c for c in (cards if cards is not None else cards_of(deck_id)) if c != "back"]
    drawn = [deck[i] for i in rng.permutation(len(deck))[:4 * tricks]]
    b = SequenceBuilder(deck_id, name=f"{deck_id}-tricks", size=size, seed=seed, stress=stress, table=table)
    lead = int(rng.integers(0, 4))
    for t in range(tricks):
        seats = [(lead + k) % 4 for k in range(4)]
        lead = int(rng.integers(0, 4))
        trick(b, list(zip(seats, drawn[4 * t:4 * t + 4])), winner=lead, gap=12)
    return b.build()


def named_sequence(name: str, *, size=(1280, 720), seed: int = 0, stress=None, table: str = "plain") -> TableSequence:
    """``trick``: one trick of four; ``match``: three tricks with waves, a resting hand, a slide and
    overlap; ``hands``: hand motion only (no events); ``busy``: two cards, then hands waving and
    resting over them (no more events); ``overlap``; ``facedown``. Hard real-table events:
    ``lamp`` (a lamp on and off, auto-exposure drifting), ``shadow`` (arms' shadows, a player
    leaning over), ``nudge`` (placed cards nudged), ``stacked`` (each card partly over the last),
    ``knock`` (the camera knocked, a sleeve over a corner marker), ``turned`` (a face-down card
    turned over where it lies: no event), ``restack`` (a card dropped on the spot of the one
    before, turned a little), ``pileup`` (a trick gathered into a pile that stays at the
    winner's edge while the next trick starts)."""
    b = SequenceBuilder(name=name, size=size, seed=seed, stress=stress, table=table)
    if name in ("trick", "demo"):
        trick(b, [(0, "hearts/7"), (1, "hearts/king"), (2, "spades/ace"), (3, "hearts/10")], winner=2)
    elif name == "match":
        trick(b, [(1, "clubs/8"), (2, "clubs/ace"), (3, "clubs/9"), (0, "diamonds/queen")], winner=2)
        b.wave(3)
        b.idle(6)
        b.play(2, "spades/7")
        b.idle(10)
        b.rest(0, b.spot(0, along=-0.6 * b.card_long), frames=25)
        b.idle(10)
        b.play(3, "spades/king")
        b.idle(12)
        b.slide(1, b.spot(3, offset=-0.15 * b.card_long, along=0.25 * b.card_long))
        b.idle(12)
        b.play(0, "spades/8", at=b.spot(0, offset=-0.45 * b.card_long, along=0.3 * b.card_long))
        b.idle(12)
        b.play(1, "hearts/9")
        b.idle(14)
        b.gather(3)
        b.idle(14)
        trick(b, [(3, "diamonds/7"), (0, "diamonds/ace"), (1, "diamonds/8"), (2, "diamonds/jack")], winner=0)
    elif name == "hands":
        b.idle(10)
        for k in range(6):
            b.wave(k % 4, across=0.45 + 0.1 * (k % 3))
            b.idle(4)
            b.rest((k + 1) % 4, b.spot((k + 1) % 4, along=0.3 * b.card_long), frames=12)
        b.idle(10)
    elif name == "busy":
        # two cards lie on the table while hands wave and rest over them, even on them
        b.idle(10)
        b.play(0, "hearts/7").idle(12).play(1, "clubs/9").idle(12)
        for k in range(4):
            b.wave((k + 2) % 4, across=0.5 + 0.1 * (k % 2))
            b.idle(3)
            b.rest((k + 3) % 4, b.spot(k % 2), frames=14)     # a hand resting on a played card
            b.idle(4)
        b.idle(12)
    elif name == "overlap":
        b.idle(12)
        w, h = b.size
        L = b.card_long
        b.play(0, "hearts/7", at=(w / 2 + 0.35 * L, h / 2 + 0.8 * L))
        b.idle(14)
        # seat 1's card lies over a corner of seat 0's, its centre still in seat 1's triangle
        b.play(1, "hearts/8", at=(w / 2 + 0.97 * L, h / 2 + 0.42 * L))
        b.idle(14)
        b.gather(1)
        b.idle(14)
    elif name == "facedown":
        trick(b, [(0, None), (1, "clubs/jack"), (2, None)], winner=1)
    elif name == "lamp":
        # a lamp goes on mid-trick and the camera's exposure drifts back; later it goes off again
        b.idle(12)
        b.play(0, "hearts/7").idle(12).play(1, "clubs/king").idle(6)
        b.switch_lamp(True)
        b.play(2, "spades/ace").idle(12).play(3, "diamonds/10").idle(14)
        b.gather(2).idle(12)
        b.play(2, "clubs/7").idle(8)
        b.switch_lamp(False)
        b.play(3, "hearts/queen").idle(14)
        b.gather(3).idle(14)
    elif name == "shadow":
        # hands cast an arm's shadow over the table; a player leans over the played cards
        b.shadow_offset = (0.5 * b.card_long, 0.35 * b.card_long)
        trick(b, [(0, "clubs/10"), (1, "hearts/jack")], winner=1, gap=12)
        b.play(2, "diamonds/9").idle(10)
        b.lean(3, b.spot(0, along=0.2 * b.card_long), frames=30)
        b.idle(10)
        b.play(3, "spades/queen").idle(14)
        b.gather(2).idle(14)
    elif name == "nudge":
        # cards nudged after they were placed: the same cards, no new events
        b.idle(12)
        b.play(0, "spades/10").idle(12).play(1, "diamonds/king").idle(12)
        x, y = b.cards[0].centre
        b.slide(0, (x + 0.22 * b.card_long, y - 0.08 * b.card_long), frames=6).idle(12)
        b.play(2, "clubs/queen").idle(12)
        x, y = b.cards[1].centre
        b.slide(1, (x - 0.1 * b.card_long, y + 0.2 * b.card_long), frames=6).idle(12)
        b.play(3, "hearts/8").idle(14)
        b.gather(0).idle(14)
    elif name == "stacked":
        # each card dropped partly over the card played before it
        L = b.card_long
        b.idle(12)
        b.play(0, "diamonds/7", at=b.spot(0, offset=-0.3 * L, along=0.1 * L)).idle(12)
        b.play(1, "spades/jack", at=b.spot(1, offset=-0.35 * L, along=0.25 * L)).idle(12)
        b.play(2, "hearts/ace", at=b.spot(2, offset=-0.35 * L, along=-0.1 * L)).idle(12)
        b.play(3, "clubs/8", at=b.spot(3, offset=-0.35 * L, along=-0.2 * L)).idle(14)
        b.gather(1).idle(14)
    elif name == "knock":
        # the camera is knocked twice mid-trick (shift and a slight turn); a sleeve lies over a corner
        # marker while a card is played, and the camera is knocked again while it lies there
        b.idle(12)
        b.play(0, "hearts/9").idle(12).play(1, "clubs/jack").idle(8)
        b.knock_camera(8.0, -6.0, 0.8).idle(20)
        b.play(2, "diamonds/ace").idle(12)
        b.cover_marker(1).idle(6)
        b.play(3, "spades/8").idle(10)
        b.knock_camera(-5.0, 7.0, -0.5).idle(20)
        b.cover_marker(None).idle(8)
        b.gather(3).idle(14)
    elif name == "turned":
        # Truco: a card played face down, later turned over where it lies by its owner
        b.idle(12)
        b.play(0, "hearts/7").idle(12).play(1, None, face_up=False).idle(12).play(2, "clubs/queen").idle(12)
        b.turn_over(1, "spades/9").idle(14).play(3, "diamonds/8").idle(14)
    elif name == "restack":
        # a seat's second card dropped on the spot of its first, turned a little (a seat that
        # plays twice in a row, as Troccas has it): the first card's centre and size again
        L = b.card_long
        b.idle(12)
        b.play(2, "clubs/9", angle=20.0, jitter=0.0).idle(12)
        x, y = b.cards[-1].centre
        b.play(2, "hearts/queen", at=(x + 0.03 * L, y + 0.08 * L), angle=4.0, jitter=0.0).idle(12)
        b.play(3, "diamonds/8").idle(14)
        b.gather(2).idle(14)
    elif name == "pileup":
        # the trick is gathered into a pile at the winner's edge and the next trick starts before
        # the pile leaves: the winner leads, the next seat plays, then the pile is taken away
        L = b.card_long
        b.idle(12)
        for seat, card in ((1, "spades/9"), (2, "hearts/jack"), (3, "clubs/ace"), (0, "diamonds/queen")):
            b.play(seat, card).idle(12)
        b.gather(2, leave=True).idle(12)
        b.play(2, "clubs/10", at=b.spot(2, offset=-0.3 * L)).idle(12)
        b.play(3, "hearts/8").idle(10)
        b.carry_off().idle(12)
        b.play(0, "spades/king").idle(12).play(1, "diamonds/7").idle(14)
        b.gather(0).idle(14)
    else:
        raise KeyError(f"unknown synthetic sequence {name!r} (trick, match, hands, busy, overlap, facedown, "
                       "lamp, shadow, nudge, stacked, knock, turned, restack, pileup)")
    return b.build()
