# What the LED strip shows: a small model (turn, winner, confirmation, status, scores)
# and a pure render(now) that turns it into one colour per LED.
#
# MicroPython and CPython alike. Blinking is computed from the clock at render time, so
# the model holds no timers and tests can render any instant.

OFF = (0, 0, 0)
TURN = (0, 200, 40)        # steady green: this seat is to act
WINNER = (255, 170, 0)     # gold flashes: this seat took the trick
CONFIRM = (255, 90, 0)     # amber blink: this seat's card needs a human confirmation
OK = (0, 60, 0)
FAULT = (255, 0, 0)        # alert: a finding that needs the referee
OFFLINE = (0, 40, 255)     # blue: the host is gone, presses are being kept
TENS = (0, 80, 255)
UNITS = (200, 200, 200)
NEGATIVE = (255, 0, 60)

STATUS_OK = 0
STATUS_CONFIRM = 1
STATUS_FAULT = 2
STATUS_OFFLINE = 3

WINNER_FLASH_MS = 2000


def _diff(a, b):
    return a - b


class Display:
    """The board's idea of the table, rendered onto the strip's segments."""

    def __init__(self, cfg, diff=None):
        self.leds = cfg["leds"]
        self.seat_segments = cfg["seat_segments"]
        self.status_segment = cfg["status_segment"]
        self.score_segment = cfg["score_segment"]
        self.scale = max(0.0, min(1.0, float(cfg["brightness"])))
        self.diff = diff or _diff
        self.turn = None
        self.winner = None
        self.winner_since = 0
        self.confirm = None
        self.status = STATUS_OK
        self.scores = ()

    def set_winner(self, seat, now):
        self.winner = seat
        self.winner_since = now

    def _fill(self, out, seg, colour):
        if seg is not None:
            for i in range(seg[0], seg[0] + seg[1]):
                out[i] = colour

    def _seat(self, seat):
        if seat is None or seat >= len(self.seat_segments):
            return None
        return self.seat_segments[seat]

    def render(self, now, host_present=True):
        """One (r, g, b) per LED for instant ``now``, brightness applied."""
        out = [OFF] * self.leds
        blink = (now // 250) % 2 == 0
        if not host_present or self.status == STATUS_OFFLINE:
            # Offline: a slow blue dot walks the seats, the status light blinks blue.
            segs = self.seat_segments
            k = (now // 400) % len(segs)
            seg = segs[k]
            out[seg[0]] = OFFLINE
            if (now // 500) % 2 == 0:
                self._fill(out, self.status_segment, OFFLINE)
            return self._scaled(out)
        self._fill(out, self._seat(self.turn), TURN)
        if self.confirm is not None and blink:
            self._fill(out, self._seat(self.confirm), CONFIRM)
        if self.winner is not None:
            age = self.diff(now, self.winner_since)
            if 0 <= age < WINNER_FLASH_MS and (age // 150) % 2 == 0:
                self._fill(out, self._seat(self.winner), WINNER)
        st = self.status
        if st == STATUS_OK:
            self._fill(out, self.status_segment, OK)
        elif st == STATUS_CONFIRM and blink:
            self._fill(out, self.status_segment, CONFIRM)
        elif st == STATUS_FAULT:
            self._fill(out, self.status_segment, FAULT)
        self._render_scores(out)
        return self._scaled(out)

    def _render_scores(self, out):
        seg = self.score_segment
        if seg is None or not self.scores:
            return
        part = seg[1] // len(self.scores)
        if part < 2:
            return
        for k, score in enumerate(self.scores):
            start = seg[0] + k * part
            # Digits as tallies: tens in blue, then units in white, within the part.
            # A negative score lights its first LED red and shows its magnitude.
            i = start
            end = start + part
            if score < 0:
                out[i] = NEGATIVE
                i += 1
                score = -score
            for _ in range(score // 10):
                if i >= end:
                    break
                out[i] = TENS
                i += 1
            for _ in range(score % 10):
                if i >= end:
                    break
                out[i] = UNITS
                i += 1

    def _scaled(self, out):
        s = self.scale
        if s >= 1.0:
            return out
        return [(int(c[0] * s), int(c[1] * s), int(c[2] * s)) for c in out]
