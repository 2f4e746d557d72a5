"""Simulated players: whole legal matches, dealt from a shuffled pack and played by
simple random-but-legal bots.

One module per game, each with ``random_match(seed, players=None, options=None) ->
list[dict]``: the contract events (CONTRACT §3.1) of a complete match that the referee
accepts without a single error. They feed the random-playout tests, ``bench/referee.py``
and the ``cardtable demo`` script. Pure and deterministic by seed.
"""
from __future__ import annotations

import importlib
import random
from typing import Any, Callable

from controller.rules.engine import Game
from controller.rules.referee import Referee

SIMULATORS: dict[str, str] = {
    "vitou": "controller.sim.vitou:random_match",
    "truco": "controller.sim.truco:random_match",
    "trionfetti": "controller.sim.trionfetti:random_match",
    "troccas": "controller.sim.troccas:random_match",
}


def simulator(game: str) -> Callable[..., list[dict[str, Any]]]:
    """``random_match`` of ``game``; KeyError if unknown."""
    module, _, func = SIMULATORS[game].partition(":")
    return getattr(importlib.import_module(module), func)


def start_event(game: str, rng: random.Random, players: int | None, options: dict | None) -> dict[str, Any]:
    """A ``start`` event with a random dealer (and the table size and options if given)."""
    start: dict[str, Any] = {"event": "start", "game": game, "dealer": rng.randrange(players or 4)}
    if players is not None:
        start["players"] = players
    if options:
        start["options"] = dict(options)
    return start


class Recorder:
    """A referee that keeps the events it accepts; a rejected event is a bug in the bots."""

    def __init__(self, start: dict[str, Any]) -> None:
        self.ref = Referee()
        self.events: list[dict[str, Any]] = []
        self.send(start)
        assert self.ref.game is not None
        self.game: Game = self.ref.game

    def send(self, event: dict[str, Any]) -> list[dict[str, Any]]:
        out = self.ref.feed_object(event)
        errors = [j for j in out if j["judgment"] == "error"]
        assert not errors, (event, errors)
        self.events.append(event)
        return out
