"""The finder's own Canny: the same edges as cv2.Canny, without its heap overrun.

cv2.Canny, single-threaded, writes past the end of its hysteresis stack on some images
(OpenCV 4.10 to 5.0); the rendered tarot-1jj stress scene 10037 is one. Both checks run
in a child process so that a corrupted heap cannot take the test session down with it,
and so that OpenCV's thread count is not shared with other tests.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MALLOC_DEBUG = Path("/lib/x86_64-linux-gnu/libc_malloc_debug.so.0")

SAME_AS_OPENCV = """
import cv2, numpy as np
from vision.finder import canny
from vision.synthetic import synthetic_profile
from vision.synthetic.stress import random_scene
prof = synthetic_profile("french-32")
for seed in (200, 201, 202):
    img = cv2.resize(random_scene(prof, seed).image, (800, 450), interpolation=cv2.INTER_AREA)
    g = cv2.GaussianBlur(np.ascontiguousarray(cv2.cvtColor(img, cv2.COLOR_BGR2LAB)[..., 0]), (3, 3), 0)
    ref = cv2.Canny(g, 20, 60)       # several threads: the overrun does not happen here
    mine = canny(g, 20, 60)
    assert mine.dtype == np.uint8 and mine.shape == ref.shape
    assert (mine == ref).all(), (seed, int((mine != ref).sum()))
print("same")
"""

TRIGGER = """
import cv2
cv2.setNumThreads(1)
from vision.finder import find_cards
from vision.synthetic import synthetic_profile
from vision.synthetic.stress import random_scene
prof = synthetic_profile("tarot-1jj")
for _ in range(3):
    find_cards(random_scene(prof, 10037, n_cards=4).image, prof.aspect)
print("intact")
"""


def _run(code: str, env_extra: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT), OPENBLAS_NUM_THREADS="1")
    env.update(env_extra or {})
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)


def test_canny_gives_the_same_edges_as_opencv():
    r = _run(SAME_AS_OPENCV)
    assert r.returncode == 0 and "same" in r.stdout, r.stderr[-2000:]


def test_single_threaded_finder_leaves_the_heap_intact_on_the_trigger_scene():
    # glibc's checking allocator (where present) catches an overrun at the next free
    extra = {}
    if MALLOC_DEBUG.exists():
        extra = {"LD_PRELOAD": str(MALLOC_DEBUG), "MALLOC_CHECK_": "3", "PYTHONMALLOC": "malloc"}
    r = _run(TRIGGER, extra)
    assert r.returncode == 0 and "intact" in r.stdout, (r.returncode, r.stderr[-2000:])
