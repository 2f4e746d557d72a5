"""The camera goes away and comes back: fault shown (state, alert, status LED), play resumes.

Real parts: Vision II's ReopeningSource and TableWatcher, the Vision I recogniser, frames
rendered by the demo's Room; only the camera device is a stand-in we can unplug.
"""
from __future__ import annotations

import pytest
from gpiozero.pins.mock import MockFactory

from controller.camera import VisionInput, make_watcher
from controller.demo import Room
from controller.journal import Journal
from controller.leds import GpioPanel
from controller.mqtt import NullLink
from controller.table import Table
from .helpers import Clock
from vision.recognise import Recogniser
from vision.sources import Frame, ReopeningSource

pytestmark = pytest.mark.opencv      # through OpenCV/numpy: the Pi lane runs it (.ci/pi-lane)

START = {"event": "start", "game": "vitou", "dealer": 3, "players": 4}


class Camera:
    """A camera on a cable: frames while plugged, errors while not."""

    plugged = True

    def __init__(self, room: Room) -> None:
        self.room = room
        self.image = room.frame()
        self.n = 0

    def read(self):
        if not Camera.plugged:
            raise OSError("USB camera disconnected")
        self.n += 1
        return Frame(self.n, self.image, 0.0)

    def close(self):
        pass


def test_camera_vanishes_and_returns(tmp_path):
    clock = Clock()
    room = Room("french-32", True, 4, seed=2)
    cams: list[Camera] = []

    def opener():
        if not Camera.plugged:
            raise OSError("no camera at /dev/video0")
        cams.append(Camera(room))
        return cams[-1]

    Camera.plugged = True
    source = ReopeningSource(opener, backoff=(0.5, 2.0), clock=clock)
    factory = MockFactory()
    panel = GpioPanel([5, 6, 13, 19], [17, 27, 22, 23], {"ok": 24, "confirm": 25, "fault": 12},
                      clock=clock, pin_factory=factory)
    link = NullLink()
    t = Table(Journal(tmp_path / "j"), link, table_id="t", start_event=START, panels=[panel],
              vision=None, clock=clock)
    t.vision = VisionInput(source, make_watcher(room.calibration, Recogniser(room.profile), t.ts.candidates, 4))
    t.open()

    def frames(n):
        for _ in range(n):
            clock.t += 1 / 30
            t.step()

    def show():
        for c in cams:
            c.image = room.frame()

    frames(3)
    room.put(0, "hearts/king")
    show()
    frames(10)
    assert link.state["detail"]["current_trick"] == [{"seat": 0, "card": "hearts/king"}]
    assert link.state["status"] == "ok" and factory.pin(24).state

    Camera.plugged = False                       # the cable is pulled
    frames(5)
    assert link.state["status"] == "fault" and link.state["fault"]["code"] == "camera_lost"
    assert factory.pin(12).state and not factory.pin(24).state
    assert link.alerts[-1]["code"] == "camera_lost"
    frames(60)                                   # reopen attempts fail, with back-off; no crash
    assert link.state["status"] == "fault"

    room.put(1, "hearts/7")                      # played while the camera was away
    Camera.plugged = True
    frames(90)
    assert link.state["fault"] is None and link.state["status"] == "ok"
    assert factory.pin(24).state and not factory.pin(12).state
    assert link.state["detail"]["current_trick"] == [{"seat": 0, "card": "hearts/king"},
                                                     {"seat": 1, "card": "hearts/7"}]
    room.put(2, "hearts/8")                      # and play goes on
    show()
    frames(12)
    assert [c["card"] for c in link.state["detail"]["current_trick"]] == ["hearts/king", "hearts/7", "hearts/8"]


def test_knocked_camera_with_covered_markers_is_a_fault_until_they_are_seen(tmp_path):
    """The camera knocked while a cloth lies over two corner markers: the table shows a camera
    fault naming them; uncovered, the view is re-registered and play goes on at the right seats."""
    import cv2

    from vision.registration import SEARCH_EVERY, STILL_FRAMES
    from vision.synthetic.sequences import _knock

    clock = Clock()
    room = Room("french-32", True, 4, seed=2)
    w, h = room.calibration.image_size
    view = {"knock": None, "cover": False}

    class Knockable:
        n = 0

        def read(self):
            img = room.frame()
            if view["knock"] is not None:
                img = cv2.warpAffine(img, _knock((w, h), view["knock"]), (w, h), borderMode=cv2.BORDER_REPLICATE)
            if view["cover"]:
                for x, y in room.corners[:2]:
                    cv2.rectangle(img, (int(x) - 60, int(y) - 60), (int(x) + 60, int(y) + 60), (60, 40, 30), -1)
            self.n += 1
            return Frame(self.n, img, 0.0)

    link = NullLink()
    t = Table(Journal(tmp_path / "j"), link, table_id="t", start_event=START, vision=None, clock=clock)
    t.vision = VisionInput(Knockable(), make_watcher(room.calibration, Recogniser(room.profile), t.ts.candidates, 4))
    t.open()

    def frames(n):
        for _ in range(n):
            clock.t += 1 / 30
            t.step()

    frames(3)
    room.put(0, "hearts/king")
    frames(10)
    view.update(knock=(3.0, 3.0, 0.2), cover=True)     # (the demo's markers lie 14 px from the edge)
    frames(STILL_FRAMES + 2)
    assert link.state["status"] == "fault" and "markers 0, 1 are not seen" in link.state["fault"]["message"]
    view["cover"] = False
    frames(SEARCH_EVERY + 2)
    assert link.state["fault"] is None and link.state["status"] == "ok"
    room.put(1, "hearts/7")
    frames(12)
    assert link.state["detail"]["current_trick"] == [{"seat": 0, "card": "hearts/king"},
                                                     {"seat": 1, "card": "hearts/7"}]
