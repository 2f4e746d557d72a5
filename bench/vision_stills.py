"""Figures for Vision I (stills): accuracy on generated stress scenes, speed, memory.

    python bench/vision_stills.py            # >= 2,000 stress cards per deck (minutes)
    python bench/vision_stills.py --quick    # a smoke run (a few hundred cards in all)

Accuracy counts every card at least half visible: *right* when identified correctly (or
reported face down when it is); abstentions and misses count against accuracy, and
*false reports* (a wrong id, or a card where none lies) are listed separately because
those are what the referee must never see. Speed is measured on one core
(pinned to one core, one BLAS thread): a 1280×720 image with 4 cards, and identification of one
newly found card (straighten + compare against the deck).

    python bench/vision_stills.py --speed    # speed and memory only (a minute or two)

``--speed`` prints the CPU time of a 1280×720 still with 10 cards (french-52, the
"separate" scenario: ten cards do not all fit apart, so some overlap) beside a fixed
reference workload timed in the same process (the ratio is what to compare between runs
on a shared, noisy machine), and the peak resident memory of a fresh process that loads
one saved profile and recognises a 1280×720 and a 1200×1200 still (targets: 150 ms on one
x86 core, about a Raspberry Pi 4 core's 500 ms; 250 MB). ``--speed --baseline REV`` also
times the vision package of an earlier revision (bench/baseline.py) on the same stills, the
two in turn, and prints the ratio.
"""
from __future__ import annotations

import os

# one core means one BLAS thread too: numpy's matrix products otherwise spawn threads that
# fight over the two cores (and over everything else running), ten times slower
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import faulthandler  # noqa: E402
import resource  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from controller.rules.cards import decks  # noqa: E402
from vision import keypoints  # noqa: E402
from vision.finder import find_cards  # noqa: E402
from vision.recognise import Recogniser  # noqa: E402
from vision.synthetic import synthetic_profile  # noqa: E402
from vision.synthetic.stress import Tally, random_scene, score  # noqa: E402


SCENARIOS = {
    "stress": {},                                                   # overlaps, hands, clutter
    "separate": {"overlap": False, "hands": False, "clutter": False},  # camera stress only
}


def run_deck(deck_id: str, min_cards: int, threshold: float | None, scenario: dict,
             by_table: dict[str, Tally] | None = None) -> tuple[Tally, list[float], list[float]]:
    profile = synthetic_profile(deck_id)
    rec = Recogniser(profile) if threshold is None else Recogniser(profile, threshold=threshold)
    tally, img_ms, card_ms = Tally(), [], []
    seed = 10_000
    while tally.cards < min_cards:
        scene = random_scene(profile, seed, n_cards=4, **scenario)
        t0 = time.perf_counter()
        dets = rec.recognise(scene.image)
        img_ms.append((time.perf_counter() - t0) * 1000)
        t = score(scene, dets, tag=seed)
        tally.add(t)
        if by_table is not None:
            by_table.setdefault(scene.table, Tally()).add(t)
        if len(card_ms) < 200:
            found = find_cards(scene.image, profile.aspect)
            for i, cand in enumerate(found.candidates[:1]):
                t1 = time.perf_counter()
                rec._best_answer(scene.image, cand, found, [], None, None)
                card_ms.append((time.perf_counter() - t1) * 1000)
        seed += 1
    return tally, img_ms, card_ms


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="bench/vision_stills.py")
    ap.add_argument("--quick", action="store_true", help="a quick smoke run")
    ap.add_argument("--cards", type=int, default=None, help="stress cards per deck (default 2000)")
    ap.add_argument("--threshold", type=float, default=None)
    ap.add_argument("--deck", action="append", help="only these decks")
    ap.add_argument("--errors", action="store_true", help="list every error")
    ap.add_argument("--by-table", action="store_true", help="also break the figures down by table")
    ap.add_argument("--cpu", type=int, default=0, help="the one core to run on (default 0)")
    ap.add_argument("--scenario", choices=sorted(SCENARIOS), action="append",
                    help="stress (overlaps, hands, clutter) and/or separate (default both)")
    ap.add_argument("--speed", action="store_true", help="only the 10-card speed and one-profile memory")
    ap.add_argument("--scenes", type=int, default=12, help="scenes timed by --speed (default 12)")
    ap.add_argument("--baseline", default=None, metavar="REV",
                    help="with --speed: also time the vision package of an earlier git revision")
    ap.add_argument("--keypoint-side", type=int, default=None,
                    help="describe images for keypoints at most this long (vision.keypoints.MAX_SIDE)")
    ap.add_argument("--memory-child", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    faulthandler.enable()
    if args.keypoint_side:
        keypoints.MAX_SIDE = args.keypoint_side
    if args.memory_child:
        return _memory_child(Path(args.memory_child))
    # one core by affinity (OpenCV's and numpy's own threads then share that core)
    os.sched_setaffinity(0, {args.cpu})
    if args.speed:
        return _speed(args.scenes, args.cpu, args.baseline)
    n = args.cards or (60 if args.quick else 2000)
    ids = args.deck or sorted(decks())
    print(f"vision stills bench: {n}+ stress cards per deck, 1280x720, one core")
    all_img, all_card = [], []
    for name in args.scenario or ["stress", "separate"]:
        print(f"-- scenario {name}")
        total = _scenario(ids, n, args, SCENARIOS[name], all_img, all_card)
        print(f"{'all decks':14s} cards {total.cards:5d}  right {total.accuracy * 100:6.2f} %  "
              f"false reports {total.false_reports} (wrong id {total.wrong}, phantom {total.phantoms})"
              f"  (target >= 99.9 %, 0 false)")
    print(f"ms per 1280x720 image with 4 cards: median {statistics.median(all_img):.1f}, "
          f"p90 {np.percentile(all_img, 90):.1f}")
    print(f"ms per newly identified card:       median {statistics.median(all_card):.1f}, "
          f"p90 {np.percentile(all_card, 90):.1f}  (target <= 40)")
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak resident memory: {rss:.0f} MB (all five synthetic profiles loaded)")
    return 0


def _reference_ms() -> float:
    """CPU ms of a fixed OpenCV and numpy workload: the yardstick the speed figures are
    divided by (a busy machine slows both alike)."""
    import cv2
    rng = np.random.default_rng(0)
    img = rng.integers(0, 256, (720, 1280), np.uint8)
    a = rng.standard_normal((256, 256)).astype(np.float32)
    times = []
    for _ in range(5):
        t = time.thread_time()
        cv2.GaussianBlur(img, (0, 0), 3.0)
        cv2.resize(img, (640, 360), interpolation=cv2.INTER_AREA)
        for _ in range(20):
            a @ a
        times.append((time.thread_time() - t) * 1000)
    return statistics.median(times)


def _speed(scenes: int, cpu: int, base_rev: str | None = None) -> int:
    """The 10-card still's CPU time and the one-profile memory (see the module docstring);
    with ``base_rev`` also the vision package of that revision on the same stills, the two
    taking turns at going first, and the ratios of each still's times."""
    import cv2
    cv2.setNumThreads(1)
    profile = synthetic_profile("french-52")
    recs = [Recogniser(profile)]
    if base_rev:
        import baseline
        recs.append(baseline.submodule(baseline.vision_at(base_rev), "recognise").Recogniser(profile))
    imgs = [random_scene(profile, 10_000 + k, n_cards=10, **SCENARIOS["separate"]).image
            for k in range(scenes)]
    for rec in recs:
        rec.recognise(imgs[0])                 # the keypoint index is built on first use
    ref0 = _reference_ms()
    ms: list[list[float]] = [[] for _ in recs]
    for n, img in enumerate(imgs):
        for k in (range(len(recs)) if n % 2 == 0 else reversed(range(len(recs)))):
            t = time.thread_time()
            recs[k].recognise(img)
            ms[k].append((time.thread_time() - t) * 1000)
    ref = (ref0 + _reference_ms()) / 2
    med = statistics.median(ms[0])
    print(f"1280x720 still, 10 cards, one core: CPU median {med:.0f} ms, p90 "
          f"{np.percentile(ms[0], 90):.0f} ms over {len(ms[0])} scenes; reference workload {ref:.1f} ms, "
          f"ratio {med / ref:.1f} (target <= 150 ms)")
    if base_rev:
        print(f"  baseline {base_rev} on the same stills: CPU median {statistics.median(ms[1]):.0f} ms, p90 "
              f"{np.percentile(ms[1], 90):.0f} ms; ratio now / baseline, median over the stills "
              f"{statistics.median(np.divide(ms[0], ms[1])):.2f}, slowest still {max(ms[0]) / max(ms[1]):.2f}")
    with tempfile.TemporaryDirectory() as d:
        profile.save(Path(d) / "profile")
        for size, n in (((1280, 720), 10), ((1200, 1200), 12)):   # rendered here, not in the child
            cv2.imwrite(str(Path(d) / f"still-{size[0]}.png"),
                        random_scene(profile, 20_000 + n, size=size, n_cards=n).image)
        out = subprocess.run([sys.executable, __file__, "--memory-child", d, "--cpu", str(cpu),
                              "--keypoint-side", str(keypoints.MAX_SIDE)],
                             capture_output=True, text=True, check=True)
    print(out.stdout.strip())
    return 0


def _own_peak_mb() -> float:
    """This process's peak resident memory: VmHWM, which starts afresh at exec. Not
    ``ru_maxrss``, which a child started by fork keeps from its parent (this bench's
    parent, with its renders and recognisers, made the child read 408-565 MB for 305)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _memory_child(folder: Path) -> int:
    """A fresh process: load one saved profile, recognise two stills, print the peak RSS."""
    import cv2
    from vision.profile import Profile
    rec = Recogniser(Profile.load(folder / "profile"))
    for name in ("still-1280.png", "still-1200.png"):
        rec.recognise(cv2.imread(str(folder / name)))
    print(f"peak resident memory, one profile loaded, 1280x720 and 1200x1200 stills: {_own_peak_mb():.0f} MB "
          f"(target <= 250 MB)")
    return 0


def _scenario(ids, n, args, scenario, all_img, all_card) -> Tally:
    total = Tally()
    by_table: dict[str, Tally] = {}
    for deck_id in ids:
        t0 = time.perf_counter()
        tally, img_ms, card_ms = run_deck(deck_id, n, args.threshold, scenario, by_table)
        total.add(tally)
        all_img += img_ms
        all_card += card_ms
        print(f"{deck_id:14s} cards {tally.cards:5d}  right {tally.accuracy * 100:6.2f} %  "
              f"abstained {tally.abstained:4d}  missed {tally.missed:4d}  "
              f"FALSE REPORTS {tally.false_reports:3d} (wrong id {tally.wrong}, phantom {tally.phantoms})  "
              f"image median {statistics.median(img_ms):5.1f} ms  "
              f"[{time.perf_counter() - t0:.0f} s]", flush=True)
        if args.errors:
            for e in tally.errors:
                print("   ", e)
    if args.by_table:
        for table, t in sorted(by_table.items()):
            print(f"  table {table:10s} cards {t.cards:5d}  right {t.accuracy * 100:6.2f} %  "
                  f"abstained {t.abstained:4d}  missed {t.missed:4d}  "
                  f"false reports {t.false_reports} (wrong id {t.wrong}, phantom {t.phantoms})")
    return total


if __name__ == "__main__":
    sys.exit(main())
