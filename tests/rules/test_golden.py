"""Golden transcripts: whole recorded matches through ``cardtable referee``, byte for byte.

Each ``tests/golden/<game>/<name>.jsonl`` holds events; ``<name>.expected.jsonl`` the
judgments the CLI must print. The file name cites the rule-spec paragraph it proves.
Regenerate one (after checking the change by hand!) with
``cardtable referee X.jsonl > X.expected.jsonl``.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
CASES = sorted(p for p in GOLDEN.glob("*/*.jsonl") if not p.name.endswith(".expected.jsonl"))


@pytest.mark.parametrize("events", CASES, ids=[f"{p.parent.name}/{p.stem}" for p in CASES])
def test_golden_transcript(events: Path) -> None:
    expected = events.with_name(events.stem + ".expected.jsonl")
    done = subprocess.run([sys.executable, "-m", "controller.cli", "referee", str(events)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stderr == ""
    assert done.stdout == expected.read_text()
