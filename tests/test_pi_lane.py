"""The Pi lane (.ci/pi-lane) runs the tests marked ``opencv`` on Debian's OpenCV 4.6 and numpy
1.24: all of tests/vision and tests/vision_live (tests/conftest.py marks them) and the controller
tests that go through OpenCV/numpy. A controller test that never does proves nothing new there,
so it runs once, in the main suite; one that does but whose subject is not OpenCV's (a broker
restart, kills) says so in ``NOT_IN_PI_LANE``. This keeps a new controller test that does from being left
out of the Pi lane by mistake."""
from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# In the test itself or in a program it starts: cv2/numpy/vision imported, the camera input or
# the demo's rendered room, the demo (it renders and recognises every card), a camera source.
THROUGH_OPENCV = re.compile(r"^\s*(import cv2|import numpy|from vision|from controller\.camera import)"
                            r"|controller\.demo import .*\bRoom\b|\"demo\"|\"(video|folder|synthetic|stream):", re.M)


def test_controller_tests_through_opencv_are_marked_for_the_pi_lane():
    unmarked = [p.name for p in sorted((ROOT / "tests" / "controller").glob("test_*.py"))
                if THROUGH_OPENCV.search(p.read_text(encoding="utf-8"))
                and "pytest.mark.opencv" not in p.read_text(encoding="utf-8")
                and not re.search(r'^NOT_IN_PI_LANE = "[^"]{20,}"', p.read_text(encoding="utf-8"), re.M)]
    assert not unmarked, (f"mark these (or their tests) pytest.mark.opencv for .ci/pi-lane, or say why not "
                          f"in NOT_IN_PI_LANE: {unmarked}")


def test_the_pi_lane_selects_by_the_mark():
    lane = (ROOT / ".ci" / "pi-lane").read_text(encoding="utf-8")
    assert re.search(r"-m opencv tests/vision tests/vision_live tests/controller\s*$", lane, re.M), lane
