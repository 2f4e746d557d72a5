"""Camera and card effects that real footage has and clean renders lack.

Each is a small pure function of an image and numbers drawn by the caller, so
:func:`vision.synthetic.render.render_scene` can apply them in the order a camera does:
the card bends and shines on the table, the lens distorts, the optics blur (defocus,
motion), the sensor samples one colour per pixel (Bayer mosaic, demosaiced by
``cv2.demosaicing`` as a camera's ISP does), adds noise, and the encoder writes JPEG.
"""
from __future__ import annotations

import cv2
import numpy as np

LENS_ITERATIONS = 8   # fixed-point steps inverting the radial model (error < 0.01 px for |k| <= 0.2)
TURNED_FOCAL = 1.0    # camera_turned's focal length, in the picture's long sides (a phone's wide lens)


def bayer_demosaic(img: np.ndarray) -> np.ndarray:
    """Sample an RGGB mosaic from a BGR uint8 image and demosaic it back (colour fringes on
    fine detail, softer edges: what a small sensor's pipeline leaves)."""
    m = np.empty(img.shape[:2], np.uint8)
    m[0::2, 0::2] = img[0::2, 0::2, 2]
    m[0::2, 1::2] = img[0::2, 1::2, 1]
    m[1::2, 0::2] = img[1::2, 0::2, 1]
    m[1::2, 1::2] = img[1::2, 1::2, 0]
    return cv2.demosaicing(m, cv2.COLOR_BayerBG2BGR)   # OpenCV names RGGB "BayerBG"


def defocus(img: np.ndarray, radius: float) -> np.ndarray:
    """A lens out of focus: a uniform disk (not Gaussian) point spread of ``radius`` pixels."""
    if radius < 0.5:
        return img
    r = int(np.ceil(radius))
    k = np.zeros((2 * r + 1, 2 * r + 1), np.float32)
    cv2.circle(k, (r, r), max(1, int(round(radius))), 1.0, -1, cv2.LINE_AA)
    return cv2.filter2D(img, -1, k / k.sum())


def motion_blur(img: np.ndarray, length: float, angle_deg: float) -> np.ndarray:
    """The camera or the table moving during the exposure: a line point spread."""
    n = int(round(length))
    if n < 2:
        return img
    k = np.zeros((n, n), np.float32)
    k[n // 2, :] = 1.0
    rot = cv2.getRotationMatrix2D((n / 2 - 0.5, n / 2 - 0.5), angle_deg, 1.0)
    k = cv2.warpAffine(k, rot, (n, n))
    return cv2.filter2D(img, -1, k / max(k.sum(), 1e-6))


def _norm(size: tuple[int, int]) -> tuple[np.ndarray, float]:
    w, h = size
    return np.float32([(w - 1) / 2, (h - 1) / 2]), float(np.hypot(w, h) / 2)


def lens_maps(size: tuple[int, int], k: float) -> tuple[np.ndarray, np.ndarray]:
    """``cv2.remap`` maps of a radial lens (k > 0 barrel, k < 0 pincushion): each output pixel
    ``p`` shows the ideal image at ``c + (p - c) (1 + k r²)``, r normalised to the half diagonal."""
    w, h = size
    c, s = _norm(size)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    dx, dy = (xx - c[0]) / s, (yy - c[1]) / s
    f = 1 + k * (dx * dx + dy * dy)
    return (c[0] + dx * f * s).astype(np.float32), (c[1] + dy * f * s).astype(np.float32)


def lens_points(points: np.ndarray, size: tuple[int, int], k: float) -> np.ndarray:
    """Where ideal-image ``points`` appear after :func:`lens_maps` (the model inverted)."""
    c, s = _norm(size)
    p = (np.asarray(points, np.float32) - c) / s
    d = p.copy()
    for _ in range(LENS_ITERATIONS):
        d = p / (1 + k * (d ** 2).sum(axis=-1, keepdims=True))
    return (c + d * s).astype(np.float32)


def bend(face: np.ndarray, amount: float) -> np.ndarray:
    """A card curled up at its ends (lying on its middle), seen from above: rows near the
    ends come closer to the camera, so the face looks pinched at its middle and darker where
    it turns from the light. ``amount`` = pinch as a share of the short side (0..0.1)."""
    if amount <= 0:
        return face
    h, w = face.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    t = np.sin(np.pi * yy / max(h - 1, 1))          # 0 at the ends, 1 in the middle
    cx = (w - 1) / 2
    map_x = cx + (xx - cx) * (1 + amount * t)
    out = cv2.remap(face, map_x, yy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    if out.ndim == 3:
        shade = (1 - 1.5 * amount * (1 - t))[..., None]
        out = np.clip(out.astype(np.float32) * shade, 0, 255).astype(face.dtype)
    return out


def gloss(size: tuple[int, int], alpha: np.ndarray, strength: float, angle_deg: float,
          offset: float, width: float, origin: tuple[int, int] = (0, 0)) -> np.ndarray:
    """A specular streak on a glossy card: a soft band across the image, only on the card
    (``alpha``, the part of the image from ``origin``), ``strength`` of full white at its
    peak; add it to that part of the image (float)."""
    w, h = size
    yy, xx = np.mgrid[0:alpha.shape[0], 0:alpha.shape[1]].astype(np.float32)
    xx += origin[0]
    yy += origin[1]
    a = np.deg2rad(angle_deg)
    d = (xx - w / 2) * np.cos(a) + (yy - h / 2) * np.sin(a) - offset
    band = np.exp(-(d * d) / (2 * max(width, 1.0) ** 2))
    return (255 * strength * band * alpha)[..., None].astype(np.float32)


def turned_view(size: tuple[int, int], degrees: float, axis: str = "x") -> np.ndarray:
    """The homography (3x3) taking a picture of ``size`` (w, h) to the one its camera would have
    taken turned by ``degrees`` about its optical centre (``axis`` "x": tilted up or down, "y":
    panned): K R K^-1 of a pinhole of focal length TURNED_FOCAL long sides, exact for a flat
    table, then scaled to fit the picture's size."""
    w, h = size
    f = TURNED_FOCAL * max(w, h)
    K = np.array([[f, 0, w / 2], [0, f, h / 2], [0, 0, 1.0]])
    a = np.radians(degrees)
    R = cv2.Rodrigues(np.array([a, 0.0, 0.0]) if axis == "x" else np.array([0.0, a, 0.0]))[0]
    H = K @ R @ np.linalg.inv(K)
    c = cv2.perspectiveTransform(np.float32([[0, 0], [w, 0], [w, h], [0, h]]).reshape(-1, 1, 2), H).reshape(4, 2)
    (x0, y0), (x1, y1) = c.min(axis=0), c.max(axis=0)
    s = min(w / (x1 - x0), h / (y1 - y0))
    return np.array([[s, 0, -s * x0], [0, s, -s * y0], [0, 0, 1.0]]) @ H


def camera_turned(img: np.ndarray, degrees: float, axis: str = "x") -> np.ndarray:
    """``img`` as its camera would have taken it turned by ``degrees`` (:func:`turned_view`),
    the border repeated. A photo taken from above becomes one taken across the table."""
    h, w = img.shape[:2]
    return cv2.warpPerspective(img, turned_view((w, h), degrees, axis), (w, h), borderMode=cv2.BORDER_REPLICATE)
