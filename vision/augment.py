"""Stress copies of a straightened face, for calibrating confidence at enrolment.

They imitate what the finder and the camera do to a face: corners a few pixels off, other
light and white balance, a glare spot, blur, noise and part of the face hidden. Cheap
(face-sized images only), so every enrolment calibrates its own deck.
"""
from __future__ import annotations

import cv2
import numpy as np

from vision.geometry import face_corners


def stress_face(face: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray | None]:
    """A degraded copy of ``face`` and, when part is hidden, its visible mask (face-sized)."""
    h, w = face.shape[:2]
    src = face_corners(w, h)
    dst = src + rng.normal(0, 0.008 * w, (4, 2)).astype(np.float32)
    m = cv2.getPerspectiveTransform(src, dst)
    img = cv2.warpPerspective(face.astype(np.float32), m, (w, h), borderMode=cv2.BORDER_REPLICATE)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    a = rng.uniform(0, 2 * np.pi)
    img *= (1 + rng.uniform(0, 0.5) * (np.cos(a) * (xx / w - 0.5) + np.sin(a) * (yy / h - 0.5)))[..., None]
    img *= (1 + rng.uniform(-0.2, 0.2, 3)).astype(np.float32)
    img *= rng.uniform(0.6, 1.2)
    if rng.random() < 0.5:
        c = (rng.uniform(0, w), rng.uniform(0, h))
        s = rng.uniform(0.1, 0.3) * w
        img += 255 * rng.uniform(0.1, 0.5) * np.exp(-((xx - c[0]) ** 2 + (yy - c[1]) ** 2) / (2 * s * s))[..., None]
    img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.3, 2.5))
    img += rng.normal(0, rng.uniform(1, 8), img.shape).astype(np.float32)
    vis = None
    if rng.random() < 0.4:
        vis = np.ones((h, w), np.float32)
        frac = rng.uniform(0.15, 0.45)
        side = int(rng.integers(0, 4))
        if side == 0:
            vis[: int(h * frac)] = 0
        elif side == 1:
            vis[h - int(h * frac):] = 0
        elif side == 2:
            vis[:, : int(w * frac * 1.5)] = 0
        else:
            vis[:, w - int(w * frac * 1.5):] = 0
        filler = np.float32(rng.uniform(40, 230, 3))
        img = img * vis[..., None] + filler * (1 - vis[..., None])
    return np.clip(img, 0, 255).astype(np.uint8), vis
