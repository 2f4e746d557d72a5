"""Garbage among valid events changes nothing (issue #16, the referee property test).

For any interleaving of a valid match (a prefix of a game simulator's script) with
garbage lines (not JSON, JSON that is not an event, unknown kinds, impossible seats and
cards, wrong types, deep nesting), ``cardtable referee``'s output for the valid lines is
exactly its output for them alone, once each judgment's ``after`` is mapped back to the
valid line's own index, and every garbage line gets exactly one ``error`` judgment.
"""
from __future__ import annotations

import io
import json
import subprocess
import sys

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.rules.referee import judge_lines
from controller.sim import simulator

GAMES = ("vitou", "truco", "troccas", "trionfetti")
# Kinds whose required fields the generator never supplies right. Not "redeal" (or "undo"):
# they take no fields, and unknown fields are ignored (docs/contract-extensions.md), so
# {"event": "redeal", "seat": -1} is a valid event, not garbage.
KINDS = ("card", "call", "answer", "decide", "penalty", "comanda", "bid", "pass", "nonsense")
JSON_SCALARS = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8)


def _no_newline(s: str) -> bool:
    return "\n" not in s and "\r" not in s and bool(s.strip())


bad_seats = st.one_of(st.integers(max_value=-1), st.integers(min_value=7), st.text(max_size=3), st.none(),
                      st.floats(allow_nan=False), st.booleans())
garbage_event = st.builds(
    lambda kind, seat, extra: {"event": kind, "seat": seat, **extra},
    st.sampled_from(KINDS), bad_seats,
    st.dictionaries(st.sampled_from(["card", "call", "answer", "face_down", "x", "options"]), JSON_SCALARS,
                    max_size=3))
garbage_line = st.one_of(
    st.text(max_size=40).filter(_no_newline),                              # mostly not JSON
    st.recursive(JSON_SCALARS, lambda c: st.lists(c, max_size=3), max_leaves=6).map(json.dumps),
    st.dictionaries(st.text(max_size=6), JSON_SCALARS, max_size=4).map(json.dumps),
    garbage_event.map(json.dumps),
    st.integers(min_value=990, max_value=1200).map(lambda d: "[" * d + "]" * d),   # deep nesting
    st.just('{"event": "card", "seat": 0, "card": "' + "x" * 5000 + '"}'),
)


def judge(lines: list[str]) -> list[dict]:
    out = io.StringIO()
    judge_lines([line + "\n" for line in lines], out)
    return [json.loads(x) for x in out.getvalue().splitlines()]


@settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(game=st.sampled_from(GAMES), seed=st.integers(0, 30), cut=st.floats(0.05, 1.0),
       garbage=st.lists(st.tuples(st.floats(0, 1), garbage_line), max_size=12))
def test_garbage_lines_change_nothing_and_get_one_error_each(game, seed, cut, garbage) -> None:
    script = simulator(game)(seed)
    valid = [json.dumps(ev) for ev in script[:max(1, int(len(script) * cut))]]
    alone = judge(valid)
    # interleave: each garbage line goes before the valid line at its position
    slots: list[list[str]] = [[] for _ in range(len(valid) + 1)]
    for where, line in garbage:
        slots[int(where * len(valid))].append(line)
    mixed: list[str] = []
    valid_index: dict[int, int] = {}                 # index in mixed -> index in valid
    for k in range(len(valid) + 1):
        mixed += slots[k]
        if k < len(valid):
            valid_index[len(mixed)] = k
            mixed.append(valid[k])
    together = judge(mixed)
    by_line: dict[int, list[dict]] = {}
    for j in together:
        by_line.setdefault(j["after"], []).append(j)
    for i, line in enumerate(mixed):
        if i not in valid_index:
            got = by_line.get(i, [])
            assert [j["judgment"] for j in got] == ["error"], (line[:80], got)
    mapped = [{**j, "after": valid_index[j["after"]]} for j in together if j["after"] in valid_index]
    assert mapped == alone


def test_the_cli_prints_what_judge_lines_does(tmp_path) -> None:
    valid = [json.dumps(ev) for ev in simulator("truco")(3)[:40]]
    lines = valid[:10] + ["{oops", "[" * 1000 + "]" * 1000, '{"event": "card", "seat": 99}'] + valid[10:]
    f = tmp_path / "events.jsonl"
    f.write_text("\n".join(lines) + "\n")
    p = subprocess.run([sys.executable, "-m", "controller.cli", "referee", str(f)], capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 0, p.stderr
    assert [json.loads(x) for x in p.stdout.splitlines()] == judge(lines)
    errors = [json.loads(x) for x in p.stdout.splitlines() if json.loads(x)["after"] in (10, 11, 12)]
    assert [e["judgment"] for e in errors] == ["error"] * 3
