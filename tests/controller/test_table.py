"""The table loop without threads: step() with fake vision, a NullLink and mock LEDs."""
from __future__ import annotations

import json

import pytest
from gpiozero.pins.mock import MockFactory

from controller.journal import Journal, read_records
from controller.leds import GpioPanel
from controller.mqtt import NullLink
from controller.table import Table
from controller.tablestate import TableState
from .helpers import Clock, Ev, FakeVision, cmd

START = {"event": "start", "game": "vitou", "dealer": 3, "players": 4}


def make(tmp_path, name="t.journal"):
    clock = Clock()
    factory = MockFactory()
    panel = GpioPanel([5, 6, 13, 19], [17, 27, 22, 23], {"ok": 24, "confirm": 25, "fault": 12},
                      clock=clock, pin_factory=factory)
    vision = FakeVision()
    link = NullLink()
    t = Table(Journal(tmp_path / name), link, table_id="t1", names=["A", "B", "C", "D"], start_event=START,
              panels=[panel], vision=vision, min_confidence=0.8, clock=clock)
    t.open()
    return t, vision, link, factory, clock


def test_start_and_a_card_from_vision(tmp_path):
    t, vision, link, factory, _ = make(tmp_path)
    assert link.state["game"] == "vitou" and link.state["seq"] == 1
    assert factory.pin(5).state is True           # seat 0 to play: its LED is lit
    vision.queue.append(Ev("placed", 0, "hearts/king", 0.97))
    t.step()
    assert link.state["detail"]["current_trick"] == [{"seat": 0, "card": "hearts/king"}]
    assert link.state["seq"] == 2
    assert [e["judgment"] for e in link.events if e["seq"] == 2] == ["turn"]
    assert factory.pin(6).state is True and factory.pin(5).state is False


def test_low_confidence_card_asks_and_button_confirms(tmp_path):
    t, vision, link, factory, clock = make(tmp_path)
    vision.queue.append(Ev("placed", 0, "hearts/king", 0.4))
    t.step()
    assert link.state["pending"]["reason"] == "low_confidence"
    assert link.state["status"] == "confirm"
    assert link.alerts[-1]["code"] == "confirm_card" and link.alerts[-1]["seat"] == 0
    assert link.state["detail"]["current_trick"] == []          # not judged silently
    # the confirm LED blinks, and so does seat 0's
    states = []
    for _ in range(4):
        clock.t += 0.25
        t.step()
        states.append((factory.pin(5).state, factory.pin(25).state))
    assert {s[0] for s in states} == {True, False} and {s[1] for s in states} == {True, False}
    # seat 0 presses short: confirmed
    factory.pin(17).drive_low(); clock.t += 0.1; factory.pin(17).drive_high()
    t.step()
    assert link.state["pending"] is None and link.state["status"] == "ok"
    assert link.state["detail"]["current_trick"] == [{"seat": 0, "card": "hearts/king"}]


def test_impossible_cards_wait_for_the_referee(tmp_path):
    t, vision, link, _, _ = make(tmp_path)
    vision.queue.append(Ev("placed", 0, "hearts/king"))
    t.step()
    vision.queue += [Ev("placed", 1, "hearts/king"), Ev("placed", 1, "clubs/9")]   # already played
    t.step()
    assert link.state["pending"]["reason"] == "duplicate_card"
    assert link.state["detail"]["current_trick"] == [{"seat": 0, "card": "hearts/king"}]
    # the second card waits while the first is pending; the referee corrects over MQTT
    t.link.inbox.append(cmd("confirm", id="c1", card="spades/ace"))
    t.step()
    assert link.results[-1] == {"id": "c1", "ok": True, "error": None, "verb": "confirm", "seq": 4}
    cards = link.state["detail"]["current_trick"]
    assert cards[1] == {"seat": 1, "card": "spades/ace"}
    # then the held event (seat 1 again) is out of turn: pending again, rejected by the referee
    assert link.state["pending"]["reason"] == "out_of_turn"
    t.link.inbox.append(cmd("reject", id="c2"))
    t.step()
    assert link.state["pending"] is None and link.results[-1]["ok"] is True


def test_not_in_deck_and_unidentified(tmp_path):
    t, vision, link, _, _ = make(tmp_path)
    vision.queue.append(Ev("placed", 0, "hearts/2", 0.99))     # French-32 has no 2
    t.step()
    assert link.state["pending"]["reason"] == "not_in_deck"
    t.link.inbox.append(cmd("reject", id="r"))
    vision.queue.append(Ev("needs_confirmation", 0, None, 0.2))
    t.step()
    assert link.state["pending"] == {"seat": 0, "card": None, "confidence": 0.2, "reason": "low_confidence"}
    t.link.inbox.append(cmd("confirm", id="x"))                  # no card given: refused
    t.step()
    assert link.results[-1]["ok"] is False and link.results[-1]["error"].startswith("bad_command")
    t.link.inbox.append(cmd("confirm", id="y", card="clubs/9"))
    t.step()
    assert link.results[-1]["ok"] and t.vision.confirmed == [(0, "clubs/9")]


@pytest.mark.parametrize("payload", [b"not json", b"[1,2]", b'{"no":"id"}', b'{"id": 5}', b'{"id": ""}',
                                     b'{"id":"' + b"x" * 65 + b'"}', b'{"id":"a","event":"card"}',
                                     b'{"id":"b","event":{"event":"card","seat":9,"card":"hearts/7"}}',
                                     b'{"id":"c","bogus":1}', b"\xff\xfe", b"[" * 5000])
def test_malformed_commands_never_crash_and_change_nothing(tmp_path, payload):
    t, _, link, _, _ = make(tmp_path)
    before = json.dumps(t.ts.state())
    t.link.inbox += [("event", payload), ("nosuchverb", payload)]
    t.step()
    assert json.dumps(t.ts.state()) == before
    assert len(link.results) == 2 and all(r["ok"] is False for r in link.results)


def test_duplicate_and_replayed_commands_apply_once(tmp_path):
    t, _, link, _, _ = make(tmp_path)
    call = cmd("event", id="same", event={"event": "call", "seat": 0, "call": "bid"})
    t.link.inbox += [call, call]
    t.step()
    assert link.results[0]["ok"] and "duplicate" not in link.results[0]
    assert link.results[1]["duplicate"] is True and link.results[1]["ok"]
    assert sum(1 for e in link.events if e["judgment"] == "call") == 1
    seq = t.ts.seq
    t.journal.close()
    # replayed after a restart: still applied once (ids are in the journal)
    t2, _, link2, _, _ = make(tmp_path)
    t2.link.inbox.append(call)
    t2.step()
    assert link2.results[-1]["duplicate"] is True and t2.ts.seq == seq
    # a rejected command's id is remembered too
    bad = cmd("event", id="bad", event={"event": "card", "seat": 3, "card": "hearts/7"})
    t2.link.inbox += [bad, bad]
    t2.step()
    assert [r["ok"] for r in link2.results[-2:]] == [False, False] and link2.results[-1]["duplicate"]


def test_undo_and_start_commands_are_journalled(tmp_path):
    t, vision, link, _, _ = make(tmp_path)
    vision.queue.append(Ev("placed", 0, "hearts/king"))
    t.step()
    t.link.inbox.append(cmd("undo", id="u"))
    t.step()
    assert link.state["detail"]["current_trick"] == []
    t.link.inbox.append(cmd("start", id="s", dealer=1))
    t.step()
    assert link.state["dealer"] == 1
    recs, _ = read_records(tmp_path / "t.journal")
    assert [r.get("cmd", {}).get("id") for r in recs if "cmd" in r] == ["u", "s"]


def test_button_calls_per_game(tmp_path):
    t, vision, link, factory, clock = make(tmp_path)
    factory.pin(17).drive_low(); clock.t += 0.2; factory.pin(17).drive_high()   # seat 0 short: bid
    t.step()
    assert [e for e in link.events if e["judgment"] == "call"][0]["seat"] == 0
    vision.queue.append(Ev("placed", 0, "hearts/king"))                        # the bidder plays first
    t.step()
    factory.pin(27).drive_low(); clock.t += 1.5; factory.pin(27).drive_high()   # seat 1 long: refuse
    t.step()
    assert any(e["judgment"] == "hand" and e["reason"] == "refused" for e in link.events)


def test_camera_fault_is_shown_and_cleared(tmp_path):
    t, vision, link, factory, _ = make(tmp_path)
    vision.fault = "camera: no frame"
    t.step()
    assert link.state["status"] == "fault" and link.state["fault"]["code"] == "camera_lost"
    assert factory.pin(12).state is True and factory.pin(24).state is False
    assert link.alerts[-1]["code"] == "camera_lost"
    vision.fault = None
    vision.queue.append(Ev("placed", 0, "hearts/king"))
    t.step()
    assert link.state["status"] == "ok" and link.state["fault"] is None
    assert link.state["detail"]["current_trick"] == [{"seat": 0, "card": "hearts/king"}]


def test_restart_gives_the_same_state_and_ignores_cards_already_judged(tmp_path):
    t, vision, link, _, _ = make(tmp_path)
    vision.queue += [Ev("placed", 0, "hearts/king"), Ev("placed", 1, "hearts/7", 0.3)]
    t.step()
    before = t.ts.state()
    t.journal.close()
    t2, vision2, link2, _, _ = make(tmp_path)
    assert t2.ts.state() == before and link2.state == before
    # a fresh camera sees the card on the table again: no news, no alert
    vision2.queue.append(Ev("placed", 0, "hearts/king"))
    t2.step()
    assert t2.ts.state() == before


def test_journal_comes_before_publishing(tmp_path):
    t, vision, link, _, _ = make(tmp_path)
    seen = []
    orig = link.publish_state

    def spy(state):
        recs, _ = read_records(tmp_path / "t.journal")
        seen.append((state["seq"], len([r for r in recs if r.get("r") not in ("cmd", "meta")])))
        orig(state)
    link.publish_state = spy
    vision.queue += [Ev("placed", 0, "hearts/king"), Ev("placed", 1, "hearts/7")]
    t.step()
    assert seen and all(seq == n for seq, n in seen)


def test_tablestate_is_a_pure_fold(tmp_path):
    t, vision, _, _, _ = make(tmp_path)
    vision.queue += [Ev("placed", 0, "hearts/king"), Ev("placed", 1, "hearts/7", 0.1)]
    t.step()
    ts = TableState("t1", ["A", "B", "C", "D"])
    for r in read_records(tmp_path / "t.journal")[0]:
        ts.apply(r)
    assert ts.state() == t.ts.state()


from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402

JSONISH = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=8),
                       lambda c: st.lists(c, max_size=4) | st.dictionaries(st.text(max_size=8), c, max_size=4),
                       max_leaves=12)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(verb=st.sampled_from(["event", "confirm", "reject", "undo", "start", "x", ""]),
       body=st.one_of(st.binary(max_size=40), JSONISH.map(lambda v: json.dumps(v).encode()),
                      st.fixed_dictionaries({"id": st.text(min_size=1, max_size=8)}, optional={
                          "event": JSONISH, "card": JSONISH, "seat": JSONISH, "game": JSONISH,
                          "dealer": JSONISH}).map(lambda v: json.dumps(v).encode())))
def test_any_command_payload_is_answered_never_raises(tmp_path_factory, verb, body):
    t, _, link, _, _ = make(tmp_path_factory.mktemp("h"))
    before = t.ts.seq
    result = t.on_command(verb, body)
    assert result["ok"] in (True, False) and link.results[-1] is result
    if not result["ok"]:
        assert t.ts.seq == before
    t.journal.close()
