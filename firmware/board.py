# The board's whole behaviour as one plain class: serial link, display, buttons.
#
# MicroPython and CPython alike. Everything physical is passed in, so the same code runs
# on the Pico (main.py passes the ``time`` module, machine.Pin objects, a NeoPixel and
# the USB serial port) and in the host's simulator (shims and a pty):
#   clock   has ticks_ms() and ticks_diff(a, b)          (the ``time`` module on the board)
#   buttons list per seat of pin objects with value()    (index 0 is the seat's main button)
#   pixels  NeoPixel-like: pixels[i] = (r, g, b); write()
#   port    read() -> bytes available now (b"" if none); write(data)

try:
    from firmware import framing, messages, display, buttons as buttons_mod
except ImportError:
    import framing
    import messages
    import display
    import buttons as buttons_mod

VERSION = "1.0.0"
RENDER_MS = 20          # at most 50 strip updates a second
OUTBOX_MAX = 64         # presses kept while the host is away; oldest dropped beyond


class Board:
    """Applies host commands to the strip and reports debounced presses, exactly once."""

    def __init__(self, cfg, clock, buttons, pixels, port, nonce):
        self.cfg = cfg
        self.clock = clock
        self.pixels = pixels
        self.port = port
        diff = clock.ticks_diff
        self.diff = diff
        now = clock.ticks_ms()
        self.display = display.Display(cfg, diff)
        self.buttons = []
        for seat, pins in enumerate(buttons):
            for index, pin in enumerate(pins):
                self.buttons.append(buttons_mod.Button(
                    pin, seat, index, now, cfg["debounce_ms"], cfg["long_press_ms"],
                    cfg["active_low"], diff))
        # Short on purpose: it must get through a noisy line.
        info = "v%s seats=%d leds=%d buttons=%s" % (
            VERSION, cfg["seats"], cfg["leds"], "".join(str(len(p)) for p in buttons))
        self.info = bytes((messages.INFO,)) + info.encode()
        self.link = framing.Link(port.write, nonce, rto_ms=30, diff=diff)
        self.seen_restarts = 0
        self.host_timeout = cfg["host_timeout_ms"]
        self.event_seq = 0
        self.outbox = []
        self.dropped_presses = 0
        self.errors = 0
        self.last_frame = None
        self.last_render = None

    # -- one turn of the main loop ------------------------------------------------
    def step(self):
        now = self.clock.ticks_ms()
        data = self.port.read()
        if data:
            for payload in self.link.feed(data, now):
                msg = messages.decode(payload)
                if msg is None:
                    self.errors += 1
                else:
                    self.apply(msg[0], msg[1], now)
        if self.link.restarts != self.seen_restarts:
            # A new host (or a restarted one): introduce ourselves before anything else.
            self.seen_restarts = self.link.restarts
            self.link.queue.insert(0, self.info)
        for b in self.buttons:
            kind = b.update(now)
            if kind is not None:
                self.press(b.seat, b.index, kind)
        if self.link.up and not self.host_present(now):
            # The host went quiet: stop sending data into the void and knock instead
            # (hellos, backing off); presses wait in the outbox with their numbers.
            self.link.restart_handshake()
        while self.outbox and self.link.pending() < 2 * self.link.window:
            self.link.send(self.outbox.pop(0))
        self.link.poll(now)
        self.render(now)

    def host_present(self, now):
        q = self.link.quiet_for(now)
        return self.link.up and q is not None and q < self.host_timeout

    def press(self, seat, index, kind):
        """Queue a press for the host; kept, in order, however long the host is away."""
        self.event_seq = (self.event_seq + 1) & 0xFFFF
        if len(self.outbox) >= OUTBOX_MAX:
            self.outbox.pop(0)
            self.dropped_presses += 1
        self.outbox.append(messages.press_msg(self.event_seq, seat, index, kind))

    def apply(self, op, fields, now):
        """Act on one decoded host message (each arrives exactly once)."""
        d = self.display
        if op == messages.TURN:
            d.turn = fields[0]
        elif op == messages.WINNER:
            d.set_winner(fields[0], now)
        elif op == messages.CONFIRM:
            d.confirm = fields[0]
        elif op == messages.STATUS:
            d.status = fields[0]
        elif op == messages.SCORES:
            d.scores = fields[0]
        elif op == messages.QUERY:
            self.link.send(messages.state_msg(d.turn, d.winner, d.confirm, d.status,
                                              d.scores))
        elif op == messages.ECHO:
            self.link.send(bytes((messages.ECHO,)) + fields[0])
        else:
            self.errors += 1

    def render(self, now):
        if self.last_render is not None and self.diff(now, self.last_render) < RENDER_MS:
            return
        self.last_render = now
        frame = self.display.render(now, self.host_present(now))
        if frame == self.last_frame:
            return
        self.last_frame = frame
        px = self.pixels
        for i in range(len(frame)):
            px[i] = frame[i]
        px.write()
