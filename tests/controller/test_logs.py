"""Faults reach stderr (journalctl) one line per event: the camera's, as the table loop sees them."""
from __future__ import annotations

import logging

import numpy as np
import pytest

from controller.camera import VisionInput
from controller.logs import OneLineFormatter
from vision.sources import Frame, ReopeningSource

pytestmark = pytest.mark.opencv      # through OpenCV/numpy: the Pi lane runs it (.ci/pi-lane)


class Camera:
    """An opened camera: gives frames."""

    def read(self):          # a textured view: black, white or covered frames are faults of their own
        return Frame(0, np.random.default_rng(0).integers(0, 256, (48, 64, 3), np.uint8), 0.0)

    def close(self) -> None:
        pass


def test_camera_fault_and_recovery_are_one_line_each(caplog):
    t = [0.0]
    state = {"plugged": False}

    def opener():
        if not state["plugged"]:
            raise OSError("cannot open video source 7")
        return Camera()

    class Watcher:
        def process(self, frame):
            return []

    vi = VisionInput(ReopeningSource(opener, clock=lambda: t[0]), Watcher())
    with caplog.at_level(logging.WARNING, logger="cardtable.camera"):
        for _ in range(50):                      # many polls while it is away: still one line
            vi.poll()
            t[0] += 0.1
        state["plugged"] = True
        for _ in range(400):
            vi.poll()
            t[0] += 0.1
    msgs = [r.getMessage() for r in caplog.records if r.name == "cardtable.camera"]
    assert msgs[0].startswith("camera: open failed: cannot open video source 7")
    assert msgs[-1] == "camera: frames again" and len(msgs) <= 4, msgs


def test_formatter_folds_a_traceback_into_one_line():
    try:
        raise ValueError("bad\nvalue")
    except ValueError:
        import sys

        rec = logging.LogRecord("x", logging.ERROR, __file__, 1, "it broke", None, sys.exc_info())
    line = OneLineFormatter("%(levelname)s %(name)s: %(message)s").format(rec)
    assert "\n" not in line and line.startswith("ERROR x: it broke") and "ValueError: bad" in line


def test_lines_go_to_stderr_as_it_is_when_logged(monkeypatch, capsys):
    """A worker thread may log after the stream seen at set-up was closed (CI failure of session 20)."""
    import io
    import sys

    from controller import logs

    root = logging.getLogger()
    saved = (list(root.handlers), root.level)
    try:
        earlier = io.StringIO()
        monkeypatch.setattr(sys, "stderr", earlier)
        logs.setup("warning")
        logs.setup("warning")                  # twice in one process: still one line per event
        monkeypatch.undo()
        earlier.close()
        logging.getLogger("cardtable.evidence").warning("evidence: cannot write x.jpg")
        err = capsys.readouterr().err
        assert err.count("cardtable WARNING cardtable.evidence: evidence: cannot write x.jpg") == 1, err
        assert "Logging error" not in err
    finally:
        for h in list(root.handlers):
            if isinstance(h, logs.StderrHandler):
                root.removeHandler(h)
        for h in saved[0]:
            if h not in root.handlers:
                root.addHandler(h)
        root.setLevel(saved[1])
