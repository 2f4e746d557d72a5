"""The card ids of each deck, read from ``config/decks/`` (CONTRACT §1).

The referee reads the same files (``controller.rules.cards``, which adds aliases and the
rules' error types). Vision reads them itself, so that it stays a library of its own that
needs nothing of the referee: one source of truth (the data), two small readers.
"""
from __future__ import annotations

import tomllib
from functools import cache
from pathlib import Path
from typing import Collection

DECKS_DIR = Path(__file__).resolve().parents[1] / "config" / "decks"


@cache
def _configs() -> dict[str, dict]:
    """Every deck file of ``config/decks/``: its id -> its table (suits, ranks, extra)."""
    out: dict[str, dict] = {}
    for path in sorted(DECKS_DIR.glob("*.toml")):
        if path.name == "aliases.toml":
            continue
        with path.open("rb") as f:
            d = tomllib.load(f)
        out[d["id"]] = d
    return out


@cache
def deck_cards() -> dict[str, tuple[str, ...]]:
    """Every deck of ``config/decks/``: its id -> its card ids in deck order."""
    return {i: tuple(f"{s}/{r}" for s in d["suits"] for r in d["ranks"]) + tuple(d.get("extra", ()))
            for i, d in _configs().items()}


def cards_of(deck_id: str) -> tuple[str, ...]:
    """The card ids of one deck; ``KeyError`` names the known decks."""
    try:
        return deck_cards()[deck_id]
    except KeyError:
        known = ", ".join(sorted(deck_cards()))
        raise KeyError(f"unknown deck {deck_id!r}; known decks: {known}") from None


# Suits printed in the same colour with signs of about the same size and place: a pip card and
# its twin differ only in the shape of their signs (deepPoker photos of a clubs 2 with the spades 2
# not enrolled were named the spades 2, bench/lookalike_checks.py).
COLOUR_TWINS = {"clubs": "spades", "spades": "clubs", "hearts": "diamonds", "diamonds": "hearts"}


def pips(rank: str) -> int | None:
    """How many suit signs a card of ``rank`` shows (the ace one); None for a court or trump."""
    return 1 if rank == "ace" else int(rank) if rank.isdigit() else None


def look_alikes(card: str, deck_id: str) -> tuple[tuple[str, ...], str | None]:
    """The cards of the deck a pip card of one of its suits can be taken for: (those of its suit
    with one pip more or fewer and those of its rank in the other suits but its twin, whose
    pips lie where its own do; its colour twin or None). A court, trump or unknown deck has
    none: a figure differs all over."""
    d = _configs().get(deck_id)
    suit, _, rank = card.partition("/")
    n = pips(rank)
    if d is None or n is None or suit not in d["suits"] or rank not in d["ranks"]:
        return (), None
    twin = COLOUR_TWINS.get(suit)
    twin = twin if twin in d["suits"] else None
    near = tuple(f"{suit}/{r}" for r in d["ranks"] if pips(r) in (n - 1, n + 1))
    return near + tuple(f"{s}/{rank}" for s in d["suits"] if s not in (suit, twin)), \
        None if twin is None else f"{twin}/{rank}"


def unenrolled_lookalikes(cards: Collection[str], deck_id: str) -> dict[str, tuple[str, ...]]:
    """Each of ``cards`` (those enrolled) with a look-alike the deck has and ``cards`` lack ->
    those look-alikes, its colour twin first. Such a card's face alone cannot rule them out."""
    out: dict[str, tuple[str, ...]] = {}
    for card in cards:
        near, twin = look_alikes(card, deck_id)
        lacking = tuple(c for c in (twin, *near) if c is not None and c not in cards)
        if lacking:
            out[card] = lacking
    return out
