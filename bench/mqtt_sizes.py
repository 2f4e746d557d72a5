"""MQTT payload sizes: what the command cap and the broker's message_size_limit rest on.

Every event of 20 seeded matches of each game goes through a real ``TableState`` as a
``cmd/event`` would (with a 64-character id); prints the largest command (bytes and JSON
nesting depth) and the largest retained ``state`` and its growth per finished hand, so the
limits in controller/limits.py (MAX_COMMAND_BYTES, MAX_INPUT_DEPTH) and
config/mosquitto/mosquitto.conf (message_size_limit) can be checked again after a change.

    python bench/mqtt_sizes.py
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from controller.limits import MAX_COMMAND_BYTES, MAX_INPUT_DEPTH, json_depth  # noqa: E402
from controller.mqtt import dumps  # noqa: E402
from controller.sim import simulator  # noqa: E402
from controller.tablestate import TableState  # noqa: E402

GAMES = ("vitou", "truco", "troccas", "trionfetti")
SEEDS = 20


def main() -> int:
    limit = next(int(line.split()[1]) for line in
                 (Path(__file__).resolve().parents[1] / "config/mosquitto/mosquitto.conf").read_text().splitlines()
                 if line.startswith("message_size_limit"))
    print(f"{'game':<11} {'command B':>9} {'depth':>5} {'state B':>8} {'hands':>5} {'B/hand':>7}")
    worst_cmd = worst_depth = worst_state = 0
    worst_per_hand = 0.0
    for game in GAMES:
        sim = simulator(game)
        cmd_b = depth = state_b = hands = 0
        per_hand = 0.0
        for seed in range(SEEDS):
            ts = TableState("t" * 32, [f"Player {i}" for i in range(6)])
            first = None
            for ev in sim(seed):
                payload = dumps({"id": "x" * 64, "event": ev}).encode()
                cmd_b, depth = max(cmd_b, len(payload)), max(depth, json_depth(payload))
                ts.apply({"r": "event", "event": json.loads(json.dumps(ev)), "src": "cmd"})
                size = len(dumps(ts.state()).encode())
                first = size if first is None else first
                state_b = max(state_b, size)
            n = len(ts.hands)
            hands = max(hands, n)
            if n:
                per_hand = max(per_hand, (size - first) / n)
        print(f"{game:<11} {cmd_b:>9} {depth:>5} {state_b:>8} {hands:>5} {per_hand:>7.0f}")
        worst_cmd, worst_depth = max(worst_cmd, cmd_b), max(worst_depth, depth)
        worst_state, worst_per_hand = max(worst_state, state_b), max(worst_per_hand, per_hand)
    print(f"largest command {worst_cmd} B (cap {MAX_COMMAND_BYTES} B: x{MAX_COMMAND_BYTES / worst_cmd:.0f}), "
          f"deepest {worst_depth} (cap {MAX_INPUT_DEPTH})")
    hands_to_limit = (limit - worst_state) / worst_per_hand if worst_per_hand else float("inf")
    print(f"largest state {worst_state} B; message_size_limit {limit} B = x{limit / worst_state:.0f}, "
          f"or about {hands_to_limit:.0f} more hands at {worst_per_hand:.0f} B per hand")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
