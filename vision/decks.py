"""The card ids of each deck, read from ``config/decks/`` (CONTRACT §1).

The referee reads the same files (``controller.rules.cards``, which adds aliases and the
rules' error types). Vision reads them itself, so that it stays a library of its own that
needs nothing of the referee: one source of truth (the data), two small readers.
"""
from __future__ import annotations

import tomllib
from functools import cache
from pathlib import Path

DECKS_DIR = Path(__file__).resolve().parents[1] / "config" / "decks"


@cache
def deck_cards() -> dict[str, tuple[str, ...]]:
    """Every deck of ``config/decks/``: its id -> its card ids in deck order."""
    out: dict[str, tuple[str, ...]] = {}
    for path in sorted(DECKS_DIR.glob("*.toml")):
        if path.name == "aliases.toml":
            continue
        with path.open("rb") as f:
            d = tomllib.load(f)
        out[d["id"]] = (tuple(f"{s}/{r}" for s in d["suits"] for r in d["ranks"])
                        + tuple(d.get("extra", ())))
    return out


def cards_of(deck_id: str) -> tuple[str, ...]:
    """The card ids of one deck; ``KeyError`` names the known decks."""
    try:
        return deck_cards()[deck_id]
    except KeyError:
        known = ", ".join(sorted(deck_cards()))
        raise KeyError(f"unknown deck {deck_id!r}; known decks: {known}") from None
