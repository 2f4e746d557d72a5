"""The shared framing: COBS and CRC round-trip, corruption is detected, garbage is harmless."""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from firmware import framing

payloads = st.binary(max_size=framing.MAX_PAYLOAD)
kinds = st.sampled_from(framing.KINDS)
byte = st.integers(0, 255)


def test_crc_check_value() -> None:
    assert framing.crc16(b"123456789") == 0x29B1  # CRC-16/CCITT-FALSE's published check


@pytest.mark.parametrize("frame, wire", [
    ((framing.DATA, 0, 0, b"\x10\x02"), "02 01 01 01 01 01 01 06 02 10 02 c3 2d 00"),               # TURN seat 2
    ((framing.ACK, 0, 0, b""), "02 02 01 01 01 01 01 01 03 be 98 00"),
    ((framing.DATA, 1, 0, b"\x14\x02\x00\x0c\xff\xfd"), "02 01 01 02 01 01 01 04 06 14 02 06 0c ff fd bb ed 00"),
    ((framing.PING, 0, 1, b""), "02 04 01 01 01 01 02 01 03 0d 62 00"),
])
def test_documented_example_frames(frame: tuple, wire: str) -> None:
    from pathlib import Path

    doc = (Path(__file__).parents[2] / "docs" / "board.md").read_text()
    assert framing.encode_frame(*frame).hex(" ") == wire
    assert wire in doc


@settings(derandomize=True)
@given(st.binary(max_size=600))
def test_cobs_round_trip_and_no_zeros(data: bytes) -> None:
    enc = framing.cobs_encode(data)
    assert 0 not in enc
    assert framing.cobs_decode(enc) == data


@settings(derandomize=True)
@given(kinds, byte, byte, payloads)
def test_any_frame_round_trips(kind: int, seq: int, ack: int, payload: bytes) -> None:
    wire = framing.encode_frame(kind, seq, ack, payload)
    assert wire.endswith(b"\x00") and 0 not in wire[:-1]
    assert len(wire) <= framing.MAX_ENCODED + 1
    assert framing.Decoder().feed(wire) == [(kind, seq, ack, payload)]


@settings(derandomize=True)
@given(st.lists(st.tuples(kinds, byte, byte, payloads), max_size=8), st.data())
def test_frames_survive_any_chunking(frames: list, data: st.DataObject) -> None:
    wire = b"".join(framing.encode_frame(*f) for f in frames)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(wire)), max_size=10)))
    dec = framing.Decoder()
    got = []
    for a, b in zip([0] + cuts, cuts + [len(wire)]):
        got += dec.feed(wire[a:b])
    assert got == [tuple(f) for f in frames]


@settings(max_examples=300, derandomize=True)
@given(kinds, byte, byte, payloads, st.data())
def test_single_bit_error_on_the_wire_is_never_acted_on(kind, seq, ack, payload, data) -> None:
    wire = bytearray(framing.encode_frame(kind, seq, ack, payload))
    bit = data.draw(st.integers(0, len(wire) * 8 - 1))
    wire[bit // 8] ^= 1 << (bit % 8)
    dec = framing.Decoder()
    # What follows is a clean frame: the damaged one must not take it down with it
    # beyond itself, and must never come out as a (different) frame.
    got = dec.feed(bytes(wire) + b"\x00" + framing.encode_frame(framing.PING, 0, 7))
    for f in got:
        assert f in ((framing.PING, 0, 7, b""),), f"corrupted frame accepted: {f}"
    assert dec.stats["bad_frames"] + dec.stats["oversize"] >= 1


@settings(max_examples=300, derandomize=True)
@given(kinds, byte, byte, payloads, st.data())
def test_a_byte_lost_or_doubled_on_the_wire_is_never_acted_on(kind, seq, ack, payload, data) -> None:
    # A CRC alone misses some of these (a doubled final COBS code byte appends a zero the
    # CRC cannot see); the length byte makes the check certain.
    wire = framing.encode_frame(kind, seq, ack, payload)[:-1]
    i = data.draw(st.integers(0, len(wire) - 1))
    for bad in (wire[:i] + wire[i + 1:], wire[:i + 1] + wire[i:]):
        assert framing.Decoder().feed(bad + b"\x00") == []


def test_the_crc_residue_trap_is_closed() -> None:
    # Found by the pty fault tests: CRC low byte 0x00 is COBS code 0x01 at the end;
    # doubling it used to yield a valid frame with one extra payload byte.
    for ack in range(256):
        wire = framing.encode_frame(framing.DATA, 0, ack, b"led\x00\x9b")
        assert framing.Decoder().feed(wire[:-2] + wire[-2:-1] * 2 + b"\x00") == []


@pytest.mark.parametrize("payload", [b"", b"\x10\x02", bytes(range(framing.MAX_PAYLOAD))])
def test_every_single_bit_error_in_the_body_is_detected(payload: bytes) -> None:
    # Exhaustive, not sampled: CRC-16 catches every 1-bit error in a frame this short.
    body = bytes((framing.DATA, 0, 0, 5, 0, 0, 4, len(payload))) + payload
    crc = framing.crc16(body)
    frame = body + bytes((crc >> 8, crc & 0xFF))
    for bit in range(len(frame) * 8):
        bad = bytearray(frame)
        bad[bit // 8] ^= 1 << (bit % 8)
        assert framing.decode_frame(framing.cobs_encode(bytes(bad))) is None


@settings(derandomize=True)
@given(st.lists(st.binary(max_size=200), max_size=20))
def test_garbage_never_crashes_the_decoder(chunks: list[bytes]) -> None:
    dec = framing.Decoder()
    for c in chunks:
        for kind, seq, ack, payload in dec.feed(c):
            assert kind in framing.KINDS and len(payload) <= framing.MAX_PAYLOAD
            assert 0 <= seq <= framing.SEQ_MASK and 0 <= ack <= framing.SEQ_MASK


@settings(derandomize=True)
@given(st.lists(st.binary(max_size=200), max_size=20))
def test_garbage_never_crashes_the_link(chunks: list[bytes]) -> None:
    out = bytearray()
    link = framing.Link(out.extend, 1)
    for t, c in enumerate(chunks):
        link.feed(c, t)
        link.poll(t)


def test_oversize_frame_is_dropped_and_the_next_one_kept() -> None:
    dec = framing.Decoder()
    good = framing.encode_frame(framing.DATA, 1, 2, b"ok")
    assert dec.feed(b"\x55" * 500 + b"\x00" + good) == [(framing.DATA, 1, 2, b"ok")]
    assert dec.stats["oversize"] == 1


def test_truncated_frame_is_dropped_and_counted() -> None:
    dec = framing.Decoder()
    wire = framing.encode_frame(framing.DATA, 1, 2, b"hello")
    assert dec.feed(wire[:5] + b"\x00") == []
    assert dec.stats["bad_frames"] == 1


def test_payload_size_is_bounded() -> None:
    with pytest.raises(ValueError):
        framing.encode_frame(framing.DATA, 0, 0, bytes(framing.MAX_PAYLOAD + 1))
    with pytest.raises(ValueError):
        framing.Link(lambda b: None, 1).send(bytes(framing.MAX_PAYLOAD + 1))
