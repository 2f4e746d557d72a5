"""End to end: a card lies still on the table → the new ``state`` on an MQTT subscriber.

Real parts: frames rendered by the demo's Room (1 frame per 1/30 s, real time), Vision II's
TableWatcher with the Vision I recogniser, the table loop with its fsynced journal, paho to a
real Mosquitto (or the embedded amqtt broker if Mosquitto is not installed), and a separate
subscriber. Prints:

- latency from the frame that completes the debounce window (the card has been still for
  ``still_frames`` frames) to the subscriber receiving the ``state`` with the new seq
  (median, p99), and the same from the first still frame (debounce included);
- controller CPU per frame (thread CPU of the table loop: unchanged frames, card frames);
- resident memory of the whole process (controller + renderer + broker client).

    python bench/end_to_end.py [--cards 48] [--still-frames 8]
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import paho.mqtt.client as mqtt

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from controller.camera import VisionInput, make_watcher  # noqa: E402
from controller.demo import FakeClock, Room, ScriptedCamera  # noqa: E402
from controller.journal import Journal, read_records  # noqa: E402
from controller.mqtt import MqttLink  # noqa: E402
from controller.sim import simulator  # noqa: E402
from controller.table import Table  # noqa: E402
from vision.recognise import Recogniser  # noqa: E402

FPS = 30.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_broker(tmp: Path):
    exe = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
    if Path(exe).exists():
        port = free_port()
        conf = tmp / "m.conf"
        conf.write_text(f"listener {port} 127.0.0.1\nallow_anonymous true\n")
        proc = subprocess.Popen([exe, "-c", str(conf)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(200):
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    return f"mqtt://127.0.0.1:{port}", "mosquitto", proc.terminate
            time.sleep(0.02)
        raise SystemExit("mosquitto did not start")
    from controller.broker import EmbeddedBroker

    b = EmbeddedBroker(port=0, ws_port=0).start()
    return b.url, "embedded amqtt", b.stop


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cards", type=int, default=48)
    ap.add_argument("--still-frames", type=int, default=8)
    ap.add_argument("--seed", type=int, default=11)
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="cardtable-bench-"))
    url, broker_kind, stop_broker = start_broker(tmp)
    script = simulator("vitou")(args.seed)
    room = Room("french-32", True, 4, seed=args.seed)
    clock = FakeClock()
    camera = ScriptedCamera(clock)
    link = MqttLink(url, "bench")
    t = Table(Journal(tmp / "bench.journal"), link, table_id="bench", start_event={**script[0], "players": 4},
              vision=None, min_confidence=0.6)
    t.vision = VisionInput(camera, make_watcher(room.calibration, Recogniser(room.profile), t.ts.candidates,
                                                args.still_frames))
    received: dict[int, float] = {}
    got = threading.Event()

    def on_message(c, u, msg):
        seq = json.loads(msg.payload)["seq"]
        received.setdefault(seq, time.perf_counter())
        got.set()

    sub = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
    sub.on_message = on_message
    sub.connect(*url.removeprefix("mqtt://").split(":")[:1], int(url.rsplit(":", 1)[1]))
    sub.subscribe("cardtable/v1/tables/bench/state", qos=1)
    sub.loop_start()
    link.start()
    link.wait_connected(10)
    t.open()
    quiet_cpu: list[float] = []
    card_cpu: list[float] = []
    beyond: list[float] = []
    which: list[str] = []            # the card behind each latency (the slowest are named)
    total: list[float] = []
    cards = 0
    frame_dt = 1 / FPS
    next_t = time.perf_counter()

    def feed(image, n):
        """Feed n frames at 30 fps; returns [(wall time fed, seq after, thread cpu, step's wall time)] per frame."""
        nonlocal next_t
        out = []
        camera.push(image, n)
        for _ in range(n):
            next_t += frame_dt
            delay = next_t - time.perf_counter()
            if delay > 0:
                time.sleep(delay)
            fed = time.perf_counter()
            c0 = time.thread_time()
            t.step()
            out.append((fed, t.ts.seq, time.thread_time() - c0, time.perf_counter() - fed))
            clock.advance(frame_dt)
        return out

    i = 1
    while cards < args.cards and i < len(script):
        ev = script[i]
        i += 1
        if ev["event"] != "card":
            t.submit({"r": "event", "event": ev, "src": "bench"})
            continue
        seq0 = t.ts.seq
        room.put(ev["seat"], ev["card"])
        still = room.frame()
        hand = room.with_hand(still, ev["seat"])
        feed(hand, 2)
        frames = feed(still, args.still_frames + 4)
        first_still = frames[0][0]
        hit = next((k for k, f in enumerate(frames) if f[1] > seq0), None)
        if t.ts.pending is not None or hit is None:
            t.submit({"r": "event", "event": ev, "src": "confirm"})   # a human confirmed it; not timed
        else:
            got.wait(2)
            deadline = time.perf_counter() + 2
            while frames[hit][1] not in received and time.perf_counter() < deadline:
                time.sleep(0.001)
            if frames[hit][1] in received:
                beyond.append((received[frames[hit][1]] - frames[hit][0]) * 1000)
                which.append(f"card {cards + 1} ({ev['card']}, seat {ev['seat']}, frame CPU {frames[hit][2] * 1000:.0f} ms, "
                             f"wall {frames[hit][3] * 1000:.0f} ms)")
                total.append((received[frames[hit][1]] - first_still) * 1000)
            card_cpu.append(frames[hit][2] * 1000)
            quiet_cpu += [f[2] * 1000 for k, f in enumerate(frames) if k > hit]
        cards += 1
        snap = t.ts.snapshot() or {}
        if room.cards and not (snap.get("detail") or {}).get("current_trick"):
            room.clear()
            feed(room.frame(), args.still_frames + 3)
        if snap.get("finished"):
            break
    mem = rss_mb()
    t.close()
    sub.loop_stop()
    stop_broker()
    debounce_ms = args.still_frames / FPS * 1000
    print(f"end to end, {cards} cards, broker {broker_kind}, frames 960x540 at {FPS:.0f} fps, "
          f"debounce {args.still_frames} frames = {debounce_ms:.0f} ms; machine load average at the end "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores (the latency is wall time)")
    if beyond:
        print(f"  debounce complete -> state on subscriber: median {statistics.median(beyond):6.1f} ms   "
              f"p99 {pct(beyond, 99):6.1f} ms   (n={len(beyond)}; target <= 50 ms)")
        worst = sorted(range(len(beyond)), key=lambda k: -beyond[k])[:3]
        print("  slowest: " + "; ".join(f"{beyond[k]:.0f} ms {which[k]}" for k in worst))
        print(f"  first still frame -> state on subscriber: median {statistics.median(total):6.1f} ms   "
              f"p99 {pct(total, 99):6.1f} ms")
    print(f"  controller CPU per frame (table loop thread): unchanged table median {statistics.median(quiet_cpu):5.2f} ms, "
          f"p99 {pct(quiet_cpu, 99):5.2f} ms; frame identifying a card median {statistics.median(card_cpu):5.1f} ms")
    print(f"  resident memory: {mem:.0f} MB (whole bench process incl. renderer; target <= 250 MB)")
    records, _ = read_records(t.journal.path)      # the journal keeps no records in memory
    print(f"  cards needing a human confirmation: {sum(1 for r in records if r.get('r') == 'pending')}")
    shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
