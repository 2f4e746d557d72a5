"""Properties over random legal matches of every game (controller/sim):

- undo is exact: any run of undos followed by re-sending the undone events gives
  byte-identical judgments, and the rest of the match judges as if nothing happened;
- ``turn`` is complete and true: every event kind it lists for a seat (``expects``, and
  ``others``) has a legal instance the referee accepts from that seat, and a kind it does
  not list for a seat has none among the same candidates.
"""
from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.rules import comanda as _comanda
from controller.rules.events import SEAT_EVENTS
from controller.rules.referee import Referee, encode
from controller.sim import SIMULATORS, simulator

GAMES = sorted(SIMULATORS)
SLOW = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
_MATCHES: dict[tuple[str, int], list[dict[str, Any]]] = {}


def match(game: str, seed: int) -> list[dict[str, Any]]:
    if (game, seed) not in _MATCHES:
        _MATCHES[game, seed] = simulator(game)(seed)
    return _MATCHES[game, seed]


def judged(ref: Referee, ev: dict[str, Any]) -> str:
    return "\n".join(encode(j) for j in ref.feed_object(ev))


@SLOW
@given(game=st.sampled_from(GAMES), seed=st.integers(0, 40), at=st.floats(0, 1), undos=st.integers(1, 12))
def test_undos_then_resending_the_undone_events_is_byte_identical(game: str, seed: int, at: float,
                                                                   undos: int) -> None:
    events = match(game, seed)
    clean = [judged(Referee(), events[0])]
    ref0 = Referee()
    clean = [judged(ref0, ev) for ev in events]
    k = max(1, int(at * len(events)))
    undos = min(undos, k)
    ref = Referee()
    for ev in events[:k]:
        judged(ref, ev)
    for _ in range(undos):
        out = ref.feed_object({"event": "undo"})
        assert all(j["judgment"] != "error" for j in out), out
    for i in range(k - undos, len(events)):
        assert judged(ref, events[i]) == clean[i], (game, seed, i)
    assert encode(ref.snapshot()) == encode(ref0.snapshot())


# ----- turn is complete and true ------------------------------------------------------------
CALLS = {"vitou": ["bid"], "truco": ["truco"], "trionfetti": ["vagaresto"],
         "troccas": ["boub", "boub_sche", "king_jack"]}
COMANDA_TEXTS = [text for _, text in _comanda.CATALOGUE[:6]] + ["più"]


def candidates(ref: Referee, seat: int, kind: str) -> list[dict[str, Any]]:
    """Instances of ``kind`` from ``seat`` to try: every plausible value, legal or not."""
    g = ref.game
    assert g is not None
    base = {"event": kind, "seat": seat}
    if kind == "card":
        out = [{**base, "card": c} for c in g.unplayed_cards()]
        return out + [{**base, "face_down": True}] if g.name == "truco" else out
    if kind == "call":
        return [{**base, "call": c} for c in CALLS[g.name]]
    if kind == "answer":
        return [{**base, "answer": a} for a in ("accept", "refuse", "raise")]
    if kind == "decide":
        return [{**base, "decision": d} for d in ("play", "run", "pass")]
    if kind == "deal_option":
        return [{**base, "option": o} for o in ("keep", "pass", "burn")]
    if kind == "comanda":
        return [{**base, "text": t} for t in COMANDA_TEXTS] if g.name == "trionfetti" else []
    if kind == "discard":
        size = getattr(g, "scart_size", 0)
        if not size:
            return []
        from controller.rules.troccas import is_honour
        plain = [c for c in g.unplayed_cards() if not is_honour(c)]
        return [{**base, "cards": plain[:size]}, {**base, "cards": plain[-size:]}]
    if kind == "exchange":
        tricks = getattr(g, "tricks", None)
        if not tricks:
            return []
        lying = [c for _, c in tricks[-1]["cards"]]
        gives = sorted({c for c in g.deck.cards if c.endswith(("/king", "/jack"))})
        return [{**base, "give": a, "take": b} for a in gives for b in lying]
    return []


def accepted(ref: Referee, ev: dict[str, Any]) -> bool:
    """Is ``ev`` accepted now? (Taken back at once: undo is exact, see above.)"""
    out = ref.feed_object(ev)
    if any(j["judgment"] == "error" for j in out):
        return False
    assert all(j["judgment"] != "error" for j in ref.feed_object({"event": "undo"}))
    return True


@SLOW
@given(game=st.sampled_from(GAMES), seed=st.integers(0, 40), at=st.floats(0, 1))
def test_every_listed_kind_is_accepted_and_no_unlisted_kind_is(game: str, seed: int, at: float) -> None:
    events = match(game, seed)
    k = max(1, min(len(events) - 1, int(at * len(events))))
    ref = Referee()
    for ev in events[:k]:
        ref.feed_object(ev)
    turn = ref.snapshot()["turn"]
    assert turn is not None
    listed = {turn["seat"]: turn["expects"], **{o["seat"]: o["expects"] for o in turn.get("others", [])}}
    before = encode(ref.snapshot())
    for seat in range(ref.game.players):
        for kind in SEAT_EVENTS:
            ok = any(accepted(ref, ev) for ev in candidates(ref, seat, kind))
            assert ok == (kind in listed.get(seat, [])), (game, seed, k, seat, kind, turn)
    assert encode(ref.snapshot()) == before
