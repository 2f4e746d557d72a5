"""Keypoint finding and duel naming on generated images (no ../shared photos).

A face of the synthetic profile is photographed by the test itself: warped with
perspective onto a textured table or filling the whole image (a tight crop), with noise.
"""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision import duel
from vision.keypoints import KeypointIndex
from vision.profile import Profile
from vision.recognise import Recogniser
from vision.synthetic import synthetic_profile


@pytest.fixture(scope="module")
def profile() -> Profile:
    return synthetic_profile("french-52")


def _photo(face: np.ndarray, quad: np.ndarray, size: tuple[int, int], seed: int) -> np.ndarray:
    """``face`` warped onto ``quad`` of a noisy, textured (table-independent) background."""
    rng = np.random.default_rng(seed)
    w, h = size
    bg = cv2.resize(rng.integers(0, 255, (h // 16 + 1, w // 16 + 1, 3), dtype=np.uint8), (w, h),
                    interpolation=cv2.INTER_CUBIC)
    fh, fw = face.shape[:2]
    m = cv2.getPerspectiveTransform(np.float32([[0, 0], [fw - 1, 0], [fw - 1, fh - 1], [0, fh - 1]]),
                                    np.float32(quad))
    card = cv2.warpPerspective(face, m, (w, h), flags=cv2.INTER_LINEAR)
    mask = cv2.warpPerspective(np.full((fh, fw), 255, np.uint8), m, (w, h))
    img = np.where(mask[..., None] > 127, card, bg).astype(np.float32)
    img += rng.normal(0, 4.0, img.shape)
    return np.clip(img, 0, 255).astype(np.uint8)


def test_keypoint_homography_gives_card_and_pose(profile):
    face = cv2.resize(profile.faces["hearts/king"][0], None, fx=2, fy=2)
    quad = np.float32([[420, 140], [700, 190], [660, 600], [360, 560]])     # oblique, rotated
    img = _photo(face, quad, (1000, 720), seed=1)
    labels = [c for c in profile.faces for _ in profile.faces[c]]
    faces = [f for c in profile.faces for f in profile.faces[c]]
    hyps = KeypointIndex(labels, faces).propose(img)
    assert hyps and hyps[0].card == "hearts/king"
    err = np.linalg.norm(hyps[0].quad - quad, axis=1).max()
    assert err < 12, hyps[0].quad


def _far_across(profile: Profile, card: str) -> tuple[np.ndarray, np.ndarray]:
    """A photo of ``card`` 280 px wide foreshortened to 45 % of its height, its far side
    narrower (a camera turned ~60° across the table), and the card's quad in it."""
    face = cv2.resize(profile.faces[card][0], None, fx=2, fy=2)
    quad = np.float32([[430, 200], [650, 200], [680, 376], [400, 376]])
    return _photo(face, quad, (1000, 720), seed=3), quad


@pytest.mark.parametrize("card", ["hearts/king", "clubs/jack", "diamonds/9"])
def test_a_card_seen_far_across_the_table_gives_card_and_pose(profile, card):
    # seen that slanted, a card's keypoints no longer match its face seen square; they match
    # the face's squeezed views (TILT_SQUEEZE), mapped back onto the face
    img, quad = _far_across(profile, card)
    labels = [c for c in profile.faces for _ in profile.faces[c]]
    faces = [f for c in profile.faces for f in profile.faces[c]]
    hyps = KeypointIndex(labels, faces).propose(img)
    assert hyps and hyps[0].card == card
    err = np.linalg.norm(hyps[0].quad - quad, axis=1).max()
    assert err < 12, hyps[0].quad


@pytest.mark.parametrize("card", ["hearts/king", "clubs/4", "spades/10"])
def test_a_card_seen_far_across_the_table_is_named_once(profile, card):
    # the same view, recognised whole: found by its outline before, but left unnamed (its
    # straightened face too soft to tell, and no keypoint fit to say which face it is)
    dets = Recogniser(profile).recognise(_far_across(profile, card)[0])
    assert [d.card for d in dets] == [card]


def test_the_same_faces_are_described_once_and_other_faces_anew(profile):
    # a Recogniser per replay or test must not describe a deck's faces (square and squeezed)
    # again; a profile enrolled anew (one face changed) must not reuse the old keypoints
    labels = [c for c in profile.faces for _ in profile.faces[c]]
    faces = [f for c in profile.faces for f in profile.faces[c]]
    first, again = KeypointIndex(labels, faces), KeypointIndex(labels, [f.copy() for f in faces])
    assert again.descs is first.descs and not first.descs.flags.writeable
    changed = [f.copy() for f in faces]
    changed[0] = cv2.flip(changed[0], 1)
    other = KeypointIndex(labels, changed)
    assert other.descs is not first.descs
    assert not np.array_equal(other.pts[other.owner == 0], first.pts[first.owner == 0])
    np.testing.assert_array_equal(other.pts[other.owner == 1], first.pts[first.owner == 1])


def test_a_blank_enrolled_face_gives_no_keypoints_and_breaks_nothing(profile):
    # an overexposed enrolment photo (enrolment keeps it, doubted) has no keypoints at all
    face = cv2.resize(profile.faces["hearts/king"][0], None, fx=2, fy=2)
    quad = np.float32([[420, 140], [700, 190], [660, 600], [360, 560]])
    img = _photo(face, quad, (1000, 720), seed=1)
    labels = ["clubs/2"] + [c for c in profile.faces for _ in profile.faces[c]]
    faces = [np.full_like(profile.faces["clubs/2"][0], 240)] + [f for c in profile.faces for f in profile.faces[c]]
    hyps = KeypointIndex(labels, faces).propose(img)
    assert hyps and hyps[0].card == "hearts/king"


def test_tight_crop_is_named(profile):
    face = cv2.resize(profile.faces["spades/queen"][0], None, fx=3, fy=3)
    h, w = face.shape[:2]
    quad = np.float32([[-6, -4], [w + 5, 3], [w + 2, h + 6], [2, h - 3]])   # card edges cut off
    img = _photo(face, quad, (w, h), seed=2)
    dets = Recogniser(profile).recognise(img)
    assert [d.card for d in dets if d.card] == ["spades/queen"], [(d.card, d.confidence) for d in dets]


def test_unenrolled_card_is_never_named(profile):
    faces = {c: f for c, f in profile.faces.items() if c != "clubs/jack"}
    rec = Recogniser(Profile(profile.deck_id, faces, profile.aspect))
    face = cv2.resize(profile.faces["clubs/jack"][0], None, fx=2, fy=2)
    quad = np.float32([[400, 150], [680, 180], [650, 590], [370, 560]])
    dets = rec.recognise(_photo(face, quad, (1000, 720), seed=3))
    assert all(d.card is None for d in dets), [(d.card, d.confidence) for d in dets]
    assert len(dets) <= 1


def test_duel_prefers_the_card_shown_over_its_look_alike(profile):
    size = profile.face_size
    a = duel.prepare(cv2.resize(profile.faces["clubs/7"][0], size))
    b = duel.prepare(cv2.resize(profile.faces["spades/7"][0], size))
    rng = np.random.default_rng(4)
    seen = profile.faces["clubs/7"][0].astype(np.float32) * 0.8 + 30 + rng.normal(0, 6, profile.faces["clubs/7"][0].shape)
    f = duel.prepare(cv2.resize(np.clip(seen, 0, 255).astype(np.uint8), size))
    assert duel.duel(f, a, b) > 0.1
    assert duel.duel(f, b, a) < -0.1


@pytest.mark.parametrize("deck", ["french-52", "trevigiane-52", "tarot-1jj"])
def test_duel_lighting_trend_is_the_wide_blur_it_stands_for(deck):
    """prepare() takes the lighting trend at reduced size for speed: inside the border the
    duels look at, it must stay within 1 % of the face's contrast of the full-size
    Gaussian it replaces (0.6 % measured; taken at 1/4 size it is 1.5 %)."""
    p = synthetic_profile(deck)
    for card in list(p.faces)[:20]:
        g = cv2.cvtColor(cv2.resize(p.faces[card][0], p.face_size, interpolation=cv2.INTER_AREA),
                         cv2.COLOR_BGR2GRAY).astype(np.float32)
        exact = cv2.GaussianBlur(g, (0, 0), duel.TREND)
        h, w = g.shape
        by, bx = int(h * duel.BORDER), int(w * duel.BORDER)
        inner = (slice(by, h - by), slice(bx, w - bx))
        err = np.sqrt(((duel._trend(g) - exact)[inner] ** 2).mean())
        assert err < 0.01 * (g - exact)[inner].std(), card


def test_duel_margins_do_not_depend_on_pairs_seen_before(profile):
    """Duels keep what each pair of faces needs, by the faces' identity: a pair fought
    again, from either side, or new faces reusing a freed face's id, must give exactly the
    margin a first duel gives."""
    size = profile.face_size
    rng = np.random.default_rng(5)
    shown = profile.faces["clubs/7"][0].astype(np.float32) + rng.normal(0, 6, profile.faces["clubs/7"][0].shape)
    f = duel.prepare(cv2.resize(np.clip(shown, 0, 255).astype(np.uint8), size))
    for rival in ("spades/7", "clubs/8", "hearts/7", "spades/8", "clubs/6"):
        a = duel.prepare(cv2.resize(profile.faces["clubs/7"][0], size))
        b = duel.prepare(cv2.resize(profile.faces[rival][0], size))
        first = duel.duel(f, a, b)
        assert duel.duel(f, a, b) == first
        assert duel.duel(f, b, a) == -first
        assert duel.duel(f, a.copy(), b.copy()) == first     # new arrays: computed afresh
        assert duel.duel(f, a[::-1, ::-1], b[::-1, ::-1]) != first   # other pixels, not the kept ones


def test_the_index_and_its_proposals_do_not_depend_on_earlier_random_draws(profile):
    """FLANN's kd-trees are randomised from OpenCV's generator: whatever drew from it before (here a
    few draws with other seeds), two indexes of one profile propose the same cards, with the same
    support, for the same picture (else a card's name depended on the order tests ran in)."""
    quad = np.float32([[500, 170], [760, 200], [730, 560], [470, 530]])
    img = _photo(profile.faces["spades/7"][0], quad, (1280, 720), seed=3)
    proposals = []
    for seed in (11, 12345):
        cv2.setRNGSeed(seed)
        cv2.randu(np.zeros((64, 64), np.float32), 0, 1)
        kept = [(c, f) for c, fs in profile.faces.items() if c != "spades/7" for f in fs]
        index = KeypointIndex([c for c, _ in kept], [f for _, f in kept])
        proposals.append([(h.card, h.inliers, np.round(h.quad, 1).tolist()) for h in index.propose(img)])
    assert proposals[0] == proposals[1] and proposals[0]
