"""The figures behind vision/enrol_camera.py's thresholds, from rendered deal videos.

    python bench/vision_enrol_camera.py [--cards 10] [--seeds 2]

For sorted French cards dealt onto a pile (and, separately, each taken away) under camera
stress, prints: the share of the box changed between frames while nothing moves and while
a hand deals (MOTION lies between), the share changed between successive still states
(CHANGED lies below the smallest new card), the template score of a card seen again against
its own taken face and of the next card against the previous one (SAME_CARD lies between),
whether every label came out right, and ms per frame of watching.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from vision import enrol_camera as ec  # noqa: E402
from vision.decks import cards_of  # noqa: E402
from vision.synthetic import StressOptions  # noqa: E402
from vision.synthetic.sequences import deal_sequence, render_frames  # noqa: E402

CAMERA = StressOptions(tilt=0.03, light=0.2, white_balance=0.08, glare=0.2, blur=0.8, noise=3, jpeg=80)


def measure(cards: list[str], seed: int, pile: bool) -> dict:
    seq = deal_sequence("french-32", cards, seed=seed, stress=CAMERA, table=("wood", "plain")[seed % 2],
                        pile=pile, take_back=(1,))
    e = ec.CameraEnroller(cards)
    still, moving, steps, ms = [], [], [], []
    prev_look, prev_hand = None, None
    for img, truth in render_frames(seq):
        t0 = time.perf_counter()
        step = e.process(img)
        ms.append((time.perf_counter() - t0) * 1000)
        look = e._look(img)
        if prev_look is not None:
            share = ec.changed_share(look, prev_look)
            hand = seq.shots[len(still) + len(moving) + 1].hand_tip is not None
            (moving if hand or prev_hand else still).append(share)
        prev_look = look
        prev_hand = seq.shots[len(still) + len(moving)].hand_tip is not None
        if step is not None:
            steps.append((step, truth[-1].card if truth else None))
    labels_right = all(s.card == t for s, t in steps if s.kind == "taken")
    same = [s.similarity for s, _ in steps if s.kind in ("same", "undone")]
    nxt = [s.similarity for s, _ in steps if s.kind == "taken" and s.similarity > -1]
    return dict(still=max(still), moving=float(np.percentile(moving, 90)), next_max=max(nxt),
                same_min=min(same) if same else float("nan"), labels_right=labels_right,
                taken=len(e.taken), of=len(cards), undone=sum(s.kind == "undone" for s, _ in steps),
                ms=float(np.median(ms)))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cards", type=int, default=10)
    ap.add_argument("--seeds", type=int, default=2)
    args = ap.parse_args()
    cards = list(cards_of("french-32"))[:args.cards]
    print(f"thresholds: MOTION {ec.MOTION}, CHANGED {ec.CHANGED}, SAME_CARD {ec.SAME_CARD}")
    print(f"{'mode':<8}{'seed':>5}{'still max':>11}{'moving p90':>12}{'next-card max':>15}{'same min':>10}"
          f"{'taken':>8}{'undone':>8}{'labels':>8}{'ms/frame':>10}")
    for pile in (True, False):
        for seed in range(args.seeds):
            r = measure(cards, seed, pile)
            print(f"{'pile' if pile else 'away':<8}{seed:>5}{r['still']:>11.4f}{r['moving']:>12.4f}"
                  f"{r['next_max']:>15.3f}{r['same_min']:>10.3f}{r['taken']:>5}/{r['of']:<3}{r['undone']:>7}"
                  f"{'right' if r['labels_right'] else 'WRONG':>8}{r['ms']:>10.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
