"""The embedded broker (amqtt: TCP and websockets) and the web server's config endpoint."""
from __future__ import annotations

import json
import time
import urllib.request

import paho.mqtt.client as mqtt

from controller.broker import EmbeddedBroker
from controller.web.server import WebServer, broker_config


def test_embedded_broker_tcp_and_websockets():
    b = EmbeddedBroker(port=0, ws_port=0).start()
    try:
        got = []
        browser = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, transport="websockets")
        browser.on_message = lambda c, u, m: got.append((m.topic, m.payload, m.retain))
        browser.connect("127.0.0.1", b.ws_port)
        browser.loop_start()
        table = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
        table.connect("127.0.0.1", b.port)
        table.loop_start()
        table.publish("cardtable/v1/tables/x/state", '{"seq":1}', qos=1, retain=True).wait_for_publish(5)
        browser.subscribe("cardtable/v1/#", qos=1)
        deadline = time.monotonic() + 10
        while not got and time.monotonic() < deadline:
            time.sleep(0.02)
        assert got == [("cardtable/v1/tables/x/state", b'{"seq":1}', True)]
        for c in (browser, table):
            c.disconnect()
            c.loop_stop()
    finally:
        b.stop()


def test_a_look_at_the_embedded_broker_logs_no_error(caplog):
    """`cardtable` looks whether a broker listens (a TCP connect, no MQTT) before it connects:
    amqtt logged that as an ERROR on every demo. A real client's packets still get through."""
    import logging

    from controller.reach import check_broker

    b = EmbeddedBroker(port=0, ws_port=0).start()
    try:
        with caplog.at_level(logging.DEBUG):
            check_broker(b.url)
            c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
            c.connect("127.0.0.1", b.port)
            c.loop_start()
            c.publish("cardtable/v1/tables/x/status", "online", qos=1).wait_for_publish(5)
            c.disconnect()
            c.loop_stop()
            time.sleep(0.3)          # the broker logs a closed connection from its own thread
        assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text
    finally:
        b.stop()


def test_web_config_endpoint():
    w = WebServer(0, broker_config("ws://127.0.0.1:9001/", "display", "display", ["t1", "t2"]),
                  host="127.0.0.1").start()
    try:
        req = urllib.request.Request(w.url + "config.json", headers={"Host": "scoreboard.local:8080"})
        cfg = json.loads(urllib.request.urlopen(req, timeout=5).read())
        assert cfg == {"ws_url": "ws://scoreboard.local:9001/", "username": "display", "password": "display",
                       "root": "cardtable/v1/tables/", "tables": ["t1", "t2"]}
        page = urllib.request.urlopen(w.url, timeout=5)
        assert page.status == 200
    finally:
        w.stop()
