"""Vision is a library of its own: nothing in it needs the referee (issue: Vision I)."""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_vision_never_imports_controller():
    modules = sorted(p.relative_to(ROOT).with_suffix("").as_posix().replace("/", ".")
                     for p in (ROOT / "vision").rglob("*.py") if p.name != "__init__.py")
    code = ("import importlib, sys\n"
            f"for m in {modules!r}:\n"
            "    importlib.import_module(m)\n"
            "bad = sorted(m for m in sys.modules if m == 'controller' or m.startswith('controller.'))\n"
            "print(bad)\n"
            "sys.exit(1 if bad else 0)\n")
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr


def test_vision_decks_match_the_referee():
    from controller.rules.cards import decks
    from vision.decks import deck_cards
    assert {k: d.cards for k, d in decks().items()} == deck_cards()
