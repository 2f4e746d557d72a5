"""Referee input events (CONTRACT §3.1): parsing and field validation.

Field checks live here, once, for every game: an event that passes :func:`parse_event`
has every field its kind requires, and each field the referee reads (:data:`SCHEMA`) is of
the right JSON type. Any other field is accepted and ignored (a tablet may stamp events with
a time or an id, ``docs/contract-extensions.md``); it stays in ``raw`` for the journal. What the *rules* make of
it (whose turn, which calls are legal) is the game module's business.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from controller.rules.errors import BadEvent, quote

# kind -> {field: (json type name, required)}: the only fields the referee reads.
_STR, _INT, _BOOL, _OBJ, _STRLIST = "string", "integer", "boolean", "object", "list of strings"
SCHEMA: dict[str, dict[str, tuple[str, bool]]] = {
    "start": {"game": (_STR, True), "dealer": (_INT, True), "players": (_INT, False), "options": (_OBJ, False)},
    "card": {"seat": (_INT, True), "card": (_STR, False), "face_down": (_BOOL, False)},
    "call": {"seat": (_INT, True), "call": (_STR, True)},
    "answer": {"seat": (_INT, True), "answer": (_STR, True)},
    "comanda": {"seat": (_INT, True), "text": (_STR, True)},
    "decide": {"seat": (_INT, True), "decision": (_STR, True)},
    "deal_option": {"seat": (_INT, True), "option": (_STR, True), "cards": (_STRLIST, False)},
    "discard": {"seat": (_INT, True), "cards": (_STRLIST, True)},
    "exchange": {"seat": (_INT, True), "give": (_STR, True), "take": (_STR, True)},
    "redeal": {},
    "penalty": {"team": (_INT, True), "offence": (_STR, True)},
    "undo": {},
}

# Where a seat's own input may come from; turn judgments list these kinds in `expects`.
SEAT_EVENTS = ("card", "call", "answer", "comanda", "decide", "deal_option", "discard", "exchange")


@dataclass(frozen=True)
class Event:
    """One validated input event. ``raw`` is the event exactly as accepted (for journals)."""

    kind: str
    seat: int | None = None
    card: str | None = None
    face_down: bool = False
    call: str | None = None
    answer: str | None = None
    text: str | None = None
    decision: str | None = None
    option: str | None = None
    cards: tuple[str, ...] | None = None
    give: str | None = None
    take: str | None = None
    team: int | None = None
    offence: str | None = None
    game: str | None = None
    dealer: int | None = None
    players: int | None = None
    options: dict[str, Any] = field(default_factory=dict)
    raw: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)


def _type_ok(value: Any, kind: str) -> bool:
    if kind == _STR:
        return isinstance(value, str)
    if kind == _INT:
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == _BOOL:
        return isinstance(value, bool)
    if kind == _OBJ:
        return isinstance(value, dict)
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def parse_line(line: str) -> Event:
    """Parse one JSON Lines input line; :class:`BadEvent` when it is not a valid event."""
    try:
        obj = json.loads(line)
    except (ValueError, RecursionError) as exc:
        raise BadEvent(f"not valid JSON: {exc}") from None
    return parse_event(obj)


def parse_event(obj: Any) -> Event:
    """Validate a decoded event object: known kind, required fields, right types; others ignored."""
    if not isinstance(obj, dict):
        raise BadEvent(f"an event must be a JSON object, not {type(obj).__name__}")
    kind = obj.get("event")
    if not isinstance(kind, str):
        raise BadEvent('missing "event" field (one of: ' + ", ".join(SCHEMA) + ")")
    if kind not in SCHEMA:
        raise BadEvent(f"unknown event {quote(kind)}; known events: " + ", ".join(SCHEMA))
    schema = SCHEMA[kind]
    for name, (typ, required) in schema.items():
        if name not in obj:
            if required:
                raise BadEvent(f'{kind} event needs a "{name}" field ({typ})')
            continue
        if not _type_ok(obj[name], typ):
            raise BadEvent(f'{kind} event: "{name}" must be a {typ}, not {quote(obj[name])}')
    if kind == "card":
        has_card, down = "card" in obj, obj.get("face_down", False)
        if down and has_card:
            raise BadEvent('card event: give either "card" or "face_down": true, not both')
        if not down and not has_card:
            raise BadEvent('card event needs a "card" field (or "face_down": true)')
    fields = {k: v for k, v in obj.items() if k in schema}
    if "cards" in fields:
        fields["cards"] = tuple(fields["cards"])
    return Event(kind=kind, raw=dict(obj), **fields)
