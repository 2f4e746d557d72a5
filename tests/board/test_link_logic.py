"""The reliability layer alone: two ``framing.Link`` ends on a faulty in-memory line.

No threads, no sleeps: a fake millisecond clock steps both ends, so every fault case is
exact and fast. The pty tests (test_link_pty.py) repeat the important ones end to end.
"""
from __future__ import annotations

import random

import pytest

from controller.board.faults import FaultSpec, FaultyPipe
from firmware import framing

FAULTS = {
    "clean": "",
    "drop": "drop:0.02",
    "flip": "flip:0.02",
    "dup": "dup:0.02",
    "garbage": "garbage:0.02",
    "delay": "delay:0.02",
    "all": "drop:0.01,flip:0.01,dup:0.01,garbage:0.01,delay:0.01",
}


class Wire:
    """Two link ends joined by a faulty pipe each way, on a shared fake clock."""

    def __init__(self, faults: str, seed: int = 1) -> None:
        spec = FaultSpec.parse(faults)
        rng = random.Random(seed)
        self.now = 0
        self.ab = FaultyPipe(spec, rng)
        self.ba = FaultyPipe(spec, rng)
        self.a = framing.Link(lambda d: self.ab.push(d, self.now / 1000), 0xA, rto_ms=40, fast_ms=5,
                                queue_max=1000)
        self.b = self.new_b(0xB)
        self.got_a: list[bytes] = []
        self.got_b: list[bytes] = []

    def new_b(self, nonce: int) -> framing.Link:
        self.b = framing.Link(lambda d: self.ba.push(d, self.now / 1000), nonce, queue_max=1000)
        return self.b

    def step(self, ms: int = 1) -> None:
        self.now += ms
        t = self.now / 1000
        self.got_b += self.b.feed(self.ab.pop_ready(t), self.now)
        self.b.poll(self.now)
        self.got_a += self.a.feed(self.ba.pop_ready(t), self.now)
        self.a.poll(self.now)

    def run_until(self, cond, limit_ms: int = 120_000) -> None:
        end = self.now + limit_ms
        while not cond():
            assert self.now < end, "link did not settle"
            self.step()


def msgs(prefix: bytes, n: int) -> list[bytes]:
    return [prefix + i.to_bytes(2, "big") for i in range(n)]


@pytest.mark.parametrize("name", FAULTS)
def test_every_message_arrives_exactly_once_in_order_both_ways(name: str) -> None:
    w = Wire(FAULTS[name])
    to_b, to_a = msgs(b"led", 300), msgs(b"btn", 300)
    w.run_until(lambda: w.a.up and w.b.up)
    for i in range(300):
        w.a.send(to_b[i])
        w.b.send(to_a[i])
        w.step(2)
    w.run_until(lambda: len(w.got_b) >= 300 and len(w.got_a) >= 300 and not w.a.pending() and not w.b.pending())
    for _ in range(500):  # late duplicates and retransmissions must not deliver again
        w.step()
    assert w.got_b == to_b
    assert w.got_a == to_a


@pytest.mark.parametrize("name", ["flip", "garbage", "all"])
def test_nothing_corrupted_is_ever_delivered(name: str) -> None:
    w = Wire(FAULTS[name].replace("0.01", "0.03").replace("0.02", "0.05"), seed=7)
    sent = [bytes([0x10, i % 4, i & 0xFF]) for i in range(400)]
    w.run_until(lambda: w.a.up and w.b.up)
    for m in sent:
        w.a.send(m)
    w.run_until(lambda: not w.a.pending(), 600_000)
    assert w.got_b == sent
    assert w.b.stats["bad_frames"] > 0


def test_sequence_numbers_wrap() -> None:
    w = Wire("drop:0.01")
    sent = msgs(b"m", 700)
    w.run_until(lambda: w.a.up and w.b.up)
    for m in sent:
        w.a.send(m)
        w.step(1)
    w.run_until(lambda: not w.a.pending(), 600_000)
    assert w.got_b == sent


def test_a_restarted_peer_gets_the_backlog_renumbered_and_a_restart_is_reported() -> None:
    w = Wire("")
    w.run_until(lambda: w.a.up and w.b.up)
    w.a.send(b"one")
    w.run_until(lambda: w.got_b == [b"one"] and not w.a.pending())
    assert w.a.restarts == 1
    w.new_b(0xB2)  # the board rebooted: fresh link state, new nonce
    w.a.send(b"two")
    w.got_b = []
    w.run_until(lambda: w.got_b == [b"two"], 5000)
    assert w.a.restarts == 2


def test_data_from_before_the_handshake_is_never_acted_on() -> None:
    out = bytearray()
    link = framing.Link(out.extend, 1)
    stale = framing.encode_frame(framing.DATA, 0, 0xFF, b"\x10\x01")
    assert link.feed(stale, 0) == []
    assert link.stats["not_ready"] == 1


def test_queue_is_bounded() -> None:
    link = framing.Link(lambda b: None, 1, queue_max=3)
    assert [link.send(b"x") for _ in range(4)] == [True, True, True, False]
    assert link.stats["queue_full"] == 1


def test_retransmission_backs_off_while_the_peer_is_silent() -> None:
    w = Wire("")
    w.run_until(lambda: w.a.up and w.b.up)
    w.b = framing.Link(lambda d: None, 0xB)  # the peer goes deaf and dumb
    w.a.send(b"lost")
    for _ in range(2000):
        w.step()
    # 40 ms doubling to 250 ms: about a dozen tries in two seconds, not fifty.
    assert 5 <= w.a.stats["retransmits"] <= 15
