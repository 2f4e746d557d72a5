# Application messages carried in DATA frames, shared by the board and the host.
#
# MicroPython and CPython alike (no typing, no f-strings). A message is an opcode byte
# and a few fixed fields; ``decode`` returns (opcode, fields) or None for anything
# malformed, so a message that passed the CRC but makes no sense is still never applied.

NONE = 0xFF  # "no seat"

# host -> board
TURN = 0x10      # seat: light the seat to act
WINNER = 0x11    # seat: flash the trick winner
CONFIRM = 0x12   # seat: blink, a card needs confirmation
STATUS = 0x13    # status code
SCORES = 0x14    # count, then count signed 16-bit scores
QUERY = 0x15     # ask for a STATE reply
ECHO = 0x16      # token bytes, echoed back unchanged (latency probe)

# board -> host
PRESS = 0x20     # event seq (16 bit), seat, button, kind
STATE = 0x21     # turn, winner, confirm, status, count, scores
INFO = 0x22      # ASCII self-description, first message after every handshake

STATUSES = ("ok", "confirm", "fault", "offline")
KINDS = ("short", "long")
MAX_SCORES = 8

_SEAT_OPS = (TURN, WINNER, CONFIRM)


def _seat_byte(seat):
    return NONE if seat is None else seat & 0xFF


def _seat(b):
    return None if b == NONE else b


def _i16(v):
    v = int(v)
    if v < -32768:
        v = -32768
    if v > 32767:
        v = 32767
    return bytes(((v >> 8) & 0xFF, v & 0xFF))


def _from_i16(hi, lo):
    v = (hi << 8) | lo
    return v - 0x10000 if v & 0x8000 else v


def seat_msg(op, seat):
    return bytes((op, _seat_byte(seat)))


def status_msg(code):
    return bytes((STATUS, code))


def scores_msg(scores):
    scores = list(scores)[:MAX_SCORES]
    out = bytearray((SCORES, len(scores)))
    for s in scores:
        out.extend(_i16(s))
    return bytes(out)


def press_msg(event_seq, seat, button, kind):
    return bytes((PRESS, (event_seq >> 8) & 0xFF, event_seq & 0xFF, seat, button, kind))


def state_msg(turn, winner, confirm, status, scores):
    out = bytearray((STATE, _seat_byte(turn), _seat_byte(winner), _seat_byte(confirm),
                     status, len(scores)))
    for s in scores:
        out.extend(_i16(s))
    return bytes(out)


def _scores(p, at):
    n = p[at]
    if n > MAX_SCORES or len(p) != at + 1 + 2 * n:
        return None
    return tuple(_from_i16(p[at + 1 + 2 * i], p[at + 2 + 2 * i]) for i in range(n))


def decode(p):
    """(opcode, fields tuple) for a well-formed message, else None."""
    if not p:
        return None
    op = p[0]
    n = len(p)
    if op in _SEAT_OPS:
        return (op, (_seat(p[1]),)) if n == 2 else None
    if op == STATUS:
        return (op, (p[1],)) if n == 2 and p[1] < len(STATUSES) else None
    if op == SCORES:
        if n < 2:
            return None
        s = _scores(p, 1)
        return None if s is None else (op, (s,))
    if op == QUERY:
        return (op, ()) if n == 1 else None
    if op == ECHO:
        return (op, (bytes(p[1:]),))
    if op == INFO:
        return (op, (bytes(p[1:]),))
    if op == PRESS:
        if n != 6 or p[5] >= len(KINDS):
            return None
        return (op, ((p[1] << 8) | p[2], p[3], p[4], p[5]))
    if op == STATE:
        if n < 6 or p[4] >= len(STATUSES):
            return None
        s = _scores(p, 5)
        if s is None:
            return None
        return (op, (_seat(p[1]), _seat(p[2]), _seat(p[3]), p[4], s))
    return None
