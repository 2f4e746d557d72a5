"""Soak: a 2-hour session of play at high speed; resident memory must stay flat.

Real parts: the table loop (``Table``) with its fsynced journal on disk, paho to a real
Mosquitto (bench/end_to_end.py's ``start_broker``), simulated matches of every game played
one after another. Simulated time: ``--rate`` inputs a minute of play (default 40: cards seen
by the camera, calls by command, a doubtful card confirmed every 12th card, a junk command
every 5th input, the camera lost and back every 200 inputs), for ``--minutes`` (default 120).
Nothing waits for real time. Prints resident memory at start (after the first match, when
every module is loaded), at the end, the slope over play time (MB per minute of play, a
least-squares fit of the samples) and the end/start ratio; and the sizes of what used to grow.

    python bench/soak.py [--minutes 120] [--rate 40]
"""
from __future__ import annotations

import argparse
import itertools
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from end_to_end import rss_mb, start_broker  # noqa: E402

from controller.journal import Journal  # noqa: E402
from controller.mqtt import MqttLink  # noqa: E402
from controller.sim import simulator  # noqa: E402
from controller.table import Table  # noqa: E402
from vision.tracking import CardEvent  # noqa: E402

GAMES = ["vitou", "truco", "troccas", "trionfetti"]


class Camera:
    def __init__(self) -> None:
        self.queue: list[CardEvent] = []
        self.fault: str | None = None

    def poll(self) -> list[CardEvent]:
        out, self.queue = self.queue, []
        return out

    def confirm(self, seat, card) -> None:
        pass

    def close(self) -> None:
        pass


def matches():
    for n in itertools.count():
        game = GAMES[n % len(GAMES)]
        yield simulator(game)(n)


def slope(xs: list[float], ys: list[float]) -> float:
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    den = sum((x - mx) ** 2 for x in xs) or 1.0
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / den


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--minutes", type=float, default=120.0, help="minutes of play simulated")
    ap.add_argument("--rate", type=float, default=40.0, help="inputs per minute of play")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        url, broker, stop_broker = start_broker(Path(tmp))
        try:
            return soak(Path(tmp), url, broker, args.minutes, args.rate)
        finally:
            stop_broker()


def soak(tmp: Path, url: str, broker: str, minutes: float, rate: float) -> int:
    cam = Camera()
    link = MqttLink(url, "soak1")
    link.start()
    if not link.wait_connected(10):
        raise SystemExit(f"cannot reach {url}")
    table = Table(Journal(tmp / "soak.journal"), link, table_id="soak1", start_event=None, vision=cam)
    table.open()
    total = int(minutes * rate)
    n = cards = cid = 0
    samples: list[tuple[float, float]] = []
    started = time.perf_counter()
    base: float | None = None

    def command(verb: str, body: dict) -> dict:
        nonlocal cid
        cid += 1
        return table.on_command(verb, json.dumps({"id": f"c{cid}", **body}).encode())

    for events in matches():
        command("event", {"event": events[0]})
        for ev in events[1:]:
            if n >= total:
                break
            n += 1
            if ev["event"] == "card" and not ev.get("face_down"):
                cards += 1
                conf = 0.5 if cards % 12 == 0 else 0.97          # doubtful: asked, then confirmed
                cam.queue.append(CardEvent(0, "placed", ev["seat"], ev["card"], True, conf))
                table.step()
                if table.ts.pending is not None:
                    command("confirm", {})
            else:
                assert command("event", {"event": ev})["ok"], ev
            if n % 5 == 0:
                command("reject", {"junk": "x" * 50})                # rejected, its id remembered
            if n % 200 == 0:
                cam.fault = "camera: unplugged"
                table.step()
                cam.fault = None
                table.step()
            if n % max(1, int(rate)) == 0:                          # every minute of play
                while link.pending_messages() > 1000:
                    time.sleep(0.01)
                samples.append((n / rate, rss_mb()))
        if base is None:
            base = rss_mb()
        if n >= total:
            break
    while link.pending_messages() and time.perf_counter() - started < 1e9:
        time.sleep(0.01)
        if link.pending_messages() == 0:
            break
    wall = time.perf_counter() - started
    end = rss_mb()
    half = [s for s in samples if s[0] >= samples[-1][0] / 2] or samples
    print(f"soak: {minutes:.0f} min of play at {rate:.0f} inputs/min = {n} inputs "
          f"({cards} camera cards, {cid} commands), {wall:.0f} s wall, broker {broker}")
    print(f"resident memory: start {base:.1f} MB (after the first match), end {end:.1f} MB, "
          f"ratio end/start {end / base:.3f}")
    print(f"slope: {slope([s[0] for s in samples], [s[1] for s in samples]):+.4f} MB/min over the whole run, "
          f"{slope([s[0] for s in half], [s[1] for s in half]):+.4f} MB/min over the second half")
    print(f"bounded: judged {len(table.judged)}, seen ids {len(table.ts.seen)}, alerts {len(table.ts.alerts)}, "
          f"journal {table.journal.count} records ({(tmp / 'soak.journal').stat().st_size / 1e6:.1f} MB on disk, "
          f"none in memory)")
    table.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
