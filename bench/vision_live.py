"""The live table on rendered videos through the real recogniser, one core (``cv2.setNumThreads(1)``).

Per sequence (every synthetic deck; the hard real-table events: a lamp on and off with the
camera's exposure drifting, arms' shadows and a player leaning over, cards nudged after they
were placed, each card dropped partly over the last, light / lined / patterned cloths; hands
waving and resting with no card played):

  recall        placements reported with the right card (face down: as a back), of all placements
  unnamed       placements reported as ``needs_confirmation`` (not a guess, not recalled either)
  false         reported events the video does not hold (extra placements, removals of cards
                still there, a wrong card named)
  seat errors   right card, wrong seat
  lag           frames (and ms at the video's frame rate) from the end of the motion to the event
  emit CPU      CPU ms of the frame loop on the frame that emits the placement
  CPU/frame     per-frame CPU percentiles of the frame loop over all frames (rendering not timed)
  worker        CPU ms of each recogniser job on the watcher's worker thread (naming a card,
                started a few frames before the still window ends; on one core it runs in the
                gaps between frames)

and the unchanged table: ms per frame with four cards lying still (target <= 2 ms).

Run: ``python bench/vision_live.py`` (every sequence, 1280x720, 206 placements; long on a shared
machine), ``--quick`` (960x540, fewer sequences), ``--finder stills`` for the finder before the
empty table model (issue 15), ``--compare`` for both, side by side. ``--baseline REV``: the vision
package of an earlier git revision watches the same frames, each frame handed to both in turn,
and the ratios to it are printed (this machine's speed drifts by a third within minutes: a
speed-up is only seen beside its baseline).

``--faces real``: the cards in the videos are real photographs, not drawn faces: the French
deck enrolled from ../shared/realdata's deepPoker table photos (``table-*-1.jpg``, the club's
way: refused photos are left out) and the Trevigiane-pattern scans (Bresciane pack), rendered
into the same hard-event sequences (those whose cards were all enrolled; no face-down ones:
neither set has its back photographed) and random tricks, and recognised with that profile.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from vision.calibration import CalibrationError, calibrate  # noqa: E402
from vision.recognise import Recogniser  # noqa: E402
from vision.synthetic import StressOptions, synthetic_profile  # noqa: E402
from vision.synthetic.faces import ASPECT  # noqa: E402
from vision.synthetic.sequences import (SequenceBuilder, TableSequence, deck_tricks,  # noqa: E402
                                        named_sequence, render_frames)
from vision.tracking import TableWatcher  # noqa: E402


def _pct(values: list[float], q: float) -> float:
    return float(np.percentile(values, q)) if values else float("nan")


HARD = [("lamp", "light", None, 0), ("lamp", "wood", "stress", 1), ("shadow", "plain", None, 2),
        ("nudge", "wood", None, 3), ("stacked", "plain", None, 4), ("stacked", "light", "stress", 5),
        ("trick", "light", None, 6), ("trick", "patterned", "stress", 7), ("trick", "cloth", None, 8),
        ("overlap", "cloth", None, 9), ("match", "patterned", None, 10), ("facedown", "light", None, 11),
        ("knock", "plain", None, 14), ("turned", "wood", None, 15), ("restack", "wood", None, 16),
        ("pileup", "patterned", None, 17), ("pileup", "light", "stress", 18)]
QUICK_HARD = ("lamp/light", "shadow", "nudge", "stacked/plain", "trick/light", "trick/cloth", "knock", "pileup/patterned")
TABLES = ("light", "patterned", "cloth", "wood", "plain")


def cases(size: tuple[int, int], quick: bool, faces: dict | None = None) -> list[tuple[str, TableSequence]]:
    """(label, sequence): the hard events, then every deck on two cloths, then hands alone.
    With ``faces`` (deck -> profile of real photos): only what those faces can show."""
    s = StressOptions()
    hard = [h for h in HARD if not quick or any(f"{h[0]}/{h[1]}".startswith(q) for q in QUICK_HARD)]
    decks = list(ASPECT) if faces is None else list(faces)
    hands = [("hands", "light", None, 12), ("busy", "patterned", "stress", 13)]
    if quick:
        decks, hands = [d for d in decks if d in ("trevigiane-52", "tarot-1jj", "french-52")], hands[1:]
    out = []
    french = None if faces is None else next((p for d, p in faces.items() if d.startswith("french")), None)
    for n, t, st, sd in hard:
        seq = named_sequence(n, size=size, seed=sd, stress=s if st else None, table=t)
        if faces is not None:
            shown = {c.card for shot in seq.shots for c in shot.cards}
            if french is None or None in shown or not shown <= set(french.faces):
                continue
        out.append((f"{n}/{t}/{st or 'clean'}", seq))
    for k, d in enumerate(decks):
        for j in range(1 if quick else 2):
            t = TABLES[(k + 2 * j) % 5]
            cards = None if faces is None else sorted(faces[d].faces)
            out.append((f"{d}/{t}", deck_tricks(d, 2 if quick else 3, size=size, seed=20 + 7 * k + j, table=t,
                                                 stress=s if (k + j) % 2 else None, cards=cards)))
    out += [(f"{n}/{t}/{st or 'clean'}", named_sequence(n, size=size, seed=sd, stress=s if st else None, table=t))
            for n, t, st, sd in hands]
    return out


def real_faces(realdata: Path | None, out: Path) -> dict:
    """deck -> profile enrolled from real photos (see ``--faces real``; default: ../shared/realdata),
    as bench/vision_realdata.py enrols."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import vision_realdata as vr

    realdata = realdata or vr.default_realdata()
    vr.REUSE = True      # a profile enrolled before (here or by vision_realdata.py --out OUT) is reused
    faces = {"french-52": vr.deeppoker_profile(realdata / "french-deeppoker-singles", out)}
    scans = realdata / "italian-bresciane-faces"
    italian = {f.stem.replace("_", "/", 1): f for f in sorted(scans.glob("*_*.jpg"))}
    faces["trevigiane-52"] = vr.enrol_folder(italian, out / "bresciane-enrol", "trevigiane-52")
    for d, prof in faces.items():
        print(f"  real faces, {d}: {len(prof.faces)} cards enrolled")
    return faces


def run_sequence(seq: TableSequence, recogniser, finder: str, profile=None, base=None
                 ) -> tuple[list, list[float], list, list[float], list[float], list[float]]:
    """Events and per-frame processing CPU ms of the frame loop (rendering is not timed);
    ``profile`` lends the faces. ``base`` (a baseline's (TableWatcher class, recogniser), see
    ``--baseline``): the baseline watches the same frames, taking turns at going first; its
    events and times follow; last, the CPU ms of each recogniser job on the watcher's worker, and on
    the baseline's."""
    watchers, events, times = [], ([], []), ([], [])
    for k, (image, _) in enumerate(render_frames(seq, profile)):
        if not watchers:
            cal = _calibrated(seq, profile)
            watchers.append(TableWatcher(None, cal, recogniser, find_from_empty=finder == "empty"))
            if base is not None:
                watchers.append(base[0](None, cal, base[1], find_from_empty=finder == "empty"))
        for w in (range(len(watchers)) if k % 2 == 0 else reversed(range(len(watchers)))):
            t = time.thread_time()
            ev = watchers[w].process(image)
            times[w].append((time.thread_time() - t) * 1000)   # CPU ms: the machine may be shared
            events[w].extend(ev)
    looks = [list(getattr(w, "look_cpu_ms", [])) for w in watchers] + [[]]
    for w in watchers:
        getattr(w, "close", lambda: None)()
    return events[0], times[0], events[1], times[1], looks[0], looks[1]


def _calibrated(seq: TableSequence, profile=None, tries: int = 10):
    """The calibration from the first of the sequence's opening (empty-table) frames whose four
    markers are all seen: a club calibrates once, and calibrates again if a marker was missed
    (under the stress camera's noise one frame can hide a marker in a corner)."""
    for image, truth in render_frames(seq, profile, stop=tries):
        if truth:
            break
        try:
            return calibrate(image)
        except CalibrationError:
            continue
    raise CalibrationError(f"{seq.name}: the markers were not all seen in the first {tries} frames")


def score(seq: TableSequence, events: list, times: list[float]) -> dict:
    """Placements matched to the truth by card (backs in order), the rest counted as false."""
    truth = [e for e in seq.events if e.event == "placed"]
    got = [e for e in events if e.event in ("placed", "needs_confirmation")]
    left = list(got)
    hit, seat_err, unnamed, lag, emit = 0, 0, 0, [], []
    for t in truth:
        same = [g for g in left if g.event == "placed" and g.face_up == t.face_up and g.card == t.card
                and g.frame >= t.frame - 12]
        if not same:
            near = [g for g in left if g.event == "needs_confirmation" and g.frame >= t.frame - 12]
            if near:
                unnamed += 1
                left.remove(near[0])
            continue
        g = same[0]
        left.remove(g)
        hit += 1
        seat_err += g.seat != t.seat
        lag.append(g.frame - t.frame)
        emit.append(times[g.frame])
    false = sum(1 for g in left if g.event == "placed")
    want = Counter((e.event, e.card, e.face_up) for e in seq.events if e.event in ("removed", "cleared"))
    have = Counter((e.event, e.card, e.face_up) for e in events if e.event in ("removed", "cleared"))
    false += sum((have - want).values())
    return {"placements": len(truth), "hit": hit, "unnamed": unnamed, "false": false, "seat": seat_err,
            "lag": lag, "emit": emit, "times": times}


def unchanged_table(recogniser, finder: str, size, frames: int) -> dict:
    b = SequenceBuilder(size=size, seed=3, table="wood")
    b.idle(10)
    for seat, card in [(0, "hearts/7"), (1, "hearts/king"), (2, "spades/ace"), (3, "hearts/10")]:
        b.play(seat, card).idle(12)
    b.idle(40)
    seq = b.build()
    watcher = None
    rendered = []
    for i, (image, _) in enumerate(render_frames(seq)):
        if watcher is None:
            watcher = TableWatcher(None, calibrate(image), recogniser, find_from_empty=finder == "empty")
        watcher.process(image)
        if i >= len(seq) - 40:
            rendered.append(image)
    assert len(watcher.cards) == 4, "the bench table should hold four cards"
    cpu = []
    n0 = watcher._frame_no + 1
    for k in range(frames):
        image = rendered[k % len(rendered)]          # 40 distinct noisy frames of a still table
        c = time.thread_time()
        ev = watcher.process(_frame(n0 + k, image))
        cpu.append((time.thread_time() - c) * 1000)
        assert not ev
    return {"cpu_median_ms": statistics.median(cpu), "cpu_p95_ms": _pct(cpu, 95), "cpu_p99_ms": _pct(cpu, 99),
            "frames": frames}


class _frame:  # noqa: N801 - a tiny stand-in for sources.Frame
    def __init__(self, index: int, image: np.ndarray) -> None:
        self.index, self.image = index, image


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true", help="960x540 and fewer sequences")
    p.add_argument("--finder", choices=("empty", "stills"), default="empty",
                   help="find new cards from the empty table (default) or with the stills finder")
    p.add_argument("--compare", action="store_true", help="both finders, side by side")
    p.add_argument("--only", default="", help="comma-separated: run only sequences whose label contains "
                   "one of these (and skip the unchanged table)")
    p.add_argument("--faces", choices=("drawn", "real"), default="drawn",
                   help="the cards' faces: drawn by the renderer, or real photographs (../shared/realdata)")
    p.add_argument("--realdata", default=None, help="the real photos (default: ../shared/realdata)")
    p.add_argument("--out", default="/tmp/cardtable-realdata", help="where profiles enrolled from real photos are kept")
    p.add_argument("--baseline", default=None, metavar="REV",
                   help="also run the vision package of git revision REV on the same frames, frame by frame "
                        "in turn, and print each figure's ratio to it (the machine's speed drifts)")
    args = p.parse_args(argv)
    cv2.setNumThreads(1)
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    size = (960, 540) if args.quick else (1280, 720)
    finders = ("stills", "empty") if args.compare else (args.finder,)
    recs: dict[str, Recogniser] = {}
    print(f"live table, {size[0]}x{size[1]}, one core, still window 8 frames (30 fps); finders: "
          f"{', '.join(finders)}; faces {args.faces}")
    print(f"  machine load average at start: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    for finder in finders if not args.only else ():
        rec = recs.setdefault(("french-32", id(None)), Recogniser(synthetic_profile("french-32")))
        u = unchanged_table(rec, finder, size, 150 if args.quick else 600)
        print(f"[{finder}] unchanged table (4 cards): CPU median {u['cpu_median_ms']:.2f} ms/frame, "
              f"p95 {u['cpu_p95_ms']:.2f}, p99 {u['cpu_p99_ms']:.2f} ({u['frames']} frames; target <= 2 ms)")
    base_pkg, base_recs, pooled_base, base_hits = None, {}, {f: {"emit": [], "times": [], "looks": []} for f in finders}, Counter()
    if args.baseline:
        import baseline
        pkg = baseline.vision_at(args.baseline)
        base_pkg = (baseline.submodule(pkg, "tracking"), baseline.submodule(pkg, "recognise"))
        print(f"  baseline: vision at {args.baseline} ({pkg.__name__}), on the same frames in turn")
    totals = {f: Counter() for f in finders}
    pooled = {f: {"lag": [], "emit": [], "times": [], "looks": []} for f in finders}
    hdr = f"{'sequence':32s}" + "".join(f" | {f + ': recall unnamed false seat':38s}" for f in finders)
    print(hdr)
    faces = None
    if args.faces == "real":
        faces = real_faces(Path(args.realdata) if args.realdata else None, Path(args.out))
    n_placements = 0
    for label, seq in cases(size, args.quick, faces):
        if args.only and not any(o in label for o in args.only.split(",")):
            continue
        row = f"{label:32s}"
        profile = None
        if faces is not None:       # the named sequences are French: the real French faces
            profile = faces.get(seq.deck_id) or next(p for d, p in faces.items() if d.startswith("french"))
        for finder in finders:
            key = (seq.deck_id, id(profile))
            rec = recs.get(key) or recs.setdefault(key, Recogniser(profile or synthetic_profile(seq.deck_id)))
            base = None
            if args.baseline:
                base_rec = base_recs.get(key) or base_recs.setdefault(
                    key, base_pkg[1].Recogniser(profile or synthetic_profile(seq.deck_id)))
                base = (base_pkg[0].TableWatcher, base_rec)
            events, times, base_events, base_times, looks, base_looks = run_sequence(seq, rec, finder, profile, base)
            pooled[finder]["looks"] += looks
            pooled_base[finder]["looks"] += base_looks
            s = score(seq, events, times)
            if base is not None:
                b = score(seq, base_events, base_times)
                for k in ("emit", "times"):
                    pooled_base[finder][k] += b[k]
                base_hits[finder] += b["hit"]
            for k in ("placements", "hit", "unnamed", "false", "seat"):
                totals[finder][k] += s[k]
            for k in ("lag", "emit", "times"):
                pooled[finder][k] += s[k]
            rec_txt = f"{s['hit']}/{s['placements']}" if s["placements"] else "-"
            row += f" | {rec_txt:>13s} {s['unnamed']:7d} {s['false']:5d} {s['seat']:4d}       "
        print(row, flush=True)
    for finder in finders:
        t, pl = totals[finder], pooled[finder]
        n = max(1, t["placements"])
        lag = pl["lag"] or [float("nan")]
        print(f"[{finder}] recall {t['hit']}/{t['placements']} = {100 * t['hit'] / n:.1f} %, unnamed "
              f"{t['unnamed']}, false events {t['false']}, seat errors {t['seat']}")
        print(f"[{finder}] lag: median {statistics.median(lag):.0f} frames "
              f"({1000 * statistics.median(lag) / 30:.0f} ms at 30 fps), max {max(lag)} frames; "
              f"emitting frame CPU median {_pct(pl['emit'], 50):.1f} ms, p99 {_pct(pl['emit'], 99):.1f} ms "
              f"(Pi 4 targets on one x86 core: median <= 12 ms, p99 <= 30 ms)")
        print(f"[{finder}] CPU per frame, all frames: p50 {_pct(pl['times'], 50):.2f} ms, p90 "
              f"{_pct(pl['times'], 90):.2f}, p99 {_pct(pl['times'], 99):.1f}, max {max(pl['times'], default=0):.1f}")
        if pl["looks"]:
            print(f"[{finder}] recogniser jobs on the watcher's worker thread (started LOOK_AHEAD frames before "
                  f"the still window ends): {len(pl['looks'])}, CPU median {_pct(pl['looks'], 50):.1f} ms, "
                  f"p99 {_pct(pl['looks'], 99):.1f}, max {max(pl['looks']):.1f}")
        if args.baseline:
            b = pooled_base[finder]
            print(f"[{finder}] baseline {args.baseline}: recall {base_hits[finder]}/{t['placements']}; emitting frame "
                  f"CPU median {_pct(b['emit'], 50):.1f} ms, p99 {_pct(b['emit'], 99):.1f} ms; all frames p99 "
                  f"{_pct(b['times'], 99):.1f}, max {max(b['times'], default=0):.1f}")
            print(f"[{finder}] ratio to the baseline: emitting frame median "
                  f"{_pct(pl['emit'], 50) / _pct(b['emit'], 50):.2f}, p99 {_pct(pl['emit'], 99) / _pct(b['emit'], 99):.2f}; "
                  f"all frames p99 {_pct(pl['times'], 99) / _pct(b['times'], 99):.2f}, "
                  f"max {max(pl['times'], default=0) / max(max(b['times'], default=0), 1e-9):.2f}")
            if pl["looks"] and b["looks"]:
                print(f"[{finder}] worker jobs: baseline CPU median {_pct(b['looks'], 50):.1f} ms ({len(b['looks'])} jobs), "
                      f"ratio {_pct(pl['looks'], 50) / _pct(b['looks'], 50):.2f}")
    print(f"  machine load average at end: {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
