"""What the camera saw, in real headless Chromium: rendered frames through the real watcher and
table loop leave a card waiting for confirmation; the scoreboard (served by the controller's own
web server) shows its picture, a click shows crop and frame large, and the referee's camera page
shows it and, once confirmed, lists it."""
from __future__ import annotations

import json

from controller.mqtt import MqttLink
from controller.web.server import STATIC, WebServer, broker_config
from tests.controller.test_evidence import card_table

def loaded(css: str) -> str:
    """A script: every image matching ``css`` (at least one) has loaded and decoded."""
    return (f"const a = Array.from(document.querySelectorAll({css!r})); "
            "return a.length > 0 && a.every(i => i.complete && i.naturalWidth > 0);")


def test_pending_card_picture_on_scoreboard_and_camera_page(mosquitto_factory, page, tmp_path):
    broker = mosquitto_factory(websockets=True)
    link = MqttLink(broker.url, "t1")
    # nothing is sure enough: the first card waits for the referee, with its picture
    t, store, _, _ = card_table(tmp_path, link, cards=1, min_confidence=1.01, confirm=False)
    assert t.ts.pending and t.ts.pending.get("evidence"), t.ts.pending
    name = t.ts.pending["evidence"]
    web = WebServer(0, broker_config(f"ws://127.0.0.1:{broker.ws_port}/", None, None, ["t1"]), host="127.0.0.1",
                    static=STATIC, evidence={"t1": store.root}).start()
    try:
        page.d.get(web.url + "index.html?table=t1")
        page.wait("return document.body.dataset.conn === 'connected' && !!document.querySelector('#checking')",
                  what="the confirm notice")
        page.wait(loaded("#checking img.evthumb"), what="thumbnail loaded")
        assert page.js("return document.querySelector('#checking img.evthumb').dataset.evidence") == name
        page.js("document.querySelector('#checking img.evthumb').click()")
        page.wait("const b = document.getElementById('evbox'); return b && !b.hidden && "
                  "Array.from(b.querySelectorAll('img')).every(i => i.complete && i.naturalWidth > 0)",
                  what="crop and frame shown large")
        assert page.js("return document.querySelector('#evbox .evframe').naturalWidth") <= 480
        page.shot("tv-evidence-enlarged")
        page.js("document.getElementById('evbox').click()")
        assert page.js("return document.getElementById('evbox').hidden")

        page.d.get(web.url + "camera.html?table=t1")
        page.wait("return !!document.querySelector('#pendingpics')", what="the pending card's pictures")
        page.wait(loaded("#pendingpics img"), what="pending pictures loaded")
        page.shot("camera-page-pending")
        # the referee confirms (tablet command): the page lists the card with its picture
        t.on_command("confirm", json.dumps({"id": "c1"}).encode() if t.ts.pending.get("card") else
                     json.dumps({"id": "c1", "card": "hearts/9"}).encode())
        t.step()
        page.wait("return !!document.querySelector('#nopending') && "
                  "document.querySelectorAll('#evlist li img.evthumb').length >= 1", what="listed after confirming")
        page.wait(loaded("#evlist img.evthumb"), what="list thumbnails loaded")
        assert name in page.js("return Array.from(document.querySelectorAll('#evlist img.evthumb'))"
                               ".map(i => i.dataset.evidence)")
        page.shot("camera-page-list")
    finally:
        web.stop()
        t.close()
        store.close()
