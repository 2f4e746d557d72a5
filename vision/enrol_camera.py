"""Enrolment from the table camera: a sorted deck dealt face up, one card at a time, into a box.

The deck's order gives the labels, so nobody names a photo. The box is watched on a small
grey copy: once it has been still for ``STILL_FRAMES`` after something moved, and looks
different from when it was last still, the card on top is found by the real finder inside
the box, straightened and compared with the cards taken so far:

* like none of the last two: a new card, labelled with the next card of the order;
* like the last one: the same card put back or nudged (nothing happens);
* like the one before the last: the last card was taken off the pile, so it is forgotten and
  its label is the next one again (deal it again: this is how a mistake is undone).

Cards may be dealt onto a pile or each taken away before the next; an empty box is just
waiting. Every step is printed, so the person dealing can check each label as it is taken.
"""
from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Sequence

import cv2
import numpy as np

from vision.decks import cards_of, deck_cards
from vision.enrol import ASPECTS, EnrolReport, build_profile, name_to_card
from vision.errors import EnrolError, VisionError
from vision.features import TemplateBank, describe
from vision.finder import find_cards
from vision.geometry import quad_sides, warp_face
from vision.profile import FACE_W

# Thresholds measured on rendered deal videos (bench/vision_enrol_camera.py prints the figures
# they rest on): see docs/vision.md, "Enrolling from the table camera".
STILL_FRAMES = 5          # frames the box must stay still before its card is taken
LEVEL = 20                # grey levels a pixel of the shrunk box must change by to count as changed
MOTION = 0.002            # share of the box changed between two frames that is motion (a fingertip)
CHANGED = 0.004           # share changed since the box was last still that may be a new card (one pip
                          # more on a card covering 15 % of the box changes ~1 %; the same-card check
                          # below decides)
LOOK_W = 160              # width the box is shrunk to for watching
BOX_SHARE = 0.5           # without a calibration the box is the middle half of the view (each way)
MIN_CARD_SHARE = 0.03     # a card covers at least this share of the box
# The same card seen again scored >= 0.99 against its own straightened face on those videos
# (noise and a re-found quad); the next card of a sorted deck (one more pip) at most 0.84.
SAME_CARD = 0.9


@dataclass
class Step:
    """What one still moment of the box meant."""

    kind: str            # "taken" | "same" | "undone" | "empty" | "no card"
    card: str | None     # the label taken or undone
    index: int           # how many cards are taken after this step
    quad: np.ndarray | None = None
    similarity: float = -1.0   # best template score against the last two cards taken


@dataclass
class CameraEnroller:
    """Turns frames of a deal into labelled faces; see the module docstring."""

    order: Sequence[str]
    box: tuple[int, int, int, int] | None = None     # x, y, w, h; None: the middle of the view
    taken: list[tuple[str, np.ndarray]] = field(default_factory=list)
    aspect: float | None = None                        # learnt from the first card
    _prev: np.ndarray | None = None
    _settled: np.ndarray | None = None
    _still: int = 0

    @property
    def done(self) -> bool:
        return len(self.taken) >= len(self.order)

    @property
    def next_card(self) -> str | None:
        return None if self.done else self.order[len(self.taken)]

    def process(self, image: np.ndarray) -> Step | None:
        """One frame; a Step when the box has just come to rest in a new state."""
        if self.box is None:
            h, w = image.shape[:2]
            bw, bh = int(w * BOX_SHARE), int(h * BOX_SHARE)
            self.box = ((w - bw) // 2, (h - bh) // 2, bw, bh)
        look = self._look(image)
        moving = self._prev is not None and changed_share(look, self._prev) > MOTION
        self._prev = look
        self._still = 0 if moving else self._still + 1
        if self._still != STILL_FRAMES:
            return None
        if self._settled is not None and changed_share(look, self._settled) <= CHANGED:
            return None
        self._settled = look
        return self._take(image)

    def _look(self, image: np.ndarray) -> np.ndarray:
        x, y, w, h = self.box
        crop = cv2.cvtColor(image[y:y + h, x:x + w], cv2.COLOR_BGR2GRAY)
        lh = max(2, round(LOOK_W * h / max(w, 1)))
        return cv2.GaussianBlur(cv2.resize(crop, (LOOK_W, lh), interpolation=cv2.INTER_AREA), (3, 3), 0)

    def _take(self, image: np.ndarray) -> Step:
        quad = self._find(image)
        n = len(self.taken)
        if quad is None:
            return Step("empty", None, n)
        short, long = quad_sides(quad)
        if self.aspect is None:
            self.aspect = long / max(short, 1.0)
        face = warp_face(image, quad, (FACE_W, int(round(FACE_W * long / max(short, 1.0)))))
        recent = self.taken[-2:]
        best = -1.0
        if recent:
            bank = TemplateBank([str(i) for i in range(len(recent))],
                                [cv2.resize(f, (face.shape[1], face.shape[0])) for _, f in recent])
            sc = bank.scores(describe(face))
            best = float(sc.max())
            match = {int(bank.labels[i]) for i in np.flatnonzero(sc >= SAME_CARD)}
            if len(recent) - 1 in match:
                return Step("same", recent[-1][0], n, quad, best)
            if len(recent) == 2 and 0 in match:
                card, _ = self.taken.pop()
                return Step("undone", card, n - 1, quad, best)
        if self.done:
            return Step("same", None, n, quad, best)
        card = self.order[n]
        self.taken.append((card, face))
        return Step("taken", card, n + 1, quad, best)

    def _find(self, image: np.ndarray) -> np.ndarray | None:
        """The biggest whole card the finder sees in the box (centre inside it)."""
        x, y, w, h = self.box
        best = None
        for aspect in ([self.aspect] if self.aspect else ASPECTS):
            for cand in find_cards(image, aspect, self.box).candidates:
                cx, cy = cand.quad.mean(axis=0)
                area = cv2.contourArea(cand.quad)
                if not (x <= cx < x + w and y <= cy < y + h) or area < MIN_CARD_SHARE * w * h:
                    continue
                key = (cand.whole, area * cand.support)
                if best is None or key > best[0]:
                    best = (key, cand.quad)
        return None if best is None else best[1]


def changed_share(a: np.ndarray, b: np.ndarray) -> float:
    """Share of pixels of two shrunk grey boxes that differ by more than LEVEL."""
    return float((cv2.absdiff(a, b) > LEVEL).mean())


def read_order(path: str | Path, deck_id: str) -> list[str]:
    """Card ids in dealing order from a text file (one or more per line, ``#`` comments;
    ``hearts/7`` or ``hearts_7``); every bad or repeated name is listed at once."""
    try:
        text = Path(path).read_text()
    except OSError as exc:
        raise EnrolError(f"--order {path}: {exc.strerror or exc}") from None
    order, bad = [], []
    for ln, line in enumerate(text.splitlines(), 1):
        for word in line.split("#")[0].replace(",", " ").split():
            try:
                card = name_to_card(word.lower().replace("/", "_"), deck_id)
            except EnrolError:
                bad.append(f"line {ln}: {word!r} is not a card of {deck_id}")
                continue
            if card in order:
                bad.append(f"line {ln}: {card} is listed twice")
            else:
                order.append(card)
    if bad:
        raise EnrolError(f"--order {path}: " + "; ".join(bad))
    if not order:
        raise EnrolError(f"--order {path}: no card ids in it")
    return order


def deck_order(deck_id: str) -> list[str]:
    """The deck file's order (config/decks), then the back, dealt face down."""
    return list(cards_of(deck_id)) + ["back"]


def enrol_from_frames(frames: Iterable[np.ndarray], order: Sequence[str], deck_id: str, *,
                      box: tuple[int, int, int, int] | None = None,
                      on_step: Callable[[Step, CameraEnroller], None] | None = None
                      ) -> tuple[EnrolReport, CameraEnroller]:
    """Watch a deal to its end (or until every card of ``order`` is taken) and build the profile."""
    enroller = CameraEnroller(list(order), box)
    try:
        for image in frames:
            step = enroller.process(image)
            if step is not None and on_step:
                on_step(step, enroller)
            if enroller.done:
                break
    except KeyboardInterrupt:      # the person dealing stops early: keep what was taken
        pass
    if not enroller.taken:
        raise EnrolError("no card was taken: deal the cards face up into the box, one at a time, "
                         "and let each lie still for a moment")
    profile, suspect = build_profile(deck_id, enroller.taken, meta={"enrolled_from": "camera"})
    missing = [c for c in order if c not in profile.faces]
    rep = EnrolReport.of(profile, missing, len(enroller.taken), suspect)
    return rep, enroller


def box_of(calibration_path: str) -> tuple[int, int, int, int]:
    """The bounding box of a calibration's trick area (the marked box), in image pixels."""
    from vision.calibration import Calibration
    cal = Calibration.load(calibration_path)
    x, y, w, h = cv2.boundingRect(np.asarray(cal.zones.trick_area, np.float32).reshape(-1, 1, 2))
    return int(x), int(y), int(w), int(h)


def print_step(step: Step, enroller: CameraEnroller, out=None) -> None:
    """One line per step: the label taken (so the dealer can check it) and what comes next."""
    out = out or sys.stderr
    total = len(enroller.order)
    nxt = enroller.next_card
    then = f"; next: {nxt}" if nxt else "; all cards taken"
    if step.kind == "taken":
        print(f"[{step.index}/{total}] took {step.card}{then}", file=out, flush=True)
    elif step.kind == "undone":
        print(f"[{step.index}/{total}] {step.card} was taken off: deal it again{then}", file=out, flush=True)
    elif step.kind == "empty":
        print(f"[{step.index}/{total}] box empty{then}", file=out, flush=True)


def camera_main(args) -> int:
    """``cardtable enrol PROFILE --from-camera SOURCE --deck D [--order FILE] [--calibration F]``."""
    from vision.cli import print_summary
    from vision.sources import open_source
    try:
        if not args.deck:
            raise EnrolError("--from-camera needs --deck (the deck's order gives the labels)")
        if args.deck not in deck_cards():
            raise EnrolError(f"unknown deck {args.deck!r}; known decks: {', '.join(sorted(deck_cards()))}")
        order = read_order(args.order, args.deck) if args.order else deck_order(args.deck)
        box = box_of(args.calibration) if args.calibration else None
        source = open_source(args.from_camera)
    except (VisionError, OSError, ValueError) as exc:
        print(f"cardtable enrol: {exc}", file=sys.stderr)
        return 1
    print(f"deal the cards face up into the {'trick area' if box else 'middle of the view'}, one at a "
          f"time, in this order ({len(order)}; 'back' face down):", file=sys.stderr)
    for k in range(0, len(order), 8):
        print("  " + "  ".join(f"{k + i + 1}:{c}" for i, c in enumerate(order[k:k + 8])), file=sys.stderr)
    try:
        rep, _ = enrol_from_frames(_images(source, args.max_frames), order, args.deck, box=box,
                                   on_step=None if args.quiet else print_step)
        rep.profile.save(args.profile_dir)
    except (VisionError, OSError) as exc:
        print(f"cardtable enrol: {exc}", file=sys.stderr)
        return 1
    finally:
        source.close()
    print_summary(rep, args.profile_dir)
    return 0


def _images(source, max_frames: int | None) -> Iterable[np.ndarray]:
    from vision.live_cli import _frames     # the live commands' frame loop (ends, stalls, limit)
    return (f.image for f in _frames(source, [], max_frames))
