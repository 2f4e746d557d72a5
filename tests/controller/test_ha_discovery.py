"""Home Assistant MQTT discovery against a real Mosquitto: a real table (``Runtime``) with
``[mqtt] ha_discovery = true``; a fresh subscriber reads the retained discovery configs
and the retained topics they point at, and renders their templates with Jinja2 (what Home
Assistant does)."""
from __future__ import annotations

import json
import time

import jinja2
import paho.mqtt.client as mqtt

from controller.config import parse_config
from controller.ha_discovery import AVAILABILITY_TEMPLATE, discovery
from controller.runtime import Runtime
from controller.sim import simulator

NAMES = ["Anna", "Bruno", "Carla", "Dario"]


def retained(port: int, topic: str, settle: float = 1.0) -> dict[str, bytes]:
    """Every retained message under ``topic`` as a new subscriber sees it."""
    got: dict[str, bytes] = {}
    c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
    c.on_connect = lambda cl, *a: cl.subscribe(topic, qos=1)
    c.on_message = lambda cl, u, m: got.__setitem__(m.topic, bytes(m.payload)) if m.retain else None
    c.connect("127.0.0.1", port)
    c.loop_start()
    time.sleep(settle)
    c.loop_stop()
    c.disconnect()
    return got


def render(template: str, payload: bytes) -> str:
    """A value_template as Home Assistant renders it (``value``, ``value_json``)."""
    text = payload.decode()
    try:
        value_json = json.loads(text)
    except ValueError:
        value_json = None
    env = jinja2.Environment(undefined=jinja2.ChainableUndefined)
    return env.from_string(template).render(value=text, value_json=value_json).strip()


def runtime(tmp_path, url: str, table_id: str, ha: bool | None, players: int | None = None) -> Runtime:
    mqtt_cfg = {"url": url, **({"ha_discovery": ha} if ha is not None else {})}
    n = players or 4
    cfg = parse_config({"table": {"id": table_id, "name": f"Table {table_id}"},
                        "game": {"name": "vitou" if n == 4 else "troccas", "dealer": 3 if n == 4 else 0,
                                 **({"players": n} if players else {})},
                        "seats": [{"name": nm} for nm in (NAMES + ["Elsa"])[:n]], "mqtt": mqtt_cfg,
                        "journal": {"path": str(tmp_path / f"{table_id}.journal")}, "web": {"port": 0}})
    rt = Runtime(cfg, web=False)
    rt.start()
    assert rt.table.link.wait_connected(10)
    return rt


def test_discovery_configs_point_at_the_table_state(tmp_path, mosquitto):
    rt = runtime(tmp_path, mosquitto.url, "club7", ha=True)
    try:
        # play the simulated match until a hand has scored, so the scores are not 0-0
        events = simulator("vitou")(5, None)[1:]
        for ev in events:
            rt.table.submit({"r": "event", "event": ev, "src": "test"})
            if any(rt.table.ts.state().get("scores") or []):
                break
        state = rt.table.ts.state()
        assert any(state["scores"]), state["scores"]
        time.sleep(0.3)
        configs = retained(mosquitto.port, "homeassistant/#")
        tree = retained(mosquitto.port, "cardtable/v1/tables/club7/#")
        objs = {t.split("/")[-2]: json.loads(p) for t, p in configs.items()}
        assert set(objs) == {"score_0", "score_1", "turn", "hand", "game", "status"}, sorted(configs)
        assert all(t.startswith("homeassistant/sensor/cardtable_club7/") and t.endswith("/config") for t in configs)
        for obj, cfg in objs.items():
            assert cfg["unique_id"] == f"cardtable_club7_{obj}"
            assert cfg["device"]["identifiers"] == ["cardtable_club7"] and cfg["device"]["name"] == "Table club7"
            assert cfg["state_topic"] in tree, f"{obj} points at {cfg['state_topic']}, which holds nothing"
        assert objs["score_0"]["name"] == "Anna & Carla score" and objs["score_1"]["name"] == "Bruno & Dario score"
        st = tree["cardtable/v1/tables/club7/state"]
        assert json.loads(st)["scores"] == state["scores"]
        for i in (0, 1):
            assert render(objs[f"score_{i}"]["value_template"], st) == str(state["scores"][i])
        want_turn = NAMES[state["turn"]["seat"]] if state.get("turn") and not state.get("finished") else "match over"
        assert render(objs["turn"]["value_template"], st) == want_turn
        assert render(objs["hand"]["value_template"], st) == str(state["detail"]["hand"])
        assert render(objs["game"]["value_template"], st) == "vitou"
        status = tree["cardtable/v1/tables/club7/status"]
        assert render(objs["status"]["value_template"] if "value_template" in objs["status"] else "{{ value }}",
                      status) == "online"
        assert objs["status"]["options"] == ["online", "offline", "stopped"] and "availability" not in objs["status"]
        for obj in ("score_0", "score_1", "turn", "hand", "game"):
            (av,) = objs[obj]["availability"]
            assert av["topic"] == "cardtable/v1/tables/club7/status"
            assert render(av["value_template"], status) == av["payload_available"] == "online"
    finally:
        rt.close()
    # a clean stop: status `stopped`, which the availability maps to unavailable
    tree = retained(mosquitto.port, "cardtable/v1/tables/club7/status")
    status = tree["cardtable/v1/tables/club7/status"]
    assert status == b"stopped"
    assert render(AVAILABILITY_TEMPLATE, status) == "offline"
    assert render(AVAILABILITY_TEMPLATE, b"offline") == "offline"
    # the configs stay retained for Home Assistant after the table stops
    assert len(retained(mosquitto.port, "homeassistant/#")) == 6


def test_off_by_default(tmp_path, mosquitto):
    rt = runtime(tmp_path, mosquitto.url, "club8", ha=None)
    try:
        assert retained(mosquitto.port, "cardtable/v1/tables/club8/status")   # the table is there
        assert retained(mosquitto.port, "homeassistant/#") == {}
    finally:
        rt.close()


def test_solo_game_has_a_score_sensor_per_seat():
    meta = {"table": "t3", "name": "T3", "game": "troccas", "players": 3,
            "seats": [{"seat": i, "name": n} for i, n in enumerate(["Anna", "Bruno", "Carla"])],
            "teams": [[0], [1], [2]]}
    names = {p["unique_id"]: p["name"] for _, p in discovery(meta)}
    assert [names[f"cardtable_t3_score_{i}"] for i in range(3)] == ["Anna score", "Bruno score", "Carla score"]
    assert render(discovery(meta)[2][1]["value_template"], json.dumps({"scores": [1, 2, -3]}).encode()) == "-3"
    assert render(discovery(meta)[0][1]["value_template"], json.dumps({"game": None}).encode()) == "None"


def test_discovery_through_the_club_acl(tmp_path, mosquitto_factory):
    """With the accounts `cardtable mqtt-users` writes, a table may publish its discovery
    configs (and only its own): a Home Assistant reading as `display` sees them."""
    import shutil
    import tempfile
    from pathlib import Path

    from controller.mqtt_users import write_users

    d = Path(tempfile.mkdtemp(prefix="cardtable-ha-"))
    d.chmod(0o755)
    try:
        users = write_users(d, ["t1", "t2"])
        (d / "passwd").chmod(0o644)
        broker = mosquitto_factory(password_file=d / "passwd", acl_file=d / "acl")
        url = f"mqtt://table-t1:{users['table-t1']}@127.0.0.1:{broker.port}"
        rt = runtime(tmp_path, url, "t1", ha=True)
        try:
            # a table cannot publish discovery for another table
            rt.table.link.publish_retained("homeassistant/sensor/cardtable_t2/score_0/config", "{}")
            time.sleep(0.5)
            got: dict[str, bytes] = {}
            c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
            c.username_pw_set("display", users["display"])
            c.on_connect = lambda cl, *a: cl.subscribe("homeassistant/#", qos=1)
            c.on_message = lambda cl, u, m: got.__setitem__(m.topic, bytes(m.payload))
            c.connect("127.0.0.1", broker.port)
            c.loop_start()
            time.sleep(1.0)
            c.loop_stop()
            c.disconnect()
            assert sorted(t.split("/")[-2] for t in got) == ["game", "hand", "score_0", "score_1", "status", "turn"]
            assert all("/cardtable_t1/" in t for t in got), sorted(got)
        finally:
            rt.close()
    finally:
        shutil.rmtree(d, ignore_errors=True)
