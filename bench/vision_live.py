"""Vision II figures: the live table at 1280x720 on one core (``cv2.setNumThreads(1)``).

  unchanged table   ms per frame with four cards lying still (change detection only)
  still -> placed   frames and ms from the end of the motion to the ``placed`` event, and the
                    processing time of the frame that emits it (recogniser on the settled region)
  hand motion       false events on sequences of hands waving and resting over the table, and
                    over (and on) cards already played (target 0), reported per hour of motion
  exactness         synthetic tricks (plain and stressed) through the real Vision I recogniser:
                    events equal to the ground truth, seat by seat

Run: ``python bench/vision_live.py`` (about 3-4 minutes) or ``--quick`` (about a minute).
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from vision.calibration import calibrate  # noqa: E402
from vision.recognise import Recogniser  # noqa: E402
from vision.synthetic import StressOptions, synthetic_profile  # noqa: E402
from vision.synthetic.sequences import (SequenceBuilder, TableSequence, named_sequence,  # noqa: E402
                                        render_frames)
from vision.tracking import TableWatcher  # noqa: E402

SIZE = (1280, 720)


def _pct(values: list[float], q: float) -> float:
    return float(np.percentile(values, q)) if values else float("nan")


def run_sequence(seq: TableSequence, recogniser) -> tuple[list, list[float], TableWatcher]:
    """Events, per-frame processing CPU ms, the watcher (rendering is not timed)."""
    watcher, events, times = None, [], []
    for image, _ in render_frames(seq):
        if watcher is None:
            watcher = TableWatcher(None, calibrate(image), recogniser)
        t = time.thread_time()
        ev = watcher.process(image)
        times.append((time.thread_time() - t) * 1000)   # CPU ms: the machine may be shared
        events += ev
    return events, times, watcher


def unchanged_table(recogniser, frames: int) -> dict:
    b = SequenceBuilder(size=SIZE, seed=3, table="wood")
    b.idle(10)
    for seat, card in [(0, "hearts/7"), (1, "hearts/king"), (2, "spades/ace"), (3, "hearts/10")]:
        b.play(seat, card).idle(12)
    b.idle(40)
    seq = b.build()
    watcher = None
    rendered = []
    for i, (image, _) in enumerate(render_frames(seq)):
        if watcher is None:
            watcher = TableWatcher(None, calibrate(image), recogniser)
        watcher.process(image)
        if i >= len(seq) - 40:
            rendered.append(image)
    assert len(watcher.cards) == 4, "the bench table should hold four cards"
    times, cpu = [], []
    n0 = watcher._frame_no + 1
    for k in range(frames):
        image = rendered[k % len(rendered)]          # 40 distinct noisy frames of a still table
        t, c = time.perf_counter(), time.thread_time()
        ev = watcher.process(_frame(n0 + k, image))
        cpu.append((time.thread_time() - c) * 1000)
        times.append((time.perf_counter() - t) * 1000)
        assert not ev
    return {"median_ms": statistics.median(times), "p95_ms": _pct(times, 95), "frames": frames,
            "cpu_median_ms": statistics.median(cpu), "cpu_p95_ms": _pct(cpu, 95)}


class _frame:  # noqa: N801 - a tiny stand-in for sources.Frame
    def __init__(self, index: int, image: np.ndarray) -> None:
        self.index, self.image = index, image


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true", help="fewer frames and sequences (about a minute)")
    args = p.parse_args(argv)
    cv2.setNumThreads(1)
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    rec = Recogniser(synthetic_profile("french-32"))
    print(f"Vision II live table, {SIZE[0]}x{SIZE[1]}, one core, still window 8 frames (30 fps)")

    u = unchanged_table(rec, 300 if args.quick else 1500)
    print(f"unchanged table (4 cards): median {u['median_ms']:.2f} ms/frame, p95 {u['p95_ms']:.2f} ms wall; "
          f"CPU median {u['cpu_median_ms']:.2f} ms, p95 {u['cpu_p95_ms']:.2f} ms; {u['frames']} frames "
          f"(target <= 2 ms CPU)")
    print(f"  machine load average now: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores "
          f"(wall times include waiting for a core)")

    # still -> placed, and exactness, on whole tricks
    cases = [("trick", None, "plain", 0), ("trick", StressOptions(), "wood", 1)]
    if not args.quick:
        cases += [("trick", StressOptions(), "cloth", 2), ("trick", StressOptions(), "patterned", 3),
                  ("facedown", StressOptions(), "wood", 4), ("match", None, "plain", 5)]
    lag_frames, emit_ms, exact, total, wrong = [], [], 0, 0, 0
    for name, stress, table, seed in cases:
        seq = named_sequence(name, size=SIZE, seed=seed, stress=stress, table=table)
        events, times, _ = run_sequence(seq, rec)
        got = [(e.event, e.seat, e.card, e.face_up) for e in events]
        want = [e.key() for e in seq.events]
        total += 1
        exact += got == want
        placed_truth = [e for e in seq.events if e.event == "placed"]
        placed_got = [e for e in events if e.event in ("placed", "needs_confirmation")]
        for g, t in zip(placed_got, placed_truth):
            lag_frames.append(g.frame - t.frame)
            emit_ms.append(times[g.frame])
            if g.event == "placed" and (g.card != t.card or g.seat != t.seat):
                wrong += 1
        label = f"{name}/{table}/{'stress' if stress else 'clean'}"
        status = "exact" if got == want else "DIFFERS"
        extra = "" if got == want else f"  got {got}"
        print(f"  {label:28s} {len(events):3d} events, {status}{extra}")
    print(f"exact event lists: {exact}/{total} sequences; wrong cards reported: {wrong}")
    print(f"still -> placed: median {statistics.median(lag_frames):.0f} frames after the hand left "
          f"(max {max(lag_frames)}); CPU of the emitting frame median {statistics.median(emit_ms):.1f} ms, "
          f"p99 {_pct(emit_ms, 99):.1f} ms, max {max(emit_ms):.1f} ms over {len(emit_ms)} cards "
          f"(Pi 4 targets on one x86 core: median <= 12 ms, p99 <= 30 ms)")

    # false events while hands move and rest over the table
    runs = [("hands", 0), ("busy", 1)] if args.quick else [("hands", s) for s in range(3)] + [("busy", s) for s in range(3)]
    frames = false = 0
    for name, seed in runs:
        stress = StressOptions() if seed % 2 else None
        seq = named_sequence(name, size=SIZE, seed=seed, stress=stress, table=("plain", "wood", "patterned")[seed % 3])
        events, _, _ = run_sequence(seq, rec)
        frames += len(seq)
        # "busy" places two cards first: whatever they gave, anything beyond that count is false
        expected = len(seq.events)
        false += max(0, len(events) - expected) + sum(e.event == "removed" for e in events)
    minutes = frames / 30 / 60
    print(f"hand motion: {false} false events in {frames} frames ({minutes:.1f} min at 30 fps) "
          f"= {false / (minutes / 60):.0f} per hour (target 0)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
