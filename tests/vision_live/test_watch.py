"""The watch view: annotated frames, and the MJPEG stream a browser opens."""
from __future__ import annotations

import urllib.request

import numpy as np

from vision.calibration import calibrate
from vision.synthetic.sequences import SequenceBuilder, render_frames
from vision.tracking import TableWatcher
from vision.watch import FolderOutput, MjpegOutput, Recent, annotate

from tests.vision_live.helpers import OracleRecogniser


def _watched():
    b = SequenceBuilder(size=(640, 360), card_scale=1.0)
    b.idle(5).play(0, "hearts/7").idle(12)
    rec, watcher, recent, last = OracleRecogniser(), None, Recent(), None
    for image, truth in render_frames(b.build()):
        watcher = watcher or TableWatcher(None, calibrate(image), rec)
        rec.show(image, truth)
        recent.extend(watcher.process(image))
        last = image
    return watcher, recent, last


def test_annotated_frame_shows_cards_and_events(tmp_path):
    watcher, recent, image = _watched()
    assert [e.card for e in recent] == ["hearts/7"]
    out = annotate(image, watcher, recent, "camera stalled")
    assert out.shape == image.shape and not np.array_equal(out, image)
    folder = FolderOutput(tmp_path, every=2)
    for _ in range(4):
        folder.show(out)
    assert folder.written == 2 and len(list(tmp_path.glob("*.jpg"))) == 2


def test_mjpeg_stream_serves_jpeg_frames():
    watcher, recent, image = _watched()
    out = MjpegOutput(port=0, host="127.0.0.1")
    try:
        out.show(annotate(image, watcher, recent))
        with urllib.request.urlopen(f"http://127.0.0.1:{out.port}/", timeout=5) as r:
            assert r.headers["Content-Type"].startswith("multipart/x-mixed-replace")
            head = r.read(200)
        assert b"--frame" in head and b"image/jpeg" in head and b"\xff\xd8" in head
    finally:
        out.close()
