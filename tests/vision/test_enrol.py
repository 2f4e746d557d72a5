"""Enrolment from photos: every bad photo named in one run, --skip-bad, look-alike warnings."""
from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from vision.cli import enrol_main
from vision.enrol import difference_region, lookalikes
from vision.profile import Profile
from vision.synthetic import Placement, StressOptions, render_scene, synthetic_profile

DECK = "french-32"
GOOD = ("hearts/queen", "clubs/7", "diamonds/ace", "spades/king")


def _on_table(card: str, seed: int) -> np.ndarray:
    p = synthetic_profile(DECK)
    return render_scene(p, [Placement(card, (320, 240), 25 * seed, scale=1.5)], size=(640, 480),
                        table="wood", seed=seed,
                        stress=StressOptions(tilt=0.02, light=0.1, white_balance=0.05, glare=0.0,
                                             blur=0.6, noise=2, jpeg=90)).image


def _folder(tmp_path: Path) -> Path:
    """Four good cards (one with two photos) and three bad photos of different kinds."""
    ref = tmp_path / "ref"
    ref.mkdir()
    p = synthetic_profile(DECK)
    for i, card in enumerate(GOOD):
        cv2.imwrite(str(ref / f"{card.replace('/', '_')}.jpg"), _on_table(card, i))
    cv2.imwrite(str(ref / "hearts_queen.2.png"), p.faces["hearts/queen"][0])          # a tight crop
    (ref / "hearts_8.jpg").write_bytes(b"not a jpeg")                                  # unreadable
    cv2.imwrite(str(ref / "spades_9.jpg"), np.full((300, 900, 3), (40, 90, 140), np.uint8))  # no card
    cv2.imwrite(str(ref / "Queen of Hearts.jpg"), p.faces["hearts/queen"][0])        # bad name
    return ref


def test_every_bad_photo_is_named_in_one_run_and_nothing_is_written(tmp_path, capsys):
    ref = _folder(tmp_path)
    assert enrol_main([str(tmp_path / "prof"), str(ref), "--deck", DECK]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert "3 of 8 photos cannot be enrolled" in err and "--skip-bad" in err
    lines = err.splitlines()
    hearts_8 = [ln for ln in lines if "hearts_8.jpg: not a readable image" in ln]
    spades_9 = [ln for ln in lines if "spades_9.jpg: no card found" in ln]
    name = [ln for ln in lines if "Queen of Hearts.jpg: not a card file name" in ln]
    assert hearts_8 and spades_9 and name
    assert "retake" in hearts_8[0] and "photograph the card alone" in spades_9[0] and "rename" in name[0]
    assert not (tmp_path / "prof").exists()


def test_skip_bad_enrols_the_rest_and_says_what_it_left_out(tmp_path, capsys):
    ref = _folder(tmp_path)
    assert enrol_main([str(tmp_path / "prof"), str(ref), "--deck", DECK, "--skip-bad"]) == 0
    err = capsys.readouterr().err
    skipped = [ln for ln in err.splitlines() if ln.startswith("skipped ")]
    assert len(skipped) == 3 and any("spades_9.jpg" in ln for ln in skipped)
    prof = Profile.load(tmp_path / "prof")
    assert set(prof.cards) == set(GOOD)
    assert len(prof.faces["hearts/queen"]) == 2           # both photos kept as faces of that card
    assert "from 5 photos" in err and "hearts/8" in err.split("missing")[1]


def _corner_twin(face: np.ndarray) -> np.ndarray:
    """The same face with another corner index: a look-alike that only the corners separate."""
    twin = face.copy()
    h, w = twin.shape[:2]
    for x0, y0 in ((4, 4), (w - 44, h - 34)):
        cv2.rectangle(twin, (x0, y0), (x0 + 38, y0 + 30), (238, 242, 244), -1)
        cv2.putText(twin, "9", (x0 + 6, y0 + 24), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (30, 30, 200), 2)
    return twin


def test_lookalikes_name_the_pair_and_the_photo_that_separates_them():
    base = synthetic_profile(DECK)
    faces = {c: base.faces[c] for c in ("hearts/7", "clubs/king", "diamonds/queen", "spades/ace")}
    faces["hearts/9"] = [_corner_twin(base.faces["hearts/7"][0])]
    prof = Profile(deck_id=DECK, faces=faces, aspect=base.aspect)
    found = lookalikes(prof)
    pairs = {(lk.a, lk.b) for lk in found}
    assert ("hearts/7", "hearts/9") in pairs
    assert not any("clubs/king" in pair for pair in pairs)
    twin = next(lk for lk in found if (lk.a, lk.b) == ("hearts/7", "hearts/9"))
    assert twin.where == "corner index" and "hearts_7.2.jpg" in twin.advice
    assert "corner index" in str(twin)


def test_difference_region_finds_pips_in_the_middle():
    p = synthetic_profile(DECK)
    face = p.faces["hearts/7"][0]
    blotted = face.copy()
    h, w = face.shape[:2]
    cv2.circle(blotted, (w // 2, h // 2), w // 5, (30, 30, 200), -1)
    assert difference_region(face, blotted) == "centre"
    assert difference_region(face, _corner_twin(face)) == "corner index"


def test_a_long_scan_with_a_picture_panel_is_enrolled_whole(tmp_path):
    """Scans of narrow Italian cards (long/short 2.1) are tight crops: the court figure's panel
    inside them is not the card."""
    from vision.enrol import enrol
    from vision.paper import face_looks
    ref = tmp_path / "scans"
    ref.mkdir()
    p = synthetic_profile("trevigiane-52")
    for card in ("coins/king", "cups/knight", "swords/7"):
        scan = cv2.resize(p.faces[card][0], (270, 564), interpolation=cv2.INTER_AREA)
        cv2.imwrite(str(ref / f"{card.replace('/', '_')}.jpg"), scan)
    rep = enrol(ref, "trevigiane-52")
    assert set(rep.profile.cards) == {"coins/king", "cups/knight", "swords/7"} and not rep.suspect
    assert abs(rep.profile.aspect - 564 / 270) < 0.05
    assert all(face_looks(rep.profile.faces[c][0]) for c in rep.profile.cards)


def test_enrolment_takes_the_rectangle_that_explains_the_card_not_the_longest(monkeypatch):
    # deepPoker table-clubs_10-1.jpg: no shape tried fits the card's blob cleanly, and the
    # longest shape reached past the card onto lit table (more area, less of it card)
    import vision.enrol as enrol_mod
    from vision.finder import Candidate, FindResult

    card = np.float32([[100, 100], [300, 100], [300, 380], [100, 380]])        # 200 x 280: 1.4
    longer = np.float32([[100, 0], [300, 0], [300, 380], [100, 380]])          # 1.9, onto the table
    support = {1.4: (card, 0.98), 1.55: (card, 0.98), 1.75: (longer, 0.8), 1.9: (longer, 0.76)}

    def fake_find(img, aspect, roi=None, refine=True):
        q, s = support[aspect]
        return FindResult([Candidate(q, False, s)], np.zeros((8, 8), np.uint8), 1.0)

    monkeypatch.setattr(enrol_mod, "find_cards", fake_find)
    found = enrol_mod.largest_card_quad(np.zeros((600, 500, 3), np.uint8))
    assert np.allclose(found, card)


def test_a_straightened_crop_of_a_card_is_enrolled_whole_not_a_panel_inside_it(monkeypatch):
    # bidly singles: 228x352 crops, paper to the edges but for the rounded corners; the finder's
    # best rectangle was a court frame or a pip area inside, enrolled as the face
    import vision.enrol as enrol_mod
    from vision.finder import Candidate, FindResult

    crop = np.full((354, 228, 3), 235, np.uint8)
    cv2.rectangle(crop, (20, 20), (208, 334), (40, 40, 180), 3)       # a court card's frame
    for x, y in ((60, 80), (160, 80), (110, 177), (60, 270), (160, 270)):
        cv2.circle(crop, (x, y), 14, (30, 30, 200), -1)
    panel = np.float32([[20, 20], [208, 20], [208, 260], [20, 260]])  # half the crop, card-like
    monkeypatch.setattr(enrol_mod, "find_cards", lambda img, aspect, roi=None, refine=True:
                        FindResult([Candidate(panel, True, 0.99)], np.zeros((8, 8), np.uint8), 1.0))
    face = enrol_mod.straighten(crop, "Kc.jpg")
    whole = cv2.resize(crop, (face.shape[1], face.shape[0]), interpolation=cv2.INTER_AREA)
    assert np.abs(face.astype(int) - whole.astype(int)).mean() < 3


def test_a_card_on_a_check_cloth_as_light_as_its_paper_is_enrolled_as_its_face():
    # Triestine Img199/Img200: a card on a navy cloth checked with light stripes; the paper
    # finder saw one blob of cloth and card, and the whole photo was enrolled as the face
    from test_outline import check_cloth
    from vision.enrol import straighten

    p = synthetic_profile(DECK)
    for k, card in enumerate(("hearts/queen", "clubs/7")):
        photo = render_scene(p, [Placement(card, (480, 270), 20 + 40 * k, scale=1.6)], size=(960, 540),
                             table=check_cloth(), seed=k,
                             stress=StressOptions(tilt=0.02, light=0.1, white_balance=0.05, glare=0.0,
                                                  blur=0.6, noise=2, jpeg=90)).image
        face = straighten(photo, f"{card}.jpg")
        true = cv2.resize(p.faces[card][0], (face.shape[1], face.shape[0]), interpolation=cv2.INTER_AREA)
        a, b = (cv2.cvtColor(x, cv2.COLOR_BGR2GRAY).astype(np.float32) for x in (face, true))
        a, b = a - a.mean(), b - b.mean()
        assert abs(face.shape[0] / face.shape[1] - p.aspect) < 0.15, card
        # either way up (a face is stored portrait, turned as it lay)
        corr = max(float((a * x).sum() / np.sqrt((a * a).sum() * (x * x).sum())) for x in (b, b[::-1, ::-1]))
        assert corr > 0.7, card         # the whole photo or a cloth cell: about 0


def _scan(face: np.ndarray) -> np.ndarray:
    """A 270x564 scan (long/short 2.09, as the Bresciane scans) of a card whose print, ``face``,
    lies inside a wide paper margin: the print's own rectangle is a panel that looks like a card."""
    scan = np.empty((564, 270, 3), np.uint8)
    scan[:] = face[2, 2]
    scan[82:482, 35:235] = cv2.resize(face, (200, 400), interpolation=cv2.INTER_AREA)
    return scan


PANELS = {"cups/7": np.float32([[35, 82], [235, 82], [235, 362], [35, 362]]),        # 1.4: another shape
          "swords/king": np.float32([[35, 82], [235, 82], [235, 482], [35, 482]])}   # 2.0: nearly the pack's


def _scanned_pack(ref: Path, monkeypatch) -> dict[str, np.ndarray]:
    """Six scans (:func:`_scan`) written to ``ref``: in two of them the rectangle found is a
    panel of the print (PANELS), in the rest none is found; a back is left to the real finding."""
    import vision.enrol as enrol_mod
    p = synthetic_profile("trevigiane-52")
    ref.mkdir()
    scans = {}
    for card in ("coins/2", "coins/5", "cups/7", "swords/king", "batons/3", "batons/knight"):
        scans[card] = _scan(p.faces[card][0])
        cv2.imwrite(str(ref / f"{card.replace('/', '_')}.png"), scans[card])
    real = enrol_mod.largest_card_quad

    def found(img, back=False):
        if back:
            return real(img, back=True)
        return next((q for c, q in PANELS.items() if img.shape == scans[c].shape and np.array_equal(img, scans[c])), None)

    monkeypatch.setattr(enrol_mod, "largest_card_quad", found)
    return scans


def _same_face(got: np.ndarray, photo: np.ndarray) -> bool:
    """Whether an enrolled face is ``photo`` taken whole (within a grey level on average)."""
    want = cv2.resize(photo, (got.shape[1], got.shape[0]), interpolation=cv2.INTER_AREA)
    return float(np.abs(got.astype(int) - want.astype(int)).mean()) < 1


def test_a_scanned_pack_is_enrolled_whole_where_a_panel_inside_a_scan_looks_like_a_card(tmp_path, monkeypatch):
    """Bresciane scans (../shared/realdata): inside 21 of 52 scans the rectangle found was a
    panel of the picture with a paper rim of its own, of another shape than the pack's or of
    nearly its shape but half the card. Each scan taken whole has the pack's shape, and most
    of the pack's scans were taken whole: the pack was scanned, so every scan is the card."""
    import vision.enrol as enrol_mod
    scans = _scanned_pack(tmp_path / "scans", monkeypatch)
    whole = {c: enrol_mod.crop_alternative(s) for c, s in scans.items()}
    for card in PANELS:      # alone, each of these scans is enrolled as its panel
        assert not np.array_equal(enrol_mod.straighten(scans[card]), whole[card]), card
    rep = enrol_mod.enrol(tmp_path / "scans", "trevigiane-52")
    assert not rep.suspect
    for card in scans:
        assert _same_face(rep.profile.faces[card][0], whole[card]), card


def lattice_back(w: int = 600, h: int = 1254, border: int = 60, step: int = 28, line: int = 3) -> np.ndarray:
    """A back printed to its edge (as the Bresciane back scan): a hatched border round a dark
    field latticed with light lines, a medallion in the middle. Its lattice holds rectangles of
    its own, and corners of neighbouring lines a few pixels apart."""
    img = np.full((h, w, 3), 235, np.uint8)
    for k in range(-h, w + h, 9):
        cv2.line(img, (k, 0), (k + h, h), (150, 150, 150), 1)
    img[border:h - border, border:w - border] = 45
    for x in range(border + step // 2, w - border, step):
        img[border:h - border, x:x + line] = 200
    for y in range(border + step // 2, h - border, step):
        img[y:y + line, border:w - border] = 200
    cv2.ellipse(img, (w // 2, h // 2), (90, 160), 0, 0, 360, (220, 220, 220), -1)
    cv2.ellipse(img, (w // 2, h // 2), (50, 110), 0, 0, 360, (40, 40, 40), -1)
    return img


def test_a_back_scanned_to_its_edges_is_enrolled_whole_with_its_pack(tmp_path, monkeypatch):
    """Bresciane back.jpg (../shared/realdata): no paper rim says that a scan of a back is the
    card, and a rectangle of its lattice of nearly the pack's shape was enrolled as the back.
    In a scanned pack a back photo of the pack's shape is the card, as the cards' scans are."""
    import vision.enrol as enrol_mod
    _scanned_pack(tmp_path / "scans", monkeypatch)
    back = lattice_back()
    cv2.imwrite(str(tmp_path / "scans" / "back.png"), back)
    alone = enrol_mod.straighten(back, "back.png", back=True)
    assert _correlation(alone, back) < 0.5      # alone, a rectangle of its lattice (0.05)
    rep = enrol_mod.enrol(tmp_path / "scans", "trevigiane-52")
    assert _correlation(rep.profile.faces["back"][0], back) > 0.9     # 0.95


def _correlation(face: np.ndarray, photo: np.ndarray) -> float:
    """Grey-level correlation of an enrolled face with ``photo`` taken whole (a back's fine
    hatching differs pixel by pixel between two resamplings, not in correlation)."""
    want = cv2.resize(photo, (face.shape[1], face.shape[0]), interpolation=cv2.INTER_AREA)
    a, b = (cv2.cvtColor(x, cv2.COLOR_BGR2GRAY).astype(np.float32) for x in (face, want))
    a, b = a - a.mean(), b - b.mean()
    return float((a * b).sum() / np.sqrt((a * a).sum() * (b * b).sum()))


def test_photos_of_cards_on_a_table_keep_the_card_found_in_them():
    """The pack rule takes a photo whole only where it may be a crop of the pack's shape: a
    photo with table at its edge has no such alternative; where there is one (a pale table)
    but no photo was taken whole, a found card of the pack's shape stays, and only a face of
    another shape gives way to its photo."""
    from vision.enrol import pack_shaped
    p = synthetic_profile(DECK)
    faces = [cv2.resize(p.faces[c][0], (160, 224), interpolation=cv2.INTER_AREA) for c in GOOD]   # 1.4
    faces[3] = cv2.resize(faces[3], (160, 290), interpolation=cv2.INTER_AREA)                      # 1.81
    raw = list(zip(GOOD, faces))
    assert all(a is b for (_, a), (_, b) in zip(pack_shaped(raw, [None] * 4), raw))
    pale = [np.full((222, 160, 3), 200, np.uint8) for _ in faces]      # each photo whole: 1.39
    out = pack_shaped(raw, pale)
    assert [c for c, _ in out] == list(GOOD)
    assert all(out[i][1] is faces[i] for i in range(3))
    assert out[3][1] is pale[3]


def test_a_back_photographed_on_the_table_is_not_taken_whole():
    """A back's photo is offered whole for its shape alone, and a phone photo (4:3) of a back
    on the table has nearly a card's shape: where the pack was photographed on a table, the
    back keeps the card found in it even when that is of another shape (taken whole, table
    and all, it would name the table a back)."""
    from vision.enrol import crop_alternative, pack_shaped
    p = synthetic_profile(DECK)
    faces = [cv2.resize(p.faces[c][0], (160, 224), interpolation=cv2.INTER_AREA) for c in GOOD]   # 1.4
    found = np.full((170, 160, 3), 60, np.uint8)                      # a back found off the pack's shape
    photo = np.full((480, 640, 3), (40, 90, 140), np.uint8)           # the phone photo: 4:3
    whole = crop_alternative(photo, back=True)
    assert whole is not None      # the shape alone offers it
    out = pack_shaped(list(zip(GOOD, faces)) + [("back", found)], [None] * 4 + [whole])
    assert out[-1][1] is found


def test_the_faces_enrolment_doubts_are_kept_in_the_profile(tmp_path):
    # the recogniser names a doubted face's card only where every cell agrees, so the doubt
    # must survive saving and loading
    from vision.enrol import build_profile
    p = synthetic_profile(DECK)
    blank = np.full_like(p.faces["clubs/7"][0], 235)          # a sheet: no ink at all
    raw = [(c, p.faces[c][0]) for c in GOOD if c != "clubs/7"] + [("clubs/7", blank)]
    profile, suspect = build_profile(DECK, raw)
    assert suspect == ["clubs/7"] and profile.suspect == {"clubs/7"}
    profile.save(tmp_path / "prof")
    assert Profile.load(tmp_path / "prof").suspect == {"clubs/7"}
    assert not build_profile(DECK, [(c, p.faces[c][0]) for c in GOOD])[0].suspect
