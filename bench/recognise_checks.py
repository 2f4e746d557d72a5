"""How the "each card once" thresholds of vision.recognise and the corner templates' PEER_AGREE
were set (sessions 32-33).

    python bench/recognise_checks.py [--realdata ../shared/realdata] [--out /tmp/cardtable-realdata] [--reuse]
                                     [--checks pieces,corners,peers,doubted]

Reads the real photos where they lie (bench/vision_realdata.py's enrolment; --reuse loads the
profiles a previous run of either script kept in --out) and prints four measurements:

1. *pieces* (PIECE_AREA, PIECE_INSIDE): with ``_without_pieces`` switched off, every unnamed
   detection that overlaps a named one, as (its area over the named card's, the share of it
   inside that card): in deepPoker's tight crops (one card each: every second detection is a
   piece) and in rendered stills with their truth (bench/vision_stills.py's twelve 10-card
   speed stills and six stress scenes: an unnamed detection on a true card is a card).
2. *corners* (INDEX_CORNER): every index read (CornerReader.read) lying inside a final
   detection, its distance to that quad's nearest corner over the quad's short side, on every
   third deepPoker table photo (the enrolled design) and black-* photo (another design).
3. *peers* (vision.corner_index.PEER_AGREE): each index template's best correlation with a peer
   (its rank glyph with the same rank's in another suit, its sign with the same suit's on another
   rank), the lowest ones, in the profiles enrolled from deepPoker's table-*-1, -2, -3 and -4 photos
   (-3: several on a magazine; -4: close-ups, glare washing out half the face) and from bidly's
   singles; and how each deepPoker profile names the table photos it was not enrolled from,
   with every template and with the agreeing ones only.
4. *doubted* (doubted faces name a card only from LOOKALIKE_CELL, Recogniser._face_names): in
   each deepPoker profile, the faces enrolment doubted (Profile.suspect) and, with that rule
   off, the worst-cell agreement of every name a doubted face gave in the other table photos,
   right and wrong; then the right and wrong names with the rule on.
"""
from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import csv  # noqa: E402
import sys  # noqa: E402
from dataclasses import replace  # noqa: E402
from pathlib import Path  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import cv2  # noqa: E402
import numpy as np  # noqa: E402

import vision_realdata as vr  # noqa: E402
from vision import corner_index, recognise  # noqa: E402
from vision.features import describe  # noqa: E402
from vision.geometry import inside, quad_sides  # noqa: E402
from vision.profile import SUSPECT_META  # noqa: E402
from vision.recognise import Recogniser  # noqa: E402
from vision.synthetic import synthetic_profile  # noqa: E402
from vision.synthetic.stress import random_scene  # noqa: E402


CHECKS = ("pieces", "corners", "peers", "doubted")


def overlaps(dets) -> list[tuple[object, float, float]]:
    """(the unnamed detection, its area over the named one's, its share inside it) for every
    unnamed detection overlapping a named one."""
    shares = [(d, *recognise.overlap_shares(d.quad, k.quad)) for d in dets if d.card is None
              for k in dets if k.card is not None]
    return [(d, area, inside) for d, area, inside in shares if inside > 0]


def _span(rows: list[tuple[float, float]]) -> str:
    if not rows:
        return "none"
    a, b = np.array(rows).T
    return f"{len(rows)}: area {a.min():.2f}-{a.max():.2f} of the named card's, inside it {b.min():.2f}-{b.max():.2f}"


def pieces(rec: Recogniser, folder: Path) -> None:
    rows = [r for r in csv.DictReader((folder / "labels.csv").open())
            if r["file"].startswith("table-") and not r["file"].endswith("-1.jpg")]
    keep = recognise._without_pieces
    recognise._without_pieces = lambda dets: dets
    try:
        crops = []
        for r in rows:
            crop = vr.tight_crop(cv2.imread(str(folder / r["file"])), folder / "boxes" / f"{Path(r['file']).stem}.xml")
            if crop is not None:
                crops += [(a, s) for _, a, s in overlaps(rec.recognise(crop))]
        print(f"  second detections of tight crops (pieces), {_span(crops)}")
        drawn = synthetic_profile("french-52")
        rec_drawn = Recogniser(drawn)
        scenes = [random_scene(drawn, 10_000 + k, n_cards=10, overlap=False, hands=False, clutter=False)
                  for k in range(12)] + [random_scene(drawn, 30_000 + k, n_cards=8) for k in range(6)]
        cards, other = [], []
        for scene in scenes:
            dets = rec_drawn.recognise(scene.image)
            for d, a, s in overlaps(dets):
                on_card = any(np.linalg.norm(t.quad.mean(axis=0) - d.quad.mean(axis=0)) < 0.35 * quad_sides(t.quad)[0]
                              for t in scene.truth)
                (cards if on_card else other).append((a, s))
        print(f"  unnamed true cards overlapping named ones in {len(scenes)} renders, {_span(cards)}")
        print(f"  other unnamed detections overlapping named ones there, {_span(other)}")
    finally:
        recognise._without_pieces = keep


def corners(rec: Recogniser, folder: Path) -> None:
    for label, pattern in (("table-* (the enrolled design)", "table-*-[234].jpg"), ("black-* (another design)", "black-*.jpg")):
        dist = []
        for path in sorted(folder.glob(pattern))[::3]:
            img = cv2.imread(str(path))
            dets = rec.recognise(img)
            for r in rec.corners.read(img):
                for d in dets:
                    if inside(d.quad, r.index):
                        dist.append(float(np.linalg.norm(d.quad - r.index, axis=1).min()) / quad_sides(d.quad)[0])
        span = f"{min(dist):.2f}-{max(dist):.2f} (median {np.median(dist):.2f})" if dist else "none"
        print(f"  {label}: {len(dist)} reads, distance to the nearest corner over the short side {span}")


def _table_photos(folder: Path) -> dict[str, str]:
    """deepPoker's table photos -> the card each shows."""
    rows = list(csv.DictReader((folder / "labels.csv").open()))
    return {r["file"]: vr.DEEPPOKER_FIXES.get(r["file"], r["card"]) for r in rows if r["file"].startswith("table-")}


def peers(profiles: dict[str, object], folder: Path) -> None:
    card_of = _table_photos(folder)
    for name, prof in profiles.items():
        ts = corner_index.templates({c: v for c, v in prof.faces.items() if "/" in c})
        low = sorted(((min(x for x in pair if x is not None), t.card, t.turned)
                      for t, pair in zip(ts, corner_index.peer_agreement(ts)) if any(x is not None for x in pair)))
        print(f"  {name}: {len(ts)} templates, lowest peer agreements "
              + ", ".join(f"{v:.2f} {c}{' turned' if turned else ''}" for v, c, turned in low[:6]))
        if not name.startswith("deepPoker"):
            continue
        photo = name.rsplit("-", 1)[-1]         # the enrolment photo's number
        keep = corner_index.agreeing
        for label, rule in (("every template", lambda ts: ts), ("agreeing only", keep)):
            corner_index.agreeing = rule
            try:
                rec = Recogniser(prof)
                right = wrong = 0
                for f, card in sorted(card_of.items()):
                    if f.endswith(f"-{photo}.jpg"):
                        continue
                    named = [d.card for d in rec.recognise(cv2.imread(str(folder / f))) if d.card is not None]
                    right += card in named
                    wrong += any(c != card for c in named)
            finally:
                corner_index.agreeing = keep
            print(f"    table photos but its own ({len(card_of) - 52}): {label}: {right} named right, {wrong} with a wrong name")


def doubted(profiles: dict[str, object], folder: Path) -> None:
    card_of = _table_photos(folder)
    for name, prof in profiles.items():
        if not name.startswith("deepPoker"):
            continue
        photo = name.rsplit("-", 1)[-1]
        print(f"  {name}: {len(prof.suspect)} of {len(prof.faces)} faces doubted")
        trusting = Recogniser(replace(prof, meta={k: v for k, v in prof.meta.items() if k != SUSPECT_META}))
        rec = Recogniser(prof)
        agree: dict[bool, list[float]] = {True: [], False: []}
        counts = {"off": [0, 0], "on": [0, 0]}
        for f, card in sorted(card_of.items()):
            if f.endswith(f"-{photo}.jpg"):
                continue
            img = cv2.imread(str(folder / f))
            for label, r in (("off", trusting), ("on", rec)):
                named = [d for d in r.recognise(img) if d.card is not None]
                counts[label][0] += any(d.card == card for d in named)
                counts[label][1] += any(d.card != card for d in named)
                if label == "off":
                    for d in named:
                        if d.card in prof.suspect:
                            face = recognise._face_crop(img, d.quad, recognise.FACE)
                            agree[d.card == card].append(rec._agreement(describe(face), d.card))
        for right, label in ((True, "right"), (False, "wrong")):
            vals = np.array(agree[right])
            span = f"{vals.min():.2f}-{vals.max():.2f}, {int((vals >= recognise.LOOKALIKE_CELL).sum())} from " \
                   f"LOOKALIKE_CELL {recognise.LOOKALIKE_CELL}" if len(vals) else "none"
            print(f"    {label} names of doubted faces (rule off): {len(vals)}, worst-cell agreement {span}")
        for label in ("off", "on"):
            print(f"    table photos but its own: rule {label}: {counts[label][0]} named right, "
                  f"{counts[label][1]} with a wrong name")


def main(argv=None) -> int:
    ap = vr.realdata_parser("bench/recognise_checks.py")
    ap.add_argument("--checks", default=",".join(CHECKS), help=f"comma-separated, of {', '.join(CHECKS)}")
    args = ap.parse_args(argv)
    checks = set(args.checks.split(","))
    if not checks <= set(CHECKS):
        ap.error(f"--checks: unknown {', '.join(sorted(checks - set(CHECKS)))} (known: {', '.join(CHECKS)})")
    vr.REUSE = args.reuse
    data, out = Path(args.realdata), vr.output_dir("bench/recognise_checks.py", args.out)
    if out is None:
        return 1
    folder = data / "french-deeppoker-singles"
    if not folder.is_dir():
        print(f"bench/recognise_checks.py: no real photos at {data} (see ../shared/realdata)", file=sys.stderr)
        return 1
    rec = Recogniser(vr.deeppoker_profile(folder, out))
    profiles: dict[str, object] = {}
    if checks & {"peers", "doubted"}:
        profiles = {f"deepPoker table-*-{k}": rec.profile if k == 1 else vr.deeppoker_profile(folder, out, k)
                    for k in (1, 2, 3, 4)}
        profiles["bidly singles"] = vr.bidly_profile(data / "french-bidly-deals", out)
    for check, title, run in (("pieces", "PIECE_AREA, PIECE_INSIDE", lambda: pieces(rec, folder)),
                              ("corners", "INDEX_CORNER", lambda: corners(rec, folder)),
                              ("peers", "PEER_AGREE", lambda: peers(profiles, folder)),
                              ("doubted", "LOOKALIKE_CELL for doubted faces", lambda: doubted(profiles, folder))):
        if check in checks:
            print(f"{check} ({title}):")
            run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
