"""What the camera sees, as the watcher understands it: for setting up a table by eye.

:func:`annotate` draws seat zones, the cards the watcher believes are on the table (with their
seat and id, ``back`` or ``?``), the changed regions (red while moving, yellow while settling) and
the latest events. The picture goes to one of three outputs: a window (when a display and a GUI
build of OpenCV exist), a folder of annotated frames, or an MJPEG stream on a local port that any
browser on the club's network can open (``http://<pi>:8090/``).
"""
from __future__ import annotations

import collections
import os
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Deque, Protocol

import cv2
import numpy as np

from vision.calibration import SEAT_COLOURS
from vision.tracking import CardEvent, TableWatcher


def _label(img: np.ndarray, text: str, org: tuple[int, int], colour, scale: float = 0.6) -> None:
    from vision.calibration import draw_label

    draw_label(img, text, org, colour, scale)


def annotate(image_bgr: np.ndarray, watcher: TableWatcher, recent: Deque[CardEvent] | list[CardEvent] = (),
             status: str = "") -> np.ndarray:
    """The frame with zones, tracked cards, change regions and recent events drawn on it."""
    out = image_bgr.copy()
    zones = watcher.calibration.zones
    for i, poly in enumerate(zones.seats):
        cv2.polylines(out, [poly.astype(np.int32)], True, SEAT_COLOURS[i % len(SEAT_COLOURS)], 1, cv2.LINE_AA)
        c = poly.mean(axis=0)
        _label(out, str(i), (int(c[0]), int(c[1])), SEAT_COLOURS[i % len(SEAT_COLOURS)], 0.8)
    frame = watcher._frame_no
    for r in watcher.last_regions:
        x, y, w, h = r.bbox
        settling = frame - r.last_motion
        colour = (0, 0, 255) if settling < 1 else (0, 220, 255)
        cv2.rectangle(out, (x, y), (x + w, y + h), colour, 1)
    for c in watcher.cards:
        colour = (0, 255, 0) if c.card else ((255, 200, 0) if not c.face_up else (0, 128, 255))
        cv2.polylines(out, [c.quad.astype(np.int32)], True, colour, 2, cv2.LINE_AA)
        name = c.card or ("back" if not c.face_up else "?")
        ctr = c.centre
        _label(out, f"{c.seat}: {name}", (int(ctr[0]) - 40, int(ctr[1])), colour)
    lines = [f"frame {frame}  cards {len(watcher.cards)}  {status}".strip()]
    lines += [f"{e.frame}: {e.event} seat {e.seat} {e.card or ''}" for e in list(recent)[-5:]]
    for k, text in enumerate(lines):
        _label(out, text, (10, 22 + 20 * k), (255, 255, 255), 0.55)
    return out


class Output(Protocol):
    def show(self, image_bgr: np.ndarray) -> bool: ...   # False: the viewer asked to stop
    def close(self) -> None: ...


class WindowOutput:
    """An OpenCV window; raises RuntimeError at creation when no GUI is available."""

    def __init__(self, title: str = "cardtable watch") -> None:
        if not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
            raise RuntimeError("no display")
        try:
            cv2.namedWindow(title, cv2.WINDOW_NORMAL)
        except cv2.error as exc:
            raise RuntimeError(f"OpenCV has no GUI here ({str(exc).splitlines()[0]})") from None
        self.title = title

    def show(self, image_bgr: np.ndarray) -> bool:
        cv2.imshow(self.title, image_bgr)
        return (cv2.waitKey(1) & 0xFF) not in (ord("q"), 27)

    def close(self) -> None:
        cv2.destroyWindow(self.title)


class FolderOutput:
    """Annotated frames as JPEG files, every ``every``-th frame (and always when events happened)."""

    def __init__(self, directory: str | Path, every: int = 10) -> None:
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.every = max(1, every)
        self.count = 0
        self.written = 0
        self.force = False

    def show(self, image_bgr: np.ndarray) -> bool:
        if self.force or self.count % self.every == 0:
            cv2.imwrite(str(self.directory / f"watch_{self.count:06d}.jpg"), image_bgr, [cv2.IMWRITE_JPEG_QUALITY, 85])
            self.written += 1
        self.count += 1
        self.force = False
        return True

    def close(self) -> None:
        pass


class MjpegOutput:
    """An MJPEG stream at ``http://HOST:PORT/`` (a browser shows it live); latest frame only."""

    def __init__(self, port: int = 8090, host: str = "0.0.0.0") -> None:
        self._jpeg: bytes | None = None
        self._cond = threading.Condition()
        output = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:   # keep the terminal for events
                pass

            def do_GET(self) -> None:
                if self.path not in ("/", "/stream.mjpg"):
                    self.send_error(404)
                    return
                self.send_response(200)
                self.send_header("Content-Type", "multipart/x-mixed-replace; boundary=frame")
                self.send_header("Cache-Control", "no-cache")
                self.end_headers()
                last = None
                try:
                    while True:
                        with output._cond:
                            output._cond.wait_for(lambda: output._jpeg is not last, timeout=5)
                            jpeg = last = output._jpeg
                        if jpeg is None:
                            continue
                        self.wfile.write(b"--frame\r\nContent-Type: image/jpeg\r\nContent-Length: "
                                         + str(len(jpeg)).encode() + b"\r\n\r\n" + jpeg + b"\r\n")
                except (BrokenPipeError, ConnectionResetError):
                    return

        try:
            self.server = ThreadingHTTPServer((host, port), Handler)
        except OSError as exc:
            raise RuntimeError(f"cannot serve on port {port} ({exc.strerror or exc})") from None
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, name="mjpeg", daemon=True)
        self.thread.start()

    def show(self, image_bgr: np.ndarray) -> bool:
        ok, buf = cv2.imencode(".jpg", image_bgr, [cv2.IMWRITE_JPEG_QUALITY, 75])
        if ok:
            with self._cond:
                self._jpeg = buf.tobytes()
                self._cond.notify_all()
        return True

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class Recent(collections.deque):
    """The last few events, for drawing."""

    def __init__(self) -> None:
        super().__init__(maxlen=8)
