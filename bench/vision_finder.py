"""Figures for the card finder alone: how many cards it finds and how exactly, per table.

    python bench/vision_finder.py                       # separate and stress, 100 scenes each
    python bench/vision_finder.py --scenes 40 --scenario separate

Renders stress scenes (vision.synthetic.stress.random_scene), runs ``find_cards`` and
matches candidates to truth quads by centre, as ``stress.score`` does. Per table it prints
the share of cards (at least half visible) that some candidate lies on, the corner error of
fully visible cards as a share of the card's short side (median, p90; each corner to the
nearest truth corner), and candidates matching no card (the recogniser must reject those).
Speed is finder ms per 1280x720 image on one core, and the same as a ratio to a baseline
run in the same process: shrinking the image to the finder's working size and converting
it to Lab (the least any colour finder does), so figures compare across machines.
"""
from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402
from pathlib import Path  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from vision.finder import WORK_SIZE, find_cards  # noqa: E402
from vision.geometry import quad_sides  # noqa: E402
from vision.synthetic import synthetic_profile  # noqa: E402
from vision.synthetic.stress import random_scene  # noqa: E402

SCENARIOS = {
    "stress": {},
    "separate": {"overlap": False, "hands": False, "clutter": False},
}
WHOLE = 0.98     # a truth card this much visible has all four corners to measure


@dataclass
class TableFigures:
    cards: int = 0                 # truth cards at least half visible
    found: int = 0                 # ... with a candidate on them
    unmatched: int = 0             # candidates on no card
    corner: list[float] = field(default_factory=list)   # whole cards: corner error / short side


def corner_error(found: np.ndarray, truth: np.ndarray) -> list[float]:
    """Each truth corner's distance to the nearest found corner."""
    d = np.linalg.norm(truth[:, None, :] - found[None, :, :], axis=2)
    return [float(v) for v in d.min(axis=1)]


def measure(scene, cands, figs: TableFigures) -> None:
    used: set[int] = set()
    for tr in scene.truth:
        short, _ = quad_sides(tr.quad)
        c = tr.quad.mean(axis=0)
        best, bd = None, 0.35 * short
        for i, cand in enumerate(cands):
            dd = float(np.linalg.norm(cand.quad.mean(axis=0) - c))
            if i not in used and dd < bd:
                best, bd = i, dd
        if best is not None:
            used.add(best)
        if tr.visible_fraction >= 0.5:
            figs.cards += 1
            figs.found += best is not None
        if best is not None and tr.visible_fraction >= WHOLE:
            figs.corner += [e / short for e in corner_error(cands[best].quad, tr.quad)]
    figs.unmatched += len(cands) - len(used)


def baseline_ms(image: np.ndarray) -> float:
    t0 = time.perf_counter()
    h, w = image.shape[:2]
    s = WORK_SIZE / max(h, w)
    small = cv2.resize(image, (round(w * s), round(h * s)), interpolation=cv2.INTER_AREA)
    cv2.cvtColor(small, cv2.COLOR_BGR2LAB)
    return (time.perf_counter() - t0) * 1000


def run(deck: str, scenario: str, scenes: int) -> tuple[dict[str, TableFigures], list[float], list[float]]:
    profile = synthetic_profile(deck)
    per: dict[str, TableFigures] = {}
    ms, base = [], []
    for seed in range(10_000, 10_000 + scenes):
        scene = random_scene(profile, seed, n_cards=4, **SCENARIOS[scenario])
        base.append(baseline_ms(scene.image))
        t0 = time.perf_counter()
        res = find_cards(scene.image, profile.aspect)
        ms.append((time.perf_counter() - t0) * 1000)
        measure(scene, res.candidates, per.setdefault(scene.table, TableFigures()))
    return per, ms, base


def report(name: str, per: dict[str, TableFigures]) -> None:
    print(f"-- scenario {name}")
    total = TableFigures()
    for table in sorted(per) + ["all"]:
        f = per[table] if table != "all" else total
        if table != "all":
            total.cards += f.cards
            total.found += f.found
            total.unmatched += f.unmatched
            total.corner += f.corner
        ce = np.array(f.corner) * 100 if f.corner else np.array([np.nan])
        print(f"  {table:10s} cards {f.cards:4d}  found {100 * f.found / max(1, f.cards):6.1f} %  "
              f"corner error median {np.median(ce):5.2f} %  p90 {np.percentile(ce, 90):5.2f} % "
              f"of short side ({len(f.corner) // 4} whole cards)  unmatched candidates {f.unmatched}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="bench/vision_finder.py")
    ap.add_argument("--deck", default="french-52")
    ap.add_argument("--scenes", type=int, default=100, help="scenes per scenario (seeds 10000...)")
    ap.add_argument("--scenario", choices=sorted(SCENARIOS), action="append")
    ap.add_argument("--cpu", type=int, default=0, help="the one core to run on")
    args = ap.parse_args(argv)
    os.sched_setaffinity(0, {args.cpu})
    print(f"finder bench: {args.deck}, {args.scenes} scenes per scenario, 1280x720, one core")
    all_ms, all_base = [], []
    for name in args.scenario or ["separate", "stress"]:
        per, ms, base = run(args.deck, name, args.scenes)
        report(name, per)
        all_ms += ms
        all_base += base
    med, bmed = statistics.median(all_ms), statistics.median(all_base)
    print(f"finder ms per image: median {med:.1f}, p90 {np.percentile(all_ms, 90):.1f}; "
          f"baseline (resize to {WORK_SIZE} px + Lab) {bmed:.2f} ms; ratio {med / bmed:.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
