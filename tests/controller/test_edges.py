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
