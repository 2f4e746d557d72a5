"""Finding by straight edges (vision.outline) on its own: how many cards it proposes a quad for.

    python bench/vision_outline.py            # 24 scenes per condition and deck (a few minutes)
    python bench/vision_outline.py --quick    # 6 scenes per condition
    python bench/vision_outline.py --triestine # also the Triestine single-card photos, enrolled

The scenes are bench/vision_renders.py's (the same enrolled real faces, table textures cut from
real photos, the same seeds and conditions; profiles kept in its --work folder). A card at least
half visible is *outlined* when some proposal's corners all lie within MATCH of its short side
of the card's own (either way round); *whole* counts only proposals with three or more sides
seen as edges. The paper-mask finder (vision.finder, candidates and pile rectangles) is scored
the same way, and so is the union of the two: what identification has to choose from. Also
printed: proposals per image, and CPU ms per image of vision.outline.propose (one core).

--triestine enrols the twelve single-card Triestine photos (../shared/realdata) one by one and
says which are enrolled as a card face (vision.paper.face_looks, and the deck's shape) and
which are flagged (bench/vision_realdata.py's ENROL list says which card each photo shows).
"""
from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import cv2  # noqa: E402
import numpy as np  # noqa: E402

import vision_renders as renders  # noqa: E402
from vision import outline  # noqa: E402
from vision.finder import find_cards  # noqa: E402
from vision.geometry import order_quad, quad_sides  # noqa: E402
from vision.synthetic import StressOptions  # noqa: E402
from vision.synthetic.render import REAL_CAMERA, scale_for_width  # noqa: E402
from vision.synthetic.stress import random_scene  # noqa: E402
from vision.synthetic.textures import load_textures  # noqa: E402

MATCH = 0.1      # share of the short side every corner of a proposal must lie within


def corner_error(quads: list[np.ndarray], truth: np.ndarray) -> float:
    """The least, over ``quads``, of the largest corner distance to ``truth`` (either way
    round), as a share of the card's short side."""
    t = order_quad(truth)
    short = quad_sides(t)[0]
    best = np.inf
    for q in quads:
        q = order_quad(q)
        best = min(best, min(float(np.abs(np.roll(q, r, axis=0) - t).max()) for r in (0, 2)))
    return best / short


def bench_deck(label: str, profile, textures: list[np.ndarray], scenes: int) -> None:
    size = renders.SIZE
    small = tuple(scale_for_width(size, profile.aspect, px) for px in renders.SMALL_PX)
    conditions = [("photo", dict(stress=StressOptions())),
                  ("real", dict(stress=REAL_CAMERA, tables=textures)),
                  ("small", dict(stress=REAL_CAMERA, tables=textures, scale_range=small))]
    print(f"\n{label}: {profile.deck_id}, {scenes} scenes per condition")
    print(f"{'condition':<10}{'cards':>6}{'outlined':>10}{'whole':>7}{'finder':>8}{'union':>7}"
          f"{'props/img':>11}{'ms/img':>8}")
    for name, kw in conditions:
        n = hit = whole = fhit = both = 0
        props, ms = [], []
        for seed in range(1000, 1000 + scenes):
            scene = random_scene(profile, seed, size=size, **kw)
            t0 = time.process_time()
            found = outline.propose(scene.image, profile.aspect)
            ms.append((time.process_time() - t0) * 1000)
            props.append(len(found))
            f = find_cards(scene.image, profile.aspect)
            fq = [c.quad for c in f.candidates + f.hypotheses]
            for tr in scene.truth:
                if tr.visible_fraction < 0.5:
                    continue
                n += 1
                e = corner_error([o.quad for o in found], tr.quad)
                hit += e < MATCH
                whole += corner_error([o.quad for o in found if o.sides >= 3], tr.quad) < MATCH
                ef = corner_error(fq, tr.quad)
                fhit += ef < MATCH
                both += min(e, ef) < MATCH
        print(f"{name:<10}{n:>6}{hit:>10}{whole:>7}{fhit:>8}{both:>7}{np.median(props):>11.0f}"
              f"{np.median(ms):>8.0f}")


def triestine(realdata: Path, work: Path) -> None:
    import vision_realdata as vr
    from vision.enrol import EnrolError, straighten
    from vision.paper import face_looks
    src = realdata / "italian-triestine-photos"
    print("\nTriestine single-card photos, each straightened as enrolment does:")
    good = 0
    for photo, card in vr.ENROL.items():
        img = cv2.imread(str(src / photo))
        try:
            face = straighten(img, photo)
        except EnrolError as exc:
            print(f"  {photo} {card}: refused ({exc})")
            continue
        shape = face.shape[0] / face.shape[1]
        ok = face_looks(face) and abs(np.log(shape / 1.9)) < 0.15
        good += ok
        cv2.imwrite(str(work / f"triestine-face-{Path(photo).stem}.png"), face)
        print(f"  {photo} {card}: {'a card face' if ok else 'NOT a whole card face'} (long/short {shape:.2f})")
    print(f"  {good} of {len(vr.ENROL)} straightened to a card face; faces in {work}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--realdata", type=Path, default=renders.REALDATA)
    ap.add_argument("--work", type=Path, default=Path("/tmp/cardtable-renders"))
    ap.add_argument("--scenes", type=int, default=24)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--triestine", action="store_true")
    args = ap.parse_args(argv)
    if not args.realdata.is_dir():
        print(f"bench/vision_outline.py: no real photos at {args.realdata}", file=sys.stderr)
        return 1
    cv2.setNumThreads(1)
    args.work.mkdir(parents=True, exist_ok=True)
    textures = load_textures(renders.cut_textures(args.realdata, args.work))
    scenes = 6 if args.quick else args.scenes
    for label, prof in (("italian-bresciane-faces", renders.enrolled(
            "bresciane", args.realdata / "italian-bresciane-faces", "trevigiane-52", args.work)),
                        ("deepPoker table-*-1", renders.enrolled(
                            "deeppoker", renders.deeppoker_reference(args.realdata, args.work), "french-52",
                            args.work))):
        bench_deck(label, prof, textures, scenes)
    if args.triestine:
        triestine(args.realdata, args.work)
    return 0


if __name__ == "__main__":
    sys.exit(main())
