"""Simulated Truco: four random-but-legal players, dealt from a shuffled 40-card pack.

Mão keeps, passes or burns sets within the §4.3 limits; players call truco, answer with
accept, refuse or a legal raise (either member of the answering team), decide in hands of
eleven, play face down in tricks 2 and 3, and the human referee rules an occasional
penalty. Cards come from each seat's dealt hand, so burned cards never reappear.
"""
from __future__ import annotations

import random
from typing import Any

from controller.rules.truco import Truco
from controller.sim import Recorder, start_event


def _deal(game: Truco, rng: random.Random) -> tuple[dict[int, list[str]], list[dict[str, Any]]]:
    """Shuffle and deal one hand; returns each seat's cards and mão's deal-option events."""
    pack = list(game.deck.cards)
    rng.shuffle(pack)
    hands: dict[int, list[str]] = {}
    options: list[dict[str, Any]] = []
    mao, partner = game.mao, game.next_seat(game.next_seat(game.mao))
    if game.kind == "normal":
        passes = rejected = 0
        while True:
            dealt, pack = pack[:3], pack[3:]
            choices = ["keep"]
            if rejected < 3:
                choices += ["burn"] + (["pass"] if passes == 0 else [])
            choice = rng.choice(choices) if rng.random() < 0.4 else "keep"
            if choice == "keep":
                hands[mao] = dealt
                if rng.random() < 0.5:       # an unannounced keep is implied by the first card
                    options.append({"event": "deal_option", "seat": mao, "option": "keep"})
                break
            ev: dict[str, Any] = {"event": "deal_option", "seat": mao, "option": choice}
            if choice == "pass":
                hands[partner] = dealt
                passes += 1
            elif rng.random() < 0.8:
                ev["cards"] = dealt
            options.append(ev)
            rejected += 1
    for seat in range(game.players):
        if seat not in hands:
            hands[seat], pack = pack[:3], pack[3:]
    return hands, options


def random_match(seed: int, players: int | None = None, options: dict | None = None) -> list[dict[str, Any]]:
    """The events of a whole legal Truco match (CONTRACT §3.1), deterministic by seed."""
    rng = random.Random(seed)
    rec = Recorder(start_event("truco", rng, players, options))
    events, send, game = rec.events, rec.send, rec.game
    assert isinstance(game, Truco)
    hands: dict[int, list[str]] = {}
    dealt_for = 0

    while not game.finished:
        if game.hand != dealt_for:                      # a new hand: shuffle and deal
            hands, deal_events = _deal(game, rng)
            dealt_for = game.hand
            for ev in deal_events:
                send(ev)
            continue
        roll = rng.random()
        if roll < 0.01:                                  # the human referee rules an irregularity
            send({"event": "penalty", "team": rng.randrange(2), "offence": "talking about cards held"})
            continue
        if roll < 0.0115:                                # §10.4: a surplus card to the dealer's opponents
            send({"event": "penalty", "team": game.team(game.dealer), "offence": "surplus_card"})
            continue
        who = game.to_act()
        assert who is not None
        seat, expects = who
        if "decide" in expects:
            seat = rng.choice([s for s in range(game.players) if game.team(s) == game.at_eleven])
            send({"event": "decide", "seat": seat, "decision": rng.choice(["play", "play", "play", "run"])})
            continue
        if "answer" in expects:
            seat = rng.choice([seat, (seat + 2) % game.players])     # either opponent answers
            answers = ["accept", "accept", "refuse"] + (["raise"] if game.may_raise(seat) else [])
            send({"event": "answer", "seat": seat, "answer": rng.choice(answers)})
            continue
        if "call" in expects and rng.random() < 0.15:
            send({"event": "call", "seat": seat, "call": "truco"})
            continue
        hand = hands[seat]
        card = hand.pop(rng.randrange(len(hand)))
        if game.trick > 1 and game.kind != "iron" and rng.random() < 0.1:
            send({"event": "card", "seat": seat, "face_down": True})
        else:
            send({"event": "card", "seat": seat, "card": card})
    return events
