"""Generated stand-in faces for every deck of the contract, marked SYNTHETIC.

Each face is drawn from its card id: suit symbols in the suit's colour, as many pips as the
rank, a large figure panel for court cards and trumps, the rank written out, and a small
block code of the card's index. They differ from each other the way real faces do (by
pictures and colour all over the face), so identification cannot lean on a corner index.
"""
from __future__ import annotations

import zlib
from functools import cache

import cv2
import numpy as np

from vision.decks import cards_of

FACE_W = 160
ASPECT = {"french-52": 1.4, "french-40": 1.4, "french-32": 1.4,
          "trevigiane-52": 1.75, "tarot-1jj": 1.87}

_COLOURS = {  # BGR
    "coins": (20, 160, 220), "cups": (40, 40, 200), "swords": (170, 90, 30),
    "batons": (40, 130, 40), "clubs": (25, 25, 25), "spades": (25, 25, 25),
    "hearts": (30, 30, 210), "diamonds": (30, 30, 210), "trump": (120, 40, 120),
}
_RANK_TEXT = {"ace": "A", "jack": "J", "knight": "N", "queen": "Q", "king": "K"}
_COURT = ("jack", "knight", "queen", "king")


def _symbol(img: np.ndarray, suit: str, c: tuple[int, int], r: int, col) -> None:
    x, y = c
    if suit in ("coins",):
        cv2.circle(img, c, r, col, -1, cv2.LINE_AA)
        cv2.circle(img, c, max(2, r // 2), (240, 240, 240), -1, cv2.LINE_AA)
        cv2.circle(img, c, max(1, r // 4), col, -1, cv2.LINE_AA)
    elif suit == "cups":
        pts = np.array([[x - r, y - r], [x + r, y - r], [x + r // 3, y + r // 4],
                        [x - r // 3, y + r // 4]], np.int32)
        cv2.fillPoly(img, [pts], col, cv2.LINE_AA)
        cv2.rectangle(img, (x - r // 6, y), (x + r // 6, y + r), col, -1)
        cv2.rectangle(img, (x - r // 2, y + r - max(2, r // 4)), (x + r // 2, y + r), col, -1)
    elif suit == "swords":
        cv2.line(img, (x - r, y + r), (x + r, y - r), col, max(2, r // 4), cv2.LINE_AA)
        cv2.line(img, (x - r // 2, y - r // 6), (x + r // 6, y + r // 2), col, max(2, r // 3), cv2.LINE_AA)
    elif suit == "batons":
        cv2.line(img, (x - r, y - r), (x + r, y + r), col, max(3, r // 2), cv2.LINE_AA)
        cv2.circle(img, (x - r, y - r), max(2, r // 3), col, -1, cv2.LINE_AA)
    elif suit == "diamonds":
        pts = np.array([[x, y - r], [x + 2 * r // 3, y], [x, y + r], [x - 2 * r // 3, y]], np.int32)
        cv2.fillPoly(img, [pts], col, cv2.LINE_AA)
    elif suit == "spades":   # a pointed leaf on a stem, point up
        pts = np.array([[x, y - r], [x + r, y + r // 3], [x, y + r // 6], [x - r, y + r // 3]], np.int32)
        cv2.fillPoly(img, [pts], col, cv2.LINE_AA)
        cv2.rectangle(img, (x - r // 5, y), (x + r // 5, y + r), col, -1)
    elif suit == "hearts":
        s = 1
        cv2.circle(img, (x - r // 2, y - s * r // 3), r // 2 + 1, col, -1, cv2.LINE_AA)
        cv2.circle(img, (x + r // 2, y - s * r // 3), r // 2 + 1, col, -1, cv2.LINE_AA)
        pts = np.array([[x - r, y - s * r // 6], [x + r, y - s * r // 6], [x, y + s * r]], np.int32)
        cv2.fillPoly(img, [pts], col, cv2.LINE_AA)
        if suit == "spades":
            cv2.rectangle(img, (x - r // 6, y), (x + r // 6, y + r), col, -1)
    elif suit == "clubs":
        for dx, dy in ((0, -r * 2 // 3), (-r * 2 // 3, r // 6), (r * 2 // 3, r // 6)):
            cv2.circle(img, (x + dx, y + dy), r * 2 // 5 + 1, col, -1, cv2.LINE_AA)
        cv2.rectangle(img, (x - r // 6, y), (x + r // 6, y + r), col, -1)
    else:  # trump star
        pts = []
        for k in range(10):
            rr = r if k % 2 == 0 else r // 2
            a = np.pi / 5 * k - np.pi / 2
            pts.append([x + rr * np.cos(a), y + rr * np.sin(a)])
        cv2.fillPoly(img, [np.array(pts, np.int32)], col, cv2.LINE_AA)


def _pip_positions(n: int, w: int, h: int) -> list[tuple[int, int]]:
    cols = 1 if n <= 3 else (2 if n <= 8 else 3)
    rows = int(np.ceil(n / cols))
    out = []
    for i in range(n):
        r, c = divmod(i, cols)
        left = n - r * cols
        k = min(cols, left)
        x = int(w * (0.5 + (c - (k - 1) / 2) * 0.26))
        y = int(h * (0.2 + 0.6 * (r + 0.5) / rows))
        out.append((x, y))
    return out


def _code(img: np.ndarray, index: int, x0: int, y0: int, cell: int) -> None:
    """A 2×4 block code of the card's index (distinctness, like a real face's details)."""
    bits = index + 1
    for k in range(8):
        r, c = divmod(k, 4)
        on = (bits >> k) & 1
        col = (40, 40, 40) if on else (200, 200, 200)
        cv2.rectangle(img, (x0 + c * cell, y0 + r * cell), (x0 + (c + 1) * cell - 2,
                      y0 + (r + 1) * cell - 2), col, -1)


@cache
def synthetic_face(deck_id: str, card: str) -> np.ndarray:
    """The generated face (BGR uint8, portrait) of ``card``; ``"back"`` for the back."""
    w = FACE_W
    h = int(round(w * ASPECT.get(deck_id, 1.5)))
    seed = zlib.crc32(f"{deck_id}:{card}".encode())
    rng = np.random.default_rng(seed)
    img = np.full((h, w, 3), (238, 242, 244), np.uint8)
    if card == "back":
        hue = zlib.crc32(deck_id.encode()) % 180
        col = cv2.cvtColor(np.uint8([[[hue, 200, 140]]]), cv2.COLOR_HSV2BGR)[0, 0].tolist()
        cv2.rectangle(img, (8, 8), (w - 9, h - 9), col, -1)
        step = 14
        for k in range(-h, w + h, step):
            cv2.line(img, (k, 8), (k + h, h + 8), (235, 235, 235), 2, cv2.LINE_AA)
            cv2.line(img, (k, h - 8), (k + h, -h), (235, 235, 235), 2, cv2.LINE_AA)
        cv2.ellipse(img, (w // 2, h // 2), (w // 4, h // 8), 0, 0, 360, (235, 235, 235), -1)
        cv2.putText(img, "SYNTH", (w // 2 - 27, h // 2 + 6), cv2.FONT_HERSHEY_SIMPLEX, 0.5, col, 1, cv2.LINE_AA)
        return img
    cards = cards_of(deck_id)
    index = cards.index(card)
    suit, _, rank = card.partition("/")
    if not rank:
        suit, rank = "trump", "0"
    col = _COLOURS.get(suit, (90, 90, 90))
    cv2.rectangle(img, (7, 7), (w - 8, h - 8), col, 1, cv2.LINE_AA)
    label = _RANK_TEXT.get(rank, rank if suit != "trump" else str(rank))
    if suit == "trump":
        n = int(rank)
        # banded panel whose colours and bands follow the trump number
        bands = 2 + n % 5
        for b in range(bands):
            hue = int((n * 0.618034 * 180 + b * 53) % 180)
            c2 = cv2.cvtColor(np.uint8([[[hue, 160, 200]]]), cv2.COLOR_HSV2BGR)[0, 0]
            y0 = 24 + b * (h - 60) // bands
            cv2.rectangle(img, (18, y0), (w - 19, y0 + (h - 60) // bands - 3), c2.tolist(), -1)
        sx = w // 2 + (n % 3 - 1) * 25
        sy = h // 2 + ((n // 3) % 3 - 1) * 40
        _symbol(img, "trump", (sx, sy), 20 + (n % 4) * 5, (30, 30, 30) if n else (0, 0, 200))
        text = "FOOL" if n == 0 else ["I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X", "XI",
                                      "XII", "XIII", "XIV", "XV", "XVI", "XVII", "XVIII", "XIX",
                                      "XX", "XXI"][n - 1]
        cv2.putText(img, text, (16, h - 14), cv2.FONT_HERSHEY_DUPLEX, 0.8, (20, 20, 20), 2, cv2.LINE_AA)
        label = text
    elif rank in _COURT:
        k = _COURT.index(rank)
        si = ("clubs", "diamonds", "hearts", "spades", "cups", "coins", "swords", "batons").index(suit)
        body = [(30 + 40 * k + 23 * si) % 180, 150, 190]
        c2 = cv2.cvtColor(np.uint8([[body]]), cv2.COLOR_HSV2BGR)[0, 0].tolist()
        cv2.rectangle(img, (22, 26), (w - 23, h - 26), c2, -1)
        # a figure: head, robe, held suit symbol; shape varies with the rank
        cx = w // 2
        cv2.circle(img, (cx, h // 4 + 4), 14 + 3 * k, (170, 200, 235), -1, cv2.LINE_AA)
        robe = np.array([[cx - 20 - 6 * k, h - 30], [cx + 20 + 6 * k, h - 30], [cx + 10, h // 3],
                         [cx - 10, h // 3]], np.int32)
        cv2.fillPoly(img, [robe], col, cv2.LINE_AA)
        _symbol(img, suit, (cx + (22 if (k + si) % 2 else -22), h // 2 + 10), 22, (240, 240, 240))
        _symbol(img, suit, (cx, h - 48), 12, (240, 240, 240))
        cv2.putText(img, rank.upper()[:4], (26, h - 36), cv2.FONT_HERSHEY_SIMPLEX, 0.55,
                    (250, 250, 250), 2, cv2.LINE_AA)
    else:
        n = 1 if rank == "ace" else int(rank)
        if n == 1:
            _symbol(img, suit, (w // 2, h // 2), 38, col)
            cv2.circle(img, (w // 2, h // 2), 52, col, 2, cv2.LINE_AA)
        else:
            r = 19 if n <= 4 else (16 if n <= 6 else 13)
            for p in _pip_positions(n, w, h):
                _symbol(img, suit, p, r, col)
    cv2.putText(img, label, (10, 24), cv2.FONT_HERSHEY_SIMPLEX, 0.6, col, 2, cv2.LINE_AA)
    _code(img, index, w - 50, h - 30, 10)
    # vertical "SYNTHETIC" mark along the left edge
    mark = np.full((14, 90, 3), 255, np.uint8)
    cv2.putText(mark, "SYNTHETIC", (2, 11), cv2.FONT_HERSHEY_PLAIN, 0.9, (90, 90, 90), 1, cv2.LINE_AA)
    mark = cv2.rotate(mark, cv2.ROTATE_90_COUNTERCLOCKWISE)
    y0 = h // 2 - 45
    sub = img[y0:y0 + 90, 2:16]
    np.minimum(sub, mark, out=sub)
    del rng
    return img
