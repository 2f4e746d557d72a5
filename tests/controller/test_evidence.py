"""Evidence pictures ("what the camera saw"): rendered camera frames through the real
TableWatcher, VisionInput and table loop, a real journal, a real Mosquitto and the real web
server; the store's bound, rotation and failures on real files."""
from __future__ import annotations

import http.client
import json
import logging

import cv2
import numpy as np
import pytest

from controller.camera import VisionInput, make_watcher
from controller.demo import FakeClock, Room, ScriptedCamera
from controller.evidence import EvidenceStore, frame_name, safe_path, FRAME_WIDTH
from controller.journal import Journal, read_records
from controller.mqtt import MqttLink, NullLink
from controller.scoresheet import export_main, replay_main
from controller.sim import simulator
from controller.table import Table
from controller.web.server import WebServer, broker_config
from vision.recognise import Recogniser

from .helpers import pump
from .mqtt_helpers import Watcher

pytestmark = pytest.mark.opencv      # pictures encoded by OpenCV: the Pi lane runs it (.ci/pi-lane)

SCRIPT = simulator("vitou")(5)
START = {**SCRIPT[0], "players": 4}
STILL = 6


def card_table(tmp_path, link, store_kw=None, cards=4, min_confidence=0.5, confirm=True):
    """A vitou table whose camera sees ``cards`` cards of the simulated match laid one by one
    (calls go in as button events; a card waiting for confirmation is confirmed by command
    unless not ``confirm``); returns (table, store, room, last frame)."""
    room = Room("french-32", True, 4, seed=9)
    clock = FakeClock()
    camera = ScriptedCamera(clock)
    t = Table(Journal(tmp_path / "t1.journal"), link, table_id="t1", names=["A", "B", "C", "D"],
              start_event=START, meta={"table": "t1", "game": "vitou", "players": 4}, min_confidence=min_confidence,
              clock=clock)
    store = EvidenceStore(tmp_path / "t1.journal.evidence", match=lambda: t.ts.match, **(store_kw or {}))
    t.vision = VisionInput(camera, make_watcher(room.calibration, Recogniser(room.profile), t.ts.candidates, STILL),
                           evidence=store)
    link.start()
    t.open()

    def show(img, n):
        for _ in range(n):
            camera.push(img)
            t.step()

    show(room.frame(), 3)
    laid = 0
    for ev in SCRIPT[1:]:
        if laid == cards:
            break
        if ev["event"] != "card":
            t.submit({"r": "event", "event": ev, "src": "button"})
            continue
        room.put(ev["seat"], ev["card"])
        show(room.with_hand(room.frame(), ev["seat"]), 2)
        show(room.frame(), STILL + 6)
        for _ in range(3 if confirm else 0):
            if t.ts.pending is None:
                break
            t.on_command("confirm", json.dumps({"id": f"c{laid}-{_}", "card": ev["card"]}).encode())
            t.step()
        laid += 1
    assert store.flush()
    return t, store, room, room.frame()


def camera_records(path):
    return [r for r in read_records(path)[0] if r.get("src") == "vision" or r.get("r") == "pending"]


def test_each_card_event_names_pictures_that_show_the_card(tmp_path, mosquitto):
    w = Watcher(mosquitto.port, "cardtable/v1/tables/t1/#")
    assert w.connected.wait(5)
    link = MqttLink(mosquitto.url, "t1")
    t, store, room, last = card_table(tmp_path, link)
    recs = camera_records(tmp_path / "t1.journal")
    assert len(recs) >= 4, recs
    names = [r.get("evidence") for r in recs]
    assert all(names) and len(set(names)) == len(names), recs
    for rec, name in zip(recs, names):
        assert name.startswith("m0001/") and name.endswith(("-placed.jpg", "-needs_confirmation.jpg"))
        crop = cv2.imread(str(store.root / name))
        small = cv2.imread(str(store.root / frame_name(name)))
        assert crop is not None and small is not None, name
        assert small.shape[1] <= FRAME_WIDTH
        # the crop is the card where the camera saw it: found in the last frame at the seat's card
        res = cv2.matchTemplate(last, crop, cv2.TM_CCOEFF_NORMED)
        _, score, _, (x, y) = cv2.minMaxLoc(res)
        centre = np.array([x + crop.shape[1] / 2, y + crop.shape[0] / 2])
        seat = rec.get("seat", rec.get("event", {}).get("seat"))
        card_at = [p.centre_xy for s, p in room.cards if s == seat][0]
        assert score > 0.8 and np.linalg.norm(centre - np.asarray(card_at)) < 25, (name, score, centre, card_at)
        # and it is more than cloth: it differs from the empty table there
        h, wd = crop.shape[:2]
        assert cv2.absdiff(crop, room._frames[()][y:y + h, x:x + wd]).mean() > 10
    # a card the referee confirmed keeps the picture of what the camera saw
    for r in read_records(tmp_path / "t1.journal")[0]:
        if r.get("src") == "confirm":
            assert r.get("evidence") in names
    # MQTT: the judgments of each camera card name its picture, and the retained state lists them
    assert pump(t, lambda: t.link.pending_messages() == 0)
    got = w.wait(lambda m: {e.get("evidence") for e in w.json_of("events")} >= {r["evidence"] for r in recs
                                                                                 if r.get("r") == "event"})
    assert got, w.json_of("events")
    state = json.loads(w.last("state"))
    assert [e["evidence"] for e in state["evidence"]] == [e["evidence"] for e in t.ts.evidence]
    assert {e["evidence"] for e in state["evidence"]} <= set(names) | {None}
    t.close()
    store.close()
    w.close()


def get(port, path):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    c.request("GET", path)                  # sent as written: no client-side normalising of ../
    r = c.getresponse()
    body = r.read()
    c.close()
    return r.status, r.getheader("Content-Type"), body


def test_web_server_serves_pictures_and_nothing_outside(tmp_path):
    img = np.full((120, 90, 3), 200, np.uint8)
    store = EvidenceStore(tmp_path / "t1.journal.evidence", threaded=False)
    name = store.save(img, np.float32([[20, 20], [70, 20], [70, 100], [20, 100]]), "placed")
    (tmp_path / "t1.journal").write_text("secret\n")
    (store.root / "m0001" / "000777-placed.jpg").symlink_to(tmp_path / "t1.journal")
    web = WebServer(0, broker_config("ws://127.0.0.1:9001/", None, None, ["t1"]), host="127.0.0.1",
                    evidence={"t1": store.root}).start()
    try:
        status, ctype, body = get(web.port, f"/evidence/t1/{name}")
        assert status == 200 and ctype == "image/jpeg" and body == (store.root / name).read_bytes()
        assert get(web.port, f"/evidence/t1/{frame_name(name)}")[0] == 200
        for bad in ("/evidence/t1/../t1.journal", "/evidence/t1/m0001/../../t1.journal",
                    "/evidence/t1/m0001/..%2f..%2ft1.journal", "/evidence/t1/%2e%2e/t1.journal",
                    "/evidence/t1/m0001/000777-placed.jpg", "/evidence/t1//etc/passwd",
                    "/evidence/t2/" + name, "/evidence/../t1.journal", "/evidence/t1/m0001/000002-placed.jpg"):
            status, _, body = get(web.port, bad)
            assert status == 404 and b"secret" not in body, bad
    finally:
        web.stop()
    assert safe_path(store.root, "m0001/../../t1.journal") is None


def pic(seed: int) -> np.ndarray:
    """A noisy frame (JPEG cannot shrink it much): bytes add up quickly."""
    return np.random.default_rng(seed).integers(0, 255, (300, 400, 3), np.uint8)


QUAD = np.float32([[100, 80], [180, 80], [180, 200], [100, 200]])


def test_bound_per_match_deletes_its_oldest_pictures(tmp_path):
    one = EvidenceStore(tmp_path / "probe", threaded=False)
    n = one.save(pic(0), QUAD, "placed")
    pair = (one.root / n).stat().st_size + (one.root / frame_name(n)).stat().st_size
    store = EvidenceStore(tmp_path / "ev", threaded=False, max_bytes=int(3.5 * pair))
    names = [store.save(pic(k), QUAD, "placed") for k in range(8)]
    left = sorted(p.name for p in (tmp_path / "ev" / "m0001").iterdir())
    kept = [nm for nm in names if (tmp_path / "ev" / nm).exists()]
    assert kept == names[-len(kept):] and 2 <= len(kept) <= 3, left          # the newest stay
    assert sum(p.stat().st_size for p in (tmp_path / "ev" / "m0001").iterdir()) <= 3.5 * pair
    assert not any(n.startswith(".") for n in left)                           # no temp files left


def test_rotation_keeps_the_last_matches_and_restart_continues_numbering(tmp_path):
    match = {"n": 1}
    store = EvidenceStore(tmp_path / "ev", threaded=False, keep_matches=2, match=lambda: match["n"])
    for m in range(1, 5):
        match["n"] = m
        store.save(pic(m), QUAD, "placed")
    assert sorted(p.name for p in (tmp_path / "ev").iterdir()) == ["m0003", "m0004"]
    again = EvidenceStore(tmp_path / "ev", threaded=False, keep_matches=2, match=4)   # a restart mid-match
    assert again.save(pic(9), QUAD, "needs_confirmation") == "m0004/000002-needs_confirmation.jpg"


def test_failing_writes_leave_the_table_running_and_the_events_recorded(tmp_path, caplog):
    (tmp_path / "t1.journal.evidence").write_text("a file where the folder should be")   # mkdir fails, even as root
    caplog.set_level(logging.WARNING, "cardtable.evidence")
    t, store, _, _ = card_table(tmp_path, NullLink(), cards=3)
    recs = camera_records(tmp_path / "t1.journal")
    assert len(recs) >= 3 and t.halted is None
    assert store.failed >= 1 and store.saved == 0
    assert [r.levelname for r in caplog.records if r.name == "cardtable.evidence"] == ["WARNING"]   # one line
    # after the failure the store names no pictures (until RETRY_S), so later events carry none
    assert not any(r.get("evidence") for r in recs[1:]), recs
    t.close()
    store.close()


def test_injected_write_error_and_replay_export_with_evidence(tmp_path, capsys):
    def disk_full(path, data):
        raise OSError(28, "No space left on device")

    t, store, _, _ = card_table(tmp_path, NullLink(), {"writer": disk_full}, cards=2)
    assert t.halted is None and len(camera_records(tmp_path / "t1.journal")) >= 2
    assert not list((tmp_path / "t1.journal.evidence").rglob("*.jpg"))
    t.close()
    store.close()
    capsys.readouterr()     # the write failures' warnings (their paths hold this test's name)
    # a journal naming pictures (even missing ones) replays and exports as before
    assert replay_main([str(tmp_path / "t1.journal")]) == 0
    assert export_main([str(tmp_path / "t1.journal"), "--format", "text"]) == 0
    assert "error" not in capsys.readouterr().err.lower()


@pytest.mark.parametrize("kind", ["removed", "cleared", "bogus"])
def test_only_card_placements_get_pictures(tmp_path, kind):
    store = EvidenceStore(tmp_path / "ev", threaded=False)
    assert store.save(pic(1), QUAD, kind) is None
    assert not (tmp_path / "ev").exists()


def test_track_line_keeps_contract_4_with_a_quad():
    """The quad rides on the event for the evidence store; `cardtable track` prints §4 exactly."""
    from vision.tracking import CardEvent

    ev = CardEvent(7, "placed", 1, "hearts/king", True, 0.91234, quad=QUAD)
    assert ev.to_json() == {"frame": 7, "event": "placed", "seat": 1, "card": "hearts/king", "face_up": True,
                            "confidence": 0.9123}
    assert ev == CardEvent(7, "placed", 1, "hearts/king", True, 0.91234)       # the quad is not identity
