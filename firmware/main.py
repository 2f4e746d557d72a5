# Entry point on the Pico (MicroPython runs main.py after boot.py).
#
# Hold seat 0's main button while plugging in to skip the firmware and keep the REPL:
# the firmware turns Ctrl-C off (binary frames contain 0x03), so this is the way back
# in for mpremote. Never print here: stdout is the framed link.

import sys
import time
import select
import micropython
import machine
import neopixel
import os

import config
from board import Board


class UsbPort:
    """The USB serial port as the board logic wants it: non-blocking read, write."""

    def __init__(self):
        self.inp = sys.stdin.buffer
        self.out = sys.stdout.buffer
        self.poller = select.poll()
        self.poller.register(sys.stdin, select.POLLIN)

    def read(self):
        buf = bytearray()
        while len(buf) < 128 and self.poller.poll(0):
            buf.extend(self.inp.read(1))
        return bytes(buf)

    def write(self, data):
        self.out.write(data)

    def wait(self, ms):
        self.poller.poll(ms)


def _nonce():
    n = 0
    for b in os.urandom(4):
        n = (n << 8) | b
    return n ^ time.ticks_us()


def main():
    cfg = config.load("board_config.json")
    pins = []
    for group in cfg["buttons"]:
        pins.append([machine.Pin(g, machine.Pin.IN, machine.Pin.PULL_UP) for g in group])
    strip = neopixel.NeoPixel(machine.Pin(cfg["led_pin"]), cfg["leds"])
    time.sleep_ms(50)
    if pins and pins[0] and pins[0][0].value() == 0:
        # Boot escape: one white LED says "REPL, firmware not running".
        strip[0] = (40, 40, 40)
        strip.write()
        return
    micropython.kbd_intr(-1)
    port = UsbPort()
    board = Board(cfg, time, pins, strip, port, _nonce())
    wdt = machine.WDT(timeout=8000)
    while True:
        try:
            board.step()
        except Exception:  # never die on one bad turn; the watchdog catches a hang
            board.errors += 1
        wdt.feed()
        port.wait(2)


main()
