"""Typed referee errors: one class per contract error code (CONTRACT §3.2).

The referee turns any of them into an ``error`` judgment with ``code`` and the message;
nothing matches on message text. Each also subclasses ``ValueError`` so plain Python
callers can catch them the ordinary way.
"""
from __future__ import annotations

import json
from typing import Any

# Characters of bad input an error message repeats. The longest card spelling the referee
# accepts is 22 characters (max key length of cards._alias_table over every deck;
# tests/rules/test_input_edges.py re-measures it), so 40 always shows what was meant, and
# a 100 kB line is never echoed whole.
QUOTE_LIMIT = 40
# Backstop for a whole error message (lists of known events, games or options included).
MESSAGE_LIMIT = 300


def quote(value: Any) -> str:
    """``value`` as an error message shows it: repr of a string, JSON of anything else, at
    most :data:`QUOTE_LIMIT` characters of it (then "…")."""
    if isinstance(value, str):
        return repr(value) if len(value) <= QUOTE_LIMIT else repr(value[:QUOTE_LIMIT]) + "…"
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        text = type(value).__name__
    return text if len(text) <= QUOTE_LIMIT else text[:QUOTE_LIMIT] + "…"


class RefereeError(ValueError):
    """An event the referee rejects; the state is left exactly as it was."""

    code = "bad_event"

    def __init__(self, message: str) -> None:
        if len(message) > MESSAGE_LIMIT:
            message = message[:MESSAGE_LIMIT] + "…"
        super().__init__(message)
        self.message = message


class BadEvent(RefereeError):
    """Not JSON, or a field missing, unknown or of the wrong type."""

    code = "bad_event"


class UnknownCard(RefereeError):
    """Not a card id of any deck."""

    code = "unknown_card"


class NotInDeck(RefereeError):
    """A real card id, but not of this game's deck."""

    code = "not_in_deck"


class DuplicateCard(RefereeError):
    """The card was already played in this deal."""

    code = "duplicate_card"


class OutOfTurn(RefereeError):
    """Another seat is to act."""

    code = "out_of_turn"


class NotAllowed(RefereeError):
    """A call, answer, decision or face-down play the rules do not allow now."""

    code = "not_allowed"


class BadComanda(RefereeError):
    """A Trionfetti comanda that cannot be read or breaks a restriction."""

    code = "bad_comanda"


class IllegalDiscard(RefereeError):
    """A Troccas scart that holds an honour or cards not in the hand."""

    code = "illegal_discard"


class NoMatch(RefereeError):
    """An event before ``start`` or after the match ended."""

    code = "no_match"
