"""The TV scoreboard in real headless Chromium against a real Mosquitto (websockets)."""
from __future__ import annotations

import shutil
import time
from pathlib import Path

from tests.web.standin import StandIn


def ws(broker) -> str:
    return f"ws://127.0.0.1:{broker.ws_port}/"


def test_scores_after_each_hand_then_reload(mosquitto_factory, page):
    broker = mosquitto_factory(websockets=True)
    # The page finds the broker through the controller-style /config.json endpoint.
    page.server.config.update({"ws_url": ws(broker), "username": None, "password": None,
                               "root": "cardtable/v1/tables/", "tables": ["t1"]})
    pub = StandIn(broker.port, "t1", "vitou", seed=3)
    page.open("index.html")
    page.wait("return document.body.dataset.conn === 'connected'", what="connected")
    hands = 0
    for scores, _ in pub.hands_iter():
        page.wait_scores(scores)
        hands += 1
    assert hands >= 5
    st = pub.state()
    assert st["finished"]
    page.wait(f"return document.body.dataset.seq === '{pub.seq}'", what="last seq")
    assert "win the match" in page.text("#turn")
    page.shot("tv-match-over")
    # A reload rebuilds everything from the retained topics alone.
    page.d.refresh()
    page.wait(f"return document.body.dataset.seq === '{pub.seq}'", what="seq after reload")
    page.wait_scores(st["scores"])
    games = st["detail"]["games"]
    assert page.js("return [0,1].map(i => document.getElementById('games-' + i).dataset.games)") == [str(g) for g in games]
    pub.stop()
    page.wait("return document.body.dataset.status === 'stopped'", what="stopped")


def test_mid_trick_view_and_names(mosquitto_factory, page):
    broker = mosquitto_factory(websockets=True)
    pub = StandIn(broker.port, "t2", "vitou", seed=5)
    # play until a bid stands and two cards lie on the current trick
    pub.until(lambda st: bool(pub.hands) and st["detail"]["stake"] not in (None, 1)
              and len(st["detail"]["current_trick"]) == 2)
    d = pub.referee.snapshot()["detail"]
    page.open(f"index.html?broker={ws(broker)}&table=t2&config=0")
    page.wait(f"return document.body.dataset.seq === '{pub.seq}'", what="seq")
    page.wait_scores(pub.referee.snapshot()["scores"])
    shown = page.js("return Array.from(document.querySelectorAll('#trick .played svg')).map(s => s.dataset.card)")
    assert shown == [c["card"] for c in d["current_trick"]]
    assert "Anna & Carla" in page.text(".side0 .sidename")
    assert str(d["stake"]) in page.text("#stake")
    turn = pub.referee.snapshot()["turn"]["seat"]
    assert page.js(f"return document.querySelector('.seat[data-seat=\"{turn}\"]').classList.contains('turn')")
    page.shot("tv-mid-trick")
    page.shot("tv-mid-trick-1920", size=(1920, 1080))
    pub.stop()


def test_recovers_after_broker_restart(mosquitto_factory, page):
    broker = mosquitto_factory(websockets=True)
    pub = StandIn(broker.port, "t3", "vitou", seed=7)
    hands = pub.hands_iter()
    scores, _ = next(hands)
    page.open(f"index.html?broker={ws(broker)}&table=t3&config=0")
    page.wait_scores(scores)
    broker.restart()
    page.wait("return document.body.dataset.conn === 'connected'", timeout=20, what="reconnected")
    assert pub.connected.wait(10)
    for _ in range(3):
        scores, _ = next(hands)
        page.wait_scores(scores, timeout=15)
    page.wait(f"return document.body.dataset.seq === '{pub.seq}'", what="seq after restart")
    pub.stop()


def _games():
    """The games whose simulated matches exist in this tree (all four once Troccas lands)."""
    import importlib

    from controller.sim import SIMULATORS
    out = []
    for g, target in SIMULATORS.items():
        try:
            importlib.import_module(target.partition(":")[0])
        except ImportError:
            continue
        out.append(g)
    return out


def test_each_game_panel(mosquitto_factory, page):
    """Per game: the Vitou bid, the Truco ladder, the Trionfetti comanda order, Troccas totals."""
    broker = mosquitto_factory(websockets=True)
    wants = {
        "vitou": lambda st: st["detail"]["stake"] not in (None, 1) and st["detail"]["current_trick"],
        "truco": lambda st: st["detail"]["stake"] > 1 and len(st["detail"]["current_trick"]) >= 2,
        "trionfetti": lambda st: st["detail"]["comanda"] and len(st["detail"]["current_trick"]) >= 2,
        "troccas": lambda st: len(st["detail"]["current_trick"]) >= 2 and st["detail"]["hand"] >= 2,
    }
    cases = [(g, None) for g in _games()] + ([("troccas", 3)] if "troccas" in _games() else [])
    for game, players in cases:
        pub = StandIn(broker.port, f"g-{game}{players or ''}", game, seed=4, players=players)
        pub.until(lambda st: bool(pub.hands) and wants[game](st))
        st = pub.referee.snapshot()
        page.open(f"index.html?broker={ws(broker)}&table=g-{game}{players or ''}&config=0")
        page.wait(f"return document.body.dataset.seq === '{pub.seq}'", what=f"{game} seq")
        page.wait_scores(st["scores"])
        shown = page.js("return Array.from(document.querySelectorAll('#trick .played svg')).map(s => s.dataset.card)")
        assert sorted(shown, key=str) == sorted((c["card"] or "face-down" for c in st["detail"]["current_trick"]), key=str)
        panel = page.text("#gamepanel")
        d = st["detail"]
        if game == "vitou":
            assert str(d["stake"]) in panel
        elif game == "truco":
            assert f"Hand worth {d['stake']}" in panel
        elif game == "trionfetti":
            assert d["comanda"]["text"] in panel
            groups = page.js("return document.querySelectorAll('#order .group').length")
            assert groups == len(d["comanda"]["order"])
        elif game == "troccas":
            assert "Running totals" in panel.title() or "RUNNING TOTALS" in panel.upper()
        page.shot(f"tv-{game}{'-%dp' % players if players else ''}")
        pub.stop()


def test_display_account_from_config_and_wrong_password(mosquitto_factory, page, tmp_path):
    """A password broker with docs/mqtt.md's ACL: the page logs in as the read-only display."""
    import os
    import subprocess
    import tempfile
    # mosquitto started as root drops to its own user: the files must be readable by it
    # (pytest's tmp_path is private to root).
    d = Path(tempfile.mkdtemp(prefix="ct-web-auth-"))
    os.chmod(d, 0o755)
    pw = d / "passwd"
    subprocess.run(["mosquitto_passwd", "-b", "-c", str(pw), "display", "display"], check=True)
    subprocess.run(["mosquitto_passwd", "-b", str(pw), "table-t9", "s3cret"], check=True)
    acl = d / "acl"
    acl.write_text("user display\ntopic read cardtable/v1/#\n\n"
                   "user table-t9\ntopic readwrite cardtable/v1/tables/t9/#\n")
    for f in (pw, acl):
        os.chmod(f, 0o644)
    broker = mosquitto_factory(websockets=True, password_file=pw, acl_file=acl)
    pub = StandIn(broker.port, "t9", "vitou", seed=9, username="table-t9", password="s3cret")
    scores, _ = next(pub.hands_iter())
    page.server.config.update({"ws_url": ws(broker), "username": "display", "password": "display",
                               "root": "cardtable/v1/tables/", "tables": ["t9"]})
    page.open("index.html")
    page.wait_scores(scores)
    page.open("index.html?pass=wrong")
    page.wait("return (document.body.dataset.conn || '').startsWith('refused')", what="refused")
    assert "refused" in page.text("#status").lower()
    pub.stop()
    shutil.rmtree(d, ignore_errors=True)


def test_event_gap_waits_for_the_next_snapshot(mosquitto_factory, page):
    """An event that skips a seq is not applied; the page waits for a state that new."""
    import json

    import paho.mqtt.client as mqtt
    broker = mosquitto_factory(websockets=True)
    pub = StandIn(broker.port, "gap", "vitou", seed=1)
    scores, _ = next(pub.hands_iter())
    page.open(f"index.html?broker={ws(broker)}&table=gap&config=0")
    page.wait_scores(scores)
    seq = pub.seq
    raw = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
    raw.connect("127.0.0.1", broker.port)
    raw.loop_start()
    base = "cardtable/v1/tables/gap/"
    raw.publish(base + "events", json.dumps({"seq": seq + 2, "judgment": "score", "scores": [99, 99]}), qos=1).wait_for_publish()
    page.wait("return document.body.innerText.includes('Catching up')", what="catching up")
    assert page.scores() == [str(s) for s in scores]          # the gapped event was not applied
    old = dict(pub.state(), seq=seq - 1, scores=[77, 77])       # an older state is ignored
    raw.publish(base + "state", json.dumps(old), qos=1).wait_for_publish()
    time.sleep(0.3)
    assert page.scores() == [str(s) for s in scores]
    pub.next()
    pub.next()                                                  # seq + 2 arrives as a state
    page.wait(f"return document.body.dataset.seq === '{pub.seq}' && !document.body.innerText.includes('Catching up')",
              what="resynced")
    raw.loop_stop()
    raw.disconnect()
    pub.stop()


def test_nothing_hidden_is_shown(mosquitto_factory, page):
    """Troccas: through a whole hand (the dealer's scart entered), every card on the page has
    been played face up on the table; Truco: a face-down card is drawn as a back."""
    broker = mosquitto_factory(websockets=True)
    if "troccas" in _games():
        pub = StandIn(broker.port, "hid", "troccas", seed=4)
        page.open(f"index.html?broker={ws(broker)}&table=hid&config=0")
        public: set[str] = set()
        scart: set[str] = set()
        hands_at_discard = None
        while hands_at_discard is None or len(pub.hands) == hands_at_discard:
            ev = pub.events[pub.pos]
            if ev["event"] == "discard":
                scart |= set(ev["cards"])
                hands_at_discard = len(pub.hands)
            js = pub.next()
            for j in js:
                if j["judgment"] == "trick":
                    public |= {c["card"] for c in j["cards"] if c["card"]}
            public |= {c["card"] for c in pub.referee.snapshot()["detail"]["current_trick"] if c["card"]}
            page.wait(f"return document.body.dataset.seq === '{pub.seq}'")
            shown = set(page.js("return Array.from(document.querySelectorAll('svg.card')).map(s => s.dataset.card)"))
            shown.discard("face-down")
            assert shown <= public, f"hidden cards on the page: {shown - public}"
            assert not shown & scart
        assert scart, "the simulated hand had a scart to hide"
        pub.stop()
    from controller.sim import simulator
    seed = next(s for s in range(1, 60) if any(e.get("face_down") for e in simulator("truco")(s)))
    pub = StandIn(broker.port, "fd", "truco", seed=seed)
    pub.until(lambda st: any(c["card"] is None for c in st["detail"]["current_trick"]))
    page.open(f"index.html?broker={ws(broker)}&table=fd&config=0")
    page.wait(f"return document.body.dataset.seq === '{pub.seq}'")
    assert page.js("return document.querySelectorAll('#trick svg.back').length") >= 1
    page.shot("tv-truco-face-down")
    pub.stop()


def test_keepalive_pings_hold_an_idle_link(mosquitto_factory, page):
    """With keepalive 2 s the broker drops a silent client after 3 s: PINGREQs must keep it."""
    broker = mosquitto_factory(websockets=True)
    pub = StandIn(broker.port, "ka", "vitou", seed=1)
    pub.next()
    page.open(f"index.html?broker={ws(broker)}&table=ka&config=0&keepalive=2")
    page.wait("return document.body.dataset.connects === '1'")
    time.sleep(8)     # mosquitto checks about every 5 s; without pings it drops us within 8 s
    assert page.js("return [document.body.dataset.conn, document.body.dataset.connects]") == ["connected", "1"]
    pub.stop()


def test_a_restarted_table_with_a_lower_seq_is_followed(mosquitto_factory, page):
    """After `cardtable journal repair` a table comes back online with a lower seq: the page
    takes its next state instead of freezing on the old one (docs/scoreboard.md)."""
    import json

    import paho.mqtt.client as mqtt
    broker = mosquitto_factory(websockets=True)
    pub = StandIn(broker.port, "rep", "vitou", seed=2)
    scores, _ = next(pub.hands_iter())
    page.open(f"index.html?broker={ws(broker)}&table=rep&config=0")
    page.wait_scores(scores)
    raw = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
    raw.connect("127.0.0.1", broker.port)
    raw.loop_start()
    base = "cardtable/v1/tables/rep/"
    lower = dict(pub.state(), seq=1, scores=[5, 4])
    raw.publish(base + "state", json.dumps(lower), qos=1).wait_for_publish()   # live, not retained
    time.sleep(0.3)
    assert page.scores() == [str(s) for s in scores], "a lower seq from a running table is old news"
    for status in ("offline", "online"):                                        # the table restarts
        raw.publish(base + "status", status, qos=1, retain=True).wait_for_publish()
    raw.publish(base + "state", json.dumps(lower), qos=1).wait_for_publish()
    page.wait("return document.body.dataset.seq === '1'", what="the restarted table's state")
    assert page.scores() == ["5", "4"]
    raw.loop_stop()
    raw.disconnect()
    pub.stop()
