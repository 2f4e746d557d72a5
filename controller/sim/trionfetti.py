"""Simulated Trionfetti: four random-but-legal players under random comande.

Each smazzata the pack is shuffled and up to four hands of three cards a player are dealt
from it (so cards are unique per smazzata, §6.2); the cutter declares a comanda picked
from the §10.4 catalogue or built from the §10.3 vocabulary (with spelling variants);
players call vagaresto now and then, and an opponent accepts or refuses.
"""
from __future__ import annotations

import random
from typing import Any

from controller.rules import comanda as _comanda
from controller.rules.errors import BadComanda
from controller.rules.trionfetti import Trionfetti
from controller.sim import Recorder, start_event

_DIRS = ["più", "piu", "manco", "meno", "Più", "MANCO"]
_SETS = ["figure", "ponto", "punti", "scartine", "pari", "dispari", "primiera", "Napoli", "tutto"]
_RANKS = ["assi", "due", "tre", "4", "cinque", "sei", "sette", "8", "nove", "dieci", "fanti",
          "cavalli", "re", "13", "1"]
_NUMBERS = ["uno", "tre", "cinque", "sei", "otto", "dieci", "tredici", "5", "7", "11", "12"]
_SUITS = ["denari", "coppe", "spade", "bastoni", "strette"]
_NICKS = ["Meneghello", "Donne veneziane", "strette col palo", "settebello"]
_JOIN = [" e ", ", ", " ", " ed ", " poi "]


def random_term(rng: random.Random) -> str:
    kind = rng.randrange(7)
    d = rng.choice(_DIRS) + " " if rng.random() < 0.4 else ""
    if kind == 0:
        return d + rng.choice(_SETS)
    if kind == 1:
        return d + " ".join(rng.sample(_RANKS, rng.randint(1, 3)))
    if kind == 2:
        al = rng.choice(["al ", "all'", "fino al "])
        return d + al + rng.choice(_NUMBERS)
    if kind == 3:
        return f"{d}{rng.choice(_SUITS)} al {rng.choice(_NUMBERS)}"
    if kind == 4:
        return f"{d}{rng.choice(['figure', 'primiera', 'pari', 'dispari'])} {rng.choice(['de', 'di', 'a'])} {rng.choice(_SUITS)}"
    if kind == 5:
        return rng.choice(_NICKS)
    return rng.choice(["Componogara", "Bomba", "tutto al tredici"])


def random_declaration(rng: random.Random) -> str:
    """A declaration in the club's words: a catalogue title, or 1-4 random terms."""
    if rng.random() < 0.5:
        return rng.choice(_comanda.CATALOGUE)[1]
    parts = [random_term(rng) for _ in range(rng.randint(1, 4))]
    if rng.random() < 0.5:
        parts[0] = rng.choice(["più", "manco"]) + (rng.choice(_JOIN) + parts[0] if rng.random() < 0.7 else "")
    out = parts[0]
    for p in parts[1:]:
        out += rng.choice(_JOIN) + p
    return out


def legal_declaration(rng: random.Random, vocab: _comanda.Vocabulary | None = None) -> str:
    while True:
        text = random_declaration(rng)
        try:
            _comanda.parse(text, vocab=vocab)
            return text
        except BadComanda:
            continue


def random_match(seed: int, players: int | None = None, options: dict | None = None) -> list[dict[str, Any]]:
    """The events of a whole legal Trionfetti match (CONTRACT §3.1), deterministic by seed."""
    rng = random.Random(seed)
    rec = Recorder(start_event("trionfetti", rng, players, options))
    events, send, game = rec.events, rec.send, rec.game
    assert isinstance(game, Trionfetti)
    pack: list[str] = []
    hands: dict[int, list[str]] = {}
    dealt_for: tuple[int, int] = (0, 0)

    while not game.finished:
        if game.phase == "comanda":
            pack = list(game.deck.cards)
            rng.shuffle(pack)
            send({"event": "comanda", "seat": game.cutter, "text": legal_declaration(rng, game.vocab)})
            continue
        if (game.smazzata, game.hand) != dealt_for:     # deal three cards each from the stock
            base = 12 * (game.hand - 1)
            hands = {(game.eldest + k) % 4: pack[base + 3 * k: base + 3 * k + 3] for k in range(4)}
            dealt_for = (game.smazzata, game.hand)
        who = game.to_act()
        assert who is not None
        seat, expects = who
        if "answer" in expects:
            answerers = game.answerers()
            assert answerers is not None
            send({"event": "answer", "seat": rng.choice(answerers),
                  "answer": rng.choice(["accept", "accept", "refuse"])})
            continue
        if "call" in expects and rng.random() < 0.015:
            send({"event": "call", "seat": seat, "call": rng.choice(["vagaresto", "vaga"])})
            continue
        card = hands[seat].pop(rng.randrange(len(hands[seat])))
        send({"event": "card", "seat": seat, "card": card})
    return events
