"""How the corner-index thresholds of issue 14's "never guess" were set: tune half only.

    python bench/corner_checks.py [--realdata ../shared/realdata] [--out /tmp/cardtable-realdata] [--reuse]

Reads the real photos where they lie (see bench/vision_realdata.py, whose enrolment and
scoring it reuses; --reuse loads the profiles a previous run of either script kept in --out)
and prints these measurements, on the cards of the 'tune' half unless said:

1. *tilts*, *widths* and *glyphs*: the angle by which each digit of a two-digit rank (a 10) turns the
   sign-to-rank direction away from the sign-to-whole-rank one, in the enrolled faces of both
   decks; each rank glyph's width over its height (RANK_NARROW); how large a share of its face
   an index glyph is (CornerReader.max_area).
2. *turns* (vision.corner_index.SIGN_TURN): the reads the corner reader names (before "each
   card once"), right and wrong, for several turns of the sign. deepPoker: a read in a photo
   of one card is right when it names that card; bidly: right within CORNER_NEAR px of a label
   of its card, wrong at another card's label or for a card not in the deal.
3. *floors* (vision.corner_index.RANK_MIN, DUEL_MIN): the reads named after "each card
   once", right and wrong as in 2, for each rank floor and duel margin.
4. *notches* (vision.corner_index.CLUB_NOTCH): the club notch (club_notch) of every black sign
   read at an index of a black card (its rank read right, so the pair is that card's index):
   bidly deals at their labels, deepPoker photos of one card, and the enrolled faces' own
   indices, per true suit and half; and (SPADE_CLEAR) how far the spades' templates lead the
   clubs' at each sign with a notch above CLUB_NOTCH, per true suit, also in deepPoker's photos
   read with the bidly profile (another print of the deck, as a held-out set is).
5. *against* (vision.recognise.CORNER_AGAINST): for every detection named before the corner
   merge, the strongest contradiction (CornerReader.against) of an index read lying on it, for
   right names and for wrong ones (deepPoker table, tight crop, peek and unenrolled photos;
   bidly deals).
6. *twins* (vision.corner_index.OPPOSITE_TOL, TWIN_NEAR): every two reads of one card at two
   places whose quads' centres lie SAME_CARD or more apart (before "each card once"), bidly deals:
   the angle between their sign-to-rank directions and their centres' distance in short sides,
   and whether both lie at labels of that card (its two indices) or not.
7. *holes* (vision.corner_index.HOLE_SHARE): of the reads before "each card once" at labels of
   their card (bidly) or in photos of their card (deepPoker peeks and table photos), whether each
   rank glyph encloses a hole, per rank, and the smallest largest hole (share of the glyph's area)
   of a rank with holes; and the holes of the reads of another card whose rank has holes.
8. *reader*: what the corner reader alone names, per half (both halves: it checks a change, it
   sets nothing), right / wrong: bidly deals (right within CORNER_NEAR px of a label of its card),
   deepPoker peeks and table photos (a read of another card is wrong), and the reads named before
   "each card once" that are wrong (that rule hides them only while the true card is read too).

9. *ranks*: per bidly deal and rank, the median over its labelled indices of the best correlation
   of a rank glyph read there with that rank's templates (RANK_MIN set aside, so glyphs under
   it are measured too): a rank printed unlike the enrolled deck's stands out in its deal.

10. *leaning* (vision.recognise "Leaning indices"): every name given before the corner merge with
   index reads on its card (recognise._under), whether one of them leads with the named card or
   every one with another, right and wrong: deepPoker's photos (one card each) with both profiles,
   bidly's deals with both (a name is right on one of its card's labels, unknown elsewhere).

11. *gains* (vision.corner_index.RANK_TURN, TURN_GAIN): bidly's deals read with both profiles,
   both halves. For every read named with ranks unturned at a label of its card, how much reading
   its rank glyph turned by -RANK_TURN or +RANK_TURN raises its rank's best template (chance: the
   best of three readings); and every name that only a turn gives (TURN_GAIN set aside), with its
   gain and whether it lies at a label of its card.

``--only reader,notches`` runs the named measurements alone.
"""
from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import csv  # noqa: E402
import json  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import cv2  # noqa: E402
import numpy as np  # noqa: E402

import vision_realdata as vr  # noqa: E402
from vision import corner_index as ci  # noqa: E402
from vision import recognise as rg  # noqa: E402
from vision.decks import cards_of  # noqa: E402
from vision.geometry import quad_sides  # noqa: E402
from vision.profile import Profile  # noqa: E402

DECK = cards_of("french-52")
TURNS = (0.0, 8.0, 14.0, 20.0)


def tune(card: str) -> bool:
    return vr.half_of(card, DECK) == "tune"


def deeppoker_photos(folder: Path) -> list[tuple[str, str]]:
    """(file, card) of the recognised deepPoker photos (table -2..-4 and peek), tune half."""
    rows = list(csv.DictReader((folder / "labels.csv").open()))
    out = []
    for r in rows:
        f, card = r["file"], vr.DEEPPOKER_FIXES.get(r["file"], r["card"])
        if (f.startswith("peek-") or (f.startswith("table-") and not f.endswith("-1.jpg"))) and tune(card):
            out.append((f, card))
    return out


def bidly_deals(folder: Path) -> list[tuple[np.ndarray, dict[str, list[tuple[float, float]]]]]:
    """Each deal's image and its labelled index centres per card."""
    out = []
    for path in sorted(folder.glob("deal*-md-sq.jpg")):
        img = cv2.imread(str(path))
        h, w = img.shape[:2]
        centres: dict[str, list[tuple[float, float]]] = {}
        for lab in json.loads((folder / f"{path.stem}-net1280-labels.json").read_text()):
            rc = lab["relative_coordinates"]
            centres.setdefault(vr.bidly_card(lab["name"]), []).append((rc["center_x"] * w, rc["center_y"] * h))
        out.append((img, centres))
    return out


def profiles(data: Path, out: Path) -> tuple[Profile, Profile]:
    return (vr.deeppoker_profile(data / "french-deeppoker-singles", out),
            vr.bidly_profile(data / "french-bidly-deals", out))


def tilts(*profs: Profile) -> list[float]:
    """Degrees between each digit's sign-to-rank direction and the sign-to-whole-rank one."""
    out = []
    for prof in profs:
        for card, imgs in prof.faces.items():
            for img in imgs if "/" in card else ():
                for face in (img, np.ascontiguousarray(img[::-1, ::-1])):
                    b, pairs = ci._face_index(face, ci.ink_map(face, ci.FACE_WINDOW)[0])
                    if len(pairs) != 2:
                        continue
                    sign, digits = pairs[0][0], [p[1] for p in pairs]
                    whole = (b.centre[digits] * b.area[digits, None]).sum(0) / b.area[digits].sum() - b.centre[sign]
                    for d in digits:
                        u = b.centre[d] - b.centre[sign]
                        out.append(abs(float(np.degrees(np.arctan2(u[0] * whole[1] - u[1] * whole[0], u @ whole)))))
    return sorted(out)


def widths(*profs: Profile) -> None:
    """Each rank glyph's width over its height (spreads across and along sign-to-rank) in the
    enrolled faces, per rank (a 10's two digits apart): vision.corner_index.RANK_NARROW."""
    for name, prof in zip(("deepPoker", "bidly"), profs):
        seen: dict[str, list[float]] = {}
        for card, imgs in prof.faces.items():
            for img in imgs if "/" in card else ():
                for face in (img, np.ascontiguousarray(img[::-1, ::-1])):
                    b, pairs = ci._face_index(face, ci.ink_map(face, ci.FACE_WINDOW)[0])
                    first = min((r for _, r in pairs), key=lambda r: b.centre[r, 0], default=-1)   # a 10's "1"
                    for sign, rank in pairs:
                        u = b.centre[rank] - b.centre[sign]
                        u = u / np.linalg.norm(u)
                        a = float(ci.spread(b.cov[[rank]], np.array([[u[1], -u[0]]]))[0]
                                  / ci.spread(b.cov[[rank]], u[None])[0])
                        digit = "" if len(pairs) == 1 else " (its 1)" if rank == first else " (its 0)"
                        seen.setdefault(card.split("/")[1] + digit, []).append(a)
        print(f"  {name}: " + ", ".join(f"{k} {min(v):.2f}-{max(v):.2f}" for k, v in sorted(seen.items())))


def glyphs(*profs: Profile) -> None:
    """Each enrolled face's larger index glyph as a share of the face (the largest a glyph can be
    of a picture: vision.corner_index, CornerReader.max_area)."""
    for name, prof in zip(("deepPoker", "bidly"), profs):
        shares = sorted(t.share for t in ci.CornerReader(prof.faces, DECK).templates)
        print(f"  {name}: {len(shares)} templates, median {np.median(shares):.4f}, largest {shares[-1]:.4f}")


def judged(reader: ci.CornerReader, img: np.ndarray) -> list[ci.Read]:
    """The reads ``reader`` names in ``img`` before "each card once" (vision.corner_index._once)."""
    keep: list[ci.Read] = []
    once = ci._once
    ci._once = lambda reads: keep.extend(r for r in reads if r.card is not None) or once(reads)
    try:
        reader.read(img)
    finally:
        ci._once = once
    return keep


def turns(dp_reader, dp_folder: Path, bidly_reader, deals) -> None:
    photos = deeppoker_photos(dp_folder)
    for t in TURNS:
        ci.SIGN_TURN = t
        right = wrong = 0
        for f, card in photos:
            for r in judged(dp_reader, cv2.imread(str(dp_folder / f))):
                right += r.card == card
                wrong += r.card != card
        for img, centres in deals:
            for r in judged(bidly_reader, img):
                near = [c for c, pts in centres.items() for p in pts if np.hypot(*(r.index - p)) < vr.CORNER_NEAR]
                if r.card in near:
                    right += tune(r.card)
                elif near or r.card not in centres:
                    wrong += tune(r.card) or any(tune(c) for c in near)
        print(f"  SIGN_TURN {t:4.1f}°: reads named right {right}, wrong {wrong}")
    ci.SIGN_TURN = TURNS_DEFAULT


def against(dp_prof: Profile, dp_folder: Path, bidly_prof: Profile, deals) -> None:
    """Strongest contradiction of an index on each detection named before the corner merge."""
    seen: list[tuple[list[rg.Detection], list[ci.Read]]] = []
    merge = rg._with_corners
    rg._with_corners = lambda dets, reads, against=None: seen.append((dets, reads)) or merge(dets, reads, against)
    right: list[float] = []
    wrong: list[tuple[float, str]] = []

    def tally(rec: rg.Recogniser, img: np.ndarray, is_right, name: str) -> None:
        seen.clear()
        rec.recognise(img)
        for dets, reads in seen:
            for k, d in enumerate(dets):
                if d.card is None:
                    continue
                worst = max((rec.corners.against(r, d.card) for r in reads if k in rg._under(dets, r)), default=0.0)
                ok = is_right(d)
                if ok is True:
                    right.append(worst)
                elif ok is False:
                    wrong.append((worst, f"{name}: {d.card}"))

    try:
        rec = rg.Recogniser(dp_prof)
        left_out = set(DECK[::vr.UNENROLLED_EVERY])
        rec_without = rg.Recogniser(Profile(dp_prof.deck_id, {c: f for c, f in dp_prof.faces.items()
                                                              if c not in left_out}, dp_prof.aspect,
                                            dp_prof.calibration))
        for f, card in deeppoker_photos(dp_folder):
            img = cv2.imread(str(dp_folder / f))
            tally(rec, img, lambda d, c=card: d.card == c, f)
            crop = vr.tight_crop(img, dp_folder / "boxes" / f"{Path(f).stem}.xml") if f.startswith("table-") else None
            if crop is not None:
                tally(rec, crop, lambda d, c=card: d.card == c, f"crop {f}")
            if card in left_out and f.startswith("table-"):
                tally(rec_without, img, lambda d: False, f"unenrolled {f}")
        rb = rg.Recogniser(bidly_prof)
        for n, (img, centres) in enumerate(deals):
            def judge(d, centres=centres):
                if not tune(d.card):
                    return None
                if d.card not in centres:
                    return False
                return any(vr.inside(d.quad, p) for p in centres[d.card]) or None
            tally(rb, img, judge, f"bidly deal {n + 1}")
    finally:
        rg._with_corners = merge
    r = np.sort(right)
    print(f"  right names: {len(r)}; their strongest contradiction, highest: {np.round(r[::-1][:10], 3).tolist()}")
    print(f"  wrong names: {len(wrong)}")
    for v, name in sorted(wrong, reverse=True):
        print(f"    {v:.3f}  {name}")


def twins(bidly_reader, deals) -> None:
    """Reads of one card at two places (see the module doc), bidly deals, both halves."""
    for n, (img, centres) in enumerate(deals):
        early = [r for r in judged(bidly_reader, img) if r.card is not None]
        for a, r in enumerate(early):
            for o in early[:a]:
                short = quad_sides(r.quad)[0]
                apart = float(np.linalg.norm(o.quad.mean(axis=0) - r.quad.mean(axis=0))) / short
                if r.card != o.card or set(r.blobs) & set(o.blobs) or apart < ci.SAME_CARD:
                    continue
                cos = float(r.up @ o.up) / float(np.linalg.norm(r.up) * np.linalg.norm(o.up))
                at = [[c for c, pts in centres.items() for p in pts if np.hypot(*(x.index - p)) < vr.CORNER_NEAR]
                      for x in (r, o)]
                kind = "its two indices" if all(r.card in c for c in at) else "two places"
                print(f"  bidly deal {n + 1} {r.card} ({vr.half_of(r.card, DECK)}): {kind}, labels there "
                      f"{at[0] or '-'} / {at[1] or '-'}, {np.degrees(np.arccos(np.clip(cos, -1, 1))):.1f}°, "
                      f"{apart:.2f} short sides apart, scores {r.score:.2f} / {o.score:.2f}")


def hole_sizes(b: ci.Blobs, k: int) -> list[float]:
    """The enclosed background pieces of blob ``k`` (as vision.corner_index.holes finds them, before
    its size floors), as shares of the blob's area, largest first."""
    keep = ci.HOLE_MIN, ci.HOLE_SHARE
    ci.HOLE_MIN, ci.HOLE_SHARE = 1, 0.0
    try:
        sizes = []
        for share in np.linspace(0, 0.2, 201):      # the share at which each count drops
            ci.HOLE_SHARE = float(share)
            sizes.append(ci.holes(b, k))
    finally:
        ci.HOLE_MIN, ci.HOLE_SHARE = keep
    return [float(np.linspace(0, 0.2, 201)[max(i for i, n in enumerate(sizes) if n > m)]) for m in range(sizes[0])]


def holes(dp_reader, dp_folder: Path, bidly_reader, deals) -> None:
    """Holes in the rank glyphs of right and wrong reads (see the module doc), both halves."""
    seen: dict[str, list[int]] = {}
    smallest: list[tuple[float, str]] = []

    def look(reader, img, is_right) -> None:
        b = reader.ink_blobs(img)[2]
        rule, reader.hole = reader.hole, np.zeros_like(reader.hole)      # every read, as without the rule
        try:
            reads = judged(reader, img)
        finally:
            reader.hole = rule
        for r in reads:
            rank, right = r.card.split("/")[1], is_right(r)
            holed = bool(reader.hole[reader.cards == r.card].any())
            if right is None or not (right or holed):
                continue
            sizes = hole_sizes(b, r.blobs[1])
            if right:
                t = seen.setdefault(rank, [0, 0])
                t[0] += bool(sizes and sizes[0] >= ci.HOLE_SHARE)
                t[1] += 1
                if holed and sizes:
                    smallest.append((sizes[0], rank))
            else:
                print(f"  read of another card: {r.card}, holes (share of the glyph, 0.2: or more) "
                      f"{np.round(sizes[:3], 4).tolist()}")
    for img, centres in deals:
        look(bidly_reader, img, lambda r, c=centres: True if any(
            np.hypot(*(r.index - p)) < vr.CORNER_NEAR for p in c.get(r.card, [])) else None)
    for row in csv.DictReader((dp_folder / "labels.csv").open()):
        f, card = row["file"], vr.DEEPPOKER_FIXES.get(row["file"], row["card"])
        if f.startswith("peek-") or (f.startswith("table-") and not f.endswith("-1.jpg")):
            look(dp_reader, cv2.imread(str(dp_folder / f)), lambda r, c=card: r.card == c)
    print("  right reads, rank glyphs with a hole (HOLE_SHARE) of all: " +
          ", ".join(f"{k} {v[0]}/{v[1]}" for k, v in sorted(seen.items())))
    print(f"  smallest largest hole of a rank with holes: {sorted(smallest)[:3]}")


def reader(dp_reader, dp_folder: Path, bidly_reader, deals) -> None:
    """The corner reader alone, per half: cards named right and reads wrong (see the module doc)."""
    tally: dict[str, list[int]] = {}
    for n, (img, centres) in enumerate(deals):
        early = judged(bidly_reader, img)
        got = set()
        for r in [r for r in ci._once(early) if r.card is not None]:
            near = [c for c, pts in centres.items() for p in pts if np.hypot(*(r.index - p)) < vr.CORNER_NEAR]
            if r.card in near:
                got.add(r.card)
            elif near or r.card not in centres:
                tally.setdefault(f"bidly {vr.half_of(r.card, DECK)}", [0, 0, 0])[1] += 1
        for card in centres:
            t = tally.setdefault(f"bidly {vr.half_of(card, DECK)}", [0, 0, 0])
            t[0] += card in got
            t[2] += 1
        for r in early:
            near = [c for c, pts in centres.items() for p in pts if np.hypot(*(r.index - p)) < vr.CORNER_NEAR]
            if r.card not in near and (near or r.card not in centres):
                print(f"  bidly deal {n + 1}: {r.card} read at {r.index.astype(int).tolist()} (labels there: "
                      f"{','.join(near) or 'none'}) before each card once, score {r.score:.3f}")
    for row in csv.DictReader((dp_folder / "labels.csv").open()):
        f, card = row["file"], vr.DEEPPOKER_FIXES.get(row["file"], row["card"])
        kind = "peek" if f.startswith("peek-") else "table" if f.startswith("table-") and not f.endswith("-1.jpg") \
            else None
        if kind is None:
            continue
        names = [r.card for r in dp_reader.read(cv2.imread(str(dp_folder / f))) if r.card is not None]
        t = tally.setdefault(f"deepPoker {kind} {vr.half_of(card, DECK)}", [0, 0, 0])
        t[0] += card in names
        t[1] += sum(c != card for c in names)
        t[2] += 1
        for c in names:
            if c != card:
                print(f"  {f}: read {c}")
    for name, (right, wrong, total) in sorted(tally.items()):
        print(f"  {name:24s} named {right:3d} of {total:3d}, wrong {wrong}")


TURNS_DEFAULT = ci.SIGN_TURN
RANK_FLOORS = (0.7, 0.72, 0.74, 0.75, 0.76, 0.78, 0.8)
DUELS = (0.05, 0.08, 0.1, 0.12, 0.15)


def side_scores(reader: ci.CornerReader, r: ci.Read) -> tuple[float, float]:
    """(rank, sign): the best score of the read card's rank, and of its suit."""
    suit, rank = r.card.split("/")
    (sr, ss), (ranks, _), (suits, _) = r.scores, *reader.sides
    return float(sr[reader._best(sr, 0, ranks.index(rank))]), float(ss[reader._best(ss, 1, suits.index(suit))])


def ranks(bidly_reader, deals) -> None:
    rank_names, _ = bidly_reader.sides[0]
    floor = ci.RANK_MIN
    ci.RANK_MIN = -1.0          # every pair whose sign is read, whatever its rank scores
    try:
        for n, (img, centres) in enumerate(deals, 1):
            reads = bidly_reader.read(img, claims=True)
            best: dict[str, list[float]] = {}
            for card, pts in centres.items():
                rank = card.split("/")[1]
                for p in pts:
                    at = [r for r in reads if np.hypot(*(r.index - p)) < vr.CORNER_NEAR]
                    if at:
                        k = rank_names.index(rank)
                        best.setdefault(rank, []).append(max(float(r.scores[0][bidly_reader._best(r.scores[0], 0, k)])
                                                             for r in at))
            print(f"  deal {n}: " + " ".join(f"{r} {np.median(v):.2f}" for r, v in sorted(
                best.items(), key=lambda kv: rank_names.index(kv[0]))))
    finally:
        ci.RANK_MIN = floor


def turn_gains(reader: ci.CornerReader, img: np.ndarray, reads: list[ci.Read]) -> list[float]:
    """How much the rank glyph of each read raises its rank's best template when read turned by
    -RANK_TURN or +RANK_TURN rather than unturned (its blobs found again, once per image, as
    CornerReader.read finds them)."""
    ink, red, b = reader.ink_blobs(img)
    b = ci.solid_parts(ink, b, ci.MIN_AREA, int(reader.max_area * img.shape[0] * img.shape[1]))
    inkb = ci.Ink(ink)
    out = []
    for r in reads:
        i, j = r.blobs
        up = (b.centre[j] - b.centre[i])[None]
        rank = reader.sides[0][0].index(r.card.split("/")[1])
        scores = []
        for deg in (0.0, -ci.RANK_TURN, ci.RANK_TURN):
            patch, _, _ = ci.glyphs(inkb, red, b, np.array([j]), up @ ci._turn(deg), own_width=True)
            scores.append(float(reader._per(reader._scores(patch, None, 0), 0)[0, rank]))
        out.append(max(scores) - scores[0])
    return out


def gains(readers: dict[str, ci.CornerReader], deals) -> None:
    """See the module doc, 11."""
    turn, floor = ci.RANK_TURN, ci.TURN_GAIN
    try:
        for name, reader in readers.items():
            chance, turned = [], []
            for n, (img, centres) in enumerate(deals, 1):
                ci.RANK_TURN = 0.0
                straight = [r for r in reader.read(img) if r.card is not None]
                ci.RANK_TURN, ci.TURN_GAIN = turn, 0.0
                every = [r for r in reader.read(img) if r.card is not None]
                ci.TURN_GAIN = floor
                def at_label(r: ci.Read) -> bool:
                    return any(np.hypot(*(r.index - p)) < vr.CORNER_NEAR for p in centres.get(r.card, ()))
                right = [r for r in straight if at_label(r)]
                known = {r.card for r in straight}
                only = [r for r in every if r.card not in known]
                g = turn_gains(reader, img, right + only)
                chance += g[:len(right)]
                turned += [(n, r.card, gain, at_label(r)) for r, gain in zip(only, g[len(right):])]
            g = np.array(chance)
            print(f"  {name}: {len(g)} right reads named unturned gain by turning: median {np.median(g):.3f}, "
                  f"99th percentile {np.quantile(g, 0.99):.3f}, at most {g.max():.3f}")
            for n, card, gain, at in sorted(turned, key=lambda t: t[2]):
                print(f"    deal {n}: {card} named only turned, gain {gain:.3f}, "
                      f"{'at a label of its card' if at else 'WRONG (at no label of its card)'}")
    finally:
        ci.RANK_TURN, ci.TURN_GAIN = turn, floor


def leaning(dp_prof: Profile, dp_folder: Path, bidly_prof: Profile, deals) -> None:
    seen: list[tuple[str, str, str]] = []       # (truth, which reads lean where, what)
    merge = rg._with_corners

    def names(rec: rg.Recogniser, img: np.ndarray, truth, what: str) -> None:
        def hook(dets, reads, against=None):
            for k, d in enumerate(dets):
                leads = [r.top[0][0] for r in reads if r.top and k in rg._under(dets, r)]
                if d.card is not None and leads:
                    lean = "a read leads with it" if d.card in leads else "every read leads with another card"
                    seen.append((truth(d), lean, f"{what} {d.card}"))
            return merge(dets, reads, against)
        rg._with_corners = hook
        try:
            rec.recognise(img)
        finally:
            rg._with_corners = merge

    recs = (rg.Recogniser(dp_prof), rg.Recogniser(bidly_prof))
    for row in csv.DictReader((dp_folder / "labels.csv").open()):
        f, card = row["file"], vr.DEEPPOKER_FIXES.get(row["file"], row["card"])
        if f.endswith("-1.jpg") and f.startswith("table-"):
            continue
        img = cv2.imread(str(dp_folder / f))
        for rec in recs if f.startswith("table-") else recs[:1]:
            names(rec, img, lambda d, card=card: "right" if d.card == card else "WRONG", f)
    for n, (img, centres) in enumerate(deals, 1):
        for rec in recs:
            names(rec, img, lambda d, centres=centres: "right" if any(
                rg._inside(d.quad, p) for p in centres.get(d.card, [])) else "unknown", f"bidly deal {n}")
    for truth in ("right", "unknown", "WRONG"):
        for lean in ("a read leads with it", "every read leads with another card"):
            got = [w for t, ln, w in seen if t == truth and ln == lean]
            shown = f": {', '.join(got)}" if got and truth != "right" and len(got) <= 6 else ""
            print(f"  {truth} names, {lean}: {len(got)}{shown}")


def floors(dp_reader, dp_folder: Path, bidly_reader, deals) -> None:
    """Reads named (after "each card once") right and wrong for each rank floor
    (vision.corner_index.RANK_MIN) and duel margin (DUEL_MIN), the other guards as they are;
    deepPoker single-card photos and bidly deals as in *turns*, tune half. The reads are
    taken once at the lowest floor and duel, then each pair of values is applied to them."""
    kept = ci.RANK_MIN, ci.DUEL_MIN
    ci.RANK_MIN, ci.DUEL_MIN = min(RANK_FLOORS), min(DUELS)
    try:
        photos = [(judged(dp_reader, cv2.imread(str(dp_folder / f))), card) for f, card in deeppoker_photos(dp_folder)]
        bidly = [(judged(bidly_reader, img), centres) for img, centres in deals]
    finally:
        ci.RANK_MIN, ci.DUEL_MIN = kept
    rank = {id(r): side_scores(reader, r)[0] for reader, items in ((dp_reader, photos), (bidly_reader, bidly))
            for reads, _ in items for r in reads}
    print("  rank floor \\ duel: right / wrong")
    print("        " + "".join(f"{d:>10.2f}" for d in DUELS))
    wrongs = {}
    for fr in RANK_FLOORS:
        row = []
        for du in DUELS:
            right = wrong = 0

            def keep(reads):
                return [r for r in ci._once([r for r in reads if rank[id(r)] >= fr and r.duel >= du])
                        if r.card is not None]
            for reads, card in photos:
                for r in keep(reads):
                    right += r.card == card
                    if r.card != card:
                        wrong += 1
                        wrongs[(card, r.card)] = rank[id(r)]
            for n, (reads, centres) in enumerate(bidly):
                for r in keep(reads):
                    near = [c for c, pts in centres.items() for p in pts if np.hypot(*(r.index - p)) < vr.CORNER_NEAR]
                    if r.card in near:
                        right += tune(r.card)
                    elif (near or r.card not in centres) and (tune(r.card) or any(tune(c) for c in near)):
                        wrong += 1
                        wrongs[(f"deal {n + 1} {','.join(near) or 'no label'}", r.card)] = rank[id(r)]
            row.append(f"{right:>6}/{wrong:<3}")
        print(f"  {fr:5.2f} " + "".join(row))
    for (where, card), s in sorted(wrongs.items(), key=lambda x: -x[1]):
        print(f"  wrong at some floor: {where} read as {card}, rank score {s:.3f}")


def notches(dp_prof: Profile, dp_folder: Path, bidly_prof: Profile, deals) -> None:
    """Club notches of black signs read at black cards' indices, per true suit, half and set."""
    seen: dict[tuple[str, str, str], list[float]] = {}

    def add(where: str, card: str, value: float) -> None:
        suit = card.split("/")[0]
        if suit in ("clubs", "spades"):
            seen.setdefault((where, suit, vr.half_of(card, DECK)), []).append(value)

    def own(r: ci.Read, card: str) -> bool:     # the card's own index: its rank read, its suit black
        return r.top[0][0].split("/")[1] == card.split("/")[1] and r.notch == r.notch and \
            r.top[0][0].split("/")[0] in ("clubs", "spades")

    br = ci.CornerReader(bidly_prof.faces, DECK)
    for img, centres in deals:
        for r in br.read(img, claims=True):
            for card, pts in centres.items():
                if own(r, card) and any(np.hypot(*(r.index - p)) < vr.CORNER_NEAR for p in pts):
                    add("bidly deals", card, r.notch)
    dr = ci.CornerReader(dp_prof.faces, DECK)
    rows = list(csv.DictReader((dp_folder / "labels.csv").open()))
    for row in rows:
        f, card = row["file"], vr.DEEPPOKER_FIXES.get(row["file"], row["card"])
        if f.startswith("peek-") or (f.startswith("table-") and not f.endswith("-1.jpg")):
            for r in dr.read(cv2.imread(str(dp_folder / f)), claims=True):
                if own(r, card):
                    add("deepPoker photos", card, r.notch)
    for name, prof in (("deepPoker faces", dp_prof), ("bidly faces", bidly_prof)):
        for card, imgs in prof.faces.items():
            for img in imgs if "/" in card else ():
                for face in (img, np.ascontiguousarray(img[::-1, ::-1])):
                    ink = ci.ink_map(face, ci.FACE_WINDOW)[0]
                    b, pairs = ci._face_index(face, ink)
                    for sign, rank in pairs[:1]:
                        add(name, card, ci.club_notch(ink, b, sign, b.centre[rank] - b.centre[sign]))
    for (where, suit, half), v in sorted(seen.items()):
        q = np.percentile(v, [0, 10, 50, 90, 100])
        print(f"  {where:17s} {suit:7s} {half:6s} n {len(v):3d}  min {q[0]:.3f}  10% {q[1]:.3f}  median {q[2]:.3f}"
              f"  90% {q[3]:.3f}  max {q[4]:.3f}  above CLUB_NOTCH {np.mean(np.array(v) >= ci.CLUB_NOTCH):.0%}")

    def leads(reader: ci.CornerReader, img: np.ndarray, at) -> list[float]:
        """The spades' templates' lead over the clubs' of each read sign with a notch above
        CLUB_NOTCH lying at a black card's index (``at``), before "each card once"."""
        got: list[ci.Read] = []
        once, clear = ci._once, ci.SPADE_CLEAR
        ci._once = lambda reads: got.extend(reads) or once(reads)
        ci.SPADE_CLEAR = -np.inf          # every notched read keeps its templates' own scores
        try:
            reader.read(img, claims=True)
        finally:
            ci._once, ci.SPADE_CLEAR = once, clear
        suits = reader.sides[1][0]
        return [float(r.scores[1][reader._best(r.scores[1], 1, suits.index("spades"))]
                      - r.scores[1][reader._best(r.scores[1], 1, suits.index("clubs"))])
                for r in got if r.notch >= ci.CLUB_NOTCH and at(r)]

    lead: dict[str, list[float]] = {"clubs": [], "spades": []}
    for img, centres in deals:
        for card, pts in centres.items():
            if card.startswith(("clubs/", "spades/")):
                lead[card.split("/")[0]] += leads(br, img, lambda r, pts=pts, card=card: own(r, card) and any(
                    np.hypot(*(r.index - p)) < vr.CORNER_NEAR for p in pts))
    held_out = ci.CornerReader(bidly_prof.faces, DECK)    # deepPoker photos read with the bidly profile too
    for row in rows:
        f, card = row["file"], vr.DEEPPOKER_FIXES.get(row["file"], row["card"])
        if card.startswith(("clubs/", "spades/")) and f.startswith(("peek-", "table-")):
            img = cv2.imread(str(dp_folder / f))
            for reader in (dr, held_out):
                lead[card.split("/")[0]] += leads(reader, img, lambda r, card=card: own(r, card))
    print(f"  signs with a notch above CLUB_NOTCH, their spade templates' lead over the clubs' (SPADE_CLEAR "
          f"{ci.SPADE_CLEAR}), bidly deals and deepPoker photos with both profiles:")
    for suit, v in lead.items():
        ahead = sorted(x for x in v if x > 0)
        print(f"    true {suit}: {len(v)}, {len(ahead)} with the spades ahead: "
              + (" ".join(f"{x:.3f}" for x in ahead) or "none"))


def main(argv=None) -> int:
    ap = vr.realdata_parser("bench/corner_checks.py")
    ap.add_argument("--only", default="", help="comma-separated measurements to run (default: all): "
                    "tilts, glyphs, widths, turns, floors, notches, against, twins, holes, ranks, leaning, gains, reader")
    args = ap.parse_args(argv)
    vr.REUSE = args.reuse
    data, out = Path(args.realdata), vr.output_dir("bench/corner_checks.py", args.out)
    if out is None:
        return 1
    dp, bidly = profiles(data, out)
    folder = data / "french-deeppoker-singles"
    deals = bidly_deals(data / "french-bidly-deals")
    only = set(args.only.split(",")) if args.only else None

    def run(name: str, title: str) -> bool:
        if only is None or name in only:
            print(title)
            return True
        return False
    if run("tilts", "tilts: degrees a 10's digit turns the sign-to-rank direction (enrolled faces):"):
        print("  " + " ".join(f"{t:.1f}" for t in tilts(dp, bidly)))
    if run("glyphs", "glyphs: an index glyph's share of its face (enrolled faces):"):
        glyphs(dp, bidly)
    if run("widths", "widths: a rank glyph's width over its height (enrolled faces; RANK_NARROW):"):
        widths(dp, bidly)
    if run("turns", "turns (tune half):"):
        turns(ci.CornerReader(dp.faces, DECK), folder, ci.CornerReader(bidly.faces, DECK), deals)
    if run("floors", "floors (tune half):"):
        floors(ci.CornerReader(dp.faces, DECK), folder, ci.CornerReader(bidly.faces, DECK), deals)
    if run("notches", "notches: a black sign's club notch, per true suit (CLUB_NOTCH: above it a club, never a spade)"):
        notches(dp, folder, bidly, deals)
    if run("against", "against (tune half): strongest index contradiction of each name given before the corner merge"):
        against(dp, folder, bidly, deals)
    if run("twins", "twins: reads of one card at two places (OPPOSITE_TOL, TWIN_NEAR)"):
        twins(ci.CornerReader(bidly.faces, DECK), deals)
    if run("holes", "holes: rank glyphs with a hole (HOLE_SHARE), reads before each card once"):
        holes(ci.CornerReader(dp.faces, DECK), folder, ci.CornerReader(bidly.faces, DECK), deals)
    if run("ranks", "ranks: median correlation of each rank's labelled glyphs with its templates, per deal (bidly)"):
        ranks(ci.CornerReader(bidly.faces, DECK), deals)
    if run("leaning", "leaning: names given before the corner merge with index reads on their card, both halves"):
        leaning(dp, folder, bidly, deals)
    if run("gains", "gains: what reading a rank turned adds (RANK_TURN, TURN_GAIN), bidly deals, both halves"):
        gains({"bidly's profile": ci.CornerReader(bidly.faces, DECK),
               "deepPoker's profile": ci.CornerReader(dp.faces, DECK)}, deals)
    if run("reader", "reader: the corner reader alone, both halves (named right, wrong)"):
        reader(ci.CornerReader(dp.faces, DECK), folder, ci.CornerReader(bidly.faces, DECK), deals)
    return 0


if __name__ == "__main__":
    sys.exit(main())
