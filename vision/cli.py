"""Command-line edges of vision: ``cardtable enrol`` and ``cardtable recognise``.

Each takes its argument list and returns an exit code; anything a person can fix is one
line on stderr, never a traceback (CONTRACT §4).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Sequence

from vision.decks import unenrolled_lookalikes
from vision.errors import VisionError

# Template matching is a few small matrix products per card: one BLAS thread is fastest,
# and several only contend with the rest of the table's processes.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
LOOKALIKES_SHOWN = 12   # look-alike pairs listed after enrolment (a screenful)


def enrol_main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="cardtable enrol",
        description="Learn a physical deck: from photos (file name = card id with '_' for '/', "
                    "optionally .N, plus back.jpg), or from the table camera while a sorted deck "
                    "is dealt face up, one card at a time, into the box.")
    ap.add_argument("profile_dir", help="folder to write the profile to (replaced atomically)")
    ap.add_argument("reference_dir", nargs="?", help="folder of reference photos")
    ap.add_argument("--deck", help="deck id (default for photos: the deck all file names fit)")
    ap.add_argument("--skip-bad", action="store_true",
                    help="enrol the good photos even if some are bad (they are listed)")
    ap.add_argument("--from-camera", metavar="SOURCE",
                    help="enrol from the table camera: picamera2, opencv:N, a video file, an image "
                         "folder, synthetic:NAME")
    ap.add_argument("--order", metavar="FILE", help="with --from-camera: the order the cards are "
                    "dealt in (card ids, one per line; default: the deck file's order, then the back)")
    ap.add_argument("--calibration", help="with --from-camera: a calibration from 'cardtable "
                    "calibrate'; the box is its trick area (default: the centre of the view)")
    ap.add_argument("--max-frames", type=int, help="with --from-camera: stop after this many frames")
    ap.add_argument("-q", "--quiet", action="store_true", help="no progress bar (there is none either when stderr is not a terminal)")
    args = ap.parse_args(list(sys.argv[1:] if argv is None else argv))
    if (args.reference_dir is None) == (args.from_camera is None):
        print("cardtable enrol: give either REFERENCE_DIR (photos) or --from-camera SOURCE",
              file=sys.stderr)
        return 2
    if args.from_camera is not None:
        from vision.enrol_camera import camera_main
        return camera_main(args)
    from vision.enrol import BadPhotos, enrol, text_progress
    try:
        bar = None if args.quiet or not sys.stderr.isatty() else text_progress   # no \r in logs
        rep = enrol(args.reference_dir, args.deck, bar,
                    skip_bad=args.skip_bad)
        rep.profile.save(args.profile_dir)
    except BadPhotos as exc:
        if len(exc.bad) == 1:
            print(f"cardtable enrol: {exc.bad[0]}; no profile written", file=sys.stderr)
        else:
            print(f"cardtable enrol: {len(exc.bad)} of {exc.total} photos cannot be enrolled; no "
                  "profile written (retake them, or --skip-bad to enrol the rest):", file=sys.stderr)
            for b in exc.bad:
                print(f"  {b}", file=sys.stderr)
        return 1
    except (VisionError, OSError) as exc:
        print(f"cardtable enrol: {exc}", file=sys.stderr)
        return 1
    for b in rep.skipped:
        print(f"skipped {b}", file=sys.stderr)
    print_summary(rep, args.profile_dir)
    return 0


def print_summary(rep, profile_dir: str) -> None:
    """What was enrolled, what is missing, which faces to look at, which cards look alike."""
    p = rep.profile
    known = len([c for c in p.cards if c != "back"])
    print(f"enrolled {p.deck_id}: {known} cards{' and the back' if 'back' in p.cards else ''} "
          f"from {rep.photos} photos -> {profile_dir}", file=sys.stderr)
    if rep.missing:
        print(f"missing ({len(rep.missing)}): {' '.join(rep.missing)}", file=sys.stderr)

    def retake(stem: str) -> str:
        if p.meta.get("enrolled_from") == "camera":
            return f"deal {stem} into the box again (enrol it from the camera with the rest)"
        return f"retake {stem}.jpg"

    for card in rep.suspect:
        stem = card.replace("/", "_")
        print(f"check {profile_dir}/faces/{stem}.*.png: its edge is not card paper (cut off, "
              f"or table in the picture?); {retake(stem)} (until then {card} is named only where "
              f"every part of its face agrees, or by its corner index)", file=sys.stderr)
    for card in rep.index_unlike:
        stem = card.replace("/", "_")
        print(f"check {profile_dir}/faces/{stem}.*.png: its corner index does not look like the same rank's "
              f"and suit's on other cards (table or glare at its corner?), so it is not read; {retake(stem)}",
              file=sys.stderr)
    if rep.index_off:
        print(f"corner indices will not be read with this profile: {rep.index_off}", file=sys.stderr)
    lacking = unenrolled_lookalikes(p.faces, p.deck_id)
    if lacking:
        shown = [f"{c} needs {' '.join(lacks)}" for c, lacks in list(lacking.items())[:LOOKALIKES_SHOWN]]
        more = f"; ... and {len(lacking) - LOOKALIKES_SHOWN} more" if len(lacking) > LOOKALIKES_SHOWN else ""
        print(f"may stay unnamed until their look-alikes are enrolled too ({len(lacking)}): "
              f"{'; '.join(shown)}{more}", file=sys.stderr)
    for look in rep.lookalikes[:LOOKALIKES_SHOWN]:
        print(look, file=sys.stderr)
    if len(rep.lookalikes) > LOOKALIKES_SHOWN:
        print(f"... and {len(rep.lookalikes) - LOOKALIKES_SHOWN} more look-alike pairs", file=sys.stderr)


def recognise_main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="cardtable recognise",
                                 description="Find and identify every card in each image; "
                                             "one JSON line per image.")
    ap.add_argument("profile_dir", help="profile made by 'cardtable enrol'")
    ap.add_argument("images", nargs="+", help="image files")
    ap.add_argument("--annotate", metavar="OUT_DIR", help="also write each image with quads, ids "
                                                           "and confidences drawn")
    ap.add_argument("--threshold", type=float, default=None, help="confidence below which a card "
                                                                 "is reported as null")
    ap.add_argument("--candidates", help="comma-separated card ids that may appear")
    args = ap.parse_args(list(sys.argv[1:] if argv is None else argv))
    if args.threshold is not None and not 0.0 <= args.threshold <= 1.0:
        print(f"cardtable recognise: --threshold {args.threshold:g}: a confidence between 0 and 1", file=sys.stderr)
        return 2
    import cv2

    from vision.annotate import annotate
    from vision.enrol import read_image
    from vision.profile import Profile
    from vision.recognise import Recogniser
    try:
        profile = Profile.load(args.profile_dir)
        kw = {} if args.threshold is None else {"threshold": args.threshold}
        rec = Recogniser(profile, **kw)
        cands = None
        if args.candidates:
            from vision.enrol import EnrolError, name_to_card
            try:
                cands = {name_to_card(c.strip().replace("/", "_"), profile.deck_id)
                         for c in args.candidates.split(",") if c.strip()}
            except (EnrolError, KeyError) as exc:
                raise VisionError(f"--candidates: {exc}") from None
        out_dir = Path(args.annotate) if args.annotate else None
        if out_dir:
            out_dir.mkdir(parents=True, exist_ok=True)
    except (VisionError, OSError) as exc:
        print(f"cardtable recognise: {exc}", file=sys.stderr)
        return 1
    status = 0
    for path in args.images:
        try:
            img = read_image(Path(path))
        except VisionError as exc:
            print(f"cardtable recognise: {exc}", file=sys.stderr)
            status = 1
            continue
        t0 = time.perf_counter()
        dets = rec.recognise(img, cands)
        ms = (time.perf_counter() - t0) * 1000
        cards = [{"card": d.card, "face_up": d.face_up, "confidence": round(d.confidence, 4),
                  "quad": [[round(float(x), 1), round(float(y), 1)] for x, y in d.quad]} for d in dets]
        print(json.dumps({"image": path, "cards": cards, "ms": round(ms, 1)}), flush=True)
        if out_dir:
            target = out_dir / (Path(path).stem + ".annotated.png")
            if not cv2.imwrite(str(target), annotate(img, dets)):
                print(f"cardtable recognise: could not write {target}", file=sys.stderr)
                status = 1
    return status


# Vision II (live table) commands live in vision/live_cli.py; re-exported for controller/cli.py.
from vision.live_cli import track_main, calibrate_main, watch_main  # noqa: E402,F401
