"""Naming off the frame loop (issue 15, speed): the look at a settling region starts on the
watcher's worker LOOK_AHEAD frames early, and its answer is taken only if it still holds."""
from __future__ import annotations

import threading

import pytest

from vision.recognise import Recogniser
from vision.synthetic import synthetic_profile
from vision.synthetic.sequences import SequenceBuilder
from vision.tracking import LOOK_AHEAD

from tests.vision_live.helpers import assert_matches_truth, keys, run

pytestmark = pytest.mark.opencv


@pytest.fixture(scope="module")
def recogniser():
    return Recogniser(synthetic_profile("french-32"))


def _watch(seq, recogniser, look_ahead):
    events, watcher = run(seq, recogniser, oracle=False, look_ahead=look_ahead)
    watcher.close()
    return events, watcher


def test_early_looks_name_every_card_at_the_same_frames_as_looks_at_the_window(recogniser):
    b = SequenceBuilder(size=(960, 540), seed=5, table="cloth").idle(10)
    for seat, card in enumerate(["spades/7", "clubs/7", "hearts/ace", "spades/ace"]):
        b.play(seat, card).idle(14)
    seq = b.build()
    events, watcher = _watch(seq, recogniser, LOOK_AHEAD)
    now, _ = _watch(seq, recogniser, 0)
    assert_matches_truth(events, seq)
    assert [(e.frame, *k) for e, k in zip(events, keys(events))] == [(e.frame, *k) for e, k in zip(now, keys(now))]
    # each card was named on the worker, and the frame loop took that answer
    assert watcher.stats.early_used == watcher.stats.early_looks == 4
    assert len(watcher.look_cpu_ms) == 4


def test_a_card_moved_during_the_look_ahead_is_looked_at_again_where_it_settles(recogniser):
    b = SequenceBuilder(size=(960, 540), seed=6, table="wood").idle(10)
    b.play(0, "hearts/king")
    b.idle(6)                                     # still long enough for the early look to start
    b.slide(0, b.spot(0, offset=0.3), frames=6).idle(14)
    seq = b.build()
    events, watcher = _watch(seq, recogniser, LOOK_AHEAD)
    assert_matches_truth(events, seq)               # one placement, where the card came to rest
    assert watcher.stats.early_looks >= 2
    assert watcher.stats.early_used == 1            # the first answer was stale and not taken


def test_the_recogniser_is_only_ever_asked_on_the_worker(recogniser):
    threads: set[str] = set()

    class Watched:
        def __getattr__(self, name):
            attr = getattr(recogniser, name)
            if name in ("read_quad", "recognise", "identify"):
                def asked(*a, **kw):
                    threads.add(threading.current_thread().name)
                    return attr(*a, **kw)
                return asked
            return attr

    b = SequenceBuilder(size=(960, 540), seed=7, table="light").idle(10).play(1, "diamonds/queen").idle(14)
    seq = b.build()
    events, _ = _watch(seq, Watched(), LOOK_AHEAD)
    assert_matches_truth(events, seq)
    assert threads and all(t.startswith("card-look") for t in threads)
