"""End to end: the real ``cardtable demo`` publishing to a real Mosquitto, its own web
server serving the pages and ``config.json``, and the pages in headless Chromium."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import paho.mqtt.client as mqtt

from tests.conftest import free_port, wait_port

ROOT = Path(__file__).resolve().parents[2]


class Watcher:
    """A plain MQTT subscriber: what the demo published (latest state, scores after each hand)."""

    def __init__(self, port: int) -> None:
        self.lock = threading.Lock()
        self.states: dict[str, dict] = {}
        self.status: dict[str, str] = {}
        self.hand_scores: list[list[int]] = []
        self._hand_seq = None
        self.c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
        self.c.on_message = self._msg
        self.c.on_connect = lambda c, *a: c.subscribe("cardtable/v1/tables/#", qos=1)
        self.c.reconnect_delay_set(0.2, 1)
        self.c.connect_async("127.0.0.1", port)
        self.c.loop_start()

    def _msg(self, c, u, m) -> None:
        parts = m.topic.split("/")
        table, kind = parts[3], "/".join(parts[4:])
        with self.lock:
            if kind == "status":
                self.status[table] = m.payload.decode()
            elif kind == "state":
                self.states[table] = json.loads(m.payload)
            elif kind == "events" and table == "demo1":
                j = json.loads(m.payload)
                if j["judgment"] == "hand":
                    self._hand_seq = j["seq"]
                elif j["judgment"] == "score" and j["seq"] == self._hand_seq:
                    if self.hand_scores and self.hand_scores[-1][0] == j["seq"]:
                        self.hand_scores[-1] = (j["seq"], j["scores"])   # a game won resets to 0-0
                    else:
                        self.hand_scores.append((j["seq"], j["scores"]))

    def wait(self, cond, timeout: float = 60.0, what: str = ""):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.lock:
                v = cond(self)
            if v:
                return v
            time.sleep(0.05)
        raise AssertionError(f"timed out waiting for {what}")

    def close(self) -> None:
        self.c.loop_stop()
        self.c.disconnect()


def demo(broker, tmp_path, web_port: int, *extra: str) -> subprocess.Popen:
    cmd = [sys.executable, "-m", "controller.cli", "demo", "--mqtt", f"ws://127.0.0.1:{broker.ws_port}/",
           "--headless", "--speed", "0", "--web-port", str(web_port), "--linger", "120",
           "--journal-dir", str(tmp_path / "journals"), *extra]
    logs = ROOT / "artifacts" / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    log = open(logs / f"demo-{web_port}.log", "w")
    return subprocess.Popen(cmd, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)


def page_showed(page, seq: int, scores: list[int], timeout: float = 15.0) -> None:
    """The page displayed these scores with the state of this seq (its CT.shown log)."""
    want = [seq, [str(s) for s in scores]]
    page.wait(f"return CT.shown.some(e => JSON.stringify(e) === '{json.dumps(want, separators=(',', ':'))}')",
              timeout=timeout, what=f"page showing {scores} at seq {seq}")


def in_step(page, watch: Watcher, timeout: float = 15.0) -> None:
    """At some moment the page shows exactly the table's latest state (seq and scores)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with watch.lock:
            st = watch.states.get("demo1") or {}
        seq, scores = page.js("return [document.body.dataset.seq, "
                              "Array.from(document.querySelectorAll('[id^=score-]')).map(e => e.textContent.trim())]")
        if seq == str(st.get("seq")) and scores == [str(s) for s in st.get("scores", [])]:
            return
        time.sleep(0.02)
    raise AssertionError(f"page (seq {seq}, {scores}) never caught up with the table (seq {st.get('seq')}, "
                         f"{st.get('scores')})")


def kill(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)


def test_demo_scoreboard_hands_reload_restart_and_last_will(mosquitto_factory, page, tmp_path):
    broker = mosquitto_factory(websockets=True)
    watch = Watcher(broker.port)
    web_port = free_port()
    proc = demo(broker, tmp_path, web_port, "--game", "vitou", "--seed", "2")
    try:
        wait_port(web_port, 60)
        page.d.get(f"http://127.0.0.1:{web_port}/")   # as the demo prints it; the broker from its config.json
        page.wait("return document.body.dataset.conn === 'connected'", timeout=20, what="page connected")
        for n in range(3):                         # the right scores after each hand
            seq, scores = watch.wait(lambda w: len(w.hand_scores) > n and w.hand_scores[n], what=f"hand {n + 1}")
            page_showed(page, seq, scores)
        page.shot("demo-tv")
        # reload: everything rebuilt from the retained topics
        page.d.refresh()
        page.wait("return document.body.dataset.conn === 'connected'", timeout=20)
        in_step(page, watch)
        # broker restart: the page and the demo reconnect, and the page follows the next hand
        broker.restart()
        page.wait("return document.body.dataset.conn === 'connected'", timeout=30, what="page reconnected")
        before = watch.wait(lambda w: w.c.is_connected() and len(w.hand_scores) + 1, what="watcher back") - 1
        seq, scores = watch.wait(lambda w: len(w.hand_scores) > before and w.hand_scores[before],
                                 timeout=60, what="a hand after the restart")
        page_showed(page, seq, scores)
        in_step(page, watch)
        # the controller dies: the broker publishes its last will, the page says offline
        kill(proc)
        page.wait("return document.body.dataset.status === 'offline'", timeout=30, what="offline")
        assert "offline" in page.text("#status").lower()
        page.shot("demo-tv-offline")
    finally:
        kill(proc)
        watch.close()


def test_demo_three_tables_on_the_dashboard(mosquitto_factory, page, tmp_path):
    broker = mosquitto_factory(websockets=True)
    watch = Watcher(broker.port)
    web_port = free_port()
    proc = demo(broker, tmp_path, web_port, "--game", "vitou", "--tables", "3")
    try:
        wait_port(web_port, 60)
        page.d.get(f"http://127.0.0.1:{web_port}/dashboard.html")
        page.wait("return document.body.dataset.tables === 'demo1,demo2,demo3'", timeout=60, what="three tables")
        page.wait("return document.querySelectorAll('.tcard[data-status=online]').length === 3", timeout=30)
        # every table shows the demo's current state: wait for some play, then compare seqs
        watch.wait(lambda w: all(w.states.get(t, {}).get("seq", 0) >= 15 for t in ("demo1", "demo2", "demo3")),
                   timeout=90, what="play on all three tables")
        for t in ("demo1", "demo2", "demo3"):
            page.wait(f"return +document.querySelector('.tcard[data-table={t}]').dataset.seq >= 15", timeout=10)
        page.shot("demo-dashboard")
        kill(proc)
        page.wait("return document.querySelectorAll('.tcard[data-status=offline]').length === 3", timeout=30,
                  what="all offline")
        page.shot("demo-dashboard-offline")
    finally:
        kill(proc)
        watch.close()


def test_demo_with_its_embedded_broker(page):
    """`cardtable demo` alone (the README's way): its own broker, its own web server; the page
    finds the broker's websocket listener through config.json and follows the match."""
    import re

    web_port = free_port()
    logs = ROOT / "artifacts" / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    log_path = logs / f"demo-embedded-{web_port}.log"
    proc = subprocess.Popen([sys.executable, "-m", "controller.cli", "demo", "--headless", "--speed", "0",
                             "--web-port", str(web_port), "--linger", "60", "--game", "truco", "--seed", "3",
                             "--journal-dir", str(logs / f"journals-{web_port}")],
                            cwd=ROOT, stdout=open(log_path, "w"), stderr=subprocess.STDOUT,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        wait_port(web_port, 60)
        page.d.get(f"http://127.0.0.1:{web_port}/")
        page.wait("return document.body.dataset.conn === 'connected'", timeout=20, what="page connected")
        pattern = r"demo1 hand +(\d+): .*?score \[(-?\d+), (-?\d+)\]"
        seen = first = len(re.findall(pattern, log_path.read_text()))   # hands over before the page came
        deadline = time.monotonic() + 60
        while seen < first + 2 and time.monotonic() < deadline:
            hands = re.findall(pattern, log_path.read_text())
            if len(hands) > seen:
                for _, a, b in hands[seen:]:       # each hand's score was on the page
                    want = json.dumps([str(int(a)), str(int(b))], separators=(",", ":"))
                    page.wait(f"return CT.shown.some(e => JSON.stringify(e[1]) === '{want}')", timeout=10,
                              what=f"scores {a}-{b} shown")
                seen = len(hands)
            time.sleep(0.1)
        assert seen >= first + 2, log_path.read_text()[-2000:]
        assert page.text("#gamepanel").upper().startswith("TRUCO LADDER")
        page.shot("demo-embedded-truco")
    finally:
        kill(proc)
