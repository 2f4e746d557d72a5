"""Recognition on scenes rendered from real photographs: real faces, real table tops, a real camera.

    python bench/vision_renders.py                 # 24 scenes per condition and deck (minutes)
    python bench/vision_renders.py --quick         # 6 scenes per condition
    python bench/vision_renders.py --faces PROFILE_DIR --tables DIR   # your own deck and tables

By default two decks are enrolled from ../shared/realdata with ``vision.enrol`` (outside the
repo, in --work): trevigiane-52 from the ``italian-bresciane-faces`` scans and french-52 from
the deepPoker ``table-*-1.jpg`` photos (bad photos skipped and counted). Table textures are cut
from the deepPoker ``table-*-2.jpg`` photos beside their card. Each deck is then rendered in
five conditions, the same seeds in each, and recognised by the current ``Recogniser``:

  drawn    synthetic drawn faces, procedural tables, StressOptions() (the stills bench's scenes)
  photo    the enrolled real faces, procedural tables, StressOptions()
  real     real faces on real table textures through REAL_CAMERA (Bayer, defocus, motion, gloss,
           lens distortion, bent cards, white balance, JPEG)
  small    as real, cards 40-60 px wide
  oblique  as real, seen by the camera turned OBLIQUE_DEG further (about the picture's horizontal
           axis for even seeds, its vertical one for odd: vision.synthetic.effects.turned_view),
           a phone photo taken across the table

Figures per condition: cards required (>= half visible), right, abstained, missed, wrong,
phantoms, and ms per 1280x720 image, with its ratio to "drawn" measured in the same process.
"""
from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse  # noqa: E402
import csv  # noqa: E402
import shutil  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from dataclasses import replace  # noqa: E402
from pathlib import Path  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from vision.enrol import enrol, read_image  # noqa: E402
from vision.profile import Profile  # noqa: E402
from vision.recognise import Recogniser  # noqa: E402
from vision.synthetic import StressOptions, synthetic_profile  # noqa: E402
from vision.synthetic.effects import camera_turned, turned_view  # noqa: E402
from vision.synthetic.render import REAL_CAMERA, scale_for_width  # noqa: E402
from vision.synthetic.stress import Tally, random_scene, score  # noqa: E402
from vision.synthetic.textures import load_textures  # noqa: E402
from vision_realdata import vision_source  # noqa: E402  (bench/, beside this script)

REALDATA = Path(__file__).resolve().parents[2] / "shared" / "realdata"
SIZE = (1280, 720)
SMALL_PX = (40, 60)          # card widths of the "small" condition
OBLIQUE_DEG = 40.0           # how much further the "oblique" condition's camera is turned (the middle
#   of bench/vision_realdata.py's oblique rows, 30-50)
MIN_TEXTURE = (200, 120)     # smallest table cut worth keeping (w, h)
CARD_MARGIN = 0.12           # the card reaches this share of the photo beyond its index boxes


def deeppoker_reference(realdata: Path, work: Path) -> Path:
    """table-*-1.jpg copied under card-id names (labels.csv), for ``enrol``."""
    src = realdata / "french-deeppoker-singles"
    ref = work / "deeppoker-ref"
    if ref.exists():
        return ref
    ref.mkdir(parents=True)
    with (src / "labels.csv").open() as f:
        for row in csv.DictReader(f):
            if row["file"].startswith("table-") and row["file"].endswith("-1.jpg"):
                shutil.copy(src / row["file"], ref / (row["card"].replace("/", "_") + ".jpg"))
    return ref


def cut_textures(realdata: Path, work: Path, limit: int = 16) -> Path:
    """Table tops beside the card of deepPoker table-*-2.jpg photos, saved to --work/tables: the
    widest strip outside the card, whose extent is the labelled corner-index boxes (boxes/*.xml)
    grown by CARD_MARGIN of the photo."""
    import xml.etree.ElementTree as ET
    src = realdata / "french-deeppoker-singles"
    out = work / "tables"
    if out.exists() and any(out.iterdir()):
        return out
    out.mkdir(parents=True, exist_ok=True)
    n = 0
    for path in sorted(src.glob("table-*-2.jpg")):
        box_file = src / "boxes" / (path.stem + ".xml")
        if not box_file.is_file():
            continue
        boxes = [[int(float(b.findtext(k))) for k in ("xmin", "ymin", "xmax", "ymax")]
                 for b in ET.parse(box_file).getroot().iter("bndbox")]
        if not boxes:
            continue
        img = read_image(path)
        h, w = img.shape[:2]
        b = np.array(boxes)
        m = int(CARD_MARGIN * max(w, h))
        x0, y0 = max(0, b[:, 0].min() - m), max(0, b[:, 1].min() - m)
        x1, y1 = min(w, b[:, 2].max() + m), min(h, b[:, 3].max() + m)
        strips = [(0, 0, x0, h), (x1, 0, w - x1, h), (0, 0, w, y0), (0, y1, w, h - y1)]
        x, y, sw, sh = max(strips, key=lambda s: s[2] * s[3])
        if sw < MIN_TEXTURE[0] or sh < MIN_TEXTURE[1]:
            continue
        cv2.imwrite(str(out / f"{path.stem}.jpg"), img[y:y + sh, x:x + sw])
        n += 1
        if n >= limit:
            break
    return out


def enrolled(name: str, ref: Path, deck: str, work: Path) -> Profile:
    """The profile of ``ref`` kept in ``work``, enrolled afresh when the vision code changed since
    (session 28 measured renders on a profile enrolled before outlines entered enrolment, which
    had since made 21 of the Bresciane scans panels: the bench hid it)."""
    target = work / f"profile-{name}"
    source = vision_source()
    if (target / "profile.json").is_file():
        kept = Profile.load(target)
        if kept.meta.get("vision_source") == source:
            return kept
        print(f"enrolling {name} again: the vision code changed since {target} was enrolled")
    t0 = time.perf_counter()
    rep = enrol(ref, deck, skip_bad=True)
    rep.profile.meta["vision_source"] = source
    rep.profile.save(target)
    print(f"enrolled {name} ({deck}): {rep.photos} photos, {len(rep.skipped)} skipped, "
          f"{len(rep.missing)} missing, {len(rep.suspect)} suspect, {len(rep.lookalikes)} look-alike "
          f"pairs, {time.perf_counter() - t0:.0f} s")
    for lk in rep.lookalikes[:5]:
        print(f"   {lk}")
    return rep.profile


def run(profile: Profile, rec: Recogniser, seeds: range, turned: float = 0.0, **kw) -> tuple[Tally, float]:
    tally, ms = Tally(), []
    for seed in seeds:
        scene = random_scene(profile, seed, size=SIZE, **kw)
        if turned:
            scene = _turned(scene, turned, "xy"[seed % 2])
        t0 = time.perf_counter()
        dets = rec.recognise(scene.image)
        ms.append((time.perf_counter() - t0) * 1000)
        tally.add(score(scene, dets, tag=seed))
    return tally, float(np.median(ms))


def _turned(scene, degrees: float, axis: str):
    """The scene as its camera would have seen it turned by ``degrees``, truth quads and all."""
    H = turned_view(SIZE, degrees, axis)
    truth = [t._replace(quad=cv2.perspectiveTransform(np.float32(t.quad).reshape(-1, 1, 2), H).reshape(4, 2))
             for t in scene.truth]
    return replace(scene, image=camera_turned(scene.image, degrees, axis), truth=truth)


def bench_deck(label: str, profile: Profile, textures: list[np.ndarray], scenes: int) -> None:
    drawn = synthetic_profile(profile.deck_id)
    seeds = range(1000, 1000 + scenes)
    small = tuple(scale_for_width(SIZE, profile.aspect, px) for px in SMALL_PX)
    conditions = [
        ("drawn", drawn, dict(stress=StressOptions())),
        ("photo", profile, dict(stress=StressOptions())),
        ("real", profile, dict(stress=REAL_CAMERA, tables=textures)),
        ("small", profile, dict(stress=REAL_CAMERA, tables=textures, scale_range=small)),
        ("oblique", profile, dict(stress=REAL_CAMERA, tables=textures, turned=OBLIQUE_DEG)),
    ]
    print(f"\n{label}: {profile.deck_id}, {len(profile.cards)} faces, {scenes} scenes per condition")
    print(f"{'condition':<10}{'cards':>6}{'right':>8}{'unsure':>8}{'missed':>8}{'wrong':>7}"
          f"{'phantom':>9}{'ms/img':>8}{'x drawn':>8}")
    base_ms = None
    recs = {}
    for name, prof, kw in conditions:
        rec = recs.setdefault(id(prof), Recogniser(prof))
        t, ms = run(prof, rec, seeds, **kw)
        base_ms = base_ms or ms
        print(f"{name:<10}{t.cards:>6}{100 * t.accuracy:>7.1f}%{t.abstained:>8}{t.missed:>8}"
              f"{t.wrong:>7}{t.phantoms:>9}{ms:>8.0f}{ms / base_ms:>8.2f}")
        wrong = [e for e in t.errors if e[1] == "wrong"][:4]
        for e in wrong:
            print(f"          wrong: seed {e[0]} {e[2]} named {e[3]} ({e[5]})")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--realdata", type=Path, default=REALDATA)
    ap.add_argument("--work", type=Path, default=Path("/tmp/cardtable-renders"),
                    help="where enrolled profiles and cut textures are kept (outside the repo)")
    ap.add_argument("--faces", type=Path, help="an enrolled profile to render instead of the realdata decks")
    ap.add_argument("--tables", type=Path, help="table photos (file or folder) instead of cut textures")
    ap.add_argument("--scenes", type=int, default=24)
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args(argv)
    scenes = 6 if args.quick else args.scenes
    if not args.faces and not args.realdata.is_dir():
        print(f"bench/vision_renders.py: no real photos at {args.realdata} (give --realdata, or "
              "--faces PROFILE_DIR --tables DIR)", file=sys.stderr)
        return 1
    args.work.mkdir(parents=True, exist_ok=True)
    tables = args.tables or cut_textures(args.realdata, args.work)
    textures = load_textures(tables)
    print(f"{len(textures)} table textures from {tables}")
    if args.faces:
        decks = [("your profile", Profile.load(args.faces))]
    else:
        decks = [("italian-bresciane-faces", enrolled("bresciane", args.realdata / "italian-bresciane-faces",
                                                      "trevigiane-52", args.work)),
                 ("deepPoker table-*-1", enrolled("deeppoker", deeppoker_reference(args.realdata, args.work),
                                                  "french-52", args.work))]
    for label, prof in decks:
        bench_deck(label, prof, textures, scenes)
    return 0


if __name__ == "__main__":
    sys.exit(main())
