"""The printed marker sheet carries its own scale: 60 mm markers and a 100 mm bar at 150 dpi."""
from __future__ import annotations

import numpy as np

from vision.calibration import find_markers, marker_sheet

DPI = 150


def test_sheet_markers_and_scale_bar_have_the_stated_size():
    page = marker_sheet(60.0, DPI)
    px_per_mm = DPI / 25.4
    found = find_markers(page)
    assert sorted(found) == [0, 1, 2, 3]
    for quad in found.values():
        side_mm = np.linalg.norm(quad[1] - quad[0]) / px_per_mm
        assert abs(side_mm - 60.0) < 1.0, side_mm
    # the bar: the longest run of black in one row near the foot of the page
    rows = page[int(270 * px_per_mm):] < 128
    longest = max(int(np.diff(np.flatnonzero(np.diff(np.r_[0, r.astype(np.int8), 0]))).max(initial=0))
                  for r in rows[::2])
    assert abs(longest / px_per_mm - 100.0) < 1.0, longest / px_per_mm
