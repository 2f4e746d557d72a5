"""The table loop without threads: step() with fake vision, a NullLink and mock LEDs."""
from __future__ import annotations

import copy
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


# ----- after a restart: matched by seat AND card, the rest judged (issue 16 item 3) ------
from controller.sim import simulator  # noqa: E402
from controller.limits import MAX_COMMAND_BYTES, MAX_INPUT_DEPTH, json_depth  # noqa: E402
from controller.table import MAX_JUDGED  # noqa: E402
from controller.tablestate import FACE_DOWN, MAX_SEEN  # noqa: E402


def one_trick(t, vision) -> list[tuple[int, str]]:
    plays = [(0, "hearts/king"), (1, "hearts/7"), (2, "hearts/8"), (3, "hearts/9")]
    vision.queue += [Ev("placed", s, c) for s, c in plays]
    t.step()
    assert t.ts.last_trick and len(t.ts.last_trick["cards"]) == 4
    return plays


def restarted(tmp_path, t):
    t.journal.close()
    return make(tmp_path)


def test_after_restart_a_new_face_down_or_unsure_card_of_a_last_trick_seat_is_judged(tmp_path):
    t, vision, link, _, _ = make(tmp_path)
    one_trick(t, vision)
    winner = t.ts.last_trick["winner"]
    t2, vision2, link2, _, _ = restarted(tmp_path, t)
    before = t2.ts.seq
    vision2.queue.append(Ev("placed", winner, None, 0.9, face_up=False))     # a new play, face down
    t2.step()
    assert t2.ts.seq == before + 1 and t2.ts.pending["seat"] == winner       # not swallowed: asked
    assert t2.ts.pending["reason"] == "not_allowed" and link2.alerts[-1]["code"] == "confirm_card"
    t2.on_command(*cmd("reject", id="r1"))
    vision2.queue.append(Ev("placed", winner, "spades/7", 0.5))             # a new play, read badly
    t2.step()
    assert t2.ts.pending == {"seat": winner, "card": "spades/7", "confidence": 0.5, "reason": "low_confidence"}
    assert [a["code"] for a in t2.ts.alerts].count("confirm_card") == 1


def test_after_restart_cards_seen_again_are_matched_by_seat_and_card(tmp_path):
    t, vision, link, _, _ = make(tmp_path)
    one_trick(t, vision)
    lead = t.ts.turn()[0]
    vision.queue.append(Ev("placed", lead, "spades/king"))
    t.step()
    t2, vision2, link2, _, _ = restarted(tmp_path, t)
    state = t2.ts.state()
    assert (lead, "spades/king") in t2._restored and "spades/king" in t2.ts.candidates()   # vision may read it
    # the current trick's card, seen again only with low confidence: the same card by seat and id
    vision2.queue.append(Ev("placed", lead, "spades/king", 0.4))
    # a last-trick card still lying there, read right
    vision2.queue.append(Ev("placed", 1, "hearts/7"))
    t2.step()
    assert t2.ts.state() == state and link2.alerts == []                     # no spurious confirmation
    assert vision2.confirmed == [(lead, "spades/king")]
    # the same card id at another seat is not the card the journal has there
    vision2.queue.append(Ev("placed", (lead + 2) % 4, "hearts/8", 0.95))
    t2.step()
    assert t2.ts.pending is not None and t2.ts.pending["reason"] != "low_confidence"


def test_a_face_down_card_judged_before_a_restart_is_recognised_again(tmp_path):
    match = simulator("truco")(5)
    k = next(i for i, e in enumerate(match) if e.get("face_down"))
    start = dict(match[0], players=4)
    t = Table(Journal(tmp_path / "f.journal"), NullLink(), table_id="t1", start_event=start,
              vision=FakeVision())
    t.open()
    for i, ev in enumerate(match[1:k + 1]):
        assert t.on_command(*cmd("event", id=f"e{i}", event=ev))["ok"]
    seat = match[k]["seat"]
    assert (seat, FACE_DOWN) in t.ts.on_table()
    t.close()
    vision = FakeVision()
    t = Table(Journal(tmp_path / "f.journal"), NullLink(), table_id="t1", start_event=start, vision=vision)
    t.open()
    state = t.ts.state()
    vision.queue.append(Ev("placed", seat, None, 0.9, face_up=False))
    t.step()
    assert t.ts.state() == state
    vision.queue.append(Ev("placed", seat, None, 0.9, face_up=False))      # a second one is new: judged
    t.step()
    assert t.ts.state() != state
    t.close()


# ----- alerts: resolved ones cleared, identical ones not piled up (item 10) --------------
def test_alerts_are_cleared_when_resolved_and_not_piled_up(tmp_path):
    t, vision, link, factory, clock = make(tmp_path)
    vision.queue.append(Ev("placed", 0, "hearts/king", 0.4))
    t.step()
    assert [a["code"] for a in link.state["alerts"]] == ["confirm_card"]
    t.on_command(*cmd("reject", id="r1"))
    assert link.state["alerts"] == [] and link.state["status"] == "ok"
    for i in range(3):                       # the same doubtful card three times: one alert retained
        vision.queue.append(Ev("placed", 0, "hearts/king", 0.4))
        t.step()
        if i < 2:
            t.on_command(*cmd("reject", id=f"x{i}"))
    assert [a["code"] for a in link.state["alerts"]] == ["confirm_card"]
    assert t.on_command(*cmd("confirm", id="c1"))["ok"]
    assert link.state["alerts"] == [] and link.state["detail"]["current_trick"] == [{"seat": 0, "card": "hearts/king"}]
    vision.fault = "camera: stalled"
    t.step()
    assert [a["code"] for a in link.state["alerts"]] == ["camera_lost"]
    vision.fault = None
    t.step()
    assert link.state["alerts"] == [] and link.alerts[-1]["code"] == "camera_back"


# ----- inputs bounded before they are journalled (item 4) ---------------------------------
def test_bounds_leave_room_for_real_commands(tmp_path):
    """The biggest legitimate command of each verb, measured: far inside the bounds."""
    t, _, _, _, _ = make(tmp_path)
    opts = {"points_to_win": 14, "games_to_win": 2}
    real = [{"id": "x" * 64, "game": "trionfetti", "dealer": 5, "players": 6, "options": opts},
            {"id": "x" * 64, "event": {"event": "start", "game": "troccas", "dealer": 3, "players": 4, "options": opts}},
            {"id": "x" * 64, "event": {"event": "comanda", "seat": 0, "text": "x" * 120}},
            {"id": "x" * 64, "card": "diamonds/queen", "seat": 3}]
    for body in real:
        size = len(json.dumps(body).encode())
        assert size * 8 <= MAX_COMMAND_BYTES and json_depth(json.dumps(body).encode()) * 2 <= MAX_INPUT_DEPTH, (size, body)
    print(f"\nlargest real command {max(len(json.dumps(b)) for b in real)} B (cap {MAX_COMMAND_BYTES}), "
          f"deepest {max(json_depth(json.dumps(b).encode()) for b in real)} (cap {MAX_INPUT_DEPTH})")


def test_huge_and_deep_commands_are_answered_and_never_stored(tmp_path):
    t, _, link, _, _ = make(tmp_path)
    size = (tmp_path / "t.journal").stat().st_size
    deep = b'{"id":"d1","event":' + b'{"a":' * 988 + b"1" + b"}" * 988 + b"}"
    huge = json.dumps({"id": "h1", "event": {"event": "card", "seat": 0, "card": "x" * 10_000_000}}).encode()
    nested = {"id": "n1", "event": {"event": "card", "seat": 0, "card": "hearts/king"}}
    for _ in range(MAX_INPUT_DEPTH):
        nested = {"id": "n1", "event": nested}
    for payload, why in [(deep, "bytes"), (huge, "bytes"), (json.dumps(nested).encode(), "nested")]:
        r = t.on_command("event", payload)
        assert r["ok"] is False and why in r["error"] and len(json.dumps(r)) < 200, r
    assert (tmp_path / "t.journal").stat().st_size == size
    deep_small = b'{"id":"d2","event":' + b"[" * 900 + b"]" * 900 + b"}"        # small, but 900 deep
    assert len(deep_small) <= MAX_COMMAND_BYTES
    r = t.on_command("event", deep_small)
    assert r["ok"] is False and "nested deeper" in r["error"]
    assert (tmp_path / "t.journal").stat().st_size == size
    assert t.on_command(*cmd("event", id="ok1", event={"event": "card", "seat": 0, "card": "hearts/king"}))["ok"]


def test_malformed_button_presses_are_ignored(tmp_path):
    from controller.panel import ButtonPress

    t, _, link, _, _ = make(tmp_path)
    seq = t.ts.seq
    for press in [ButtonPress(99, 0, "short"), ButtonPress(0, 99, "short"), ButtonPress(0, 0, "x" * 10_000)]:
        t.on_press(press)
    assert t.ts.seq == seq and [a["code"] for a in link.alerts[-3:]] == ["rejected_press"] * 3
    assert all(len(a["message"]) < 100 for a in link.alerts[-3:])


# ----- memory: what grows with a match is bounded (item 12) ------------------------------
def test_remembered_ids_and_published_judgments_are_bounded(tmp_path):
    t, vision, link, _, _ = make(tmp_path)
    for i in range(MAX_SEEN + 50):
        t.on_command("reject", json.dumps({"id": f"r{i}"}).encode())     # nothing pending: each an error
    assert len(t.ts.seen) == MAX_SEEN and "r0" not in t.ts.seen
    last = t.on_command("reject", json.dumps({"id": f"r{MAX_SEEN + 49}"}).encode())
    assert last.get("duplicate") is True                                   # recent ids still answered once
    t.judged.extend({"seq": 0, "i": i} for i in range(MAX_JUDGED + 10))
    assert len(t.judged) == MAX_JUDGED


def test_undo_of_an_accidental_start_shows_the_replaced_match_again():
    """The referee brings the replaced match back on undo (issue 17 item 4); so must the table's
    hands and last trick, which scoreboards show."""
    from controller.sim import simulator
    events = simulator("vitou")(3)
    ts = TableState("t1", ["A", "B", "C", "D"])
    n = 0
    for ev in events:
        n += 1
        assert not ts.apply({"n": n, "r": "event", "event": ev}).errors
        if len(ts.hands) >= 2 and ts.last_trick is not None:
            break
    shown = (copy.deepcopy(ts.hands), copy.deepcopy(ts.last_trick), ts.state()["turn"])
    assert shown[0], "the match scored hands before the accidental start"
    for rec in ({"event": "start", "game": "truco", "dealer": 0}, {"event": "undo"}):
        n += 1
        assert not ts.apply({"n": n, "r": "event", "event": rec}).errors
    assert (ts.hands, ts.last_trick, ts.state()["turn"]) == shown
    n += 1
    assert not ts.apply({"n": n, "r": "event", "event": {"event": "undo"}}).errors   # and undo goes on
    assert ts.hands == shown[0][:len(ts.hands)]
