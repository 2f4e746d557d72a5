"""Vision as a table input: a frame source plus Vision II's ``TableWatcher``.

:class:`VisionInput` hands the watcher one frame per :meth:`poll` and returns its card
events; its :attr:`fault` names what is wrong while a live camera is stalled, reopening or
hanging in a read, while the frames are blind (black, white, covered) or after a recording
ended, ``None`` when frames flow. The table loop turns a fault into a ``camera_lost``
fault record (status ``fault``, an alert, the status LED), cleared when it ends.
"""
from __future__ import annotations

import dataclasses
import logging
import queue
import threading
import time
from typing import Any, Callable, Collection

log = logging.getLogger("cardtable.camera")


class CameraError(OSError):
    """The camera, its calibration or the deck profile cannot be loaded (one-line message)."""


# A camera read that has not returned after this long is a fault (the loop goes on
# meanwhile: the reader is its own thread). The same 2 s that vision.sources.ReopeningSource
# counts as a stall, so both report the same outage.
READ_DEADLINE_S = 2.0
# Blind frames, on the grey levels of a 1-in-8 subsample (frame_stats). Set from
# bench/camera_frames.py: 300 real table photos even at a quarter of their brightness (a
# poorly lit room) have mean >= 9.2 and std >= 8.6 (the demo's tables: mean 76-81, std
# >= 21); a black frame is mean 2.6, a blown-out one 251.5, a palm or cloth on the lens
# std 0.3. With these limits: 0 of 618 good frames taken for a fault, 0 of 10 faults missed.
BLACK_MEAN = 8.0
WHITE_MEAN = 240.0
FLAT_STD = 5.0
# Consecutive blind (or good) frames before the fault is raised (or cleared): half a second
# at 30 fps, so a hand passing over the lens is not a fault and a fault does not flicker.
BLIND_FRAMES = 15


def frame_stats(image: Any) -> tuple[float, float]:
    """(mean, standard deviation) of the grey levels of a 1-in-8 subsample of a BGR frame."""
    small = image[::8, ::8]
    grey = small.mean(axis=2) if small.ndim == 3 else small
    return float(grey.mean()), float(grey.std())


def blindness(image: Any) -> str | None:
    """What is wrong with a frame nothing can be seen in, or None."""
    mean, std = frame_stats(image)
    if mean < BLACK_MEAN:
        return "all-black frames (no light, or the lens is capped)"
    if mean > WHITE_MEAN:
        return "all-white frames (blown out: a lamp into the lens?)"
    if std < FLAT_STD:
        return "flat frames (the lens is covered)"
    return None


class VisionInput:
    """A frame source and the watcher, as the table loop's card input.

    ``threaded`` (a live camera, from the config): frames are read by a reader thread and
    handed over one at a time, so a read that hangs never blocks the loop (commands,
    buttons and blinking go on) and becomes a fault after :data:`READ_DEADLINE_S`.
    Unthreaded (the demo's scripted camera, tests): one read per :meth:`poll`, exactly
    reproducible. Either way, blind frames (black, white, covered) are not shown to the
    watcher and, after :data:`BLIND_FRAMES` in a row, are a fault until as many good ones
    come; a recording that ended is a fault too.
    """

    def __init__(self, source: Any, watcher: Any, *, threaded: bool = False,
                 clock: Callable[[], float] = time.monotonic, evidence: Any = None) -> None:
        self.source = source
        self.watcher = watcher
        self.evidence = evidence                 # controller.evidence.EvidenceStore, or None
        self.frames = 0
        self.idle = False
        self.clock = clock
        self._blind: str | None = None           # the reported blindness
        self._run = (None, 0)                    # (blindness of the last frames, how many in a row)
        self._reading_since: float | None = None
        self._slot: "queue.Queue[Any]" = queue.Queue(maxsize=1)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        if threaded:
            self._thread = threading.Thread(target=self._reader, name="cardtable-camera", daemon=True)
            self._thread.start()
        self._logged_fault: str | None = None

    @property
    def fault(self) -> str | None:
        since = self._reading_since
        if since is not None and self.clock() - since > READ_DEADLINE_S:
            return f"camera: no frame for {self.clock() - since:.0f} s (the camera read hangs)"
        status = getattr(self.source, "status", None)
        value = getattr(status, "value", status)
        if value in ("stalled", "reopening") and getattr(self.source, "faults", True):
            return f"camera: {getattr(self.source, 'message', '') or value}"
        ended = value == "ended" or getattr(self.source, "finished", False) is True
        drained = self._thread is None or (not self._thread.is_alive() and self._slot.empty())
        if ended and drained:                    # and its last frames were judged
            return "camera: the video source ended"
        if self._blind:
            return f"camera: {self._blind}"
        moved = getattr(getattr(self.watcher, "registration", None), "fault", None)
        if moved:
            return f"camera: {moved}"
        return None

    def _read(self) -> Any:
        self._reading_since = self.clock()
        try:
            return self.source.read()
        finally:
            self._reading_since = None

    def _reader(self) -> None:
        while not self._stop.is_set():
            frame = self._read()
            if frame is None:
                if getattr(self.source, "finished", False) is True:
                    return
                self._stop.wait(0.005)          # nothing ready (reopening): don't spin
                continue
            while not self._stop.is_set():
                try:
                    self._slot.put(frame, timeout=0.1)
                    break
                except queue.Full:
                    continue

    def poll(self) -> list[Any]:
        if self._thread is not None:
            try:
                frame = self._slot.get_nowait()
            except queue.Empty:
                frame = None
        else:
            frame = self._read()
        fault = self.fault
        if fault != self._logged_fault:             # one line per change, not per frame
            if fault:
                log.warning("%s", fault)
            else:
                log.warning("camera: frames again")
            self._logged_fault = fault
        self.idle = frame is None
        if frame is None:
            return []
        image = getattr(frame, "image", frame)
        blind = blindness(image) if image is not None else None
        kind, n = self._run
        self._run = (blind, n + 1 if blind == kind else 1)
        if self._run[1] >= BLIND_FRAMES:
            self._blind = blind
        if blind is not None:
            return []                            # nothing to see: the watcher keeps what it had
        self.frames += 1
        events = self.watcher.process(frame)
        if self.evidence is not None and events:
            events = [self._with_evidence(ev, image) for ev in events]
        return events

    def _with_evidence(self, ev: Any, image: Any) -> Any:
        """The event naming the picture of the frame that produced it (placed and
        needs_confirmation events with a quad; the store writes it off the loop)."""
        quad = getattr(ev, "quad", None)
        if quad is None or not dataclasses.is_dataclass(ev):
            return ev
        name = self.evidence.save(image, quad, ev.event)
        return dataclasses.replace(ev, evidence=name) if name else ev

    def confirm(self, seat: int | None, card: str) -> None:
        confirm = getattr(self.watcher, "confirm", None)
        if confirm is not None:
            confirm(seat, card)

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(1.0)               # a read that hangs is left behind (daemon)
        close = getattr(self.source, "close", None)
        if close is not None:
            close()


def make_watcher(calibration: Any, recogniser: Any, candidates: Callable[[], Collection[str] | None],
                 still_frames: int = 8) -> Any:
    from vision.tracking import TableWatcher

    # new cards found from the empty table, as `cardtable track` and `watch` find them
    return TableWatcher(None, calibration, recogniser, candidates, still_frames=still_frames)


def from_config(camera, candidates: Callable[[], Collection[str] | None]) -> VisionInput | None:
    """The ``[camera]`` section as an input; None when ``source = "none"``."""
    if camera.source in ("", "none"):
        return None
    try:
        from vision.calibration import Calibration
        from vision.profile import Profile
        from vision.recognise import Recogniser
        from vision.sources import open_source
    except ImportError as exc:
        raise CameraError(f"vision is not available in this installation: {exc}") from None
    if not camera.calibration or not camera.profile:
        raise CameraError("camera.calibration and camera.profile are needed when camera.source is set "
                          "(cardtable calibrate, cardtable enrol)")
    try:
        cal = Calibration.load(camera.calibration)
        profile = Profile.load(camera.profile)
        source = open_source(camera.source)
    except Exception as exc:   # their own typed errors, all with one-line messages
        raise CameraError(str(exc)) from None
    return VisionInput(source, make_watcher(cal, Recogniser(profile), candidates, camera.still_frames),
                       threaded=True)
