"""Table tops taken from real photographs, for rendered scenes.

A texture is any photo of a table, cloth or floor without cards (an image file, or a folder
of them). Each scene takes a random crop of one, flipped and rescaled so that its grain is
not always the same size, and tiled by mirroring when the photo is smaller than the scene.
"""
from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from vision.enrol import IMAGE_EXT, read_image
from vision.errors import ImageError

GRAIN_SCALE = (0.7, 1.4)    # how much a texture's grain may be enlarged or shrunk per scene


def load_textures(path: str | Path) -> list[np.ndarray]:
    """The table photos at ``path`` (a file, or every image in a folder); ImageError if none."""
    p = Path(path)
    files = ([p] if p.is_file() else
             sorted(f for f in p.iterdir() if f.suffix.lower() in IMAGE_EXT) if p.is_dir() else [])
    if not files:
        raise ImageError(f"{p}: no table photos (an image file, or a folder of .jpg/.png)")
    return [read_image(f) for f in files]


def table_from_texture(texture: np.ndarray, size: tuple[int, int],
                       rng: np.random.Generator) -> np.ndarray:
    """A ``size`` (w, h) table top cut from ``texture`` (float32 BGR)."""
    w, h = size
    f = float(rng.uniform(*GRAIN_SCALE))
    th, tw = texture.shape[:2]
    scale = max(f, w / tw, h / th) if rng.random() < 0.5 else f
    t = cv2.resize(texture, (max(2, int(tw * scale)), max(2, int(th * scale))),
                   interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR)
    reps = (int(np.ceil(h / t.shape[0])) + 1, int(np.ceil(w / t.shape[1])) + 1)
    if reps != (1, 1):
        row = np.hstack([t if k % 2 == 0 else t[:, ::-1] for k in range(reps[1])])
        t = np.vstack([row if k % 2 == 0 else row[::-1] for k in range(reps[0])])
    y = int(rng.integers(0, t.shape[0] - h + 1))
    x = int(rng.integers(0, t.shape[1] - w + 1))
    out = t[y:y + h, x:x + w]
    if rng.random() < 0.5:
        out = out[:, ::-1]
    if rng.random() < 0.5:
        out = out[::-1]
    return np.ascontiguousarray(out).astype(np.float32)
