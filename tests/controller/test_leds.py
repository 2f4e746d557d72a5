"""gpiozero panel on gpiozero's own MockFactory: pin states and timings, injected clock."""
from __future__ import annotations

import pytest
from gpiozero.pins.mock import MockFactory

from controller.buttons import press_event, press_for
from controller.leds import GpioPanel
from controller.panel import ButtonPress
from .helpers import Clock

LEDS, BUTTONS, STATUS = [5, 6, 13, 19], [17, 27, 22, 23], {"ok": 24, "confirm": 25, "fault": 12}


@pytest.fixture
def rig():
    clock, factory = Clock(0.0), MockFactory()
    panel = GpioPanel(LEDS, BUTTONS, STATUS, clock=clock, pin_factory=factory, long_press=0.8,
                      flash_seconds=1.0, blink_seconds=0.25)
    yield panel, factory, clock
    panel.close()
    panel.close()                     # twice is fine


def lit(factory, pins):
    return [factory.pin(p).state for p in pins]


def test_turn_led_and_status(rig):
    panel, f, clock = rig
    panel.show_turn(2)
    assert lit(f, LEDS) == [False, False, True, False]
    assert lit(f, [24, 25, 12]) == [True, False, False]
    panel.set_status("fault")
    assert lit(f, [24, 25, 12]) == [False, False, True]
    panel.show_turn(None)
    assert lit(f, LEDS) == [False] * 4


def test_confirmation_blinks_with_exact_timing(rig):
    panel, f, clock = rig
    panel.show_turn(0)
    panel.ask_confirmation(1)
    panel.set_status("confirm")
    pin, start = f.pin(6), len(f.pin(6).states)
    seen = []
    for _ in range(8):                # 2 seconds in 0.25 s ticks
        clock.t += 0.25
        panel.tick()
        seen.append((pin.state, f.pin(25).state))
    assert seen == [(False, False), (True, True)] * 4
    history = [s.state for s in pin.states[start:]]      # MockPin's own record of every change
    assert history == [False, True] * 4
    assert f.pin(5).state            # the seat to play stays lit
    panel.ask_confirmation(None)
    panel.set_status("ok")
    assert lit(f, LEDS) == [True, False, False, False] and lit(f, [24, 25, 12]) == [True, False, False]


def test_trick_winner_flash_then_back_to_turn(rig):
    panel, f, clock = rig
    panel.show_turn(3)
    panel.flash_winner(1)
    states = []
    for _ in range(8):
        clock.t += 0.125
        panel.tick()
        states.append(tuple(lit(f, LEDS)))
    assert {s[1] for s in states[:7]} == {True, False}                 # seat 1 flashes
    assert all(not s[3] and not s[0] and not s[2] for s in states[:7])  # others dark meanwhile
    clock.t += 0.5
    panel.tick()
    assert lit(f, LEDS) == [False, False, False, True]                 # back to whose turn it is


def test_short_and_long_presses(rig):
    panel, f, clock = rig
    f.pin(17).drive_low(); clock.t += 0.2; f.pin(17).drive_high()
    f.pin(22).drive_low(); clock.t += 0.8; f.pin(22).drive_high()
    f.pin(23).drive_low()                                     # still held: not reported yet
    assert panel.presses() == [ButtonPress(0, "short"), ButtonPress(2, "long")]
    assert panel.presses() == []
    clock.t += 0.1; f.pin(23).drive_high()
    assert panel.presses() == [ButtonPress(3, "short")]


VITOU = {"game": "vitou", "finished": False, "turn": {"seat": 1, "expects": ["card", "call", "answer"]},
         "detail": {"phase": "play"}}


@pytest.mark.parametrize("game,snap,press,event", [
    ("vitou", VITOU, ButtonPress(1, "short"), {"event": "call", "seat": 1, "call": "bid"}),
    ("vitou", VITOU, ButtonPress(1, "long"), {"event": "answer", "seat": 1, "answer": "refuse"}),
    ("vitou", {**VITOU, "turn": {"seat": 0, "expects": ["decide"]}, "detail": {"phase": "pass20"}},
     ButtonPress(0, "long"), {"event": "decide", "seat": 0, "decision": "pass"}),
    ("truco", {"turn": {"seat": 2, "expects": ["card", "call"]}, "detail": {}}, ButtonPress(2, "short"),
     {"event": "call", "seat": 2, "call": "truco"}),
    ("truco", {"turn": {"seat": 3, "expects": ["answer"]}, "detail": {}}, ButtonPress(3, "long"),
     {"event": "answer", "seat": 3, "answer": "refuse"}),
    ("truco", {"turn": {"seat": 3, "expects": ["answer"]}, "detail": {}}, ButtonPress(3, "short", 1),
     {"event": "answer", "seat": 3, "answer": "raise"}),
    ("trionfetti", {"turn": {"seat": 0, "expects": ["card", "call"]}}, ButtonPress(0, "short"),
     {"event": "call", "seat": 0, "call": "vagaresto"}),
    ("troccas", {"turn": {"seat": 0, "expects": ["card"]}}, ButtonPress(4, "long"),
     {"event": "call", "seat": 4, "call": "boub_sche"}),
])
def test_presses_per_game(game, snap, press, event):
    assert press_event(game, snap, press) == event
    assert press_for(game, snap, event) is not None


def test_a_seat_listed_in_others_presses_what_it_may_send():
    """Vitou at 20: the partner of the seat to act may decide too (turn.others), so his long
    press is 'run', an event the referee accepts, not a refusal it would reject."""
    from controller.rules.referee import Referee
    ref = Referee()
    for ev in ({"event": "start", "game": "vitou", "dealer": 3, "options": {"penalty_points": 20}},
               {"event": "penalty", "team": 1, "offence": "revoke"}):
        ref.feed_object(ev)
    snap = ref.snapshot()
    assert {"seat": 2, "expects": ["decide"]} in snap["turn"]["others"]
    event = press_event("vitou", snap, ButtonPress(2, "long"))
    assert event == {"event": "decide", "seat": 2, "decision": "run"}
    assert not [j for j in ref.feed_object(event) if j["judgment"] == "error"]
