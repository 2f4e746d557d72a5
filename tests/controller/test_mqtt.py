"""The MQTT edge against a real Mosquitto (tests/conftest.py's fixtures)."""
from __future__ import annotations

import json

from controller.journal import Journal
from controller.mqtt import MqttLink
from controller.table import Table
from .helpers import Ev, FakeVision, pump
from .mqtt_helpers import Watcher

from controller.sim import simulator

SCRIPT = simulator("vitou")(5)
START = {**SCRIPT[0], "players": 4}


def play(t, vision, events):
    """Cards through the (fake) camera, everything else as the seats' buttons would."""
    for ev in events:
        if ev["event"] == "card":
            vision.queue.append(Ev("placed", ev["seat"], ev["card"]))
        else:
            t.submit({"r": "event", "event": ev, "src": "button"})
        t.step()


def table(tmp_path, url, name="t1", **kw):
    link = MqttLink(url, name, **kw)
    vision = FakeVision()
    t = Table(Journal(tmp_path / f"{name}.journal"), link, table_id=name, names=["A", "B", "C", "D"],
              start_event=START, meta={"table": name, "game": "vitou"}, vision=vision)
    link.start()
    assert link.wait_connected(10)
    t.open()
    return t, vision


def test_retained_topics_status_and_clean_stop(tmp_path, mosquitto):
    t, vision = table(tmp_path, mosquitto.url)
    play(t, vision, SCRIPT[1:2])
    # a display arriving late, once the broker holds the table's last word: a watcher that
    # subscribes while the new state is on its way gets the older one retained (and the new
    # one live, not retained), which a loaded machine made the last word at the assertions
    assert pump(t, lambda: t.link.pending_messages() == 0)
    w = Watcher(mosquitto.port)               # retained topics only
    assert w.wait(lambda m: {x[0].rsplit("/", 1)[1] for x in m if x[2]} >= {"status", "meta", "state"})
    assert w.last("status") == b"online"
    state = json.loads(w.last("state"))
    assert state["seq"] == t.ts.seq == 2 and state["table"] == "t1"
    assert state == t.ts.state()
    assert json.loads(w.last("meta"))["game"] == "vitou"
    t.close()
    assert w.wait(lambda m: m[-1][1] == b"stopped")
    w.close()


def test_broker_restart_loses_and_duplicates_nothing(tmp_path, mosquitto):
    w = Watcher(mosquitto.port, "cardtable/v1/tables/t1/events", client_id="display-persistent", clean=False)
    assert w.connected.wait(5)
    t, vision = table(tmp_path, mosquitto.url)
    play(t, vision, SCRIPT[1:9])
    assert pump(t, lambda: t.link.pending_messages() == 0)
    mosquitto.stop()
    assert pump(t, lambda: not t.link.connected.is_set())
    play(t, vision, SCRIPT[9:17])            # judged while the broker is away
    away_seq = t.ts.seq
    mosquitto.start()
    assert pump(t, lambda: t.link.connected.is_set() and t.link.pending_messages() == 0, 20)
    play(t, vision, SCRIPT[17:25])
    expected = [(e["seq"], e["i"], e["judgment"]) for e in t.judged]
    assert len(set(expected)) == len(expected)           # the table published each judgment once

    def unique(m):
        out = []
        for _, p, _ in m:
            e = json.loads(p)
            key = (e["seq"], e["i"], e["judgment"])
            if key not in out:                          # QoS 1 redelivery by the broker is allowed
                out.append(key)
        return out
    seen = w.wait(lambda m: len(unique(m)) >= len(expected) and unique(m), 20)
    assert seen == expected, "every judgment, in order, none lost"
    assert away_seq in {s for s, _, _ in seen}
    late = Watcher(mosquitto.port, "cardtable/v1/tables/t1/state")
    assert late.wait(lambda m: m and json.loads(m[-1][1])["seq"] == t.ts.seq)
    late.close()
    w.close()
    t.close()


def test_commands_over_mqtt_once(tmp_path, mosquitto):
    t, _ = table(tmp_path, mosquitto.url)
    w = Watcher(mosquitto.port, "cardtable/v1/tables/t1/cmd_result")
    assert w.connected.wait(5)
    base = "cardtable/v1/tables/t1/cmd/"
    seat = t.ts.turn()[0]
    bid = json.dumps({"id": "bid-1", "event": {"event": "call", "seat": seat, "call": "bid"}})
    for topic, payload in [(base + "event", bid), (base + "event", bid), (base + "event", b"{oops"),
                           (base + "nonsense", json.dumps({"id": "n1"})), (base + "undo", json.dumps({"id": 7}))]:
        w.publish(topic, payload)
    assert pump(t, lambda: len(w.json_of("cmd_result")) >= 5)
    res = w.json_of("cmd_result")
    assert [r["ok"] for r in res] == [True, True, False, False, False]
    assert res[1].get("duplicate") is True
    assert t.ts.snapshot()["detail"]["stake"] == 3           # the bid applied once
    w.close()
    t.close()
