"""The ``vision`` package as it was at an earlier git revision, importable beside today's.

These machines are shared and their speed drifts by a third within minutes, so a speed-up is
measured against a baseline run in the same process, on the same frames, interleaved frame by
frame (``bench/vision_live.py --baseline REV``): the drift then falls on both alike.
"""
from __future__ import annotations

import atexit
import importlib
import io
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def vision_at(rev: str) -> types.ModuleType:
    """``vision`` at ``rev`` (from ``git archive``), imported as ``vision_<rev>`` with its own
    imports pointing at itself; its submodules are imported with :func:`importlib.import_module`."""
    sha = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", rev], capture_output=True,
                         text=True, check=True).stdout.strip()
    name = f"vision_{sha}"
    if name in sys.modules:
        return sys.modules[name]
    dest = Path(tempfile.mkdtemp(prefix="cardtable-baseline-"))
    atexit.register(shutil.rmtree, dest, True)
    tar = subprocess.run(["git", "-C", str(ROOT), "archive", sha, "vision"], capture_output=True, check=True).stdout
    with tarfile.open(fileobj=io.BytesIO(tar)) as t:
        t.extractall(dest, filter="data")
    (dest / "vision").rename(dest / name)
    for py in (dest / name).rglob("*.py"):
        py.write_text(re.sub(r"\b(from|import) vision\b", rf"\1 {name}", py.read_text()))
    sys.path.insert(0, str(dest))
    return importlib.import_module(name)


def submodule(package: types.ModuleType, dotted: str) -> types.ModuleType:
    """``package.dotted`` imported (e.g. ``submodule(base, "tracking").TableWatcher``)."""
    return importlib.import_module(f"{package.__name__}.{dotted}")
