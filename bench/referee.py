"""Referee throughput: events judged per second on long generated matches, per game.

Prints, per game, events/s through the full ``cardtable referee`` path (JSON decode,
validation, rules, JSON encode) and the ratio against a baseline measured in the same
process (JSON decode + encode of the same lines only), so noisy machines still compare;
and the peak memory of judging one long match (tracemalloc).

    python bench/referee.py [--games vitou,truco] [--matches 200] [--quick]
"""
from __future__ import annotations

import argparse
import io
import json
import statistics
import sys
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from controller.rules.referee import judge_lines  # noqa: E402
from controller.sim import SIMULATORS, simulator  # noqa: E402

TARGET = 20_000


def baseline(lines: list[str]) -> float:
    """Seconds to only decode and re-encode every line: the floor any referee pays."""
    t = time.perf_counter()
    out = io.StringIO()
    for line in lines:
        out.write(json.dumps(json.loads(line), separators=(",", ":")) + "\n")
    return time.perf_counter() - t


def judge(lines: list[str]) -> float:
    t = time.perf_counter()
    judge_lines(lines, io.StringIO())
    return time.perf_counter() - t


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", default=",".join(SIMULATORS))
    ap.add_argument("--matches", type=int, default=200, help="generated matches per game")
    ap.add_argument("--repeat", type=int, default=3, help="timed runs; the median is reported")
    ap.add_argument("--quick", action="store_true", help="20 matches, 1 run")
    args = ap.parse_args()
    if args.quick:
        args.matches, args.repeat = 20, 1
    print(f"{'game':<11} {'events':>8} {'events/s':>10} {'vs target':>9} {'base ev/s':>10} "
          f"{'ratio':>6} {'peak MiB':>8}")
    worst = None
    for game in args.games.split(","):
        try:
            gen = simulator(game)
            matches = [gen(seed) for seed in range(args.matches)]
        except (ImportError, AttributeError) as exc:
            print(f"{game:<11} not available: {exc}")
            continue
        lines = [json.dumps(e) for m in matches for e in m]
        runs = [judge(lines) for _ in range(args.repeat)]
        base = [baseline(lines) for _ in range(args.repeat)]
        rate, base_rate = len(lines) / statistics.median(runs), len(lines) / statistics.median(base)
        longest = max(matches, key=len)
        tracemalloc.start()
        judge_lines([json.dumps(e) for e in longest], io.StringIO())
        peak = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
        print(f"{game:<11} {len(lines):>8} {rate:>10,.0f} {rate / TARGET:>8.1f}x {base_rate:>10,.0f} "
              f"{rate / base_rate:>6.2f} {peak:>8.2f}")
        worst = rate if worst is None else min(worst, rate)
    if worst is not None:
        print(f"slowest game: {worst:,.0f} events/s (target >= {TARGET:,})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
