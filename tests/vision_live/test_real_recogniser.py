"""The tracker with the real Vision I recogniser: never a wrong card, never a missed one.

Exact identification is Vision I's figure; here every played card must produce an event at the
right seat, either ``placed`` with the right card or ``needs_confirmation`` (never a guess), and
the gathering must produce the removals and ``cleared``.
"""
from __future__ import annotations

import pytest

from vision.recognise import Recogniser
from vision.synthetic import StressOptions, synthetic_profile
from vision.synthetic.sequences import named_sequence

from tests.vision_live.helpers import run


def _check(events, seq):
    assert len(events) == len(seq.events)
    for got, want in zip(events, seq.events):
        assert got.seat == want.seat, (got, want)
        if want.event == "placed" and got.event == "needs_confirmation":
            assert want.face_up and got.card is None
        elif want.event == "removed":
            assert got.event == "removed" and got.card in (want.card, None)
        else:
            assert (got.event, got.card, got.face_up) == (want.event, want.card, want.face_up)


# (the plain 1280x720 trick through the real recogniser is in test_cli.py)
@pytest.mark.parametrize("name, stress, table", [("facedown", StressOptions(), "wood")])
def test_real_recogniser_reports_every_card_and_no_wrong_one(name, stress, table):
    seq = named_sequence(name, stress=stress, table=table, seed=1)
    events, watcher = run(seq, Recogniser(synthetic_profile(seq.deck_id)), oracle=False)
    _check(events, seq)
    assert watcher.cards == []
