"""Truco Mineiro (Brazilian Truco with fixed manilhas), per ``shared/rules/truco.md``.

40 cards, 4 players in two teams, anticlockwise; seats are numbered in playing order, so
the next player is ``seat + 1`` and the dealer's next seat is *mão* (CONTRACT §2: team =
seat % 2; the spec's "team A" is mão's team). Three tricks a hand, any card may be played,
face-down cards (strength 0) in tricks 2 and 3; the truco ladder 1 → 3 → 6 → 9 → 12
(:meth:`Truco.may_call`, :meth:`Truco.may_raise`); the seed's rule that an accepted truco
makes the current trick decisive (§7.6–7.7, option ``truco_decides``); mão's deal options
(§4); the hand of eleven and the iron hand (§8); game to 12; a match of games; the penalty
scale (§10.5). The choices for the spec's open points are in ``docs/rules/truco.md``.
"""
from __future__ import annotations

from typing import Any

from controller.rules.engine import (Game, Judgment, Option, best_of_three, judgment,
                                     resolve_trick_with_partner_ties, top_plays)
from controller.rules.errors import BadEvent, DuplicateCard, NotAllowed, OutOfTurn
from controller.rules.events import Event

# §1.2: strength of a card (suit matters only for the four manilhas); face down = 0.
MANILHAS = {"clubs/4": 14, "hearts/7": 13, "spades/ace": 12, "diamonds/7": 11}
PLAIN = {"3": 10, "2": 9, "ace": 8, "king": 7, "jack": 6, "queen": 5, "7": 4, "6": 3, "5": 2, "4": 1}
FACE_DOWN = 0

GAME_POINTS = 12                       # §3.2 / §9.1: 12 or more wins the game
ELEVEN = GAME_POINTS - 1               # §8: the special hands
LADDER = (1, 3, 6, 9, 12)              # §7.1
ELEVEN_STAKE = 3                       # §8.2.2: a played hand of eleven is worth 3


def strength(card: str | None) -> int:
    """§1.2 strength number; ``None`` (a face-down card) is 0 and never wins."""
    if card is None:
        return FACE_DOWN
    if card in MANILHAS:
        return MANILHAS[card]
    return PLAIN[card.partition("/")[2]]


def next_rung(value: int) -> int:
    return LADDER[LADDER.index(value) + 1]


class Truco(Game):
    name = "truco"
    deck_id = "french-40"
    clockwise = False
    player_counts = (4,)
    OPTIONS = {
        "truco_decides": Option(
            "trick", "what an accepted truco bets on: 'trick' = the current trick decides the hand at "
            "the accepted value (seed §7.6-7.7, default); 'hand' = the whole hand is worth the value, "
            "still decided best of three, and the teams may raise in turn at their turn (§7.10)",
            ("trick", "hand")),
        "raise_in_extra_trick": Option(
            False, "§7.8: after a decisive trick tied with every top card played after the call, may "
            "the team that did not bet last raise in the extra decisive trick? (default: no)"),
        "games_to_win": Option(2, "games a team must win to take the match (spec silent; best of three)", low=1),
        "negative_scores": Option(False, "§10.6: may a penalty take a score below 0? (default: no)"),
        "surplus_award": Option(
            "stake", "§10.4: what the dealer's opponents score when a penalty 'surplus_card' is ruled: "
            "'stake' = the value in force (1, 3 in a hand of eleven, or the accepted truco) or 'one'",
            ("stake", "one")),
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
        self.mao = self.next_seat(self.dealer)
        self.leader = self.mao
        self.turn: int | None = self.mao
        self.plays: list[tuple[int, str | None]] = []   # current trick: (seat, card or None face down)
        self.results: list[int | None] = []              # winning team per trick, None = tied
        self.played: set[str] = set()
        self.burned: list[str] = []                      # §4.2: shown, out of play this deal
        self.passes = 0
        self.rejected = 0
        self.stake = 1                                   # the value in force
        self.bet_team: int | None = None                 # team that made the last accepted call/raise
        self.pending: dict[str, int] | None = None       # {seat, team, value, prev, pos}
        self.decisive: int | None = None                 # seed rule: the trick that decides the hand
        self.call_pos = 0                                # cards in the decisive trick before the call
        self.extra = False                               # decisive trick moved on by a tie (§7.7b)
        self.hand_begun = False                          # any deal option, decision, call or card yet
        self.decide_hand_kind()

    def decide_hand_kind(self) -> None:
        """§4 ordinary hand, §8.2 hand of eleven or §8.3 iron hand, from the scores now."""
        at11 = [t for t in (0, 1) if self.totals[t] == ELEVEN]
        self.at_eleven: int | None = at11[0] if len(at11) == 1 else None
        if len(at11) == 2:
            self.kind, self.phase, self.stake = "iron", "play", 1
        elif at11:
            self.kind, self.phase, self.stake = "eleven", "decide", ELEVEN_STAKE
        else:
            self.kind, self.phase, self.stake = "normal", "deal", 1

    # ----- named predicates -----------------------------------------------------------
    def may_call(self, seat: int) -> bool:
        """May ``seat`` call truco (or, where allowed, raise an accepted bet) now? (§7.2, §7.8, §7.10)"""
        return self._why_no_call(seat) is None

    def _why_no_call(self, seat: int) -> str | None:
        if self.kind != "normal":
            return f"no truco in {'a hand of eleven' if self.kind == 'eleven' else 'an iron hand'} (§8)"
        if self.pending is not None:
            return "a call is already waiting for an answer"
        if self.phase not in ("deal", "play") or self.turn is None:
            return "nobody may call now"
        if seat != self.turn:
            return f"seat {self.turn} is to play: only the player to play may call (§7.2)"
        if self.bet_team is None:
            return None
        if self.stake >= LADDER[-1]:
            return "12 is the top of the ladder"
        if self.team(seat) == self.bet_team:
            return f"team {self.bet_team} made the last bet; raises alternate between the teams"
        if self.options["truco_decides"] == "trick" and not (self.extra and self.options["raise_in_extra_trick"]):
            return "a truco was already accepted in this hand: no further betting (§7.6, §7.8)"
        if self.totals[self.team(seat)] + self.stake >= GAME_POINTS:
            return f"illegal raise: team {self.team(seat)} already wins the game at {self.stake} (§7.5)"
        return None

    def may_raise(self, seat: int) -> bool:
        """May ``seat`` answer the pending call with a raise? (§7.4, §7.5)"""
        return self._why_no_raise(seat) is None

    def _why_no_raise(self, seat: int) -> str | None:
        p = self.pending
        if p is None:
            return "there is no call to answer"
        if self.team(seat) == p["team"]:
            return f"team {p['team']} made the call; team {1 - p['team']} answers"
        if p["value"] >= LADDER[-1]:
            return "12 cannot be raised"
        s = self.totals[self.team(seat)]
        if s + p["value"] >= GAME_POINTS:
            return (f"illegal raise: team {self.team(seat)} has {s} and accepting {p['value']} already "
                    f"wins the game (§7.5)")
        return None

    def _decider(self) -> int:
        """The seat announced for the hand-of-eleven decision (either partner may send it)."""
        return self.mao if self.team(self.mao) == self.at_eleven else self.next_seat(self.mao)

    def to_act(self) -> tuple[int, list[str]] | None:
        if self.finished:
            return None
        if self.phase == "decide":
            return self._decider(), ["decide"]
        if self.pending is not None:
            return self.next_seat(self.pending["seat"]), ["answer"]
        if self.turn is None:
            return None
        expects = ["card"]
        if self.may_call(self.turn):
            expects.append("call")
        if self.phase == "deal":
            expects.append("deal_option")
        return self.turn, expects

    def others_to_act(self) -> list[tuple[int, list[str]]]:
        """The partner of the announced seat: either opponent answers a call (§7.3), either
        member of the team at 11 decides (§8.2.2)."""
        if self.finished:
            return []
        if self.phase == "decide":
            return [((self._decider() + 2) % self.players, ["decide"])]
        if self.pending is not None:
            return [((self.pending["seat"] + 3) % self.players, ["answer"])]
        return []

    # ----- events -------------------------------------------------------------------
    def on_deal_option(self, ev: Event) -> list[Judgment]:
        """§4.2-4.3: mão keeps, passes (once) or burns (at most three rejected sets)."""
        assert ev.seat is not None
        if ev.option not in ("keep", "pass", "burn"):
            raise NotAllowed(f"deal option must be keep, pass or burn, not {ev.option!r}")
        if self.kind != "normal":
            raise NotAllowed("nobody may keep, pass or burn cards in a hand of eleven or an iron hand (§8.1)")
        if self.phase != "deal":
            raise NotAllowed("mão has already kept a set: the hand is under way")
        if ev.seat != self.mao:
            raise OutOfTurn(f"seat {self.mao} (mão) chooses the dealt set, not seat {ev.seat}")
        if ev.cards is not None and ev.option != "burn":
            raise NotAllowed("only a burned set is shown: cards are given with burn only")
        if ev.option == "keep":
            self.phase = "play"
        else:
            if self.rejected >= 3:
                raise NotAllowed("three sets were already rejected: mão must keep this one (§4.3)")
            if ev.option == "pass" and self.passes >= 1:
                raise NotAllowed("a set was already passed in this deal: only keep or burn (§4.3)")
            if ev.option == "burn" and ev.cards is not None:
                self.burned += self._burned_cards(ev.cards)
            self.passes += ev.option == "pass"
            self.rejected += 1
        self.hand_begun = True
        return self.turn_judgments()

    def _burned_cards(self, given: tuple[str, ...]) -> list[str]:
        if len(given) != 3:
            raise BadEvent(f"a burned set is three cards, not {len(given)}")
        cards = [self.parse_card(c) for c in given]
        seen = set(self.burned)
        for c in cards:
            if c in seen:
                raise DuplicateCard(f"{c} was already burned in this deal")
            seen.add(c)
        return cards

    def on_decide(self, ev: Event) -> list[Judgment]:
        """§8.2.2: the team at 11 plays (worth 3, no truco) or runs (the others score 1)."""
        assert ev.seat is not None
        if self.phase != "decide":
            raise NotAllowed("no decision is due now")
        assert self.at_eleven is not None
        if self.team(ev.seat) != self.at_eleven:
            raise NotAllowed(f"only team {self.at_eleven} (at 11) decides whether to play this hand")
        if ev.decision == "run":
            return self._end_hand(1 - self.at_eleven, 1, "ran")
        if ev.decision != "play":
            raise NotAllowed(f"decision must be 'play' or 'run', not {ev.decision!r}")
        self.phase, self.hand_begun = "play", True
        return self.turn_judgments()

    def on_call(self, ev: Event) -> list[Judgment]:
        """§7.2: truco, at one's turn before playing; it waits for the other team's answer."""
        assert ev.seat is not None
        if ev.call != "truco":
            raise NotAllowed(f"unknown call {ev.call!r} in truco (the only call is 'truco')")
        if self.kind == "normal" and self.pending is None:
            self.check_turn(ev.seat, self.turn, "play")
        why = self._why_no_call(ev.seat)
        if why is not None:
            raise NotAllowed(why)
        value = next_rung(self.stake)
        self.pending = {"seat": ev.seat, "team": self.team(ev.seat), "value": value, "prev": self.stake,
                        "pos": len(self.plays)}
        if self.phase == "deal":
            self.phase = "play"          # calling before a card: the set was kept
        self.hand_begun = True
        return [judgment("call", seat=ev.seat, call="truco", stake=value), *self.turn_judgments()]

    def on_answer(self, ev: Event) -> list[Judgment]:
        """§7.3-7.4: accept, refuse (run) or raise; the first answer by either opponent binds."""
        assert ev.seat is not None
        if ev.answer not in ("accept", "refuse", "raise"):
            raise NotAllowed(f"unknown answer {ev.answer!r} (accept, refuse or raise)")
        p = self.pending
        if p is None:
            raise NotAllowed("there is no call to answer")
        if self.team(ev.seat) == p["team"]:
            raise NotAllowed(f"team {p['team']} made the call; team {1 - p['team']} answers")
        if ev.answer == "refuse":
            return self._end_hand(p["team"], p["prev"], "refused")
        if ev.answer == "raise":
            why = self._why_no_raise(ev.seat)
            if why is not None:
                raise NotAllowed(why)
            value = next_rung(p["value"])
            self.pending = {"seat": ev.seat, "team": self.team(ev.seat), "value": value,
                            "prev": p["value"], "pos": p["pos"]}
            return [judgment("call", seat=ev.seat, call="truco", stake=value), *self.turn_judgments()]
        self.stake, self.bet_team, self.pending = p["value"], p["team"], None
        if self.options["truco_decides"] == "trick":
            self.decisive, self.call_pos = self.trick, p["pos"]   # §7.6: this trick decides
        return self.turn_judgments()

    def on_card(self, ev: Event) -> list[Judgment]:
        assert ev.seat is not None
        card = None if ev.face_down else self.parse_card(ev.card or "")
        if self.pending is not None:
            raise OutOfTurn(f"the call of {self.pending['value']} must be answered first")
        if self.phase == "decide":
            raise OutOfTurn(f"the hand has not begun: team {self.at_eleven} decides first whether to play")
        self.check_turn(ev.seat, self.turn)
        if card is None:
            if self.trick == 1:
                raise NotAllowed("no face-down card in the first trick (§6.4)")
            if self.kind == "iron":
                raise NotAllowed("in an iron hand every card is turned over and played face up (§8.3)")
        else:
            if card in self.burned:
                raise DuplicateCard(f"{card} was burned in this deal and is out of play")
            self.check_unplayed(card, self.played)
            self.played.add(card)
        if self.phase == "deal":
            self.phase = "play"              # a first card without a deal option: the set was kept
        self.hand_begun = True
        self.plays.append((ev.seat, card))
        if len(self.plays) < self.players:
            self.turn = self.next_seat(ev.seat)
            return self.turn_judgments()
        return self._finish_trick()

    def _finish_trick(self) -> list[Judgment]:
        plays = [(s, strength(c)) for s, c in self.plays]
        winner, first_top = resolve_trick_with_partner_ties(plays, self.players)
        out = [judgment("trick", hand=self.hand, trick=self.trick,
                        cards=[{"seat": s, "card": c} for s, c in self.plays], winner=winner)]
        self.results.append(None if winner is None else self.team(winner))
        if self.decisive == self.trick:
            assert self.bet_team is not None
            if winner is not None:                                # §7.6
                return out + self._end_hand(self.team(winner), self.stake, "tricks")
            tops = top_plays(plays)
            if any(i < self.call_pos for i, (s, _) in enumerate(self.plays) if s in tops):
                return out + self._end_hand(1 - self.bet_team, self.stake, "tricks")   # §7.7a
            if self.trick == 3:
                return out + self._end_hand(None, 0, "tied")      # §7.7c
            self.decisive, self.call_pos, self.extra = self.trick + 1, 0, True   # §7.7b
        else:
            over, team = best_of_three(self.results)
            if over:
                if team is None:
                    return out + self._end_hand(None, 0, "tied")
                return out + self._end_hand(team, self.stake, "tricks")
        # §6.3, §6.5-6.7: the winner leads; after a tie, the first of the tied top cards.
        self.leader = winner if winner is not None else first_top
        self.turn = self.leader
        self.trick += 1
        self.plays = []
        return out + self.turn_judgments()

    def _end_hand(self, team: int | None, points: int, reason: str) -> list[Judgment]:
        out = [judgment("hand", hand=self.hand, winner=team, points=points, reason=reason)]
        if team is not None:
            self.totals[team] += points
        out.append(self.score_judgment())
        return out + self._after_score()

    def _after_score(self) -> list[Judgment]:
        """Game and match ends (§9), then the next hand: the old mão deals (§2.5)."""
        out, _ = self.close_game_if_won(self.totals, self.games, GAME_POINTS, self.options["games_to_win"])
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
        """§10.5 scale: opponents +1 when both teams are below 11, else the offenders −1.

        ``offence: "surplus_card"`` (§10.4, a misdeal by the dealer's team) instead ends the
        hand: the dealer's opponents score ``surplus_award``.
        """
        assert ev.team is not None
        if ev.offence == "surplus_card":
            if ev.team != self.team(self.dealer):
                raise NotAllowed("a surplus card is the dealer's team's offence (§10.4)")
            points = self.stake if self.options["surplus_award"] == "stake" else 1
            return self._end_hand(1 - ev.team, points, "penalty")
        if max(self.totals) >= ELEVEN:
            low = -(10 ** 9) if self.options["negative_scores"] else 0
            self.totals[ev.team] = max(low, self.totals[ev.team] - 1)
        else:
            self.totals[1 - ev.team] += 1
        return None

    # ----- state --------------------------------------------------------------------
    def scores(self) -> list[int]:
        return self.totals

    def unplayed_cards(self) -> list[str]:
        return [c for c in self.deck.cards if c not in self.played and c not in self.burned]

    def detail(self) -> dict[str, Any]:
        return {
            "games": list(self.games),
            "hand": self.hand,
            "kind": self.kind,
            "phase": self.phase,
            "mao": self.mao,
            "trick": self.trick,
            "leader": self.leader,
            "current_trick": [{"seat": s, "card": c} for s, c in self.plays],
            "tricks": list(self.results),
            "stake": self.stake,
            "bet_team": self.bet_team,
            "pending": None if self.pending is None else dict(self.pending),
            "decisive_trick": self.decisive,
            "burned": list(self.burned),
            "passes": self.passes,
            "rejected": self.rejected,
            "team_at_11": self.at_eleven,
        }
