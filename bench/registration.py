"""The marker-patch measure behind vision/registration.py's MARKER_CHANGED, on rendered videos.

For every frame of the hard-event sequences (a lamp on and off with the exposure drifting, arms'
shadows, hands, a sleeve over a corner marker, the camera knocked) it compares each marker's
patch, in the picture as calibrated, with the first frame's, and prints the distribution per
kind of frame:

  in place   the camera where it was calibrated and the marker uncovered (whatever the light)
  shifted    the first frame moved by 1, 2 and 3 px (the smallest knocks)
  covered    the marker under the sleeve

MARKER_CHANGED must lie above every "in place" value and below every "shifted by 2 px" and
"covered" one.

It also measures change.CORRECT_SCALE: each cloth's empty table knocked by 6 px and rotated
0.5 degrees, corrected by the fitted registration, and its small change-detection image compared
with the calibrated one's (largest grey difference on the table): warped at 1, 2, 4 and 8 times
the small size, and the full frame warped. It must stay well below the change threshold (18).

Run: ``python bench/registration.py`` (a minute).
"""
from __future__ import annotations

import sys
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision import change                                        # noqa: E402
from vision.calibration import calibrate, find_markers           # noqa: E402
from vision.registration import MARKER_CHANGED, Registration, patch_change   # noqa: E402
from vision.synthetic.sequences import (SequenceBuilder, _knock, named_sequence,   # noqa: E402
                                        render_frames)


def main() -> None:
    groups: dict[str, list[float]] = {"in place": [], "shifted 1 px": [], "shifted 2 px": [],
                                      "shifted 3 px": [], "covered": []}
    for name, table in (("lamp", "light"), ("shadow", "plain"), ("knock", "wood"), ("busy", "patterned")):
        seq = named_sequence(name, size=(960, 540), table=table, seed=7)
        first = None
        for i, (image, _) in enumerate(render_frames(seq)):
            shot = seq.shots[i]
            if first is None:
                first, reg = image, Registration(image)
                continue
            if shot.camera != (0.0, 0.0, 0.0):
                continue                 # a knocked frame is neither in place nor a known shift
            now, ref = reg._patches(image), reg._templates
            for m, patch in now.items():
                kind = "covered" if shot.sleeve == m else "in place"
                groups[kind].append(patch_change(patch, ref[m]))
        for px in (1, 2, 3):
            moved = cv2.warpAffine(first, np.float32([[1, 0, px], [0, 1, 0]]), first.shape[1::-1],
                                   borderMode=cv2.BORDER_REFLECT)
            now = reg._patches(moved)
            groups[f"shifted {px} px"] += [patch_change(p, reg._templates[m]) for m, p in now.items()]
        print(f"{name:7s} on {table:9s}: {len(seq)} frames, markers found in the first: {sorted(find_markers(first))}")
    # a sleeve over each corner marker in turn, on a still table
    b = SequenceBuilder(size=(960, 540), seed=7, table="wood").idle(3)
    for m in range(4):
        b.cover_marker(m).idle(3)
    seq = b.cover_marker(None).build()
    frames = [image for image, _ in render_frames(seq)]
    reg = Registration(frames[0])
    for image, shot in zip(frames, seq.shots):
        if shot.sleeve is not None:
            groups["covered"].append(patch_change(reg._patches(image)[shot.sleeve], reg._templates[shot.sleeve]))
    print(f"\nMARKER_CHANGED = {MARKER_CHANGED}")
    for kind, v in groups.items():
        if v:
            a = np.array(v)
            print(f"  {kind:13s} n={len(a):5d}  min {a.min():.3f}  p50 {np.median(a):.3f}  p99 {np.percentile(a, 99):.3f}  max {a.max():.3f}")

    correct_scale()


def correct_scale() -> None:
    """The small image of a knocked, corrected view against the calibrated one (CORRECT_SCALE)."""
    size = (960, 540)
    print(f"\nCORRECT_SCALE = {change.CORRECT_SCALE}: largest grey difference on the table, knocked 6 px")
    for table in ("wood", "light", "patterned", "cloth", "plain"):
        ref, later = [i for i, _ in render_frames(SequenceBuilder(size=size, seed=3, table=table).idle(2).build())]
        knocked = cv2.warpAffine(later, _knock(size, (6.0, -4.0, 0.5)), size, borderMode=cv2.BORDER_REFLECT)
        reg = Registration(ref)
        while reg.correction is None:
            reg.view(knocked)
        cal = calibrate(ref)
        cd = change.ChangeDetector(size, table_polygon=cal.zones.table)
        want, on = cd.shrink(later), cd.table_mask.astype(bool)
        row = []
        for k in (1, 2, 4, 8):
            change.CORRECT_SCALE = k
            row.append(f"{k}x {int(cv2.absdiff(cd._corrected(knocked, reg.correction), want)[on].max()):3d}")
        full = cd.shrink(reg.correct(knocked))
        row.append(f"full frame {int(cv2.absdiff(full, want)[on].max()):3d}")
        print(f"  {table:10s} " + "  ".join(row))


if __name__ == "__main__":
    main()
