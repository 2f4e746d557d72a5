"""The table's MQTT edge (paho-mqtt), exactly as docs/mqtt.md describes CONTRACT §5.

Frigate's pattern (frigate/comms/mqtt.py): a retained ``status`` with last will
``offline``, ``online`` once connected and ``stopped`` on a clean stop, and every retained
topic published again on each (re)connect. Nothing is dropped while the broker is away:
paho keeps QoS 1 messages queued until they are acknowledged, and the latest ``state`` is
re-sent on reconnect. Commands arriving on ``cmd/<verb>`` are queued for the table loop
(:meth:`MqttLink.commands`), which applies them in its own thread.
"""
from __future__ import annotations

import json
import logging
import queue
import ssl
import threading
import uuid
from typing import Any
from urllib.parse import urlparse

import paho.mqtt.client as mqtt

log = logging.getLogger("cardtable.mqtt")
ROOT = "cardtable/v1/tables"


class MqttError(ConnectionError):
    """The MQTT link cannot be set up (a bad URL, TLS files missing)."""


def dumps(obj: Any) -> str:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


def parse_url(url: str) -> tuple[str, str, int, str]:
    """(transport, host, port, path) from mqtt://, mqtts://, ws://, wss:// URLs."""
    u = urlparse(url)
    defaults = {"mqtt": 1883, "mqtts": 8883, "ws": 9001, "wss": 443}
    if u.scheme not in defaults or not u.hostname:
        raise MqttError(f"broker URL {url!r}: use mqtt://host:port (or mqtts, ws, wss)")
    try:
        port = u.port or defaults[u.scheme]
    except ValueError:
        raise MqttError(f"broker URL {url!r}: bad port") from None
    return u.scheme, u.hostname, port, u.path or "/mqtt"


class MqttLink:
    """One table's connection: publishes its tree, receives its commands."""

    def __init__(self, url: str, table_id: str, *, username: str = "", password: str = "",
                 ca_file: str = "", keepalive: int = 15, client_id: str | None = None) -> None:
        scheme, self.host, self.port, path = parse_url(url)
        self.url = url
        self.table_id = table_id
        self.base = f"{ROOT}/{table_id}"
        transport = "websockets" if scheme in ("ws", "wss") else "tcp"
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2,
                                  client_id=client_id or f"cardtable-{table_id}-{uuid.uuid4().hex[:8]}",
                                  transport=transport, clean_session=True)
        if transport == "websockets":
            self.client.ws_set_options(path=path)
        if scheme in ("mqtts", "wss"):
            try:
                self.client.tls_set(ca_certs=ca_file or None, tls_version=ssl.PROTOCOL_TLS_CLIENT)
            except (OSError, ValueError) as exc:
                raise MqttError(f"TLS: {exc}") from None
        u = urlparse(url)
        if not username and u.username:          # mqtt://user:password@host:1883
            username, password = u.username, u.password or ""
        if username:
            self.client.username_pw_set(username, password or None)
        self.client.will_set(self.topic("status"), "offline", qos=1, retain=True)
        self.client.reconnect_delay_set(min_delay=0.25, max_delay=8)
        self.client.max_queued_messages_set(0)      # unlimited: nothing judged is dropped
        self.client.max_inflight_messages_set(100)
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = self._on_disconnect
        self.client.on_message = self._on_message
        self.keepalive = keepalive
        self._lock = threading.Lock()
        self._meta: str | None = None
        self._state: str | None = None
        self._cmds: "queue.SimpleQueue[tuple[str, bytes]]" = queue.SimpleQueue()
        self.connected = threading.Event()
        self.connects = 0
        self.last_error = ""

    def topic(self, leaf: str) -> str:
        return f"{self.base}/{leaf}"

    # ----- lifecycle ------------------------------------------------------------------
    def start(self) -> None:
        self.client.connect_async(self.host, self.port, keepalive=self.keepalive)
        self.client.loop_start()

    def wait_connected(self, timeout: float) -> bool:
        return self.connected.wait(timeout)

    def stop(self, status: str = "stopped", timeout: float = 3.0) -> None:
        """Clean stop: ``status`` retained (the will is not sent), then disconnect."""
        try:
            if self.connected.is_set():
                info = self.client.publish(self.topic("status"), status, qos=1, retain=True)
                info.wait_for_publish(timeout)
        except (RuntimeError, ValueError):
            pass
        self.client.disconnect()
        self.client.loop_stop()

    def _on_connect(self, client, userdata, flags, reason_code, properties=None) -> None:
        if reason_code.is_failure:
            self.last_error = str(reason_code)
            log.warning("MQTT %s refused the connection: %s", self.url, reason_code)
            return
        self.connects += 1
        log.log(logging.WARNING if self.connects > 1 else logging.INFO, "MQTT %s %s", self.url,
                "reconnected" if self.connects > 1 else "connected")
        client.subscribe(self.topic("cmd/#"), qos=1)
        client.publish(self.topic("status"), "online", qos=1, retain=True)
        with self._lock:
            if self._meta is not None:
                client.publish(self.topic("meta"), self._meta, qos=1, retain=True)
            if self._state is not None:
                client.publish(self.topic("state"), self._state, qos=1, retain=True)
        self.connected.set()

    def _on_disconnect(self, client, userdata, flags, reason_code, properties=None) -> None:
        self.connected.clear()
        if reason_code != 0:
            log.warning("MQTT %s lost (%s); reconnecting", self.url, reason_code)

    def _on_message(self, client, userdata, msg) -> None:
        prefix = self.topic("cmd/")
        if msg.topic.startswith(prefix):
            self._cmds.put((msg.topic[len(prefix):], bytes(msg.payload)))

    # ----- what the table loop calls --------------------------------------------------
    def commands(self) -> list[tuple[str, bytes]]:
        out = []
        while True:
            try:
                out.append(self._cmds.get_nowait())
            except queue.Empty:
                return out

    def publish_meta(self, meta: dict[str, Any]) -> None:
        payload = dumps(meta)
        with self._lock:
            self._meta = payload
            self.client.publish(self.topic("meta"), payload, qos=1, retain=True)

    def publish_state(self, state: dict[str, Any]) -> None:
        payload = dumps(state)
        with self._lock:
            self._state = payload
            self.client.publish(self.topic("state"), payload, qos=1, retain=True)

    def publish_events(self, seq: int, judgments: list[dict[str, Any]]) -> None:
        for i, j in enumerate(judgments):
            self.client.publish(self.topic("events"), dumps({"seq": seq, "i": i, **j}), qos=1)

    def publish_alert(self, seq: int, alert: dict[str, Any]) -> None:
        self.client.publish(self.topic("alerts"), dumps({"seq": seq, **alert}), qos=1)

    def publish_cmd_result(self, result: dict[str, Any]) -> None:
        self.client.publish(self.topic("cmd_result"), dumps(result), qos=1)

    def pending_messages(self) -> int:
        """Messages paho still holds (not yet acknowledged)."""
        return len(getattr(self.client, "_out_messages", {}))


class NullLink:
    """No MQTT at all (``cardtable run`` with ``[mqtt] url = "off"``, unit tests)."""

    def __init__(self) -> None:
        self.state: dict[str, Any] | None = None
        self.meta: dict[str, Any] | None = None
        self.events: list[dict[str, Any]] = []
        self.alerts: list[dict[str, Any]] = []
        self.results: list[dict[str, Any]] = []
        self.inbox: list[tuple[str, bytes]] = []

    def start(self) -> None: ...
    def stop(self, status: str = "stopped", timeout: float = 0) -> None: ...
    def wait_connected(self, timeout: float) -> bool: return True

    def commands(self) -> list[tuple[str, bytes]]:
        out, self.inbox = self.inbox, []
        return out

    def publish_meta(self, meta: dict[str, Any]) -> None:
        self.meta = meta

    def publish_state(self, state: dict[str, Any]) -> None:
        self.state = state

    def publish_events(self, seq: int, judgments: list[dict[str, Any]]) -> None:
        self.events += [{"seq": seq, "i": i, **j} for i, j in enumerate(judgments)]

    def publish_alert(self, seq: int, alert: dict[str, Any]) -> None:
        self.alerts.append({"seq": seq, **alert})

    def publish_cmd_result(self, result: dict[str, Any]) -> None:
        self.results.append(result)
