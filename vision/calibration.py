"""Calibration: where the table is in the camera image, and what lies where on it.

The table plane is fixed by four ArUco markers (``DICT_4X4_50``, ids 0-3, one at each table
corner, going round the table) or by four points a person clicks. Marker *centres* are the table
corners, so the sizes in the table config are measured between marker centres. From them we get
a homography image -> table millimetres (a top-down view for people and for card size), the seat
zones and trick area in image pixels, the empty-table background and the card size in pixels.

A calibration is saved as JSON plus ``<name>.background.png`` beside it, and checked by eye with
:func:`annotate_calibration`.
"""
from __future__ import annotations

import json
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

import cv2
import numpy as np

from vision.table import (TableConfig, Zones, default_seat_triangles, order_around)

ARUCO_DICT = cv2.aruco.DICT_4X4_50
MARKER_IDS = (0, 1, 2, 3)
FORMAT_VERSION = 1


class CalibrationError(ValueError):
    """Calibration impossible (markers not found, bad points) or a calibration file is unusable."""


def _detector():
    """A function grey image -> (corners, ids): OpenCV >= 4.7's ``ArucoDetector``, or the free
    function of OpenCV 4.6 (Debian 12 and Raspberry Pi OS Bookworm ship 4.6)."""
    aruco = cv2.aruco
    dictionary = aruco.getPredefinedDictionary(ARUCO_DICT)
    if hasattr(aruco, "ArucoDetector"):
        params = aruco.DetectorParameters()
        params.cornerRefinementMethod = aruco.CORNER_REFINE_SUBPIX
        detector = aruco.ArucoDetector(dictionary, params)
        return lambda grey: detector.detectMarkers(grey)[:2]
    params = aruco.DetectorParameters_create()      # refined below, as OpenCV >= 4.8 does
    return lambda grey: _refined(grey, *aruco.detectMarkers(grey, dictionary, parameters=params)[:2])


# OpenCV >= 4.8 sizes the sub-pixel window to the marker: min(5 px, 0.3 of one of its 6 modules)
# (``relativeCornerRefinmentWinSize``); 4.6's fixed 5 px drags a small marker's corners onto its
# white border by ~4 px. Measured on paste_markers(..., 44 px): 4.6 fixed -> 4.3 px off, this -> 0.1 px.
REFINE_MAX_WIN_PX = 5
REFINE_WIN_PER_MODULE = 0.3


def _refined(grey: np.ndarray, corners, ids):
    criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 30, 0.1)
    out = []
    for quad in corners:
        q = np.ascontiguousarray(quad.reshape(4, 1, 2), np.float32)
        module = cv2.arcLength(q, True) / 4 / 6
        win = max(1, min(REFINE_MAX_WIN_PX, int(REFINE_WIN_PER_MODULE * module)))
        cv2.cornerSubPix(grey, q, (win, win), (-1, -1), criteria)
        out.append(q.reshape(1, 4, 2))
    return out, ids


def find_markers(image_bgr: np.ndarray) -> dict[int, np.ndarray]:
    """Table markers seen in the image: id -> (4, 2) corner pixels (only ids 0-3, first of each)."""
    grey = image_bgr if image_bgr.ndim == 2 else cv2.cvtColor(image_bgr, cv2.COLOR_BGR2GRAY)
    found: dict[int, np.ndarray] = {}
    detect = _detector()
    # glare, blur and sensor noise each defeat the plain detector now and then; a smoothed and a
    # contrast-equalised look usually find what it missed (calibration is not time-critical)
    variants = (lambda g: g, lambda g: cv2.GaussianBlur(g, (3, 3), 0),
                lambda g: cv2.createCLAHE(2.0, (8, 8)).apply(g))
    for variant in variants:
        corners, ids = detect(variant(grey))
        if ids is not None:
            for quad, mid in zip(corners, ids.ravel()):
                if int(mid) in MARKER_IDS and int(mid) not in found:
                    found[int(mid)] = quad.reshape(4, 2).astype(np.float32)
        if len(found) == len(MARKER_IDS):
            break
    return found


def marker_centres(image_bgr: np.ndarray) -> np.ndarray:
    """The four table corners (marker centres, in id order 0..3); CalibrationError names the missing ids."""
    found = find_markers(image_bgr)
    missing = [i for i in MARKER_IDS if i not in found]
    if missing:
        raise CalibrationError(
            f"table markers not found: id {', '.join(map(str, missing))} (need ArUco DICT_4X4_50 ids 0-3 "
            f"at the table corners; saw {sorted(found) or 'none'})")
    return np.array([found[i].mean(axis=0) for i in MARKER_IDS], np.float32)


@dataclass
class Calibration:
    """Everything the live pipeline needs to know about one camera position over one table."""

    image_size: tuple[int, int]            # (width, height) of the frames it was made from
    corners_px: np.ndarray                 # (4, 2) table corners 0..3 in the image
    table: TableConfig
    zones: Zones
    card_px: tuple[float, float]           # a card's (short, long) side in pixels at table centre
    background: np.ndarray | None = None   # the empty table (BGR), same size as the frames
    homography: np.ndarray = field(init=False)   # image pixels -> table mm

    def __post_init__(self) -> None:
        self.homography = cv2.getPerspectiveTransform(
            np.asarray(self.corners_px, np.float32), self.table.corners_mm)

    # -- geometry ---------------------------------------------------------------------------------
    def to_table_mm(self, points_px: np.ndarray) -> np.ndarray:
        pts = np.asarray(points_px, np.float32).reshape(-1, 1, 2)
        return cv2.perspectiveTransform(pts, self.homography).reshape(-1, 2)

    def to_image(self, points_mm: np.ndarray) -> np.ndarray:
        pts = np.asarray(points_mm, np.float32).reshape(-1, 1, 2)
        return cv2.perspectiveTransform(pts, np.linalg.inv(self.homography)).reshape(-1, 2)

    def rectify(self, image_bgr: np.ndarray, px_per_mm: float = 1.0) -> np.ndarray:
        """A top-down view of the table, ``px_per_mm`` pixels per millimetre."""
        scale = np.diag([px_per_mm, px_per_mm, 1.0])
        size = (int(round(self.table.width_mm * px_per_mm)), int(round(self.table.height_mm * px_per_mm)))
        return cv2.warpPerspective(image_bgr, scale @ self.homography, size)

    @property
    def card_area_px(self) -> float:
        return self.card_px[0] * self.card_px[1]

    # -- persistence ------------------------------------------------------------------------------
    def to_json(self) -> dict:
        t = self.table
        return {
            "format_version": FORMAT_VERSION,
            "image_size": list(self.image_size),
            "corners_px": self.corners_px.tolist(),
            "table": {"width_mm": t.width_mm, "height_mm": t.height_mm, "card_mm": list(t.card_mm),
                      "clockwise": t.clockwise, "seats_mm": [s.tolist() for s in t.seats_mm],
                      "trick_area_mm": None if t.trick_area_mm is None else t.trick_area_mm.tolist(),
                      "source": t.source},
            "seats_px": [s.tolist() for s in self.zones.seats],
            "trick_area_px": self.zones.trick_area.tolist(),
            "card_px": list(self.card_px),
            "homography": self.homography.tolist(),
        }

    def save(self, path: str | Path) -> Path:
        """Write ``path`` (JSON) and the background beside it; returns the background's path."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        bg_path = path.with_suffix(".background.png")
        if self.background is not None:
            cv2.imwrite(str(bg_path), self.background)
        tmp = path.with_suffix(path.suffix + ".tmp")
        tmp.write_text(json.dumps(self.to_json(), indent=1))
        tmp.replace(path)
        return bg_path

    @classmethod
    def load(cls, path: str | Path) -> "Calibration":
        path = Path(path)
        try:
            d = json.loads(path.read_text())
            t = d["table"]
            table = TableConfig(float(t["width_mm"]), float(t["height_mm"]), tuple(t["card_mm"]),
                                bool(t["clockwise"]), tuple(np.asarray(s, np.float32) for s in t["seats_mm"]),
                                None if t["trick_area_mm"] is None else np.asarray(t["trick_area_mm"], np.float32),
                                t.get("source", str(path)))
            corners = np.asarray(d["corners_px"], np.float32)
            zones = Zones([np.asarray(s, np.float32) for s in d["seats_px"]],
                          np.asarray(d["trick_area_px"], np.float32), order_around(corners))
            bg_path = path.with_suffix(".background.png")
            background = cv2.imread(str(bg_path)) if bg_path.exists() else None
            return cls(tuple(d["image_size"]), corners, table, zones, tuple(d["card_px"]), background)
        except FileNotFoundError:
            raise CalibrationError(f"{path}: no such calibration file") from None
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise CalibrationError(f"{path}: not a cardtable calibration file ({exc})") from None


def calibrate(image_bgr: np.ndarray, table: TableConfig | None = None,
              points: Sequence[Sequence[float]] | None = None, *, clockwise: bool | None = None,
              background: bool = True) -> Calibration:
    """Calibrate from one frame of the table: its markers, or four given corner points (0..3 going
    round). The frame becomes the empty-table background unless ``background=False``."""
    table = table or TableConfig()
    if points is not None:
        corners = np.asarray(points, np.float32)
        if corners.shape != (4, 2):
            raise CalibrationError("calibration needs exactly four corner points x,y")
    else:
        corners = marker_centres(image_bgr)
    hull = cv2.convexHull(corners.reshape(-1, 1, 2))
    if len(hull) != 4 or cv2.contourArea(hull) < 0.01 * image_bgr.shape[0] * image_bgr.shape[1]:
        raise CalibrationError("the four table corners do not form a convex quadrilateral of useful size")
    cw = table.clockwise if clockwise is None else clockwise
    h_img = cv2.getPerspectiveTransform(table.corners_mm, corners)   # table mm -> image

    def project(poly_mm: np.ndarray) -> np.ndarray:
        return cv2.perspectiveTransform(np.asarray(poly_mm, np.float32).reshape(-1, 1, 2), h_img).reshape(-1, 2)

    seats = [project(s) for s in table.seats_mm] if table.seats_mm else default_seat_triangles(corners, cw)
    trick = project(table.trick_area_mm) if table.trick_area_mm is not None else order_around(corners)
    zones = Zones(seats, trick, order_around(corners))
    # a card's sides in pixels, measured at the table centre
    cx, cy = table.width_mm / 2, table.height_mm / 2
    cw_mm, ch_mm = table.card_mm
    card = project(np.array([[cx - cw_mm / 2, cy - ch_mm / 2], [cx + cw_mm / 2, cy - ch_mm / 2],
                             [cx + cw_mm / 2, cy + ch_mm / 2], [cx - cw_mm / 2, cy + ch_mm / 2]]))
    side_w = float((np.linalg.norm(card[1] - card[0]) + np.linalg.norm(card[2] - card[3])) / 2)
    side_h = float((np.linalg.norm(card[3] - card[0]) + np.linalg.norm(card[2] - card[1])) / 2)
    h, w = image_bgr.shape[:2]
    return Calibration((w, h), corners, table, zones, (min(side_w, side_h), max(side_w, side_h)),
                       image_bgr.copy() if background else None)


def draw_label(img: np.ndarray, text: str, org: tuple[int, int], colour, scale: float = 0.7,
               centred: bool = False) -> None:
    """Text drawn once, on a dark box, so it reads on any table. (A black outline drawn under
    the text, as before, doubles the letters with OpenCV >= 5's font, whose glyphs change
    width with the thickness.)"""
    font, thick = cv2.FONT_HERSHEY_SIMPLEX, max(1, int(round(scale * 2)))
    (w, h), base = cv2.getTextSize(text, font, scale, thick)
    x, y = (org[0] - w // 2, org[1] + h // 2) if centred else org
    x = min(max(x, 0), max(img.shape[1] - w - 1, 0))
    y = min(max(y, h + 4), img.shape[0] - base - 2)
    cv2.rectangle(img, (x - 4, y - h - 4), (x + w + 4, y + base + 2), (20, 20, 20), -1)
    cv2.putText(img, text, (x, y), font, scale, colour, thick, cv2.LINE_AA)


SEAT_COLOURS = [(60, 180, 255), (90, 220, 90), (255, 160, 60), (220, 90, 220), (80, 220, 220), (200, 200, 80)]


def annotate_calibration(image_bgr: np.ndarray, cal: Calibration) -> np.ndarray:
    """The frame with table outline, seat zones (numbered), trick area and a card-sized box drawn:
    a person can see at a glance whether the camera and config agree."""
    out = image_bgr.copy()
    overlay = out.copy()
    for i, poly in enumerate(cal.zones.seats):
        cv2.fillPoly(overlay, [poly.astype(np.int32)], SEAT_COLOURS[i % len(SEAT_COLOURS)])
    out = cv2.addWeighted(overlay, 0.25, out, 0.75, 0)
    scale = max(0.5, out.shape[1] / 1280 * 0.8)     # legible on a phone at any camera resolution
    for i, poly in enumerate(cal.zones.seats):
        colour = SEAT_COLOURS[i % len(SEAT_COLOURS)]
        cv2.polylines(out, [poly.astype(np.int32)], True, colour, 2)
        c = poly.mean(axis=0)
        draw_label(out, f"seat {i}", (int(c[0]), int(c[1])), colour, scale, centred=True)
    cv2.polylines(out, [cal.zones.trick_area.astype(np.int32)], True, (255, 255, 255), 1)
    centre_px = cal.corners_px.mean(axis=0)
    for i, p in enumerate(cal.corners_px):
        cv2.circle(out, (int(p[0]), int(p[1])), 6, (0, 0, 255), -1)
        inward = centre_px - p
        at = p + 0.12 * inward                         # beside the marker, towards the table's centre
        draw_label(out, f"marker {i}", (int(at[0]), int(at[1])), (80, 80, 255), scale * 0.8, centred=True)
    centre = cal.to_image(np.array([[cal.table.width_mm / 2, cal.table.height_mm / 2]]))[0]
    w, h = cal.card_px
    box = cv2.boxPoints(((float(centre[0]), float(centre[1])), (w, h), 0.0)).astype(np.int32)
    cv2.polylines(out, [box], True, (0, 255, 255), 2)
    text = (f"table {cal.table.width_mm:.0f}x{cal.table.height_mm:.0f} mm  card {w:.0f}x{h:.0f} px  "
            f"{len(cal.zones.seats)} seats")
    draw_label(out, text, (10, out.shape[0] - 12), (255, 255, 255), scale * 0.8)
    return out


# -- printable markers ----------------------------------------------------------------------------
def marker_image(marker_id: int, side_px: int) -> np.ndarray:
    """One table marker (with its white quiet border included in ``side_px``)."""
    inner = int(side_px * 0.75)
    aruco = cv2.aruco
    draw = getattr(aruco, "generateImageMarker", None) or aruco.drawMarker    # drawMarker: OpenCV 4.6
    img = draw(aruco.getPredefinedDictionary(ARUCO_DICT), marker_id, inner)
    pad = (side_px - inner) // 2
    return cv2.copyMakeBorder(img, pad, side_px - inner - pad, pad, side_px - inner - pad,
                              cv2.BORDER_CONSTANT, value=255)


def marker_sheet(marker_mm: float = 60.0, dpi: int = 150) -> np.ndarray:
    """An A4 page (grey image) with markers 0-3 and cutting/placement notes."""
    px_per_mm = dpi / 25.4
    page = np.full((int(297 * px_per_mm), int(210 * px_per_mm)), 255, np.uint8)
    side = int(marker_mm / 0.75 * px_per_mm)
    names = ["0: first corner", "1: next corner", "2: opposite 0", "3: last corner"]
    for i in MARKER_IDS:
        col, row = i % 2, i // 2
        x = int((25 + col * 95) * px_per_mm)
        y = int((40 + row * 120) * px_per_mm)
        page[y:y + side, x:x + side] = marker_image(i, side)
        cv2.rectangle(page, (x, y), (x + side, y + side), 180, 1)
        cv2.putText(page, f"id {names[i]}", (x, y + side + int(8 * px_per_mm)), cv2.FONT_HERSHEY_SIMPLEX,
                    0.9 * dpi / 150, 0, 2)
    note = ["cardtable table markers (ArUco DICT_4X4_50). Print at 100% scale:",
            f"each black square is {marker_mm:g} mm wide and the bar below is 100 mm.",
            "Stick one at each table corner, ids 0,1,2,3 going round the table.",
            "Measure width (0->1) and height (1->2) between marker centres."]
    for k, line in enumerate(note):
        cv2.putText(page, line, (int(15 * px_per_mm), int((12 + 6 * k) * px_per_mm)),
                    cv2.FONT_HERSHEY_SIMPLEX, 0.6 * dpi / 150, 0, 1, cv2.LINE_AA)
    # a 100 mm scale bar with 10 mm ticks: a ruler on the print checks the printer's scale
    x0, y0 = int(15 * px_per_mm), int(283 * px_per_mm)
    cv2.rectangle(page, (x0, y0), (x0 + int(round(100 * px_per_mm)), y0 + int(2 * px_per_mm)), 0, -1)
    for mm in range(0, 101, 10):
        x = x0 + int(round(mm * px_per_mm))
        cv2.line(page, (x, y0 - int(3 * px_per_mm)), (x, y0), 0, 1)
    cv2.putText(page, "100 mm", (x0 + int(104 * px_per_mm), y0 + int(2 * px_per_mm)),
                cv2.FONT_HERSHEY_SIMPLEX, 0.6 * dpi / 150, 0, 1, cv2.LINE_AA)
    return page


def write_pdf_grey(page: np.ndarray, path: str | Path, width_mm: float = 210.0, height_mm: float = 297.0) -> None:
    """A one-page PDF holding a grey image at the given paper size (no PDF library needed)."""
    h, w = page.shape
    data = zlib.compress(np.ascontiguousarray(page).tobytes())
    pw, ph = width_mm / 25.4 * 72, height_mm / 25.4 * 72
    content = f"q {pw:.2f} 0 0 {ph:.2f} 0 0 cm /Im0 Do Q".encode()
    objs = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {pw:.2f} {ph:.2f}] "
        f"/Resources << /XObject << /Im0 4 0 R >> >> /Contents 5 0 R >>".encode(),
        f"<< /Type /XObject /Subtype /Image /Width {w} /Height {h} /ColorSpace /DeviceGray "
        f"/BitsPerComponent 8 /Filter /FlateDecode /Length {len(data)} >>\nstream\n".encode() + data + b"\nendstream",
        f"<< /Length {len(content)} >>\nstream\n".encode() + content + b"\nendstream",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for i, obj in enumerate(objs, 1):
        offsets.append(len(out))
        out += f"{i} 0 obj\n".encode() + obj + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objs) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{o:010d} 00000 n \n".encode() for o in offsets)
    out += f"trailer\n<< /Size {len(objs) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    Path(path).write_bytes(bytes(out))


def write_marker_sheet(directory: str | Path, marker_mm: float = 60.0) -> tuple[Path, Path]:
    """Write ``markers.png`` and ``markers.pdf`` (A4) into ``directory``."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    page = marker_sheet(marker_mm)
    png, pdf = directory / "markers.png", directory / "markers.pdf"
    cv2.imwrite(str(png), page)
    write_pdf_grey(page, pdf)
    return png, pdf


def paste_markers(image_bgr: np.ndarray, centres: np.ndarray, side_px: int) -> np.ndarray:
    """Draw markers 0-3 centred on ``centres`` (synthetic scenes and tests)."""
    out = image_bgr.copy()
    for i, (cx, cy) in zip(MARKER_IDS, np.asarray(centres)):
        m = cv2.cvtColor(marker_image(i, side_px), cv2.COLOR_GRAY2BGR)
        x0, y0 = int(round(cx - side_px / 2)), int(round(cy - side_px / 2))
        out[y0:y0 + side_px, x0:x0 + side_px] = m
    return out
