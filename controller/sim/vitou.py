"""Simulated Vitou: four random-but-legal players, dealt three cards each per hand."""
from __future__ import annotations

import random
from typing import Any

from controller.rules.vitou import Vitou
from controller.sim import Recorder, start_event


def random_match(seed: int, players: int | None = None, options: dict | None = None) -> list[dict[str, Any]]:
    """The events of a whole legal Vitou match (CONTRACT §3.1), deterministic by seed."""
    rng = random.Random(seed)
    rec = Recorder(start_event("vitou", rng, None, options))
    events, send, game = rec.events, rec.send, rec.game
    assert isinstance(game, Vitou)
    hands: dict[int, list[str]] = {}
    dealt_for = 0

    while not game.finished:
        if game.hand != dealt_for:                      # a new hand: shuffle and deal
            pack = list(game.deck.cards)
            rng.shuffle(pack)
            hands = {s: pack[3 * s: 3 * s + 3] for s in range(4)}
            dealt_for = game.hand
        who = game.to_act()
        assert who is not None
        seat, expects = who
        if "decide" in expects:
            choices = ["play", "pass"] if game.phase == "pass20" else ["play", "play", "run"]
            if game.phase == "decide20":
                seat = rng.choice([s for s in range(4) if game.team(s) == game.at_twenty])
            send({"event": "decide", "seat": seat, "decision": rng.choice(choices)})
            continue
        if "answer" in expects and rng.random() < 0.15:
            send({"event": "answer", "seat": seat, "answer": "refuse"})
            continue
        if "call" in expects and rng.random() < 0.2:
            send({"event": "call", "seat": seat, "call": "bid"})
            continue
        card = hands[seat].pop(rng.randrange(len(hands[seat])))
        send({"event": "card", "seat": seat, "card": card})
    return events
