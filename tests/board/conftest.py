"""Fixtures: a board panel on the simulator behind a real pty, closed afterwards."""
from __future__ import annotations

from typing import Callable, Iterator

import pytest

from controller.board import BoardPanel, open_board


@pytest.fixture
def sim_panel() -> Iterator[Callable[..., BoardPanel]]:
    """``sim_panel("drop:0.01", seed=2)`` -> a connected BoardPanel on a fresh simulator."""
    panels: list[BoardPanel] = []

    def make(faults: str = "", seed: int = 1, **query: int) -> BoardPanel:
        extra = "".join(f"&{k}={v}" for k, v in query.items())
        panel = open_board(f"sim://?faults={faults}&seed={seed}{extra}", connect_timeout=15)
        panels.append(panel)
        return panel

    yield make
    for p in panels:
        p.close()
