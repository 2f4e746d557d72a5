"""The table's lights and seat buttons, as one small interface.

Two implementations stand behind it, selected by configuration like gpiozero's pin
factories: :mod:`controller.leds` (gpiozero LEDs and Buttons on the Pi's own pins, or
gpiozero's ``MockFactory`` in tests and the demo) and :mod:`controller.board.host` (the
LED/button board on a serial link). The table loop talks only to this interface, and may
drive several panels at once (:class:`PanelGroup`).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol, Sequence

Status = Literal["ok", "confirm", "fault", "offline"]
PressKind = Literal["short", "long"]


@dataclass(frozen=True)
class ButtonPress:
    """A seat's button was pressed: ``button`` indexes that seat's buttons (0 = main)."""

    seat: int
    kind: PressKind
    button: int = 0


class Panel(Protocol):
    """What the table shows and what the seats press."""

    def show_turn(self, seat: int | None) -> None:
        """Light the seat that is to act (None: nobody)."""

    def flash_winner(self, seat: int | None) -> None:
        """Flash the trick winner's light (None: a tied trick)."""

    def ask_confirmation(self, seat: int | None) -> None:
        """Blink this seat's light: its card needs a human confirmation (None: stop)."""

    def set_status(self, status: Status) -> None:
        """The status light: ok, waiting for confirmation, fault, or offline."""

    def show_scores(self, scores: Sequence[int]) -> None:
        """Running scores, where the panel can show them (a long LED strip)."""

    def presses(self) -> list[ButtonPress]:
        """Button presses since the last call, oldest first, each exactly once."""

    def close(self) -> None:
        """Release pins or the serial port; may be called twice."""


class PanelGroup:
    """Several panels driven as one (the Pi's pins and a serial board, say)."""

    def __init__(self, panels: Sequence[Panel]) -> None:
        self.panels = list(panels)

    def show_turn(self, seat: int | None) -> None:
        for p in self.panels:
            p.show_turn(seat)

    def flash_winner(self, seat: int | None) -> None:
        for p in self.panels:
            p.flash_winner(seat)

    def ask_confirmation(self, seat: int | None) -> None:
        for p in self.panels:
            p.ask_confirmation(seat)

    def set_status(self, status: Status) -> None:
        for p in self.panels:
            p.set_status(status)

    def show_scores(self, scores: Sequence[int]) -> None:
        for p in self.panels:
            p.show_scores(scores)

    def presses(self) -> list[ButtonPress]:
        out: list[ButtonPress] = []
        for p in self.panels:
            out.extend(p.presses())
        return out

    def close(self) -> None:
        for p in self.panels:
            p.close()
