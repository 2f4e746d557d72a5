"""A subscriber that records what a display would see (real paho client)."""
from __future__ import annotations

import json
import threading
import time
import uuid

import paho.mqtt.client as mqtt


class Watcher:
    def __init__(self, url_port: int, topic: str = "cardtable/v1/#", username: str | None = None,
                 password: str | None = None, client_id: str | None = None, clean: bool = True) -> None:
        self.messages: list[tuple[str, bytes, bool]] = []
        self.lock = threading.RLock()
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id or f"w-{uuid.uuid4().hex[:6]}",
                                  clean_session=clean)
        if username:
            self.client.username_pw_set(username, password)
        self.topic = topic
        self.connected = threading.Event()
        self.refused = None
        self.client.on_connect = self._on_connect
        self.client.on_message = self._on_message
        self.client.reconnect_delay_set(0.1, 1)
        self.client.connect("127.0.0.1", url_port)
        self.client.loop_start()

    def _on_connect(self, client, userdata, flags, rc, props=None):
        if rc.is_failure:
            self.refused = str(rc)
            return
        client.subscribe(self.topic, qos=1)
        self.connected.set()

    def _on_message(self, client, userdata, msg):
        with self.lock:
            self.messages.append((msg.topic, bytes(msg.payload), bool(msg.retain)))

    def wait(self, pred, timeout: float = 10.0):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.lock:
                v = pred(list(self.messages))
            if v:
                return v
            time.sleep(0.02)
        with self.lock:
            return pred(list(self.messages))

    def last(self, leaf: str):
        with self.lock:
            for t, p, _ in reversed(self.messages):
                if t.endswith("/" + leaf):
                    return p
        return None

    def json_of(self, leaf: str) -> list[dict]:
        with self.lock:
            return [json.loads(p) for t, p, _ in self.messages if t.endswith("/" + leaf)]

    def publish(self, topic: str, payload, qos: int = 1):
        return self.client.publish(topic, payload, qos=qos)

    def close(self):
        self.client.disconnect()
        self.client.loop_stop()
