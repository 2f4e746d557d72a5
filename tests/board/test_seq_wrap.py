"""A stale frame replayed 256 (or more) frames later is never applied (issue #16 item 13).

With 8-bit sequence numbers, the copy of frame k that a line held back had, 256 frames
later, exactly the number the receiver expected next, and was applied a second time. The
frame is a real one, captured off the wire; it is replayed when the receiver's counter is
exactly 256 (and 512, 1000) past it: first on the in-memory line of test_link_logic, then
over a real pty in both directions (host driver -> firmware, firmware -> host driver).
"""
from __future__ import annotations

import os
import time

import pytest

from controller.panel import ButtonPress
from firmware import framing, messages
from .test_link_logic import Wire


def data_frames(raw: bytes) -> list[tuple[bytes, int, bytes]]:
    """(encoded frame with its delimiter, seq, payload) of every DATA frame in ``raw``."""
    out = []
    for chunk in raw.split(b"\x00"):
        f = framing.decode_frame(chunk) if chunk else None
        if f is not None and f[0] == framing.DATA:
            out.append((chunk + b"\x00", f[1], f[3]))
    return out


@pytest.mark.parametrize("later", [256, 512, 1000])
def test_replayed_frame_is_a_duplicate_however_much_later(later: int) -> None:
    w = Wire("")
    wire = bytearray()
    push = w.ab.push
    w.ab.push = lambda d, t: (wire.extend(d), push(d, t))[1]   # a tap on the line
    w.run_until(lambda: w.a.up and w.b.up)
    w.a.send(b"\x10\x01")
    w.run_until(lambda: w.got_b == [b"\x10\x01"] and not w.a.pending())
    stale, seq, payload = data_frames(bytes(wire))[0]
    for i in range(later - 1):
        w.a.send(b"\x11" + i.to_bytes(2, "big"))
        w.step(2)
    w.run_until(lambda: len(w.got_b) == later and not w.a.pending())
    assert w.b.rx_expected == (seq + later) & framing.SEQ_MASK
    delivered, dups = w.b.stats["delivered"], w.b.stats["duplicates"]
    assert w.b.feed(stale, w.now) == []
    assert w.b.stats["delivered"] == delivered and w.b.stats["duplicates"] == dups + 1


def test_frame_numbers_wrap_at_24_bits_without_a_hitch() -> None:
    w = Wire("")
    w.run_until(lambda: w.a.up and w.b.up)
    for link in (w.a, w.b):                   # as if 2**24 - 3 frames had gone each way
        link.tx_next = framing.SEQ_MASK - 2
    w.b.rx_expected = framing.SEQ_MASK - 2
    w.a.rx_expected = framing.SEQ_MASK - 2
    sent = [bytes((0x10, i)) for i in range(10)]
    for m in sent:
        w.a.send(m)
        w.b.send(m)
    w.run_until(lambda: len(w.got_b) == 10 and len(w.got_a) == 10 and not w.a.pending() and not w.b.pending())
    assert w.got_b == sent and w.got_a == sent and w.b.rx_expected == 7


def test_host_to_board_replay_256_frames_later_over_a_pty(sim_panel) -> None:
    panel = sim_panel()
    sim = panel.simulator
    wire = bytearray()
    push = sim.to_board.push
    sim.to_board.push = lambda d, t: (wire.extend(d), push(d, t))[1]   # what the board read off the pty
    panel.show_turn(1)
    assert panel.wait_idle(5)
    stale, seq, payload = [f for f in data_frames(bytes(wire)) if f[2][0] == messages.TURN][0]
    board = sim.board.link
    seat = 2
    while board.rx_expected != (seq + 256) & framing.SEQ_MASK:
        assert (board.rx_expected - seq) & framing.SEQ_MASK < 256, "overshot"
        seat = (seat + 1) % 4
        panel.show_turn(seat)
        assert panel.wait_idle(5)
    applied, dups = len(sim.applied), board.stats["duplicates"]
    fd = os.open(sim.port, os.O_WRONLY | os.O_NOCTTY)       # the host's end of the pty
    try:
        os.write(fd, stale)
    finally:
        os.close(fd)
    assert sim.wait_for(lambda: board.stats["duplicates"] > dups, 5)
    time.sleep(0.2)
    print(f"\nhost -> board: frame {seq} replayed at {board.rx_expected}: "
          f"{board.stats['duplicates'] - dups} duplicate, {len(sim.applied) - applied} applied")
    assert len(sim.applied) == applied


def test_board_to_host_replay_256_frames_later_over_a_pty(sim_panel) -> None:
    panel = sim_panel()
    sim = panel.simulator
    wire = bytearray()
    push = sim.to_host.push
    sim.to_host.push = lambda d, t: (wire.extend(d), push(d, t))[1]    # what the board wrote
    sim.press(2)
    got = []
    deadline = time.monotonic() + 5
    while not got and time.monotonic() < deadline:
        got += panel.presses()
        time.sleep(0.01)
    assert got == [ButtonPress(2, "short")]
    stale, seq, payload = [f for f in data_frames(bytes(wire)) if f[2][0] == messages.PRESS][0]
    host = panel.link.proto
    while host.rx_expected != (seq + 256) & framing.SEQ_MASK:
        assert (host.rx_expected - seq) & framing.SEQ_MASK < 256, "overshot"
        panel.echo(2)                                        # one reply frame from the board each
    delivered, dups, app_dups = host.stats["delivered"], host.stats["duplicates"], panel.duplicate_presses
    os.write(sim._master, stale)                            # the board's end of the pty
    deadline = time.monotonic() + 5
    while host.stats["duplicates"] == dups and time.monotonic() < deadline:
        time.sleep(0.01)
    time.sleep(0.2)
    print(f"\nboard -> host: frame {seq} replayed at {host.rx_expected}: "
          f"{host.stats['duplicates'] - dups} duplicate, {host.stats['delivered'] - delivered} delivered")
    assert host.stats["duplicates"] == dups + 1 and host.stats["delivered"] == delivered
    assert panel.duplicate_presses == app_dups and panel.presses() == []
