"""Vitou, rule by rule, with every worked example of shared/rules/vitou.md §12.

Players 1–4 of the spec sit clockwise from the dealer's left with player 4 dealing, so
player k is seat k-1 and the dealer is seat 3; team X (players 1+3) is team 0.
"""
from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.rules.referee import Referee
from controller.rules.engine import best_of_three as hand_winner
from controller.rules.vitou import strength
from tests.rules.helpers import assert_rejected, feed, kinds, only

X, Y = 0, 1


def new(dealer: int = 3, **options) -> Referee:
    ref = Referee()
    ev = {"event": "start", "game": "vitou", "dealer": dealer}
    if options:
        ev["options"] = options
    out = ref.feed_line(json.dumps(ev))
    assert "error" not in kinds(out), out
    return ref


def card(ref: Referee, seat: int, c: str) -> list[dict]:
    out = feed(ref, event="card", seat=seat, card=c)
    assert "error" not in kinds(out), out
    return out


def bid(ref: Referee, seat: int) -> dict:
    out = feed(ref, event="call", seat=seat, call="bid")
    assert "error" not in kinds(out), out
    return only(out, "call")


def trick(ref: Referee, plays: list[tuple[int, str]]) -> list[dict]:
    out: list[dict] = []
    for seat, c in plays:
        out = card(ref, seat, c)
    return out


def set_scores(ref: Referee, x: int, y: int) -> None:
    """Reach a score through the referee's own penalty events, then a fresh deal."""
    for _ in range(x):
        feed(ref, event="penalty", team=Y, offence="test set-up")
    for _ in range(y):
        feed(ref, event="penalty", team=X, offence="test set-up")
    assert ref.game.scores() == [x, y]
    feed(ref, event="redeal")


def test_ranking_and_example_1() -> None:
    order = ["7", "8", "jack", "queen", "king", "ace", "9", "10"]
    assert [strength(f"hearts/{r}") for r in order] == list(range(1, 9))
    ref = new()
    out = trick(ref, [(0, "spades/king"), (1, "diamonds/9"), (2, "hearts/ace"), (3, "clubs/10")])
    assert only(out, "trick") == {"judgment": "trick", "hand": 1, "trick": 1, "cards": [
        {"seat": 0, "card": "spades/king"}, {"seat": 1, "card": "diamonds/9"},
        {"seat": 2, "card": "hearts/ace"}, {"seat": 3, "card": "clubs/10"}], "winner": 3}
    assert out[-1] == {"judgment": "turn", "seat": 3, "expects": ["card", "call"]}


def test_example_2_tie_in_trick_1_leader_leads_again_and_trick_2_decides() -> None:
    ref = new()
    out = trick(ref, [(0, "spades/10"), (1, "hearts/10"), (2, "hearts/7"), (3, "clubs/8")])
    assert only(out, "trick")["winner"] is None
    assert out[-1]["seat"] == 0                       # player 1 led the tied trick
    out = trick(ref, [(0, "spades/7"), (1, "hearts/9"), (2, "clubs/7"), (3, "diamonds/8")])
    hand = only(out, "hand")
    assert hand == {"judgment": "hand", "hand": 1, "winner": Y, "points": 1, "reason": "tricks"}
    assert only(out, "score")["scores"] == [0, 1]


def play_example_3_to_trick_3(ref: Referee) -> None:
    trick(ref, [(0, "spades/10"), (1, "spades/7"), (2, "spades/8"), (3, "spades/jack")])
    card(ref, 0, "hearts/7")
    card(ref, 1, "hearts/10")
    assert bid(ref, 2)["stake"] == 3
    card(ref, 2, "hearts/8")
    assert_rejected(ref, "not_allowed", event="call", seat=3, call="bid")   # last to the trick
    card(ref, 3, "hearts/jack")


def test_example_3_seed_bidding() -> None:
    ref = new()
    play_example_3_to_trick_3(ref)
    assert ref.game.to_act() == (1, ["card", "call"])
    assert bid(ref, 1) == {"judgment": "call", "seat": 1, "call": "bid", "stake": 6}
    card(ref, 1, "diamonds/9")
    card(ref, 2, "diamonds/king")
    card(ref, 3, "diamonds/queen")
    assert_rejected(ref, "not_allowed", event="call", seat=0, call="bid")
    out = card(ref, 0, "diamonds/10")
    assert only(out, "hand") == {"judgment": "hand", "hand": 1, "winner": X, "points": 6, "reason": "tricks"}
    assert only(out, "score")["scores"] == [6, 0]
    assert out[-1]["seat"] == 1                       # dealer passed clockwise to seat 0; seat 1 leads


def test_example_4_refusal_of_3() -> None:
    ref = new()
    bid(ref, 0)
    card(ref, 0, "hearts/7")
    out = feed(ref, event="answer", seat=1, answer="refuse")
    assert only(out, "hand") == {"judgment": "hand", "hand": 1, "winner": X, "points": 1, "reason": "refused"}
    assert only(out, "score")["scores"] == [1, 0]


def test_example_5_refusal_of_12() -> None:
    ref = new()
    play_example_3_to_trick_3(ref)
    bid(ref, 1)
    card(ref, 1, "diamonds/9")
    assert bid(ref, 2)["stake"] == 12
    card(ref, 2, "diamonds/king")
    out = feed(ref, event="answer", seat=3, answer="refuse")
    assert only(out, "hand")["points"] == 6 and only(out, "hand")["winner"] == X


def test_example_6_illegal_bids() -> None:
    ref = new()
    bid(ref, 0)
    assert_rejected(ref, "not_allowed", event="call", seat=0, call="bid")   # must play first
    card(ref, 0, "hearts/7")
    assert_rejected(ref, "not_allowed", event="call", seat=1, call="12")    # no skipping
    card(ref, 1, "hearts/8")
    err = assert_rejected(ref, "not_allowed", event="call", seat=2, call="bid")
    assert "may not raise its own team's bid of 3" in err["message"]
    card(ref, 2, "hearts/9")
    err = assert_rejected(ref, "not_allowed", event="call", seat=3, call="bid")
    assert "last to this trick" in err["message"]
    # refusing is only for the player right after the bidder, before he plays
    assert_rejected(ref, "not_allowed", event="answer", seat=3, answer="refuse")


def test_only_the_next_player_may_refuse_and_only_before_playing() -> None:
    ref = new()
    bid(ref, 0)
    assert_rejected(ref, "out_of_turn", event="answer", seat=1, answer="refuse")  # bidder plays first
    card(ref, 0, "hearts/7")
    assert_rejected(ref, "out_of_turn", event="answer", seat=2, answer="refuse")
    assert ref.game.to_act() == (1, ["card", "call", "answer"])
    card(ref, 1, "hearts/8")                        # playing without answering accepts
    assert_rejected(ref, "not_allowed", event="answer", seat=2, answer="refuse")


def test_last_player_may_refuse_by_default_and_clubs_can_forbid_it() -> None:
    for allowed in (True, False):
        ref = new(last_player_may_refuse=allowed)
        card(ref, 0, "hearts/7")
        card(ref, 1, "hearts/8")
        bid(ref, 2)
        card(ref, 2, "hearts/9")
        if allowed:
            assert only(feed(ref, event="answer", seat=3, answer="refuse"), "hand")["points"] == 1
        else:
            assert_rejected(ref, "not_allowed", event="answer", seat=3, answer="refuse")


def test_example_7_tie_after_a_win() -> None:
    assert hand_winner([X, Y, None]) == (True, X)
    ref = new()
    trick(ref, [(0, "spades/10"), (1, "spades/7"), (2, "spades/8"), (3, "spades/jack")])
    trick(ref, [(0, "hearts/7"), (1, "hearts/10"), (2, "hearts/8"), (3, "hearts/jack")])
    out = trick(ref, [(1, "clubs/9"), (2, "diamonds/9"), (3, "clubs/7"), (0, "clubs/8")])
    assert only(out, "trick")["winner"] is None
    assert only(out, "hand")["winner"] == X


@pytest.mark.parametrize("results,expected", [
    ([X, X], (True, X)), ([None, X], (True, X)), ([X, None], (True, X)), ([X, Y, X], (True, X)),
    ([X, Y, Y], (True, Y)), ([X, Y, None], (True, X)), ([None, None, Y], (True, Y)),
    ([None, None, None], (True, None)), ([X, Y], (False, None)), ([None, None], (False, None)),
])
def test_tie_table(results, expected) -> None:
    assert hand_winner(results) == expected


def test_example_8_three_ties_with_12_standing() -> None:
    ref = new()
    bid(ref, 0); card(ref, 0, "spades/10")
    bid(ref, 1); card(ref, 1, "hearts/10")
    assert bid(ref, 2)["stake"] == 12
    card(ref, 2, "spades/7"); card(ref, 3, "spades/8")
    trick(ref, [(0, "spades/9"), (1, "hearts/9"), (2, "hearts/7"), (3, "hearts/8")])
    out = trick(ref, [(0, "spades/ace"), (1, "hearts/ace"), (2, "diamonds/7"), (3, "diamonds/8")])
    assert only(out, "hand") == {"judgment": "hand", "hand": 1, "winner": None, "points": 0, "reason": "tied"}
    assert only(out, "score")["scores"] == [0, 0]
    assert ref.game.dealer == 0 and out[-1]["seat"] == 1


def test_partners_equal_top_cards_win_for_their_team_or_tie_by_option() -> None:
    ref = new()
    out = trick(ref, [(0, "spades/10"), (1, "spades/7"), (2, "hearts/10"), (3, "spades/jack")])
    assert only(out, "trick")["winner"] == 0        # the earlier of the two partners
    ref = new(partners_tie="tie")
    out = trick(ref, [(0, "spades/10"), (1, "spades/7"), (2, "hearts/10"), (3, "spades/jack")])
    assert only(out, "trick")["winner"] is None


def test_example_9_one_team_at_20() -> None:
    ref = new()
    set_scores(ref, 20, 14)
    dealer = ref.game.dealer
    assert ref.game.to_act() == ((dealer + 1) % 4, ["decide"])
    assert_rejected(ref, "not_allowed", event="decide", seat=1, decision="play")   # Y may not decide
    assert_rejected(ref, "out_of_turn", event="card", seat=0, card="hearts/7")
    out = feed(ref, event="decide", seat=2, decision="run")    # either member of X
    assert only(out, "hand")["reason"] == "ran" and only(out, "score")["scores"] == [20, 15]
    # plays and loses: Y +3
    feed(ref, event="decide", seat=0, decision="play")
    leader = ref.game.leader
    assert_rejected(ref, "not_allowed", event="call", seat=leader, call="bid")    # no bidding at 20
    seats = [(leader + i) % 4 for i in range(4)]
    y_first = [s for s in seats if s % 2 == Y][0]
    plays = {s: ("hearts/10" if s == y_first else f"hearts/{r}") for s, r in zip(seats, ["7", "8", "9", "jack"])}
    trick(ref, [(s, plays[s]) for s in seats])
    lead = y_first
    seats = [(lead + i) % 4 for i in range(4)]
    out = trick(ref, [(s, ("spades/10" if s == lead else c)) for s, c in zip(seats, ["x", "spades/7", "spades/8", "spades/9"])])
    assert only(out, "hand")["winner"] == Y and only(out, "hand")["points"] == 3
    assert only(out, "score")["scores"] == [20, 18]


def test_example_9_team_at_20_plays_and_wins_the_game() -> None:
    ref = new()
    set_scores(ref, 20, 14)
    feed(ref, event="decide", seat=0, decision="play")
    leader = ref.game.leader
    seats = [(leader + i) % 4 for i in range(4)]
    x_first = [s for s in seats if s % 2 == X][0]
    trick(ref, [(s, "hearts/10" if s == x_first else c) for s, c in zip(seats, ["hearts/7", "hearts/8", "hearts/9", "hearts/jack"])])
    seats = [(x_first + i) % 4 for i in range(4)]
    out = trick(ref, [(s, c) for s, c in zip(seats, ["spades/10", "spades/7", "spades/8", "spades/9"])])
    scores = [j["scores"] for j in out if j["judgment"] == "score"]
    assert only(out, "hand")["points"] == 1 and scores[0] == [21, 14]
    assert only(out, "game") == {"judgment": "game", "winner": X, "games": [1, 0]}
    assert scores[-1] == [0, 0]                       # the next game starts at 0-0


def test_example_10_twenty_twenty() -> None:
    ref = new()
    set_scores(ref, 20, 20)
    d = ref.game.dealer
    p1, p2 = (d + 1) % 4, (d + 2) % 4
    assert ref.game.to_act() == (p1, ["decide"])
    assert_rejected(ref, "out_of_turn", event="decide", seat=p2, decision="play")
    feed(ref, event="decide", seat=p1, decision="pass")
    out = feed(ref, event="decide", seat=p2, decision="play")
    assert out[-1] == {"judgment": "turn", "seat": p1, "expects": ["card"]}     # no bidding
    seats = [(p1 + i) % 4 for i in range(4)]
    trick(ref, [(s, c) for s, c in zip(seats, ["hearts/10", "hearts/7", "hearts/8", "hearts/9"])])
    out = trick(ref, [(s, c) for s, c in zip(seats, ["spades/10", "spades/7", "spades/8", "spades/9"])])
    assert only(out, "game")["winner"] == p1 % 2


def test_twenty_twenty_all_pass_is_a_new_hand() -> None:
    ref = new()
    set_scores(ref, 20, 20)
    d = ref.game.dealer
    for i in range(1, 4):
        feed(ref, event="decide", seat=(d + i) % 4, decision="pass")
    out = feed(ref, event="decide", seat=d, decision="pass")
    assert only(out, "hand") == {"judgment": "hand", "hand": ref.game.hand - 1, "winner": None,
                                 "points": 0, "reason": "decided"}
    assert ref.game.dealer == (d + 1) % 4 and ref.game.phase == "pass20"


def barrac_over_12(ref: Referee) -> None:
    bid(ref, 0); card(ref, 0, "spades/7")
    bid(ref, 1); card(ref, 1, "spades/10")
    bid(ref, 2); card(ref, 2, "spades/8")
    card(ref, 3, "spades/9")                          # Y (seat 1) wins trick 1
    assert bid(ref, 1) == {"judgment": "call", "seat": 1, "call": "bid", "stake": "barrac"}
    card(ref, 1, "hearts/7")


def test_example_11_barrac_refused() -> None:
    ref = new()
    barrac_over_12(ref)
    out = feed(ref, event="answer", seat=2, answer="refuse")
    assert only(out, "hand") == {"judgment": "hand", "hand": 1, "winner": Y, "points": 12, "reason": "refused"}


def test_example_11_barrac_played_wins_the_game() -> None:
    ref = new()
    barrac_over_12(ref)
    assert_rejected(ref, "not_allowed", event="call", seat=2, call="bid")      # nothing above barrac
    out = trick(ref, [(2, "hearts/10"), (3, "hearts/8"), (0, "hearts/9")])
    assert only(out, "trick")["winner"] == 2
    out = trick(ref, [(2, "clubs/10"), (3, "clubs/8"), (0, "clubs/9"), (1, "clubs/7")])
    assert only(out, "hand") == {"judgment": "hand", "hand": 1, "winner": X, "points": 21, "reason": "tricks"}
    assert only(out, "game")["winner"] == X


def test_duplicate_cards_and_face_down_are_rejected() -> None:
    ref = new()
    card(ref, 0, "hearts/7")
    assert_rejected(ref, "duplicate_card", event="card", seat=1, card="7H")
    assert_rejected(ref, "not_allowed", event="card", seat=1, face_down=True)
    assert_rejected(ref, "out_of_turn", event="card", seat=3, card="hearts/8")
    assert_rejected(ref, "not_allowed", event="answer", seat=1, answer="accept")   # nothing to answer
    assert_rejected(ref, "not_allowed", event="decide", seat=1, decision="play")


def test_aliases_in_input_canonical_ids_out() -> None:
    ref = new()
    out = trick(ref, [(0, "KS"), (1, "9 of diamonds"), (2, "AH"), (3, "10C")])
    assert [c["card"] for c in only(out, "trick")["cards"]] == ["spades/king", "diamonds/9", "hearts/ace", "clubs/10"]


def test_match_of_games_and_deal_rotation() -> None:
    # points_to_win 2 (1 is no game at all, issue 17 point 5): the leader's team wins each hand
    ref = new(points_to_win=2, games_to_win=2, twenty_rules=False)
    dealers, games = [], []
    for _ in range(9):                                # hands X Y X | Y X Y | X Y X: games X, Y, X
        dealers.append(ref.game.dealer)
        lead = ref.game.leader
        seats = [(lead + i) % 4 for i in range(4)]
        trick(ref, [(s, c) for s, c in zip(seats, ["hearts/10", "hearts/7", "hearts/8", "hearts/9"])])
        out = trick(ref, [(s, c) for s, c in zip(seats, ["spades/10", "spades/7", "spades/8", "spades/9"])])
        games += [j["winner"] for j in out if j["judgment"] == "game"]
    assert dealers == [3, 0, 1, 2, 3, 0, 1, 2, 3] and games == [X, Y, X]
    assert only(out, "match") == {"judgment": "match", "winner": X}
    assert ref.game.finished and out[-1]["judgment"] == "match"   # no turn after the match


def test_random_matches_are_judged_without_a_single_error() -> None:
    from controller.sim import simulator
    for seed in range(40):
        ref = Referee()
        for ev in simulator("vitou")(seed):
            assert "error" not in kinds(ref.feed_object(ev)), (seed, ev)
        assert ref.game.finished


EVENT = st.fixed_dictionaries({"event": st.sampled_from(["card", "call", "answer", "decide", "undo", "redeal", "penalty"]),
                               "seat": st.integers(0, 4)}).flatmap(lambda d: st.fixed_dictionaries({
    **{k: st.just(v) for k, v in d.items()},
    "card": st.sampled_from(["hearts/7", "hearts/10", "spades/9", "clubs/ace", "diamonds/jack", "KH", "8C", "zz"]),
    "call": st.sampled_from(["bid", "truco"]),
    "answer": st.sampled_from(["accept", "refuse", "raise"]),
    "decision": st.sampled_from(["play", "run", "pass"]),
    "team": st.integers(0, 1), "offence": st.just("x")}))


def trim(ev: dict) -> dict:
    keep = {"card": ["seat", "card"], "call": ["seat", "call"], "answer": ["seat", "answer"],
            "decide": ["seat", "decision"], "penalty": ["team", "offence"], "undo": [], "redeal": []}
    return {"event": ev["event"], **{k: ev[k] for k in keep[ev["event"]]}}


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(EVENT.map(trim), max_size=60), st.integers(0, 3))
def test_random_streams_never_raise_and_replay_reproduces_the_state(events, dealer) -> None:
    ref = Referee()
    ref.feed_object({"event": "start", "game": "vitou", "dealer": dealer})
    for ev in events:
        before = json.dumps(ref.snapshot())
        out = ref.feed_object(ev)
        if "error" in kinds(out):
            assert json.dumps(ref.snapshot()) == before
    replay = Referee()
    for ev in ref.accepted:
        assert "error" not in kinds(replay.feed(ev))
    assert replay.snapshot() == ref.snapshot()
