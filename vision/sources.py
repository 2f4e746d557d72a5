"""Frame sources: every camera-like thing behind one small interface, chosen by a config name.

``open_source("picamera2")``, ``open_source("opencv:0")`` (device), ``open_source("video:match.mp4")``,
``open_source("stream:rtsp://...")``, ``open_source("folder:frames/")``, ``open_source("synthetic:demo")``,
or a bare path/number/URL, which is guessed. Every source has ``read() -> Frame | None``,
``close()``, a ``status`` and ``finished``.

Live sources (cameras, streams) are wrapped in :class:`ReopeningSource`: a read that raises,
returns nothing, or takes too long marks the source ``stalled`` (the controller can show it as
a fault) and it is reopened with exponential back-off, without blocking the caller's loop and
without ever raising. Recorded sources (video files, folders, synthetic sequences) simply end.
"""
from __future__ import annotations

import enum
import re
import time
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Iterator, Protocol

import cv2
import numpy as np

# Fault messages a ReopeningSource keeps (for its status and the tests): the latest are what
# a person needs, and an unplugged camera retrying every 30 s for a week would otherwise grow.
MAX_FAULTS = 100
IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp"}


class SourceError(OSError):
    """A frame source cannot be opened (bad path, no camera, missing library); one-line message."""


class SourceStatus(enum.Enum):
    OK = "ok"
    STALLED = "stalled"        # no frame lately; will be reopened
    REOPENING = "reopening"    # waiting for the next reopen attempt
    ENDED = "ended"            # a recording reached its end


@dataclass(frozen=True)
class Frame:
    index: int
    image: np.ndarray          # BGR uint8
    t: float                   # seconds (source clock)


class FrameSource(Protocol):
    status: SourceStatus
    finished: bool             # True once no more frames will ever come
    def read(self) -> Frame | None: ...
    def close(self) -> None: ...


class _Base:
    status = SourceStatus.OK
    finished = False
    message = ""

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __iter__(self) -> Iterator[Frame]:
        while True:
            f = self.read()
            if f is None:
                if self.finished:
                    return
                continue
            yield f

    def close(self) -> None:  # pragma: no cover - overridden
        pass


class OpenCVSource(_Base):
    """cv2.VideoCapture on a device index, a video file or a stream URL."""

    def __init__(self, target: int | str, *, size: tuple[int, int] | None = None, live: bool | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.target = target
        self.live = isinstance(target, int) if live is None else live
        if isinstance(target, str) and not self.live and "://" not in target and not Path(target).is_file():
            raise SourceError(f"{target}: no such video file")
        self.cap = cv2.VideoCapture(target)
        if not self.cap.isOpened():
            raise SourceError(f"cannot open video source {target!r}")
        if size is not None:
            self.cap.set(cv2.CAP_PROP_FRAME_WIDTH, size[0])
            self.cap.set(cv2.CAP_PROP_FRAME_HEIGHT, size[1])
        self.clock = clock
        self.index = 0

    def read(self) -> Frame | None:
        ok, image = self.cap.read()
        if not ok or image is None:
            if not self.live:
                self.status, self.finished = SourceStatus.ENDED, True
                return None
            raise SourceError(f"video source {self.target!r} returned no frame")
        f = Frame(self.index, image, self.clock())
        self.index += 1
        return f

    def close(self) -> None:
        self.cap.release()


class FolderSource(_Base):
    """Images of a folder in name order (natural order: frame2 before frame10); unreadable files are skipped."""

    def __init__(self, directory: str | Path, *, fps: float = 30.0) -> None:
        self.directory = Path(directory)
        if not self.directory.is_dir():
            raise SourceError(f"{directory}: no such folder of images")
        key = lambda p: [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", p.name)]  # noqa: E731
        self.files = sorted((p for p in self.directory.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES), key=key)
        if not self.files:
            raise SourceError(f"{directory}: no images in this folder")
        self.fps = fps
        self.pos = 0
        self.skipped: list[Path] = []

    def read(self) -> Frame | None:
        while self.pos < len(self.files):
            i, path = self.pos, self.files[self.pos]
            self.pos += 1
            image = cv2.imread(str(path), cv2.IMREAD_COLOR)
            if image is None:
                self.skipped.append(path)
                continue
            return Frame(i, image, i / self.fps)
        self.status, self.finished = SourceStatus.ENDED, True
        return None

    def close(self) -> None:
        self.pos = len(self.files)


class IterableSource(_Base):
    """Frames from any iterable of BGR images (the synthetic renderer, tests)."""

    def __init__(self, images: Iterable[np.ndarray], *, fps: float = 30.0) -> None:
        self._it = iter(images)
        self.fps = fps
        self.index = 0

    def read(self) -> Frame | None:
        try:
            image = next(self._it)
        except StopIteration:
            self.status, self.finished = SourceStatus.ENDED, True
            return None
        f = Frame(self.index, image, self.index / self.fps)
        self.index += 1
        return f

    def close(self) -> None:
        self._it = iter(())


class Picamera2Source(_Base):
    """The Raspberry Pi camera; picamera2 is imported only here, so nothing breaks off-Pi."""

    def __init__(self, size: tuple[int, int] = (1280, 720), clock: Callable[[], float] = time.monotonic) -> None:
        try:
            from picamera2 import Picamera2  # type: ignore[import-not-found]
        except ImportError:
            raise SourceError("picamera2 is not installed (on a Pi: apt install python3-picamera2)") from None
        try:
            self.cam = Picamera2()
            config = self.cam.create_video_configuration(main={"size": size, "format": "RGB888"})
            self.cam.configure(config)
            self.cam.start()
        except Exception as exc:  # the library raises bare RuntimeErrors
            raise SourceError(f"cannot start the Pi camera ({exc})") from None
        self.clock = clock
        self.index = 0

    def read(self) -> Frame | None:
        image = self.cam.capture_array("main")   # RGB888 is BGR in memory order
        f = Frame(self.index, np.ascontiguousarray(image[:, :, :3]), self.clock())
        self.index += 1
        return f

    def close(self) -> None:
        try:
            self.cam.stop()
            self.cam.close()
        except Exception:
            pass


class ReopeningSource(_Base):
    """Wraps a live source: faults become a status and a reopen with back-off, never an exception.

    ``read()`` never sleeps; while waiting to reopen it returns None with status ``REOPENING``.
    A read slower than ``stall_seconds`` also counts as a stall. ``clock`` is injectable for tests.
    """

    def __init__(self, opener: Callable[[], FrameSource], *, stall_seconds: float = 2.0,
                 backoff: tuple[float, float] = (0.5, 30.0), clock: Callable[[], float] = time.monotonic) -> None:
        self.opener = opener
        self.stall_seconds = stall_seconds
        self.backoff_min, self.backoff_max = backoff
        self.clock = clock
        self.inner: FrameSource | None = None
        self.delay = self.backoff_min
        self.next_try = clock()
        self.reopen_count = 0
        self.faults: deque[str] = deque(maxlen=MAX_FAULTS)     # the latest only: a flaky camera runs for days
        self.index = 0
        self.status = SourceStatus.REOPENING
        self._try_open()

    def _fault(self, message: str) -> None:
        self.faults.append(message)
        self.message = message
        self.status = SourceStatus.STALLED
        if self.inner is not None:
            try:
                self.inner.close()
            except Exception:
                pass
        self.inner = None
        self.next_try = self.clock() + self.delay
        self.delay = min(self.delay * 2, self.backoff_max)

    def _try_open(self) -> None:
        try:
            self.inner = self.opener()
            self.status, self.message = SourceStatus.OK, ""
        except Exception as exc:
            self._fault(f"open failed: {exc}")

    def read(self) -> Frame | None:
        if self.inner is None:
            if self.clock() < self.next_try:
                self.status = SourceStatus.REOPENING if self.faults else self.status
                return None
            self.reopen_count += 1
            self._try_open()
            if self.inner is None:
                return None
        start = self.clock()
        try:
            frame = self.inner.read()
        except Exception as exc:
            self._fault(f"read failed: {exc}")
            return None
        if frame is None:
            self._fault("no frame")
            return None
        if self.clock() - start > self.stall_seconds:
            self.faults.append("slow frame")
            self.status = SourceStatus.STALLED
            self.message = "slow frame"
        else:
            self.status, self.message = SourceStatus.OK, ""
            self.delay = self.backoff_min
        f = Frame(self.index, frame.image, frame.t)
        self.index += 1
        return f

    def close(self) -> None:
        if self.inner is not None:
            self.inner.close()
        self.inner = None
        self.finished = True


def _synthetic(name: str) -> FrameSource:
    from vision.synthetic.sequences import named_sequence, sequence_frames

    seq = named_sequence(name)
    return IterableSource(sequence_frames(seq), fps=seq.fps)


def open_source(config: str | int | dict) -> FrameSource:
    """Build a frame source from its config name (see the module docstring); SourceError if impossible.

    A dict takes ``{"kind": ..., "target": ..., "size": [w, h]}``.
    """
    size = None
    if isinstance(config, dict):
        kind, target = str(config.get("kind", "")), config.get("target", "")
        size = tuple(config["size"]) if "size" in config else None
    elif isinstance(config, int):
        kind, target = "opencv", config
    else:
        text = str(config)
        kind, sep, target = text.partition(":")
        if not (sep and kind in {"picamera2", "opencv", "video", "stream", "folder", "synthetic"}):
            kind, target = _guess(text), text
    if kind == "picamera2":
        return ReopeningSource(lambda: Picamera2Source(size or (1280, 720)))
    if kind == "opencv":
        dev: int | str = int(target) if str(target).isdigit() else str(target)
        return ReopeningSource(lambda: OpenCVSource(dev, size=size, live=True))
    if kind == "stream":
        return ReopeningSource(lambda: OpenCVSource(str(target), live=True))
    if kind == "video":
        return OpenCVSource(str(target), live=False)
    if kind == "folder":
        return FolderSource(str(target))
    if kind == "synthetic":
        return _synthetic(str(target) or "demo")
    raise SourceError(f"unknown frame source {config!r} (picamera2, opencv:N, video:PATH, stream:URL, "
                      f"folder:DIR, synthetic:NAME)")


def _guess(text: str) -> str:
    if text == "picamera2":
        return "picamera2"
    if text.isdigit():
        return "opencv"
    if "://" in text:
        return "stream"
    p = Path(text)
    if p.is_dir():
        return "folder"
    if p.suffix.lower() in IMAGE_SUFFIXES:
        raise SourceError(f"{text}: a single image is not a video; give the folder it is in")
    if not p.exists():
        raise SourceError(f"{text}: no such video file or folder")
    return "video"
