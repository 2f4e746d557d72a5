"""The scoresheet (`cardtable export`) lists penalties and corrections (issue 17 point 7)."""
from __future__ import annotations

import json
from pathlib import Path

from controller.scoresheet import export_main, export_record


def write(path: Path, records: list[dict]) -> None:
    path.write_text("".join(json.dumps({"n": i + 1, **r}) + "\n" for i, r in enumerate(records)))


def ev(event: dict, src: str = "test", **more) -> dict:
    return {"r": "event", "event": event, "src": src, **more}


RECORDS = [
    ev({"event": "start", "game": "vitou", "dealer": 3}),
    ev({"event": "card", "seat": 0, "card": "hearts/7"}, src="vision"),
    {"r": "pending", "seat": 1, "card": "hearts/8", "confidence": 0.4, "reason": "low"},
    ev({"event": "card", "seat": 1, "card": "hearts/10"}, src="confirm", wall="2026-12-01T21:00:05Z"),
    {"r": "pending", "seat": 2, "card": "hearts/9", "confidence": 0.3, "reason": "low"},
    {"r": "reject"},
    ev({"event": "penalty", "team": 1, "offence": "talking"}, src="cmd", wall="2026-12-01T21:00:09Z"),
    ev({"event": "penalty", "team": 0, "offence": "renege"}, src="cmd"),
    ev({"event": "undo"}, src="cmd", wall="2026-12-01T21:00:12Z"),      # takes back the renege
    ev({"event": "card", "seat": 0, "card": "hearts/king"}),            # out of turn: not a correction
    ev({"event": "undo"}, src="cmd"),                                   # takes back the talking penalty
    ev({"event": "penalty", "team": 0, "offence": "late"}, src="cmd"),
]


def test_export_lists_penalties_and_corrections(tmp_path: Path, capsys) -> None:
    path = tmp_path / "m.journal"
    write(path, RECORDS)
    rec = export_record(str(path))
    penalties = [r for r in rec["sheet"] if r["row"] == "penalty"]
    assert penalties == [{"row": "penalty", "team": 0, "offence": "late", "points": [0, 1], "scores": [0, 1]}]
    assert [(c["row"], c["n"]) for c in rec["corrections"]] == [("confirm", 4), ("reject", 6), ("undo", 9),
                                                                 ("undo", 11)]
    confirm, reject, undo = rec["corrections"][:3]
    assert (confirm["seat"], confirm["card"], confirm["seen"]) == (1, "hearts/10", "hearts/8")
    assert confirm["wall"] == "2026-12-01T21:00:05Z" and undo["wall"] == "2026-12-01T21:00:12Z"
    assert (reject["seat"], reject["card"]) == (2, "hearts/9") and "wall" not in reject
    assert export_main([str(path)]) == 0
    text = capsys.readouterr().out
    assert "penalty on team 0 (late): +0 +1  -> 0 - 1" in text
    assert "talking" not in text and "renege" not in text        # undone penalties are gone
    assert "corrections (4):" in text
    assert "confirm: seat 1 hearts/10 (the camera saw hearts/8)  [2026-12-01T21:00:05Z]" in text
    assert "reject: seat 2 hearts/9 was not a play" in text
    assert text.count("undo: the last accepted event taken back") == 2


def test_penalty_rows_show_the_wall_time_when_the_journal_has_one(tmp_path: Path) -> None:
    path = tmp_path / "w.journal"
    write(path, RECORDS[:1] + [ev({"event": "penalty", "team": 1, "offence": "talking"}, wall="21:00:09")])
    (row,) = [r for r in export_record(str(path))["sheet"] if r["row"] == "penalty"]
    assert row == {"row": "penalty", "team": 1, "offence": "talking", "points": [1, 0], "scores": [1, 0],
                   "wall": "21:00:09"}


def test_an_undo_lends_its_wall_time_to_no_penalty(tmp_path: Path) -> None:
    """An undo's wall time is the undo's own: the penalty it leaves on top was stamped by no one."""
    path = tmp_path / "u.journal"
    write(path, RECORDS[:1] + [ev({"event": "penalty", "team": 1, "offence": "talking"}),
                               ev({"event": "penalty", "team": 0, "offence": "renege"}),
                               ev({"event": "undo"}, wall="21:00:12")])
    (row,) = [r for r in export_record(str(path))["sheet"] if r["row"] == "penalty"]
    assert row["offence"] == "talking" and "wall" not in row
