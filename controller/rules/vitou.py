"""Vitou (Nice), per ``shared/rules/vitou.md``: 32 cards, 4 players, clockwise.

Three tricks a hand, no trumps, no suit duty; the bid ladder 3 → 6 → 12 → *barrac*
(:func:`Vitou.may_bid`); game to 21 with the special rules at 20 (§7); a match of games.
Seats are numbered in playing order, so clockwise play is still ``seat + 1``.
"""
from __future__ import annotations

from typing import Any

from controller.rules.engine import (Game, Judgment, Option, best_of_three, judgment,
                                     resolve_trick_with_partner_ties, top_plays)
from controller.rules.errors import NotAllowed, OutOfTurn
from controller.rules.events import Event

# §1.3 strength numbers; suits are ignored.
STRENGTH = {"10": 8, "9": 7, "ace": 6, "king": 5, "queen": 4, "jack": 3, "8": 2, "7": 1}

BARRAC = "barrac"
LADDER: tuple[int | str, ...] = (3, 6, 12, BARRAC)
# §5.3: what the bidding team scores when its last bid is refused.
REFUSED_SCORES: dict[int | str, int] = {3: 1, 6: 3, 12: 6, BARRAC: 12}


def strength(card: str) -> int:
    return STRENGTH[card.partition("/")[2]]


class Vitou(Game):
    name = "vitou"
    deck_id = "french-32"
    clockwise = True
    player_counts = (4,)
    OPTIONS = {
        "points_to_win": Option(21, "a game is won at this total or more (§6.2)", low=2),
        "games_to_win": Option(2, "games a team must win to take the match (spec silent; best of three)", low=1),
        "partners_tie": Option("team", "equal top cards of partners: 'team' wins (§4.5c default) or 'tie'",
                               ("team", "tie")),
        "last_player_may_refuse": Option(True, "the last player to a trick may refuse a bid (§5.2.3)"),
        "twenty_rules": Option(True, "apply the special rules when a team has points_to_win - 1 (§7)"),
        "twenty_twenty_leader": Option("dealer_left", "who leads the 20-20 hand: the dealer's left "
                                       "(§7.2.6 default) or the player who said 'I play'",
                                       ("dealer_left", "player")),
        "penalty_points": Option(1, "points the opponents of an offending team score for a penalty"),
    }

    def __init__(self, players: int, dealer: int, options: dict[str, Any]) -> None:
        super().__init__(players, dealer, options)
        self.totals = [0, 0]
        self.games = [0, 0]
        self.hand = 0
        self._new_hand()

    # ----- hand set-up ------------------------------------------------------------
    def _new_hand(self) -> None:
        self.hand += 1
        self.trick = 1
        self.plays: list[tuple[int, str]] = []
        self.results: list[int | None] = []
        self.played: set[str] = set()
        self.leader = self.next_seat(self.dealer)
        self.turn: int | None = self.leader
        self.stake: int | str | None = None      # None: no bid yet (the hand is worth 1)
        self.bid_team: int | None = None
        self.bidder_must_play: int | None = None  # seat that bid and has yet to play
        self.answerer: int | None = None          # the one player who may refuse now
        self.hand_begun = False                   # a bid, card or decision yet
        self.decide_hand_kind()

    def decide_hand_kind(self) -> None:
        """§7 from the scores now: an ordinary hand, one team at 20 (§7.1) or both (§7.2).

        Called when the hand is dealt and again after a penalty before it has begun (the
        engine's one mechanism), so a penalty to 20 gets the decision or the pass round.
        """
        self.kind = "normal"                      # normal | twenty (§7.1) | twenty20 (§7.2)
        self.phase = "play"                       # play | decide20 | pass20
        self.at_twenty: int | None = None         # §7.1: the team at 20
        self.turn = self.leader
        target = self.options["points_to_win"] - 1
        if self.options["twenty_rules"]:
            high = [t for t in (0, 1) if self.totals[t] == target]
            if len(high) == 1:
                self.kind, self.phase, self.at_twenty, self.turn = "twenty", "decide20", high[0], None
            elif len(high) == 2:
                self.kind, self.phase = "twenty20", "pass20"

    def bidding_closed(self) -> bool:
        """§7.1.1: no bidding once a team is at 20 (also when a penalty took it there mid-hand)."""
        target = self.options["points_to_win"] - 1
        return self.kind != "normal" or (self.options["twenty_rules"] and max(self.totals) >= target)

    # ----- who may do what ----------------------------------------------------------
    def may_bid(self, seat: int) -> bool:
        """§5.1: open at 3 or raise one rung, at one's turn, before playing."""
        if self.phase != "play" or seat != self.turn or self.bidding_closed():
            return False
        if self.bidder_must_play is not None:
            return False
        if len(self.plays) == self.players - 1:        # last to the trick
            return False
        if self.stake is None:
            return True
        return self.stake != BARRAC and self.team(seat) != self.bid_team

    def may_refuse(self, seat: int) -> bool:
        if self.answerer != seat or seat != self.turn:
            return False
        last = len(self.plays) == self.players - 1
        return not last or self.options["last_player_may_refuse"]

    def to_act(self) -> tuple[int, list[str]] | None:
        if self.phase == "decide20":
            assert self.at_twenty is not None
            seat = self.leader if self.team(self.leader) == self.at_twenty else self.next_seat(self.leader)
            return seat, ["decide"]
        if self.phase == "pass20":
            assert self.turn is not None
            return self.turn, ["decide"]
        if self.turn is None:
            return None
        expects = ["card"]
        if self.may_bid(self.turn):
            expects.append("call")
        if self.may_refuse(self.turn):
            expects.append("answer")
        return self.turn, expects

    def others_to_act(self) -> list[tuple[int, list[str]]]:
        """§7.1.2: either member of the team at 20 decides."""
        if self.phase == "decide20":
            seat = self.to_act()
            assert seat is not None
            return [((seat[0] + 2) % self.players, ["decide"])]
        return []

    # ----- events -------------------------------------------------------------------
    def on_call(self, ev: Event) -> list[Judgment]:
        assert ev.seat is not None
        if ev.call != "bid":
            raise NotAllowed(f"unknown call {ev.call!r} in vitou (the only call is 'bid')")
        return self._bid(ev.seat)

    def _bid(self, seat: int) -> list[Judgment]:
        if self.phase != "play":
            raise NotAllowed("no bidding now: the hand has not begun")
        self.check_turn(seat, self.turn)
        if not self.may_bid(seat):
            raise NotAllowed(self._why_no_bid(seat))
        self.stake = LADDER[0] if self.stake is None else LADDER[LADDER.index(self.stake) + 1]
        self.bid_team = self.team(seat)
        self.bidder_must_play = seat
        self.answerer = self.next_seat(seat)
        self.hand_begun = True
        return [judgment("call", seat=seat, call="bid", stake=self.stake), *self.turn_judgments()]

    def _why_no_bid(self, seat: int) -> str:
        if self.bidding_closed():
            return "no bidding once a team has reached %d points" % (self.options["points_to_win"] - 1)
        if self.bidder_must_play == seat:
            return f"seat {seat} has bid and must now play a card"
        if len(self.plays) == self.players - 1:
            return f"seat {seat} is last to this trick and may not bid"
        if self.stake == BARRAC:
            return "barrac is the highest bid"
        return f"seat {seat} may not raise its own team's bid of {self.stake}"

    def on_answer(self, ev: Event) -> list[Judgment]:
        assert ev.seat is not None
        if ev.answer == "raise":
            if self.answerer != ev.seat:      # a raise answers a bid; without one it is a call
                raise NotAllowed(f"seat {ev.seat} has no bid to answer: a new bid is a call")
            return self._bid(ev.seat)
        if ev.answer not in ("accept", "refuse"):
            raise NotAllowed(f"unknown answer {ev.answer!r} (accept, refuse or raise)")
        if self.answerer is None:
            raise NotAllowed("there is no bid to answer")
        self.check_turn(ev.seat, self.answerer, "answer the bid")
        self.check_turn(ev.seat, self.turn)           # the bidder plays his card first
        if ev.answer == "accept":
            self.answerer = None
            return self.turn_judgments()
        if not self.may_refuse(ev.seat):
            raise NotAllowed(f"seat {ev.seat} is last to the trick and may not refuse (club option)")
        assert self.bid_team is not None and self.stake is not None
        return self._end_hand(self.bid_team, REFUSED_SCORES[self.stake], "refused")

    def on_decide(self, ev: Event) -> list[Judgment]:
        assert ev.seat is not None
        self.hand_begun = True              # a rejected decision is rolled back by the referee
        if self.phase == "decide20":
            if self.team(ev.seat) != self.at_twenty:
                raise NotAllowed(f"only team {self.at_twenty} (at 20) decides whether to play this hand")
            if ev.decision == "run":
                return self._end_hand(1 - self.team(ev.seat), 1, "ran")
            if ev.decision != "play":
                raise NotAllowed(f"decision must be 'play' or 'run', not {ev.decision!r}")
            self.phase, self.turn = "play", self.leader
            return self.turn_judgments()
        if self.phase == "pass20":
            self.check_turn(ev.seat, self.turn, "decide")
            if ev.decision == "pass":
                if ev.seat == self.dealer:   # all four passed: §7.2.5
                    return self._end_hand(None, 0, "decided")
                self.turn = self.next_seat(ev.seat)
                return self.turn_judgments()
            if ev.decision != "play":
                raise NotAllowed(f"decision must be 'play' or 'pass', not {ev.decision!r}")
            self.phase = "play"
            if self.options["twenty_twenty_leader"] == "player":
                self.leader = ev.seat
            self.turn = self.leader
            return self.turn_judgments()
        raise NotAllowed("no decision is due now")

    def on_card(self, ev: Event) -> list[Judgment]:
        assert ev.seat is not None
        if ev.face_down:
            raise NotAllowed("vitou has no face-down plays")
        assert ev.card is not None
        card = self.parse_card(ev.card)
        if self.phase != "play":
            raise OutOfTurn("the hand has not begun: a decision is due first")
        self.check_turn(ev.seat, self.turn)
        self.check_unplayed(card, self.played, "this hand")
        if self.answerer == ev.seat:
            self.answerer = None  # playing without answering accepts (CONTRACT §3.1)
        if self.bidder_must_play == ev.seat:
            self.bidder_must_play = None
        self.plays.append((ev.seat, card))
        self.played.add(card)
        self.hand_begun = True
        if len(self.plays) < self.players:
            self.turn = self.next_seat(ev.seat)
            return self.turn_judgments()
        return self._finish_trick()

    def _finish_trick(self) -> list[Judgment]:
        plays = [(s, strength(c)) for s, c in self.plays]
        winner, _ = resolve_trick_with_partner_ties(plays, self.players)
        if winner is not None and self.options["partners_tie"] == "tie" and len(top_plays(plays)) > 1:
            winner = None   # club option: partners' equal top cards make a tie too
        out = [judgment("trick", hand=self.hand, trick=self.trick,
                        cards=[{"seat": s, "card": c} for s, c in self.plays], winner=winner)]
        self.results.append(None if winner is None else self.team(winner))
        over, team = best_of_three(self.results)   # §4.5 table
        if over:
            if team is None:
                return out + self._end_hand(None, 0, "tied")
            return out + self._end_hand(team, self._hand_points(team), "tricks")
        # §4.5a: after a tie the player who led the tied trick leads again.
        self.leader = winner if winner is not None else self.leader
        self.turn = self.leader
        self.trick += 1
        self.plays = []
        return out + self.turn_judgments()

    def _hand_points(self, team: int) -> int:
        """What the hand is worth, by the kind it was dealt as (a penalty mid-hand changes
        the scores, not the hand: its bid or its 1 point stands, §7 applies from the next)."""
        target = self.options["points_to_win"]
        if self.kind == "twenty":                      # §7.1
            return 1 if team == self.at_twenty else 3
        if self.kind == "twenty20":                    # §7.2: winners take the game
            return max(1, target - self.totals[team])
        if self.stake is None:
            return 1
        if self.stake == BARRAC:                       # barrac stood: the game outright
            return max(1, target - self.totals[team])
        return int(self.stake)

    def _end_hand(self, team: int | None, points: int, reason: str) -> list[Judgment]:
        out = [judgment("hand", hand=self.hand, winner=team, points=points, reason=reason)]
        if team is not None:
            self.totals[team] += points
        out.append(self.score_judgment())
        out += self._after_score()
        return out

    def _after_score(self) -> list[Judgment]:
        """Game and match ends, then the next hand (the deal passes clockwise, §3.4)."""
        out, _ = self.close_game_if_won(self.totals, self.games, self.options["points_to_win"],
                                        self.options["games_to_win"])
        if self.finished:
            return out
        self.dealer = self.next_seat(self.dealer)
        self._new_hand()
        return out + self.turn_judgments()

    def on_redeal(self, ev: Event) -> list[Judgment]:
        """The deal is thrown in: same dealer, the hand does not count."""
        self.hand -= 1
        self._new_hand()
        return self.turn_judgments()

    def score_penalty(self, ev: Event) -> list[Judgment] | None:
        """The spec has no penalty scale; clubs set ``penalty_points`` for the opponents."""
        assert ev.team is not None
        opponents, points = 1 - ev.team, self.options["penalty_points"]
        self.totals[opponents] += points
        if self.totals[opponents] >= self.options["points_to_win"]:
            return [judgment("hand", hand=self.hand, winner=opponents, points=points, reason="penalty"),
                    self.score_judgment(), *self._after_score()]
        return None

    # ----- state --------------------------------------------------------------------
    def scores(self) -> list[int]:
        return self.totals

    def unplayed_cards(self) -> list[str]:
        return [c for c in self.deck.cards if c not in self.played]

    def detail(self) -> dict[str, Any]:
        return {
            "games": list(self.games),
            "hand": self.hand,
            "trick": self.trick,
            "kind": self.kind,
            "phase": self.phase,
            "leader": self.leader,
            "current_trick": [{"seat": s, "card": c} for s, c in self.plays],
            "tricks": list(self.results),
            "stake": self.stake,
            "bid_team": self.bid_team,
            "answerer": self.answerer,
            "team_at_20": self.at_twenty,
        }
