"""A camera read that hangs, blind frames, a recording that ends (issue #16 item 11).

Real parts: the table loop, Vision II's TableWatcher with the Vision I recogniser on the
demo's rendered frames, LEDs on gpiozero's MockFactory; the camera is a stand-in whose
``read()`` really blocks for 5 s (a USB camera gone quiet does that), or returns black,
white and flat frames.
"""
from __future__ import annotations

import json
import threading
import time

import numpy as np
import pytest
from gpiozero.pins.mock import MockFactory

from controller.camera import BLIND_FRAMES, READ_DEADLINE_S, VisionInput, make_watcher
from controller.demo import Room
from controller.journal import Journal
from controller.leds import GpioPanel
from controller.mqtt import NullLink
from controller.table import Table
from vision.recognise import Recogniser
from vision.sources import Frame, IterableSource
from .helpers import Ev, pump

pytestmark = pytest.mark.opencv      # through OpenCV/numpy: the Pi lane runs it (.ci/pi-lane)

START = {"event": "start", "game": "vitou", "dealer": 3, "players": 4}
HANG_S = 5.0


class Camera:
    """Frames of ``image`` at 30 fps; ``hang()`` makes the next read block for 5 s."""

    def __init__(self, image: np.ndarray) -> None:
        self.image = image
        self.n = 0
        self._hang = threading.Event()
        self.status = None
        self.hung: tuple[float, float] | None = None     # (start, end) of the hang, monotonic

    def hang(self) -> None:
        self._hang.set()

    def read(self) -> Frame:
        if self._hang.is_set():
            self._hang.clear()
            start = time.monotonic()
            time.sleep(HANG_S)
            self.hung = (start, time.monotonic())
        time.sleep(1 / 30)
        self.n += 1
        return Frame(self.n, self.image, self.n / 30)

    def close(self) -> None:
        pass


def setup(tmp_path, camera):
    factory = MockFactory()
    panel = GpioPanel([5, 6, 13, 19], [17, 27, 22, 23], {"ok": 24, "confirm": 25, "fault": 12},
                      pin_factory=factory)
    link = NullLink()
    t = Table(Journal(tmp_path / "j"), link, table_id="t", start_event=START, panels=[panel])
    room = Room("french-32", True, 4, seed=2)
    camera = camera(room)
    t.vision = VisionInput(camera, make_watcher(room.calibration, Recogniser(room.profile), t.ts.candidates, 4),
                           threaded=True)
    t.open()
    return t, link, factory, camera


def test_a_hanging_read_does_not_block_the_loop(tmp_path):
    t, link, factory, camera = setup(tmp_path, lambda room: Camera(room.frame()))  # GpioPanel: LEDs 5 6 13 19
    try:
        t.on_card_event(Ev("needs_confirmation", 0, "hearts/king", 0.3))    # seat 0's LED blinks
        assert t.ts.pending is not None
        led = factory.pin(5)                     # seat 0's turn LED
        camera.hang()
        start = time.monotonic()
        steps, longest, faulted = 0, 0.0, None
        log: list[tuple[float, int, bool]] = []   # (time, commands answered, seat 0's LED) after each step
        while time.monotonic() - start < HANG_S + 2.5:
            if steps % 20 == 0:                  # the referee's tablet keeps sending commands
                link.inbox.append(("nonsense", json.dumps({"id": f"c{steps}"}).encode()))
            t0 = time.monotonic()
            t.step()
            longest = max(longest, time.monotonic() - t0)
            steps += 1
            log.append((time.monotonic(), len(link.results), bool(led.state)))
            if faulted is None and link.state["status"] == "fault":
                faulted = time.monotonic()
                assert "hangs" in link.state["fault"]["message"]
            time.sleep(0.01)
        assert camera.hung is not None
        h0, h1 = camera.hung
        during = [x for x in log if h0 + 0.2 < x[0] < h1 - 0.2]
        answered = during[-1][1] - during[0][1] if during else 0
        leds = {x[2] for x in during}
        print(f"\ncamera read hung {h1 - h0:.1f} s: {len(during)} loop steps during it (longest step of the "
              f"run {longest * 1000:.0f} ms), {answered} commands answered during it, fault "
              f"{(faulted or h0) - h0:.1f} s into it, seat LED states {sorted(leds)}")
        assert len(during) > 50, "the loop went on while the camera read hung"
        assert answered >= 3
        assert leds == {False, True}, "the pending seat's LED kept blinking"
        assert faulted is not None and h0 + READ_DEADLINE_S <= faulted < h1
        assert link.state["fault"] is None and link.state["status"] == "confirm"     # cleared: frames again
        codes = [a["code"] for a in link.alerts]
        assert "camera_lost" in codes
    finally:
        t.close()


class Blinding(Camera):
    """Good frames, then ``show(kind)`` frames: black, white or flat (a palm on the lens)."""

    def __init__(self, image: np.ndarray) -> None:
        super().__init__(image)
        self.good = image
        h, w = image.shape[:2]
        rng = np.random.default_rng(1)
        self.kinds = {"black": np.clip(rng.normal(3, 2, (h, w, 3)), 0, 255).astype(np.uint8),
                      "white": np.full((h, w, 3), 253, np.uint8),
                      "covered": np.full((h, w, 3), 96, np.uint8)}

    def show(self, kind: str | None) -> None:
        self.image = self.kinds[kind] if kind else self.good


def test_black_white_and_covered_frames_are_a_fault_that_clears(tmp_path):
    t, link, factory, camera = setup(tmp_path, lambda room: Blinding(room.frame()))
    try:
        assert pump(t, lambda: t.vision.frames > BLIND_FRAMES)
        assert link.state["fault"] is None
        for kind, word in (("black", "black"), ("white", "white"), ("covered", "covered")):
            camera.show(kind)
            assert pump(t, lambda: link.state["fault"] is not None), kind
            assert word in link.state["fault"]["message"] and link.state["status"] == "fault"
            assert factory.pin(12).state                              # the fault LED
            camera.show(None)
            assert pump(t, lambda: link.state["fault"] is None), kind
            assert link.state["status"] == "ok"
        faults = [r["fault"] for r in t.journal.records if r.get("r") == "fault"] \
            if hasattr(t.journal, "records") else []
        print(f"\nblind frames: {len(link.alerts)} alerts ({', '.join(a['code'] for a in link.alerts)}); "
              f"fault records {len(faults)}")
        assert [a["code"] for a in link.alerts].count("camera_lost") == 3
        # a hand passing over the lens for a few frames is no fault
        camera.show("covered")
        pump(t, lambda: False, (BLIND_FRAMES // 3) / 30)     # a third of the frames a fault needs
        camera.show(None)
        assert not pump(t, lambda: link.state["fault"] is not None, 1.0)
    finally:
        t.close()


def test_a_recording_that_ends_is_a_fault(tmp_path):
    room = Room("french-32", True, 4, seed=2)
    link = NullLink()
    t = Table(Journal(tmp_path / "j"), link, table_id="t", start_event=START)
    t.vision = VisionInput(IterableSource([room.frame()] * 10), make_watcher(room.calibration,
                           Recogniser(room.profile), t.ts.candidates, 4), threaded=True)
    t.open()
    try:
        assert pump(t, lambda: link.state["fault"] is not None)
        assert "ended" in link.state["fault"]["message"] and t.vision.frames == 10
    finally:
        t.close()
