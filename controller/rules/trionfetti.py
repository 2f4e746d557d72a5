"""Trionfetti (Veneto), per ``shared/rules/trionfetti.md``: 52 cards, 4 players, anticlockwise.

Seats are numbered in the order of play (CONTRACT §2), so the spec's "right-hand
neighbour" (the next player anticlockwise) is ``seat + 1``:

* dealer ``d``; **eldest** (dealer's right) ``d + 1`` leads every hand;
* dealer's partner ``d + 2``;
* **cutter** (dealer's left) ``d + 3 = d - 1``: declares the comanda; partner of the eldest;
* the deal passes to the dealer's right, ``d + 1``; the old dealer becomes the cutter.

A *smazzata* starts with the cutter's ``comanda`` (judged by :mod:`controller.rules.comanda`
and answered with a ``ranking`` judgment), then up to four hands of at most three tricks,
no duty to follow, highest card under the comanda wins, ties to the first played (§6.7).
*Vagaresto* (:meth:`Trionfetti.may_call`) raises the hand to ``20 − max(totals)``; a
refusal gives the callers 1; an accepted vaga ends the smazzata (§8). Game to 20, match to
three games.
"""
from __future__ import annotations

from typing import Any

from controller.rules import comanda as _comanda
from controller.rules.engine import Game, Judgment, Option, judgment
from controller.rules.errors import BadComanda, BadEvent, NotAllowed, OutOfTurn
from controller.rules.events import Event

HANDS_PER_SMAZZATA = 4
VAGA_CALLS = ("vagaresto", "vaga")


class Trionfetti(Game):
    name = "trionfetti"
    deck_id = "trevigiane-52"
    clockwise = False
    player_counts = (4,)
    OPTIONS = {
        "points_to_win": Option(20, "a game is won at this total (§3, §7.2)", low=2),
        "games_to_win": Option(3, "games a team must win to take the match (§7.5)", low=1),
        "bare_piu": Option("ponto", "a bare 'più' first in a longer comanda: 'ponto' = numerals "
                           "only, pictures lowest (§10.2.7, the Più e Napoli example) or 'all'",
                           ("ponto", "all")),
        "meno_al": Option("manco", "comanda 'meno al X' (§10.3 leaves the direction open): 'manco' = "
                          "the king lowest up to X highest (R C F 10 9 8 for meno all'otto, the "
                          "table's order) or 'king_top' = X lowest up to the king", ("manco", "king_top")),
        "a_asso": Option("body", "comanda #20 '… figure de coppe a asso': 'body' = cups' pictures "
                         "on top (§10.6) or 'top' = ace of cups above them", ("body", "top")),
        "vaga_first_trick": Option(True, "vagaresto may be called in the first trick of a hand (§8.10)"),
        "comanda_file": Option("", "club vocabulary file (nicknames, named rankings); "
                               "'' = config/comanda.toml"),
        "penalty_points": Option(1, "points the opponents of an offending team score for a "
                                 "penalty event (the spec has no penalty scale)"),
    }

    def __init__(self, players: int, dealer: int, options: dict[str, Any]) -> None:
        super().__init__(players, dealer, options)
        try:
            self.vocab = _comanda.load_vocabulary(self.options["comanda_file"] or None)
        except BadComanda as exc:      # a broken club file stops the start, not the table
            raise BadEvent(exc.message) from None
        self.totals = [0, 0]
        self.games = [0, 0]
        self.smazzata = 0
        self._new_smazzata()

    # The vocabulary is configuration, not state: checkpoints (pickles) leave it out and
    # take it back from the loader's cache, which keeps undo and restores cheap.
    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        del state["vocab"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self.vocab = _comanda.load_vocabulary(self.options["comanda_file"] or None)

    # ----- roles ----------------------------------------------------------------------
    @property
    def cutter(self) -> int:
        """The dealer's left-hand neighbour: the seat before the dealer in play order."""
        return (self.dealer - 1) % self.players

    @property
    def eldest(self) -> int:
        """The dealer's right-hand neighbour: next after the dealer; leads every hand."""
        return self.next_seat(self.dealer)

    # ----- set-up -------------------------------------------------------------------
    def _new_smazzata(self) -> None:
        self.smazzata += 1
        self.phase = "comanda"            # comanda | play | answer
        self.comanda: _comanda.Comanda | None = None
        self.level: dict[str, int] = {}
        self.played: set[str] = set()     # every card played in this smazzata (§6.2)
        self.hand = 0
        self._new_hand()

    def _new_hand(self) -> None:
        self.hand += 1
        self.trick = 1
        self.plays: list[tuple[int, str]] = []
        self.hand_played: list[str] = []
        self.results: list[int] = []      # winning seat of each trick
        self.leader = self.eldest
        self.turn: int | None = self.eldest if self.phase != "comanda" else None
        self.vaga_caller: int | None = None
        self.vaga_stake: int | None = None
        self.vaga_accepted = False
        self.stock_exposed = False        # §6.3: the four undealt cards of hand 4

    # ----- who may do what ------------------------------------------------------------
    def may_call(self, seat: int) -> bool:
        """§8.1, §8.9, §8.10: at one's turn, before playing, once per hand."""
        if self.phase != "play" or seat != self.turn or self.vaga_caller is not None:
            return False
        return self.trick > 1 or self.options["vaga_first_trick"]

    def answerers(self) -> tuple[int, int] | None:
        """§8.2: either opponent of the caller answers for the team."""
        if self.phase != "answer" or self.vaga_caller is None:
            return None
        c = self.vaga_caller
        return self.next_seat(c), (c + 3) % self.players

    def to_act(self) -> tuple[int, list[str]] | None:
        if self.phase == "comanda":
            return self.cutter, ["comanda"]
        if self.phase == "answer":
            ans = self.answerers()
            assert ans is not None
            return ans[0], ["answer"]
        if self.turn is None:
            return None
        return self.turn, ["card", "call"] if self.may_call(self.turn) else ["card"]

    def others_to_act(self) -> list[tuple[int, list[str]]]:
        """§8.2: the caller's second opponent may answer the vagaresto too."""
        ans = self.answerers()
        return [] if ans is None else [(ans[1], ["answer"])]

    def stake_now(self) -> int:
        """§8.5: the points the leading team still needs."""
        return self.options["points_to_win"] - max(self.totals)

    # ----- events -------------------------------------------------------------------
    def on_comanda(self, ev: Event) -> list[Judgment]:
        assert ev.seat is not None and ev.text is not None
        if self.phase != "comanda":
            raise NotAllowed(f"the comanda of this smazzata is already declared ({self.comanda.text!r}); "
                             "it stays in force until the deal passes" if self.comanda else
                             "no comanda is due now")
        if ev.seat != self.cutter:
            raise OutOfTurn(f"seat {self.cutter} (the cutter) declares the comanda, not seat {ev.seat}")
        opts = {k: self.options[k] for k in _comanda.OPTION_CHOICES}
        self.comanda = _comanda.parse(ev.text, opts, self.vocab)
        self.level = self.comanda.level
        self.phase, self.turn = "play", self.eldest
        ranking = judgment("ranking", order=self.comanda.to_json())
        if self.comanda.readings:                 # the open points of §10.2.7 / §10.3, as read
            ranking["reading"] = list(self.comanda.readings)
        return [ranking, *self.turn_judgments()]

    def on_call(self, ev: Event) -> list[Judgment]:
        assert ev.seat is not None and ev.call is not None
        if _comanda.normalise(ev.call) not in VAGA_CALLS:
            raise NotAllowed(f"unknown call {ev.call!r} in trionfetti (the only call is 'vagaresto')")
        if self.phase == "comanda":
            raise OutOfTurn(f"no call before the comanda: seat {self.cutter} (the cutter) declares it first")
        if self.vaga_caller is not None:
            raise NotAllowed(f"vagaresto was already called in this hand (by seat {self.vaga_caller}); "
                             "one call per hand")
        if self.phase != "play":
            raise NotAllowed("no call now")
        self.check_turn(ev.seat, self.turn, "play or call")
        if not self.may_call(ev.seat):
            raise NotAllowed("vagaresto may not be called in the first trick (club option vaga_first_trick)")
        self.vaga_caller = ev.seat
        self.vaga_stake = self.stake_now()
        self.phase = "answer"
        if self.hand == HANDS_PER_SMAZZATA:
            self.stock_exposed = True     # §6.3, §8.8: a call in hand 4 exposes them at once
        return [judgment("call", seat=ev.seat, call="vagaresto", stake=self.vaga_stake), *self.turn_judgments()]

    def on_answer(self, ev: Event) -> list[Judgment]:
        assert ev.seat is not None and ev.answer is not None
        if ev.answer not in ("accept", "refuse"):
            raise NotAllowed(f"unknown answer {ev.answer!r} (accept or refuse)")
        ans = self.answerers()
        if ans is None:
            raise NotAllowed("there is no vagaresto to answer")
        if ev.seat not in ans:
            raise OutOfTurn(f"seat {ans[0]} or seat {ans[1]} (the caller's opponents) answers the vagaresto, "
                            f"not seat {ev.seat}")
        assert self.vaga_caller is not None
        if ev.answer == "refuse":         # §8.4: callers score 1; the hand ends unplayed
            return self._end_hand(self.team(self.vaga_caller), 1, "refused")
        self.vaga_accepted = True         # §8.5: the caller now plays his card
        self.phase = "play"
        return self.turn_judgments()

    def on_card(self, ev: Event) -> list[Judgment]:
        assert ev.seat is not None
        if ev.face_down:
            raise NotAllowed("trionfetti has no face-down plays")
        assert ev.card is not None
        card = self.parse_card(ev.card)
        if self.phase == "comanda":
            raise OutOfTurn(f"no card before the comanda: seat {self.cutter} (the cutter) declares it first")
        if self.phase == "answer":
            a, b = self.answerers() or (None, None)
            raise OutOfTurn(f"the vagaresto awaits an answer from seat {a} or seat {b}")
        self.check_turn(ev.seat, self.turn)
        self.check_unplayed(card, self.played, "this smazzata")
        self.plays.append((ev.seat, card))
        self.played.add(card)
        self.hand_played.append(card)
        if self.hand == HANDS_PER_SMAZZATA and self.trick == 1 and len(self.plays) == 2:
            self.stock_exposed = True     # §6.3: after eldest and the dealer's partner
        if len(self.plays) < self.players:
            self.turn = self.next_seat(ev.seat)
            return self.turn_judgments()
        return self._finish_trick()

    def trick_winner(self, plays: list[tuple[int, str]]) -> int:
        """§6.7: the highest card under the comanda; among equals, the first played."""
        best = max(self.level[c] for _, c in plays)
        return next(s for s, c in plays if self.level[c] == best)

    def _finish_trick(self) -> list[Judgment]:
        winner = self.trick_winner(self.plays)
        out = [judgment("trick", hand=self.hand, trick=self.trick,
                        cards=[{"seat": s, "card": c} for s, c in self.plays], winner=winner)]
        self.results.append(winner)
        teams = [self.team(s) for s in self.results]
        for t in (0, 1):
            if teams.count(t) >= 2:       # §6.9: two tricks take the hand
                points = self.vaga_stake if self.vaga_accepted else 1
                assert points is not None
                return out + self._end_hand(t, points, "tricks")
        self.trick += 1
        self.plays = []
        self.leader = self.turn = winner
        return out + self.turn_judgments()

    def _end_hand(self, team: int, points: int, reason: str) -> list[Judgment]:
        out = [judgment("hand", hand=self.hand, winner=team, points=points, reason=reason)]
        self.totals[team] += points
        out.append(self.score_judgment())
        return out + self._after_hand(smazzata_over=self.vaga_accepted)

    def _after_hand(self, smazzata_over: bool) -> list[Judgment]:
        """§6.11, §7: game and match ends, else the next hand or the next smazzata."""
        out, game_won = self.close_game_if_won(self.totals, self.games, self.options["points_to_win"],
                                               self.options["games_to_win"])
        if self.finished:
            return out
        smazzata_over = smazzata_over or game_won          # §4.3: a game ends the smazzata
        if smazzata_over or self.hand >= HANDS_PER_SMAZZATA:
            self.dealer = self.next_seat(self.dealer)   # §4.2: the deal passes to the right
            self._new_smazzata()
        else:
            self.phase = "play"
            self._new_hand()
        return out + self.turn_judgments()

    def on_redeal(self, ev: Event) -> list[Judgment]:
        """§11.5 [OPEN]: a misdealt hand is dealt again by the same dealer, same comanda, no score."""
        if self.phase == "comanda":
            raise NotAllowed("nothing has been dealt under a comanda yet")
        self.played -= set(self.hand_played)
        self.hand -= 1
        self.phase = "play"
        self._new_hand()
        return self.turn_judgments()

    def score_penalty(self, ev: Event) -> list[Judgment] | None:
        """The spec has no penalty scale; clubs set ``penalty_points`` for the opponents."""
        assert ev.team is not None
        opponents, points = 1 - ev.team, self.options["penalty_points"]
        self.totals[opponents] += points
        if self.totals[opponents] >= self.options["points_to_win"]:
            return [judgment("hand", hand=self.hand, winner=opponents, points=points, reason="penalty"),
                    self.score_judgment(), *self._after_hand(smazzata_over=True)]
        return None

    # ----- state --------------------------------------------------------------------
    def scores(self) -> list[int]:
        return self.totals

    def unplayed_cards(self) -> list[str]:
        return [c for c in self.deck.cards if c not in self.played]

    def detail(self) -> dict[str, Any]:
        ans = self.answerers()
        return {
            "games": list(self.games),
            "smazzata": self.smazzata,
            "cutter": self.cutter,
            "eldest": self.eldest,
            "phase": self.phase,
            "comanda": None if self.comanda is None else {"text": self.comanda.text,
                                                          "order": self.comanda.to_json()},
            "hand": self.hand,
            "trick": self.trick,
            "leader": self.leader,
            "current_trick": [{"seat": s, "card": c} for s, c in self.plays],
            "trick_winners": list(self.results),
            "vagaresto": None if self.vaga_caller is None else {
                "caller": self.vaga_caller, "stake": self.vaga_stake, "accepted": self.vaga_accepted,
                "answerers": None if ans is None else list(ans)},
            "stock_exposed": self.stock_exposed,
            "played_this_smazzata": len(self.played),
        }
