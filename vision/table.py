"""Table geometry: the table's size, its seat zones and trick area, from TOML or the contract default.

Zones are kept in two spaces on purpose: a table config describes them in millimetres on the
table plane (what a volunteer can measure with a ruler), while the contract's default seats are
the four triangles the marker quadrilateral's diagonals cut *in the image* (CONTRACT §4), numbered
from the edge nearest the image's bottom. :func:`default_seat_triangles` builds the latter;
:class:`TableConfig` holds the former, and calibration projects them into the image.

Example table config::

    [table]
    width_mm = 900          # between the centres of markers 0 -> 1
    height_mm = 900         # between the centres of markers 1 -> 2
    card_mm = [59, 91]      # optional, the deck's card size
    clockwise = false       # seat numbering direction when seats are not listed

    [[seat]]                # optional; order = seat number unless `id` is given
    polygon_mm = [[0, 900], [900, 900], [450, 450]]

    [trick_area]            # optional; cards outside it are ignored (default: whole table)
    polygon_mm = [[100, 100], [800, 100], [800, 800], [100, 800]]
"""
from __future__ import annotations

import math
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

DEFAULT_TABLE_MM = (900.0, 900.0)
DEFAULT_CARD_MM = (59.0, 91.0)


class TableConfigError(ValueError):
    """The table config is missing, unreadable or has a wrong key or value (message names the key)."""


@dataclass(frozen=True)
class TableConfig:
    """What a club measures once for its table; everything in millimetres on the table plane."""

    width_mm: float = DEFAULT_TABLE_MM[0]
    height_mm: float = DEFAULT_TABLE_MM[1]
    card_mm: tuple[float, float] = DEFAULT_CARD_MM
    clockwise: bool = False
    seats_mm: tuple[np.ndarray, ...] = ()          # empty: the contract's diagonal triangles
    trick_area_mm: np.ndarray | None = None        # None: the whole table
    source: str = "default"

    @property
    def corners_mm(self) -> np.ndarray:
        """Marker centres 0..3 on the table plane, going round: (0,0), (W,0), (W,H), (0,H)."""
        w, h = self.width_mm, self.height_mm
        return np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)


def measured_table(marker_centres: np.ndarray, card_long_px: float, card_mm: tuple[float, float] = DEFAULT_CARD_MM,
                   clockwise: bool = False, source: str = "measured") -> TableConfig:
    """The table a club would measure in a picture whose markers 0..3 lie at ``marker_centres``
    and whose cards are ``card_long_px`` long (rendered tables: the demo room, test videos)."""
    c = np.asarray(marker_centres, np.float64)
    px_per_mm = card_long_px / max(card_mm)
    return TableConfig(float(np.linalg.norm(c[1] - c[0])) / px_per_mm, float(np.linalg.norm(c[2] - c[1])) / px_per_mm,
                       tuple(card_mm), clockwise, source=source)


_TABLE_KEYS = {"width_mm", "height_mm", "card_mm", "clockwise"}
_TOP_KEYS = {"table", "seat", "trick_area"}


def _polygon(value: Any, where: str) -> np.ndarray:
    try:
        poly = np.asarray(value, np.float32)
    except (TypeError, ValueError):
        raise TableConfigError(f"{where}: expected a list of [x, y] points in mm") from None
    if poly.ndim != 2 or poly.shape[1] != 2 or len(poly) < 3:
        raise TableConfigError(f"{where}: expected at least three [x, y] points in mm, got {value!r}")
    return poly


def _positive(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
        raise TableConfigError(f"{where}: expected a positive number of mm, got {value!r}")
    return float(value)


def parse_table_config(data: dict[str, Any], source: str = "<dict>") -> TableConfig:
    """Validate a parsed TOML document; unknown keys are errors, so typos never pass silently."""
    unknown = set(data) - _TOP_KEYS
    if unknown:
        raise TableConfigError(f"{source}: unknown key {sorted(unknown)[0]!r} (allowed: {sorted(_TOP_KEYS)})")
    table = data.get("table", {})
    if not isinstance(table, dict):
        raise TableConfigError(f"{source}: [table] must be a table")
    unknown = set(table) - _TABLE_KEYS
    if unknown:
        raise TableConfigError(f"{source}: unknown key table.{sorted(unknown)[0]} (allowed: {sorted(_TABLE_KEYS)})")
    width = _positive(table.get("width_mm", DEFAULT_TABLE_MM[0]), f"{source}: table.width_mm")
    height = _positive(table.get("height_mm", DEFAULT_TABLE_MM[1]), f"{source}: table.height_mm")
    card = table.get("card_mm", list(DEFAULT_CARD_MM))
    if not isinstance(card, list) or len(card) != 2:
        raise TableConfigError(f"{source}: table.card_mm: expected [width, height], got {card!r}")
    card_mm = (_positive(card[0], f"{source}: table.card_mm[0]"), _positive(card[1], f"{source}: table.card_mm[1]"))
    clockwise = table.get("clockwise", False)
    if not isinstance(clockwise, bool):
        raise TableConfigError(f"{source}: table.clockwise: expected true or false, got {clockwise!r}")

    seats_raw = data.get("seat", [])
    if not isinstance(seats_raw, list):
        raise TableConfigError(f"{source}: seats are written as [[seat]] tables")
    seats: dict[int, np.ndarray] = {}
    for i, seat in enumerate(seats_raw):
        where = f"{source}: seat[{i}]"
        if not isinstance(seat, dict) or set(seat) - {"id", "polygon_mm"}:
            raise TableConfigError(f"{where}: allowed keys are 'id' and 'polygon_mm'")
        if "polygon_mm" not in seat:
            raise TableConfigError(f"{where}.polygon_mm: missing")
        sid = seat.get("id", i)
        if isinstance(sid, bool) or not isinstance(sid, int) or sid < 0 or sid in seats:
            raise TableConfigError(f"{where}.id: expected a new seat number >= 0, got {sid!r}")
        seats[sid] = _polygon(seat["polygon_mm"], f"{where}.polygon_mm")
    if seats and sorted(seats) != list(range(len(seats))):
        raise TableConfigError(f"{source}: seat ids must be 0..{len(seats) - 1}, got {sorted(seats)}")

    trick = data.get("trick_area")
    trick_mm = None
    if trick is not None:
        if not isinstance(trick, dict) or set(trick) != {"polygon_mm"}:
            raise TableConfigError(f"{source}: [trick_area] takes exactly one key, polygon_mm")
        trick_mm = _polygon(trick["polygon_mm"], f"{source}: trick_area.polygon_mm")
    return TableConfig(width, height, card_mm, clockwise, tuple(seats[k] for k in sorted(seats)), trick_mm, source)


def load_table_config(path: str | Path) -> TableConfig:
    """Read and validate a table config TOML file (TableConfigError with the key path on any fault)."""
    path = Path(path)
    try:
        with path.open("rb") as f:
            data = tomllib.load(f)
    except FileNotFoundError:
        raise TableConfigError(f"{path}: no such table config") from None
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise TableConfigError(f"{path}: not a readable TOML file ({exc})") from None
    return parse_table_config(data, str(path))


def order_around(points: np.ndarray) -> np.ndarray:
    """The four points reordered to go round their centroid (image coordinates)."""
    pts = np.asarray(points, np.float32)
    c = pts.mean(axis=0)
    ang = np.arctan2(pts[:, 1] - c[1], pts[:, 0] - c[0])
    return pts[np.argsort(ang)]


def diagonal_centre(quad: np.ndarray) -> np.ndarray:
    """Where the diagonals of a convex quadrilateral (points going round) cross."""
    p0, p1, p2, p3 = (np.asarray(p, np.float64) for p in quad)
    d1, d2 = p2 - p0, p3 - p1
    denom = d1[0] * d2[1] - d1[1] * d2[0]
    if abs(denom) < 1e-9:
        return np.asarray(quad, np.float64).mean(axis=0).astype(np.float32)
    t = ((p1[0] - p0[0]) * d2[1] - (p1[1] - p0[1]) * d2[0]) / denom
    return (p0 + t * d1).astype(np.float32)


def default_seat_triangles(quad_px: np.ndarray, clockwise: bool = False) -> list[np.ndarray]:
    """CONTRACT §4 default seats: the diagonals cut the marker quad into four triangles, one per
    edge; seat 0 is the edge nearest the image's bottom, then anticlockwise as seen in the image
    (clockwise with ``clockwise=True``)."""
    quad = order_around(quad_px)
    centre = diagonal_centre(quad)
    edges = [(quad[i], quad[(i + 1) % 4]) for i in range(4)]
    mids = [(a + b) / 2 for a, b in edges]
    # maths angle with y pointing up, so increasing angle = anticlockwise as a person sees it
    angles = [math.atan2(-(m[1] - centre[1]), m[0] - centre[0]) for m in mids]
    first = int(np.argmax([m[1] for m in mids]))
    sign = -1.0 if clockwise else 1.0
    order = sorted(range(4), key=lambda i: (sign * (angles[i] - angles[first])) % (2 * math.pi))
    return [np.array([edges[i][0], edges[i][1], centre], np.float32) for i in order]


@dataclass
class Zones:
    """Seat zones and trick area in image pixels: what tracking asks "whose card is this?"."""

    seats: list[np.ndarray]
    trick_area: np.ndarray
    table: np.ndarray = field(default_factory=lambda: np.zeros((0, 2), np.float32))

    def seat_of(self, point: tuple[float, float] | np.ndarray) -> int | None:
        """The seat whose zone holds ``point``; a point just outside every zone goes to the nearest
        (within 1/4 of the table's size), anything else None."""
        pt = (float(point[0]), float(point[1]))
        best, best_d = None, -math.inf
        for i, poly in enumerate(self.seats):
            d = cv2_point_polygon(poly, pt)
            if d > best_d:
                best, best_d = i, d
        if best is None:
            return None
        if best_d >= 0:
            return best
        size = max(np.ptp(self.table[:, 0]), np.ptp(self.table[:, 1])) if len(self.table) else 0.0
        return best if -best_d <= size / 4 else None

    def in_trick_area(self, point: tuple[float, float] | np.ndarray) -> bool:
        return cv2_point_polygon(self.trick_area, (float(point[0]), float(point[1]))) >= 0


def cv2_point_polygon(poly: np.ndarray, pt: tuple[float, float]) -> float:
    """Signed distance of ``pt`` to ``poly`` (positive inside)."""
    import cv2

    return float(cv2.pointPolygonTest(np.asarray(poly, np.float32).reshape(-1, 1, 2), pt, True))
