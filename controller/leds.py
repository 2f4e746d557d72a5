"""The Pi's own pins as a :class:`~controller.panel.Panel` (gpiozero).

A turn LED and a button per seat, and a status light of up to three LEDs (ok, confirm,
fault). Blinking and the trick-winner flash are driven by :meth:`GpioPanel.tick` from the
table loop with an injectable clock, not by gpiozero's background blink threads, so tests
on gpiozero's ``MockFactory`` assert exact pin states at exact times without sleeping.
Button edges come from gpiozero callbacks (any thread) and become short or long presses
by the time between press and release.
"""
from __future__ import annotations

import queue
import time
from typing import Callable, Sequence

from gpiozero import LED, Button, Device

from controller.panel import ButtonPress, Status


def make_factory(name: str):
    """A gpiozero pin factory by config name ('' = gpiozero's own choice)."""
    if not name:
        return None
    if name == "mock":
        from gpiozero.pins.mock import MockFactory

        return MockFactory()
    if name == "lgpio":
        from gpiozero.pins.lgpio import LGPIOFactory

        return LGPIOFactory()
    if name == "rpigpio":
        from gpiozero.pins.rpigpio import RPiGPIOFactory

        return RPiGPIOFactory()
    if name == "pigpio":
        from gpiozero.pins.pigpio import PiGPIOFactory

        return PiGPIOFactory()
    if name == "native":
        from gpiozero.pins.native import NativeFactory

        return NativeFactory()
    raise ValueError(f"unknown gpio factory {name!r}")


class GpioPanel:
    """Seat LEDs, seat buttons and a status light on GPIO pins (BCM numbers)."""

    def __init__(self, turn_leds: Sequence[int], buttons: Sequence[int], status: dict[str, int | None],
                 *, long_press: float = 0.8, flash_seconds: float = 1.5, blink_seconds: float = 0.25,
                 clock: Callable[[], float] = time.monotonic, pin_factory=None, bounce_time: float | None = None) -> None:
        self.clock = clock
        self.long_press = long_press
        self.flash_seconds = flash_seconds
        self.blink = blink_seconds
        self.factory = pin_factory
        self.turn_leds = [LED(p, pin_factory=pin_factory) for p in turn_leds]
        self.status_leds = {k: LED(p, pin_factory=pin_factory) for k, p in status.items() if p is not None}
        self.buttons: list[Button] = []
        self._edges: "queue.SimpleQueue[tuple[int, bool, float]]" = queue.SimpleQueue()
        self._down: dict[int, float] = {}
        for seat, pin in enumerate(buttons):
            b = Button(pin, pull_up=True, bounce_time=bounce_time, pin_factory=pin_factory)
            b.when_pressed = self._edge_cb(seat, True)
            b.when_released = self._edge_cb(seat, False)
            self.buttons.append(b)
        self.turn: int | None = None
        self.confirm_seat: int | None = None
        self.status: Status = "ok"
        self.flash_until = 0.0
        self.flash_seat: int | None = None
        self.scores: list[int] = []
        self._closed = False
        self.tick()

    def _edge_cb(self, seat: int, down: bool):
        def cb(*_):
            self._edges.put((seat, down, self.clock()))
        return cb

    # ----- Panel -------------------------------------------------------------------
    def show_turn(self, seat: int | None) -> None:
        self.turn = seat
        self.tick()

    def flash_winner(self, seat: int | None) -> None:
        self.flash_seat = seat
        self.flash_until = self.clock() + self.flash_seconds
        self.tick()

    def ask_confirmation(self, seat: int | None) -> None:
        self.confirm_seat = seat
        self.tick()

    def set_status(self, status: Status) -> None:
        self.status = status
        self.tick()

    def show_scores(self, scores: Sequence[int]) -> None:
        self.scores = list(scores)      # no score display on bare pins

    def presses(self) -> list[ButtonPress]:
        out: list[ButtonPress] = []
        while True:
            try:
                seat, down, t = self._edges.get_nowait()
            except queue.Empty:
                return out
            if down:
                self._down[seat] = t
            elif seat in self._down:
                held = t - self._down.pop(seat)
                out.append(ButtonPress(seat, "long" if held >= self.long_press else "short"))

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        for dev in [*self.turn_leds, *self.status_leds.values(), *self.buttons]:
            dev.close()

    # ----- time-driven outputs --------------------------------------------------------
    def _phase(self, now: float, period: float) -> bool:
        return int(now / period) % 2 == 0

    def tick(self) -> None:
        """Set every LED for the current time (call every loop iteration)."""
        if self._closed:
            return
        now = self.clock()
        flashing = now < self.flash_until
        for seat, led in enumerate(self.turn_leds):
            if self.confirm_seat == seat:
                on = self._phase(now, self.blink)
            elif flashing and self.flash_seat is not None:
                on = seat == self.flash_seat and self._phase(now, self.blink / 2)
            else:
                on = seat == self.turn
            if led.is_lit != on:
                led.value = on
        want = {"ok": self.status == "ok",
                "confirm": self.status == "confirm" and self._phase(now, self.blink),
                "fault": self.status == "fault" or (self.status == "offline" and self._phase(now, 4 * self.blink))}
        for name, led in self.status_leds.items():
            if led.is_lit != want.get(name, False):
                led.value = want.get(name, False)


def from_config(gpio, players: int, clock: Callable[[], float] = time.monotonic, pin_factory=None) -> GpioPanel:
    """Build the panel from the ``[gpio]`` config section."""
    factory = pin_factory if pin_factory is not None else make_factory(gpio.factory)
    if factory is None and Device.pin_factory is None:
        factory = None   # gpiozero picks lgpio/rpigpio on a Pi (or GPIOZERO_PIN_FACTORY)
    status = {"ok": gpio.status.ok, "confirm": gpio.status.confirm, "fault": gpio.status.fault}
    bounce = None if gpio.factory == "mock" else 0.02
    return GpioPanel(gpio.turn_leds, gpio.buttons, status, long_press=gpio.long_press,
                     flash_seconds=gpio.flash_seconds, blink_seconds=gpio.blink_seconds,
                     clock=clock, pin_factory=factory, bounce_time=bounce)
