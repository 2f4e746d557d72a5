"""The pure rules engine: cards, events, one module per game, and the referee.

Nothing in this package does I/O (but the ``cardtable referee`` CLI entry point in
:mod:`controller.rules.referee`), reads clocks or keeps global state.
"""
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from controller.rules.engine import Game

# The `start` event's `game` -> the class that judges it. Imported on first use.
GAMES: dict[str, str] = {
    "vitou": "controller.rules.vitou:Vitou",
    "truco": "controller.rules.truco:Truco",
    "trionfetti": "controller.rules.trionfetti:Trionfetti",
    "troccas": "controller.rules.troccas:Troccas",
}


def find_game(name: str) -> type["Game"]:
    """The game class for a `start` event's ``game`` (any case; no blanks around it, so a
    typo is an error rather than a guess). KeyError if unknown."""
    target = GAMES[name.lower()]
    module, _, cls = target.partition(":")
    return getattr(importlib.import_module(module), cls)
