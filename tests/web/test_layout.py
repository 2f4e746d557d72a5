"""What people see, at the two TV sizes (1920x1080, 1280x720): nothing important covered,
the text readable, everything inside the screen. Element rectangles come from Chromium;
screenshots go to artifacts/screenshots/layout-*.png (look at them)."""
from __future__ import annotations

import json

import pytest

from tests.web.standin import StandIn, dumps

SIZES = [(1920, 1080), (1280, 720)]

# JS: the rectangles of every element matching a selector, visible ones only.
RECTS = """
return Array.from(document.querySelectorAll(arguments[0])).map(e => {
  const r = e.getBoundingClientRect();
  return {x: r.left, y: r.top, w: r.width, h: r.height, text: e.innerText || ''};
}).filter(r => r.w > 0 && r.h > 0);
"""


def ws(broker) -> str:
    return f"ws://127.0.0.1:{broker.ws_port}/"


def rects(page, css: str) -> list[dict]:
    return page.js(RECTS, css)


def overlap(a: dict, b: dict) -> bool:
    return a["x"] < b["x"] + b["w"] - 0.5 and b["x"] < a["x"] + a["w"] - 0.5 and \
        a["y"] < b["y"] + b["h"] - 0.5 and b["y"] < a["y"] + a["h"] - 0.5


def assert_apart(page, css_a: str, css_b: str) -> None:
    ra, rb = rects(page, css_a), rects(page, css_b)
    assert ra and rb, f"nothing visible for {css_a!r} ({len(ra)}) or {css_b!r} ({len(rb)})"
    same = css_a == css_b
    bad = [(a, b) for i, a in enumerate(ra) for j, b in enumerate(rb) if (not same or i < j) and overlap(a, b)]
    assert not bad, f"{css_a} overlaps {css_b}: {bad[:2]}"


def assert_inside(page, css: str, size: tuple[int, int]) -> None:
    w, h = size
    rs = rects(page, css)
    assert rs, f"nothing visible for {css!r}"
    out = [r for r in rs if r["x"] < -0.5 or r["y"] < -0.5 or r["x"] + r["w"] > w + 0.5 or r["y"] + r["h"] > h + 0.5]
    assert not out, f"{css} outside the {w}x{h} screen: {out[:2]}"


def assert_within(page, css: str, box: str) -> None:
    """Every ``css`` element lies inside its ``box`` ancestor (not clipped by its overflow)."""
    out = page.js("""return Array.from(document.querySelectorAll(arguments[0])).filter(e => {
      const b = e.closest(arguments[1]); if (!b) return true;
      const r = e.getBoundingClientRect(), q = b.getBoundingClientRect();
      return r.left < q.left - .5 || r.top < q.top - .5 || r.right > q.right + .5 || r.bottom > q.bottom + .5;
    }).map(e => e.outerHTML.slice(0, 120));""", css, box)
    assert not out, f"{css} spills out of its {box}: {out[:2]}"


def fits(page, size: tuple[int, int]) -> None:
    sw, sh = page.js("return [document.documentElement.scrollWidth, document.documentElement.scrollHeight]")
    assert sw <= size[0] and sh <= size[1], f"page is {sw}x{sh}, screen {size}"


def hold_flash(page) -> None:
    """Keep the latest event's banner on screen (it normally goes after 3.5 s)."""
    page.wait("return !!CT.table && !!CT.table.state")
    page.js("CT.table.flash = {judgment: {judgment: 'hand', winner: 0, points: 3, hand: 9}, at: Date.now() + 60000};"
            "CT.render();")
    page.wait("return !!document.querySelector('#flash .flash')", what="banner shown")


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_tv_cards_names_banner_and_turn_text(mosquitto_factory, page, size):
    broker = mosquitto_factory(websockets=True)
    pub = StandIn(broker.port, "lay", "vitou", seed=5)
    # several hands on the sheet, then a full trick of four cards on the table
    pub.until(lambda st: len(pub.hands) >= 5 and len(st["detail"]["current_trick"]) == 3)
    page.viewport(*size)
    page.open(f"index.html?broker={ws(broker)}&table=lay&config=0")
    page.wait(f"return document.body.dataset.seq === '{pub.seq}'", what="seq")
    assert len(rects(page, "#trick .played")) == 3
    assert_apart(page, "#trick .played", "#trick .seat")
    assert_apart(page, "#trick .played", "#trick .played")
    turn = page.text("#turn")
    seat = pub.referee.snapshot()["turn"]["seat"]
    assert turn.startswith(pub.names[seat] + " to play a card"), turn
    assert "(" not in turn and ", to" not in turn, turn
    hold_flash(page)
    assert_apart(page, "#flash .flash", ".hands li")
    assert_apart(page, "#flash .flash", "#trick .seat")
    assert_apart(page, "#flash .flash", "[id^=score-]")
    for css in (".hands li", "#trick .seat", "#trick .played", "[id^=score-]", "#turn", "header"):
        assert_inside(page, css, size)
    for css in (".hands li", "#turn", "#gamepanel"):
        assert_within(page, css, ".info")
    assert_within(page, "#trick .seatblock", "#trick")
    fits(page, size)
    page.shot(f"layout-tv-{size[0]}")
    pub.stop()


@pytest.mark.parametrize("players", [3, 5])
def test_tv_solo_troccas_fits(mosquitto_factory, page, players):
    broker = mosquitto_factory(websockets=True)
    pub = StandIn(broker.port, f"so{players}", "troccas", seed=3, players=players)
    pub.until(lambda st: len(pub.hands) >= 2 and len(st["detail"]["current_trick"]) == players - 1)
    for size in SIZES:
        page.viewport(*size)
        page.open(f"index.html?broker={ws(broker)}&table=so{players}&config=0")
        page.wait(f"return document.body.dataset.seq === '{pub.seq}'", what="seq")
        assert_apart(page, "#trick .played", "#trick .seat")
        hold_flash(page)
        assert_apart(page, "#flash .flash", ".sheet tr.handrow")
        for css in (".sheet tr.handrow", "#trick .seat", "[id^=score-]", ".sheet"):
            assert_inside(page, css, size)
        for css in (".sheet", ".sheet td", "#turn"):
            assert_within(page, css, ".info")
        assert_within(page, "#trick .seatblock", "#trick")
        fits(page, size)
        page.shot(f"layout-tv-troccas{players}-{size[0]}")
    pub.stop()


def test_turn_text_reads_as_a_sentence(page):
    """Each `expects` combination the engines produce, as the TV words it."""
    page.open("index.html?config=0&broker=ws://127.0.0.1:9/")
    page.wait("return !!CT.turnText")
    cases = {
        ("vitou", ("card",)): "Anna to play a card",
        ("vitou", ("card", "call")): "Anna to play a card or bid",
        ("vitou", ("card", "call", "answer")): "Anna to play a card, raise the bid or refuse it",
        ("truco", ("answer",)): "Anna to accept, refuse or raise",
        ("truco", ("card", "call", "deal_option")): "Anna to play a card, call truco or keep, pass or burn the deal",
        ("trionfetti", ("comanda",)): "Anna to declare the comanda",
        ("troccas", ("exchange",)): "Anna to exchange a card",
    }
    for (game, expects), want in cases.items():
        got = page.js("return CT.turnText(arguments[0], arguments[1], 'Anna')", game, list(expects))
        assert got == want, (game, expects, got)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("game,players", [("vitou", None), ("troccas", 5)])
def test_overlay_game_name_and_labelled_games(mosquitto_factory, page, size, game, players):
    broker = mosquitto_factory(websockets=True)
    pub = StandIn(broker.port, "ovl", game, seed=11, players=players)
    pub.until(lambda st: len(st["detail"]["current_trick"]) == (players or 4) - 1 and len(pub.hands) >= 2)
    page.viewport(*size)
    page.open(f"index.html?overlay=1&broker={ws(broker)}&table=ovl&config=0&chroma=00ff00")
    page.wait(f"return document.body.dataset.seq === '{pub.seq}'", what="seq")
    assert page.text("#ogame") == game.capitalize()
    games = pub.referee.snapshot()["detail"].get("games")
    if games is None:         # Troccas counts hands in a game, not games won
        games = [0] * len(pub.referee.snapshot()["scores"])
    for i in range(len(games)):
        label = page.text(f"#games-{i}")
        assert label.lower().startswith("games") and str(games[i]) in label, label
    stake = ("#stake",) if game != "troccas" else ()        # Troccas has no stake
    for a in ("#ogame", ".oside", "#trick", "#turn", *stake):
        assert_inside(page, a, size)
    assert_apart(page, ".oside", "#trick")
    assert_apart(page, ".oside", "#ogame")
    assert_apart(page, "#turn", "#trick .cardwrap")
    if stake:
        assert_apart(page, "#stake", "#trick .cardwrap")
    assert_apart(page, ".oside", ".oside")
    assert_apart(page, "#trick .cardwrap", "#trick .cardwrap")
    fits(page, size)
    page.shot(f"layout-overlay-{game}-{size[0]}")
    pub.stop()


def _room(broker) -> list[StandIn]:
    """Six tables of the four games; one waits for the referee (a pending card and an alert)."""
    pubs = []
    for i, (game, players) in enumerate([("vitou", None), ("truco", None), ("trionfetti", None),
                                         ("troccas", 3), ("vitou", None), ("troccas", 4)]):
        p = StandIn(broker.port, f"room{i + 1}", game, seed=i + 2, players=players)
        p.until(lambda st, p=p: len(p.hands) >= 1 and p.last_trick is not None
                and len(st["detail"]["current_trick"]) >= 1)
        pubs.append(p)
    p = pubs[1]
    st = p.state()
    st.update(status="confirm", pending={"seat": 2, "card": None, "confidence": 0.41, "reason": "low_confidence"},
              alerts=[{"code": "revoke", "seat": 1, "message": "seat 1 showed void in hearts and played hearts"}])
    p.seq += 1
    st["seq"] = p.seq
    p.client.publish(p.topic("state"), dumps(st), qos=1, retain=True)
    return pubs


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_dashboard_is_a_room_view(mosquitto_factory, page, size):
    broker = mosquitto_factory(websockets=True)
    pubs = _room(broker)
    page.viewport(*size)
    page.open(f"dashboard.html?broker={ws(broker)}&config=0")
    page.wait("return document.querySelectorAll('.tcard[data-status=online]').length === 6", what="6 online")
    for p in pubs:
        p.flush()
    page.wait(f"return document.querySelector('.tcard[data-table=room2]').dataset.seq === '{pubs[1].seq}'")
    cards = rects(page, ".tcard")
    assert len(cards) == 6
    for i, a in enumerate(cards):
        for b in cards[i + 1:]:
            assert not overlap(a, b), (a, b)
    assert_inside(page, ".tcard", size)
    fits(page, size)
    # the cards fill the TV: together at least 70 % of the screen
    assert sum(r["w"] * r["h"] for r in cards) >= 0.7 * size[0] * size[1], cards
    for p in pubs:
        snap = p.referee.snapshot()
        card = f".tcard[data-table={p.table}]"
        text = page.text(card)
        assert {"vitou": "Vitou", "truco": "Truco", "trionfetti": "Trionfetti", "troccas": "Troccas"}[p.game] in text
        assert page.js(f"return Array.from(document.querySelectorAll('{card} .dscore')).map(e => e.textContent.trim())") \
            == [str(s) for s in snap["scores"]]
        if snap.get("turn"):
            assert p.names[snap["turn"]["seat"]] in page.text(f"{card} .dturn"), page.text(f"{card} .dturn")
        last = page.js(f"return Array.from(document.querySelectorAll('{card} .dlast svg')).map(s => s.dataset.card)")
        assert last == [c["card"] for c in p.last_trick["cards"]], (p.table, last)
        assert_inside(page, f"{card} .dlast svg", size)
    assert_apart(page, ".dcard", ".dscores td")
    assert_apart(page, ".dcard", ".dturn")
    for css in (".thead", ".dscores", ".dturn", ".dtrick .dcard", ".dlast .dcard", ".dalerts"):
        assert_within(page, css, ".tcard")
    alert = page.text(".tcard[data-table=room2] .dalerts")
    assert "Carla" in alert and "revoke" in alert.lower(), alert
    assert not page.js("return document.querySelector('.tcard[data-table=room1] .dalerts')")
    page.shot(f"layout-dashboard-{size[0]}")
    for p in pubs:
        p.stop()


@pytest.mark.parametrize("n", [1, 12])
def test_dashboard_scales_from_one_table_to_twelve(mosquitto_factory, page, n):
    broker = mosquitto_factory(websockets=True)
    pubs = []
    for i in range(n):
        p = StandIn(broker.port, f"s{i + 1:02d}", "vitou", seed=i + 1)
        p.until(lambda st, p=p: len(p.hands) >= 1 and p.last_trick is not None
                and len(st["detail"]["current_trick"]) >= 1)
        pubs.append(p)
    size = (1280, 720)
    page.viewport(*size)
    page.open(f"dashboard.html?broker={ws(broker)}&config=0")
    page.wait(f"return document.querySelectorAll('.tcard[data-status=online]').length === {n}", what=f"{n} online")
    cards = rects(page, ".tcard")
    assert len(cards) == n
    if n > 1:
        assert_apart(page, ".tcard", ".tcard")
    assert_inside(page, ".tcard", size)
    fits(page, size)
    assert sum(r["w"] * r["h"] for r in cards) >= 0.7 * size[0] * size[1]
    for css in (".thead", ".dscores", ".dturn", ".dtrick .dcard", ".dlast .dcard"):
        assert_within(page, css, ".tcard")
    assert_apart(page, ".dcard", ".dscores td")
    page.shot(f"layout-dashboard-{n}-tables-1280")
    for p in pubs:
        p.stop()
