"""The referee contract (CONTRACT §3) common to every game: input validation, error
judgments that change nothing, ``after``, undo, no_match, and the CLI."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from controller.rules.referee import Referee
from tests.rules.helpers import assert_rejected, feed, kinds

CONTRACT_EVENTS = """{"event":"start","game":"vitou","dealer":3}
{"event":"card","seat":0,"card":"hearts/king"}
{"event":"card","seat":0,"card":"hearts/9"}
"""
CONTRACT_JUDGMENTS = """{"after":0,"judgment":"score","scores":[0,0]}
{"after":0,"judgment":"turn","seat":0,"expects":["card","call"]}
{"after":1,"judgment":"turn","seat":1,"expects":["card","call"]}
{"after":2,"judgment":"error","code":"out_of_turn","message":"seat 1 is to play, not seat 0"}
"""


def run_cli(stdin: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "controller.cli", "referee", *args], input=stdin,
                          capture_output=True, text=True, timeout=60)


def test_contract_example_byte_for_byte() -> None:
    done = run_cli(CONTRACT_EVENTS)
    assert done.returncode == 0 and done.stderr == ""
    assert done.stdout == CONTRACT_JUDGMENTS


def test_reads_a_file_argument(tmp_path: Path) -> None:
    f = tmp_path / "m.jsonl"
    f.write_text(CONTRACT_EVENTS)
    assert run_cli("", str(f)).stdout == CONTRACT_JUDGMENTS


def test_missing_file_is_one_clear_line() -> None:
    done = run_cli("", "/nonexistent/x.jsonl")
    assert done.returncode == 2 and "cannot read /nonexistent/x.jsonl" in done.stderr
    assert "Traceback" not in done.stderr


def test_garbage_never_tracebacks_and_exits_zero() -> None:
    junk = "\n".join(["{", "[]", "null", '"x"', "42", '{"event":7}', "\x00\x01", '{"event":"card"}',
                      '{"event":"start","game":"vitou","dealer":"3"}', "{" * 5000]) + "\n"
    done = run_cli(junk)
    assert done.returncode == 0 and "Traceback" not in done.stderr
    lines = [json.loads(x) for x in done.stdout.splitlines()]
    assert [j["after"] for j in lines] == list(range(10))
    assert all(j["judgment"] == "error" and j["code"] == "bad_event" for j in lines)


def test_deterministic_output() -> None:
    from controller.sim import simulator
    events = "".join(json.dumps(e) + "\n" for e in simulator("vitou")(7))
    assert run_cli(events).stdout == run_cli(events).stdout


@pytest.mark.parametrize("line,code,words", [
    ("not json", "bad_event", "not valid JSON"),
    ('{"seat":0}', "bad_event", 'missing "event"'),
    ('{"event":"dance"}', "bad_event", "unknown event 'dance'"),
    ('{"event":"card","seat":"0","card":"hearts/9"}', "bad_event", '"seat" must be a integer'),
    ('{"event":"card","seat":true,"card":"hearts/9"}', "bad_event", '"seat" must be a integer'),
    ('{"event":"card","seat":0}', "bad_event", 'needs a "card" field'),
    ('{"event":"card","seat":0,"card":"hearts/9","face_down":true}', "bad_event", "either"),
    ('{"event":"card","seat":9,"card":"hearts/9"}', "bad_event", "seat 9 does not exist"),
    ('{"event":"card","seat":0,"card":"hearts/11"}', "unknown_card", "'hearts/11' is not a card id"),
    ('{"event":"card","seat":0,"card":"coins/knight"}', "not_in_deck", "not a card of the french-32 deck"),
    ('{"event":"penalty","team":5,"offence":"x"}', "bad_event", "team 5 does not exist"),
    ('{"event":"comanda","seat":0,"text":"più"}', "not_allowed", "not used in vitou"),
])
def test_bad_input_is_an_error_and_changes_nothing(line: str, code: str, words: str) -> None:
    ref = Referee()
    feed(ref, event="start", game="vitou", dealer=3)
    before = json.dumps(ref.snapshot())
    out = ref.feed_line(line)
    assert kinds(out) == ["error"] and out[0]["code"] == code, out
    assert words in out[0]["message"]
    assert json.dumps(ref.snapshot()) == before


@pytest.mark.parametrize("extra", [{"ts": 1}, {"id": "tab-7", "colour": "red"}, {"event_id": None, "seat2": [1]}])
def test_unknown_fields_are_accepted_and_ignored(extra: dict) -> None:
    """A tablet that stamps events with a time or an id works (docs/contract-extensions.md)."""
    plain, stamped = Referee(), Referee()
    for ref, more in ((plain, {}), (stamped, extra)):
        assert kinds(feed(ref, event="start", game="truco", dealer=3, **more)) == ["score", "turn"]
        out = feed(ref, event="card", seat=0, card="hearts/2", **more)
        assert "error" not in kinds(out), out
    assert plain.snapshot() == stamped.snapshot()


@pytest.mark.parametrize("line,words", [
    ('{"event":"card","card":"hearts/9","ts":1}', 'needs a "seat" field'),
    ('{"event":"card","seat":"0","card":"hearts/9","ts":1}', '"seat" must be a integer'),
    ('{"event":"penalty","team":0,"offence":7,"id":"x"}', '"offence" must be a string'),
])
def test_missing_or_wrongly_typed_fields_stay_bad_event_beside_unknown_ones(line: str, words: str) -> None:
    ref = Referee()
    feed(ref, event="start", game="vitou", dealer=3)
    out = ref.feed_line(line)
    assert kinds(out) == ["error"] and out[0]["code"] == "bad_event" and words in out[0]["message"], out


@pytest.mark.parametrize("start,words", [
    ({"game": "poker", "dealer": 0}, "unknown game 'poker'"),
    ({"game": "vitou", "dealer": 4}, "dealer 4 does not exist"),
    ({"game": "vitou", "dealer": 0, "players": 3}, "vitou is played by 4 players, not 3"),
    ({"game": "vitou", "dealer": 0, "options": {"points_to_win": "x"}}, "must be a int"),
    ({"game": "vitou", "dealer": 0, "options": {"colour": 1}}, "unknown vitou option(s): colour"),
    ({"game": "vitou", "dealer": 0, "options": {"partners_tie": "maybe"}}, "must be one of"),
])
def test_bad_start(start: dict, words: str) -> None:
    out = feed(Referee(), event="start", **start)
    assert kinds(out) == ["error"] and out[0]["code"] == "bad_event" and words in out[0]["message"]


def test_events_before_start_and_after_the_match_are_no_match() -> None:
    ref = Referee()
    assert_rejected(ref, "no_match", event="card", seat=0, card="hearts/9")
    assert_rejected(ref, "no_match", event="undo")
    from controller.sim import simulator
    for ev in simulator("vitou")(3):
        assert "error" not in kinds(ref.feed_object(ev))
    assert ref.game is not None and ref.game.finished
    assert_rejected(ref, "no_match", event="card", seat=0, card="hearts/9")
    # undo takes back the card that ended the match
    out = feed(ref, event="undo")
    assert kinds(out)[0] == "score" and not ref.game.finished


def test_undo_replays_all_but_the_last_event() -> None:
    ref = Referee()
    feed(ref, event="start", game="vitou", dealer=3)
    s0 = ref.snapshot()
    feed(ref, event="card", seat=0, card="hearts/king")
    s1 = ref.snapshot()
    feed(ref, event="call", seat=1, call="bid")
    assert feed(ref, event="undo") == [{"judgment": "score", "scores": [0, 0]},
                                       {"judgment": "turn", "seat": 1, "expects": ["card", "call"]}]
    assert ref.snapshot() == s1
    feed(ref, event="undo")
    assert ref.snapshot() == s0
    assert feed(ref, event="undo") == []     # the start itself
    assert ref.game is None


def test_undo_far_into_a_match_uses_checkpoints_correctly() -> None:
    from controller.sim import simulator
    events = simulator("vitou")(11)
    ref, snaps = Referee(), []
    for ev in events:
        ref.feed_object(ev)
        snaps.append(ref.snapshot())
    for k in range(len(events) - 1, len(events) - 150, -1):
        feed(ref, event="undo")
        assert ref.snapshot() == snaps[k - 1]


def test_help_lists_every_subcommand() -> None:
    done = subprocess.run([sys.executable, "-m", "controller.cli", "--help"], capture_output=True, text=True)
    for name in ("demo", "referee", "comanda", "enrol", "recognise", "track", "run", "replay", "board"):
        assert f"\n  {name} " in done.stdout


def test_undo_after_an_accidental_start_brings_the_match_back_exactly() -> None:
    from controller.sim import simulator
    events = simulator("vitou")(11)
    half = len(events) // 2
    clean, ref = Referee(), Referee()
    for ev in events[:half]:
        clean.feed_object(ev)
        ref.feed_object(ev)
    before = json.dumps(ref.snapshot())
    assert kinds(feed(ref, event="start", game="truco", dealer=0)) == ["score", "turn"]
    assert ref.snapshot()["game"] == "truco"
    out = feed(ref, event="undo")
    assert json.dumps(ref.snapshot()) == before
    assert out == [clean.game.score_judgment(), *clean.game.turn_judgments()]
    for ev in events[half:]:                        # the rest of the match judges as if nothing happened
        assert ref.feed_object(ev) == clean.feed_object(ev)
    assert ref.game.finished and ref.snapshot() == clean.snapshot()
    assert [e.raw for e in ref.accepted] == [e.raw for e in clean.accepted]


def test_undoing_two_starts_in_a_row_and_the_first_start() -> None:
    ref = Referee()
    feed(ref, event="start", game="vitou", dealer=3)
    feed(ref, event="card", seat=0, card="hearts/9")
    first = json.dumps(ref.snapshot())
    feed(ref, event="start", game="truco", dealer=0)
    feed(ref, event="start", game="troccas", dealer=0)
    feed(ref, event="undo")
    assert ref.snapshot()["game"] == "truco"
    feed(ref, event="undo")
    assert json.dumps(ref.snapshot()) == first
    feed(ref, event="undo")
    assert feed(ref, event="undo") == []            # back before the first start: no match
    assert ref.game is None
    assert_rejected(ref, "no_match", event="undo")
