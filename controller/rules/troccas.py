"""Troccas (Surselva), per ``shared/rules/troccas.md``: the Swiss 1JJ tarot, 3 to 6 players.

Four players play in two fixed teams (seats 0+2 against 1+3), six in two teams of three
(even against odd seats); three and five play alone and score per seat (CONTRACT §2).
Play is anticlockwise; seats are numbered in playing order, so the next player is
``seat + 1`` and the player after the dealer leads.

What the camera cannot see is a player's hand, so the obligations of §5.2 (follow suit,
else trump) are checked *after the fact*: every card a seat plays off the led suit marks
it void in that suit (and, for a plain card, void in trumps); when the same seat later
plays or hands over a card of a suit it showed void in, the engine raises a ``revoke``
alert (:meth:`Troccas._check_revoke`). The card is accepted; the human referee decides.

Deal and counting (§4, §7, §9):

======== ======== ========== ======== ===================================================
players  tricks   dealer has scart    counting
======== ======== ========== ======== ===================================================
3        25       28         3        option ``three_player_count``: ``threes`` (groups of
                                      3 minus 2, total 78, ±(points − 26)) or ``singly``
                                      (total 127, dealer ±(points − 43), others −42)
4        19       21         2        groups of 4 minus 3, scart minus 1; ±(points − 36)
5        15       18         3        singly (total 127): dealer −27, others −25
6        13       13         none     groups of 4 minus 3, two left-over cards minus 1
======== ======== ========== ======== ===================================================

The scart is inferred when the last trick is complete as the cards never played (an
explicit ``discard`` event from the dealer is accepted too and validated at once).

Special cards and calls: the Fool (§6.1, :func:`settle_piles`), *boub* (§6.2,
:meth:`Troccas.boub_trigger`, :meth:`Troccas.boub_exception` — the hook for the two
exceptions the source omits) and king + jack (§6.3, :meth:`Troccas._is_king_jack`).

A game is ``hands_per_game`` scored hands (default: one per player, so each deals once);
a match is ``games_per_match`` games (default 1). Thrown-in deals (``redeal``) do not count.
"""
from __future__ import annotations

from typing import Any, Sequence

from controller.rules import cards as _cards
from controller.rules.engine import Game, Judgment, Option, judgment, teams_for
from controller.rules.errors import BadEvent, DuplicateCard, IllegalDiscard, NotAllowed
from controller.rules.events import Event

FOOL = "fool"
TRUMP = "trump"
ROUND_SUITS = ("cups", "coins")
LONG_SUITS = ("swords", "batons")
# §1.3, lowest first.
ROUND_ORDER = ("10", "9", "8", "7", "6", "5", "4", "3", "2", "ace", "jack", "knight", "queen", "king")
LONG_ORDER = ("ace", "2", "3", "4", "5", "6", "7", "8", "9", "10", "jack", "knight", "queen", "king")
_RANK_POS = {s: {r: i for i, r in enumerate(ROUND_ORDER if s in ROUND_SUITS else LONG_ORDER)}
             for s in ROUND_SUITS + LONG_SUITS}

# §1.6 card values.
COURT_VALUES = {"king": 5, "queen": 4, "knight": 3, "jack": 2}
HONOUR_TRUMPS = ("trump/1", "trump/21")

# §4.3, §9: tricks per hand (= cards each seat holds after the scart), scart size.
TRICKS = {3: 25, 4: 19, 5: 15, 6: 13}
SCART = {3: 3, 4: 2, 5: 3, 6: 0}

SUIT_NAMES = {"cups": "cups", "coins": "coins", "swords": "swords", "batons": "batons", TRUMP: "trumps"}


# ----- card facts ------------------------------------------------------------------------
def _suit(card: str) -> str | None:
    s, sep, _ = card.partition("/")
    return s if sep else None


_SUITS: dict[str, str | None] = {c: _suit(c) for c in _cards.deck("tarot-1jj").cards}  # a constant


def suit(card: str) -> str | None:
    """``cups`` … ``batons``, ``trump``, or None for the Fool."""
    s = _SUITS.get(card, "")
    return _suit(card) if s == "" else s


def rank(card: str) -> str | None:
    _, sep, r = card.partition("/")
    return r if sep else None


def value(card: str) -> int:
    """Face value (§1.6): kings, XXI, I and the Fool 5; queen 4; cavalier 3; jack 2; else 1."""
    if card == FOOL or card in HONOUR_TRUMPS:
        return 5
    return COURT_VALUES.get(card.partition("/")[2], 1) if suit(card) != TRUMP else 1


def is_honour(card: str) -> bool:
    """Kings, trump XXI, trump I and the Fool: never in the scart (§4.7)."""
    return card == FOOL or card in HONOUR_TRUMPS or (suit(card) != TRUMP and rank(card) == "king")


def led_suit(cards: Sequence[str]) -> str | None:
    """The suit a trick follows: the first card's, or the second's after a Fool lead (§6.1.5)."""
    for c in cards:
        if c != FOOL:
            return suit(c)
    return None


def strength(card: str, led: str | None) -> int:
    """Trick strength: trumps above everything, then the led suit in its own order (§1.3, §5.3)."""
    s = suit(card)
    if s is None:
        return -1                       # the Fool never wins (§6.1.2)
    if s == TRUMP:
        return 100 + int(rank(card) or 0)
    if s == led:
        return 1 + _RANK_POS[s][rank(card) or ""]
    return 0


def trick_winner(plays: Sequence[tuple[int, str]]) -> int:
    """Seat that wins a trick of (seat, card) plays; every card is unique, so no ties."""
    led = led_suit([c for _, c in plays])
    return max(plays, key=lambda p: strength(p[1], led))[0]


def count_points(pile: Sequence[str], scart: Sequence[str] = (), group: int = 4) -> int:
    """Card points of a pile of won cards (plus the scart if this side holds it), §7.2.

    Cards count in groups of ``group``, each scoring its face values minus ``group − 1``;
    a left-over group of r cards scores face values minus ``r − 1`` (§9.1.4); the scart
    counts as one group (minus its size − 1). With ``group=1`` (the solo "singly" count)
    trick cards score full value and every scart card one less (§9.2.3).
    """
    n = len(pile)
    points = sum(value(c) for c in pile) + sum(value(c) for c in scart)
    if group > 1:
        points -= (group - 1) * (n // group) + max(0, n % group - 1)
        points -= max(0, len(scart) - 1)
    else:
        points -= len(scart)
    return points


def settle_piles(tricks: Sequence[tuple[Sequence[tuple[int, str]], int]], side_of: Any,
                 sides: int) -> tuple[list[list[str]], tuple[int, int] | None]:
    """Each side's won cards after the Fool's exchange (§6.1), from (plays, winner) tricks.

    The Fool goes to its player's side; if another side won that trick, the Fool's side owes
    it a 1-point card, paid as soon as the Fool's side has one in its won cards (never from
    the scart). Returns the piles and the debt still unpaid (debtor, creditor) if any;
    :func:`settle_debt_at_end` applies the [OPEN] §6.1.7 default to it.
    """
    piles: list[list[str]] = [[] for _ in range(sides)]
    debt: tuple[int, int] | None = None
    for plays, winner in tricks:
        w = side_of(winner)
        for seat, card in plays:
            if card == FOOL:
                owner = side_of(seat)
                piles[owner].append(FOOL)
                if owner != w:
                    debt = (owner, w)
            else:
                piles[w].append(card)
        if debt is not None:
            low = next((c for c in piles[debt[0]] if c != FOOL and value(c) == 1), None)
            if low is not None:
                piles[debt[0]].remove(low)
                piles[debt[1]].append(low)
                debt = None
    return piles, debt


def settle_debt_at_end(piles: list[list[str]], debt: tuple[int, int] | None) -> None:
    """[OPEN] §6.1.7: an unpaid Fool debt is paid with the debtor's lowest-valued card; a side
    that won nothing gives up the Fool itself (§6.1.6: whoever wins every trick takes it)."""
    if debt is None:
        return
    debtor, creditor = debt
    others = [c for c in piles[debtor] if c != FOOL]
    card = min(others, key=value) if others else FOOL
    piles[debtor].remove(card)
    piles[creditor].append(card)


def partner_card(card: str) -> str | None:
    """The jack for a king, the king for a jack (§6.3); None otherwise."""
    s, r = suit(card), rank(card)
    if s in (None, TRUMP):
        return None
    return {"king": f"{s}/jack", "jack": f"{s}/king"}.get(r or "")


def king_jack_takeable(plays: Sequence[tuple[int, str]], holder: int, players: int) -> tuple[list[str], str]:
    """§6.3.2: the cards the king + jack holder may take back from the trick, and what they are.

    Four or six players: a card of the trick's suit played by another player; three or five:
    "a low card" (1-point). Never the Fool, nor the card winning the trick. If there is no
    such card, any other player's card but the winning one; failing that, any other card.
    """
    x = led_suit([c for _, c in plays])
    others = [c for s, c in plays if s != holder and c != FOOL]
    win_card = max((c for _, c in plays), key=lambda c: strength(c, x))
    if players in (4, 6):
        eligible, what = [c for c in others if suit(c) == x and c != win_card], f"a {x} card"
    else:
        eligible, what = [c for c in others if value(c) == 1 and c != win_card], "a low (1-point) card"
    if not eligible:
        eligible = [c for c in others if c != win_card]
        what = "a card another player put in the trick (not the winning one)"
    if not eligible:
        eligible, what = others, "a card another player put in the trick"
    return eligible, what


BOUB_EXCEPTION_NAMES = ("partner", "king")


class Troccas(Game):
    name = "troccas"
    deck_id = "tarot-1jj"
    clockwise = False
    player_counts = (3, 4, 5, 6)
    default_players = 4
    OPTIONS = {
        "hands_per_game": Option(0, "scored hands in a game; 0: one per player, so each deals once "
                                 "(4: §3.1, 6: §9.1.5; 3 and 5: [OPEN] §9.2.4)"),
        "games_per_match": Option(1, "games in a match; the side that won most games wins it "
                                  "(the spec has no match)", low=1),
        "three_player_count": Option("threes", "three-player counting custom (§9.2.3): 'threes' "
                                     "(groups of three, total 78) or 'singly' (total 127)",
                                     ("threes", "singly")),
        "two_round_deficit": Option(9, "a team whose total is this far below 0 may ask for the "
                                    "two-round deal (§4.4; four players)", low=1),
        "one_round_deficit": Option(18, "... for the one-round deal (§4.4 '18 or more'; the "
                                    "Tujetsch sheet's 'more than 18' is 19)", low=1),
        "boub": Option(True, "the boub call (§6.2); never with 3 or 5 players (§9.2.2)"),
        "boub_trigger": Option("first_lead", "[OPEN] §6.2.6: 'first_lead' (only the first trick "
                               "in which the suit is led) or 'king_trick' (the trick of that suit "
                               "in which the king appears)", ("first_lead", "king_trick")),
        "boub_exceptions": Option("", "HOOK for the two boub exceptions the source omits "
                                  "(§6.2.5): comma-separated names of cases the referee cannot "
                                  "decide ('partner': the jack holder is the caller's partner; "
                                  "'king': the holder played the king); a swap in such a case "
                                  "is accepted with a boub_disputed alert"),
        "penalty_points": Option(0, "points a penalty event moves from the offending side to "
                                 "the others; 0: the spec has no penalty scale, penalty refused"),
    }

    def __init__(self, players: int, dealer: int, options: dict[str, Any]) -> None:
        super().__init__(players, dealer, options)
        names = [n.strip() for n in self.options["boub_exceptions"].split(",") if n.strip()]
        bad = [n for n in names if n not in BOUB_EXCEPTION_NAMES]
        if bad:
            raise BadEvent(f"unknown boub_exceptions {bad}; known: {', '.join(BOUB_EXCEPTION_NAMES)}")
        self.boub_exception_names = tuple(names)
        self.sides = teams_for(players)
        self.totals = [0] * self.sides
        self.games = [0] * self.sides
        self.game_no = 1
        self.hand = 0                 # scored hands so far in the match, +1 for the one in play
        self.hand_in_game = 0
        hpg = self.options["hands_per_game"]
        self.hands_per_game = hpg if hpg > 0 else players
        if self.options["games_per_match"] < 1:
            raise BadEvent("option 'games_per_match' must be at least 1")
        self._new_hand()

    # ----- table facts ------------------------------------------------------------------
    @property
    def tricks_per_hand(self) -> int:
        return TRICKS[self.players]

    @property
    def scart_size(self) -> int:
        return SCART[self.players]

    def dealt(self) -> list[int]:
        """Cards dealt to each seat (§4.3, §9): the dealer's extra cards are his scart."""
        return [TRICKS[self.players] + (SCART[self.players] if s == self.dealer else 0)
                for s in range(self.players)]

    def group(self) -> int:
        """Counting group size (§7.2, §9)."""
        if self.players in (4, 6):
            return 4
        if self.players == 3 and self.options["three_player_count"] == "threes":
            return 3
        return 1

    def boub_allowed(self) -> bool:
        return self.options["boub"] and self.players in (4, 6)

    # ----- hand set-up ------------------------------------------------------------------
    def _new_hand(self) -> None:
        self.hand += 1
        self.tricks: list[dict[str, Any]] = []      # {cards: [[seat, card]], winner, suit, first, kj}
        self.current: list[tuple[int, str]] = []
        self.played: set[str] = set()               # cards now lying in tricks
        self.scart: tuple[str, ...] | None = None   # entered by a discard event
        self.cards_left = [self.tricks_per_hand] * self.players
        self.suits_led: set[str] = set()
        self.voids: list[dict[str, int]] = [{} for _ in range(self.players)]  # suit -> trick shown
        self.leader = self.next_seat(self.dealer)
        self.turn = self.leader
        self.last_play: tuple[int, str] | None = None   # for the king + jack second card
        self.kj_pending: int | None = None              # holder who must take a card back
        self.kj_declared: int | None = None             # last player who called king_jack (§6.3)
        self.boub: dict[str, Any] | None = None         # the trick just won may be called on
        self._kj_holder: int | None = None              # king + jack in the trick in play
        self.boub_unanswered: list[dict[str, Any]] = []  # boub calls nobody swapped for

    # ----- who may do what --------------------------------------------------------------
    def to_act(self) -> tuple[int, list[str]] | None:
        if self.kj_pending is not None:
            return self.kj_pending, ["exchange"]
        expects = ["card"]
        if ((self.boub is not None and self.boub["call"] is None and self.kj_declared is None)
                or self._may_declare_king_jack(self.turn)):
            expects.append("call")
        if self.dealer == self.turn and self._scart_due():
            expects.append("discard")
        return self.turn, expects

    def others_to_act(self) -> list[tuple[int, list[str]]]:
        """Seats that may act beside the one to play: the dealer's scart (any time before it is
        entered), the king + jack second card right after the first (§6.3), and after a boub
        call every seat but the caller, one of which holds the jack (§6.2.3)."""
        out: dict[int, list[str]] = {}
        if self.dealer != self.turn and self._scart_due():
            out.setdefault(self.dealer, []).append("discard")
        lp = self.last_play
        if (self.kj_pending is None and lp is not None and lp[0] != self.turn
                and lp[1].endswith(("/king", "/jack"))):      # cheap test before partner_card
            seat, first = lp
            mate = partner_card(first)
            if (mate is not None and self.cards_left[seat] > 0 and mate not in self.played
                    and not (self.scart is not None and mate in self.scart) and self._is_king_jack(seat, mate)):
                out.setdefault(seat, []).insert(0, "card")
        b = self.boub
        if b is not None and b["call"] is not None and b["swapped"] is None and self.kj_pending is None:
            for seat in range(self.players):
                if seat != b["caller"]:
                    out.setdefault(seat, []).append("exchange")
        if len(out) < 2:
            return list(out.items())
        order = [(self.turn + i) % self.players for i in range(self.players)]
        return [(seat, out[seat]) for seat in order if seat in out]

    def _scart_due(self) -> bool:
        return self.scart_size > 0 and self.scart is None

    def _may_declare_king_jack(self, seat: int) -> bool:
        """§6.3 for the last player to a trick who wins it with his king (or jack): he may add
        the partner card as his second card, but it cannot be told from his next lead, so he
        first calls ``king_jack``."""
        if self.kj_pending is not None or self.kj_declared is not None or self.current or not self.tricks:
            return False
        if self.last_play is None or self.last_play[0] != seat:
            return False
        t = self.tricks[-1]
        first = self.last_play[1]
        mate = partner_card(first)
        return (mate is not None and t["winner"] == seat and t["kj"] is None and t["first"]
                and t["suit"] == suit(first) and list(self.last_play) in t["cards"]
                and mate not in self.played and not (self.scart is not None and mate in self.scart)
                and self.cards_left[seat] > 0)

    def boub_trigger(self, t: dict[str, Any]) -> str | None:
        """Why the trick ``t`` just won can *not* be called on (§6.2.1); None if it can."""
        if not self.boub_allowed():
            if not self.options["boub"]:
                return "the boub call is switched off (option boub)"
            return f"there is no boub call with {self.players} players (§9.2.2)"
        x = t["suit"]
        if x in (None, TRUMP):
            return "boub needs a trick led in a plain suit, not in trumps"
        cards = [c for _, c in t["cards"]]
        if f"{x}/king" not in cards:
            return f"the king of {x} is not in trick {t['n']}"
        if f"{x}/jack" in cards:
            return f"the jack of {x} is in trick {t['n']}"
        if self.options["boub_trigger"] == "first_lead" and not t["first"]:
            return f"{x} had been led before trick {t['n']}: boub only on the first {x} trick (§6.2.6)"
        if f"{x}/jack" in self.played:
            return f"the jack of {x} has already been played"
        return None

    def boub_exception(self, holder: int, holder_card: str, caller: int) -> str | None:
        """HOOK (§6.2.5): the source names two exceptions to the boub swap and omits them.

        Returns a reason when this swap is one the referee cannot decide (a ``boub_disputed``
        alert is raised and the table's swap is accepted), None when rule 3 applies plainly.
        Clubs that know the two exceptions list them in option ``boub_exceptions`` or
        override this method in a subclass.
        """
        names = self.boub_exception_names
        if "partner" in names and self.team(holder) == self.team(caller):
            return f"seat {holder}, the jack holder, is the caller's partner"
        if "king" in names and rank(holder_card) == "king":
            return f"seat {holder}, the jack holder, played the king to the trick"
        return None

    def deal_entitlements(self) -> list[str] | None:
        """§4.4: the deal each team may ask for (four players only), from the running totals."""
        if self.players != 4:
            return None
        out = []
        for total in self.totals:
            if -total >= self.options["one_round_deficit"]:
                out.append("one_round")
            elif -total >= self.options["two_round_deficit"]:
                out.append("two_round")
            else:
                out.append("standard")
        return out

    # ----- events -----------------------------------------------------------------------
    def on_card(self, ev: Event) -> list[Judgment]:
        assert ev.seat is not None
        seat = ev.seat
        if ev.face_down:
            raise NotAllowed("troccas has no face-down plays (the scart is entered with a discard event)")
        assert ev.card is not None
        card = self.parse_card(ev.card)
        amend = self._is_king_jack(seat, card)
        if self.kj_declared is not None and not amend:
            assert self.last_play is not None
            raise NotAllowed(f"seat {self.kj_declared} called king_jack: its next card is "
                             f"{partner_card(self.last_play[1])}, the second of the pair (§6.3)")
        if not amend:
            if self.kj_pending is not None:
                raise NotAllowed(f"seat {self.kj_pending} played king and jack and must first take a "
                                 "card back from the trick (exchange event, §6.3)")
            self.check_turn(seat, self.turn)
        if self.cards_left[seat] == 0:
            raise NotAllowed(f"seat {seat} has played all its {self.tricks_per_hand} cards in this hand")
        self.check_unplayed(card, self.played, "this deal")
        if self.scart is not None and card in self.scart:
            raise DuplicateCard(f"{card} is in the scart")
        out: list[Judgment] = []
        if not self.current and not amend:
            self._close_boub()        # the next lead closes the boub window
        out += self._check_revoke(seat, card, "played")
        out += self._check_boub_missed(seat, card)
        if amend:
            return out + self._add_king_jack(seat, card)
        if self.current and card != FOOL:
            self._mark_voids(seat, card, led_suit([c for _, c in self.current]))
        self.current.append((seat, card))
        self.played.add(card)
        self.cards_left[seat] -= 1
        self.last_play = (seat, card)
        if len({s for s, _ in self.current}) == self.players:
            return out + self._finish_trick()
        self.turn = self.next_seat(seat)
        return out + self.turn_judgments()

    def _is_king_jack(self, seat: int, card: str) -> bool:
        """§6.3: is ``card`` the second of a king + jack pair, played right after the first?"""
        if self.last_play is None or self.last_play[0] != seat or partner_card(card) != self.last_play[1]:
            return False
        if self.current:
            cards = [c for _, c in self.current]
            x, first = led_suit(cards), suit(card) not in self.suits_led
        elif self.tricks and self.kj_pending is None:
            t = self.tricks[-1]
            if t["kj"] is not None or self.last_play not in [tuple(p) for p in t["cards"]]:
                return False
            if t["winner"] == seat:
                # He wins the trick and leads next anyway: a king and jack here cannot be told
                # from his lead, so it counts only after his king_jack call (else it is his lead).
                return self.kj_declared == seat
            x, first = t["suit"], t["first"]
        else:
            return False
        return x == suit(card) and first

    def _add_king_jack(self, seat: int, card: str) -> list[Judgment]:
        self.kj_declared = None
        self.played.add(card)
        self.cards_left[seat] -= 1
        self.last_play = None
        if self.current:
            self.current.append((seat, card))
            self._kj_holder = seat
            return self.turn_judgments()
        # The holder was last to the trick: his first card completed it; amend it (the king
        # may now win), and announce the trick again with its five cards.
        t = self.tricks[-1]
        t["cards"].append([seat, card])
        t["kj"] = seat
        t["winner"] = trick_winner([(s, c) for s, c in t["cards"]])
        self.leader = self.turn = t["winner"]
        self.kj_pending = seat
        self.boub = None          # the jack is in the trick now
        return [judgment("trick", hand=self.hand, trick=t["n"],
                         cards=[{"seat": s, "card": c} for s, c in t["cards"]], winner=t["winner"]),
                *self.turn_judgments()]

    def _finish_trick(self) -> list[Judgment]:
        plays = self.current
        x = led_suit([c for _, c in plays])
        winner = trick_winner(plays)
        kj, self._kj_holder = self._kj_holder, None
        t = {"n": len(self.tricks) + 1, "cards": [[s, c] for s, c in plays], "winner": winner,
             "suit": x, "first": x not in self.suits_led and x not in (None, TRUMP), "kj": kj}
        if x is not None:
            self.suits_led.add(x)
        self.tricks.append(t)
        self.current = []
        out = [judgment("trick", hand=self.hand, trick=t["n"],
                        cards=[{"seat": s, "card": c} for s, c in plays], winner=winner)]
        if len(self.tricks) == self.tricks_per_hand:
            return out + self._end_hand()
        self.leader = self.turn = winner
        if kj is not None:
            self.kj_pending = kj
        elif self.boub_trigger(t) is None:
            self.boub = {"trick": t["n"], "suit": x, "caller": winner, "call": None, "swapped": None}
        return out + self.turn_judgments()

    def on_call(self, ev: Event) -> list[Judgment]:
        assert ev.seat is not None
        if ev.call == "king_jack":
            if not self._may_declare_king_jack(ev.seat):
                raise NotAllowed("no king_jack call now: it is for the last player to a first trick "
                                 "of a suit who won it with its king or jack and still holds the other (§6.3)")
            self.kj_declared = ev.seat
            return [judgment("call", seat=ev.seat, call="king_jack", stake=None), *self.turn_judgments()]
        if ev.call not in ("boub", "boub_sche"):
            raise NotAllowed(f"unknown call {ev.call!r} in troccas (boub, boub_sche or king_jack)")
        why = self._why_no_boub(ev.seat)
        if why:
            raise NotAllowed(f"no {ev.call} now: {why}")
        assert self.boub is not None
        self.boub["call"] = ev.call
        self.last_play = None
        return [judgment("call", seat=ev.seat, call=ev.call, stake=None), *self.turn_judgments()]

    def _why_no_boub(self, seat: int) -> str | None:
        if self.kj_declared is not None:
            return f"seat {self.kj_declared} called king_jack: the jack joins the trick"
        if self.kj_pending is not None or self.current:
            return "a boub call is made when a trick is complete, before the next lead"
        if not self.tricks:
            return "no trick has been won yet in this hand"
        if self.boub is None:
            return self.boub_trigger(self.tricks[-1]) or "the next trick has begun"
        if seat != self.boub["caller"]:
            return f"only seat {self.boub['caller']}, the trick's winner, may call"
        if self.boub["call"] is not None:
            return f"{self.boub['call']} was already called on trick {self.boub['trick']}"
        return None

    def on_exchange(self, ev: Event) -> list[Judgment]:
        assert ev.seat is not None and ev.give is not None and ev.take is not None
        give, take = self.parse_card(ev.give), self.parse_card(ev.take)
        if self.kj_pending is not None:
            self.last_play = None
            return self._kj_exchange(ev.seat, give, take)
        if self.boub is not None and self.boub["call"] is not None and self.boub["swapped"] is None:
            return self._boub_exchange(ev.seat, give, take)
        raise NotAllowed("no exchange is due now (only after king and jack, or a boub call)")

    def _kj_exchange(self, seat: int, give: str, take: str) -> list[Judgment]:
        self.check_turn(seat, self.kj_pending, "take a card back (king and jack)")
        t = self.tricks[-1]
        x = t["suit"]
        own = [c for s, c in t["cards"] if s == seat]
        if give not in own or give not in (f"{x}/king", f"{x}/jack"):
            raise NotAllowed(f"give must be the king or jack of {x} that seat {seat} played")
        eligible, what = king_jack_takeable([(s, c) for s, c in t["cards"]], seat, self.players)
        if take not in eligible:
            raise NotAllowed(f"seat {seat} must take back {what}: one of {', '.join(eligible) or 'none'}")
        t["cards"] = [p for p in t["cards"] if p[1] != take]
        self.played.discard(take)
        self.cards_left[seat] += 1
        self.voids[seat].pop(suit(take) or "", None)
        self.kj_pending = None
        out: list[Judgment] = []
        winner = trick_winner([(s, c) for s, c in t["cards"]])
        if winner != t["winner"]:       # only when the winning card itself had to be taken
            t["winner"] = self.leader = self.turn = winner
            out.append(judgment("trick", hand=self.hand, trick=t["n"],
                                cards=[{"seat": s, "card": c} for s, c in t["cards"]], winner=winner))
        return out + self.turn_judgments()

    def _boub_exchange(self, seat: int, give: str, take: str) -> list[Judgment]:
        assert self.boub is not None
        b, t = self.boub, self.tricks[-1]
        x = b["suit"]
        if seat == b["caller"]:
            raise NotAllowed(f"seat {seat} called boub and cannot owe itself the jack")
        own = [c for s, c in t["cards"] if s == seat]
        if give != f"{x}/jack":
            raise NotAllowed(f"the boub swap gives the jack of {x}, not {give}")
        if take not in own:
            raise NotAllowed(f"seat {seat} takes back the card it played to trick {t['n']} "
                             f"({', '.join(own)}), not {take}")
        if take == FOOL:
            raise NotAllowed("the jack holder played the Fool: there is no suit card to hand back, "
                             "the Fool stays with its team and the jack stays in hand (§6.2.5 default)")
        if b["call"] == "boub_sche" and take in (f"{x}/queen", f"{x}/knight"):
            raise NotAllowed(f"boub, sche: seat {seat} played the {rank(take)} of {x}, "
                             "so the card stays in the trick and it keeps the jack (§6.2.4)")
        self.check_unplayed(give, self.played, "this deal")
        if self.cards_left[seat] == 0:
            raise NotAllowed(f"seat {seat} has no card left in hand to give")
        if self.scart is not None and give in self.scart:
            raise DuplicateCard(f"{give} is in the scart")
        out = self._check_revoke(seat, give, "gave")
        reason = self.boub_exception(seat, take, b["caller"])
        if reason:
            out.append(judgment("alert", code="boub_disputed", seat=seat,
                                message=f"boub on trick {t['n']}: {reason}; the source's exceptions "
                                        "are unknown, the referee must rule (§6.2.5)"))
        t["cards"] = [[s, give] if (s == seat and c == take) else [s, c] for s, c in t["cards"]]
        self.played.discard(take)
        self.played.add(give)
        self.voids[seat].pop(suit(take) or "", None)
        b["swapped"] = seat
        return out + self.turn_judgments()

    def on_discard(self, ev: Event) -> list[Judgment]:
        assert ev.seat is not None and ev.cards is not None
        if self.scart_size == 0:
            raise NotAllowed(f"there is no scart with {self.players} players (§9.1.2)")
        if ev.seat != self.dealer:
            raise NotAllowed(f"only the dealer (seat {self.dealer}) lays the scart")
        if self.scart is not None:
            raise NotAllowed(f"the scart was already entered: {', '.join(self.scart)}")
        cards = [self.parse_card(c) for c in ev.cards]
        if len(cards) != self.scart_size:
            raise IllegalDiscard(f"the scart holds {self.scart_size} cards, not {len(cards)}")
        if len(set(cards)) != len(cards):
            raise DuplicateCard(f"the scart names a card twice: {', '.join(cards)}")
        for c in cards:
            self.check_unplayed(c, self.played, "this deal")
        honours = [c for c in cards if is_honour(c)]
        if honours:
            raise IllegalDiscard(f"the scart may not hold a king, trump I, trump XXI or the Fool: "
                                 f"{', '.join(honours)} (§4.7)")
        self.scart = tuple(cards)
        return self.turn_judgments()

    def on_redeal(self, ev: Event) -> list[Judgment]:
        """The deal is thrown in (§4.6) or misdealt (§4.8): same dealer, it does not count."""
        self.hand -= 1
        self._new_hand()
        return self.turn_judgments()

    def score_penalty(self, ev: Event) -> list[Judgment] | None:
        """Club scale ``penalty_points``: the offenders pay it to every other side."""
        assert ev.team is not None
        p = self.options["penalty_points"]
        if p <= 0:
            raise NotAllowed("troccas has no penalty scale; set option penalty_points to use penalties")
        for side in range(self.sides):
            self.totals[side] += -p * (self.sides - 1) if side == ev.team else p
        return None

    # ----- obligations seen after the fact ------------------------------------------------
    def _close_boub(self) -> None:
        """A boub call that nobody answered with a swap: remember who could have owed the jack."""
        b = self.boub
        self.boub = None
        if b is None or b["call"] is None or b["swapped"] is not None:
            return
        x = b["suit"]
        t = self.tricks[b["trick"] - 1]
        exempt = {f"{x}/queen", f"{x}/knight"} if b["call"] == "boub_sche" else set()
        owing = sorted({s for s, c in t["cards"] if s != b["caller"] and c != FOOL and c not in exempt})
        self.boub_unanswered.append({"suit": x, "trick": b["trick"], "seats": owing})

    def _check_boub_missed(self, seat: int, card: str) -> list[Judgment]:
        """The jack of a suit called *boub* turns up later from a seat that should have swapped it."""
        for u in self.boub_unanswered:
            if card == f"{u['suit']}/jack" and seat in u["seats"]:
                self.boub_unanswered.remove(u)
                return [judgment("alert", code="boub_missed", seat=seat,
                                 message=f"seat {seat} played {card} in trick {len(self.tricks) + 1} "
                                         f"but did not swap it in after the boub call on trick "
                                         f"{u['trick']} (§6.2.3)")]
        return []

    def _mark_voids(self, seat: int, card: str, led: str | None) -> None:
        """§5.2: a card off the led suit shows a void; a plain card off it shows no trumps either."""
        if led is None or (len(self.current) == 1 and self.current[0][1] == FOOL):
            return                 # the second card after a Fool lead is free (§6.1.5)
        s = suit(card)
        n = len(self.tricks) + 1
        if s != led:
            self.voids[seat].setdefault(led, n)
            if led != TRUMP and s != TRUMP:
                self.voids[seat].setdefault(TRUMP, n)

    def _check_revoke(self, seat: int, card: str, verb: str) -> list[Judgment]:
        s = suit(card)
        if s is None or s not in self.voids[seat]:
            return []
        shown = self.voids[seat].pop(s)
        n = len(self.tricks) + (0 if verb == "gave" else 1)
        what = "showed no trumps" if s == TRUMP else f"showed void in {s}"
        msg = (f"revoke: seat {seat} {what} in trick {shown} of hand {self.hand} "
               f"but {verb} {card} in trick {n}")
        return [judgment("alert", code="revoke", seat=seat, message=msg)]

    # ----- end of hand ------------------------------------------------------------------
    def side(self, seat: int) -> int:
        return self.team(seat)

    def hand_result(self) -> dict[str, Any]:
        """Piles, scart and card points of the hand in play (complete or not)."""
        tricks = [([tuple(p) for p in t["cards"]], t["winner"]) for t in self.tricks]
        piles, debt = settle_piles(tricks, self.side, self.sides)
        inferred = self.scart is None
        scart = list(self.scart) if self.scart is not None else \
            [c for c in self.deck.cards if c not in self.played]
        return {"piles": piles, "debt": debt, "scart": scart, "inferred": inferred}

    def _end_hand(self) -> list[Judgment]:
        r = self.hand_result()
        piles, scart = r["piles"], r["scart"]
        out: list[Judgment] = []
        settle_debt_at_end(piles, r["debt"])
        honours = [c for c in scart if is_honour(c)]
        if honours and r["inferred"]:
            out.append(judgment("alert", code="illegal_discard", seat=self.dealer,
                                message=f"the scart ({', '.join(scart)}) holds {', '.join(honours)}: "
                                        "kings, trump I, trump XXI and the Fool may not be discarded "
                                        "(§4.7); counted as found"))
        # §7.1 the dealer's side holds the scart; §6.1.6 a side that won every trick takes it.
        winners = {self.side(t["winner"]) for t in self.tricks}
        holder = winners.pop() if len(winners) == 1 else self.side(self.dealer)
        g = self.group()
        card_points = [count_points(piles[s], scart if s == holder else (), g) for s in range(self.sides)]
        scores = self._hand_scores(card_points)
        for s in range(self.sides):
            self.totals[s] += scores[s]
        best = max(scores)
        tops = [s for s in range(self.sides) if scores[s] == best]
        winner = tops[0] if len(tops) == 1 and best > 0 else None
        out.append(judgment("hand", hand=self.hand, winner=winner, points=best if winner is not None else 0,
                            reason="tricks", card_points=card_points, hand_scores=scores,
                            scart=scart))
        out.append(self.score_judgment())
        self.hand_in_game += 1
        if self.hand_in_game == self.hands_per_game:
            out += self._end_game()
            if self.finished:
                return out
        self.dealer = self.next_seat(self.dealer)     # [OPEN] §3.4: the deal passes to the right
        self._new_hand()
        return out + self.turn_judgments()

    def _hand_scores(self, pts: list[int]) -> list[int]:
        """§7.5, §9: each side's gain or loss for the hand; they add up to 0."""
        if self.players in (4, 6):
            return [p - 36 for p in pts]
        if self.players == 3 and self.options["three_player_count"] == "threes":
            return [p - 26 for p in pts]
        base = (43, 42) if self.players == 3 else (27, 25)
        return [p - (base[0] if s == self.dealer else base[1]) for s, p in enumerate(pts)]

    def _end_game(self) -> list[Judgment]:
        best = max(self.totals)
        tops = [s for s in range(self.sides) if self.totals[s] == best]
        # §3.3: the side with a positive total wins; [OPEN] a total of 0 is a draw.
        winner = tops[0] if len(tops) == 1 and best > 0 else None
        if winner is not None:
            self.games[winner] += 1
        out = [judgment("game", winner=winner, games=list(self.games))]
        if self.game_no == self.options["games_per_match"]:
            most = max(self.games)
            leaders = [s for s in range(self.sides) if self.games[s] == most]
            self.finished = True
            self.match_winner = leaders[0] if len(leaders) == 1 else None
            out.append(judgment("match", winner=self.match_winner))
            return out
        self.game_no += 1
        self.hand_in_game = 0
        self.totals = [0] * self.sides
        out.append(self.score_judgment())
        return out

    # ----- state ------------------------------------------------------------------------
    def scores(self) -> list[int]:
        return self.totals

    def unplayed_cards(self) -> list[str]:
        gone = self.played | set(self.scart or ())
        return [c for c in self.deck.cards if c not in gone]

    def detail(self) -> dict[str, Any]:
        r = self.hand_result()
        last = self.tricks[-1] if self.tricks else None
        won = [0] * self.sides
        for t in self.tricks:
            won[self.side(t["winner"])] += 1
        return {
            "game": self.game_no,
            "games": list(self.games),
            "hand": self.hand,
            "hand_in_game": self.hand_in_game + (0 if self.finished else 1),
            "hands_per_game": self.hands_per_game,
            "dealt": self.dealt(),
            "scart_size": self.scart_size,
            "scart": None if self.scart is None else list(self.scart),
            "trick": len(self.tricks) + 1,
            "tricks_per_hand": self.tricks_per_hand,
            "leader": self.leader,
            "current_trick": [{"seat": s, "card": c} for s, c in self.current],
            "last_trick": None if last is None else {
                "trick": last["n"], "winner": last["winner"],
                "cards": [{"seat": s, "card": c} for s, c in last["cards"]]},
            "tricks_won": won,
            "cards_left": list(self.cards_left),
            "voids": [[{"suit": s, "trick": n} for s, n in sorted(v.items())] for v in self.voids],
            "boub": None if self.boub is None else dict(self.boub),
            "king_jack_pending": self.kj_pending,
            "king_jack_called": self.kj_declared,
            "fool_debt": None if r["debt"] is None else {"debtor": r["debt"][0], "creditor": r["debt"][1]},
            "deal_entitlements": self.deal_entitlements(),
        }
