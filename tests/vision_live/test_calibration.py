"""Calibration on rendered marker scenes recovers the table homography.

Tolerance: table corners within 1.5 px and any table point within 2.5 px of the truth, on a
1280x720 frame photographed with Vision I's stress options (tilt, light, glare, blur, noise, JPEG).
"""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.calibration import (Calibration, CalibrationError, annotate_calibration, calibrate,
                                find_markers, marker_sheet, write_marker_sheet)
from vision.synthetic import StressOptions
from vision.synthetic.sequences import CameraModel, SequenceBuilder, render_frames
from vision.table import TableConfig, parse_table_config


def _scene(seed: int, stress=StressOptions()):
    b = SequenceBuilder(seed=seed, stress=stress, table=("plain", "wood", "cloth")[seed % 3])
    b.idle(1)
    seq = b.build()
    image, _ = next(render_frames(seq))
    cam = CameraModel.from_stress(seq.size, seq.stress, seq.seed)
    return image, seq, cam


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_markers_give_the_homography(seed):
    image, seq, cam = _scene(seed)
    table = TableConfig(width_mm=1000, height_mm=560)
    cal = calibrate(image, table)
    truth_corners = cam.warp_points(seq.marker_centres)
    assert np.abs(cal.corners_px - truth_corners).max() < 1.5
    # any point of the table: mm -> ideal pixels (linear between marker centres) -> camera tilt
    u, v = np.meshgrid(np.linspace(0, 1, 5), np.linspace(0, 1, 5))
    mm = np.stack([u.ravel() * 1000, v.ravel() * 560], axis=1)
    c = seq.marker_centres
    ideal = c[0] + np.outer(u.ravel(), c[1] - c[0]) + np.outer(v.ravel(), c[3] - c[0])
    assert np.abs(cal.to_image(mm) - cam.warp_points(ideal)).max() < 2.5
    assert np.abs(cal.to_table_mm(cam.warp_points(ideal)) - mm).max() < 3.0


def test_default_seats_follow_the_contract():
    image, seq, _ = _scene(0, stress=None)
    cal = calibrate(image)
    w, h = seq.size
    assert cal.zones.seat_of((w / 2, h * 0.85)) == 0      # nearest the image bottom
    assert cal.zones.seat_of((w * 0.85, h / 2)) == 1      # then anticlockwise as seen
    assert cal.zones.seat_of((w / 2, h * 0.15)) == 2
    assert cal.zones.seat_of((w * 0.15, h / 2)) == 3
    cw = calibrate(image, clockwise=True)
    assert cw.zones.seat_of((w * 0.15, h / 2)) == 1
    assert cw.zones.seat_of((w * 0.85, h / 2)) == 3


def test_seats_from_a_table_config_are_projected():
    image, seq, _ = _scene(0, stress=None)
    table = parse_table_config({"table": {"width_mm": 1000, "height_mm": 500},
                                "seat": [{"polygon_mm": [[0, 250], [500, 250], [500, 500], [0, 500]]},
                                         {"polygon_mm": [[500, 250], [1000, 250], [1000, 500], [500, 500]]}],
                                "trick_area": {"polygon_mm": [[100, 100], [900, 100], [900, 400], [100, 400]]}})
    cal = calibrate(image, table)
    w, h = seq.size
    assert cal.zones.seat_of((w * 0.3, h * 0.8)) == 0
    assert cal.zones.seat_of((w * 0.7, h * 0.8)) == 1
    assert cal.zones.in_trick_area((w / 2, h / 2)) and not cal.zones.in_trick_area((w * 0.02, h / 2))


def test_missing_markers_are_a_clear_error():
    image, _, _ = _scene(0, stress=None)
    covered = image.copy()
    covered[:, :120] = 90                                  # markers 0 and 3 hidden
    with pytest.raises(CalibrationError, match="id 0, 3"):
        calibrate(covered)
    cal = calibrate(covered, points=[[50, 50], [1230, 50], [1230, 670], [50, 670]])
    assert cal.corners_px.shape == (4, 2)


def test_save_load_round_trip_and_check_picture(tmp_path):
    image, _, _ = _scene(1)
    cal = calibrate(image)
    cal.save(tmp_path / "cal.json")
    back = Calibration.load(tmp_path / "cal.json")
    assert np.allclose(back.homography, cal.homography, atol=1e-6)
    assert back.background is not None and back.background.shape == image.shape
    assert [s.tolist() for s in back.zones.seats] == [s.tolist() for s in cal.zones.seats]
    assert annotate_calibration(image, back).shape == image.shape
    with pytest.raises(CalibrationError):
        Calibration.load(tmp_path / "nope.json")


def test_printed_marker_sheet_is_detectable(tmp_path):
    page = marker_sheet()
    assert sorted(find_markers(cv2.cvtColor(page, cv2.COLOR_GRAY2BGR))) == [0, 1, 2, 3]
    png, pdf = write_marker_sheet(tmp_path)
    assert png.stat().st_size > 1000 and pdf.read_bytes().startswith(b"%PDF-1.4")


def test_rectified_view_is_in_millimetres():
    image, seq, cam = _scene(1)
    cal = calibrate(image, TableConfig(width_mm=1000, height_mm=560))
    top = cal.rectify(image, px_per_mm=0.5)
    assert top.shape[:2] == (280, 500)
    # a top-down pixel shows what the camera sees at that table point
    blurred, top_b = cv2.GaussianBlur(image, (9, 9), 3), cv2.GaussianBlur(top, (5, 5), 1.5)
    for x_mm, y_mm in [(100, 100), (500, 280), (900, 460), (250, 400)]:
        px, py = cal.to_image(np.array([[x_mm, y_mm]]))[0]
        a = top_b[int(y_mm * 0.5), int(x_mm * 0.5)].astype(int)
        b = blurred[int(round(py)), int(round(px))].astype(int)
        assert np.abs(a - b).max() < 25, (x_mm, y_mm, a, b)
