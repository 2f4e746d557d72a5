"""The tracker on synthetic sequences, with the oracle recogniser: exact events, no false ones."""
from __future__ import annotations

from vision.calibration import calibrate
from vision.synthetic.sequences import SequenceBuilder, named_sequence, render_frames
from vision.tracking import TableWatcher

from tests.vision_live.helpers import OracleRecogniser, assert_matches_truth, keys, run


def test_one_trick_played_and_gathered():
    seq = named_sequence("trick", size=(960, 540))
    events, watcher = run(seq)
    assert_matches_truth(events, seq)
    assert watcher.cards == []


def test_match_with_waves_resting_hand_slide_and_overlap():
    seq = named_sequence("match", size=(960, 540))
    events, _ = run(seq)
    assert_matches_truth(events, seq)


def test_hands_alone_never_make_events():
    seq = named_sequence("hands", size=(960, 540))
    events, watcher = run(seq)
    assert events == []
    assert watcher.stats.recognise_calls >= 1     # resting hands were looked at, and rejected


def test_overlapping_cards_are_both_placed_then_removed():
    seq = named_sequence("overlap", size=(960, 540))
    events, _ = run(seq)
    assert_matches_truth(events, seq)


def test_face_down_cards_are_placed_as_backs():
    seq = named_sequence("facedown", size=(960, 540))
    events, _ = run(seq)
    assert_matches_truth(events, seq)
    assert [e.card for e in events if e.event == "placed"] == [None, "clubs/jack", None]


def test_unreadable_card_asks_for_confirmation_instead_of_guessing():
    b = SequenceBuilder(size=(960, 540))
    b.idle(10).play(0, "hearts/7").idle(20).play(1, "hearts/king").idle(20)
    events, watcher = run(b.build(), OracleRecogniser(unreadable={"hearts/king"}))
    assert keys(events) == [("placed", 0, "hearts/7", True), ("needs_confirmation", 1, None, True)]
    assert watcher.confirm(1, "hearts/king")
    assert [c.card for c in watcher.cards] == ["hearts/7", "hearts/king"]


def test_candidates_include_cards_already_on_the_table():
    b = SequenceBuilder(size=(960, 540))
    b.idle(10).play(0, "hearts/7").idle(20).play(1, "hearts/king").idle(20)
    unplayed = {"hearts/7", "hearts/king", "hearts/ace"}    # the controller's set, updated per event
    rec = OracleRecogniser()
    events, watcher = [], None
    for image, truth in render_frames(b.build()):
        watcher = watcher or TableWatcher(None, calibrate(image), rec, candidates=lambda: unplayed)
        rec.show(image, truth)
        for e in watcher.process(image):
            events.append(e)
            unplayed.discard(e.card)
    assert keys(events) == [("placed", 0, "hearts/7", True), ("placed", 1, "hearts/king", True)]
    asked = [c for _, c in rec.calls if c is not None]
    assert asked[0] >= {"hearts/7", "hearts/king"}
    assert "hearts/7" in asked[-1] and "hearts/ace" in asked[-1]   # table cards stay recognisable


def test_card_is_placed_only_after_the_still_window():
    b = SequenceBuilder(size=(960, 540))
    b.idle(10).play(0, "hearts/7")
    placed_at = b.frame
    b.idle(30)
    for still in (4, 12):
        events, _ = run(b.build(), still_frames=still)
        assert len(events) == 1
        assert placed_at - 8 + still <= events[0].frame <= placed_at + still + 1


def test_hands_resting_on_played_cards_change_nothing():
    seq = named_sequence("busy", size=(960, 540))
    events, watcher = run(seq)
    assert_matches_truth(events, seq)
    assert [c.card for c in watcher.cards] == ["hearts/7", "clubs/9"]
