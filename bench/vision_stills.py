"""Figures for Vision I (stills): accuracy on generated stress scenes, speed, memory.

    python bench/vision_stills.py            # >= 2,000 stress cards per deck (minutes)
    python bench/vision_stills.py --quick    # a smoke run (a few hundred cards in all)

Accuracy counts every card at least half visible: *right* when identified correctly (or
reported face down when it is); abstentions and misses count against accuracy, and
*false reports* (a wrong id, or a card where none lies) are listed separately because
those are what the referee must never see. Speed is measured on one core
(pinned to one core, one BLAS thread): a 1280×720 image with 4 cards, and identification of one
newly found card (straighten + compare against the deck).
"""
from __future__ import annotations

import os

# one core means one BLAS thread too: numpy's matrix products otherwise spawn threads that
# fight over the two cores (and over everything else running), ten times slower
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse  # noqa: E402
import faulthandler  # noqa: E402
import resource  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from controller.rules.cards import decks  # noqa: E402
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
    args = ap.parse_args(argv)
    faulthandler.enable()
    # one core by affinity (OpenCV's and numpy's own threads then share that core)
    os.sched_setaffinity(0, {args.cpu})
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
