"""Keeping the calibration true when the camera is knocked: re-registration from the table markers.

Calibration fixes where the table, its seats and the empty table lie in the picture. Someone
brushing the camera's arm moves all of that by a few pixels, and the watcher would take the
whole table for changed (cards "removed" and "placed" again, or missed). So every frame, the
four ArUco markers' patches are compared with how they looked when last registered (a few
thousand pixels: well under a millisecond):

* all markers still in place: the frame goes on (through the correction found earlier, if any);
* one or two changed, the others in place: a sleeve or a hand lies over a corner; the camera
  has not moved, the frame goes on;
* three or four changed: the view moved (or the corners are all covered). The watcher is shown
  the last good frame (a still table: no event) until the picture is still again; then the
  markers are found afresh and a correction (current picture -> calibrated geometry) is fitted
  to them, and the frames go on through it. If fewer than three markers are found,
  :attr:`Registration.fault` says so and the frames go on through the last correction (the
  watcher copes with a small shift better than with no frames; seats near a zone's edge may be
  judged off) while the markers are looked for every :data:`SEARCH_EVERY` frames.

The reference patches come from the calibration's empty-table background; without one (a
calibration from given corner points) there is nothing to register against and frames pass as
they are.
"""
from __future__ import annotations

import cv2
import numpy as np

from vision.calibration import MARKER_IDS, find_markers
from vision.geometry import warp_to

# A marker patch compared with its reference: mean absolute difference of the two patches, each
# brought to zero mean and unit standard deviation (so a lamp or the auto-exposure, which scale
# the patch, do not count). bench/registration.py on rendered videos (lamp, shadows, hands,
# patterned cloth; sensor noise): in place <= 0.12 (4108 patches), shifted 1 px 0.17-0.23
# (harmless), 2 px >= 0.32, 3 px >= 0.48, under a sleeve >= 1.05. Set between in place and 2 px.
# (No real video of the markers exists yet: a real camera's noise and JPEG may raise "in place".)
MARKER_CHANGED = 0.25
# Changed markers (of 4) that mean the view moved rather than a corner being covered.
MOVED_MARKERS = 3
# Frames the marker patches must stay unchanged from one frame to the next before the markers are
# found again after a move (0.2 s at 30 fps): a design choice, not a measurement; the rendered
# knocks take 4 frames, and holding the last good frame this long costs a card event nothing.
STILL_FRAMES = 6
# A fitted correction that moves no marker centre by more than this (px) is no correction: the
# detector's own jitter on a still picture is ~0.1 px.
NO_MOVE_PX = 0.75
# The patch around a marker: its bounding box grown by this fraction of its side on each side, so
# a shift shows against the table around it as well as in its squares.
PATCH_MARGIN = 0.25
# While the markers are lost, look for them again every this many frames (a full-frame detection
# is ~10-20 ms at 1280x720: not on every frame; half a second at 30 fps).
SEARCH_EVERY = 15


def _patch_box(quad: np.ndarray, shape: tuple[int, ...]) -> tuple[int, int, int, int]:
    x0, y0 = quad.min(axis=0)
    x1, y1 = quad.max(axis=0)
    m = PATCH_MARGIN * max(x1 - x0, y1 - y0)
    h, w = shape[:2]
    return (int(max(0, x0 - m)), int(max(0, y0 - m)), int(min(w, x1 + m + 1)), int(min(h, y1 + m + 1)))


def normalised(grey: np.ndarray) -> np.ndarray:
    """A grey patch at zero mean and unit standard deviation (float32): light aside."""
    mean, std = cv2.meanStdDev(grey)
    return (grey.astype(np.float32) - np.float32(mean[0, 0])) / np.float32(max(float(std[0, 0]), 1.0))


def patch_change(a: np.ndarray, b: np.ndarray) -> float:
    """How different two grey patches of the same box are, light aside (see MARKER_CHANGED);
    either may be given already :func:`normalised` (float32)."""
    na = a if a.dtype == np.float32 else normalised(a)
    nb = b if b.dtype == np.float32 else normalised(b)
    return float(cv2.mean(cv2.absdiff(na, nb))[0])


class Registration:
    """Frames corrected to the calibrated geometry; see the module docstring."""

    def __init__(self, reference: np.ndarray | None) -> None:
        self.enabled = False
        self.fault: str | None = None
        self.correction: np.ndarray | None = None      # 3x3: current picture -> calibrated geometry
        self.moves = 0                                  # times the view was found moved (for reports)
        self._seen: dict[int, np.ndarray] = {}
        self._shape: tuple[int, int] = (0, 0)
        self._boxes: dict[int, tuple[int, int, int, int]] = {}
        self._templates: dict[int, np.ndarray] = {}
        self._centres: dict[int, np.ndarray] = {}       # marker centres in the calibrated geometry
        # (picture, its correction) shown while the view is off (the empty table at first)
        self._last_good: tuple[np.ndarray | None, np.ndarray | None] = (reference, None)
        self._previous: dict[int, np.ndarray] = {}
        self._still = 0
        self._since_search = 0
        self._moving = False
        if reference is None:
            return
        found = find_markers(reference)
        if len(found) < MOVED_MARKERS:
            return
        self._shape = reference.shape[:2]
        self._centres = {i: q.mean(axis=0) for i, q in found.items()}
        self._seen = dict(self._centres)                # where they were last seen in the picture
        self._set_templates(reference, found)
        self.enabled = True

    def _set_templates(self, image: np.ndarray, quads: dict[int, np.ndarray]) -> None:
        """Watch the markers of ``quads`` as they look in ``image`` (a marker not among them, covered
        when this was fitted, is watched again from the next re-registration that sees it)."""
        self._boxes = {i: _patch_box(q, image.shape) for i, q in quads.items()}
        self._templates = {i: normalised(p) for i, p in self._patches(image).items()}

    def _patches(self, image: np.ndarray) -> dict[int, np.ndarray]:
        out = {}
        for i, (x0, y0, x1, y1) in self._boxes.items():
            p = image[y0:y1, x0:x1]
            out[i] = cv2.cvtColor(p, cv2.COLOR_BGR2GRAY) if p.ndim == 3 else p
        return out

    def correct(self, image: np.ndarray) -> np.ndarray:
        """The frame to show the watcher in place of ``image`` (itself when nothing moved)."""
        picture, correction = self.view(image)
        return picture if correction is None else warp_to(picture, correction)

    def view(self, image: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        """(picture, correction): the frame to judge in place of ``image`` and the 3x3 map that
        brings it to the calibrated geometry (None: it is there). The caller warps only what it
        needs: the change detector its small copy on every frame, the full frame (~3 ms at
        1280x720) only when a card is looked at."""
        if not self.enabled or image.shape[:2] != self._shape:
            return image, None               # another frame size: the watcher reports that itself
        if self.fault is not None:
            # moved, markers unseen: frames go on through the last correction (the watcher copes
            # with a small shift better than with no frames), the markers looked for now and then
            self._since_search += 1
            if self._since_search >= SEARCH_EVERY:
                self._since_search = 0
                self._register(image)
            return self._good(image)
        patches = {i: normalised(p) for i, p in self._patches(image).items()}
        changed = [i for i, p in patches.items() if patch_change(p, self._templates[i]) > MARKER_CHANGED]
        if not self._moving and len(changed) < min(MOVED_MARKERS, len(patches)):
            return self._good(image)
        # the view moved: hold the last good frame until the picture is still, then re-register
        if not self._moving:
            self._moving, self._still = True, 0
        still = bool(self._previous) and all(patch_change(p, self._previous[i]) <= MARKER_CHANGED
                                             for i, p in patches.items() if i in self._previous)
        self._previous = patches
        self._still = self._still + 1 if still else 0
        if self._still < STILL_FRAMES:
            return self._last_good if self._last_good[0] is not None else (image, None)
        self._register(image)
        return self._good(image)

    def _good(self, image: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        self._last_good = (image, self.correction)
        return self._last_good

    def _register(self, image: np.ndarray) -> None:
        """Fit the correction to the markers seen now (4: a homography; 3: an affine map)."""
        found = {i: q for i, q in find_markers(image).items() if i in self._centres}
        self._moving, self._previous = False, {}
        if len(found) < MOVED_MARKERS:
            missing = sorted(set(MARKER_IDS) - set(found))
            self.fault = (f"the camera moved and table markers {', '.join(map(str, missing))} are not seen "
                          f"(covered?): seats may be judged off until they are; calibrate again if this lasts")
            self._since_search = 0
            return
        ids = sorted(found)
        src = np.float32([found[i].mean(axis=0) for i in ids])
        dst = np.float32([self._centres[i] for i in ids])
        if len(ids) == 4:
            h = cv2.getPerspectiveTransform(src, dst)
        else:
            h = np.vstack([cv2.getAffineTransform(src[:3], dst[:3]), [0.0, 0.0, 1.0]])
        off = float(np.linalg.norm(src - dst, axis=1).max())
        self.correction = None if off <= NO_MOVE_PX else h
        if max(float(np.linalg.norm(found[i].mean(axis=0) - self._seen[i])) for i in ids) > NO_MOVE_PX:
            self.moves += 1                  # not just the corners uncovered where they were
        self._seen.update({i: found[i].mean(axis=0) for i in ids})
        self._set_templates(image, found)
        self.fault = None
