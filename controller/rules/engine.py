"""The rules-engine base: what every game module shares.

A :class:`Game` instance *is* the state of one match, like python-chess's ``Board``: the
referee feeds it validated events through :meth:`Game.apply`, which returns the judgments
(plain dicts, CONTRACT §3.2) and raises a :class:`~controller.rules.errors.RefereeError`
for an event the rules reject. A game never does I/O, reads clocks or keeps globals, so
the same code judges a live table, a replayed journal and a test. The referee (not the
game) guarantees that a rejected event leaves no trace: it restores a snapshot.

Game modules subclass :class:`Game`, declare their facts as class attributes (deck,
direction, table sizes, options with defaults) and implement one ``on_<event>`` method per
event kind they accept.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, Callable, ClassVar, Iterable, Sequence

from controller.rules import cards as _cards
from controller.rules.errors import BadEvent, DuplicateCard, NotAllowed, OutOfTurn, quote
from controller.rules.events import Event

Judgment = dict[str, Any]

# The largest value any integer option takes. The biggest default is 21 points (Vitou) and
# no club game runs to more than a few hundred points, hands or games; a larger number is a
# typo, and 10**30 would only make a match that never ends. Set by hand, not measured.
OPTION_INT_MAX = 1000


def judgment(kind: str, **fields: Any) -> Judgment:
    """A judgment dict with ``judgment`` first, then the fields in the order given."""
    out: Judgment = {"judgment": kind}
    out.update(fields)
    return out


@dataclass(frozen=True)
class Option:
    """A club-configurable rule: default, allowed values (or a type), and why it exists."""

    default: Any
    doc: str
    choices: tuple[Any, ...] | None = None
    low: int = 0                      # integer options: the allowed range, inclusive
    high: int = OPTION_INT_MAX

    def check(self, name: str, value: Any) -> Any:
        if self.choices is not None:
            if value not in self.choices:
                raise BadEvent(f"option {name!r} must be one of {list(self.choices)}, not {quote(value)}")
            return value
        want = type(self.default)
        ok = isinstance(value, want) and not (want is int and isinstance(value, bool))
        if not ok:
            raise BadEvent(f"option {name!r} must be a {want.__name__}, not {quote(value)}")
        if want is int and not self.low <= value <= self.high:
            raise BadEvent(f"option {name!r} must be an integer from {self.low} to {self.high}, "
                           f"not {quote(value)}")
        return value


def teams_for(players: int) -> int:
    """Number of sides: 2 teams at 4 or 6 players (alternate seats), else every seat alone."""
    return 2 if players in (4, 6) else players


def team_of(seat: int, players: int) -> int:
    """CONTRACT §2: with 4 or 6 players team 0 holds the even seats; otherwise a seat is its own side."""
    return seat % 2 if players in (4, 6) else seat


def top_plays(plays: Sequence[tuple[int, int]]) -> list[int]:
    """Seats (in play order) whose strength equals the trick's highest."""
    best = max(s for _, s in plays)
    return [seat for seat, s in plays if s == best]


def resolve_trick_with_partner_ties(plays: Sequence[tuple[int, int]], players: int) -> tuple[int | None, int]:
    """Winner of a trick where equal top cards of *opposing* sides tie (Truco, Vitou).

    ``plays`` are (seat, strength) in play order. Returns (winner seat or None if tied,
    seat of the first top card). When the equal top cards all belong to one team that
    team wins and the earlier of them is the winner (CONTRACT §3.2 conventions).
    """
    tops = top_plays(plays)
    sides = {team_of(s, players) for s in tops}
    return (tops[0] if len(sides) == 1 else None), tops[0]


def best_of_three(results: Sequence[int | None]) -> tuple[bool, int | None]:
    """(is the hand over, winning team or None) after these trick results.

    The three-trick hand of Vitou (§4.5 table) and Truco (§6.8 table): ``results`` holds
    each trick's winning team, None for a tie. Two wins take the hand; otherwise a tied
    trick goes to the first team that won a trick, before or after it; three ties: nobody.
    """
    wins = [r for r in results if r is not None]
    for team in (0, 1):
        if wins.count(team) >= 2:
            return True, team
    if len(results) == 2 and len(wins) == 1:
        return True, wins[0]                    # A + tie, or tie + A
    if len(results) == 3:
        return True, (wins[0] if wins else None)
    return False, None


class Game(ABC):
    """One match of one game: the state, and the rules that move it."""

    name: ClassVar[str] = ""
    deck_id: ClassVar[str] = ""
    clockwise: ClassVar[bool] = False
    player_counts: ClassVar[tuple[int, ...]] = (4,)
    default_players: ClassVar[int] = 4
    OPTIONS: ClassVar[dict[str, Option]] = {}

    def __init__(self, players: int, dealer: int, options: dict[str, Any]) -> None:
        self.players = players
        self.dealer = dealer
        self.options = self.resolve_options(options)
        self.deck = _cards.deck(self.deck_id)
        self.finished = False
        self.match_winner: int | None = None

    # ----- construction ---------------------------------------------------------------
    @classmethod
    def resolve_options(cls, given: dict[str, Any]) -> dict[str, Any]:
        """Defaults overridden by ``given``; unknown names and bad values are bad events."""
        unknown = sorted(set(given) - set(cls.OPTIONS))
        if unknown:
            known = ", ".join(sorted(cls.OPTIONS)) or "none"
            raise BadEvent(f"unknown {cls.name} option(s): {', '.join(unknown)} (known: {known})")
        out = {k: o.default for k, o in cls.OPTIONS.items()}
        for k, v in given.items():
            out[k] = cls.OPTIONS[k].check(k, v)
        return out

    def begin(self) -> list[Judgment]:
        """Judgments announced when the match starts (scores, first turn...)."""
        return [self.score_judgment(), *self.turn_judgments()]

    # ----- the one entry point --------------------------------------------------------
    def apply(self, event: Event) -> list[Judgment]:
        """Judge one event (not ``start``/``undo``, which the referee handles)."""
        handler: Callable[[Event], list[Judgment]] | None = getattr(self, f"on_{event.kind}", None)
        if handler is None:
            raise NotAllowed(f"{event.kind} events are not used in {self.name}")
        if event.seat is not None and not 0 <= event.seat < self.players:
            raise BadEvent(f"seat {event.seat} does not exist: seats are 0 to {self.players - 1}")
        if event.team is not None and not 0 <= event.team < teams_for(self.players):
            raise BadEvent(f"team {event.team} does not exist: teams are 0 to {teams_for(self.players) - 1}")
        return handler(event)

    def on_redeal(self, event: Event) -> list[Judgment]:
        raise NotAllowed(f"redeal is not used in {self.name}")

    # ----- penalties: one mechanism for every game ----------------------------------
    # Games whose hands come in kinds decided by the scores (Vitou's hands at 20, Truco's hands
    # of eleven) set this False when a hand is dealt and True at its first card, call, decision
    # or deal option; the default True means "never re-decide".
    hand_begun: bool = True

    def on_penalty(self, event: Event) -> list[Judgment]:
        """Score a penalty on the game's scale (:meth:`score_penalty`). A penalty that ends
        nothing but moves the scores re-decides a hand that has not begun yet, as if it were
        dealt now (:meth:`decide_hand_kind`: Vitou §7.1/§7.2, Truco §8); a hand already under
        way keeps the kind and stake it is being played for, and the next hand follows the
        new scores.
        """
        ended = self.score_penalty(event)
        if ended is not None:
            return ended
        if not self.hand_begun:
            self.decide_hand_kind()
        return [self.score_judgment(), *self.turn_judgments()]

    def score_penalty(self, event: Event) -> list[Judgment] | None:
        """Move the scores for ``event``; the judgments if that ended the hand, else None."""
        raise NotAllowed(f"penalties are not used in {self.name}")

    def decide_hand_kind(self) -> None:
        """Set up the current (not yet begun) hand's kind from the scores now."""

    # ----- helpers for game modules ---------------------------------------------------
    def next_seat(self, seat: int) -> int:
        return (seat + 1) % self.players

    def team(self, seat: int) -> int:
        return team_of(seat, self.players)

    def parse_card(self, text: str) -> str:
        """Canonical id in this game's deck (unknown_card / not_in_deck otherwise)."""
        return _cards.parse_card(text, self.deck_id)

    @staticmethod
    def check_turn(seat: int, expected: int | None, what: str = "play") -> None:
        if expected is None:
            raise NotAllowed("nobody is to act now")
        if seat != expected:
            raise OutOfTurn(f"seat {expected} is to {what}, not seat {seat}")

    @staticmethod
    def check_unplayed(card: str, played: Iterable[str], where: str = "this deal") -> None:
        if card in played:
            raise DuplicateCard(f"{card} was already played in {where}")

    def close_game_if_won(self, totals: list[int], games: list[int], target: int,
                          games_to_win: int) -> tuple[list[Judgment], bool]:
        """Two-team games to a target score (Vitou, Truco, Trionfetti): once a team has
        ``target`` or more, count its game (``game`` judgment) and end the match when it
        has ``games_to_win`` (``match``); else reset ``totals`` for the next game and
        announce them. Returns (judgments, whether a game was won).
        """
        leaders = [t for t in (0, 1) if totals[t] >= target]
        if not leaders:
            return [], False
        winner = max(leaders, key=lambda t: totals[t])
        games[winner] += 1
        out = [judgment("game", winner=winner, games=list(games))]
        if games[winner] >= games_to_win:
            self.finished, self.match_winner = True, winner
            out.append(judgment("match", winner=winner))
            return out, True
        totals[:] = [0, 0]
        out.append(self.score_judgment())
        return out, True

    # ----- what the world sees --------------------------------------------------------
    @abstractmethod
    def scores(self) -> list[int]:
        """Running totals per team (or per seat in solo games)."""

    def score_judgment(self) -> Judgment:
        return judgment("score", scores=list(self.scores()))

    @abstractmethod
    def to_act(self) -> tuple[int, list[str]] | None:
        """(seat, event kinds it may send) or None when nobody is to act."""

    def others_to_act(self) -> list[tuple[int, list[str]]]:
        """Seats other than :meth:`to_act`'s that may also send an event now, with the kinds
        (an opponent's answer, the dealer's scart, a jack holder's swap...); none by default."""
        return []

    def turn_fields(self) -> dict[str, Any] | None:
        """``seat``, ``expects`` and, when other seats may act too, ``others`` (a list of
        ``{"seat", "expects"}``, docs/contract-extensions.md); None when nobody is to act."""
        who = None if self.finished else self.to_act()
        if who is None:
            return None
        out: dict[str, Any] = {"seat": who[0], "expects": who[1]}
        others = self.others_to_act()
        if others:
            listed = [{"seat": s, "expects": k} for s, k in others if s != who[0] and k]
            if listed:
                out["others"] = listed
        return out

    def turn_judgments(self) -> list[Judgment]:
        fields = self.turn_fields()
        return [] if fields is None else [judgment("turn", **fields)]

    def unplayed_cards(self) -> list[str]:
        """Cards of the deck that may still appear on the table in this deal (for vision)."""
        return list(self.deck.cards)

    def snapshot(self) -> dict[str, Any]:
        """The canonical JSON form of the state: journal checks, MQTT ``state``, fixtures.

        Common keys first (every display can rely on them), then the game's own under
        ``detail``.
        """
        return {
            "game": self.name,
            "players": self.players,
            "dealer": self.dealer,
            "options": dict(self.options),
            "scores": list(self.scores()),
            "turn": self.turn_fields(),
            "finished": self.finished,
            "match_winner": self.match_winner,
            "detail": self.detail(),
        }

    def detail(self) -> dict[str, Any]:
        return {}
