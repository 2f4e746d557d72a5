"""``cardtable board``: check a board end to end, or run the simulator for other tools.

    cardtable board selftest --port /dev/ttyACM0
    cardtable board selftest --port hwgrep://2e8a:0005 --buttons
    cardtable board selftest --port 'sim://?faults=flip:0.01,drop:0.01'
    cardtable board sim --faults drop:0.01      # prints a pty path to use as a port
"""
from __future__ import annotations

import argparse
import logging
import signal
import sys
import time
from typing import Sequence

from .errors import BoardError
from .faults import FaultSpec


def _selftest(args: argparse.Namespace) -> int:
    from .selftest import run_selftest

    report = run_selftest(args.port, timeout=args.timeout,
                          echoes=10 if args.quick else 50, burst=50 if args.quick else 200,
                          buttons=args.buttons)
    print(report.render())
    return 0 if report.ok else 1


def _sim(args: argparse.Namespace) -> int:
    from .sim import BoardSimulator

    cfg = {"seats": args.seats, "leds": max(30, args.seats * 7)}
    # SIGTERM (systemd, timeout) leaves through the with-block, so the pty is removed.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    with BoardSimulator(cfg, FaultSpec.parse(args.faults)) as sim:
        print(sim.port, flush=True)
        print(f"simulated board with {args.seats} seats on {sim.port}; Ctrl-C to stop", file=sys.stderr)
        while True:
            time.sleep(1)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="cardtable board", description="LED/button board tools")
    sub = parser.add_subparsers(dest="command", required=True)
    st = sub.add_parser("selftest", help="check a board (or the simulator) end to end and print a report")
    st.add_argument("--port", required=True,
                    help="serial device, pyserial URL (hwgrep://2e8a:0005, loop://) or sim://[?faults=...]")
    st.add_argument("--timeout", type=float, default=5.0, help="seconds to wait for the handshake (default 5)")
    st.add_argument("--buttons", action="store_true", help="real board: ask for each seat's button to be pressed")
    st.add_argument("--quick", action="store_true", help="fewer round trips and a shorter burst")
    st.set_defaults(func=_selftest)
    sm = sub.add_parser("sim", help="run a simulated board on a pty and print its path")
    sm.add_argument("--faults", default="", help="e.g. drop:0.01,flip:0.01,dup:0.01,garbage:0.01,delay:0.01,seed:1")
    sm.add_argument("--seats", type=int, default=4)
    sm.set_defaults(func=_sim)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(list(sys.argv[1:] if argv is None else argv))
    # The report counts disconnects; the driver's own warnings would only interleave.
    logging.getLogger("controller.board").setLevel(logging.ERROR)
    try:
        return int(args.func(args))
    except BoardError as exc:
        print(f"cardtable board: {exc}", file=sys.stderr)
        return 2
    except ValueError as exc:  # a bad simulated board config
        print(f"cardtable board: {exc}", file=sys.stderr)
        return 2
