"""The serial LED/button board (its simulator over a real pty) as one of the table's panels."""
from __future__ import annotations


from controller.board import open_board
from controller.journal import Journal
from controller.mqtt import NullLink
from controller.table import Table

from .helpers import pump

START = {"event": "start", "game": "vitou", "dealer": 3, "players": 4}


def test_board_buttons_and_unplug(tmp_path):
    board = open_board("sim://", connect_timeout=5)
    link = NullLink()
    t = Table(Journal(tmp_path / "j"), link, table_id="t", start_event=START, panels=[board])
    try:
        t.open()
        sim = board.simulator
        seat = t.ts.turn()[0]
        sim.press(seat)                                   # a short press at the seat to play: bid
        assert pump(t, lambda: any(e["judgment"] == "call" for e in link.events))
        sim.unplug(for_s=1.0)
        assert pump(t, lambda: link.state["status"] == "fault")
        assert link.state["fault"]["code"] == "board_lost"
        assert pump(t, lambda: link.state["status"] == "ok", 15)
        assert link.alerts[-1]["code"] == "board_back"
    finally:
        t.close()
