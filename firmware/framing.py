# The board link's framing and reliability layer, shared by the board and the host.
#
# This one file runs under MicroPython (as ``import framing``) and CPython (as
# ``from firmware import framing``), so it sticks to what both have: no typing, no
# dataclasses, no f-strings, only bytes/bytearray/int arithmetic.
#
# A frame on the wire is COBS(header + payload + crc16) followed by one 0x00 byte.
#   header  = kind (1 byte), seq (3 bytes), ack (3 bytes), payload length (1 byte);
#             seq and ack big-endian
#   crc16   = CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF) over header + payload, big-endian
# The length byte is not redundant: a CRC without a final XOR accepts a valid frame with
# zero bytes appended, and a duplicated COBS code byte does exactly that. With the
# length checked, any byte inserted or lost inside a frame is caught for certain.
# COBS removes every 0x00 from the frame, so 0x00 always means "frame ends here" and a
# receiver that joins mid-stream, or loses bytes, resynchronises at the next zero.
#
# Kinds: DATA carries one application message, delivered exactly once and in order
# (go-back-N with a small window, cumulative acks, 24-bit sequence numbers); ACK and PING
# carry only the cumulative ack (PING doubles as the heartbeat); HELLO is the handshake
# that tells each side whether the other restarted (see Link). HELLO payload: sender's
# nonce (4 bytes), the nonce it believes the receiver has (4), up flag (1); it is kept
# short on purpose, so it survives a noisy line (self-descriptions travel as DATA).

DATA = 0x01
ACK = 0x02
HELLO = 0x03
PING = 0x04
KINDS = (DATA, ACK, HELLO, PING)

# Sequence numbers are 24 bits: with 8 bits a stale frame replayed 256 frames later (a
# duplicate the line held back) had the very number the receiver expected, and was applied.
# 2**24 frames is 20 minutes of the link flat out over a pty (13,769 msgs/s, bench/board_link.py)
# and weeks at a table's real rate (a few messages a second), far beyond any line's memory;
# the numbers stay MicroPython small ints (below 2**30): no heap allocation per frame.
SEQ_BYTES = 3
SEQ_MASK = (1 << (8 * SEQ_BYTES)) - 1
# A frame up to half the number space behind the next expected one is a duplicate (acked
# again, never delivered); anything else that is not the expected one is out of order.
SEQ_HALF = 1 << (8 * SEQ_BYTES - 1)
HEADER_LEN = 2 + 2 * SEQ_BYTES
CRC_LEN = 2
MAX_PAYLOAD = 64
MAX_FRAME = HEADER_LEN + MAX_PAYLOAD + CRC_LEN
# COBS adds one byte per 254 plus one.
MAX_ENCODED = MAX_FRAME + MAX_FRAME // 254 + 1


def _make_table():
    table = []
    for i in range(256):
        c = i << 8
        for _ in range(8):
            c = ((c << 1) ^ 0x1021) if c & 0x8000 else (c << 1)
        table.append(c & 0xFFFF)
    return table


_CRC_TABLE = _make_table()


def crc16(data, crc=0xFFFF):
    """CRC-16/CCITT-FALSE; crc16(b"123456789") == 0x29B1."""
    t = _CRC_TABLE
    for b in data:
        crc = ((crc << 8) & 0xFFFF) ^ t[((crc >> 8) ^ b) & 0xFF]
    return crc


def cobs_encode(data):
    """Consistent Overhead Byte Stuffing: the result contains no 0x00."""
    out = bytearray()
    block = bytearray()
    for b in data:
        if b == 0:
            out.append(len(block) + 1)
            out.extend(block)
            block = bytearray()
        else:
            block.append(b)
            if len(block) == 254:
                out.append(255)
                out.extend(block)
                block = bytearray()
    out.append(len(block) + 1)
    out.extend(block)
    return bytes(out)


def cobs_decode(data):
    """Inverse of cobs_encode; raises ValueError on a malformed block."""
    out = bytearray()
    i = 0
    n = len(data)
    while i < n:
        code = data[i]
        if code == 0:
            raise ValueError("zero byte inside a frame")
        end = i + code
        if end > n:
            raise ValueError("truncated block")
        block = data[i + 1:end]
        if 0 in block:
            raise ValueError("zero byte inside a frame")
        out.extend(block)
        i = end
        if code < 255 and i < n:
            out.append(0)
    return bytes(out)


def encode_frame(kind, seq, ack, payload=b""):
    """One complete frame for the wire, delimiter included."""
    if len(payload) > MAX_PAYLOAD:
        raise ValueError("payload too long")
    seq &= SEQ_MASK
    ack &= SEQ_MASK
    body = bytearray((kind & 0xFF, seq >> 16, (seq >> 8) & 0xFF, seq & 0xFF,
                      ack >> 16, (ack >> 8) & 0xFF, ack & 0xFF, len(payload)))
    body.extend(payload)
    c = crc16(body)
    body.append(c >> 8)
    body.append(c & 0xFF)
    return cobs_encode(body) + b"\x00"


def decode_frame(encoded):
    """(kind, seq, ack, payload) from one frame without its delimiter, or None if bad."""
    try:
        body = cobs_decode(encoded)
    except ValueError:
        return None
    if len(body) < HEADER_LEN + CRC_LEN or len(body) > MAX_FRAME:
        return None
    if body[7] != len(body) - HEADER_LEN - CRC_LEN:
        return None
    c = crc16(body[:-2])
    if (body[-2] << 8 | body[-1]) != c:
        return None
    seq = (body[1] << 16) | (body[2] << 8) | body[3]
    ack = (body[4] << 16) | (body[5] << 8) | body[6]
    return body[0], seq, ack, bytes(body[HEADER_LEN:-2])


class Decoder:
    """Splits a byte stream into checked frames; bad ones are dropped and counted."""

    def __init__(self, stats=None):
        self.buf = bytearray()
        self.overflow = False
        self.stats = stats if stats is not None else {}
        for k in ("frames", "bad_frames", "oversize", "noise_bytes"):
            self.stats.setdefault(k, 0)

    def feed(self, data):
        """Frames completed by these bytes, as (kind, seq, ack, payload) tuples."""
        frames = []
        st = self.stats
        for b in data:
            if b != 0:
                if self.overflow:
                    st["noise_bytes"] += 1
                elif len(self.buf) >= MAX_ENCODED:
                    self.overflow = True
                    st["oversize"] += 1
                    st["noise_bytes"] += len(self.buf) + 1
                    self.buf = bytearray()
                else:
                    self.buf.append(b)
                continue
            if self.overflow:
                self.overflow = False
            elif self.buf:
                f = decode_frame(bytes(self.buf))
                if f is None or f[0] not in KINDS:
                    st["bad_frames"] += 1
                else:
                    st["frames"] += 1
                    frames.append(f)
            self.buf = bytearray()
        return frames


def _diff(a, b):
    return a - b


class Link:
    """One end of the reliable link: handshake, sequence numbers, acks, retransmission.

    Pure logic: bytes in through ``feed(data, now)``, bytes out through the ``write``
    callable, time only as the ``now`` arguments (milliseconds), so the board passes
    ``time.ticks_ms()`` with ``ticks_diff`` and tests pass a fake clock.

    Handshake: each end has a random ``nonce`` for its lifetime. A HELLO carries the
    sender's nonce, the nonce it believes its peer has, and whether the sender is "up"
    (it has seen the peer echo its nonce). A HELLO with an unknown peer nonce means the
    peer (re)started: the receive sequence resets, queued messages are renumbered from
    zero and ``restarts`` goes up so the application can resend its state. Data flows
    only while up, so a frame from an earlier session is never acted on.
    """

    def __init__(self, write, nonce, window=4, rto_ms=60, rto_max_ms=250,
                 hello_ms=100, hello_max_ms=500, heartbeat_ms=250, queue_max=32,
                 fast_ms=10, diff=None):
        if window < 1 or window > 32:
            raise ValueError("window must be 1..32")
        self.write = write
        self.nonce = nonce & 0xFFFFFFFF
        self.window = window
        self.rto_base = rto_ms
        self.rto_max = rto_max_ms
        self.hello_base = hello_ms
        self.hello_max = hello_max_ms
        self.heartbeat_ms = heartbeat_ms
        self.queue_max = queue_max
        self.diff = diff or _diff
        self.stats = {}
        self.decoder = Decoder(self.stats)
        for k in ("sent", "delivered", "retransmits", "duplicates", "out_of_order",
                  "not_ready", "acked", "queue_full", "hellos", "fast_retransmits"):
            self.stats[k] = 0
        self.peer_nonce = None
        self.up = False
        self.restarts = 0
        self.inbox = []
        self.queue = []          # payloads not yet sent
        self.in_flight = []      # [seq, payload] sent, not yet acknowledged
        self.tx_next = 0
        self.rx_expected = 0
        self.ack_due = False
        self.hello_due = True
        self.hello_ivl = hello_ms
        self.rto = rto_ms
        self.fast_ms = fast_ms
        self.fast_due = False
        self.last_retx = None
        self.retx_base = None
        self.last_hello = None
        self.last_tx = None
        self.last_data_tx = None
        self.last_rx = None

    # -- sending ---------------------------------------------------------------
    def send(self, payload):
        """Queue one message for exactly-once delivery; False if the queue is full."""
        if len(payload) > MAX_PAYLOAD:
            raise ValueError("payload too long")
        if len(self.queue) + len(self.in_flight) >= self.queue_max:
            self.stats["queue_full"] += 1
            return False
        self.queue.append(bytes(payload))
        return True

    def pending(self):
        """Messages queued or sent but not yet acknowledged."""
        return len(self.queue) + len(self.in_flight)

    def clear(self):
        """Forget every message not yet acknowledged (the application will resend state)."""
        self.queue = []
        self.in_flight = []

    def restart_handshake(self):
        """Confirm the peer afresh (after reopening a port); sequence state is kept."""
        self.up = False
        self.hello_due = True
        self.hello_ivl = self.hello_base

    def _ack_value(self):
        return (self.rx_expected - 1) & SEQ_MASK

    def _emit(self, kind, seq, payload, now):
        self.write(encode_frame(kind, seq, self._ack_value(), payload))
        self.last_tx = now
        if kind != HELLO:
            self.ack_due = False

    def _send_hello(self, now):
        peer = self.peer_nonce if self.peer_nonce is not None else 0
        p = bytearray()
        for n in (self.nonce, peer):
            p.extend(bytes(((n >> 24) & 0xFF, (n >> 16) & 0xFF, (n >> 8) & 0xFF, n & 0xFF)))
        p.append(1 if self.up else 0)
        self.stats["hellos"] += 1
        self._emit(HELLO, 0, bytes(p), now)
        self.last_hello = now
        self.hello_due = False

    def poll(self, now):
        """Send what is due at time ``now``: hellos, new data, retransmissions, acks, pings."""
        d = self.diff
        if self.hello_due or (not self.up and (self.last_hello is None or
                                               d(now, self.last_hello) >= self.hello_ivl)):
            if not self.hello_due:
                self.hello_ivl = min(self.hello_ivl * 2, self.hello_max)
            self._send_hello(now)
        if self.up:
            if self.in_flight and (self.fast_due or d(now, self.last_data_tx) >= self.rto):
                # Go-back-N: the receiver keeps only in-order frames, so resend them all.
                for item in self.in_flight:
                    self._emit(DATA, item[0], item[1], now)
                    self.stats["retransmits"] += 1
                self.last_data_tx = now
                self.last_retx = now
                self.retx_base = self.in_flight[0][0]
                if not self.fast_due:
                    self.rto = min(self.rto * 2, self.rto_max)
            self.fast_due = False
            while self.queue and len(self.in_flight) < self.window:
                payload = self.queue.pop(0)
                seq = self.tx_next
                self.tx_next = (seq + 1) & SEQ_MASK
                self.in_flight.append([seq, payload])
                self._emit(DATA, seq, payload, now)
                self.stats["sent"] += 1
                if len(self.in_flight) == 1:
                    self.last_data_tx = now
        if self.ack_due:
            self._emit(ACK, 0, b"", now)
        elif self.up and (self.last_tx is None or d(now, self.last_tx) >= self.heartbeat_ms):
            self._emit(PING, 0, b"", now)

    # -- receiving -------------------------------------------------------------
    def feed(self, data, now):
        """Take received bytes; returns the messages delivered by them, in order."""
        out = []
        for kind, seq, ack, payload in self.decoder.feed(data):
            self.last_rx = now
            if kind == HELLO:
                self._on_hello(payload, now)
                continue
            if not self.up:
                # The peer thinks we are talking: tell it we are not (yet).
                self.stats["not_ready"] += 1
                if self.last_hello is None or self.diff(now, self.last_hello) >= self.hello_base // 2:
                    self.hello_due = True
                continue
            self._on_ack(ack, now, kind)
            if kind == DATA:
                if seq == self.rx_expected:
                    self.rx_expected = (seq + 1) & SEQ_MASK
                    self.stats["delivered"] += 1
                    out.append(payload)
                elif ((self.rx_expected - 1 - seq) & SEQ_MASK) < SEQ_HALF:
                    self.stats["duplicates"] += 1
                else:
                    self.stats["out_of_order"] += 1
                self.ack_due = True
        return out

    def _on_ack(self, ack, now, kind):
        if not self.in_flight:
            return
        n = ((ack - self.in_flight[0][0]) & SEQ_MASK) + 1
        if n <= len(self.in_flight):
            del self.in_flight[:n]
            self.stats["acked"] += n
            self.rto = self.rto_base
            self.last_data_tx = now
        elif kind == ACK and (self.last_retx is None or self.retx_base != self.in_flight[0][0]
                              or self.diff(now, self.last_retx) >= self.fast_ms):
            # A pure ACK that acknowledges nothing new answers a frame that arrived out
            # of order or twice: one of ours was lost. Resend now rather than at timeout;
            # once per hole (the other frames of the burst bring more such ACKs).
            self.fast_due = True
            self.stats["fast_retransmits"] += 1

    def _on_hello(self, p, now):
        if len(p) < 9:
            return
        theirs = (p[0] << 24) | (p[1] << 16) | (p[2] << 8) | p[3]
        mine = (p[4] << 24) | (p[5] << 16) | (p[6] << 8) | p[7]
        peer_up = p[8] == 1
        if theirs != self.peer_nonce:
            # A new peer, or the old one restarted: nothing of the old session survives
            # except our own queued messages, renumbered from zero.
            self.peer_nonce = theirs
            self.rx_expected = 0
            self.tx_next = 0
            self.queue = [item[1] for item in self.in_flight] + self.queue
            self.in_flight = []
            self.up = False
            self.restarts += 1
            self.hello_due = True
        if mine == self.nonce and not self.up:
            self.up = True
            self.rto = self.rto_base
            self.hello_ivl = self.hello_base
        if not peer_up:
            self.hello_due = True

    def quiet_for(self, now):
        """Milliseconds since the last valid frame from the peer (None: never heard)."""
        if self.last_rx is None:
            return None
        return self.diff(now, self.last_rx)
