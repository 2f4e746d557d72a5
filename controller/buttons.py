"""Seat buttons → contract events, per game (one small table each).

A press means something only in context: what the pressing seat may do now (the turn's
``expects``, or its entry in the turn's ``others``) and the game's phase. Button 0 is the seat's main button, button 1 (where
fitted) a second one. A confirmation pending at the seat takes precedence (short: confirm,
long: reject) and is handled by the table loop, not here.

| game | short press | long press | button 1 |
|---|---|---|---|
| vitou | bid (call); at 20: play | refuse (answer); at 20: run, at 20-20: pass | — |
| truco | truco (call) / accept (answer) / play (decide) / keep (deal) | refuse (answer) / run (decide) / pass (deal) | raise (answer) |
| trionfetti | vagaresto (call) | — | — |
| troccas | boub (call) | boub_sche (call) | — |
"""
from __future__ import annotations

from typing import Any

from controller.panel import ButtonPress


def seat_expects(turn: dict[str, Any], seat: int) -> list[str]:
    """What ``seat`` may send now: the acting seat's ``expects``, or its entry in ``others``
    (a partner deciding at 20, the second opponent answering a call)."""
    if turn.get("seat") == seat:
        return list(turn.get("expects", []))
    for other in turn.get("others", []):
        if other.get("seat") == seat:
            return list(other.get("expects", []))
    return []


def press_event(game: str | None, snapshot: dict[str, Any] | None, press: ButtonPress) -> dict[str, Any] | None:
    """The event a press stands for, or None when it means nothing now."""
    if not game or not snapshot or snapshot.get("finished"):
        return None
    turn = snapshot.get("turn") or {}
    expects = seat_expects(turn, press.seat)
    detail = snapshot.get("detail") or {}
    seat, kind, button = press.seat, press.kind, press.button

    def ev(event: str, key: str, value: str) -> dict[str, Any]:
        return {"event": event, "seat": seat, key: value}

    if game == "vitou":
        if "decide" in expects:
            if kind == "short":
                return ev("decide", "decision", "play")
            return ev("decide", "decision", "pass" if detail.get("phase") == "pass20" else "run")
        if kind == "short" and "call" in expects:
            return ev("call", "call", "bid")
        if kind == "long":
            return ev("answer", "answer", "refuse")
        return None
    if game == "truco":
        if button == 1:
            return ev("answer", "answer", "raise")
        if "decide" in expects:
            return ev("decide", "decision", "play" if kind == "short" else "run")
        if "deal_option" in expects:
            return ev("deal_option", "option", "keep" if kind == "short" else "pass")
        if "answer" in expects or detail.get("pending_call") or detail.get("answerer") == seat:
            return ev("answer", "answer", "accept" if kind == "short" else "refuse")
        if kind == "short":
            return ev("call", "call", "truco")
        return None
    if game == "trionfetti":
        return ev("call", "call", "vagaresto") if kind == "short" else None
    if game == "troccas":
        return ev("call", "call", "boub" if kind == "short" else "boub_sche")
    return None


def press_for(game: str | None, snapshot: dict[str, Any] | None, event: dict[str, Any]) -> ButtonPress | None:
    """The press (if any) that makes ``event`` now: the demo's bots press buttons like people."""
    seat = event.get("seat")
    if not isinstance(seat, int):
        return None
    for button in (0, 1):
        for kind in ("short", "long"):
            p = ButtonPress(seat, kind, button)   # type: ignore[arg-type]
            if press_event(game, snapshot, p) == event:
                return p
    return None
