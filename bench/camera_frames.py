"""Frame brightness and contrast: what the camera's black / white / covered thresholds rest on.

Prints the grey-level mean and standard deviation (on the same 1-in-8 subsample that
controller/camera.py checks) of the demo's rendered tables, of real photos of cards on
tables (/work/shared/realdata, when present) and of the faults themselves (black, white,
lens covered by a hand or a cloth: a flat, blurred frame), so BLACK_MEAN, WHITE_MEAN and
FLAT_STD in controller/camera.py can be checked again.

    python bench/camera_frames.py
"""
from __future__ import annotations

import sys
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from controller.camera import BLACK_MEAN, FLAT_STD, WHITE_MEAN, frame_stats  # noqa: E402
from controller.demo import Room  # noqa: E402

REALDATA = Path("/work/shared/realdata")


def row(name: str, stats: list[tuple[float, float]]) -> None:
    m = [s[0] for s in stats]
    d = [s[1] for s in stats]
    print(f"{name:<34} {len(stats):>5} {min(m):>7.1f} {max(m):>7.1f} {min(d):>7.1f} {max(d):>7.1f}")


def main() -> int:
    print(f"{'frames':<34} {'n':>5} {'mean lo':>7} {'mean hi':>7} {'std lo':>7} {'std hi':>7}")
    demo = []
    for seed in range(6):
        room = Room("french-32", True, 4, seed=seed)
        demo.append(frame_stats(room.frame()))
        room.put(0, "hearts/king")
        demo.append(frame_stats(room.frame()))
        demo.append(frame_stats(room.with_hand(room.frame(), 0)))
    row("demo tables (rendered)", demo)
    photos = sorted(p for p in REALDATA.rglob("*") if p.suffix.lower() in (".jpg", ".jpeg", ".png"))[:300]
    real, dim = [], []
    for p in photos:
        img = cv2.imread(str(p))
        if img is None:
            continue
        real.append(frame_stats(img))
        dim.append(frame_stats((img * 0.25).astype(np.uint8)))      # a club room with poor light
    if real:
        row("real photos (realdata)", real)
        row("real photos at 1/4 brightness", dim)
    h, w = 720, 1280
    rng = np.random.default_rng(0)
    black = [frame_stats(np.clip(rng.normal(3, 2, (h, w, 3)), 0, 255).astype(np.uint8)) for _ in range(3)]
    white = [frame_stats(np.clip(rng.normal(252, 2, (h, w, 3)), 0, 255).astype(np.uint8)) for _ in range(3)]
    covered = []
    for tone in (40, 90, 140, 200):                # a palm or a cloth against the lens: flat and blurred
        img = np.clip(rng.normal(tone, 6, (h, w, 3)), 0, 255).astype(np.uint8)
        covered.append(frame_stats(cv2.GaussianBlur(img, (0, 0), 25)))
    row("black (sensor noise)", black)
    row("white (blown out)", white)
    row("covered (flat, blurred)", covered)
    good = demo + real + dim
    print(f"thresholds: black below mean {BLACK_MEAN}, white above mean {WHITE_MEAN}, covered below std {FLAT_STD}")
    wrong = sum(1 for m, s in good if m < BLACK_MEAN or m > WHITE_MEAN or s < FLAT_STD)
    missed = sum(1 for m, s in black + white + covered if not (m < BLACK_MEAN or m > WHITE_MEAN or s < FLAT_STD))
    print(f"good frames taken for a fault: {wrong} of {len(good)}; faults missed: {missed} of "
          f"{len(black) + len(white) + len(covered)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
