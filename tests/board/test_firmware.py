"""The firmware's logic under CPython with a fake clock: buttons, display, offline mode."""
from __future__ import annotations

from typing import Any

import pytest

from controller.board.sim import SimPixels
from firmware import buttons, config, display, framing, messages
from firmware.board import Board


class Clock:
    def __init__(self) -> None:
        self.t = 1000

    def ticks_ms(self) -> int:
        return self.t

    @staticmethod
    def ticks_diff(a: int, b: int) -> int:
        return a - b


class Pin:
    def __init__(self, level: int = 1) -> None:
        self.level = level

    def value(self) -> int:
        return self.level


class Port:
    def __init__(self) -> None:
        self.rx = bytearray()
        self.tx = bytearray()

    def read(self) -> bytes:
        d = bytes(self.rx)
        self.rx.clear()
        return d

    def write(self, d: bytes) -> None:
        self.tx += d


class Rig:
    """A board and a host link end on a perfect wire, stepped 1 ms at a time."""

    def __init__(self, **cfg: Any) -> None:
        self.clock = Clock()
        self.cfg = config.normalise(cfg)
        self.pins = [[Pin() for _ in g] for g in self.cfg["buttons"]]
        self.pixels = SimPixels(self.cfg["leds"], lambda: self.clock.t / 1000)
        self.port = Port()
        self.board = Board(self.cfg, self.clock, self.pins, self.pixels, self.port, 0xB0A4D)
        self.host_out = bytearray()
        self.host = framing.Link(self.host_out.extend, 0x4057)
        self.host_alive = True
        self.received: list[tuple] = []

    def step(self, ms: int = 1) -> None:
        for _ in range(ms):
            self.clock.t += 1
            self.board.step()
            data = bytes(self.port.tx)
            self.port.tx.clear()
            if self.host_alive:
                for p in self.host.feed(data, self.clock.t):
                    self.received.append(messages.decode(p))
                self.host.poll(self.clock.t)
                self.port.rx += self.host_out
            self.host_out.clear()

    def presses(self) -> list[tuple]:
        return [m[1] for m in self.received if m[0] == messages.PRESS]


def test_handshake_introduces_the_board() -> None:
    r = Rig()
    r.step(20)
    assert r.host.up and r.board.link.up
    assert r.received[0] == (messages.INFO, (b"v1.0.0 seats=4 leds=30 buttons=1111",))


def test_commands_change_the_strip() -> None:
    r = Rig()
    r.step(20)
    r.host.send(messages.seat_msg(messages.TURN, 1))
    r.host.send(messages.status_msg(display.STATUS_FAULT))
    r.step(40)
    leds = r.pixels.history[-1][1]
    seg = r.cfg["seat_segments"][1]
    assert all(c[1] > 0 and c[0] == 0 for c in leds[seg[0]:seg[0] + seg[1]])  # green
    st = r.cfg["status_segment"]
    assert all(c[0] > 0 and c[1] == 0 for c in leds[st[0]:st[0] + st[1]])     # red


def test_bouncy_press_is_one_short_press() -> None:
    r = Rig()
    r.step(20)
    pin = r.pins[2][0]
    for level in (0, 1, 0, 1, 0):  # contact bounce, 2 ms apart
        pin.level = level
        r.step(2)
    r.step(80)
    for level in (1, 0, 1):
        pin.level = level
        r.step(2)
    r.step(60)
    assert r.presses() == [(1, 2, 0, buttons.SHORT)]


def test_long_press_is_reported_while_still_held_and_only_once() -> None:
    r = Rig(long_press_ms=300)
    r.step(20)
    r.pins[0][0].level = 0
    r.step(400)
    assert r.presses() == [(1, 0, 0, buttons.LONG)]
    r.pins[0][0].level = 1
    r.step(100)
    assert len(r.presses()) == 1


def test_a_button_held_at_boot_is_not_a_press() -> None:
    clock = Clock()
    pin = Pin(level=0)
    b = buttons.Button(pin, 0, 0, clock.t, 20, 300)
    events = []
    for _ in range(1000):
        clock.t += 1
        events.append(b.update(clock.t))
    pin.level = 1
    for _ in range(50):
        clock.t += 1
        events.append(b.update(clock.t))
    assert set(events) == {None}


def test_host_goes_quiet_offline_pattern_and_presses_kept_in_order() -> None:
    r = Rig(host_timeout_ms=500)
    r.step(20)
    r.host.send(messages.seat_msg(messages.TURN, 0))
    r.step(20)
    r.host_alive = False
    r.step(700)
    leds = r.pixels.history[-1][1]
    assert any(c == tuple(int(x * 0.25) for x in display.OFFLINE) for c in leds)
    assert not r.board.link.up  # knocking, not streaming data into the void
    for seat in (3, 1, 2):
        r.pins[seat][0].level = 0
        r.step(50)
        r.pins[seat][0].level = 1
        r.step(50)
    r.host_alive = True
    r.step(1500)
    assert [(p[0], p[1]) for p in r.presses()] == [(1, 3), (2, 1), (3, 2)]
    # Back to what the host last asked for: seat 0's turn light.
    seg = r.cfg["seat_segments"][0]
    assert r.pixels.history[-1][1][seg[0]][1] > 0


def test_host_restart_keeps_buffered_presses() -> None:
    r = Rig(host_timeout_ms=500)
    r.step(20)
    r.host_alive = False
    r.step(600)
    r.pins[1][0].level = 0
    r.step(50)
    r.pins[1][0].level = 1
    r.step(50)
    r.host = framing.Link(r.host_out.extend, 0x4058)  # a new host process
    r.host_alive = True
    r.step(1500)
    assert r.received[-2][0] == messages.INFO  # introduced again to the new host
    assert r.presses() == [(1, 1, 0, buttons.SHORT)]


def test_malformed_message_is_counted_not_applied() -> None:
    r = Rig()
    r.step(20)
    r.host.send(bytes((messages.STATUS, 9)))  # no such status
    r.host.send(bytes((0x7E,)))
    r.step(40)
    assert r.board.errors == 2
    assert r.board.display.status == display.STATUS_OK


def test_query_and_echo_replies() -> None:
    r = Rig()
    r.step(20)
    r.host.send(messages.scores_msg([-3, 42]))
    r.host.send(bytes((messages.QUERY,)))
    r.host.send(bytes((messages.ECHO,)) + b"abc")
    r.step(40)
    assert (messages.STATE, (None, None, None, 0, (-3, 42))) in r.received
    assert (messages.ECHO, (b"abc",)) in r.received


def test_score_digits_render_as_tens_and_units() -> None:
    cfg = config.normalise({"seats": 2, "leds": 30, "brightness": 1.0})
    d = display.Display(cfg)
    d.scores = (12, 3)
    out = d.render(0)
    start, length = cfg["score_segment"]
    part = length // 2
    first = out[start:start + part]
    assert first[:3] == [display.TENS, display.UNITS, display.UNITS]
    assert out[start + part:start + part + 3] == [display.UNITS] * 3


def test_winner_flashes_then_stops() -> None:
    cfg = config.normalise({"brightness": 1.0})
    d = display.Display(cfg)
    d.set_winner(2, 0)
    seg = cfg["seat_segments"][2]
    lit = [d.render(t)[seg[0]] == display.WINNER for t in range(0, 3000, 50)]
    assert any(lit) and not all(lit)
    assert not any(lit[int(display.WINNER_FLASH_MS / 50):])


@pytest.mark.parametrize("bad", [
    {"seats": 0},
    {"leds": 3},
    {"seat_segments": [[0, 40]] * 4, "status_segment": [0, 1]},
    {"colour": "red"},
])
def test_bad_config_is_refused(bad: dict) -> None:
    with pytest.raises(config.ConfigError):
        config.normalise(bad)


def test_shipped_config_loads() -> None:
    from pathlib import Path

    cfg = config.load(str(Path(__file__).parents[2] / "firmware" / "board_config.json"))
    assert cfg["seats"] == 4 and len(cfg["seat_segments"]) == 4
