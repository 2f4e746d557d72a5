"""Board link: round-trip latency and messages per second over a real pty.

The host driver talks to the simulated board (the firmware's own logic under CPython)
through a pseudo-terminal, clean and with 1 % of bytes corrupted. Round trip: one ECHO
message to the board and its reply, both through the reliable link (framing, CRC, acks).
Throughput: LED commands queued as fast as the panel accepts them until every one is
acknowledged. Also prints the in-process cost of framing alone, the floor under both.

    python bench/board_link.py [--quick]
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from controller.board import open_board  # noqa: E402
from firmware import framing, messages  # noqa: E402

CASES = [
    ("clean", ""),
    ("1% bytes flipped", "flip:0.01"),
    ("1% mixed faults", "drop:0.0025,flip:0.0025,dup:0.0025,garbage:0.0025"),
]


def framing_floor(n: int) -> float:
    """Encode + decode rate of one TURN frame in-process (frames per second)."""
    dec = framing.Decoder()
    payload = messages.seat_msg(messages.TURN, 2)
    t = time.perf_counter()
    for i in range(n):
        dec.feed(framing.encode_frame(framing.DATA, i & 0xFF, 0, payload))
    return n / (time.perf_counter() - t)


def run_case(faults: str, echoes: int, burst: int, seed: int) -> dict[str, float]:
    panel = open_board(f"sim://?faults={faults}&seed={seed}", connect_timeout=30)
    try:
        for _ in range(5):  # warm up
            panel.echo(5)
        rtts = sorted(panel.echo(10) for _ in range(echoes))
        start = time.perf_counter()
        for i in range(burst):
            panel.set_status("ok" if i % 2 else "confirm")
        if not panel.wait_idle(120):
            raise SystemExit(f"board_link: {panel.link.pending()} messages never acknowledged ({faults})")
        elapsed = time.perf_counter() - start
        applied = len(panel.simulator.applied)
        stats = panel.stats()
        board_stats = panel.simulator.board.link.stats
        return {
            "median_ms": statistics.median(rtts) * 1000,
            "p95_ms": rtts[min(len(rtts) - 1, int(len(rtts) * 0.95))] * 1000,
            "max_ms": rtts[-1] * 1000,
            "msgs_per_s": burst / elapsed,
            "applied": applied,
            "bad_frames": stats["bad_frames"] + board_stats["bad_frames"],
            "retransmits": stats["retransmits"] + board_stats["retransmits"],
        }
    finally:
        panel.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer messages (a few seconds)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    echoes, burst = (100, 300) if args.quick else (500, 2000)
    print(f"board link over a pty, simulated board; {echoes} round trips, {burst} LED commands per case")
    print(f"framing alone (encode + decode, in-process): {framing_floor(20000):,.0f} frames/s")
    print(f"{'case':<20} {'rtt median':>11} {'rtt p95':>9} {'rtt max':>9} {'msgs/s':>8} "
          f"{'bad frames':>10} {'resent':>7}")
    for name, faults in CASES:
        r = run_case(faults, echoes, burst, args.seed)
        print(f"{name:<20} {r['median_ms']:>8.2f} ms {r['p95_ms']:>6.1f} ms {r['max_ms']:>6.1f} ms "
              f"{r['msgs_per_s']:>8.0f} {r['bad_frames']:>10.0f} {r['retransmits']:>7.0f}")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
