"""Evidence pictures: what they cost on the frame loop, and on disk per event.

Real parts: the demo's rendered table (``controller.demo.Room``: cards laid one by one, a hand
reaching in) through the real :class:`vision.tracking.TableWatcher`; every ``placed`` /
``needs_confirmation`` event's frame and quad go to :class:`controller.evidence.EvidenceStore`
in a temporary folder. Prints, per event, the milliseconds the loop spends in ``save`` with the
worker thread (what ``cardtable run`` does) and without it (crop, resize, two JPEG encodes and
two atomic writes on the loop), and the bytes written per event. ``--size`` renders bigger frames
(a Pi camera's 1280x720) by upscaling the demo's 960x540 ones.

    python bench/evidence.py [--cards 24] [--size 1280x720]
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from controller.demo import Room  # noqa: E402
from controller.evidence import EvidenceStore, KINDS  # noqa: E402
from vision.recognise import Recogniser  # noqa: E402
from vision.tracking import TableWatcher  # noqa: E402


def events_with_frames(cards: int, size: tuple[int, int] | None) -> list[tuple[np.ndarray, np.ndarray, str]]:
    """(frame, quad, kind) of each card event of a rendered 4-seat sequence."""
    room = Room("french-32", True, 4, seed=3)
    deck = [f"{s}/{r}" for s in ("hearts", "spades", "diamonds", "clubs")
            for r in ("ace", "king", "queen", "jack", "10", "9", "8", "7")]
    watcher = TableWatcher(None, room.calibration, Recogniser(room.profile), still_frames=6)
    out = []

    def feed(img: np.ndarray) -> None:
        for ev in watcher.process(img):
            if ev.event in KINDS and ev.quad is not None:
                out.append((img, ev.quad, ev.event))

    for _ in range(3):
        feed(room.frame())
    for k in range(cards):
        if k and k % 4 == 0:
            room.clear()
            for _ in range(10):
                feed(room.frame())
        seat = k % 4
        room.put(seat, deck[k % len(deck)])
        for _ in range(2):
            feed(room.with_hand(room.frame(), seat))
        for _ in range(10):
            feed(room.frame())
    if size is not None:
        W, H = room.calibration.image_size
        fx, fy = size[0] / W, size[1] / H
        out = [(cv2.resize(img, size, interpolation=cv2.INTER_LINEAR), q * np.float32([fx, fy]), kind)
               for img, q, kind in out]
    return out


def timed(store: EvidenceStore, events) -> tuple[list[float], list[float]]:
    """(wall ms, CPU ms of the calling thread) of each ``save`` call; events come frames apart
    on a table, so the worker (if any) is let finish between them, as it would. CPU time is the
    figure to trust on a loaded machine."""
    ms, cpu = [], []
    for img, quad, kind in events:
        t, c = time.perf_counter(), time.thread_time()
        store.save(img, quad, kind)
        ms.append((time.perf_counter() - t) * 1000)
        cpu.append((time.thread_time() - c) * 1000)
        store.flush()
    return ms, cpu


def folder_bytes(root: Path) -> int:
    return sum(p.stat().st_size for p in root.rglob("*.jpg"))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cards", type=int, default=24)
    ap.add_argument("--size", default="", help="WxH: upscale the frames (e.g. 1280x720)")
    args = ap.parse_args()
    size = tuple(int(v) for v in args.size.split("x")) if args.size else None
    events = events_with_frames(args.cards, size)   # type: ignore[arg-type]
    if not events:
        print("no card events: nothing to measure")
        return 1
    h, w = events[0][0].shape[:2]
    print(f"{len(events)} card events on {w}x{h} frames; load average {os.getloadavg()[0]:.2f} "
          f"on {os.cpu_count()} CPUs")
    with tempfile.TemporaryDirectory() as d:
        sync = EvidenceStore(Path(d) / "sync", threaded=False)
        timed(sync, events[:2])                     # warm-up (first encode, folder made)
        ms_sync = timed(sync, events)
        per_event = folder_bytes(Path(d) / "sync") / (len(events) + 2)
        worker = EvidenceStore(Path(d) / "worker")
        timed(worker, events[:2])
        ms_loop = timed(worker, events)
        worker.close()
        assert worker.failed == 0 and sync.failed == 0
    for label, (ms, cpu) in (("on the loop, worker thread (cardtable run)", ms_loop),
                             ("on the loop, no worker (all of it)       ", ms_sync)):
        print(f"{label}: median {statistics.median(ms):.3f} ms (CPU {statistics.median(cpu):.3f} ms), "
              f"max {max(ms):.3f} ms (CPU {max(cpu):.3f} ms) per event")
    print(f"disk: {per_event / 1024:.1f} KB per event (crop + frame); "
          f"{50 * 1024 * 1024 / per_event:.0f} events in the default 50 MB per match")
    return 0


if __name__ == "__main__":
    sys.exit(main())
