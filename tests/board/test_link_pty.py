"""End to end over a real pty: host driver, simulator, firmware, under every fault."""
from __future__ import annotations

import time

import pytest

from controller.board import BoardPanel
from controller.panel import ButtonPress, Panel
from firmware import messages

FAULTS = {
    "clean": "",
    "drop": "drop:0.01",
    "flip": "flip:0.01",
    "dup": "dup:0.01",
    "garbage": "garbage:0.01",
    "delay": "delay:0.01",
    "all": "drop:0.005,flip:0.005,dup:0.005,garbage:0.005,delay:0.005",
}


def drive_commands(panel: BoardPanel, n: int) -> list[tuple]:
    """Send n varied commands; what the board's applied log must then read."""
    want: list[tuple] = []
    for i in range(n):
        k = i % 4
        if k == 0:
            panel.show_turn(i % 4)
            want.append((messages.TURN, (i % 4,)))
        elif k == 1:
            panel.show_scores([i, -i])
            want.append((messages.SCORES, ((i, -i),)))
        elif k == 2:
            panel.ask_confirmation(None)
            want.append((messages.CONFIRM, (None,)))
        else:
            panel.set_status("fault")
            want.append((messages.STATUS, (2,)))
    return want


def collect_presses(panel: BoardPanel, n: int, timeout: float) -> list[ButtonPress]:
    got: list[ButtonPress] = []
    end = time.monotonic() + timeout
    while len(got) < n and time.monotonic() < end:
        got += panel.presses()
        time.sleep(0.01)
    time.sleep(0.3)  # anything extra (a duplicate) would show up now
    return got + panel.presses()


@pytest.mark.parametrize("name", FAULTS)
def test_every_led_command_applied_exactly_once_in_order(sim_panel, name: str) -> None:
    panel = sim_panel(FAULTS[name])
    want = drive_commands(panel, 60)
    assert panel.wait_idle(30)
    assert panel.simulator.applied == want  # nothing lost, doubled, reordered or garbled


@pytest.mark.parametrize("name", FAULTS)
def test_every_press_reaches_the_host_exactly_once_in_order(sim_panel, name: str) -> None:
    panel = sim_panel(FAULTS[name], seed=2)
    sim = panel.simulator
    order = [2, 0, 3, 1, 1, 2]
    t = 0.0
    for seat in order:
        t = sim.press(seat, after_s=t) + 0.03
    got = collect_presses(panel, len(order), 20)
    assert got == [ButtonPress(s, "short") for s in order]


def test_corruption_is_counted_and_never_applied(sim_panel) -> None:
    panel = sim_panel("flip:0.03,garbage:0.02", seed=5)
    want = drive_commands(panel, 40)
    assert panel.wait_idle(60)
    assert panel.simulator.applied == want
    assert panel.stats()["bad_frames"] + panel.simulator.board.link.stats["bad_frames"] > 0
    assert panel.simulator.board.errors == 0


def test_host_reconnects_after_unplug_and_nothing_is_lost(sim_panel) -> None:
    panel = sim_panel()
    sim = panel.simulator
    panel.show_turn(1)
    assert panel.wait_idle(5)
    sim.unplug(for_s=0.5)
    time.sleep(0.1)
    panel.show_turn(2)            # sent while the cable is out
    sim.press(3, after_s=0.1)     # pressed while the cable is out
    assert sim.wait_for(lambda: panel.link.connects >= 2, 10)
    assert panel.wait_idle(10)
    assert [a for a in sim.applied if a[0] == messages.TURN] == [(messages.TURN, (1,)), (messages.TURN, (2,))]
    assert collect_presses(panel, 1, 5) == [ButtonPress(3, "short")]
    assert panel.stats()["disconnects"] >= 1


def test_board_reboot_gets_the_whole_display_again(sim_panel) -> None:
    panel = sim_panel()
    sim = panel.simulator
    panel.show_turn(3)
    panel.ask_confirmation(1)
    panel.set_status("confirm")
    panel.show_scores([5, 9])
    assert panel.wait_idle(5)
    sim.unplug(for_s=0.3, reboot=True)
    assert sim.wait_for(lambda: sim.boots == 2 and panel.info is not None and panel.connected, 10)
    state = panel.query_state(5)
    assert (state.turn, state.confirm, state.status, state.scores) == (3, 1, "confirm", (5, 9))
    assert panel.stats()["board_restarts"] == 1


def test_the_board_panel_is_a_panel(sim_panel) -> None:
    panel: Panel = sim_panel()
    panel.show_turn(None)
    panel.flash_winner(None)
    panel.ask_confirmation(None)
    panel.set_status("offline")
    panel.show_scores([])
    assert panel.presses() == []
    panel.close()
    panel.close()  # twice is fine


def test_bad_status_is_a_value_error(sim_panel) -> None:
    with pytest.raises(ValueError):
        sim_panel().set_status("sleepy")  # type: ignore[arg-type]


def test_simulator_records_led_history(sim_panel) -> None:
    panel = sim_panel()
    panel.show_turn(0)
    assert panel.wait_idle(5)
    sim = panel.simulator
    assert sim.wait_for(lambda: sim.leds()[0][1] > 0, 2)
    assert len(sim.pixels.history) >= 1


def test_fault_tells_the_table_loop_while_the_board_is_away(sim_panel) -> None:
    panel = sim_panel()
    assert panel.fault == ""
    panel.simulator.unplug(for_s=0.6)
    assert panel.simulator.wait_for(lambda: "unplugged" in panel.fault, 3)
    assert panel.simulator.wait_for(lambda: panel.fault == "", 5)
