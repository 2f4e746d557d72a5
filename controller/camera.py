"""Vision as a table input: a frame source plus Vision II's ``TableWatcher``.

:class:`VisionInput` reads one frame per :meth:`poll` and returns the watcher's card events;
its :attr:`fault` is the source's complaint while a live camera is stalled or reopening
(``vision.sources.ReopeningSource`` never raises), ``None`` when frames flow. The table
loop turns a fault into a ``camera_lost`` fault record and the status LED.
"""
from __future__ import annotations

import logging
from typing import Any, Callable, Collection

log = logging.getLogger("cardtable.camera")


class CameraError(OSError):
    """The camera, its calibration or the deck profile cannot be loaded (one-line message)."""


class VisionInput:
    def __init__(self, source: Any, watcher: Any) -> None:
        self.source = source
        self.watcher = watcher
        self.frames = 0
        self.idle = False
        self._logged_fault: str | None = None

    @property
    def fault(self) -> str | None:
        status = getattr(self.source, "status", None)
        value = getattr(status, "value", status)
        if value in ("stalled", "reopening") and getattr(self.source, "faults", True):
            return f"camera: {getattr(self.source, 'message', '') or value}"
        return None

    def poll(self) -> list[Any]:
        frame = self.source.read()
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
        self.frames += 1
        return self.watcher.process(frame)

    def confirm(self, seat: int | None, card: str) -> None:
        confirm = getattr(self.watcher, "confirm", None)
        if confirm is not None:
            confirm(seat, card)

    def close(self) -> None:
        close = getattr(self.source, "close", None)
        if close is not None:
            close()


def make_watcher(calibration: Any, recogniser: Any, candidates: Callable[[], Collection[str] | None],
                 still_frames: int = 8) -> Any:
    from vision.tracking import TableWatcher

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
    return VisionInput(source, make_watcher(cal, Recogniser(profile), candidates, camera.still_frames))
