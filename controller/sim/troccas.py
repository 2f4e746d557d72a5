"""Random legal Troccas matches for 3 to 6 players (see :mod:`controller.sim`).

Each hand is dealt from a seeded shuffled 78-card pack (the dealer's extra cards become a
random scart of non-honours); bots play a random card among those the obligations of §5.2
allow (the Fool is always allowed), play king and jack together when they may (§6.3) and
take a card back, and call *boub* / *boub, sche* when a trick triggers it (§6.2), the jack
holder swapping as the rules say. Now and then a deal is thrown in (``redeal``) or the
scart is entered with a ``discard`` event. The referee judges the events without a single
error judgment.
"""
from __future__ import annotations

import random
from typing import Any

from controller.rules import cards as _cards
from controller.rules.troccas import (FOOL, SCART, TRICKS, TRUMP, Troccas, is_honour, king_jack_takeable,
                                      led_suit, partner_card, rank, suit, trick_winner)


def _legal(hand: list[str], plays: list[tuple[int, str]]) -> list[str]:
    """§5.2 and §6.1: the cards ``hand`` may put on a trick of ``plays`` so far."""
    cards = [c for _, c in plays]
    if not cards or cards == [FOOL]:
        return list(hand)                         # leading, or second after a Fool lead
    led = led_suit(cards)
    follow = [c for c in hand if suit(c) == led]
    if not follow and led != TRUMP:
        follow = [c for c in hand if suit(c) == TRUMP]
    if not follow:
        return list(hand)
    return follow + ([FOOL] if FOOL in hand and FOOL not in follow else [])


def _deal(rng: random.Random, players: int, dealer: int) -> tuple[list[list[str]], list[str]]:
    pack = list(_cards.deck("tarot-1jj").cards)
    rng.shuffle(pack)
    hands: list[list[str]] = []
    pos = 0
    for seat in range(players):
        n = TRICKS[players] + (SCART[players] if seat == dealer else 0)
        hands.append(pack[pos:pos + n])
        pos += n
    scart: list[str] = []
    if SCART[players]:
        lay = [c for c in hands[dealer] if not is_honour(c)]
        scart = rng.sample(lay, SCART[players])
        for c in scart:
            hands[dealer].remove(c)
    return hands, scart


def _play_hand(rng: random.Random, players: int, dealer: int, opts: dict[str, Any]) -> list[dict[str, Any]]:
    ev: list[dict[str, Any]] = []
    hands, scart = _deal(rng, players, dealer)
    if scart and rng.random() < 0.3:
        ev.append({"event": "discard", "seat": dealer, "cards": list(scart)})
    boub_on = opts["boub"] and players in (4, 6)
    suits_led: set[str] = set()
    played: set[str] = set()
    leader = (dealer + 1) % players
    n_tricks = TRICKS[players]
    for n in range(1, n_tricks + 1):
        plays: list[tuple[int, str]] = []
        kj_holder = None
        for i in range(players):
            seat = (leader + i) % players
            card = rng.choice(_legal(hands[seat], plays))
            hands[seat].remove(card)
            plays.append((seat, card))
            ev.append({"event": "card", "seat": seat, "card": card})
            x = led_suit([c for _, c in plays])
            other = partner_card(card)
            last_wins = i == players - 1 and trick_winner(plays) == seat   # read as his next lead
            if (other in hands[seat] and suit(card) == x and x not in suits_led and hands[seat]
                    and not last_wins and rng.random() < 0.8):
                hands[seat].remove(other)
                plays.append((seat, other))
                ev.append({"event": "card", "seat": seat, "card": other})
                kj_holder = seat
        x = led_suit([c for _, c in plays])
        first = x not in suits_led and x not in (None, TRUMP)
        if x is not None:
            suits_led.add(x)
        winner = trick_winner(plays)
        cards = [c for _, c in plays]
        if n == n_tricks:
            break
        if kj_holder is not None:
            eligible, _ = king_jack_takeable(plays, kj_holder, players)
            take = rng.choice(eligible)
            give = next(c for s, c in plays if s == kj_holder and rank(c) in ("king", "jack"))
            ev.append({"event": "exchange", "seat": kj_holder, "give": give, "take": take})
            plays = [p for p in plays if p[1] != take]
            hands[kj_holder].append(take)
            winner = trick_winner(plays)
        elif (boub_on and x not in (None, TRUMP) and f"{x}/king" in cards and f"{x}/jack" not in cards
              and f"{x}/jack" not in played
              and (first or opts["boub_trigger"] == "king_trick") and rng.random() < 0.7):
            call = rng.choice(["boub", "boub_sche"])
            ev.append({"event": "call", "seat": winner, "call": call})
            jack = f"{x}/jack"
            holder = next((s for s in range(players) if jack in hands[s]), None)
            if holder is not None and holder != winner:
                mine = next(c for s, c in plays if s == holder)
                exempt = mine == FOOL or (call == "boub_sche" and mine in (f"{x}/queen", f"{x}/knight"))
                if not exempt:
                    ev.append({"event": "exchange", "seat": holder, "give": jack, "take": mine})
                    hands[holder].remove(jack)
                    hands[holder].append(mine)
                    plays = [(s, jack if (s == holder and c == mine) else c) for s, c in plays]
        played.update(c for _, c in plays)
        leader = winner
    return ev


def random_match(seed: int, players: int | None = None, options: dict | None = None) -> list[dict[str, Any]]:
    """The events of one whole legal Troccas match, deterministic by ``seed``."""
    rng = random.Random(seed)
    players = players or Troccas.default_players
    opts = Troccas.resolve_options(dict(options or {}))
    hands = (opts["hands_per_game"] or players) * opts["games_per_match"]
    dealer = rng.randrange(players)
    start: dict[str, Any] = {"event": "start", "game": "troccas", "dealer": dealer, "players": players}
    if options:
        start["options"] = dict(options)
    events = [start]
    for _ in range(hands):
        if players == 4 and rng.random() < 0.1:        # a deal thrown in during a pause (§4.6)
            half = _play_hand(rng, players, dealer, opts)[: rng.randrange(0, 6)]
            events += [e for e in half if e["event"] == "card"] + [{"event": "redeal"}]
        events += _play_hand(rng, players, dealer, opts)
        dealer = (dealer + 1) % players
    return events
