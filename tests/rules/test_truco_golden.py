"""Truco golden transcripts through the real ``cardtable referee`` CLI, byte for byte.

``tests/golden/truco/<name>.jsonl`` holds events, ``<name>.expected.jsonl`` the judgments;
each name cites the ``truco.md`` paragraph it proves (``s13-07`` = §13 example 7). The
expected files were written by the CLI once and then checked by hand against the spec.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parents[1] / "golden" / "truco"
CASES = sorted(p for p in HERE.glob("*.jsonl") if not p.name.endswith(".expected.jsonl"))


def test_there_are_golden_cases() -> None:
    names = {p.stem for p in CASES}
    assert len(CASES) >= 15
    assert {"s13-07-accept-current-trick", "s13-14-iron-hand", "s13-13-hand-of-eleven"} <= names


@pytest.mark.parametrize("events", CASES, ids=[p.stem for p in CASES])
def test_truco_golden(events: Path) -> None:
    expected = events.with_name(events.stem + ".expected.jsonl")
    done = subprocess.run([sys.executable, "-m", "controller.cli", "referee", str(events)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stderr == ""
    assert done.stdout == expected.read_text(encoding="utf-8")
