"""One random-legal-match test for all four games (open_spiel style).

Whole simulated matches must be judged without a single error, end in a match result,
judge identically twice (a replayed journal gives the same judgments), and undo must
walk the state back through exactly the snapshots it passed.
"""
from __future__ import annotations

import json

import pytest

from controller.rules.referee import Referee
from controller.sim import SIMULATORS, simulator

GAME_SIZES = [("vitou", 4), ("truco", 4), ("trionfetti", 4), ("troccas", 3), ("troccas", 4),
              ("troccas", 5), ("troccas", 6)]


def judged(events: list[dict]) -> tuple[Referee, list[str], list[dict]]:
    ref, out, snaps = Referee(), [], []
    for ev in events:
        js = ref.feed_object(ev)
        assert not [j for j in js if j["judgment"] == "error"], (ev, js)
        out += [json.dumps(j) for j in js]
        snaps.append(ref.snapshot())
    return ref, out, snaps


def test_every_game_has_a_simulator() -> None:
    from controller.rules import GAMES
    assert set(SIMULATORS) == set(GAMES)


@pytest.mark.parametrize("game,players", GAME_SIZES)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_random_legal_match(game: str, players: int, seed: int) -> None:
    events = simulator(game)(seed, players=players)
    assert events[0]["event"] == "start" and events[0].get("players", 4) == players
    ref, out, snaps = judged(events)
    assert ref.game is not None and ref.game.finished
    assert any('"judgment": "match"' in line for line in out)
    _, again, _ = judged(events)
    assert again == out
    for k in range(len(events) - 1, max(0, len(events) - 40), -1):
        assert ref.feed_object({"event": "undo"})[0]["judgment"] != "error"
        assert ref.snapshot() == snaps[k - 1]
