"""Evidence: the picture behind each card event ("what the camera saw").

For every ``placed`` / ``needs_confirmation`` event the camera input hands this store the frame
and the card's quad; the store names the pictures at once (so the event, its journal record and
its MQTT messages can carry the name) and writes them from a worker thread, so encoding and a
slow SD card never hold up the frame loop. Per event two JPEGs go into the match's folder:

* ``m0003/000042-placed.jpg``: the card's bounding box with a margin, as the camera saw it (not
  straightened, so a hand, a neighbour or a wrong outline shows as it was);
* ``m0003/000042-placed.frame.jpg``: the whole frame at most :data:`FRAME_WIDTH` wide, the card
  outlined.

The event names the first (:func:`frame_name` gives the second). Writes are atomic (temp file,
then rename); a failed write logs one line and the events go on without pictures for
:data:`RETRY_S` seconds, then the store tries again: the table never stops for its evidence.
Each match folder is bounded in bytes (its oldest pictures deleted first) and only the last
``keep_matches`` match folders are kept (the oldest deleted first).
"""
from __future__ import annotations

import logging
import os
import queue
import re
import shutil
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
    import numpy as np

log = logging.getLogger("cardtable.evidence")

# Defaults of the [evidence] config section. A match of 20 hands of 32 cards is 640 events;
# bench/evidence.py measures ~40-60 KB per event (crop + frame) on rendered 1280x720 tables,
# so 50 MB holds such a match whole; 20 matches is about a month of club evenings.
DEFAULT_MAX_BYTES = 50 * 1024 * 1024
DEFAULT_KEEP_MATCHES = 20
# The small frame's width: enough to see which card lay where and whose hand was in, small
# enough (~25 KB) to keep hundreds per match.
FRAME_WIDTH = 480
# Margin around the card's bounding box in the crop, as a fraction of the box's longer side:
# shows the card's edges against the cloth, and what touched it.
CROP_MARGIN = 0.25
# A crop is scaled down to at most this many pixels on its longer side (a tablet shows it
# at ~300 px; the frame is there for context).
CROP_MAX_SIDE = 360
JPEG_QUALITY = 80
# Jobs waiting for the worker. A card event comes at most every few frames; 16 waiting jobs
# means the disk has stalled for seconds, and further pictures are dropped (one log line),
# never waited for.
QUEUE_JOBS = 16
# After a failed write the store hands out no names for this long, then tries again.
RETRY_S = 30.0
# Names a store makes; the web server serves nothing else (no path can leave the folder).
NAME = re.compile(r"m\d{4,6}/\d{6,9}-(placed|needs_confirmation)(\.frame)?\.jpg")
KINDS = ("placed", "needs_confirmation")


def frame_name(name: str) -> str:
    """The whole-frame picture beside the crop ``name``."""
    return name[:-len(".jpg")] + ".frame.jpg"


def safe_path(root: Path | str, name: str) -> Path | None:
    """The file ``name`` inside ``root``, or None if ``name`` is not one a store makes (so
    ``../``, absolute paths, encoded tricks and symlinks out of the folder all fail)."""
    if not isinstance(name, str) or not NAME.fullmatch(name):
        return None
    base = Path(root).resolve()
    p = (base / name).resolve()
    return p if p.is_relative_to(base) else None


def match_folder(number: int) -> str:
    return f"m{max(0, int(number)):04d}"


def pictures(image: np.ndarray, quad: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(crop, small outlined frame) of a card at ``quad`` in ``image`` (BGR). Pure."""
    # imported here: the table imports this module's names, and a table without a camera
    # (or a restart after a crash) should not wait for OpenCV and numpy to load
    import cv2
    import numpy as np

    H, W = image.shape[:2]
    q = np.asarray(quad, np.float32).reshape(4, 2)
    x0, y0 = q.min(axis=0)
    x1, y1 = q.max(axis=0)
    pad = CROP_MARGIN * max(x1 - x0, y1 - y0)
    x0, y0 = int(max(0, np.floor(x0 - pad))), int(max(0, np.floor(y0 - pad)))
    x1, y1 = int(min(W, np.ceil(x1 + pad))), int(min(H, np.ceil(y1 + pad)))
    crop = image[y0:max(y1, y0 + 1), x0:max(x1, x0 + 1)]
    long_ = max(crop.shape[:2])
    if long_ > CROP_MAX_SIDE:
        f = CROP_MAX_SIDE / long_
        crop = cv2.resize(crop, (max(1, round(crop.shape[1] * f)), max(1, round(crop.shape[0] * f))),
                          interpolation=cv2.INTER_AREA)
    f = min(1.0, FRAME_WIDTH / W)
    small = cv2.resize(image, (max(1, round(W * f)), max(1, round(H * f))), interpolation=cv2.INTER_AREA) \
        if f < 1.0 else image.copy()
    cv2.polylines(small, [np.round(q * f).astype(np.int32).reshape(-1, 1, 2)], True, (0, 255, 0), 2, cv2.LINE_AA)
    return np.ascontiguousarray(crop), small


def encode(image: np.ndarray) -> bytes:
    import cv2

    ok, buf = cv2.imencode(".jpg", image, [int(cv2.IMWRITE_JPEG_QUALITY), JPEG_QUALITY])
    if not ok:
        raise OSError("JPEG encoding failed")
    return buf.tobytes()


def write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to a temp file beside ``path`` and rename it there: a reader (the web
    server) sees the whole picture or none."""
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        with open(tmp, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        try:
            tmp.unlink()
        except OSError:
            pass
        raise


@dataclass
class _Job:
    name: str
    image: np.ndarray
    quad: np.ndarray


class EvidenceStore:
    """``save(image, quad, kind) -> name | None`` on the loop; the pictures follow from a worker.

    ``match`` says which match folder is current (a callable, asked at each save: a new
    ``start`` opens a new folder). ``threaded=False`` writes in :meth:`save` itself (tests,
    benches); ``clock`` and ``writer`` are injectable for tests.
    """

    def __init__(self, root: Path | str, *, match: Callable[[], int] | int = 1,
                 max_bytes: int = DEFAULT_MAX_BYTES, keep_matches: int = DEFAULT_KEEP_MATCHES,
                 threaded: bool = True, clock: Callable[[], float] = time.monotonic,
                 writer: Callable[[Path, bytes], None] = write_atomic) -> None:
        self.root = Path(root)
        self._match = match
        self.max_bytes = int(max_bytes)
        self.keep_matches = max(1, int(keep_matches))
        self.clock = clock
        self.writer = writer
        self.saved = 0                  # pictures pairs written
        self.failed = 0                 # jobs that failed or were dropped
        self._folder: str | None = None
        self._next = 1
        self._sizes: dict[str, int] = {}   # this match's files (name -> bytes), oldest first
        self._bytes = 0
        self._retry_at: float | None = None
        self._lock = threading.Lock()
        self._jobs: "queue.Queue[_Job | None]" = queue.Queue(maxsize=QUEUE_JOBS)
        self._thread: threading.Thread | None = None
        if threaded:
            self._thread = threading.Thread(target=self._work, name="cardtable-evidence", daemon=True)
            self._thread.start()

    # ----- on the loop ------------------------------------------------------------------
    def save(self, image: np.ndarray, quad: np.ndarray, kind: str) -> str | None:
        """Name the pictures of one card event and queue them; None when no picture will be
        taken (the store is failing, or the worker is far behind). Never raises for the disk."""
        if kind not in KINDS or image is None or quad is None:
            return None
        with self._lock:
            if self._retry_at is not None:
                if self.clock() < self._retry_at:
                    return None
                self._retry_at = None
            folder = match_folder(self._match() if callable(self._match) else self._match)
            if folder != self._folder:
                self._open_match(folder)
            name = f"{folder}/{self._next:06d}-{kind}.jpg"
            self._next += 1
        import numpy as np      # loaded already: the frame is an array

        job = _Job(name, image, np.asarray(quad, np.float32).copy())
        if self._thread is None:
            return name if self._do(job) else None
        try:
            self._jobs.put_nowait(job)
        except queue.Full:
            self._fail(f"{self.root}: {QUEUE_JOBS} pictures waiting (the disk is slow); dropping pictures")
            return None
        return name

    def _open_match(self, folder: str) -> None:
        """Continue the numbering of a match folder that exists (a restart mid-match)."""
        self._folder, self._next, self._sizes, self._bytes = folder, 1, {}, 0
        try:
            entries = sorted(os.scandir(self.root / folder), key=lambda e: e.name)
        except OSError:
            return                     # not made yet (the worker makes it), or unreadable
        for e in entries:
            name = f"{folder}/{e.name}"
            if NAME.fullmatch(name):
                try:
                    size = e.stat().st_size
                except OSError:
                    continue
                self._sizes[name] = size
                self._bytes += size
                self._next = max(self._next, int(e.name.split("-", 1)[0]) + 1)

    # ----- the worker -------------------------------------------------------------------
    def _work(self) -> None:
        while True:
            job = self._jobs.get()
            try:
                if job is None:
                    return
                self._do(job)
            finally:
                self._jobs.task_done()

    def _do(self, job: _Job) -> bool:
        try:
            crop, small = pictures(job.image, job.quad)
            folder = self.root / job.name.split("/", 1)[0]
            new = not folder.exists()
            folder.mkdir(parents=True, exist_ok=True)
            if new:
                self._rotate(folder.name)
            out = []
            for name, img in ((job.name, crop), (frame_name(job.name), small)):
                data = encode(img)
                self.writer(self.root / name, data)
                out.append((name, len(data)))
        except Exception as exc:         # a full or read-only disk, a bad frame: never the table's end
            self._fail(f"cannot write {self.root / job.name}: {getattr(exc, 'strerror', None) or exc}")
            return False
        with self._lock:
            if job.name.startswith(f"{self._folder}/"):
                for name, size in out:
                    self._sizes[name] = size
                    self._bytes += size
                self._bound()
        self.saved += 1
        return True

    def _fail(self, why: str) -> None:
        self.failed += 1
        with self._lock:
            first = self._retry_at is None
            self._retry_at = self.clock() + RETRY_S
        if first:
            log.warning("evidence: %s; card events go on without pictures (retry in %.0f s)", why, RETRY_S)

    def _bound(self) -> None:
        """Over the match's byte bound: delete its oldest pictures first (lock held)."""
        while self._bytes > self.max_bytes and len(self._sizes) > 2:
            name = next(iter(self._sizes))
            self._bytes -= self._sizes.pop(name)
            try:
                (self.root / name).unlink()
            except OSError:
                pass

    def _rotate(self, current: str) -> None:
        """Keep the last ``keep_matches`` match folders (by number), ``current`` among them."""
        try:
            folders = [p for p in self.root.iterdir() if p.is_dir() and re.fullmatch(r"m\d{4,6}", p.name)]
        except OSError:
            return
        folders.sort(key=lambda p: int(p.name[1:]))
        old = [p for p in folders if p.name != current][:max(0, len(folders) - self.keep_matches)]
        for p in old:
            shutil.rmtree(p, ignore_errors=True)

    # ----- shutting down ----------------------------------------------------------------
    def flush(self, timeout: float = 10.0) -> bool:
        """Wait until every queued picture is written (or failed); False on timeout."""
        if self._thread is None:
            return True
        deadline = time.monotonic() + timeout
        while self._jobs.unfinished_tasks and time.monotonic() < deadline:
            time.sleep(0.005)
        return not self._jobs.unfinished_tasks

    def close(self, timeout: float = 5.0) -> None:
        if self._thread is None or not self._thread.is_alive():
            return
        self.flush(timeout)
        try:
            self._jobs.put_nowait(None)
        except queue.Full:
            return                      # a stuck disk: the daemon thread is left behind
        self._thread.join(timeout)
