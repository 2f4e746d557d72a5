"""Tracking: from frames to trustworthy card events ("seat 2 played hearts/king").

:class:`TableWatcher` is the whole live pipeline for one frame at a time; the controller owns the
loop and calls :meth:`TableWatcher.process` per frame. The recogniser is asked on one worker thread
(:mod:`vision.look_worker`), started a few frames before the answer is due. The rules it keeps:

* **Cheap first.** :class:`~vision.change.ChangeDetector` looks at every frame; the recogniser
  runs only on changed regions that have been *settled* (nothing moved in them) for
  ``still_frames`` frames, and only once per settling: started ``look_ahead`` frames early on
  the worker, its answer taken when the window ends if nothing moved or changed meanwhile (else
  it is asked again then), so events keep their frames and order.
* **New cards are found from the empty table.** The watcher keeps the table as it was empty
  and as it last settled (quarter size, colour; both follow changes of light, never a card or
  a hand); a new card is the card-shaped part of the settled change, the change from the
  settled table isolating a card dropped over another. The recogniser only names it
  (``read_quad``), so this works on light, white and patterned cloths alike; a recogniser
  without ``read_quad`` finds cards itself (the stills finder) in the changed region.
* **A card is placed only when still**, then attributed to the seat whose zone holds its centre
  and identified among the game's candidates (cards not played yet this deal, plus the cards
  already on the table so they are recognised when touched again).
* **Hands never make events.** Moving pixels never settle; a still region the recogniser cannot
  explain with card quads (a resting hand, an arm, a sleeve) is *deferred*: no event until it
  changes again. A long-still unexplained region becomes the new reference (lighting drift, a
  glass), which is safe because the recogniser always looks at the real frame.
* **Never guess.** A face-up card that stays unidentified for ``confirm_attempts`` evaluations
  becomes ``needs_confirmation`` (card null), and is tracked so it is not reported twice.
* **The calibrated view is kept.** A knocked camera is re-registered from the table markers
  (:mod:`vision.registration`) before the frame reaches the change detector; until it is, the
  watcher sees the last good frame, so the move itself is no event.
* **Removal needs a quiet table.** A known card no longer found where it was is *missing*; it may
  reappear elsewhere (slid, stacked) in the next region to settle. Missing cards become
  ``removed`` only once nothing on the table moves, and when the last card goes ``cleared``.
"""
from __future__ import annotations

import itertools
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Callable, Collection, Iterator, Protocol, Sequence, TypeVar

import cv2
import numpy as np

from vision.calibration import Calibration
from vision.change import ChangeDetector, Region, light_changed, light_field, relit
from vision.finder import as_grey, refine_quad
from vision.geometry import inside, order_quad, quad_sides, warp_to
from vision.look_worker import LookWorker
from vision.registration import Registration

EVENTS = ("placed", "removed", "needs_confirmation", "cleared")
# A face whose centre lies within this many card widths of a known face-down card's is that card
# turned over where it lies (the same tolerance _new_quads uses for "the same place").
TURNED_SPOT = 0.2
MODEL_FACTOR = 4     # the empty / settled table models are kept at 1/4 size (a card ~25 px across)
DIFF_LEVEL = 16      # colour difference (max over B, G, R; 0-255) of a card from the table under it:
#   above sensor noise at 1/4 size (~1), below a white card on the light table (~40)
UNKNOWN_SIZE = (0.2, 6.0)   # card area over the calibration's guess, before any card is seen: the
#   default table guess was ~0.29x the rendered cards' area (960x540 trick, no --table)
SPECK = 0.2          # a changed region smaller than this share of a card, within a box smaller than a
#   card, holds no new card. Not by its changed area alone: a real ace of clubs on the light table
#   under the stress camera changed only its pip and indices, ~0.19 of a card spread over a card's
#   box (bench/vision_live.py --faces real, pileup/light/stress: its one miss, now placed)
REGION_JOIN = 0.5    # of a card's short side: changed patches closer than this are one region. A
#   card barely lighter than a light table changes only where it is printed: the gap between
#   its pip columns is ~45 % of its width; split, one half settled and was judged empty before
#   the other was still (a real 4 of hearts, bench/vision_live.py --faces real --quick)
TOUCHED = 0.25       # share of a known card's visible area that changed: it moved (or went)
# Set by hand with Vision II's rendered sequences (bench/vision_live.py), not measured one by one:
ROI_PADS = (0.5, 0.3, 0.8, 0.4)   # context around a region per look (card long sides), each retry another
CUT_MARGIN = 2.0     # pixels: a quad this near the look's edge is cut by it (a neighbour half inside)
SAME_SPOT = 0.5      # card long sides: a back or an unread face this near a known card is that card
COVERED = 0.5        # a known card not seen, with less of it under the cards seen, is missing
SAME_QUAD = 0.3      # card short sides: quads with centres this near are one card
SAME_LENGTH = 0.15   # card short sides: a quad whose long side is this near a known card's is that card
SIZE_RANGE = (0.6, 1.6)    # area of a card-shaped blob over a card's, once the card size is known
SHAPE_RANGE = (0.7, 1.4)   # its side ratio over the deck's
SOLID = 0.75         # share of its least rectangle a card-shaped blob fills
SIZE_CONFIDENCE = 0.5      # a card named at least this surely teaches the card size
LOOK_AHEAD = 3       # frames before a region's still window ends that its look starts on the worker:
#   naming takes ~15 ms median on one x86 core (bench/vision_live.py), ~3-4x that on a Pi 4; the
#   3 frames at 30 fps (100 ms) cover that. Its p99 (47 ms x86, a last look with the stills
#   finder) does not fit on a Pi: there the frame loop waits for those rare looks. A design
#   choice, not tuned on a Pi (none here); up to still_frames - 1 is allowed

T = TypeVar("T")


@dataclass(frozen=True)
class CardEvent:
    """One thing that happened on the table (CONTRACT §4 ``track`` line)."""

    frame: int
    event: str           # "placed" | "removed" | "needs_confirmation" | "cleared"
    seat: int | None
    card: str | None
    face_up: bool
    confidence: float
    # Where the card lay in the frame that produced the event (image pixels, 4 x 2), for the
    # controller's evidence store ("what the camera saw"); not part of the CONTRACT §4 line.
    quad: np.ndarray | None = field(default=None, compare=False, repr=False)
    # The evidence picture's name, set at the edge that saved it (None: no picture).
    evidence: str | None = field(default=None, compare=False)

    def to_json(self) -> dict:
        out = {"frame": self.frame, "event": self.event, "seat": self.seat, "card": self.card,
               "face_up": self.face_up, "confidence": round(float(self.confidence), 4)}
        if self.evidence is not None:       # only when asked for (``track --evidence DIR``)
            out["evidence"] = self.evidence
        return out


class DetectionLike(Protocol):
    quad: np.ndarray
    card: str | None
    face_up: bool
    confidence: float


class RecogniserLike(Protocol):
    def recognise(self, image_bgr: np.ndarray, candidates: Collection[str] | None = None,
                  roi: tuple[int, int, int, int] | None = None,
                  search: tuple[int, int, int, int] | None = None) -> Sequence[DetectionLike]: ...


@dataclass
class TrackedCard:
    """A card the watcher believes is on the table."""

    seq: int                 # placement order
    card: str | None         # None: face down, or awaiting confirmation
    face_up: bool
    seat: int | None
    quad: np.ndarray
    confidence: float
    placed_frame: int
    missing: bool = False

    @property
    def centre(self) -> np.ndarray:
        return np.asarray(self.quad, np.float32).mean(axis=0)


@dataclass
class WatcherStats:
    frames: int = 0
    recognise_calls: int = 0
    deferred: int = 0        # region evaluations put off because something unexplained was there
    absorbed: int = 0        # long-still unexplained regions accepted as the new reference
    early_looks: int = 0     # looks started before the still window ended (LOOK_AHEAD)
    early_used: int = 0      # ... whose answer still held when it ended


Candidates = Callable[[], Collection[str]] | Collection[str] | None


class TableWatcher:
    """The live pipeline for one table: ``process(frame) -> list[CardEvent]``.

    ``source`` is optional (for :meth:`run`); ``candidates`` is a callable the controller updates
    (or a fixed collection, or None for every card the recogniser knows).
    """

    def __init__(self, source, calibration: Calibration, recogniser: RecogniserLike,
                 candidates: Candidates = None, *, still_frames: int = 8, confirm_attempts: int = 3,
                 min_confidence: float = 0.0, absorb_frames: int = 150, occluder_fraction: float = 0.35,
                 change_threshold: int = 18, motion_threshold: int = 12, find_from_empty: bool = True,
                 look_ahead: int = LOOK_AHEAD) -> None:
        self.source = source
        self.calibration = calibration
        self.recogniser = recogniser
        # Build the keypoint index now (~1 s once), not on the first card the shape path
        # leaves unnamed, where it would stall the frame loop (bench/vision_live.py max).
        getattr(recogniser, "keypoints", None)
        getattr(recogniser, "corners", None)     # likewise the corner-index reader (~60 ms)
        self._candidates = candidates
        self.still_frames = max(1, int(still_frames))
        self.confirm_attempts = max(1, int(confirm_attempts))
        self.min_confidence = min_confidence
        self.absorb_frames = max(absorb_frames, self.still_frames + 1)
        self.occluder_fraction = occluder_fraction
        self.registration = Registration(calibration.background)
        self.change = ChangeDetector(calibration.image_size, table_polygon=calibration.zones.table,
                                     change_threshold=change_threshold, motion_threshold=motion_threshold)
        sh, sw = self.change.table_mask.shape
        self._evaluated_at = np.full((sh, sw), -(10 ** 9) - 1, np.int32)
        self._deferred = np.zeros((sh, sw), bool)
        self.cards: list[TrackedCard] = []
        self._seq = itertools.count()
        self._attempts: dict[tuple[int, int], int] = {}
        self._frame_no = -1
        self._started = False
        self._empty: np.ndarray | None = None
        self.stats = WatcherStats()
        self.last_events: list[CardEvent] = []
        self.last_regions: list[Region] = []
        short, long_ = calibration.card_px
        self.card_px = (short, long_)
        self._sizes: list[tuple[float, float]] = []
        self.card_long = long_
        self.card_area_small = max(4.0, short * long_ / (self.change.sx * self.change.sy))
        # the empty table and the table as last settled (see the module docstring)
        self.find_from_empty = find_from_empty and hasattr(recogniser, "read_quad")
        W, H = calibration.image_size
        self._size4 = (max(1, W // MODEL_FACTOR), max(1, H // MODEL_FACTOR))
        self._f4 = (W / self._size4[0], H / self._size4[1])
        self._empty4: np.ndarray | None = None
        self._before4: np.ndarray | None = None
        self._view: tuple[np.ndarray, np.ndarray | None] | None = None   # this frame, its correction
        self._image: np.ndarray | None = None                             # ... corrected (see _frame)
        self._cur4: np.ndarray | None = None
        self._mask4: np.ndarray | None = None
        # the recogniser's worker (look_ahead 0: asked on the caller's thread, as it was)
        self.look_ahead = max(0, min(int(look_ahead), self.still_frames - 1))
        self._worker = LookWorker() if self.look_ahead else None
        self._early: list[_EarlyLook] = []
        self._epoch = 0          # counts changes of what a look depends on (cards, models, light)

    # -- public -----------------------------------------------------------------------------------
    def candidates(self) -> Collection[str] | None:
        c = self._candidates
        if c is None:
            return None
        return c() if callable(c) else c

    def run(self) -> Iterator[CardEvent]:
        """Read the source to its end, yielding events (for ``cardtable track``; the controller
        normally owns the loop and calls :meth:`process`)."""
        if self.source is None:
            raise ValueError("TableWatcher.run needs a source")
        try:
            while True:
                frame = self.source.read()
                if frame is None:
                    if getattr(self.source, "finished", True):
                        return
                    continue
                yield from self.process(frame)
        finally:
            self.close()

    def close(self) -> None:
        """Stop the recogniser's worker (after what it is doing); the watcher may not be used after."""
        if self._worker is not None:
            self._worker.close()

    @property
    def look_cpu_ms(self) -> list[float]:
        """Thread CPU of the latest recogniser jobs on the worker (empty without one)."""
        return [] if self._worker is None else list(self._worker.cpu_ms)

    def process(self, frame) -> list[CardEvent]:
        """Take one frame (a ``Frame`` with ``index`` and ``image``, or a bare BGR array)."""
        if isinstance(frame, np.ndarray):
            self._frame_no += 1
            idx, image = self._frame_no, frame
        else:
            idx, image = int(frame.index), frame.image
            self._frame_no = idx
        self.stats.frames += 1
        # a knocked camera: back to the calibrated view (the full frame warped only when looked at)
        picture, correction = self.registration.view(image)
        self._view, self._image, self._cur4 = (picture, correction), None, None
        cd = self.change
        if not self._started:
            bg, image = self.calibration.background, self._frame()
            cd.set_reference(bg if bg is not None and bg.shape == image.shape else image)
            # the empty table: where the picture equals it, nothing is present (a card went away)
            self._empty = cd.reference.copy()
            self._empty4 = self._shrink4(bg if bg is not None and bg.shape == image.shape else image)
            self._before4 = self._empty4.copy()
            self._started = True
        moving, changed = cd.update(picture, idx, correction)
        if cd.gain is not None:            # the light changed: the models follow it
            self._epoch += 1
            self._empty = relit(self._empty, cd.gain)
            self._empty4, self._before4 = relit(self._empty4, cd.gain), relit(self._before4, cd.gain)
        self.last_events = []
        if not changed and not self._has_missing():
            self.last_regions = []
            return []
        events: list[CardEvent] = []
        regions = cd.regions(join=self._region_join()) if changed else []
        self.last_regions = regions
        pending_left = False                       # something still settling or being retried
        hidden = np.zeros_like(self._deferred)     # still, unexplained: maybe covering cards
        for region in regions:
            still_for = idx - region.last_motion
            if still_for < self.still_frames:
                pending_left = True
                if self._worker is not None and still_for == self.still_frames - self.look_ahead \
                        and self._needs_eval(region):
                    self._start_look(region)
                continue
            if self._needs_eval(region):
                outcome, new_events = self._evaluate(self._frame(), idx, region)
                events += new_events
                if outcome == "retry":
                    pending_left = True
                elif outcome == "deferred":
                    hidden |= region.mask
            elif self._deferred[region.mask].any():
                if still_for >= self.absorb_frames:
                    self._absorb(region.mask)
                    self._deferred[region.mask] = False
                    self.stats.absorbed += 1
                else:
                    hidden |= region.mask
        quiet = idx - int(cd.last_motion.max()) >= self.still_frames and not pending_left
        if quiet and self._has_missing():
            events += self._remove_missing(idx, hidden)
        self._early = [e for e in self._early if e.epoch == self._epoch]    # no longer to be taken
        self.last_events = events
        return events

    # -- internals --------------------------------------------------------------------------------
    def _needs_eval(self, region: Region) -> bool:
        """The region moved since it was last looked at (or never was)."""
        at = self._evaluated_at[region.mask]
        return bool(np.any(region.last_motion > at)) or bool(np.any(at < -(10 ** 9)))

    def _look_candidates(self) -> set[str] | None:
        """The cards a look may name: the game's candidates and the cards already on the table."""
        cands = self.candidates()
        return None if cands is None else set(cands) | {c.card for c in self.cards if c.card is not None}

    def _ask(self, job: Callable[[], T]) -> T:
        """Run a recogniser job now (on the worker when there is one: the recogniser is only
        ever used by one thread)."""
        return job() if self._worker is None else self._worker.run(job)

    def _start_look(self, region: Region) -> None:
        """Start the first look at a settling region on the worker (see LOOK_AHEAD)."""
        if self._attempts.get(self._region_key(region), 0):
            return                       # retries are asked when due
        self._early = [e for e in self._early if not (e.mask & region.mask).any()]
        cands = self._look_candidates()
        job = self._plan_look(self._frame(), region, self._roi(region, 0), cands, 0)
        if job is None:
            future: Future = Future()
            future.set_result([])
        else:
            future = self._worker.submit(job)
        self._early.append(_EarlyLook(region.mask, region.last_motion, self._epoch, cands, future))
        self.stats.early_looks += 1

    def _take_early(self, region: Region, cands, attempt: int) -> Future | None:
        """The look started early at this region, if it still answers the question asked now:
        nothing moved there since (same last motion), nothing it depends on changed."""
        for e in self._early:
            if e.last_motion == region.last_motion and (e.mask & region.mask).any():
                self._early.remove(e)
                if e.epoch == self._epoch and e.cands == cands and attempt == 0:
                    self.stats.early_used += 1
                    return e.future
                return None
        return None

    def _region_join(self) -> int:
        """Small pixels by which changed patches are grown into one region (see REGION_JOIN)."""
        return max(2, int(np.ceil(REGION_JOIN * self.card_px[0] / self.change.sx / 2)))

    def _has_missing(self) -> bool:
        return any(c.missing for c in self.cards)

    def _roi(self, region: Region, attempt: int = 0) -> tuple[int, int, int, int]:
        """The region's box with context around it (the finder needs to see card edges against the
        table); a retry looks through a different margin, so it is not the same question again."""
        W, H = self.calibration.image_size
        if attempt > 0 and attempt == self.confirm_attempts - 1:
            # last look: the whole frame (the finder judges the cloth better with all of it in view)
            return 0, 0, W, H
        x, y, w, h = region.bbox
        pad = int(ROI_PADS[attempt % len(ROI_PADS)] * self.card_long)
        x0, y0 = max(0, x - pad), max(0, y - pad)
        x1, y1 = min(W, x + w + pad), min(H, y + h + pad)
        return x0, y0, x1 - x0, y1 - y0

    def _in_region(self, region: Region, point: np.ndarray) -> bool:
        sx, sy = self.change.to_small(point)
        h, w = region.mask.shape
        xi, yi = int(np.clip(sx, 0, w - 1)), int(np.clip(sy, 0, h - 1))
        return bool(region.mask[yi, xi])

    def _cut(self, quad: np.ndarray, roi: tuple[int, int, int, int]) -> bool:
        """True for a card cut by the ROI's edge (a neighbour half inside the margin): the region's
        own card lies wholly inside by construction, and a cut outline would mislead matching."""
        x, y, w, h = roi
        W, H = self.calibration.image_size
        q = np.asarray(quad, np.float32)
        m = CUT_MARGIN
        return bool((x > 0 and q[:, 0].min() <= x + m) or (y > 0 and q[:, 1].min() <= y + m)
                    or (x + w < W and q[:, 0].max() >= x + w - 1 - m) or (y + h < H and q[:, 1].max() >= y + h - 1 - m))

    def _quad_mask(self, quads: list[np.ndarray], grow: int) -> np.ndarray:
        m = np.zeros(self.change.table_mask.shape, np.uint8)
        for q in quads:
            cv2.fillPoly(m, [np.round(self.change.to_small(q)).astype(np.int32)], 1)
        if grow:
            m = cv2.dilate(m, np.ones((2 * grow + 1, 2 * grow + 1), np.uint8))
        return m.astype(bool)

    def _evaluate(self, image: np.ndarray, idx: int, region: Region) -> tuple[str, list[CardEvent]]:
        """Look at one settled region: match what the recogniser sees against what we know."""
        zones = self.calibration.zones
        cands = self._look_candidates()
        attempt = self._attempts.get(self._region_key(region), 0)
        roi = self._roi(region, attempt)
        self.stats.recognise_calls += 1
        dets = [d for d in self._look(image, region, roi, cands, attempt)
                if zones.in_trick_area(np.asarray(d.quad).mean(axis=0))]
        self._epoch += 1       # whatever this finds, a look started before it is stale
        local = [c for c in self.cards if self._in_region(region, c.centre)]

        # is everything that changed explained by cards (seen now, or gone from where they were)?
        explained = self._quad_mask([np.asarray(d.quad) for d in dets] + [c.quad for c in local], grow=2)
        # only what is *there* can be an occluder or a missed card: a patch that changed back to the
        # empty table is a card that left (its old outline may be imprecise)
        present = cv2.absdiff(self.change.small, self._empty) > self.change.change_threshold
        changed_now = region.mask & self.change.change.astype(bool) & present
        unexplained = int(np.count_nonzero(changed_now & ~explained))
        key = self._region_key(region)
        if unexplained > self.occluder_fraction * self.card_area_small:
            if attempt + 1 < self.confirm_attempts:
                self._attempts[key] = attempt + 1       # look again next frame, another way
                return "retry", []
            self._attempts.pop(key, None)
            # known cards still in place cause no change, so only what was seen is cut out here
            seen = self._quad_mask([np.asarray(d.quad) for d in dets], grow=1)
            quad = self._card_shaped(changed_now & ~seen)
            if quad is not None:
                # something card-sized and card-shaped lies still here, but the finder missed it:
                # straighten that patch and ask the identifier; if it is not sure either, ask a
                # person rather than guess or ignore it
                centre = quad.mean(axis=0)
                seat = zones.seat_of(centre)
                card, conf, quad = self._identify_patch(image, quad, cands)
                self._evaluated_at[region.mask] = idx
                self._absorb(region.mask)
                if card is not None and card not in {c.card for c in self.cards}:
                    face_up = card != "back"
                    self.cards.append(TrackedCard(next(self._seq), card if face_up else None, face_up, seat,
                                                  quad, conf, idx))
                    return "done", [CardEvent(idx, "placed", seat, card if face_up else None, face_up, conf,
                                              quad=np.asarray(quad, np.float32))]
                self.cards.append(TrackedCard(next(self._seq), None, True, seat, quad, 0.0, idx))
                return "done", [CardEvent(idx, "needs_confirmation", seat, None, True, float(conf),
                                          quad=np.asarray(quad, np.float32))]
            self._evaluated_at[region.mask] = idx
            self._deferred[region.mask] = True
            self.stats.deferred += 1
            return "deferred", []

        events: list[CardEvent] = []
        matched: set[int] = set()
        new: list = []
        by_id = {c.card: c for c in self.cards if c.card is not None}
        turned_now: list[TrackedCard] = []
        # identified cards first (matched by id, wherever they are now), then the rest by position,
        # so an unreadable glimpse of a known card never steals another card's identity
        ordered = sorted(dets, key=lambda d: not (d.face_up and d.card is not None))
        for d in ordered:
            centre = np.asarray(d.quad, np.float32).mean(axis=0)
            known = None
            if d.face_up and d.card is not None:
                known = by_id.get(d.card)
                if known is not None and id(known) in matched:   # the same card twice: unsure
                    known, d = None, _Unsure(d)
            if known is None and d.face_up and d.card is not None:
                # a face-down card turned over where it lies (Truco: it counts 0 whatever it
                # is): this face covers the back's place, so it is that card, now seen; no play
                turned = [c for c in self.cards if id(c) not in matched and not c.face_up
                          and np.linalg.norm(c.centre - centre) < TURNED_SPOT * self.card_px[0]]
                if turned:
                    known = min(turned, key=lambda c: float(np.linalg.norm(c.centre - centre)))
                    known.card, known.face_up = d.card, True
                    turned_now.append(known)
            if known is None and not d.face_up and any(
                    np.linalg.norm(c.centre - centre) < TURNED_SPOT * self.card_px[0] for c in turned_now):
                continue        # the back as it lay before it was turned over (kept from the model)
            if known is None and not (d.face_up and d.card is not None):
                # a back, or a face we cannot read now: the known card lying there (partly
                # covered, touched), else a face-down card that was slid
                near = [c for c in self.cards if id(c) not in matched and c.face_up == d.face_up
                        and np.linalg.norm(c.centre - centre) < SAME_SPOT * self.card_long]
                if near:
                    known = min(near, key=lambda c: float(np.linalg.norm(c.centre - centre)))
                elif not d.face_up:
                    moved = [c for c in self.cards if c.missing and not c.face_up and id(c) not in matched]
                    known = moved[0] if moved else None
            if known is not None:
                matched.add(id(known))
                # a neighbour cut by the ROI's edge confirms it is there, but its outline is partial
                if (d.card is not None or not d.face_up) and not self._cut(d.quad, roi):
                    known.quad = np.asarray(d.quad, np.float32)
                known.missing = False
            elif self._in_region(region, centre) and not self._cut(d.quad, roi):
                new.append(d)

        # known cards here that were not seen: covered by another card, or missing
        seen_quads = [np.asarray(d.quad) for d in dets]
        cover = self._quad_mask(seen_quads, grow=0)
        for c in local:
            if id(c) in matched:
                continue
            own = self._quad_mask([c.quad], grow=0)
            covered = np.count_nonzero(own & cover) / max(1, np.count_nonzero(own))
            c.missing = covered < COVERED

        unsure_left = False
        new.sort(key=lambda d: (zones.seat_of(np.asarray(d.quad).mean(axis=0)) or 0))
        for d in new:
            centre = np.asarray(d.quad, np.float32).mean(axis=0)
            seat = zones.seat_of(centre)
            sure = (not d.face_up) or (d.card is not None and d.confidence >= self.min_confidence)
            if sure:
                self._add(d, seat, idx, d.card if d.face_up else None)
                events.append(CardEvent(idx, "placed", seat, d.card if d.face_up else None, bool(d.face_up),
                                        float(d.confidence), quad=np.asarray(d.quad, np.float32)))
                continue
            if attempt + 1 < self.confirm_attempts:
                unsure_left = True
                continue
            self._add(d, seat, idx, None)
            events.append(CardEvent(idx, "needs_confirmation", seat, None, True, float(d.confidence),
                                    quad=np.asarray(d.quad, np.float32)))
        if unsure_left:
            self._attempts[key] = attempt + 1
            # stays open: retried next frame; cards reported meanwhile are tracked, so not re-reported
            return "retry", events
        self._attempts.pop(key, None)
        self._evaluated_at[region.mask] = idx
        self._deferred[region.mask] = False
        self._absorb(region.mask)
        return "done", events

    def _look(self, image: np.ndarray, region: Region, roi, cands, attempt: int) -> list:
        """The cards in a settled region (the answer of the look started early, when it holds)."""
        early = self._take_early(region, cands, attempt)
        if early is not None:
            return early.result()
        job = self._plan_look(image, region, roi, cands, attempt)
        return [] if job is None else self._ask(job)

    def _plan_look(self, image: np.ndarray, region: Region, roi, cands, attempt: int) -> Callable[[], list] | None:
        """A look at a settled region in two parts: what reads or changes the watcher's models
        runs now (the new quads, from the empty table when it can); what only asks the
        recogniser is returned, to run on the worker (None: nothing there to ask about)."""
        last = attempt == self.confirm_attempts - 1
        near, card_long = self._roi(region), self.card_long
        # (the last look's finder sees the whole table; keypoints and indices are sought
        # around the region only)
        search = near if last else None

        def stills() -> list:
            return list(self.recogniser.recognise(image, candidates=cands, roi=roi, search=search))

        if not self.find_from_empty:
            return stills
        _, _, bw, bh = region.bbox_small
        if region.area_small < SPECK * self.card_area_small and bw * bh < self.card_area_small and \
                not any(self._in_region(region, c.centre) for c in self.cards):
            return None        # a speck (noise, light drifting over the threshold) holds no new card
        new, kept, present = self._new_quads(image, region)
        card_area4 = self.card_px[0] * self.card_px[1] / (self._f4[0] * self._f4[1])
        if not new and not kept and present < SPECK * card_area4:
            return None        # the region is the empty table again (a trick gathered): nothing lies there

        def from_empty() -> list:
            read = [d for d in (self.recogniser.read_quad(image, q, cands) for q in new) if d is not None]
            if (new or kept) and not (last and not any(d.card is not None or not d.face_up for d in read)):
                return self._from_empty(image, near, card_long, cands, read, kept, last)
            # The stills finder reads the region: where the table changed and settled but no
            # card-shaped difference shows (the calibration's card size a poor guess before
            # any card is seen: a table calibrated without its size, whose cards can be beyond
            # UNKNOWN_SIZE, as the demo room's were at 7.8x the guess);
            # and at the last look when the new quads explain nothing (no card named, no back).
            return stills()
        return from_empty

    def _from_empty(self, image: np.ndarray, near: tuple[int, int, int, int], card_long: float, cands,
                    read: list, kept: list, last: bool) -> list:
        """The region's cards from the empty-table model: the new quads as read, the known
        cards still lying there untouched (``near``: the region's box with context). Runs on
        the worker: reads no state the frame loop changes."""
        # a known card read elsewhere moved there (nudged): it is not also where it was
        ids = {d.card for d in read if d.face_up and d.card is not None}
        kept = [k for k in kept if not (k.card in ids or (not k.face_up and any(
            not d.face_up and np.linalg.norm(d.quad.mean(axis=0) - k.quad.mean(axis=0)) < SAME_SPOT * card_long
            for d in read)))]
        dets = kept + read
        unnamed = [d for d in read if d.face_up and d.card is None]
        if unnamed and last:
            # last look at a card the quad's reading leaves unnamed: the stills recogniser's
            # own finding and keypoints, for a named card lying there
            named = [d for d in self.recogniser.recognise(image, candidates=cands, roi=near)
                     if d.card is not None]
            for u in unnamed:
                hit = [d for d in named if inside(u.quad, np.asarray(d.quad, np.float32).mean(axis=0))]
                if hit:
                    dets[dets.index(u)] = max(hit, key=lambda d: d.confidence)
        return dets

    def _new_quads(self, image: np.ndarray, region: Region) -> tuple[list[np.ndarray], list, int]:
        """(quads of cards new or moved in ``region``, the known cards still lying untouched there,
        the region's pixels that differ from the empty table at 1/4 size).

        A new card is a card-shaped blob of the change from the table as it last settled (which
        isolates a card dropped over another), or of the difference from the empty table (a
        card moved onto a spot where it overlaps its old place)."""
        cur = self._cur4_image()
        self._follow_light(cur)
        near = cv2.resize(region.mask.astype(np.uint8), self._size4, interpolation=cv2.INTER_NEAREST)
        near = cv2.dilate(near, np.ones((5, 5), np.uint8))
        present_all = self._differs(cur, self._empty4)
        present = present_all & near
        changed = self._differs(cur, self._before4) & near
        grey = as_grey(image)
        short = self.card_px[0]
        quads: list[tuple[np.ndarray, bool]] = []     # (quad, found in the change since the table settled)
        aspect = getattr(getattr(self.recogniser, "profile", None), "aspect", None)
        for fresh, mask in ((True, changed & present), (False, present)):
            # the calibration's card size may be a default guess until cards are seen
            for q in self._card_quads(mask, self._f4, aspect=aspect, loose=UNKNOWN_SIZE):
                # the same card in both masks: refined once (the refinement moves a side a few px)
                c = q.mean(axis=0)
                if any(np.linalg.norm(o.mean(axis=0) - c) < SAME_QUAD * short for o, _ in quads):
                    continue
                quads.append((refine_quad(grey, order_quad(q)), fresh))
        # known cards that did not change where they are not covered by a new card stay known
        kept, theirs = [], []
        moved = changed.astype(np.uint8)
        for c in self.cards:
            own = self._quad_mask4([c.quad])
            if not (own & near).any():
                continue
            # the quads that show this card where it lay; not one found in the change since the
            # table settled when the card was reported before that change began: its place
            # changed since, so that is another card dropped on the same spot (or this one
            # moved), for the recogniser to name
            mine = [q for q, fresh in quads if np.linalg.norm(q.mean(axis=0) - c.centre) < TURNED_SPOT * short
                    and not (fresh and c.placed_frame < region.last_motion)]
            same = any(abs(quad_sides(q)[1] - quad_sides(order_quad(c.quad))[1]) < SAME_LENGTH * short for q in mine)
            # its part no new card covers: unchanged, so it still lies there
            visible = own & ~self._quad_mask4([q for q, _ in quads if not any(q is m for m in mine)])
            n = np.count_nonzero(visible)
            # untouched, or still there: changed only in light or shade, not back to the empty table
            if same or n == 0 or np.count_nonzero(moved[visible]) < TOUCHED * n or \
                    np.count_nonzero(present_all[visible]) > (1 - TOUCHED) * n:
                kept.append(_Seen(np.asarray(c.quad, np.float32), c.card, c.face_up, c.confidence))
                theirs += mine
        new = [q for q, _ in quads if not any(q is m for m in theirs)]
        return new, kept, int(np.count_nonzero(present))

    def _follow_light(self, cur: np.ndarray) -> None:
        """Bring both models to the current light (what the change detector's follow left).

        The two models share their light (relit together, the settled one patched from frames
        in the light it had been followed to), so the gain fitted on the table as last settled
        (closest to the frame: only the new card and a hand differ) relights both; the empty
        table is fitted by itself only where that fit explains nothing (a pile gathered)."""
        if self._mask4 is None:
            self._mask4 = cv2.resize(self.change.table_mask, self._size4, interpolation=cv2.INTER_NEAREST)
        g = as_grey(cur)
        gain = light_field(g, as_grey(self._before4), self._mask4, step=3, least=0.0)
        if gain is not None:
            if light_changed(gain, self._mask4):
                self._before4, self._empty4 = relit(self._before4, gain), relit(self._empty4, gain)
            return
        gain = light_field(g, as_grey(self._empty4), self._mask4, step=3)
        if gain is not None:
            self._empty4 = relit(self._empty4, gain)

    def _shrink4(self, image: np.ndarray) -> np.ndarray:
        return cv2.resize(image, self._size4, interpolation=cv2.INTER_AREA)

    def _frame(self) -> np.ndarray:
        """This frame in the calibrated geometry (warped once, when first needed)."""
        if self._image is None:
            picture, correction = self._view
            self._image = picture if correction is None else warp_to(picture, correction)
        return self._image

    def _cur4_image(self) -> np.ndarray:
        if self._cur4 is None:
            self._cur4 = self._shrink4(self._frame())
        return self._cur4

    def _differs(self, cur: np.ndarray, model: np.ndarray) -> np.ndarray:
        """Where ``cur`` differs from ``model`` by more than camera noise (bool, 1/4 size)."""
        d = cv2.absdiff(cur, model)
        if d.ndim == 3:
            b, g, r = cv2.split(d)
            d = cv2.max(cv2.max(b, g), r)     # numpy's max over the colour axis takes 40x as long
        return cv2.blur(d, (3, 3)) > DIFF_LEVEL

    def _quad_mask4(self, quads: list[np.ndarray]) -> np.ndarray:
        m = np.zeros(self._size4[::-1], np.uint8)
        for q in quads:
            cv2.fillPoly(m, [np.round(np.asarray(q, np.float32) / self._f4).astype(np.int32)], 1)
        return m.astype(bool)

    def _absorb(self, mask: np.ndarray) -> None:
        """This change has been handled: it is the reference now, and the table as settled."""
        self._epoch += 1
        self.change.absorb(mask)
        if self._before4 is not None and self._view is not None:
            m = cv2.resize(mask.astype(np.uint8), self._size4, interpolation=cv2.INTER_NEAREST)
            m = cv2.dilate(m, np.ones((3, 3), np.uint8)).astype(bool)
            self._before4[m] = self._cur4_image()[m]

    def _region_key(self, region: Region) -> tuple[int, int]:
        x, y, w, h = region.bbox_small
        return ((2 * x + w) // 8, (2 * y + h) // 8)

    def _card_shaped(self, mask: np.ndarray) -> np.ndarray | None:
        """The card quad (image pixels) if ``mask`` (small grid) holds one solid card-sized
        rectangle, else None."""
        quads = self._card_quads(mask, (self.change.sx, self.change.sy), top=3)
        return quads[0] if quads else None

    def _card_quads(self, mask: np.ndarray, scale: tuple[float, float], top: int = 8,
                    aspect: float | None = None, loose: tuple[float, float] = (0.25, 4.0)) -> list[np.ndarray]:
        """Solid card-sized rectangles of ``mask`` (image pixels per mask pixel: ``scale``), largest
        first; ``aspect`` long/short (default: the card size's), ``loose`` the sizes allowed while
        the card size is not known yet. Tried as is and slightly opened, so a thin bridge to a
        neighbour does not hide one."""
        expected = aspect or self.card_px[1] / self.card_px[0]
        area = self.card_px[0] * self.card_px[1] / (scale[0] * scale[1])
        m0 = mask.astype(np.uint8)
        out: list[np.ndarray] = []
        for m in (m0, cv2.morphologyEx(m0, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))):
            contours, _ = cv2.findContours(m, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
            for c in sorted(contours, key=cv2.contourArea, reverse=True)[:top]:
                (cx, cy), (w, h), ang = cv2.minAreaRect(c)
                box_area = max(w * h, 1e-6)
                short, long_ = sorted((w, h))
                ratio = (long_ / max(short, 1e-6)) / expected
                size = box_area / area
                fill = cv2.contourArea(c) / box_area
                lo, hi = SIZE_RANGE if self._size_trusted() else loose
                if lo < size < hi and SHAPE_RANGE[0] < ratio < SHAPE_RANGE[1] and fill > SOLID:
                    box = cv2.boxPoints(((cx, cy), (w, h), ang)).astype(np.float32) * np.float32(scale)
                    if not any(np.linalg.norm(o.mean(axis=0) - box.mean(axis=0)) < SAME_QUAD * short * scale[0]
                               for o in out):
                        out.append(box)
            if out:
                break
        return out

    def _identify_patch(self, image: np.ndarray, quad: np.ndarray, cands) -> tuple[str | None, float, np.ndarray]:
        """(card, confidence, refined quad) for a coarse card-shaped patch, via the recogniser's
        ``identify`` on the straightened patch; (None, 0, quad) when it cannot say."""
        identify = getattr(self.recogniser, "identify", None)
        profile = getattr(self.recogniser, "profile", None)
        if identify is None or profile is None:
            return None, 0.0, quad
        try:
            from vision.geometry import order_quad, warp_face
            try:
                from vision.finder import refine_quad   # Vision I's edge snapping, when present
                quad = refine_quad(image, order_quad(quad))
            except ImportError:
                pass
            q = order_quad(quad)
            face = warp_face(image, q, profile.face_size)
            card, conf, _margin = self._ask(lambda: identify(face, cands))
            return card, float(conf), q
        except Exception:          # a failed look is an unsure card, never a crash
            return None, 0.0, quad

    def _size_trusted(self) -> bool:
        """Card size known from cards seen, or from a measured table config (not the default)."""
        return bool(self._sizes) or self.calibration.table.source != "default"

    def _learn_card_size(self, quad: np.ndarray) -> None:
        """Cards seen tell the real card size in pixels (the table config's mm may be rough, or
        absent): a running median of the last cards placed."""
        q = np.asarray(quad, np.float32)
        sides = sorted([float(np.linalg.norm(q[1] - q[0]) + np.linalg.norm(q[3] - q[2])) / 2,
                        float(np.linalg.norm(q[2] - q[1]) + np.linalg.norm(q[0] - q[3])) / 2])
        self._sizes.append(tuple(sides))
        del self._sizes[:-9]
        short = float(np.median([s for s, _ in self._sizes]))
        long_ = float(np.median([l for _, l in self._sizes]))
        self.card_px = (short, long_)
        self.card_long = long_
        self.card_area_small = max(4.0, short * long_ / (self.change.sx * self.change.sy))

    def _add(self, d, seat: int | None, idx: int, card: str | None) -> None:
        if card is not None and d.confidence >= SIZE_CONFIDENCE:
            self._learn_card_size(d.quad)
        self.cards.append(TrackedCard(next(self._seq), card, bool(d.face_up), seat,
                                      np.asarray(d.quad, np.float32), float(d.confidence), idx))

    def _remove_missing(self, idx: int, hidden: np.ndarray) -> list[CardEvent]:
        """Missing cards are removed once the table is quiet, unless something unexplained (a
        resting hand) lies where they were: then they may just be covered."""
        gone = sorted((c for c in self.cards if c.missing and not (self._quad_mask([c.quad], 0) & hidden).any()),
                      key=lambda c: c.seq)
        gone_ids = {id(c) for c in gone}
        self._epoch += bool(gone)
        self.cards = [c for c in self.cards if id(c) not in gone_ids]
        events = [CardEvent(idx, "removed", c.seat, c.card, c.face_up, 1.0) for c in gone]
        if gone and not self.cards:
            events.append(CardEvent(idx, "cleared", None, None, False, 1.0))
        return events

    def confirm(self, seat: int | None, card: str) -> bool:
        """The referee confirmed what an unidentified card is; True if one was waiting at ``seat``."""
        for c in self.cards:
            if c.card is None and c.face_up and c.seat == seat:
                self._epoch += 1
                c.card = card
                c.confidence = 1.0
                return True
        return False


@dataclass(eq=False)
class _EarlyLook:
    """A look started on the worker before its region's still window ended."""

    mask: np.ndarray                # the region (small grid) when it was started
    last_motion: int                # ... and its last motion then: a later one makes it stale
    epoch: int                      # TableWatcher._epoch then: a change since makes it stale
    cands: set[str] | None
    future: Future


@dataclass(frozen=True)
class _Seen:
    """A known card seen lying untouched where it was (no need to read it again)."""

    quad: np.ndarray
    card: str | None
    face_up: bool
    confidence: float


class _Unsure:
    """A detection whose identity clashes with a card already matched: treated as unidentified."""

    def __init__(self, base: DetectionLike) -> None:
        self.quad = base.quad
        self.card: str | None = None
        self.face_up = True
        self.confidence = 0.0
