"""The shipped accounts and ACL (`cardtable mqtt-users`) on a real Mosquitto."""
from __future__ import annotations

import json
import shutil
import tempfile
import time
from pathlib import Path

import pytest

from controller.mqtt_users import write_users
from .mqtt_helpers import Watcher
from .test_mqtt import pump, table


@pytest.fixture
def secured(tmp_path, mosquitto_factory):
    # Mosquitto started as root reads these as user "mosquitto": a directory it can enter
    d = Path(tempfile.mkdtemp(prefix="cardtable-acl-"))
    d.chmod(0o755)
    users = write_users(d, ["t1", "t2"])
    (d / "passwd").chmod(0o644)
    try:
        yield mosquitto_factory(websockets=True, password_file=d / "passwd", acl_file=d / "acl"), users
    finally:
        shutil.rmtree(d, ignore_errors=True)


def test_roles(tmp_path, secured):
    broker, users = secured
    t, _ = table(tmp_path, broker.url, "t1", username="table-t1", password=users["table-t1"])
    display = Watcher(broker.port, username="display", password=users["display"])
    assert display.connected.wait(5)
    assert display.wait(lambda m: any(x[0].endswith("t1/state") for x in m))       # displays read
    base = "cardtable/v1/tables/t1/cmd/"
    seat = t.ts.turn()[0]
    bid = {"event": {"event": "call", "seat": seat, "call": "bid"}}
    # a display cannot command: the broker drops it, the table never sees it
    display.publish(base + "event", json.dumps({"id": "from-display", **bid}))
    # a display cannot write state either
    display.publish("cardtable/v1/tables/t1/state", b'{"seq": 999}')
    # table t2's account cannot write table t1's topics nor command it
    other = Watcher(broker.port, "cardtable/v1/tables/t2/cmd/#", username="table-t2", password=users["table-t2"])
    assert other.connected.wait(5)
    other.publish("cardtable/v1/tables/t1/state", b'{"seq": 12345}')
    other.publish("cardtable/v1/tables/t1/events", b'{"seq": 12345}')
    other.publish(base + "undo", json.dumps({"id": "from-t2"}))
    # the referee may
    ref = Watcher(broker.port, "cardtable/v1/tables/t1/cmd_result", username="referee", password=users["referee"])
    assert ref.connected.wait(5)
    ref.publish(base + "event", json.dumps({"id": "from-referee", **bid}))
    assert pump(t, lambda: ref.json_of("cmd_result"))
    time.sleep(0.3)
    t.step()
    ids = [r["id"] for r in ref.json_of("cmd_result")]
    assert ids == ["from-referee"]
    states = display.json_of("state")
    assert all(s.get("seq") not in (999, 12345) for s in states)
    assert not any(b"12345" in p for _, p, _ in display.messages)
    for w in (display, other, ref):
        w.close()
    t.close()


def test_no_password_no_entry(tmp_path, secured):
    broker, users = secured
    anon = Watcher.__new__(Watcher)
    import paho.mqtt.client as mqtt
    c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
    result = {}
    c.on_connect = lambda cl, u, f, rc, p=None: result.setdefault("rc", rc)
    c.connect("127.0.0.1", broker.port)
    c.loop_start()
    deadline = time.monotonic() + 5
    while "rc" not in result and time.monotonic() < deadline:
        time.sleep(0.02)
    c.loop_stop()
    assert result["rc"].is_failure
    bad = Watcher(broker.port, username="display", password="wrong")
    time.sleep(0.5)
    assert bad.refused and not bad.connected.is_set()
    bad.close()


def test_acl_file_shape():
    from controller.mqtt_users import acl_text

    text = acl_text(["club1"])
    assert "topic write cardtable/v1/tables/+/cmd/#" in text.split("user referee")[1].split("user ")[0]
    assert "write" not in text.split("user display")[1].split("user ")[0]
    t = text.split("user table-club1")[1]
    assert "topic read cardtable/v1/tables/club1/cmd/#" in t and "cmd/#" not in t.replace("read cardtable/v1/tables/club1/cmd/#", "")



def test_credentials_in_the_broker_url(tmp_path, secured):
    broker, users = secured
    url = f"mqtt://table-t2:{users['table-t2']}@127.0.0.1:{broker.port}"
    t, _ = table(tmp_path, url, "t2")
    display = Watcher(broker.port, "cardtable/v1/tables/t2/state", username="display", password=users["display"])
    assert display.wait(lambda m: m and json.loads(m[-1][1])["seq"] == t.ts.seq)
    display.close()
    t.close()


def test_the_shipped_acl_example_is_what_mqtt_users_writes():
    """config/mosquitto/acl.example (what the docs show) is the ACL the tests above run with."""
    from controller.mqtt_users import acl_text

    def rules(text: str) -> list[str]:
        return [line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#")]

    shipped = (Path(__file__).resolve().parents[2] / "config/mosquitto/acl.example").read_text()
    assert rules(shipped) == rules(acl_text(["table1"]))
