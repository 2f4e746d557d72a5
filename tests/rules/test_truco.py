"""Truco Mineiro: every rule of ``shared/rules/truco.md`` and every worked example of §13.

Everything is driven through the Referee (events in, judgments out), a few cases through
the real ``cardtable referee`` CLI. Seats follow CONTRACT §2 with dealer 3, so mão is seat
0 and the spec's team A (mão's team) is team 0 (seats 0 and 2); team B is seats 1 and 3.
"""
from __future__ import annotations

import json
import subprocess
import sys
import time
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.rules.cards import deck
from controller.rules.referee import Referee
from controller.rules.engine import best_of_three as hand_winner
from controller.rules.truco import Truco, strength
from controller.sim.truco import random_match

A, B = 0, 1
J = dict[str, Any]


# ----- helpers ---------------------------------------------------------------------------
def feed(ref: Referee, **event: Any) -> list[J]:
    return ref.feed_line(json.dumps({"event": event.pop("event"), **event}))


def new(dealer: int = 3, **options: Any) -> Referee:
    ref = Referee()
    start: J = {"event": "start", "game": "truco", "dealer": dealer}
    if options:
        start["options"] = options
    out = ref.feed_line(json.dumps(start))
    assert out[0] == {"judgment": "score", "scores": [0, 0]}
    return ref


def ok(out: list[J]) -> list[J]:
    assert not [j for j in out if j["judgment"] == "error"], out
    return out


def of(out: list[J], kind: str) -> list[J]:
    return [j for j in out if j["judgment"] == kind]


def one(out: list[J], kind: str) -> J:
    found = of(out, kind)
    assert len(found) == 1, (kind, out)
    return found[0]


def game(ref: Referee) -> Truco:
    assert isinstance(ref.game, Truco)
    return ref.game


def play(ref: Referee, *cards: str) -> list[J]:
    """Each card in turn from the seat to play; ``"down"`` is a face-down card."""
    out: list[J] = []
    for c in cards:
        seat = game(ref).turn
        if c == "down":
            out += ok(feed(ref, event="card", seat=seat, face_down=True))
        else:
            out += ok(feed(ref, event="card", seat=seat, card=c))
    return out


def play_seats(ref: Referee, by_seat: dict[int, str]) -> list[J]:
    """A whole trick, each seat's card given by seat, in playing order from the leader."""
    out: list[J] = []
    for _ in range(4):
        seat = game(ref).turn
        assert seat is not None
        out += ok(feed(ref, event="card", seat=seat, card=by_seat[seat]))
    return out


def state(ref: Referee) -> str:
    return json.dumps(ref.snapshot(), sort_keys=True)


def rejected(ref: Referee, code: str, **event: Any) -> J:
    """The event is rejected with exactly ``code`` and changes nothing."""
    before = state(ref)
    out = feed(ref, **event)
    assert [j["judgment"] for j in out] == ["error"], out
    assert out[0]["code"] == code, out
    assert state(ref) == before
    return out[0]


def set_scores(ref: Referee, a: int, b: int) -> list[J]:
    """Reach scores a-b before the hand begins, by penalties (the other side offends)."""
    out: list[J] = []
    steps = [(A, b), (B, a)] if a >= b else [(B, a), (A, b)]    # the higher total last
    for offender, n in steps:
        for _ in range(n):
            out += ok(feed(ref, event="penalty", team=offender, offence="talking about cards held"))
    assert game(ref).totals == [a, b]
    return out


def turn(out: list[J]) -> J:
    return of(out, "turn")[-1]


# Tricks with a chosen outcome: high rank per trick, three low cards per trick (distinct).
HIGH = {1: "3", 2: "2", 3: "king"}
LOW = {1: ["hearts/4", "spades/4", "diamonds/4"], 2: ["clubs/5", "hearts/5", "spades/5"],
       3: ["clubs/6", "hearts/6", "spades/6"]}


def trick_cards(trick: int, outcome: str) -> dict[int, str]:
    """Seat -> card: outcome 'A' (seat 0 wins), 'B' (seat 1 wins) or 'T' (seats 0, 1 tie)."""
    hi, low = HIGH[trick], list(LOW[trick])
    cards: dict[int, str] = {}
    if outcome in "AT":
        cards[0] = f"clubs/{hi}"
    if outcome in "BT":
        cards[1] = f"diamonds/{hi}"
    for s in range(4):
        if s not in cards:
            cards[s] = low.pop()
    return cards


# ----- §1 ranking --------------------------------------------------------------------------
def test_strength_table_s1_2() -> None:
    table = {14: ["clubs/4"], 13: ["hearts/7"], 12: ["spades/ace"], 11: ["diamonds/7"],
             10: [f"{s}/3" for s in ("clubs", "diamonds", "hearts", "spades")],
             9: [f"{s}/2" for s in ("clubs", "diamonds", "hearts", "spades")],
             8: ["hearts/ace", "clubs/ace", "diamonds/ace"],
             7: [f"{s}/king" for s in ("clubs", "diamonds", "hearts", "spades")],
             6: [f"{s}/jack" for s in ("clubs", "diamonds", "hearts", "spades")],
             5: [f"{s}/queen" for s in ("clubs", "diamonds", "hearts", "spades")],
             4: ["spades/7", "clubs/7"],
             3: [f"{s}/6" for s in ("clubs", "diamonds", "hearts", "spades")],
             2: [f"{s}/5" for s in ("clubs", "diamonds", "hearts", "spades")],
             1: ["hearts/4", "spades/4", "diamonds/4"]}
    seen = [c for cards in table.values() for c in cards]
    assert sorted(seen) == sorted(deck("french-40").cards)
    for value, cards in table.items():
        for c in cards:
            assert strength(c) == value, c
    assert strength(None) == 0


def test_s13_01_manilhas() -> None:
    ref = new()
    out = play(ref, "hearts/3", "diamonds/7", "clubs/king", "spades/ace")
    assert one(out, "trick")["winner"] == 3
    assert turn(out)["seat"] == 3


def test_s13_02_plain_ranking() -> None:
    ref = new()
    out = play(ref, "clubs/jack", "hearts/queen", "clubs/7", "diamonds/6")
    assert one(out, "trick")["winner"] == 0


def test_only_manilhas_depend_on_suit_s1_3() -> None:
    ref = new()
    out = play(ref, "spades/7", "hearts/4", "clubs/7", "clubs/5")     # two low sevens tie
    assert one(out, "trick")["winner"] == 0          # partners 0 and 2: the earlier wins


def test_card_not_in_deck_and_unknown() -> None:
    ref = new()
    rejected(ref, "not_in_deck", event="card", seat=0, card="clubs/8")
    rejected(ref, "not_in_deck", event="card", seat=0, card="hearts/10")
    rejected(ref, "unknown_card", event="card", seat=0, card="clubs/99")


def test_card_aliases_are_canonical_in_judgments() -> None:
    ref = new()
    out = play(ref, "4C", "7H", "AS", "7D")
    assert [c["card"] for c in one(out, "trick")["cards"]] == ["clubs/4", "hearts/7", "spades/ace", "diamonds/7"]


# ----- §2, §6 seats and tricks ----------------------------------------------------------------
def test_mao_leads_and_dealer_rotates_to_old_mao_s2() -> None:
    ref = new(dealer=1)
    g = game(ref)
    assert (g.mao, g.turn) == (2, 2)
    rejected(ref, "out_of_turn", event="card", seat=1, card="clubs/3")
    out = ok(feed(ref, event="call", seat=2, call="truco"))
    out = ok(feed(ref, event="answer", seat=3, answer="refuse"))
    assert one(out, "hand")["winner"] == 0
    assert game(ref).dealer == 2 and turn(out)["seat"] == 3


def test_no_duplicate_cards_in_a_deal() -> None:
    ref = new()
    play(ref, "clubs/3", "clubs/2")
    rejected(ref, "duplicate_card", event="card", seat=2, card="clubs/3")


def test_s13_03_tied_trick() -> None:
    ref = new()
    out = play_seats(ref, {0: "clubs/3", 1: "diamonds/3", 2: "hearts/4", 3: "spades/5"})
    assert one(out, "trick")["winner"] is None
    assert turn(out)["seat"] == 0                 # the player of 3♣ leads trick 2
    out = play_seats(ref, {0: "hearts/5", 1: "clubs/2", 2: "spades/4", 3: "diamonds/4"})
    hand = one(out, "hand")
    assert (hand["winner"], hand["points"], hand["reason"]) == (B, 1, "tricks")


def test_tied_trick_first_tied_card_leads_not_the_leader_s6_5() -> None:
    ref = new()
    out = play_seats(ref, {0: "hearts/4", 1: "clubs/3", 2: "diamonds/3", 3: "spades/5"})
    assert one(out, "trick")["winner"] is None
    assert turn(out)["seat"] == 1


def test_s13_04_partners_tie() -> None:
    ref = new()
    out = play_seats(ref, {0: "clubs/2", 1: "hearts/queen", 2: "spades/2", 3: "diamonds/5"})
    assert one(out, "trick")["winner"] == 0
    assert turn(out)["seat"] == 0
    # the other team, not leading: seat 1 and 3 tie -> seat 1 (earlier) wins and leads
    out = play_seats(ref, {0: "hearts/5", 1: "clubs/king", 2: "spades/6", 3: "hearts/king"})
    assert one(out, "trick")["winner"] == 1
    assert turn(out)["seat"] == 1


@pytest.mark.parametrize("row, expected", [
    ("AA", A), ("AT", A), ("ABA", A), ("ABB", B), ("ABT", A), ("TA", A), ("TTA", A), ("TTT", None),
    ("BB", B), ("BT", B), ("TB", B), ("TTB", B), ("BAT", B),
])
def test_s6_8_hand_result_table(row: str, expected: int | None) -> None:
    ref = new()
    out: list[J] = []
    for i, outcome in enumerate(row, start=1):
        assert not of(out, "hand")
        out = play_seats(ref, trick_cards(i, outcome))
    hand = one(out, "hand")
    assert hand["winner"] == expected
    assert hand["points"] == (0 if expected is None else 1)
    assert hand["reason"] == ("tied" if expected is None else "tricks")
    assert one(out, "score")["scores"] == ([0, 0] if expected is None else [int(expected == A), int(expected == B)])


def test_s13_05_result_table_examples() -> None:
    assert hand_winner([A, B, None]) == (True, A)
    assert hand_winner([None, None, None]) == (True, None)
    assert hand_winner([A, B]) == (False, None)
    assert hand_winner([None, None]) == (False, None)


# ----- §6.4 face-down cards --------------------------------------------------------------------
def test_face_down_not_in_first_trick_s6_4() -> None:
    ref = new()
    rejected(ref, "not_allowed", event="card", seat=0, face_down=True)
    play(ref, "clubs/3")
    rejected(ref, "not_allowed", event="card", seat=1, face_down=True)


def test_face_down_is_null_and_never_wins_s6_4() -> None:
    ref = new()
    play_seats(ref, trick_cards(1, "A"))
    out = play(ref, "down", "hearts/5", "down", "spades/6")
    trick = one(out, "trick")
    assert trick["cards"] == [{"seat": 0, "card": None}, {"seat": 1, "card": "hearts/5"},
                              {"seat": 2, "card": None}, {"seat": 3, "card": "spades/6"}]
    assert trick["winner"] == 3


def test_all_face_down_is_tied_and_leader_leads_again_s6_7() -> None:
    ref = new()
    out = play_seats(ref, {0: "hearts/4", 1: "clubs/3", 2: "diamonds/3", 3: "clubs/5"})   # tied
    assert turn(out)["seat"] == 1
    out = play(ref, "down", "down", "down", "down")
    assert one(out, "trick")["winner"] is None
    assert turn(out)["seat"] == 1 and not of(out, "hand")      # the leader leads again
    out = play(ref, "hearts/5", "clubs/2", "spades/6", "down")   # tied, tied, A
    assert one(out, "hand")["winner"] == A


def test_face_down_out_of_turn() -> None:
    ref = new()
    play_seats(ref, trick_cards(1, "A"))
    rejected(ref, "out_of_turn", event="card", seat=2, face_down=True)


def test_face_down_cards_leave_cards_unplayed() -> None:
    ref = new()
    play_seats(ref, trick_cards(1, "A"))
    play(ref, "down")
    assert "clubs/4" in game(ref).unplayed_cards()
    assert "clubs/3" not in game(ref).unplayed_cards()


# ----- §7 truco --------------------------------------------------------------------------------
def test_s13_06_run() -> None:
    ref = new()
    out = ok(feed(ref, event="call", seat=0, call="truco"))
    assert one(out, "call") == {"judgment": "call", "seat": 0, "call": "truco", "stake": 3}
    assert turn(out) == {"judgment": "turn", "seat": 1, "expects": ["answer"], "others": [{"seat": 3, "expects": ["answer"]}]}
    out = ok(feed(ref, event="answer", seat=3, answer="refuse"))      # either opponent
    assert one(out, "hand") == {"judgment": "hand", "hand": 1, "winner": A, "points": 1, "reason": "refused"}
    assert one(out, "score")["scores"] == [1, 0]
    assert not of(out, "trick")                       # A's cards stay hidden


def test_s13_07_accept_current_trick_decides() -> None:
    ref = new()
    play_seats(ref, trick_cards(1, "A"))
    assert game(ref).turn == 0
    play(ref, "hearts/5")
    ok(feed(ref, event="call", seat=1, call="truco"))
    out = ok(feed(ref, event="answer", seat=2, answer="accept"))
    assert turn(out) == {"judgment": "turn", "seat": 1, "expects": ["card"]}
    out = play(ref, "clubs/4", "spades/5", "diamonds/5")
    assert one(out, "trick")["winner"] == 1
    assert one(out, "hand") == {"judgment": "hand", "hand": 1, "winner": B, "points": 3, "reason": "tricks"}
    assert one(out, "score")["scores"] == [0, 3]
    assert game(ref).hand == 2                        # trick 3 is not played


def test_s13_08_raise_and_run() -> None:
    ref = new()
    ok(feed(ref, event="call", seat=0, call="truco"))
    out = ok(feed(ref, event="answer", seat=1, answer="raise"))
    assert one(out, "call") == {"judgment": "call", "seat": 1, "call": "truco", "stake": 6}
    assert turn(out)["seat"] == 2 and turn(out)["expects"] == ["answer"]
    out = ok(feed(ref, event="answer", seat=0, answer="refuse"))
    hand = one(out, "hand")
    assert (hand["winner"], hand["points"], hand["reason"]) == (B, 3, "refused")


@pytest.mark.parametrize("raises, points", [(0, 1), (1, 3), (2, 6), (3, 9)])
def test_run_scores_previous_rung_s7_4(raises: int, points: int) -> None:
    ref = new()
    ok(feed(ref, event="call", seat=0, call="truco"))
    seats = [1, 2, 3]
    for i in range(raises):
        ok(feed(ref, event="answer", seat=seats[i], answer="raise"))
    refuser = [1, 2, 3, 0][raises]
    caller_team = A if raises % 2 == 0 else B
    hand = one(ok(feed(ref, event="answer", seat=refuser, answer="refuse")), "hand")
    assert (hand["winner"], hand["points"]) == (caller_team, points)


def test_s13_09_full_ladder() -> None:
    ref = new()
    stakes = []
    stakes.append(one(ok(feed(ref, event="call", seat=0, call="truco")), "call")["stake"])
    stakes.append(one(ok(feed(ref, event="answer", seat=3, answer="raise")), "call")["stake"])
    stakes.append(one(ok(feed(ref, event="answer", seat=2, answer="raise")), "call")["stake"])
    stakes.append(one(ok(feed(ref, event="answer", seat=1, answer="raise")), "call")["stake"])
    assert stakes == [3, 6, 9, 12]
    rejected(ref, "not_allowed", event="answer", seat=0, answer="raise")       # 12 cannot be raised
    ok(feed(ref, event="answer", seat=0, answer="accept"))
    out = play(ref, "clubs/4", "hearts/3", "spades/3", "diamonds/3")
    assert one(out, "hand") == {"judgment": "hand", "hand": 1, "winner": A, "points": 12, "reason": "tricks"}
    assert one(out, "game") == {"judgment": "game", "winner": A, "games": [1, 0]}


def test_s13_10_illegal_raise_then_penalty() -> None:
    ref = new()
    set_scores(ref, 7, 5)
    ok(feed(ref, event="call", seat=0, call="truco"))
    assert one(ok(feed(ref, event="answer", seat=1, answer="raise")), "call")["stake"] == 6   # 5+3 < 12
    assert game(ref).may_raise(0) is False
    err = rejected(ref, "not_allowed", event="answer", seat=0, answer="raise")                 # 7+6 >= 12
    assert "illegal raise" in err["message"]
    out = ok(feed(ref, event="penalty", team=A, offence="raising beyond what one's team needs"))
    assert one(out, "score")["scores"] == [7, 6]
    assert turn(out) == {"judgment": "turn", "seat": 2, "expects": ["answer"],
                         "others": [{"seat": 0, "expects": ["answer"]}]}   # A must still answer
    hand = one(ok(feed(ref, event="answer", seat=2, answer="refuse")), "hand")
    assert (hand["winner"], hand["points"]) == (B, 3)
    assert game(ref).totals == [7, 9]


def test_illegal_raise_when_accepting_truco_wins_s7_5() -> None:
    ref = new()
    set_scores(ref, 4, 9)
    ok(feed(ref, event="call", seat=0, call="truco"))
    rejected(ref, "not_allowed", event="answer", seat=1, answer="raise")        # 9 + 3 >= 12
    ok(feed(ref, event="answer", seat=1, answer="accept"))


def test_s13_11_tie_with_an_earlier_card() -> None:
    ref = new()
    play_seats(ref, trick_cards(1, "A"))               # A leads trick 2
    play(ref, "hearts/3")                              # A's first player, before the call
    ok(feed(ref, event="call", seat=1, call="truco"))
    ok(feed(ref, event="answer", seat=0, answer="accept"))
    out = play(ref, "spades/3", "hearts/5", "spades/5")
    assert one(out, "trick")["winner"] is None
    hand = one(out, "hand")
    assert (hand["winner"], hand["points"], hand["reason"]) == (A, 3, "tricks")


def test_tie_with_earlier_card_loses_even_after_winning_a_trick_s7_7a() -> None:
    ref = new()
    play_seats(ref, trick_cards(1, "B"))               # B won trick 1, seat 1 leads trick 2
    play(ref, "clubs/2", "diamonds/2")                 # seat 1 (B), seat 2 (A) tie before any call
    ok(feed(ref, event="call", seat=3, call="truco"))  # B calls, A accepts
    ok(feed(ref, event="answer", seat=2, answer="accept"))
    out = play(ref, "hearts/5", "spades/5")
    hand = one(out, "hand")
    assert (hand["winner"], hand["points"]) == (A, 3)   # B bet last, a top card was down before


def test_tie_after_call_moves_decision_to_next_trick_s7_7b() -> None:
    ref = new()
    ok(feed(ref, event="call", seat=0, call="truco"))
    ok(feed(ref, event="answer", seat=1, answer="accept"))
    out = play_seats(ref, {0: "clubs/3", 1: "diamonds/3", 2: "hearts/4", 3: "spades/4"})
    assert one(out, "trick")["winner"] is None and not of(out, "hand")
    assert turn(out) == {"judgment": "turn", "seat": 0, "expects": ["card"]}   # §7.8: no more betting
    rejected(ref, "not_allowed", event="call", seat=0, call="truco")
    out = play_seats(ref, {0: "hearts/5", 1: "clubs/king", 2: "spades/5", 3: "diamonds/5"})
    hand = one(out, "hand")
    assert (hand["winner"], hand["points"]) == (B, 3)


def test_decisive_partners_tie_is_a_win_s7_7() -> None:
    ref = new()
    play(ref, "clubs/2")
    ok(feed(ref, event="call", seat=1, call="truco"))
    ok(feed(ref, event="answer", seat=2, answer="accept"))
    out = play(ref, "hearts/5", "spades/2", "diamonds/5")   # 0 and 2 (partners) tie at the top
    assert one(out, "trick")["winner"] == 0
    hand = one(out, "hand")
    assert (hand["winner"], hand["points"]) == (A, 3)


def test_s13_12_tie_after_the_call_in_the_last_trick() -> None:
    ref = new()
    play_seats(ref, trick_cards(1, "A"))
    play_seats(ref, trick_cards(2, "B"))               # seat 1 leads trick 3
    ok(feed(ref, event="call", seat=1, call="truco"))
    ok(feed(ref, event="answer", seat=0, answer="accept"))
    out = play_seats(ref, {1: "clubs/king", 2: "diamonds/king", 3: "clubs/6", 0: "hearts/6"})
    assert one(out, "trick")["winner"] is None
    assert one(out, "hand") == {"judgment": "hand", "hand": 1, "winner": None, "points": 0, "reason": "tied"}
    assert one(out, "score")["scores"] == [0, 0]


def test_first_answer_binds_s7_3() -> None:
    ref = new()
    ok(feed(ref, event="call", seat=0, call="truco"))
    ok(feed(ref, event="answer", seat=3, answer="accept"))
    rejected(ref, "not_allowed", event="answer", seat=1, answer="refuse")   # already answered
    rejected(ref, "not_allowed", event="answer", seat=1, answer="raise")


def test_raises_alternate_s7_4() -> None:
    ref = new()
    ok(feed(ref, event="call", seat=0, call="truco"))
    rejected(ref, "not_allowed", event="answer", seat=2, answer="accept")    # caller's own team
    rejected(ref, "not_allowed", event="answer", seat=0, answer="raise")
    ok(feed(ref, event="answer", seat=1, answer="raise"))
    rejected(ref, "not_allowed", event="answer", seat=3, answer="raise")     # B raised last
    rejected(ref, "not_allowed", event="answer", seat=1, answer="accept")
    ok(feed(ref, event="answer", seat=2, answer="accept"))
    assert game(ref).stake == 6 and game(ref).bet_team == B
    assert game(ref).turn == 0                     # the caller now plays his card


def test_bad_calls_and_answers() -> None:
    ref = new()
    rejected(ref, "not_allowed", event="answer", seat=1, answer="accept")   # nothing to answer
    rejected(ref, "out_of_turn", event="call", seat=1, call="truco")
    rejected(ref, "not_allowed", event="call", seat=0, call="bid")
    ok(feed(ref, event="call", seat=0, call="truco"))
    rejected(ref, "not_allowed", event="call", seat=0, call="truco")        # already pending
    rejected(ref, "not_allowed", event="call", seat=1, call="truco")
    rejected(ref, "not_allowed", event="answer", seat=1, answer="maybe")
    rejected(ref, "out_of_turn", event="card", seat=0, card="clubs/3")      # waits for the answer
    rejected(ref, "out_of_turn", event="card", seat=1, card="clubs/3")
    rejected(ref, "not_allowed", event="decide", seat=1, decision="play")
    ok(feed(ref, event="answer", seat=1, answer="accept"))
    rejected(ref, "not_allowed", event="call", seat=0, call="truco")        # a bet was made
    play(ref, "clubs/3")
    rejected(ref, "not_allowed", event="call", seat=1, call="truco")        # even the other team


def test_call_by_last_player_and_before_leading() -> None:
    ref = new()
    play(ref, "hearts/4", "spades/4", "diamonds/4")
    out = ok(feed(ref, event="call", seat=3, call="truco"))
    assert one(out, "call")["seat"] == 3
    ok(feed(ref, event="answer", seat=2, answer="accept"))
    out = play(ref, "clubs/5")
    assert one(out, "hand")["winner"] == B and one(out, "hand")["points"] == 3


def test_whole_hand_option_s7_10() -> None:
    ref = new(truco_decides="hand")
    play_seats(ref, trick_cards(1, "A"))
    play(ref, "hearts/5")
    ok(feed(ref, event="call", seat=1, call="truco"))
    ok(feed(ref, event="answer", seat=2, answer="accept"))
    out = play(ref, "clubs/2", "spades/5", "diamonds/5")           # B wins trick 2: not decisive
    assert one(out, "trick")["winner"] == 1 and not of(out, "hand")
    assert turn(out) == {"judgment": "turn", "seat": 1, "expects": ["card"]}   # B bet last: no raise
    play(ref, "clubs/6")
    # A (seat 2) may now raise to 6 at its turn
    assert game(ref).may_call(2)
    out = ok(feed(ref, event="call", seat=2, call="truco"))
    assert one(out, "call")["stake"] == 6
    ok(feed(ref, event="answer", seat=3, answer="accept"))
    out = play(ref, "clubs/king", "hearts/6", "spades/6")        # seat 2 king wins trick 3
    hand = one(out, "hand")
    assert (hand["winner"], hand["points"]) == (A, 6)


def test_whole_hand_option_refused_raise_scores_accepted_value() -> None:
    ref = new(truco_decides="hand")
    ok(feed(ref, event="call", seat=0, call="truco"))
    ok(feed(ref, event="answer", seat=1, answer="accept"))
    play(ref, "clubs/5")
    ok(feed(ref, event="call", seat=1, call="truco"))
    hand = one(ok(feed(ref, event="answer", seat=2, answer="refuse")), "hand")
    assert (hand["winner"], hand["points"], hand["reason"]) == (B, 3, "refused")


def test_whole_hand_option_illegal_raise_by_call_s7_5() -> None:
    ref = new(truco_decides="hand")
    set_scores(ref, 9, 2)
    ok(feed(ref, event="call", seat=0, call="truco"))
    ok(feed(ref, event="answer", seat=1, answer="accept"))
    play(ref, "clubs/5")
    ok(feed(ref, event="call", seat=1, call="truco"))          # B 2 + 3 < 12: may raise to 6
    rejected(ref, "not_allowed", event="answer", seat=0, answer="raise")   # A 9 + 6 >= 12
    ok(feed(ref, event="answer", seat=0, answer="accept"))
    play(ref, "clubs/6")
    assert not game(ref).may_call(2)                          # B bet last
    play(ref, "hearts/6", "spades/6")                         # 6s of both teams: tied, seat 1 leads
    play(ref, "clubs/king")
    assert game(ref).to_act() == (2, ["card"])                # A at 9 + 6: no raise either
    rejected(ref, "not_allowed", event="call", seat=2, call="truco")


def test_undo_of_a_deal_option_and_a_call() -> None:
    ref = new()
    before = state(ref)
    ok(feed(ref, event="deal_option", seat=0, option="burn", cards=["clubs/4", "hearts/3", "spades/queen"]))
    ok(feed(ref, event="undo"))
    assert state(ref) == before
    ok(feed(ref, event="call", seat=0, call="truco"))
    ok(feed(ref, event="undo"))
    assert state(ref) == before


def test_raise_in_extra_trick_option_s7_8() -> None:
    for allowed in (False, True):
        ref = new(raise_in_extra_trick=allowed)
        ok(feed(ref, event="call", seat=0, call="truco"))
        ok(feed(ref, event="answer", seat=1, answer="accept"))
        play_seats(ref, {0: "clubs/3", 1: "diamonds/3", 2: "hearts/4", 3: "spades/4"})
        play(ref, "hearts/5")                       # seat 0 leads the extra trick
        if not allowed:
            rejected(ref, "not_allowed", event="call", seat=1, call="truco")
            continue
        out = ok(feed(ref, event="call", seat=1, call="truco"))
        assert one(out, "call")["stake"] == 6
        ok(feed(ref, event="answer", seat=2, answer="accept"))
        out = play(ref, "clubs/king", "spades/5", "diamonds/5")
        assert (one(out, "hand")["winner"], one(out, "hand")["points"]) == (B, 6)


# ----- §4 deal options ------------------------------------------------------------------------
def test_s13_15_deal_choices() -> None:
    ref = new()
    out = ok(feed(ref, event="deal_option", seat=0, option="burn",
                  cards=["clubs/4", "hearts/3", "spades/queen"]))
    assert turn(out)["expects"] == ["card", "call", "deal_option"]
    ok(feed(ref, event="deal_option", seat=0, option="pass"))
    rejected(ref, "not_allowed", event="deal_option", seat=0, option="pass")   # only one pass
    ok(feed(ref, event="deal_option", seat=0, option="burn", cards=["hearts/7", "spades/2", "clubs/5"]))
    rejected(ref, "not_allowed", event="deal_option", seat=0, option="burn")   # three rejected
    rejected(ref, "not_allowed", event="deal_option", seat=0, option="pass")
    out = ok(feed(ref, event="deal_option", seat=0, option="keep"))
    assert turn(out) == {"judgment": "turn", "seat": 0, "expects": ["card", "call"]}
    rejected(ref, "not_allowed", event="deal_option", seat=0, option="keep")
    assert game(ref).burned == ["clubs/4", "hearts/3", "spades/queen", "hearts/7", "spades/2", "clubs/5"]


def test_burned_cards_can_never_be_played_s4_2() -> None:
    ref = new()
    ok(feed(ref, event="deal_option", seat=0, option="burn", cards=["4C", "hearts/3", "spades/queen"]))
    assert "clubs/4" not in game(ref).unplayed_cards()
    err = rejected(ref, "duplicate_card", event="card", seat=0, card="clubs/4")
    assert "burned" in err["message"]
    play(ref, "clubs/3", "clubs/2", "hearts/4", "spades/4")
    rejected(ref, "duplicate_card", event="card", seat=game(ref).turn, card="spades/queen")


def test_bad_deal_options() -> None:
    ref = new()
    rejected(ref, "out_of_turn", event="deal_option", seat=1, option="keep")
    rejected(ref, "not_allowed", event="deal_option", seat=0, option="swap")
    rejected(ref, "bad_event", event="deal_option", seat=0, option="burn", cards=["clubs/4"])
    rejected(ref, "duplicate_card", event="deal_option", seat=0, option="burn",
             cards=["clubs/4", "clubs/4", "hearts/2"])
    rejected(ref, "not_in_deck", event="deal_option", seat=0, option="burn",
             cards=["clubs/4", "clubs/9", "hearts/2"])
    rejected(ref, "not_allowed", event="deal_option", seat=0, option="keep", cards=["clubs/4"])
    ok(feed(ref, event="deal_option", seat=0, option="burn", cards=["clubs/4", "hearts/5", "hearts/2"]))
    rejected(ref, "duplicate_card", event="deal_option", seat=0, option="burn",
             cards=["clubs/4", "clubs/3", "hearts/3"])
    ok(feed(ref, event="deal_option", seat=0, option="burn"))       # cards need not be shown


def test_first_card_or_call_implies_keep_s3_1() -> None:
    ref = new()
    play(ref, "clubs/3")
    rejected(ref, "not_allowed", event="deal_option", seat=0, option="burn")
    ref = new()
    ok(feed(ref, event="call", seat=0, call="truco"))
    rejected(ref, "not_allowed", event="deal_option", seat=0, option="burn")


# ----- §8 special hands -----------------------------------------------------------------------
def test_s13_13_hand_of_eleven_run() -> None:
    ref = new()
    out = set_scores(ref, 11, 6)
    assert turn(out) == {"judgment": "turn", "seat": 0, "expects": ["decide"], "others": [{"seat": 2, "expects": ["decide"]}]}
    assert game(ref).kind == "eleven"
    out = ok(feed(ref, event="decide", seat=2, decision="run"))      # either partner decides
    assert one(out, "hand") == {"judgment": "hand", "hand": 1, "winner": B, "points": 1, "reason": "ran"}
    assert one(out, "score")["scores"] == [11, 7]


def test_s13_13_hand_of_eleven_play_and_win() -> None:
    ref = new()
    set_scores(ref, 11, 6)
    out = ok(feed(ref, event="decide", seat=0, decision="play"))
    assert turn(out) == {"judgment": "turn", "seat": 0, "expects": ["card"]}
    play_seats(ref, trick_cards(1, "A"))
    out = play_seats(ref, trick_cards(2, "A"))
    assert one(out, "hand") == {"judgment": "hand", "hand": 1, "winner": A, "points": 3, "reason": "tricks"}
    assert of(out, "score")[0]["scores"] == [14, 6]          # the game may exceed 12 (§9.1)
    assert one(out, "game") == {"judgment": "game", "winner": A, "games": [1, 0]}


def test_s13_13_hand_of_eleven_play_and_lose() -> None:
    ref = new()
    set_scores(ref, 11, 6)
    ok(feed(ref, event="decide", seat=0, decision="play"))
    play_seats(ref, trick_cards(1, "B"))
    out = play_seats(ref, trick_cards(2, "B"))
    assert (one(out, "hand")["winner"], one(out, "hand")["points"]) == (B, 3)
    assert one(out, "score")["scores"] == [11, 9]


def test_hand_of_eleven_for_the_dealers_team() -> None:
    ref = new()
    out = set_scores(ref, 3, 11)
    assert turn(out) == {"judgment": "turn", "seat": 1, "expects": ["decide"], "others": [{"seat": 3, "expects": ["decide"]}]}
    rejected(ref, "not_allowed", event="decide", seat=0, decision="play")
    ok(feed(ref, event="decide", seat=3, decision="play"))


def test_hand_of_eleven_bad_input_s8_2() -> None:
    ref = new()
    set_scores(ref, 11, 6)
    rejected(ref, "not_allowed", event="decide", seat=1, decision="play")   # not at 11
    rejected(ref, "not_allowed", event="decide", seat=0, decision="pass")
    rejected(ref, "not_allowed", event="deal_option", seat=0, option="burn")
    rejected(ref, "out_of_turn", event="card", seat=0, card="clubs/3")
    rejected(ref, "not_allowed", event="call", seat=0, call="truco")
    ok(feed(ref, event="decide", seat=0, decision="play"))
    rejected(ref, "not_allowed", event="decide", seat=0, decision="play")
    rejected(ref, "not_allowed", event="call", seat=0, call="truco")        # no truco either side
    play(ref, "clubs/3")
    rejected(ref, "not_allowed", event="call", seat=1, call="truco")


def test_tied_hand_of_eleven_is_void_and_repeats_s8_2_3() -> None:
    ref = new()
    set_scores(ref, 11, 6)
    ok(feed(ref, event="decide", seat=0, decision="play"))
    out: list[J] = []
    for t in (1, 2, 3):
        out = play_seats(ref, trick_cards(t, "T"))
    assert one(out, "hand")["winner"] is None and one(out, "hand")["points"] == 0
    assert game(ref).kind == "eleven" and game(ref).totals == [11, 6]


def reach_iron(ref: Referee) -> None:
    """10-10 by penalties, A wins a hand (11-10), A runs its hand of eleven (11-11)."""
    set_scores(ref, 10, 10)
    ok(feed(ref, event="call", seat=0, call="truco"))
    ok(feed(ref, event="answer", seat=1, answer="refuse"))        # A 11, B 10
    g = game(ref)
    assert g.kind == "eleven" and g.at_eleven == A
    ok(feed(ref, event="decide", seat=g.mao if g.team(g.mao) == A else g.next_seat(g.mao), decision="run"))
    assert game(ref).totals == [11, 11]


def test_s13_14_iron_hand() -> None:
    ref = new()
    reach_iron(ref)
    g = game(ref)
    assert g.kind == "iron" and g.mao == 2
    assert g.to_act() == (2, ["card"])
    rejected(ref, "not_allowed", event="call", seat=2, call="truco")
    rejected(ref, "not_allowed", event="deal_option", seat=2, option="keep")
    rejected(ref, "not_allowed", event="decide", seat=2, decision="play")
    out: list[J] = []
    for t in (1, 2, 3):
        cards = trick_cards(t, "T")
        out = play_seats(ref, {(s + 2) % 4: c for s, c in cards.items()})   # seats 2 and 3 tie
        assert one(out, "trick")["winner"] is None
    assert one(out, "hand") == {"judgment": "hand", "hand": 3, "winner": None, "points": 0, "reason": "tied"}
    g = game(ref)
    assert g.kind == "iron" and g.hand == 4 and g.totals == [11, 11]     # another iron hand


def test_iron_hand_winner_wins_game_and_no_face_down_s8_3() -> None:
    ref = new()
    reach_iron(ref)
    play_seats(ref, {2: "clubs/3", 3: "hearts/4", 0: "spades/4", 1: "diamonds/4"})
    rejected(ref, "not_allowed", event="card", seat=2, face_down=True)
    out = play_seats(ref, {2: "clubs/2", 3: "hearts/5", 0: "spades/5", 1: "diamonds/5"})
    assert one(out, "hand")["winner"] == A
    assert one(out, "game")["winner"] == A


# ----- §9 game and match ----------------------------------------------------------------------
def win_game_by_ladder(ref: Referee, team: int) -> list[J]:
    """The mão calls truco, all raise to 12, accepted; ``team``'s seat plays the zap."""
    g = game(ref)
    assert g.kind == "normal" and g.totals == [0, 0]
    caller = g.turn
    assert caller is not None
    ok(feed(ref, event="call", seat=caller, call="truco"))
    for i in (1, 2, 3):
        ok(feed(ref, event="answer", seat=(caller + i) % 4, answer="raise"))
    ok(feed(ref, event="answer", seat=caller, answer="accept"))
    winner_seat = caller if g.team(caller) == team else (caller + 1) % 4
    by_seat = {s: c for s, c in zip(range(4), ["hearts/4", "spades/4", "diamonds/4", "clubs/5"])}
    by_seat[winner_seat] = "clubs/4"
    return play_seats(ref, by_seat)


def test_match_best_of_three_and_no_match_after() -> None:
    ref = new()
    out = win_game_by_ladder(ref, A)
    assert one(out, "game")["games"] == [1, 0]
    assert of(out, "score")[-1]["scores"] == [0, 0]
    out = win_game_by_ladder(ref, B)
    assert one(out, "game")["games"] == [1, 1]
    out = win_game_by_ladder(ref, B)
    assert one(out, "match") == {"judgment": "match", "winner": B}
    assert ref.snapshot()["finished"] and ref.snapshot()["match_winner"] == B
    rejected(ref, "no_match", event="card", seat=0, card="clubs/3")


def test_games_to_win_option() -> None:
    ref = new(games_to_win=1)
    out = win_game_by_ladder(ref, A)
    assert one(out, "match")["winner"] == A


def test_bad_options() -> None:
    ref = Referee()
    for opts in ({"truco_decides": "bet"}, {"games_to_win": "2"}, {"whatever": 1}):
        out = ref.feed_line(json.dumps({"event": "start", "game": "truco", "dealer": 0, "options": opts}))
        assert out[0]["code"] == "bad_event"
    out = ref.feed_line(json.dumps({"event": "start", "game": "truco", "dealer": 0, "players": 3}))
    assert out[0]["code"] == "bad_event"


# ----- §10 penalties ----------------------------------------------------------------------------
def test_penalty_both_below_eleven_s10_5() -> None:
    ref = new()
    out = ok(feed(ref, event="penalty", team=B, offence="illegal shuffling"))
    assert out[0] == {"judgment": "score", "scores": [1, 0]}
    assert turn(out)["seat"] == 0


def test_penalty_at_eleven_takes_from_offender_never_below_zero_s10_5() -> None:
    ref = new()
    set_scores(ref, 11, 1)
    out = ok(feed(ref, event="penalty", team=B, offence="calling truco"))
    assert out[0]["scores"] == [11, 0]
    out = ok(feed(ref, event="penalty", team=B, offence="calling truco"))
    assert out[0]["scores"] == [11, 0]
    out = ok(feed(ref, event="penalty", team=A, offence="showing cards"))
    assert out[0]["scores"] == [10, 0]
    assert game(ref).kind == "normal"          # the hand had not begun: no longer a hand of eleven


def test_negative_scores_option_s10_6() -> None:
    ref = new(negative_scores=True)
    set_scores(ref, 11, 0)
    out = ok(feed(ref, event="penalty", team=B, offence="calling truco"))
    assert out[0]["scores"] == [11, -1]


def test_penalty_mid_hand_keeps_the_hand_s10_6() -> None:
    ref = new()
    set_scores(ref, 10, 0)
    play(ref, "clubs/3")
    out = ok(feed(ref, event="penalty", team=B, offence="talking"))
    assert out[0]["scores"] == [11, 0] and game(ref).kind == "normal"
    assert turn(out) == {"judgment": "turn", "seat": 1, "expects": ["card", "call"]}


def test_surplus_card_penalty_s10_4() -> None:
    ref = new()
    rejected(ref, "not_allowed", event="penalty", team=A, offence="surplus_card")   # dealer is B
    ok(feed(ref, event="call", seat=0, call="truco"))
    ok(feed(ref, event="answer", seat=1, answer="accept"))
    out = ok(feed(ref, event="penalty", team=B, offence="surplus_card"))
    assert one(out, "hand") == {"judgment": "hand", "hand": 1, "winner": A, "points": 3, "reason": "penalty"}
    ref = new(surplus_award="one")
    ok(feed(ref, event="call", seat=0, call="truco"))
    ok(feed(ref, event="answer", seat=1, answer="accept"))
    assert one(ok(feed(ref, event="penalty", team=B, offence="surplus_card")), "hand")["points"] == 1


def test_bad_penalty_team() -> None:
    ref = new()
    rejected(ref, "bad_event", event="penalty", team=2, offence="x")


# ----- redeal, undo, unused events ------------------------------------------------------------------
def test_redeal_and_undo() -> None:
    ref = new()
    play(ref, "clubs/3", "clubs/2")
    before = state(ref)
    out = ok(feed(ref, event="redeal"))
    assert turn(out)["seat"] == 0 and game(ref).hand == 1 and game(ref).dealer == 3
    ok(feed(ref, event="undo"))
    assert state(ref) == before


def test_unused_events_rejected() -> None:
    ref = new()
    rejected(ref, "not_allowed", event="comanda", seat=0, text="più")
    rejected(ref, "not_allowed", event="discard", seat=0, cards=["clubs/3"])
    rejected(ref, "not_allowed", event="exchange", seat=0, give="clubs/3", take="clubs/2")
    rejected(ref, "bad_event", event="card", seat=4, card="clubs/3")
    rejected(ref, "bad_event", event="card", seat=0, card="clubs/3", face_down=True)


# ----- whole matches --------------------------------------------------------------------------
@pytest.mark.parametrize("options", [None, {"truco_decides": "hand"}, {"raise_in_extra_trick": True},
                                     {"games_to_win": 1, "negative_scores": True}])
def test_random_matches_are_judged_without_errors(options: dict | None) -> None:
    kinds: set[str] = set()
    reasons: set[str] = set()
    for seed in range(60):
        events = random_match(seed, options=options)
        ref = Referee()
        for ev in events:
            out = ref.feed_object(ev)
            assert not of(out, "error"), (seed, ev, out)
            reasons |= {j["reason"] for j in of(out, "hand")}
        assert ref.snapshot()["finished"]
        kinds |= {e["event"] for e in events}
        assert random_match(seed, options=options) == events          # deterministic
    assert {"start", "card", "call", "answer", "deal_option", "decide"} <= kinds
    assert {"tricks", "refused", "ran", "penalty"} <= reasons


def test_random_matches_cover_special_hands() -> None:
    kinds = set()
    face_down = 0
    for seed in range(40):
        events = random_match(seed)
        face_down += sum(1 for e in events if e.get("face_down"))
        ref = Referee()
        for ev in events:
            ref.feed_object(ev)
            kinds.add(game(ref).kind)
    assert kinds == {"normal", "eleven", "iron"} and face_down > 0


def test_throughput_is_reasonable() -> None:
    events = [e for seed in range(10) for e in random_match(seed)]
    ref = Referee()
    t = time.perf_counter()
    for ev in events:
        ref.feed_object(ev)
    assert len(events) / (time.perf_counter() - t) > 1000


# ----- hypothesis: random streams -------------------------------------------------------------
CARDS = list(deck("french-40").cards) + ["clubs/8", "nonsense"]
SEAT = st.integers(min_value=-1, max_value=4)
EVENT = st.one_of(
    st.builds(lambda s, c: {"event": "card", "seat": s, "card": c}, SEAT, st.sampled_from(CARDS)),
    st.builds(lambda s: {"event": "card", "seat": s, "face_down": True}, SEAT),
    st.builds(lambda s, c: {"event": "call", "seat": s, "call": c}, SEAT, st.sampled_from(["truco", "bid"])),
    st.builds(lambda s, a: {"event": "answer", "seat": s, "answer": a}, SEAT,
              st.sampled_from(["accept", "refuse", "raise", "no"])),
    st.builds(lambda s, d: {"event": "decide", "seat": s, "decision": d}, SEAT,
              st.sampled_from(["play", "run", "pass"])),
    st.builds(lambda s, o, cs: {"event": "deal_option", "seat": s, "option": o, **({"cards": cs} if cs else {})},
              SEAT, st.sampled_from(["keep", "pass", "burn", "x"]),
              st.one_of(st.none(), st.lists(st.sampled_from(CARDS), min_size=1, max_size=4))),
    st.builds(lambda t, o: {"event": "penalty", "team": t, "offence": o}, st.integers(-1, 2),
              st.sampled_from(["talking", "surplus_card"])),
    st.just({"event": "redeal"}),
    st.just({"event": "undo"}),
    st.just({"event": "card", "seat": 0}),
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 3), st.fixed_dictionaries({}, optional={"truco_decides": st.sampled_from(["trick", "hand"]),
                                                              "raise_in_extra_trick": st.booleans()}),
       st.lists(EVENT, max_size=120))
def test_random_streams_never_crash_and_replay(dealer: int, options: dict, events: list[J]) -> None:
    ref = Referee()
    ref.feed_object({"event": "start", "game": "truco", "dealer": dealer, "options": options})
    for ev in events:
        for j in ref.feed_object(ev):
            assert "internal error" not in j.get("message", ""), (ev, j)
            if j["judgment"] == "error":
                assert j["code"] in {"bad_event", "unknown_card", "not_in_deck", "duplicate_card",
                                     "out_of_turn", "not_allowed", "no_match"}
    replay = Referee()
    for ev in ref.accepted:
        assert not of(replay.feed_object(ev.raw), "error")
    assert replay.snapshot() == ref.snapshot()


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.data())
def test_random_match_prefix_with_noise(seed: int, data: st.DataObject) -> None:
    """Inject random bad events into a legal match: each is rejected or the state is valid."""
    events = random_match(seed)
    cut = data.draw(st.integers(1, len(events)))
    ref = Referee()
    for ev in events[:cut]:
        ok(ref.feed_object(ev))
    noise = data.draw(st.lists(EVENT, max_size=10))
    for ev in noise:
        before = state(ref)
        out = ref.feed_object(ev)
        if of(out, "error"):
            assert state(ref) == before


# ----- the real CLI -----------------------------------------------------------------------------
def cli(tmp_path, lines: list[J]) -> list[J]:
    path = tmp_path / "events.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in lines))
    done = subprocess.run([sys.executable, "-m", "controller.cli", "referee", str(path)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stderr == ""
    return [json.loads(x) for x in done.stdout.splitlines()]


def test_cli_s13_07_accept_current_trick(tmp_path) -> None:
    ev = [{"event": "start", "game": "truco", "dealer": 3}]
    ev += [{"event": "card", "seat": s, "card": c}
           for s, c in [(0, "clubs/3"), (1, "hearts/4"), (2, "spades/4"), (3, "diamonds/4"), (0, "hearts/5")]]
    ev += [{"event": "call", "seat": 1, "call": "truco"}, {"event": "answer", "seat": 2, "answer": "accept"}]
    ev += [{"event": "card", "seat": s, "card": c} for s, c in [(1, "clubs/4"), (2, "spades/5"), (3, "diamonds/5")]]
    out = cli(tmp_path, ev)
    hand = [j for j in out if j["judgment"] == "hand"]
    assert hand == [{"after": 10, "judgment": "hand", "hand": 1, "winner": 1, "points": 3, "reason": "tricks"}]
    assert {"after": 10, "judgment": "score", "scores": [0, 3]} in out


def test_cli_s13_10_illegal_raise(tmp_path) -> None:
    ev: list[J] = [{"event": "start", "game": "truco", "dealer": 3}]
    ev += [{"event": "penalty", "team": 0, "offence": "x"}] * 5 + [{"event": "penalty", "team": 1, "offence": "x"}] * 7
    ev += [{"event": "call", "seat": 0, "call": "truco"}, {"event": "answer", "seat": 1, "answer": "raise"},
           {"event": "answer", "seat": 2, "answer": "raise"}]
    out = cli(tmp_path, ev)
    last = [j for j in out if j["after"] == len(ev) - 1]
    assert [j["judgment"] for j in last] == ["error"] and last[0]["code"] == "not_allowed"
    assert {"after": 14, "judgment": "call", "seat": 1, "call": "truco", "stake": 6} in out


def test_cli_s13_06_run_and_bad_line(tmp_path) -> None:
    path = tmp_path / "e.jsonl"
    path.write_text('{"event":"start","game":"truco","dealer":3}\nnot json\n'
                    '{"event":"call","seat":0,"call":"truco"}\n{"event":"answer","seat":1,"answer":"refuse"}\n')
    done = subprocess.run([sys.executable, "-m", "controller.cli", "referee", str(path)],
                          capture_output=True, text=True, timeout=60)
    out = [json.loads(x) for x in done.stdout.splitlines()]
    assert out[2]["judgment"] == "error" and out[2]["code"] == "bad_event" and out[2]["after"] == 1
    assert {"after": 3, "judgment": "hand", "hand": 1, "winner": 0, "points": 1, "reason": "refused"} in out
