"""A penalty re-decides a hand that has not begun (the engine's one mechanism, used by
Vitou §7 and Truco §8); a hand under way keeps the kind and stake it is played for."""
from __future__ import annotations

import json

from controller.rules.referee import Referee
from tests.rules.helpers import feed, kinds, only

X, Y = 0, 1


def start(game: str, dealer: int = 3, **options: object) -> Referee:
    ref = Referee()
    ev: dict = {"event": "start", "game": game, "dealer": dealer}
    if options:
        ev["options"] = options
    assert "error" not in kinds(ref.feed_line(json.dumps(ev)))
    return ref


def ok(ref: Referee, **event: object) -> list[dict]:
    out = feed(ref, **event)
    assert "error" not in kinds(out), (event, out)
    return out


def penalties(ref: Referee, offender: int, n: int) -> list[dict]:
    out: list[dict] = []
    for _ in range(n):
        out = ok(ref, event="penalty", team=offender, offence="talking")
    return out


def vitou_y_wins_from(ref: Referee, first_card_done: bool = False) -> list[dict]:
    """Seat 0 leads (dealer 3); seat 1 (team Y) wins two tricks with tens."""
    out: list[dict] = []
    if not first_card_done:
        out = ok(ref, event="card", seat=0, card="hearts/7")
    for seat, c in ((1, "hearts/10"), (2, "hearts/8"), (3, "hearts/9")):
        out = ok(ref, event="card", seat=seat, card=c)
    for seat, c in ((1, "spades/10"), (2, "spades/7"), (3, "spades/8"), (0, "spades/9")):
        out = ok(ref, event="card", seat=seat, card=c)
    return out


def test_vitou_issue_example_penalty_of_20_before_the_hand_asks_team_0_to_decide() -> None:
    ref = start("vitou", penalty_points=20)
    out = ok(ref, event="penalty", team=Y, offence="renege")
    assert only(out, "score")["scores"] == [20, 0]
    assert out[-1] == {"judgment": "turn", "seat": 0, "expects": ["decide"],
                       "others": [{"seat": 2, "expects": ["decide"]}]}
    assert ref.game.detail()["kind"] == "twenty"
    ok(ref, event="decide", seat=0, decision="play")
    out = vitou_y_wins_from(ref)
    hand = only(out, "hand")
    assert (hand["winner"], hand["points"]) == (Y, 3)            # §7.1: plays and loses, +3
    assert only(out, "score")["scores"] == [20, 3] and "game" not in kinds(out)


def test_vitou_twenty_one_point_penalties_before_the_hand() -> None:
    ref = start("vitou")
    out = penalties(ref, Y, 20)
    assert out[-1] == {"judgment": "turn", "seat": 0, "expects": ["decide"],
                       "others": [{"seat": 2, "expects": ["decide"]}]}
    out = ok(ref, event="decide", seat=2, decision="run")
    assert only(out, "hand")["reason"] == "ran" and only(out, "score")["scores"] == [20, 1]


def test_vitou_penalty_to_20_mid_hand_keeps_the_hand_at_1_point() -> None:
    ref = start("vitou")
    penalties(ref, Y, 19)
    penalties(ref, X, 10)
    ok(ref, event="card", seat=0, card="hearts/7")               # the hand has begun
    out = ok(ref, event="penalty", team=Y, offence="talking")
    assert only(out, "score")["scores"] == [20, 10]
    assert out[-1] == {"judgment": "turn", "seat": 1, "expects": ["card"]}   # §7.1.1: no bid now
    out = vitou_y_wins_from(ref, first_card_done=True)
    assert only(out, "hand")["points"] == 1 and only(out, "score")["scores"] == [20, 11]
    assert out[-1]["expects"] == ["decide"]                       # the next hand is a §7.1 hand


def test_vitou_penalty_to_20_mid_hand_with_6_standing_scores_6_not_the_game() -> None:
    ref = start("vitou")
    penalties(ref, Y, 19)
    penalties(ref, X, 10)
    ok(ref, event="call", seat=0, call="bid")                    # 3
    ok(ref, event="card", seat=0, card="hearts/7")
    ok(ref, event="answer", seat=1, answer="raise")              # 6
    ok(ref, event="penalty", team=Y, offence="talking")
    out = vitou_y_wins_from(ref, first_card_done=True)
    hand = only(out, "hand")
    assert (hand["winner"], hand["points"]) == (Y, 6) and "game" not in kinds(out)
    assert only(out, "score")["scores"] == [20, 16]


def test_vitou_twenty_twenty_by_penalty_starts_the_pass_round() -> None:
    ref = start("vitou")
    penalties(ref, Y, 20)
    out = penalties(ref, X, 20)
    assert only(out, "score")["scores"] == [20, 20]
    assert out[-1] == {"judgment": "turn", "seat": 0, "expects": ["decide"]}
    assert ref.game.detail()["phase"] == "pass20"
    ok(ref, event="decide", seat=0, decision="pass")
    ok(ref, event="decide", seat=1, decision="play")              # team 1 may play too


def test_vitou_penalty_after_the_team_at_20_chose_to_play_keeps_the_hand() -> None:
    ref = start("vitou")
    penalties(ref, Y, 20)
    penalties(ref, X, 19)
    ok(ref, event="decide", seat=0, decision="play")
    out = ok(ref, event="penalty", team=X, offence="talking")     # 20-20 mid-hand
    assert out[-1] == {"judgment": "turn", "seat": 0, "expects": ["card"]}
    out = vitou_y_wins_from(ref)
    assert only(out, "hand")["points"] == 3                       # still the §7.1 hand: +3


def test_truco_penalty_before_the_hand_makes_it_a_hand_of_eleven() -> None:
    ref = start("truco")
    out = penalties(ref, Y, 11)
    assert only(out, "score")["scores"] == [11, 0]
    assert ref.game.detail()["kind"] == "eleven"
    assert out[-1]["expects"] == ["decide"]


def test_truco_penalty_mid_hand_keeps_the_hand_kind() -> None:
    ref = start("truco")
    penalties(ref, Y, 10)
    mao = ref.game.mao
    ok(ref, event="card", seat=mao, card="hearts/4")
    ok(ref, event="penalty", team=Y, offence="talking")
    assert ref.game.scores() == [11, 0] and ref.game.detail()["kind"] == "normal"
