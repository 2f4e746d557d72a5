"""Drawing detections on an image, for people checking what the recogniser saw."""
from __future__ import annotations

from typing import Sequence

import cv2
import numpy as np


def annotate(image: np.ndarray, detections: Sequence, *, truth: Sequence | None = None) -> np.ndarray:
    """A copy of ``image`` with each quad, its card id (or ``back`` / ``?``) and confidence.

    Green: identified; blue: face down; red: abstained. Ground-truth quads, when given, are
    drawn thin in yellow.
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
        cv2.polylines(out, [q], True, col, thick + 1, cv2.LINE_AA)
        cv2.circle(out, tuple(int(v) for v in q[0]), thick + 3, col, -1)
        label = f"{text} {d.confidence:.2f}"
        org = (int(q[:, 0].min()), max(12, int(q[:, 1].min()) - 6))
        cv2.putText(out, label, org, cv2.FONT_HERSHEY_SIMPLEX, fs, (0, 0, 0), thick + 2, cv2.LINE_AA)
        cv2.putText(out, label, org, cv2.FONT_HERSHEY_SIMPLEX, fs, col, thick, cv2.LINE_AA)
    return out
