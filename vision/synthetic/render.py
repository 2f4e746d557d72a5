"""Rendered stills with exact ground truth: faces laid on a table, then photographed badly.

Cards are composited in placement order (later ones on top) through a per-card
perspective warp; a hand/arm and clutter (phone, coin, chip) can cover them; then the
"camera" adds a table-wide perspective tilt, uneven light, white balance, glare, blur,
noise and JPEG. Truth quads go through the same geometry, and each card's visible
fraction is counted from the final layer map, so tests know exactly what is there.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import NamedTuple, Sequence

import cv2
import numpy as np

from vision.geometry import face_corners, order_quad, rect_quad
from vision.profile import Profile
from vision.synthetic import effects

TABLES = ("plain", "wood", "patterned", "light", "cloth")


@dataclass(frozen=True)
class Placement:
    """One card on the table; ``card=None`` (or ``face_up=False``) shows its back."""

    card: str | None
    centre_xy: tuple[float, float]
    angle_deg: float = 0.0
    face_up: bool = True
    scale: float = 1.0


@dataclass(frozen=True)
class StressOptions:
    """How badly the camera sees; each is a maximum drawn at random from the seed."""

    tilt: float = 0.08           # perspective strength
    light: float = 0.45          # depth of the uneven-light gradient
    white_balance: float = 0.15  # per-channel gain spread
    glare: float = 0.6           # peak glare added (0..1 of full white)
    blur: float = 1.6            # Gaussian sigma, pixels (plus motion blur sometimes)
    noise: float = 6.0           # grey levels sigma
    jpeg: int = 55               # lowest JPEG quality
    # What real footage adds (all off by default, so older renders stay the same pixel for pixel;
    # drawn from their own random stream):
    demosaic: float = 0.0        # chance of a Bayer sensor: RGGB mosaic + cv2.demosaicing
    defocus: float = 0.0         # disk point spread radius, pixels (a lens out of focus)
    motion: float = 0.0          # motion blur length, pixels
    gloss: float = 0.0           # peak specular streak on each glossy card (0..1 of white)
    lens: float = 0.0            # |k| of radial lens distortion (barrel or pincushion)
    bend: float = 0.0            # cards curled: pinch at the middle as a share of the short side


# A phone or webcam over a real table: everything REAL_CAMERA lists, at the strengths seen in
# ../shared/realdata's photos (bench/vision_renders.py renders with it).
REAL_CAMERA = StressOptions(tilt=0.12, light=0.5, white_balance=0.2, glare=0.5, blur=1.2, noise=5.0,
                            jpeg=60, demosaic=0.7, defocus=1.0, motion=3.0, gloss=0.35, lens=0.12,
                            bend=0.05)


@dataclass(frozen=True)
class HandOptions:
    """A hand and forearm reaching in from an image edge towards ``tip_xy``."""

    tip_xy: tuple[float, float]
    width: float = 90.0
    skin_bgr: tuple[int, int, int] = (120, 150, 200)


@dataclass(frozen=True)
class Clutter:
    """A non-card object: ``"phone"``, ``"coin"`` or ``"chip"`` (never to be reported)."""

    kind: str
    centre_xy: tuple[float, float]
    angle_deg: float = 0.0
    scale: float = 1.0


class Truth(NamedTuple):
    card: str | None
    face_up: bool
    quad: np.ndarray
    visible_fraction: float


@dataclass
class Scene:
    image: np.ndarray
    truth: list[Truth] = field(default_factory=list)
    table: str = ""              # the table kind it was rendered on ("photo": a real texture)
    faces: str = "drawn"         # "drawn" (synthetic faces) or "photographed" (an enrolled deck)


def card_long_side(size: tuple[int, int], scale: float = 1.0) -> float:
    """Long side in pixels of a card of ``scale`` 1.0 in an image of ``size``."""
    return 0.30 * min(size) * scale


def scale_for_width(size: tuple[int, int], aspect: float, width_px: float) -> float:
    """The Placement ``scale`` at which a card of ``aspect`` is ``width_px`` wide (short side)."""
    return width_px * aspect / card_long_side(size)


CARD_SHADOW_BLUR = 2.0      # sigma (px) of the faint shadow that outlines a card on a light table
# margin (px) of a card's drawing box: the shadow's Gaussian kernel (OpenCV: radius 4 sigma)
# sees only zeros beyond the card there, so drawing in the box equals drawing on the whole image
CARD_BOX_PAD = int(4 * CARD_SHADOW_BLUR) + 2
TABLE_MEMO_SIZE = 4        # textures kept (a 1280x720 one is 11 MB): a sequence or a room reuses one


_tables: dict[tuple, tuple[np.ndarray, dict]] = {}


def make_table(kind: str, size: tuple[int, int], rng: np.random.Generator) -> np.ndarray:
    """A procedurally textured table top (float32 BGR).

    A video draws the same seeded table under every frame: the texture and the generator's
    state after it are remembered, so a repeated draw costs a copy and leaves ``rng`` exactly
    where drawing it would have (the frames are byte-identical)."""
    key = (kind, tuple(size), json.dumps(rng.bit_generator.state, sort_keys=True))
    hit = _tables.get(key)
    if hit is not None:
        rng.bit_generator.state = hit[1]
        return hit[0].copy()
    img = _draw_table(kind, size, rng)
    if len(_tables) >= TABLE_MEMO_SIZE:
        _tables.pop(next(iter(_tables)))
    _tables[key] = (img.copy(), rng.bit_generator.state)
    return img


def _draw_table(kind: str, size: tuple[int, int], rng: np.random.Generator) -> np.ndarray:
    w, h = size
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    if kind == "plain":
        base = np.array(rng.choice([(40, 100, 30), (90, 60, 30), (40, 40, 120)]), np.float32)
        img = base + rng.normal(0, 5, (h, w, 1)).astype(np.float32)
    elif kind == "wood":
        f = rng.uniform(0.02, 0.05)
        grain = np.sin(yy * f + 3 * np.sin(xx * 0.004 + rng.uniform(0, 6))) * 0.5 + 0.5
        fine = cv2.GaussianBlur(rng.normal(0, 1, (h, w)).astype(np.float32), (0, 0), 1.5)
        t = np.clip(grain * 0.7 + fine * 0.25, 0, 1.2)[..., None]
        img = np.array((40, 80, 140), np.float32) * (0.7 + 0.5 * t)
    elif kind == "patterned":
        p = int(rng.integers(14, 30))
        chk = (((xx // p).astype(int) + (yy // p).astype(int)) % 2).astype(np.float32)
        a = np.array(rng.choice([(60, 60, 150), (120, 90, 40), (50, 110, 60)]), np.float32)
        img = a * (0.75 + 0.35 * chk[..., None])
        for k in range(int(rng.integers(20, 40))):
            c = (int(rng.integers(0, w)), int(rng.integers(0, h)))
            cv2.circle(img, c, int(rng.integers(4, 12)), tuple(float(v) for v in a * 1.3), -1)
    elif kind == "light":
        img = np.array((185, 195, 200), np.float32) + rng.normal(0, 4, (h, w, 1)).astype(np.float32)
    elif kind == "cloth":
        p = int(rng.integers(8, 16))
        stripes = ((xx % p) < p / 4) | ((yy % p) < p / 4)
        img = np.where(stripes[..., None], np.float32([200, 200, 205]), np.float32([110, 70, 40]))
        img = cv2.GaussianBlur(img.astype(np.float32), (0, 0), 0.8)
    else:
        raise ValueError(f"unknown table {kind!r}; known: {', '.join(TABLES)}")
    return np.clip(img, 0, 255).astype(np.float32)


def _face(profile: Profile, card: str | None, face_up: bool, rng) -> np.ndarray:
    if face_up and card is not None:
        if card not in profile.faces:
            raise KeyError(f"card {card!r} is not in profile {profile.deck_id!r}")
        faces = profile.faces[card]
    else:
        faces = profile.faces.get("back")
        if not faces:
            w, h = profile.face_size
            return np.full((h, w, 3), (160, 60, 60), np.uint8)
    return faces[int(rng.integers(0, len(faces)))]


def _rounded_alpha(w: int, h: int, r: int) -> np.ndarray:
    a = np.zeros((h, w), np.uint8)
    cv2.rectangle(a, (r, 0), (w - 1 - r, h - 1), 255, -1)
    cv2.rectangle(a, (0, r), (w - 1, h - 1 - r), 255, -1)
    for cx, cy in ((r, r), (w - 1 - r, r), (r, h - 1 - r), (w - 1 - r, h - 1 - r)):
        cv2.circle(a, (cx, cy), r, 255, -1, cv2.LINE_AA)
    return a


def _clutter_mask(c: Clutter, size, rng) -> tuple[np.ndarray, tuple[int, int, int]]:
    w, h = size
    m = np.zeros((h, w), np.uint8)
    L = card_long_side(size, c.scale)
    if c.kind == "phone":
        q = rect_quad(c.centre_xy, L * 0.45, L * 0.95, c.angle_deg)
        cv2.fillPoly(m, [np.round(q).astype(np.int32)], 255, cv2.LINE_AA)
        colour = (30, 30, 30)
    elif c.kind == "coin":
        cv2.circle(m, tuple(int(v) for v in c.centre_xy), int(L * 0.14), 255, -1, cv2.LINE_AA)
        colour = (60, 150, 190)
    elif c.kind == "chip":
        cv2.circle(m, tuple(int(v) for v in c.centre_xy), int(L * 0.12), 255, -1, cv2.LINE_AA)
        colour = (235, 235, 235)
    elif c.kind == "paper":   # a white rectangle of the wrong shape (a note, a score pad)
        q = rect_quad(c.centre_xy, L * 0.9, L * 0.95, c.angle_deg)
        cv2.fillPoly(m, [np.round(q).astype(np.int32)], 255, cv2.LINE_AA)
        colour = (240, 240, 240)
    else:
        raise ValueError(f"unknown clutter {c.kind!r}")
    return m, colour


def _hand_mask(hand: HandOptions, size) -> np.ndarray:
    w, h = size
    m = np.zeros((h, w), np.uint8)
    tip = np.array(hand.tip_xy, np.float32)
    # enter from the nearest image edge
    d = [tip[1], h - tip[1], tip[0], w - tip[0]]
    k = int(np.argmin(d))
    start = [(tip[0] * 0.8 + w * 0.1, -50), (tip[0] * 0.8 + w * 0.1, h + 50),
             (-50, tip[1] * 0.8 + h * 0.1), (w + 50, tip[1] * 0.8 + h * 0.1)][k]
    start = np.array(start, np.float32)
    cv2.line(m, tuple(np.int32(start)), tuple(np.int32(tip)), 255, int(hand.width), cv2.LINE_AA)
    v = tip - start
    v /= np.linalg.norm(v) + 1e-6
    palm = tip + v * hand.width * 0.3
    cv2.ellipse(m, (tuple(np.int32(palm))), (int(hand.width * 0.75), int(hand.width * 0.6)),
                float(np.degrees(np.arctan2(v[1], v[0]))), 0, 360, 255, -1, cv2.LINE_AA)
    return m


def render_scene(profile: Profile, placements: Sequence[Placement], *, size=(1280, 720),
                 table: str | np.ndarray = "wood", seed: int = 0, stress: StressOptions | None = None,
                 hand: HandOptions | None = None, clutter: Sequence[Clutter] = ()) -> Scene:
    """A photographed table with ``placements`` (bottom first) and its exact truth.

    ``table`` is a kind of :data:`TABLES` or a photo of a real table (BGR; see
    vision.synthetic.textures). A profile enrolled from photos lends its real faces."""
    rng = np.random.default_rng(seed)
    real = np.random.default_rng([seed, 0x5EED])   # the real-camera effects' own stream
    w, h = size
    if isinstance(table, np.ndarray):
        from vision.synthetic.textures import table_from_texture
        img, table = table_from_texture(table, size, rng), "photo"
    else:
        img = make_table(table, size, rng)
    st = stress
    layer = np.full((h, w), -1, np.int16)      # index of the top card per pixel
    quads = []
    areas = []
    aspect = profile.aspect
    for c in clutter:
        m, colour = _clutter_mask(c, size, rng)
        a = (m.astype(np.float32) / 255)[..., None]
        img = img * (1 - a) + np.float32(colour) * a
    for i, p in enumerate(placements):
        face = _face(profile, p.card, p.face_up, rng)
        fh, fw = face.shape[:2]
        card_alpha = _rounded_alpha(fw, fh, max(3, fw // 16))
        if st is not None and st.bend > 0:
            amount = float(real.uniform(0, st.bend))
            face, card_alpha = effects.bend(face, amount), effects.bend(card_alpha, amount)
        face = face.astype(np.float32)
        L = card_long_side(size, p.scale)
        q = rect_quad(p.centre_xy, L / aspect, L, p.angle_deg)
        q += rng.normal(0, 0.004 * L, q.shape).astype(np.float32)   # slight per-card skew
        q = order_quad(q)
        if rng.random() < 0.5:   # the face may lie either way round
            q = np.roll(q, 2, axis=0)
        # drawn in the card's own box (with room for its shadow's blur), not the whole image
        # (a card wholly off the picture gets a 1-pixel box, where its alpha is 0)
        x0, y0 = (min(n - 1, max(0, int(np.floor(v)) - CARD_BOX_PAD)) for v, n in zip(q.min(axis=0), (w, h)))
        x1, y1 = (max(lo + 1, min(n, int(np.ceil(v)) + CARD_BOX_PAD + 1))
                  for v, n, lo in zip(q.max(axis=0), (w, h), (x0, y0)))
        box = (slice(y0, y1), slice(x0, x1))
        mtx = np.float64([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]]) @ cv2.getPerspectiveTransform(face_corners(fw, fh), q)
        warped = cv2.warpPerspective(face, mtx, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR)
        alpha = cv2.warpPerspective(card_alpha, mtx, (x1 - x0, y1 - y0),
                                    flags=cv2.INTER_LINEAR).astype(np.float32) / 255
        if st is not None and st.gloss > 0 and p.face_up and real.random() < 0.5:
            L = card_long_side(size, p.scale)
            ang = float(real.uniform(0, 180))
            a = np.deg2rad(ang)
            at = (p.centre_xy[0] - w / 2) * np.cos(a) + (p.centre_xy[1] - h / 2) * np.sin(a)
            warped = warped + effects.gloss(size, alpha, float(real.uniform(0.1, 1) * st.gloss), ang,
                                            float(at + real.uniform(-0.4, 0.4) * L), 0.12 * L, (x0, y0))
        # a faint shadow / edge so a card on a light table has an outline, as in life
        sh = cv2.GaussianBlur(alpha, (0, 0), CARD_SHADOW_BLUR)
        under = img[box] * (1 - 0.25 * sh[..., None])
        img[box] = under * (1 - alpha[..., None]) + warped * alpha[..., None]
        inside = alpha > 0.5
        layer[box][inside] = i
        quads.append(q)
        areas.append(int(inside.sum()))
    if hand is not None:
        m = _hand_mask(hand, size).astype(np.float32) / 255
        shade = 0.85 + 0.15 * cv2.GaussianBlur(rng.random((h, w)).astype(np.float32), (0, 0), 9)
        skin = np.float32(hand.skin_bgr)[None, None, :] * shade[..., None]
        img = img * (1 - m[..., None]) + skin * m[..., None]
        layer[m > 0.5] = -2
    # camera: perspective of the whole table
    if st is not None and st.tilt > 0:
        j = st.tilt * min(size) * 0.5
        src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
        dst = src + rng.uniform(-j, j, (4, 2)).astype(np.float32)
        hm = cv2.getPerspectiveTransform(src, dst)
        img = cv2.warpPerspective(img, hm, size, borderMode=cv2.BORDER_REFLECT)
        layer = cv2.warpPerspective(layer.astype(np.float32), hm, size, flags=cv2.INTER_NEAREST,
                                    borderValue=-1).astype(np.int16)
        quads = [cv2.perspectiveTransform(q.reshape(-1, 1, 2), hm).reshape(4, 2) for q in quads]
        scale_area = abs(np.linalg.det(hm[:2, :2]))
        areas = [max(1, int(a * scale_area)) for a in areas]
        areas = [max(1, int(cv2.contourArea(q.astype(np.float32)))) for q in quads]
    else:
        areas = [max(1, int(cv2.contourArea(q.astype(np.float32)))) for q in quads]
    if st is not None and st.lens > 0:
        k = float(real.uniform(-st.lens, st.lens))
        mx, my = effects.lens_maps(size, k)
        img = cv2.remap(img, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
        layer = cv2.remap(layer.astype(np.float32), mx, my, cv2.INTER_NEAREST,
                          borderValue=-1).astype(np.int16)
        quads = [effects.lens_points(q, size, k) for q in quads]
        areas = [max(1, int(cv2.contourArea(q.astype(np.float32)))) for q in quads]
    if st is not None:
        img = _camera(_real_optics(img, st, real), st, rng)
    image = np.clip(img, 0, 255).astype(np.uint8)
    if st is not None and st.demosaic > 0 and real.random() < st.demosaic:
        image = effects.bayer_demosaic(image)
    if st is not None and st.jpeg < 100:
        qlt = int(rng.integers(st.jpeg, 96))
        ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, qlt])
        image = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    counts = np.bincount((layer[layer >= 0]).ravel(), minlength=len(placements))
    truth = []
    for i, p in enumerate(placements):
        up = p.face_up and p.card is not None
        vis = float(min(1.0, counts[i] / areas[i])) if areas[i] else 0.0
        truth.append(Truth(p.card if up else None, up, order_quad(quads[i]), vis))
    return Scene(image, truth, table, "drawn" if profile.meta.get("synthetic") else "photographed")


def _real_optics(img: np.ndarray, st: StressOptions, rng: np.random.Generator) -> np.ndarray:
    """Defocus and motion blur, before ``_camera``'s light, glare, blur and sensor noise."""
    if st.defocus > 0:
        img = effects.defocus(img, float(rng.uniform(0, st.defocus)))
    if st.motion > 0:
        img = effects.motion_blur(img, float(rng.uniform(0, st.motion)), float(rng.uniform(0, 180)))
    return img


def _camera(img: np.ndarray, st: StressOptions, rng: np.random.Generator) -> np.ndarray:
    h, w = img.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    # uneven light: a tilted plane times a soft vignette
    a = rng.uniform(0, 2 * np.pi)
    g = (np.cos(a) * (xx / w - 0.5) + np.sin(a) * (yy / h - 0.5))
    light = 1.0 + rng.uniform(0, st.light) * g * 1.6
    light *= 1.0 - rng.uniform(0, st.light * 0.5) * (((xx / w - 0.5) ** 2 + (yy / h - 0.5) ** 2) * 2)
    img = img * light[..., None]
    gains = 1.0 + rng.uniform(-st.white_balance, st.white_balance, 3).astype(np.float32)
    img = img * gains
    if st.glare > 0 and rng.random() < 0.7:
        c = (rng.uniform(0, w), rng.uniform(0, h))
        s = rng.uniform(0.03, 0.10) * min(w, h)
        gl = np.exp(-(((xx - c[0]) ** 2 + (yy - c[1]) ** 2) / (2 * s * s)))
        img = img + 255 * rng.uniform(0.2, st.glare) * gl[..., None]
    if st.blur > 0:
        sigma = rng.uniform(0.3, st.blur)
        img = cv2.GaussianBlur(img, (0, 0), sigma)
        if rng.random() < 0.3:
            k = int(rng.integers(3, 3 + int(st.blur * 3)))
            ker = np.zeros((k, k), np.float32)
            ker[k // 2, :] = 1.0 / k
            rot = cv2.getRotationMatrix2D((k / 2 - 0.5, k / 2 - 0.5), rng.uniform(0, 180), 1.0)
            ker = cv2.warpAffine(ker, rot, (k, k))
            ker /= ker.sum() + 1e-6
            img = cv2.filter2D(img, -1, ker)
    if st.noise > 0:
        img = img + rng.normal(0, rng.uniform(0.3, 1.0) * st.noise, img.shape).astype(np.float32)
    return img
