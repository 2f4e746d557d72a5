"""A stand-in table publisher for the browser tests: docs/mqtt.md's topics from a real
Referee fed a simulated match, published with paho like the controller does.

Used in-process (``StandIn``: step by step, so a test can check the page after each hand)
and as a subprocess (``python -m tests.web.standin --port P --table T``) that can be killed
to make the broker publish its last will.
"""
from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from typing import Any

import paho.mqtt.client as mqtt

from controller.rules.referee import Referee
from controller.sim import simulator

ROOT = "cardtable/v1/tables"
DECKS = {"vitou": "french-32", "truco": "french-40", "trionfetti": "trevigiane-52", "troccas": "tarot-1jj"}
NAMES = ["Anna", "Bruno", "Carla", "Dario", "Ema", "Fadri"]


def dumps(obj: Any) -> str:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


class StandIn:
    def __init__(self, port: int, table: str, game: str = "vitou", seed: int = 1, players: int | None = None,
                 names: list[str] | None = None, host: str = "127.0.0.1", username: str = "",
                 password: str = "") -> None:
        self.table, self.game = table, game
        self.events = simulator(game)(seed, players)
        self.players = self.events[0].get("players", players or 4)
        self.names = names if names is not None else NAMES[: self.players]
        self.referee = Referee()
        self.seq = 0
        self.pos = 0
        self.hands: list[dict] = []
        self.last_trick: dict | None = None
        self.connected = threading.Event()
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"standin-{table}-{time.time_ns()}")
        if username:
            self.client.username_pw_set(username, password)
        self.client.will_set(self.topic("status"), "offline", qos=1, retain=True)
        self.client.reconnect_delay_set(0.2, 2)
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = lambda *a: self.connected.clear()
        self.client.connect_async(host, port, keepalive=5)
        self.client.loop_start()
        if not self.connected.wait(10):
            raise TimeoutError("stand-in publisher could not connect")

    def topic(self, leaf: str) -> str:
        return f"{ROOT}/{self.table}/{leaf}"

    def _on_connect(self, client, userdata, flags, rc, props=None) -> None:
        client.publish(self.topic("status"), "online", qos=1, retain=True)
        client.publish(self.topic("meta"), dumps(self.meta()), qos=1, retain=True)
        if self.seq:
            client.publish(self.topic("state"), dumps(self.state()), qos=1, retain=True)
        self.connected.set()

    def meta(self) -> dict:
        n = self.players
        teams = [[s for s in range(n) if s % 2 == t] for t in (0, 1)] if n in (4, 6) else [[s] for s in range(n)]
        return {"table": self.table, "name": f"Table {self.table}", "game": self.game, "deck": DECKS[self.game],
                "players": n, "clockwise": self.game == "vitou",
                "seats": [{"seat": s, "name": self.names[s] if s < len(self.names) else None, "position": None}
                          for s in range(n)],
                "teams": teams, "options": {}, "version": "standin"}

    def state(self) -> dict:
        out: dict[str, Any] = {"table": self.table, "seq": self.seq, "names": self.names, "status": "ok"}
        out.update(self.referee.snapshot() or {"game": None})
        out.update({"last_trick": self.last_trick, "hands": list(self.hands), "pending": None, "alerts": [], "fault": None})
        return out

    def step(self, event: dict) -> list[dict]:
        """Judge one event and publish its judgments, then the state (docs/mqtt.md order)."""
        judgments = self.referee.feed_object(event)
        assert not any(j["judgment"] == "error" for j in judgments), judgments
        self.seq += 1
        for j in judgments:
            if j["judgment"] == "trick":
                self.last_trick = {k: v for k, v in j.items() if k != "judgment"}
            elif j["judgment"] == "hand":
                self.hands.append({k: v for k, v in j.items() if k != "judgment"})
            self.client.publish(self.topic("events"), dumps({"seq": self.seq, **j}), qos=1)
        self.client.publish(self.topic("state"), dumps(self.state()), qos=1, retain=True)
        return judgments

    def next(self) -> list[dict]:
        """Feed the match's next event."""
        self.pos += 1
        return self.step(self.events[self.pos - 1])

    def until(self, done) -> None:
        """Feed events until ``done(snapshot)`` holds."""
        while self.pos < len(self.events):
            self.next()
            if done(self.referee.snapshot()):
                return
        raise AssertionError("the match ended first")

    def hands_iter(self, limit: int | None = None):
        """Play the match hand by hand: yields the `score` judgment's scores after each hand."""
        done = 0
        while self.pos < len(self.events):
            js = self.next()
            if any(j["judgment"] == "hand" for j in js):
                scores = [j for j in js if j["judgment"] == "score"][-1]["scores"]
                yield scores, js
                done += 1
                if limit is not None and done >= limit:
                    return

    def flush(self, timeout: float = 5.0) -> None:
        deadline = time.monotonic() + timeout
        while self.client._out_messages and time.monotonic() < deadline:  # noqa: SLF001
            time.sleep(0.01)

    def stop(self, status: str = "stopped") -> None:
        if self.connected.is_set():
            self.client.publish(self.topic("status"), status, qos=1, retain=True).wait_for_publish(3)
        self.client.disconnect()
        self.client.loop_stop()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--table", required=True)
    p.add_argument("--game", default="vitou")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--players", type=int)
    p.add_argument("--events", type=int, default=10**9, help="stop feeding after this many events")
    p.add_argument("--pace", type=float, default=0.0, help="seconds between events")
    a = p.parse_args(argv)
    s = StandIn(a.port, a.table, a.game, a.seed, a.players)
    while s.pos < min(a.events, len(s.events)):
        s.next()
        if a.pace:
            time.sleep(a.pace)
    s.flush()
    print("ready", s.seq, flush=True)
    while True:             # stay online until killed (the test kills us for the last will)
        time.sleep(3600)


if __name__ == "__main__":
    sys.exit(main())
