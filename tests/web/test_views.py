"""Overlay mode, the club dashboard, the last will, and the card pictures, in Chromium."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.web.standin import StandIn

ROOT = Path(__file__).resolve().parents[2]


def ws(broker) -> str:
    return f"ws://127.0.0.1:{broker.ws_port}/"


def spawn(broker, table: str, game: str, seed: int, events: int):
    """A stand-in table in its own process (so killing it fires the broker's last will)."""
    proc = subprocess.Popen([sys.executable, "-m", "tests.web.standin", "--port", str(broker.port),
                             "--table", table, "--game", game, "--seed", str(seed), "--events", str(events)],
                            cwd=ROOT, stdout=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    assert line.startswith("ready"), line
    return proc


def kill(proc) -> None:
    if proc.poll() is None:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(5)


def test_overlay_transparent_chroma_and_delay(mosquitto_factory, page):
    broker = mosquitto_factory(websockets=True)
    pub = StandIn(broker.port, "ov", "vitou", seed=11)
    hands = pub.hands_iter()
    first, _ = next(hands)
    page.open(f"index.html?overlay=1&broker={ws(broker)}&table=ov&config=0")
    page.wait_scores(first)
    assert page.js("return getComputedStyle(document.body).backgroundColor") == "rgba(0, 0, 0, 0)"
    # stop mid-trick for the picture
    pub.until(lambda st: len(st["detail"]["current_trick"]) == 3)
    page.wait(f"return document.body.dataset.seq === '{pub.seq}'")
    assert page.js("return document.querySelectorAll('#trick svg').length") == 3
    page.shot("overlay-transparent")
    page.shot("overlay-transparent-1920", size=(1920, 1080))
    page.viewport(1280, 720)

    page.open(f"index.html?overlay=1&chroma=00ff00&broker={ws(broker)}&table=ov&config=0")
    page.wait(f"return document.body.dataset.seq === '{pub.seq}'")
    assert page.js("return getComputedStyle(document.body).backgroundColor") == "rgb(0, 255, 0)"
    page.shot("overlay-chroma")

    # A public overlay 2 s behind: it shows the new score only after the delay.
    page.open(f"index.html?overlay=1&delay=2&broker={ws(broker)}&table=ov&config=0")
    seq0 = pub.seq
    page.wait(f"return document.body.dataset.seq === '{seq0}'", timeout=6)
    scores, _ = next(hands)
    t0 = time.monotonic()
    time.sleep(1.0)
    assert page.js("return document.body.dataset.seq") == str(seq0)   # still the old state
    page.wait_scores(scores, timeout=6)
    assert time.monotonic() - t0 >= 1.8
    pub.stop()


def test_offline_when_the_publisher_dies(mosquitto_factory, page):
    broker = mosquitto_factory(websockets=True)
    proc = spawn(broker, "lw", "vitou", seed=2, events=40)
    try:
        page.open(f"index.html?broker={ws(broker)}&table=lw&config=0")
        page.wait("return document.body.dataset.status === 'online' && document.body.dataset.seq === '40'")
        kill(proc)
        page.wait("return document.body.dataset.status === 'offline'", timeout=10, what="offline from last will")
        assert "OFFLINE" in page.text("#status").upper()
        assert "offline" in page.text(".notice").lower()
        page.shot("tv-offline")
    finally:
        kill(proc)


def test_dashboard_lists_three_tables(mosquitto_factory, page):
    broker = mosquitto_factory(websockets=True)
    procs = [spawn(broker, t, g, s, n) for t, g, s, n in
             (("club1", "vitou", 4, 60), ("club2", "truco", 4, 50), ("club3", "trionfetti", 4, 30))]
    try:
        page.open(f"dashboard.html?broker={ws(broker)}&config=0&stale=3")
        page.wait("return document.body.dataset.tables === 'club1,club2,club3'", what="three tables")
        page.wait("return document.querySelectorAll('.tcard[data-status=online]').length === 3")
        for t, seq in (("club1", 60), ("club2", 50), ("club3", 30)):
            page.wait(f"return document.querySelector('.tcard[data-table={t}]').dataset.seq === '{seq}'")
        kill(procs[1])
        page.wait("return document.querySelector('.tcard[data-table=club2]').dataset.status === 'offline'",
                  what="club2 offline")
        # The live ones have said nothing for more than stale=3 s: flagged, not hidden.
        page.wait("return document.querySelector('.tcard[data-table=club1]').dataset.stale === '1'", timeout=8)
        assert "stale" in page.text(".tcard[data-table=club1]")
        page.shot("dashboard")
        page.shot("dashboard-1920", size=(1920, 1080))
    finally:
        for p in procs:
            kill(p)


def test_card_pictures_of_all_five_decks(page):
    page.open("cards.html")
    page.wait("return document.body.dataset.ready === '1'")
    counts = page.js("return Object.fromEntries(Array.from(document.querySelectorAll('.row')).map("
                     "r => [r.dataset.deck, r.querySelectorAll('svg.card:not(.back)').length]))")
    assert counts == {"trevigiane-52": 52, "tarot-1jj": 78, "french-40": 40, "french-32": 32, "french-52": 52}
    # every card drew something besides its frame, and trumps carry roman numerals
    assert page.js("return Array.from(document.querySelectorAll('svg.card')).every(s => s.children.length > 2)")
    assert page.js("return document.querySelector('svg[data-card=\"trump/21\"]').textContent.includes('XXI')")
    page.shot("cards-all-decks", size=(1280, 1000))
    page.js("document.body.innerHTML = '<div style=\"display:flex;gap:6px\">' + "
            "['clubs/10', 'hearts/9', 'diamonds/queen', 'spades/ace', 'coins/7', 'cups/3', 'swords/knight', "
            "'batons/10', 'trump/18', 'fool', null].map(c => CT.cardSVG(c, c && (c.startsWith('trump') || c === 'fool') "
            "? 'tarot-1jj' : 'trevigiane-52')).join('') + '</div>';"
            "document.querySelectorAll('svg').forEach(s => s.style.width = '100px');")
    page.shot("cards-closeup", size=(1240, 170))


def test_works_from_a_plain_file_and_waits_for_an_unknown_table(mosquitto_factory, page):
    """No web server at all (a file on the streaming PC): the query string is enough."""
    broker = mosquitto_factory(websockets=True)
    pub = StandIn(broker.port, "file1", "vitou", seed=6)
    scores, _ = next(pub.hands_iter())
    static = ROOT / "controller" / "web" / "static"
    page.d.get(f"file://{static}/index.html?overlay=1&broker={ws(broker)}&table=file1")
    page.wait_scores(scores)
    page.d.get(f"file://{static}/index.html?broker={ws(broker)}&table=nosuch")
    page.wait("return document.body.dataset.conn === 'connected'")
    assert "Waiting for a match at nosuch" in page.text()
    pub.stop()
