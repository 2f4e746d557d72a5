"""Drawing detections on an image, for people checking what the recogniser saw."""
from __future__ import annotations

from typing import Sequence

import cv2
import numpy as np


def annotate(image: np.ndarray, detections: Sequence, *, truth: Sequence | None = None) -> np.ndarray:
    """A copy of ``image`` with each quad, its card id (or ``back`` / ``?``) and confidence.

    Green, solid: named; blue with a cross: a back (face down); red, dashed: found but not
    named, with its top 3 candidates and their whole-face scores (Detection.top) so a user
    can see why. Ground-truth quads, when given, are drawn thin in yellow.
    """
    out = image.copy()
    thick = max(1, round(max(image.shape[:2]) / 500))
    fs = max(0.5, max(image.shape[:2]) / 1600)
    for t in truth or ():
        cv2.polylines(out, [np.round(t.quad).astype(np.int32)], True, (0, 230, 230), 1, cv2.LINE_AA)
    for d in detections:
        q = np.round(np.asarray(d.quad)).astype(np.int32)
        if d.card is not None:
            col, text = (40, 200, 40), d.card
        elif not d.face_up:
            col, text = (220, 120, 30), "back"
        else:
            col, text = (40, 40, 230), "?"
        if d.card is None and d.face_up:
            _dashed(out, q, col, thick + 1)
        else:
            cv2.polylines(out, [q], True, col, thick + 1, cv2.LINE_AA)
        if not d.face_up:
            cv2.line(out, tuple(map(int, q[0])), tuple(map(int, q[2])), col, thick, cv2.LINE_AA)
            cv2.line(out, tuple(map(int, q[1])), tuple(map(int, q[3])), col, thick, cv2.LINE_AA)
        cv2.circle(out, tuple(int(v) for v in q[0]), thick + 3, col, -1)
        lines = [f"{text} {d.confidence:.2f}"]
        if d.card is None and d.face_up:
            lines += [f"{c} {s:.2f}" for c, s in getattr(d, "top", ())[:3]]
        x = int(q[:, 0].min())
        y = max(12, int(q[:, 1].min()) - 6 - int(22 * fs) * (len(lines) - 1))
        for i, label in enumerate(lines):
            org = (x, y + i * int(22 * fs + 4))
            cv2.putText(out, label, org, cv2.FONT_HERSHEY_SIMPLEX, fs, (0, 0, 0), thick + 2, cv2.LINE_AA)
            cv2.putText(out, label, org, cv2.FONT_HERSHEY_SIMPLEX, fs, col, thick, cv2.LINE_AA)
    return out


def _dashed(out: np.ndarray, q: np.ndarray, col: tuple[int, int, int], thick: int, dash: int = 12) -> None:
    """A dashed quad outline (found but unsure)."""
    for i in range(4):
        a, b = q[i].astype(float), q[(i + 1) % 4].astype(float)
        n = max(1, int(np.linalg.norm(b - a) / dash))
        for k in range(0, n, 2):
            p0 = a + (b - a) * k / n
            p1 = a + (b - a) * min(k + 1, n) / n
            cv2.line(out, tuple(map(int, p0)), tuple(map(int, p1)), col, thick, cv2.LINE_AA)
