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
import time
from collections import deque
from typing import Any
from urllib.parse import parse_qs, urlparse

import paho.mqtt.client as mqtt
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties
from paho.mqtt.subscribeoptions import SubscribeOptions

from controller.limits import ECHO_CHARS, MAX_COMMAND_BYTES, MAX_ID, MAX_INPUT_DEPTH, json_depth

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


# How long the broker keeps the table's session (its subscription and the commands queued
# for it) while the table is down. Covers a reboot of the Pi and systemd's restarts with a
# wide margin; a command older than this is not worth applying (the referee will have
# re-sent it or played on), so the broker drops it. Seconds; MQTT v5 Session Expiry Interval.
SESSION_EXPIRY_S = 600
PROTOCOLS = {"5": mqtt.MQTTv5, "3.1.1": mqtt.MQTTv311}
UNSUPPORTED_PROTOCOL = 132   # CONNACK reason "Unsupported protocol version" (v5 0x84, v3.1.1 rc 1)


def url_protocol(url: str) -> int:
    """MQTT v5 unless the URL says ``?protocol=3.1.1`` (a broker that speaks no v5: amqtt)."""
    wanted = parse_qs(urlparse(url).query).get("protocol", ["5"])[-1]
    if wanted not in PROTOCOLS:
        raise MqttError(f"broker URL {url!r}: protocol must be one of {', '.join(PROTOCOLS)}")
    return PROTOCOLS[wanted]


class MqttLink:
    """One table's connection: publishes its tree, receives its commands.

    A persistent session (MQTT v5, session expiry :data:`SESSION_EXPIRY_S`; MQTT 3.1.1
    ``clean_session=False`` for a broker URL ending ``?protocol=3.1.1``, like the embedded one's)
    under a client id fixed per table, so commands sent while the table is down are
    delivered when it is back. Commands are acknowledged to the broker only once the loop
    has applied them (the loop asks for the next batch), so a crash between delivery and
    the journal loses none: the broker sends it again and its id answers it.

    Everything the table publishes goes through an ordered outbox that is handed to paho
    only while the broker is there *and* paho has nothing of its own left to (re)send. paho
    re-sends what it holds *after* ``on_connect`` on a reconnect, and sends a new publish at
    once while older ones wait for an in-flight slot; handing it everything as it came made
    events arrive out of order and the retained ``state`` go back (33 → 21) after a broker
    restart. ``state`` itself is a one-message slot: at most one is in paho at a time and
    the next one sent is always the newest, never a queued older one.
    """

    def __init__(self, url: str, table_id: str, *, username: str = "", password: str = "",
                 ca_file: str = "", keepalive: int = 15, client_id: str | None = None) -> None:
        scheme, self.host, self.port, self.path = parse_url(url)
        self.url = url
        self.scheme = scheme
        self.table_id = table_id
        self.base = f"{ROOT}/{table_id}"
        self.client_id = client_id or f"cardtable-{table_id}"
        self.ca_file = ca_file
        u = urlparse(url)
        if not username and u.username:          # mqtt://user:password@host:1883
            username, password = u.username, u.password or ""
        self.username, self.password = username, password
        self.keepalive = keepalive
        self.protocol = url_protocol(url)
        self._meta: str | None = None
        self._outbox: deque[tuple[str, str, bool]] = deque()   # (topic, payload, retain), oldest first
        self._state: str | None = None           # the newest state
        self._retained: dict[str, str] = {}      # retained topics outside the table's tree (HA discovery)
        self._state_sent: str | None = None      # the one last handed to paho
        self._state_info: Any = None             # its MQTTMessageInfo, until acknowledged
        self._online = False
        self._last_seq = 0
        self._cmds: "queue.SimpleQueue[tuple[str, bytes, int, int]]" = queue.SimpleQueue()
        self._handed: list[tuple[int, int]] = []  # (mid, qos) of commands the loop has taken
        self.connected = threading.Event()
        self.connects = 0
        self.last_error = ""
        self.client = self._make_client()
        # one lock for the outbox and the slot: paho's own, which it holds around on_publish
        self._lock = self.client._out_message_mutex

    def _make_client(self) -> mqtt.Client:
        transport = "websockets" if self.scheme in ("ws", "wss") else "tcp"
        kw: dict[str, Any] = {} if self.protocol == mqtt.MQTTv5 else {"clean_session": False}
        client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=self.client_id, transport=transport,
                             protocol=self.protocol, **kw)
        if transport == "websockets":
            client.ws_set_options(path=self.path)
        if self.scheme in ("mqtts", "wss"):
            try:
                client.tls_set(ca_certs=self.ca_file or None, tls_version=ssl.PROTOCOL_TLS_CLIENT)
            except (OSError, ValueError) as exc:
                raise MqttError(f"TLS: {exc}") from None
        if self.username:
            client.username_pw_set(self.username, self.password or None)
        client.will_set(self.topic("status"), "offline", qos=1, retain=True)
        client.reconnect_delay_set(min_delay=0.25, max_delay=8)
        client.max_queued_messages_set(0)      # unlimited: nothing judged is dropped
        client.max_inflight_messages_set(100)
        client.manual_ack_set(True)            # commands are acknowledged once applied
        client.on_connect = self._on_connect
        client.on_disconnect = self._on_disconnect
        client.on_message = self._on_message
        client.on_publish = self._on_publish
        return client

    def topic(self, leaf: str) -> str:
        return f"{self.base}/{leaf}"

    # ----- lifecycle ------------------------------------------------------------------
    def start(self) -> None:
        if self.protocol == mqtt.MQTTv5:
            props = Properties(PacketTypes.CONNECT)
            props.SessionExpiryInterval = SESSION_EXPIRY_S
            self.client.connect_async(self.host, self.port, keepalive=self.keepalive, clean_start=False,
                                      properties=props)
        else:
            self.client.connect_async(self.host, self.port, keepalive=self.keepalive)
        self.client.loop_start()

    def wait_connected(self, timeout: float) -> bool:
        return self.connected.wait(timeout)

    def stop(self, status: str = "stopped", timeout: float = 3.0) -> None:
        """Clean stop: what is queued and the newest ``state``, then ``status`` retained
        (the will is not sent)."""
        deadline = time.monotonic() + timeout
        self._ack_handed()
        try:
            if self.connected.is_set():
                while time.monotonic() < deadline and self.pending_messages():
                    self._flush()
                    time.sleep(0.01)
                info = self.client.publish(self.topic("status"), status, qos=1, retain=True)
                info.wait_for_publish(max(0.1, deadline - time.monotonic()))
        except (RuntimeError, ValueError):
            pass
        self.client.disconnect()
        self.client.loop_stop()

    def _on_connect(self, client, userdata, flags, reason_code, properties=None) -> None:
        if reason_code.is_failure:
            self.last_error = str(reason_code)
            hint = " (add ?protocol=3.1.1 to the broker URL)" if reason_code.value == UNSUPPORTED_PROTOCOL else ""
            log.warning("MQTT %s refused the connection: %s%s", self.url, reason_code, hint)
            return
        self.connects += 1
        log.log(logging.WARNING if self.connects > 1 else logging.INFO, "MQTT %s %s", self.url,
                "reconnected" if self.connects > 1 else "connected")
        if self.protocol == mqtt.MQTTv5:
            # retain as published: a retained command is seen as one (and refused);
            # retain handling 1: stored ones are sent only when the subscription is new.
            opts = SubscribeOptions(qos=1, retainAsPublished=True, retainHandling=1)
            client.subscribe(self.topic("cmd/#"), options=opts)
        else:
            client.subscribe(self.topic("cmd/#"), qos=1)
        client.publish(self.topic("status"), "online", qos=1, retain=True)
        with self._lock:
            if self._meta is not None:
                client.publish(self.topic("meta"), self._meta, qos=1, retain=True)
            for topic, payload in self._retained.items():
                client.publish(topic, payload, qos=1, retain=True)
            self._online = True
            if _delivered(self._state_info):
                self._state_sent = None          # the broker may have lost it: send the newest again
        self._flush(client)
        self.connected.set()

    def _on_disconnect(self, client, userdata, flags, reason_code, properties=None) -> None:
        with self._lock:
            self._online = False
        self.connected.clear()
        if reason_code != 0:
            log.warning("MQTT %s lost (%s); reconnecting", self.url, reason_code)

    def _on_message(self, client, userdata, msg) -> None:
        prefix = self.topic("cmd/")
        if not msg.topic.startswith(prefix):
            client.ack(msg.mid, msg.qos)
            return
        verb, payload = msg.topic[len(prefix):], bytes(msg.payload)
        if not msg.retain:                       # size, depth and the rest: Table.on_command
            self._cmds.put((verb, payload, msg.mid, msg.qos))
            return
        refusal = ("bad_command: retained command ignored (publish commands without the retain flag; "
                   "clear it with an empty retained message)")
        head = payload[:ECHO_CHARS].decode("utf-8", "replace")
        self.publish_cmd_result({"id": _small_id(payload), "ok": False, "error": f"{refusal}: {head!r}",
                                 "verb": verb[:40], "seq": self._last_seq}, client)
        client.ack(msg.mid, msg.qos)

    # ----- the outbox and the state slot ----------------------------------------------
    def _on_publish(self, client, userdata, mid, reason_code=None, properties=None) -> None:
        with self._lock:                         # paho holds it already: this is re-entry
            info = self._state_info
            if info is not None and info.mid == mid:
                self._state_info = None          # acknowledged (paho marks it just after this call)
        self._flush(client)

    def _flush(self, client: mqtt.Client | None = None) -> None:
        """Hand paho the outbox, then the newest state, once it has sent all it holds."""
        c = client or self.client
        with self._lock:
            if not self._online or any(m.state in _UNSENT for m in c._out_messages.values()):
                return
            while self._outbox:
                topic, payload, retain = self._outbox.popleft()
                c.publish(topic, payload, qos=1, retain=retain)
            if self._state is not None and self._state != self._state_sent and _delivered(self._state_info):
                self._state_info = c.publish(self.topic("state"), self._state, qos=1, retain=True)
                self._state_sent = self._state

    def _send(self, leaf: str, payload: str, retain: bool = False, client: mqtt.Client | None = None) -> None:
        with self._lock:
            self._outbox.append((self.topic(leaf), payload, retain))
        self._flush(client)

    # ----- what the table loop calls --------------------------------------------------
    def _ack_handed(self) -> None:
        handed, self._handed = self._handed, []
        for mid, qos in handed:
            if qos:
                self.client.ack(mid, qos)

    def commands(self) -> list[tuple[str, bytes]]:
        """The commands that came since the last call; those of the last call are acknowledged
        (the loop applied and journalled them before asking again)."""
        self._ack_handed()
        self._flush()
        out = []
        while True:
            try:
                verb, payload, mid, qos = self._cmds.get_nowait()
            except queue.Empty:
                return out
            out.append((verb, payload))
            self._handed.append((mid, qos))

    def publish_meta(self, meta: dict[str, Any]) -> None:
        payload = dumps(meta)
        with self._lock:
            self._meta = payload
        self._send("meta", payload, retain=True)

    def publish_state(self, state: dict[str, Any]) -> None:
        with self._lock:
            self._state = dumps(state)
            if isinstance(state.get("seq"), int):
                self._last_seq = state["seq"]
        self._flush()

    def publish_retained(self, topic: str, payload: str) -> None:
        """A retained message outside the table's tree, published again on every connect."""
        with self._lock:
            self._retained[topic] = payload
            self._outbox.append((topic, payload, True))
        self._flush()

    def publish_events(self, seq: int, judgments: list[dict[str, Any]]) -> None:
        for i, j in enumerate(judgments):
            self._send("events", dumps({"seq": seq, "i": i, **j}))

    def publish_alert(self, seq: int, alert: dict[str, Any]) -> None:
        self._send("alerts", dumps({"seq": seq, **alert}))

    def publish_cmd_result(self, result: dict[str, Any], client: mqtt.Client | None = None) -> None:
        self._send("cmd_result", dumps(result), client=client)

    def pending_messages(self) -> int:
        """Messages not yet acknowledged by the broker: paho's, the outbox, a newer state."""
        with self._lock:
            newer = int(self._state is not None and self._state != self._state_sent)
            return len(self.client._out_messages) + len(self._outbox) + newer


_UNSENT = (mqtt.mqtt_ms_publish, mqtt.mqtt_ms_queued)   # paho message states: not on the wire yet


def _delivered(info: Any) -> bool:
    """True when no publish is pending on ``info`` (None, or acknowledged by the broker).

    Reads paho's flag directly: ``is_published()`` raises for a message queued while the
    socket was down, which paho still sends on reconnect."""
    if info is None:
        return True
    with info._condition:
        return bool(info._published)


def _small_id(payload: bytes) -> str | None:
    """The id of a refused command, if it is a small JSON object with a valid one (else None)."""
    if len(payload) > MAX_COMMAND_BYTES or json_depth(payload) > MAX_INPUT_DEPTH:
        return None
    try:
        obj = json.loads(payload)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return None
    cid = obj.get("id") if isinstance(obj, dict) else None
    return cid if isinstance(cid, str) and 0 < len(cid) <= MAX_ID else None


class NullLink:
    """No MQTT at all (``cardtable run`` with ``[mqtt] url = "off"``, unit tests)."""

    def __init__(self) -> None:
        self.state: dict[str, Any] | None = None
        self.meta: dict[str, Any] | None = None
        self.events: list[dict[str, Any]] = []
        self.alerts: list[dict[str, Any]] = []
        self.results: list[dict[str, Any]] = []
        self.inbox: list[tuple[str, bytes]] = []
        self.retained: dict[str, str] = {}

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

    def publish_retained(self, topic: str, payload: str) -> None:
        self.retained[topic] = payload

    def publish_events(self, seq: int, judgments: list[dict[str, Any]]) -> None:
        self.events += [{"seq": seq, "i": i, **j} for i, j in enumerate(judgments)]

    def publish_alert(self, seq: int, alert: dict[str, Any]) -> None:
        self.alerts.append({"seq": seq, **alert})

    def publish_cmd_result(self, result: dict[str, Any]) -> None:
        self.results.append(result)
