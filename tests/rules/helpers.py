"""Small helpers shared by the rules tests: feed events, pick judgments."""
from __future__ import annotations

import json
from typing import Any

from controller.rules.referee import Referee


def feed(ref: Referee, **event: Any) -> list[dict[str, Any]]:
    """Feed one event given as keyword fields; returns the judgments."""
    return ref.feed_line(json.dumps(event))


def kinds(judgments: list[dict[str, Any]]) -> list[str]:
    return [j["judgment"] for j in judgments]


def only(judgments: list[dict[str, Any]], kind: str) -> dict[str, Any]:
    found = [j for j in judgments if j["judgment"] == kind]
    assert len(found) == 1, (kind, judgments)
    return found[0]


def error_code(judgments: list[dict[str, Any]]) -> str | None:
    errs = [j for j in judgments if j["judgment"] == "error"]
    return errs[0]["code"] if errs else None


def assert_rejected(ref: Referee, code: str, **event: Any) -> dict[str, Any]:
    """The event is rejected with ``code`` and the state is exactly as before."""
    before = json.dumps(ref.snapshot(), sort_keys=True)
    out = feed(ref, **event)
    assert [j["judgment"] for j in out] == ["error"], out
    assert out[0]["code"] == code, out
    assert json.dumps(ref.snapshot(), sort_keys=True) == before
    return out[0]
