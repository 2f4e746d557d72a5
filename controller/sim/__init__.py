"""Simulated players: whole legal matches, dealt from a shuffled pack and played by
simple random-but-legal bots.

One module per game, each with ``random_match(seed, players=None, options=None) ->
list[dict]``: the contract events (CONTRACT §3.1) of a complete match that the referee
accepts without a single error. They feed the random-playout tests, ``bench/referee.py``
and the ``cardtable demo`` script. Pure and deterministic by seed.
"""
from __future__ import annotations

import importlib
from typing import Any, Callable

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
