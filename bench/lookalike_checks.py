"""How vision.recognise.LOOKALIKE_CELL was set: names a face gives when its look-alike is not enrolled.

    python bench/lookalike_checks.py [--realdata ../shared/realdata] [--out /tmp/cardtable-realdata] [--reuse]

A partial profile (an Italian pattern with a few cards enrolled, a pack whose photos were
not all retaken) lacks rivals the duels would need: a 5 of coins with no 5 enrolled is
named the 4. This measures it on the deepPoker table photos (enrol ``table-*-1.jpg``,
recognise ``table-*-{2,3,4}.jpg``, as bench/vision_realdata.py, whose enrolment it reuses):
each quarter of the deck in turn (every 4th card from offset 0, 1, 2, 3) is left out of the
profile and the corner index is off (for a partial Italian profile it reads nothing), so
the faces alone name cards. Each name given before the look-alike guard
(``Recogniser._guarded``) whose card is a pip card with a look-alike left out
(vision.decks.look_alikes) is printed with its worst-cell agreement with that card over the
whole face (``Recogniser._agreement``; fitting the template to the face first lowered right
names' agreement, median 0.95 -> 0.91, and kept fewer): right, or wrong
as the card one pip away ("pip"), as its colour twin ("twin") or as the card of its rank in
a suit of the other colour ("suit"). Then the counts LOOKALIKE_CELL keeps, per half.
"""
from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import csv  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import cv2  # noqa: E402
import numpy as np  # noqa: E402

import vision_realdata as vr  # noqa: E402
from vision import recognise as rg  # noqa: E402
from vision.decks import cards_of, look_alikes  # noqa: E402
from vision.features import describe  # noqa: E402
from vision.profile import Profile  # noqa: E402

DECK = cards_of("french-52")


def names(rec: rg.Recogniser, img: np.ndarray) -> list[tuple[str, float]]:
    """(card, worst cell on the whole face) of each name the faces give, before the guard."""
    guard = rec._guarded
    rec._guarded = lambda image, dets: dets
    try:
        dets = rec.recognise(img)
    finally:
        rec._guarded = guard
    out = []
    for d in dets:
        if d.card is None:
            continue
        out.append((d.card, rec._agreement(describe(rg._face_crop(img, d.quad, rg.FACE)), d.card)))
    return out


def main(argv=None) -> int:
    args = vr.realdata_parser("bench/lookalike_checks.py").parse_args(argv)
    vr.REUSE = args.reuse
    data, out = Path(args.realdata), vr.output_dir("bench/lookalike_checks.py", args.out)
    if out is None:
        return 1
    folder = data / "french-deeppoker-singles"
    rows = [dict(r, card=vr.DEEPPOKER_FIXES.get(r["file"], r["card"]))
            for r in csv.DictReader((folder / "labels.csv").open())]
    full = vr.deeppoker_profile(folder, out)
    photos = [(r["file"], r["card"]) for r in rows
              if r["file"].startswith("table-") and not r["file"].endswith("-1.jpg")]
    tally: dict[tuple[str, str], list[tuple[float, bool]]] = {}   # (kind, half) -> (worst cell, twin left out)
    for offset in range(4):
        left_out = set(DECK[offset::4])
        prof = Profile(full.deck_id, {c: f for c, f in full.faces.items() if c not in left_out},
                       full.aspect, full.calibration)
        rec = rg.Recogniser(prof)
        rec.corners.read = lambda *a, **k: []
        print(f"left out: every 4th card from {offset} ({len(left_out)} cards)", flush=True)
        for f, card in photos:
            for named, worst in names(rec, cv2.imread(str(folder / f))):
                near, twin = look_alikes(named, prof.deck_id)
                if not any(c in left_out for c in (*near, twin)):
                    continue                # every look-alike enrolled: the guard does not look
                same_suit = card.split("/")[0] == named.split("/")[0]
                kind = "right" if named == card else "twin" if card == twin else \
                    "other" if card not in near else "pip" if same_suit else "suit"
                half = vr.half_of(card, DECK)
                twin_out = twin in left_out          # withheld whatever its cells
                tally.setdefault((kind, half), []).append((worst, twin_out))
                print(f"  {kind:5} {half:6} {f}: named {named}, worst cell {worst:.3f}"
                      f"{', its colour twin left out' if twin_out else ''}", flush=True)
    print(f"\nworst cell of names whose look-alike was left out (LOOKALIKE_CELL {rg.LOOKALIKE_CELL}; "
          "a name whose colour twin was left out is withheld whatever its cells):")
    for (kind, half), got in sorted(tally.items()):
        ws = [w for w, _ in got]
        kept = sum(w >= rg.LOOKALIKE_CELL and not twin_out for w, twin_out in got)
        print(f"  {kind:5} {half:6} {len(ws):3} names ({sum(t for _, t in got)} with the twin left out), "
              f"worst cell {min(ws):.2f}-{max(ws):.2f}, median {np.median(ws):.2f}; kept by the guard: {kept}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
