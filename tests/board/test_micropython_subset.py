"""The firmware files stay inside what MicroPython runs (checked statically here).

No MicroPython interpreter is available in CI, so this guards the constructs that
MicroPython lacks or that cost memory on the board: typing, dataclasses, enum, abc,
f-strings, annotations, ``from __future__``, walrus, match, async.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

FIRMWARE = Path(__file__).parents[2] / "firmware"
FILES = sorted(p for p in FIRMWARE.glob("*.py") if p.name != "__init__.py")
BANNED_MODULES = {"typing", "dataclasses", "enum", "abc", "__future__", "functools", "itertools",
                  "collections", "threading", "logging"}
# What the board really has; the try/except fallbacks cover CPython-only package paths.
BOARD_MODULES = {"sys", "time", "select", "micropython", "machine", "neopixel", "os", "json", "ujson",
                 "framing", "messages", "config", "display", "buttons", "board", "firmware"}


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_firmware_uses_only_what_micropython_has(path: Path) -> None:
    tree = ast.parse(path.read_text(), str(path))
    for node in ast.walk(tree):
        where = f"{path.name}:{getattr(node, 'lineno', '?')}"
        assert not isinstance(node, ast.JoinedStr), f"{where}: f-string"
        assert not isinstance(node, (ast.AnnAssign, ast.NamedExpr, ast.Match, ast.AsyncFunctionDef,
                                     ast.Await)), f"{where}: {type(node).__name__}"
        if isinstance(node, ast.arguments):
            for a in node.args + node.kwonlyargs:
                assert a.annotation is None, f"{where}: annotation"
        if isinstance(node, ast.FunctionDef):
            assert node.returns is None, f"{where}: return annotation"
        if isinstance(node, ast.Import):
            names = {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            names = {(node.module or "").split(".")[0]}
        else:
            continue
        assert not names & BANNED_MODULES, f"{where}: imports {names & BANNED_MODULES}"
        assert names <= BOARD_MODULES, f"{where}: imports {names - BOARD_MODULES}, not on the board"


def test_every_board_file_is_listed_in_the_flashing_instructions() -> None:
    doc = (Path(__file__).parents[2] / "docs" / "board.md").read_text()
    for path in FILES:
        if path.name != "main.py":
            assert path.name in doc, f"docs/board.md does not copy {path.name} to the board"
    assert "board_config.json" in doc
