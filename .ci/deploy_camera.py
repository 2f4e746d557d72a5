"""What a Pi's camera and a club's deck photos give docs/deploy.md step 2, made on a machine
without them (.ci/deploy-lane): the demo's rendered table seen from above.

    python .ci/deploy_camera.py DIR

writes DIR/empty/ (the empty table with its four markers: `calibrate folder:DIR/empty`),
DIR/profile (the demo deck's profile: what `enrol` makes from photos of the club's deck)
and DIR/play/ (the table while two cards are laid: the source `run` watches).
"""
from __future__ import annotations

import sys
from pathlib import Path

import cv2

from controller.demo import Room


def main(out: Path) -> None:
    room = Room("french-32", False, 4, seed=9)
    room.profile.save(out / "profile")
    (out / "empty").mkdir(parents=True)
    (out / "play").mkdir()
    cv2.imwrite(str(out / "empty" / "f0000.png"), room.frame())
    shots = [room.frame()] * 5
    for seat, card in ((0, "hearts/king"), (1, "spades/ace")):
        room.put(seat, card)
        shots += [room.with_hand(room.frame(), seat)] * 2 + [room.frame()] * 14
    for i, img in enumerate(shots):
        cv2.imwrite(str(out / "play" / f"f{i:04d}.png"), img)


if __name__ == "__main__":
    main(Path(sys.argv[1]))
