"""Frame sources: recordings end, live sources that fail are reported and reopened with back-off."""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.sources import (Frame, FolderSource, IterableSource, OpenCVSource, ReopeningSource, SourceError,
                            SourceStatus, open_source)


class Clock:
    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


class FlakyCamera:
    """Gives ``good`` frames, then fails the way cameras do: raises, or returns nothing."""

    opened = 0

    def __init__(self, good: int, fault: str, clock: Clock | None = None, slow: float = 0.0) -> None:
        FlakyCamera.opened += 1
        self.left, self.fault, self.clock, self.slow = good, fault, clock, slow
        self.closed = False

    def read(self):
        if self.left <= 0:
            if self.fault == "raise":
                raise RuntimeError("camera unplugged")
            return None
        self.left -= 1
        if self.clock is not None:
            self.clock.t += self.slow
        return Frame(0, np.zeros((4, 4, 3), np.uint8), 0.0)

    def close(self) -> None:
        self.closed = True


@pytest.mark.parametrize("fault", ["raise", "none"])
def test_a_failing_camera_is_reported_and_reopened_with_backoff(fault):
    clock = Clock()
    FlakyCamera.opened = 0
    src = ReopeningSource(lambda: FlakyCamera(2, fault), clock=clock, backoff=(1.0, 4.0))
    got = [src.read() for _ in range(2)]
    assert all(f is not None for f in got) and src.status is SourceStatus.OK
    assert src.read() is None and src.status is SourceStatus.STALLED      # the fault, as a status
    assert src.read() is None and src.status is SourceStatus.REOPENING    # not before the back-off
    assert FlakyCamera.opened == 1
    clock.t = 1.0
    frame = src.read()                                                    # reopened
    assert frame is not None and frame.index == 2 and FlakyCamera.opened == 2
    assert src.status is SourceStatus.OK and src.reopen_count == 1


def test_backoff_grows_while_the_camera_stays_away_and_resets_after():
    clock = Clock()
    attempts = []

    def opener():
        attempts.append(clock.t)
        if len(attempts) < 4:
            raise OSError("no camera")
        return FlakyCamera(5, "raise")

    src = ReopeningSource(opener, clock=clock, backoff=(1.0, 3.0))
    for step in range(80):
        clock.t = step * 0.25
        if src.read() is not None:
            break
    assert attempts == [0.0, 1.0, 3.0, 6.0]                # 1, 2, then capped at 3 seconds
    assert src.status is SourceStatus.OK and src.delay == 1.0
    assert any("no camera" in f for f in src.faults)


def test_a_slow_frame_counts_as_a_stall():
    clock = Clock()
    src = ReopeningSource(lambda: FlakyCamera(3, "raise", clock, slow=5.0), clock=clock, stall_seconds=2.0)
    assert src.read() is not None
    assert src.status is SourceStatus.STALLED and src.message == "slow frame"


def test_folder_source_natural_order_and_unreadable_files_skipped(tmp_path):
    for i in (10, 2, 1):
        cv2.imwrite(str(tmp_path / f"frame{i}.png"), np.full((8, 8, 3), i, np.uint8))
    (tmp_path / "frame5.png").write_bytes(b"not an image")
    src = open_source(str(tmp_path))
    assert isinstance(src, FolderSource)
    values = [int(f.image[0, 0, 0]) for f in src]
    assert values == [1, 2, 10] and src.finished and src.status is SourceStatus.ENDED
    assert [p.name for p in src.skipped] == ["frame5.png"]


def test_video_file_source_reads_to_the_end(tmp_path):
    path = tmp_path / "v.avi"
    w = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10, (64, 48))
    for i in range(5):
        w.write(np.full((48, 64, 3), 40 * i, np.uint8))
    w.release()
    src = open_source(str(path))
    assert isinstance(src, OpenCVSource)
    assert len(list(src)) == 5 and src.finished


@pytest.mark.parametrize("spec, message", [
    ("/no/such/video.mp4", "no such video file or folder"),
    ("video:/no/such.mp4", "no such video file"),
    ("folder:/no/such/dir", "no such folder"),
    ("synthetic:nope", "unknown synthetic sequence"),
])
def test_bad_sources_are_one_line_errors(spec, message):
    with pytest.raises((SourceError, KeyError), match=message):
        open_source(spec)


def test_picamera2_off_pi_is_a_fault_not_a_crash():
    src = open_source("picamera2")
    assert src.read() is None
    assert src.status in (SourceStatus.STALLED, SourceStatus.REOPENING)
    assert "picamera2" in src.faults[0]


def test_iterable_source_numbers_frames():
    src = IterableSource([np.zeros((2, 2, 3), np.uint8)] * 3)
    assert [f.index for f in src] == [0, 1, 2]
