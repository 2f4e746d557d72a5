# Seat push buttons: debouncing and long press on plain pins.
#
# MicroPython and CPython alike. A button is sampled every board step; a level counts
# only once it has been stable for debounce_ms. A press held for long_ms reports "long"
# at that moment (so the player gets feedback while still holding); a shorter one
# reports "short" on release.

SHORT = 0
LONG = 1


def _diff(a, b):
    return a - b


class Button:
    """One debounced push button on a pin with a ``value()`` method."""

    def __init__(self, pin, seat, index, now, debounce_ms=20, long_ms=700,
                 active_low=True, diff=None):
        self.pin = pin
        self.seat = seat
        self.index = index
        self.debounce_ms = debounce_ms
        self.long_ms = long_ms
        self.active_low = active_low
        self.diff = diff or _diff
        # Whatever the level at start-up, it is not a press (a button held at boot is
        # the REPL escape, not a move).
        self.raw = self._read()
        self.raw_since = now
        self.stable = self.raw
        self.armed = not self.raw
        self.pressed_at = now
        self.long_sent = False

    def _read(self):
        v = self.pin.value()
        return (v == 0) if self.active_low else (v != 0)

    def update(self, now):
        """SHORT or LONG when a press completes at ``now``, else None."""
        raw = self._read()
        d = self.diff
        if raw != self.raw:
            self.raw = raw
            self.raw_since = now
        elif raw != self.stable and d(now, self.raw_since) >= self.debounce_ms:
            self.stable = raw
            if raw:
                self.pressed_at = self.raw_since
                self.long_sent = False
            else:
                was_armed = self.armed
                self.armed = True
                if was_armed and not self.long_sent:
                    return SHORT
        if self.stable and self.armed and not self.long_sent and \
                d(now, self.pressed_at) >= self.long_ms:
            self.long_sent = True
            return LONG
        return None
