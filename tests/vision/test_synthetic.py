"""Generated faces and the renderer: distinct, marked, deterministic, truthful."""
from __future__ import annotations

import numpy as np

from controller.rules.cards import decks
from vision.synthetic import Placement, StressOptions, render_scene, synthetic_face, synthetic_profile


def test_faces_are_distinct_for_every_card_of_every_deck():
    for deck_id, d in decks().items():
        faces = [synthetic_face(deck_id, c) for c in d.cards + ("back",)]
        flat = {f.tobytes() for f in faces}
        assert len(flat) == len(faces), deck_id


def test_profile_knows_every_card_and_the_back():
    p = synthetic_profile("tarot-1jj")
    assert set(p.cards) == set(decks()["tarot-1jj"].cards) | {"back"}
    assert p.meta.get("synthetic") is True


def test_render_is_deterministic_by_seed_and_truth_counts_cover():
    p = synthetic_profile("french-40")
    pl = [Placement("hearts/7", (600, 360), 0), Placement("clubs/king", (680, 360), 0)]
    a = render_scene(p, pl, seed=3, stress=StressOptions())
    b = render_scene(p, pl, seed=3, stress=StressOptions())
    c = render_scene(p, pl, seed=4, stress=StressOptions())
    assert np.array_equal(a.image, b.image) and not np.array_equal(a.image, c.image)
    assert a.truth[1].visible_fraction > 0.97
    assert 0.3 < a.truth[0].visible_fraction < 0.8
    assert a.truth[0].card == "hearts/7" and a.truth[0].quad.shape == (4, 2)


def test_face_down_placement_has_no_identity_in_truth():
    p = synthetic_profile("french-32")
    s = render_scene(p, [Placement("hearts/7", (600, 360), 0, face_up=False)], seed=1)
    assert s.truth[0].card is None and s.truth[0].face_up is False


# -- renders made of real photographs -------------------------------------------------------------
import cv2  # noqa: E402
import pytest  # noqa: E402

from vision.profile import Profile  # noqa: E402
from vision.synthetic import effects  # noqa: E402
from vision.synthetic.render import REAL_CAMERA, scale_for_width  # noqa: E402
from vision.synthetic.textures import load_textures  # noqa: E402

PLAIN = StressOptions(tilt=0, light=0, white_balance=0, glare=0, blur=0, noise=0, jpeg=100)


def _texture() -> np.ndarray:
    """A made-up photo of a striped blue cloth (tests ship no real photos)."""
    rng = np.random.default_rng(5)
    t = np.zeros((240, 320, 3), np.uint8)
    t[:] = (150, 80, 40)
    t[::6] = (190, 120, 60)
    return cv2.add(t, rng.integers(0, 20, t.shape, dtype=np.uint8))


def _photographed(deck_id: str = "french-32") -> Profile:
    """A profile whose faces are 'photos': the drawn ones with a warm cast and print wear."""
    base = synthetic_profile(deck_id)
    faces = {c: [cv2.addWeighted(f[0], 0.85, np.full_like(f[0], (60, 120, 170)), 0.15, 0)]
             for c, f in base.faces.items()}
    return Profile(deck_id=deck_id, faces=faces, aspect=base.aspect, calibration=base.calibration)


def test_table_textures_come_from_a_file_or_a_folder_and_fill_the_table(tmp_path):
    cv2.imwrite(str(tmp_path / "cloth.png"), _texture())
    cv2.imwrite(str(tmp_path / "cloth2.jpg"), _texture()[::-1])
    (tmp_path / "notes.txt").write_text("not a photo")
    assert len(load_textures(tmp_path)) == 2 and len(load_textures(tmp_path / "cloth.png")) == 1
    with pytest.raises(ValueError, match="no table photos"):
        load_textures(tmp_path / "nothing")
    tex = load_textures(tmp_path / "cloth.png")[0]
    p = synthetic_profile("french-32")
    s = render_scene(p, [Placement("hearts/7", (640, 360), 10)], table=tex, seed=2, stress=PLAIN)
    assert s.table == "photo" and s.faces == "drawn"
    corner = s.image[:150, :300].reshape(-1, 3).mean(axis=0)
    assert np.allclose(corner, tex.reshape(-1, 3).mean(axis=0), atol=15)      # the cloth's colour
    again = render_scene(p, [Placement("hearts/7", (640, 360), 10)], table=tex, seed=2, stress=PLAIN)
    assert np.array_equal(s.image, again.image)


def test_an_enrolled_profile_lends_its_photographed_faces():
    prof = _photographed()
    s = render_scene(prof, [Placement("spades/8", (640, 360), 0, scale=1.5)], table="plain", seed=1,
                     stress=PLAIN)
    assert s.faces == "photographed"
    face = prof.faces["spades/8"][0]
    centre = s.image[340:380, 620:660].reshape(-1, 3).mean(axis=0)
    fh, fw = face.shape[:2]
    want = face[fh // 2 - 12:fh // 2 + 12, fw // 2 - 12:fw // 2 + 12].reshape(-1, 3).mean(axis=0)
    assert np.allclose(centre, want, atol=25)


def test_bayer_mosaic_keeps_flat_colour_and_fringes_fine_detail():
    flat = np.full((16, 16, 3), (30, 120, 220), np.uint8)
    assert np.abs(effects.bayer_demosaic(flat).astype(int) - flat).max() <= 2
    fine = np.zeros((32, 32, 3), np.uint8)
    fine[:, ::2] = 255                                    # grey stripes one pixel wide
    out = effects.bayer_demosaic(fine).astype(int)
    assert np.abs(out[..., 0] - out[..., 2]).mean() > 20  # colour where there was none


def test_lens_points_follow_the_lens_maps():
    size = (320, 240)
    for k in (0.15, -0.12):
        img = np.zeros((240, 320), np.float32)
        pt = np.float32([[40, 30]])
        cv2.circle(img, (40, 30), 2, 1.0, -1)
        mx, my = effects.lens_maps(size, k)
        out = cv2.remap(img, mx, my, cv2.INTER_LINEAR)
        ys, xs = np.nonzero(out > 0.5)
        seen = np.array([xs.mean(), ys.mean()])
        assert np.linalg.norm(seen - effects.lens_points(pt, size, k)[0]) < 1.0
        assert np.linalg.norm(seen - pt[0]) > 3              # it did move


def test_each_real_camera_effect_changes_the_picture_and_keeps_the_truth():
    p = synthetic_profile("french-32")
    pl = [Placement("hearts/7", (1000, 200), 15), Placement("clubs/king", (1100, 260), -20)]
    base = render_scene(p, pl, seed=3, stress=PLAIN)
    for name, value in (("demosaic", 1.0), ("defocus", 2.0), ("motion", 6.0), ("gloss", 0.8),
                        ("bend", 0.08), ("lens", 0.15)):
        kw = {f: getattr(PLAIN, f) for f in PLAIN.__dataclass_fields__}
        kw[name] = value
        s = render_scene(p, pl, seed=3, stress=StressOptions(**kw))
        assert not np.array_equal(s.image, base.image), name
        for a, b in zip(s.truth, base.truth):
            assert a.card == b.card
            moved = float(np.abs(a.quad - b.quad).max())
            assert (moved > 1.0) if name == "lens" else (moved == 0.0), name


def test_lens_distorted_truth_quads_sit_on_the_cards():
    p = synthetic_profile("french-32")
    kw = {f: getattr(PLAIN, f) for f in PLAIN.__dataclass_fields__}
    kw["lens"] = 0.15
    s = render_scene(p, [Placement("hearts/queen", (1000, 170), 30)], table="plain", seed=9,
                     stress=StressOptions(**kw))
    light = (cv2.cvtColor(s.image, cv2.COLOR_BGR2GRAY) > 200).astype(np.uint8)
    cnts, _ = cv2.findContours(light, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    card = max(cnts, key=cv2.contourArea)
    for corner in s.truth[0].quad:
        # within the rounding of the card corner (r ~ 10 px: the sharp corner is 0.41 r off the arc)
        assert abs(cv2.pointPolygonTest(card, (float(corner[0]), float(corner[1])), True)) < 6


def test_cards_can_be_only_40_to_60_pixels_wide():
    p = synthetic_profile("french-40")
    for px in (40, 60):
        s = render_scene(p, [Placement("hearts/7", (640, 360), 0, scale=scale_for_width((1280, 720), p.aspect, px))],
                         seed=1, stress=REAL_CAMERA)
        short = min(np.linalg.norm(s.truth[0].quad[1] - s.truth[0].quad[0]),
                    np.linalg.norm(s.truth[0].quad[2] - s.truth[0].quad[1]))
        assert abs(short - px) < 0.1 * px


def test_photographed_faces_on_a_photo_table_are_recognised_through_a_real_camera():
    from vision.recognise import Recogniser, calibrate
    prof = _photographed()
    prof.calibration = calibrate(prof)
    rec = Recogniser(prof)
    cam = StressOptions(tilt=0.04, light=0.2, white_balance=0.1, glare=0.2, blur=0.8, noise=3, jpeg=80,
                        demosaic=1.0, defocus=0.8, motion=2.0, gloss=0.3, lens=0.05, bend=0.03)
    # (an ace under this camera is left unnamed today: a lone pip needs the corner index, which
    # is vision-core's part of issue 14; this test is about the renders, so it uses other cards)
    for seed, (a, b) in enumerate([("hearts/queen", "spades/8"), ("clubs/king", "diamonds/9")]):
        s = render_scene(prof, [Placement(a, (420, 360), 20 + 30 * seed), Placement(b, (860, 360), -40)],
                         table=_texture(), seed=seed, stress=cam)
        assert s.faces == "photographed" and s.table == "photo"
        got = sorted((d.card or "-") for d in rec.recognise(s.image))
        assert got == sorted([a, b]), got


def test_calibration_is_kept_in_the_user_cache_and_recomputed_when_unreadable(tmp_path, monkeypatch):
    """Every demo and test process would calibrate each synthetic deck (seconds): the figures
    are kept under a hash of the vision code; a damaged file is calibrated again, never believed."""
    import vision.recognise
    import vision.synthetic as synthetic
    from vision.profile import Profile

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    runs = []
    monkeypatch.setattr(vision.recognise, "calibrate", lambda p: runs.append(p.deck_id) or (0.25, 1.5, -3.0))
    p = Profile(deck_id="french-32", faces={}, aspect=1.5)
    assert synthetic._calibration(p) == (0.25, 1.5, -3.0) and runs == ["french-32"]
    kept = list((tmp_path / "cardtable" / "synthetic").glob("french-32-*.json"))
    assert len(kept) == 1 and synthetic._code_fingerprint() in kept[0].name
    assert synthetic._calibration(p) == (0.25, 1.5, -3.0) and runs == ["french-32"]   # from the cache
    kept[0].write_text("[0.25, \"x\"")
    assert synthetic._calibration(p) == (0.25, 1.5, -3.0) and runs == ["french-32", "french-32"]


def test_table_texture_drawn_once_leaves_the_generator_where_drawing_would():
    from vision.synthetic import render

    render._tables.clear()
    rng_a, rng_b = np.random.default_rng(5), np.random.default_rng(5)
    first = render.make_table("wood", (320, 200), rng_a)
    again = render.make_table("wood", (320, 200), rng_b)          # from the memo
    assert np.array_equal(first, again) and rng_a.random() == rng_b.random()
    again[:] = 0                                                   # a copy: the memo is untouched
    assert np.array_equal(render.make_table("wood", (320, 200), np.random.default_rng(5)), first)
