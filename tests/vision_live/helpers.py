"""Shared helpers: an oracle recogniser that answers from the renderer's ground truth, so the
tracking tests check the tracker alone; and a runner that renders a sequence through a watcher."""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass

import cv2
import numpy as np

from vision.calibration import calibrate
from vision.synthetic.sequences import TableSequence, render_frames
from vision.tracking import CardEvent, TableWatcher

cv2.setNumThreads(1)


@dataclass(frozen=True)
class Det:
    quad: np.ndarray
    card: str | None
    face_up: bool
    confidence: float
    margin: float = 0.5


class OracleRecogniser:
    """Sees exactly what the renderer drew: every card at least ~40 % visible, identified when at
    least 60 % visible (and not in ``unreadable``, and among the candidates)."""

    def __init__(self, unreadable=()) -> None:
        self.truth = []
        self.unreadable = set(unreadable)
        self.calls: list[tuple] = []
        self._shown: deque = deque(maxlen=16)     # (frame, its truth): kept alive, so ids stay unique

    def show(self, image, truth) -> None:
        """What the renderer drew in ``image``: a look started early on the watcher's worker
        thread may run after the next frame is shown, and must see its own frame's truth."""
        self.truth = truth
        self._shown.append((image, truth))

    def recognise(self, image, candidates=None, roi=None, search=None):
        self.calls.append((roi, None if candidates is None else frozenset(candidates)))
        out = []
        truth = next((t for im, t in self._shown if im is image), self.truth)
        for t in truth:
            if t.visible_fraction < 0.4:
                continue
            cx, cy = t.quad.mean(axis=0)
            if roi is not None:
                x, y, w, h = roi
                if not (x <= cx < x + w and y <= cy < y + h):
                    continue
            readable = (t.face_up and t.visible_fraction >= 0.6 and t.card not in self.unreadable
                        and (candidates is None or t.card in candidates))
            card = t.card if readable else None
            conf = 0.99 if (readable or not t.face_up) else 0.2
            out.append(Det(t.quad, card, t.face_up, conf))
        return out


def run(seq: TableSequence, recogniser=None, *, oracle: bool = True, **watcher_kw) -> tuple[list[CardEvent], TableWatcher]:
    rec = recogniser or OracleRecogniser()
    watcher = None
    events: list[CardEvent] = []
    for image, truth in render_frames(seq):
        if watcher is None:
            watcher = TableWatcher(None, calibrate(image), rec, **watcher_kw)
        if oracle:
            rec.show(image, truth)
        events += watcher.process(image)
    return events, watcher


def keys(events) -> list[tuple]:
    return [(e.event, e.seat, e.card, e.face_up) for e in events]


def assert_matches_truth(events, seq: TableSequence, still_frames: int = 8) -> None:
    assert keys(events) == [e.key() for e in seq.events]
    for got, want in zip(events, seq.events):
        # reported after the motion ended, within the still window (plus a couple of retries)
        assert want.frame - 8 <= got.frame <= want.frame + still_frames + 4, (got, want)


