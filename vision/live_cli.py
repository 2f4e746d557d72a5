"""``cardtable track``, ``calibrate`` and ``watch``: the live table from the command line.

Each entry point takes its argument list and returns an exit code; anything a person can fix
(a bad path, a bad table config, markers not found) is one line on stderr and exit code 2.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Iterator, Sequence

import cv2
import numpy as np

from vision.calibration import (Calibration, CalibrationError, annotate_calibration, calibrate,
                                write_marker_sheet)
from vision.sources import Frame, FrameSource, SourceError, open_source
from vision.table import TableConfig, TableConfigError

MARKER_SEARCH_FRAMES = 60     # a hand may hide a marker at first: look this far for all four
# A camera gives its first frame about 1 s after opening (picamera2 configures the sensor, a USB
# camera negotiates); 8 s is room for a slow Pi. Without a frame by then the command stops and
# says why instead of waiting for ever (--wait changes it).
CAMERA_WAIT_S = 8.0
IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".bmp"}
MARKER_MM = 60.0     # printed marker side: big enough to be found 110 cm below the camera at 1280x720

OPENCV_LOG_ERROR = 2     # OpenCV's LOG_LEVEL_ERROR (cv2.utils.logging has no names for it in 4.6)
try:        # OpenCV's own warnings (a camera index that does not exist, ...) say it again, worse
    cv2.utils.logging.setLogLevel(OPENCV_LOG_ERROR)
except AttributeError:
    cv2.setLogLevel(OPENCV_LOG_ERROR)           # OpenCV 4.6


class CliError(Exception):
    """A one-line message for the user."""


def _table(path: str | None, size: str | None = None) -> TableConfig | None:
    """The table from the table config (the same TOML file ``cardtable run`` reads) and/or
    ``--size WxH``; None if neither is given."""
    from vision.table import parse_table_config

    geo: dict = {"table": {}}
    if path:
        from controller.config import ConfigError, load_config

        try:
            geo = load_config(path, check=False).geometry()
        except ConfigError as exc:
            raise TableConfigError(str(exc)) from None
    if size:
        w, sep, h = size.lower().partition("x")
        try:
            geo["table"]["width_mm"], geo["table"]["height_mm"] = float(w), float(h)
        except ValueError:
            raise CliError(f"--size {size!r}: WIDTHxHEIGHT in mm between marker centres, e.g. 900x900") from None
        if not sep or min(geo["table"]["width_mm"], geo["table"]["height_mm"]) <= 0:
            raise CliError(f"--size {size!r}: WIDTHxHEIGHT in mm between marker centres, e.g. 900x900")
    if not path and not size:
        return None
    return parse_table_config(geo, path or "--size")


def _has_size(table: TableConfig | None, path: str | None, size: str | None) -> bool:
    if size:
        return True
    if not path:
        return False
    from controller.config import load_config

    return load_config(path, check=False).has_size


def _points(text: Sequence[str] | None) -> list[list[float]] | None:
    if not text:
        return None
    try:
        pts = [[float(v) for v in p.split(",")] for p in text]
    except ValueError:
        raise CliError(f"--points: expected four x,y pairs, got {' '.join(text)!r}") from None
    if len(pts) != 4 or any(len(p) != 2 for p in pts):
        raise CliError("--points: expected exactly four x,y pairs (table corners 0..3 going round)")
    return pts


def _open(spec: str) -> FrameSource:
    return open_source(spec)


class _Deadline:
    """No frame from a live source for ``seconds``: a :class:`CliError` naming the source and
    its last complaint. Sources that end (files, folders) are never waited on."""

    def __init__(self, spec: str, source: FrameSource, seconds: float) -> None:
        self.spec, self.source, self.seconds = spec, source, seconds
        self.since = time.monotonic()

    def frame(self) -> None:
        self.since = time.monotonic()

    def none(self) -> None:
        if time.monotonic() - self.since > self.seconds:
            why = getattr(self.source, "message", "") or "no frame"
            raise CliError(f"{self.spec}: no frame in {self.seconds:g} s ({why}); is the camera connected "
                           f"and free? (--wait SECONDS to wait longer)")
        time.sleep(0.01)


def _add_wait(p: argparse.ArgumentParser) -> None:
    p.add_argument("--wait", type=float, default=CAMERA_WAIT_S, metavar="SECONDS",
                   help=f"give up on a camera that sends no frame for this long (default {CAMERA_WAIT_S:g})")


def _calibrate_from(source: FrameSource, table: TableConfig | None, points, clockwise: bool | None,
                    cal_path: str | None, deadline: "_Deadline") -> tuple[Calibration, list[Frame]]:
    """A calibration (loaded, or made from the first frames showing all four markers) and the
    frames read while looking, so nothing is skipped."""
    buffered: list[Frame] = []
    if cal_path:
        cal = Calibration.load(cal_path)
        return cal, buffered
    last_error: Exception | None = None
    while len(buffered) < MARKER_SEARCH_FRAMES:
        frame = source.read()
        if frame is None:
            if getattr(source, "finished", False):
                break
            deadline.none()
            continue
        deadline.frame()
        buffered.append(frame)
        try:
            cal = calibrate(buffered[0].image if points is not None else frame.image, table, points,
                            clockwise=clockwise)
            cal.background = buffered[0].image.copy()
            return cal, buffered
        except CalibrationError as exc:
            last_error = exc
            if points is not None:
                raise
    if not buffered:
        raise CliError("the video has no frames")
    raise CliError(f"{last_error} in the first {len(buffered)} frames; give --table with --points, "
                   f"or a --calibration file")


def _frames(source: FrameSource, buffered: list[Frame], limit: int | None = None,
            deadline: "_Deadline | None" = None) -> Iterator[Frame]:
    n = 0
    for f in buffered:
        if limit is not None and n >= limit:
            return
        n += 1
        yield f
    while limit is None or n < limit:
        f = source.read()
        if f is None:
            if getattr(source, "finished", False):
                return
            if deadline is not None:
                deadline.none()
            continue
        if deadline is not None:
            deadline.frame()
        n += 1
        yield f


def _watcher(profile_dir: str, cal: Calibration, still_frames: int, threshold: float | None):
    from vision.profile import Profile
    from vision.recognise import Recogniser
    from vision.tracking import TableWatcher

    profile = Profile.load(profile_dir)
    rec = Recogniser(profile) if threshold is None else Recogniser(profile, threshold=threshold)
    return TableWatcher(None, cal, rec, candidates=None, still_frames=still_frames)


def _run(name: str, body, argv: Sequence[str]) -> int:
    from vision.change import FrameSizeError
    from vision.errors import VisionError

    try:
        return body(argv)
    except (CliError, SourceError, CalibrationError, TableConfigError, VisionError, FrameSizeError,
            OSError) as exc:
        print(f"cardtable {name}: {exc}", file=sys.stderr)
        return 2


# -- track ------------------------------------------------------------------------------------------
def _track(argv: Sequence[str]) -> int:
    p = argparse.ArgumentParser(prog="cardtable track",
                                description="play a table video (or folder of frames) through the live "
                                            "pipeline; one JSON line per card event (CONTRACT §4)")
    p.add_argument("profile_dir")
    p.add_argument("video", help="video file, folder of images, or a camera (opencv:0, picamera2)")
    p.add_argument("--table", help="the table config (the TOML file `cardtable run` reads: [table] width_mm ...)")
    p.add_argument("--clockwise", action="store_true", help="number seats clockwise as seen in the image")
    p.add_argument("--calibration", help="a calibration file from 'cardtable calibrate' (else: markers)")
    p.add_argument("--points", nargs=4, metavar="X,Y", help="table corners 0..3 instead of markers")
    p.add_argument("--still-frames", type=int, default=8, help="frames a card must lie still (default 8)")
    p.add_argument("--threshold", type=float, help="identification confidence threshold")
    p.add_argument("--max-frames", type=int, help="stop after this many frames")
    _add_wait(p)
    args = p.parse_args(argv)
    _check_threshold(args.threshold)
    if not Path(args.profile_dir).is_dir():
        raise CliError(f"{args.profile_dir}: no such profile folder (run 'cardtable enrol' first)")
    table = _table(args.table)
    source = _open(args.video)
    deadline = _Deadline(args.video, source, args.wait)
    try:
        cal, buffered = _calibrate_from(source, table, _points(args.points),
                                        True if args.clockwise else None, args.calibration, deadline)
        watcher = _watcher(args.profile_dir, cal, args.still_frames, args.threshold)
        out = sys.stdout
        reg = watcher.registration
        said = (reg.moves, reg.fault)
        for frame in _frames(source, buffered, args.max_frames, deadline):
            for e in watcher.process(frame):
                out.write(json.dumps(e.to_json()) + "\n")
                out.flush()
            if (reg.moves, reg.fault) != said:           # the camera was knocked: say so on stderr
                print(f"cardtable track: frame {frame.index}: " +
                      (reg.fault or "the camera moved; re-registered from the table markers"), file=sys.stderr)
                said = (reg.moves, reg.fault)
    finally:
        source.close()
    return 0


def _check_threshold(value: float | None) -> None:
    if value is not None and not 0.0 <= value <= 1.0:
        raise CliError(f"--threshold {value:g}: a confidence between 0 and 1")


def track_main(argv: Sequence[str]) -> int:
    return _run("track", _track, argv)


# -- calibrate --------------------------------------------------------------------------------------
def _calibrate(argv: Sequence[str]) -> int:
    p = argparse.ArgumentParser(prog="cardtable calibrate",
                                description="find the table in the camera view (4 ArUco markers or 4 points), "
                                            "write a calibration file and a picture to check it by eye")
    p.add_argument("source", nargs="?", help="image, video, folder, or camera (picamera2, opencv:0)")
    p.add_argument("-o", "--output", default="calibration.json", help="calibration file to write")
    p.add_argument("--table", help="the table config (the TOML file `cardtable run` reads): [table] width_mm, "
                                   "height_mm, card_mm, clockwise; optional [[seats]] polygon_mm, [trick_area]")
    p.add_argument("--size", metavar="WxH", help="the table's size in mm between marker centres 0->1 and 1->2, "
                                                 "e.g. 900x900 (instead of width_mm/height_mm in --table)")
    p.add_argument("--clockwise", action="store_true", help="number seats clockwise as seen in the image")
    p.add_argument("--points", nargs=4, metavar="X,Y", help="table corners 0..3 (pixels) instead of markers")
    p.add_argument("--frames", type=int, default=5, help="frames averaged for the empty-table background")
    p.add_argument("--markers", metavar="DIR", help="also write the printable marker sheet (PNG + PDF) here")
    _add_wait(p)
    args = p.parse_args(argv)
    if args.markers:
        png, pdf = write_marker_sheet(args.markers, MARKER_MM)
        print(f"marker sheet: {png} and {pdf} (print at 100% scale: each black square is "
              f"{MARKER_MM:g} mm wide, the bar 100 mm)")
        if not args.source:
            return 0
    if not args.source:
        raise CliError("give an image, video, folder or camera to calibrate from (or --markers DIR)")
    table = _table(args.table, args.size)
    if Path(args.source).suffix.lower() in IMAGE_SUFFIXES:
        if not Path(args.source).is_file():
            raise CliError(f"{args.source}: no such image")
        image = cv2.imread(args.source)
        if image is None:
            raise CliError(f"{args.source}: not a readable image")
        images = [image]
    else:
        source = _open(args.source)
        try:
            images = [f.image for f in _frames(source, [], max(1, args.frames),
                                               _Deadline(args.source, source, args.wait))]
        finally:
            source.close()
        if not images:
            raise CliError(f"{args.source}: no frames")
    # the median of a few frames: an empty table without sensor noise
    background = images[0] if len(images) == 1 else np.median(np.stack(images), axis=0).astype(np.uint8)
    points = _points(args.points)
    cal = calibrate(background, table, points, clockwise=True if args.clockwise else None)  # markers first
    if not _has_size(table, args.table, args.size):
        table = _table(args.table, _ask_size())
        cal = calibrate(background, table, points, clockwise=True if args.clockwise else None)
    out = Path(args.output)
    bg_path = cal.save(out)
    check = out.with_suffix(".check.png")
    cv2.imwrite(str(check), annotate_calibration(background, cal))
    # the table seen from straight above, 1 pixel per mm: straight edges mean a good calibration
    cv2.imwrite(str(out.with_suffix(".topdown.png")), cal.rectify(background, px_per_mm=1.0))
    w, h = cal.card_px
    print(f"{out}: {len(cal.zones.seats)} seats, table {cal.table.width_mm:.0f}x{cal.table.height_mm:.0f} mm, "
          f"card {w:.0f}x{h:.0f} px; background {bg_path}; check the picture {check}")
    return 0


def _ask_size() -> str:
    """The table's size from the person at the terminal; without one, a message saying how to give it."""
    if not sys.stdin.isatty():
        raise CliError("the table's size is needed: --size WIDTHxHEIGHT (mm between marker centres 0->1 and "
                       "1->2, e.g. --size 900x900), or width_mm and height_mm in --table's [table]")
    w = input("table width, marker 0 -> 1 centre to centre, in mm: ").strip()
    h = input("table height, marker 1 -> 2 centre to centre, in mm: ").strip()
    return f"{w}x{h}"


def calibrate_main(argv: Sequence[str]) -> int:
    return _run("calibrate", _calibrate, argv)


# -- watch ------------------------------------------------------------------------------------------
def _watch(argv: Sequence[str]) -> int:
    from vision.watch import FolderOutput, MjpegOutput, Recent, WindowOutput, annotate

    p = argparse.ArgumentParser(prog="cardtable watch",
                                description="the camera view with zones, cards, labels and events: in a window "
                                            "if there is a display, else an MJPEG stream (--port) or frames (--out)")
    p.add_argument("profile_dir")
    p.add_argument("source", nargs="?", default="picamera2", help="camera or recording (default picamera2)")
    p.add_argument("--calibration", help="a calibration file from 'cardtable calibrate' (else: markers)")
    p.add_argument("--table", help="the table config (the TOML file `cardtable run` reads)")
    p.add_argument("--clockwise", action="store_true")
    p.add_argument("--port", type=int, help="serve an MJPEG stream on this port (open http://HOST:PORT/)")
    p.add_argument("--host", default="0.0.0.0",
                   help="with --port: address to listen on (default all, so a phone on the club network "
                        "can watch; 127.0.0.1 for this machine only)")
    p.add_argument("--out", help="write annotated frames into this folder")
    p.add_argument("--every", type=int, default=10, help="with --out: keep every Nth frame (default 10)")
    p.add_argument("--still-frames", type=int, default=8)
    p.add_argument("--max-frames", type=int, help="stop after this many frames")
    _add_wait(p)
    args = p.parse_args(argv)
    if not Path(args.profile_dir).is_dir():
        raise CliError(f"{args.profile_dir}: no such profile folder (run 'cardtable enrol' first)")
    if args.port is not None and not 0 <= args.port <= 65535:
        raise CliError(f"--port {args.port}: a port is 1-65535")
    table = _table(args.table)
    if args.port is not None:
        output = MjpegOutput(args.port, args.host)
        print(f"watch: MJPEG stream on http://localhost:{output.port}/ (Ctrl-C to stop)", file=sys.stderr)
    elif args.out:
        output = FolderOutput(args.out, args.every)
    else:
        try:
            output = WindowOutput()
        except RuntimeError as exc:
            output = FolderOutput("watch-frames", args.every)
            print(f"watch: no window ({exc}); writing annotated frames to watch-frames/ "
                  f"(or use --port 8090 for a live stream)", file=sys.stderr)
    source = _open(args.source)
    deadline = _Deadline(args.source, source, args.wait)
    try:
        cal, buffered = _calibrate_from(source, table, None, True if args.clockwise else None, args.calibration,
                                        deadline)
        watcher = _watcher(args.profile_dir, cal, args.still_frames, None)
        recent = Recent()
        for frame in _frames(source, buffered, args.max_frames, deadline):
            events = watcher.process(frame)
            for e in events:
                recent.append(e)
                print(json.dumps(e.to_json()), flush=True)
            if isinstance(output, FolderOutput):
                output.force = bool(events)
            status = getattr(source, "status", None)
            text = "" if status is None or status.value in ("ok", "ended") else f"camera {status.value}"
            if not output.show(annotate(frame.image, watcher, recent, text)):
                break
    finally:
        source.close()
        output.close()
    return 0


def watch_main(argv: Sequence[str]) -> int:
    return _run("watch", _watch, argv)
