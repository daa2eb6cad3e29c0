"""Procedural card designs: index variety is what teaches a detector what a rank or a suit looks like.

A design is a seed.  From it come the card's shape and paper, the font of the ranks (any TTF/OTF on the machine
that draws A K Q J 10 properly; symbol fonts are left out), the suit shapes (a font's suit glyphs or parametric
vector hearts, spades, diamonds and clubs), the index size, weight, spacing, colours (two- or four-colour decks),
whether the index is in two or four corners, and the centre art (pips, a large ace, a framed court picture).
Faces are drawn on demand and the index boxes are known exactly, not searched for.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cache, lru_cache
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from vision.cardart import FACE_HEIGHT, JOKER, Face

FONT_DIRS = (Path("/usr/share/fonts"), Path("/usr/local/share/fonts"))
_SKIP_FONTS = ("symbol", "dingbat", "d050000l", "math", "emoji", "music", "ornament")
SUIT_CHARS = {"S": "\u2660", "H": "\u2665", "D": "\u2666", "C": "\u2663"}
_SUIT_NAMES = ("S", "H", "D", "C")


def _draws(font: ImageFont.FreeTypeFont, text: str, missing: bytes) -> bool:
    mask = font.getmask(text)
    return mask.size[0] > 2 and mask.size[1] > 2 and bytes(mask) != missing


@cache
def fonts() -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(fonts that draw the ranks, fonts that also draw the four suits), sorted by path for determinism."""
    paths = sorted(p for d in FONT_DIRS if d.exists() for p in d.rglob("*") if p.suffix.lower() in (".ttf", ".otf"))
    ranks, suits = [], []
    for path in paths:
        if any(word in path.name.lower() for word in _SKIP_FONTS):
            continue
        try:
            font = ImageFont.truetype(str(path), 48)
        except OSError:
            continue
        missing = bytes(font.getmask("\U000f0000"))
        if all(_draws(font, t, missing) for t in ("A", "K", "Q", "J", "10", "7")):
            ranks.append(str(path))
            if all(_draws(font, c, missing) for c in SUIT_CHARS.values()):
                suits.append(str(path))
    if not ranks:
        raise RuntimeError("no usable TTF/OTF fonts found: apt-get install fonts-dejavu-core (see ./dev vision)")
    return tuple(ranks), tuple(suits)


# -- suit shapes -----------------------------------------------------------------------------------
def _heart(t: np.ndarray, fat: float) -> np.ndarray:
    x = 16 * np.sin(t) ** 3 * fat
    y = -(13 * np.cos(t) - 5 * np.cos(2 * t) - 2 * np.cos(3 * t) - np.cos(4 * t))
    return np.stack([x, y], axis=1)


def suit_mask(suit: str, size: int, style: np.ndarray) -> np.ndarray:
    """A filled suit symbol, ``size`` pixels tall, shaped by ``style`` (4 numbers in [0, 1))."""
    scale = 4  # draw large, shrink: smooth edges
    s = size * scale
    canvas = np.zeros((s, s), np.uint8)
    fat, stem, bulge, lobe = (float(v) for v in style)
    t = np.linspace(0, 2 * np.pi, 120)
    if suit in ("H", "S"):
        pts = _heart(t, 0.85 + 0.35 * fat)
        if suit == "S":
            pts[:, 1] = -pts[:, 1]
        pts = pts - pts.min(axis=0)
        body = 0.78 if suit == "S" else 1.0
        pts = pts / pts.max() * s * body
        pts[:, 0] += (s - pts[:, 0].max()) / 2
        cv2.fillPoly(canvas, [pts.astype(np.int32)], 255)
    if suit == "D":  # |x/a|^k + |y/b|^k = 1: k = 1 a rhombus, k < 1 concave sides
        k = 0.65 + 0.4 * bulge
        width = 0.55 + 0.3 * fat
        c, si = np.cos(t), np.sin(t)
        x = np.sign(c) * np.abs(c) ** (2 / k) * width / 2
        y = np.sign(si) * np.abs(si) ** (2 / k) / 2
        pts = (np.stack([x, y], axis=1) + 0.5) * s
        cv2.fillPoly(canvas, [pts.astype(np.int32)], 255)
    if suit == "C":
        r = s * (0.2 + 0.07 * lobe)
        cx = s / 2
        for x, y in ((cx, r), (cx - r * 1.1, r * 2.3), (cx + r * 1.1, r * 2.3)):
            cv2.circle(canvas, (int(x), int(y)), int(r), 255, -1)
        cv2.circle(canvas, (int(cx), int(r * 2)), int(r * 0.6), 255, -1)
    if suit in ("S", "C"):
        top = s * (0.55 if suit == "S" else 0.6)
        half = s * (0.04 + 0.06 * stem)
        foot = s * (0.12 + 0.12 * stem)
        pts = np.array([[s / 2 - half, top], [s / 2 + half, top], [s / 2 + foot, s - 1], [s / 2 - foot, s - 1]])
        cv2.fillPoly(canvas, [pts.astype(np.int32)], 255)
    ys, xs = np.nonzero(canvas)
    canvas = canvas[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]
    w = max(1, round(canvas.shape[1] * size / canvas.shape[0]))
    return cv2.resize(canvas, (w, size), interpolation=cv2.INTER_AREA)


# -- a design --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Style:
    """Everything a procedural design varies; drawn from the design's seed."""

    aspect: float
    radius: float
    paper: tuple[int, int, int]
    border: int  # 0 none, 1 thin line, 2 coloured frame
    rank_font: str
    suit_font: str | None  # None: vector suit shapes
    suit_style: np.ndarray
    rank_height: float  # of card height
    suit_ratio: float  # suit height / rank height
    gap: float  # between rank and suit, of rank height
    margin: tuple[float, float]  # index offset from the corner, of card height
    side: bool  # suit beside the rank instead of below
    four_corners: bool
    stroke: int
    squeeze: float  # horizontal squeeze of the rank (condensed indices)
    colours: dict[str, tuple[int, int, int]]
    rank_black: bool  # ranks printed black whatever the suit
    accent: tuple[int, int, int]


_REDS = ((200, 20, 30), (220, 0, 0), (180, 20, 50), (230, 40, 20), (200, 0, 80), (160, 0, 0))
_BLACKS = ((0, 0, 0), (30, 30, 30), (20, 20, 60), (50, 40, 40))


def style(seed: int) -> Style:
    rng = np.random.default_rng([seed, 7919])
    rank_fonts, suit_fonts = fonts()
    red, black = _REDS[rng.integers(len(_REDS))], _BLACKS[rng.integers(len(_BLACKS))]
    colours = {"S": black, "C": black, "H": red, "D": red}
    if rng.random() < 0.15:  # four-colour deck
        colours["C"] = ((0, 130, 40), (20, 110, 20))[rng.integers(2)]
        colours["D"] = ((0, 70, 200), (230, 120, 0))[rng.integers(2)]
    paper = (255, 255, 255) if rng.random() < 0.6 else tuple(int(v) for v in 255 - rng.integers(0, 30, 3))
    st = Style(
        aspect=float(rng.uniform(0.62, 0.73)),
        radius=float(rng.uniform(0.02, 0.09)),
        paper=paper,  # type: ignore[arg-type]
        border=int(rng.choice(3, p=[0.55, 0.3, 0.15])),
        rank_font=rank_fonts[rng.integers(len(rank_fonts))],
        suit_font=suit_fonts[rng.integers(len(suit_fonts))] if suit_fonts and rng.random() < 0.35 else None,
        suit_style=rng.random(4),
        rank_height=float(rng.uniform(0.06, 0.15) if rng.random() < 0.85 else rng.uniform(0.15, 0.2)),
        suit_ratio=float(rng.uniform(0.5, 1.0)),
        gap=float(rng.uniform(0.02, 0.3)),
        margin=(float(rng.uniform(0.02, 0.06)), float(rng.uniform(0.02, 0.06))),
        side=bool(rng.random() < 0.08),
        four_corners=bool(rng.random() < 0.25),
        stroke=int(rng.choice(3, p=[0.6, 0.3, 0.1])),
        squeeze=float(rng.uniform(0.7, 1.15)),
        colours=colours,
        rank_black=bool(rng.random() < 0.05),
        accent=tuple(int(v) for v in rng.integers(0, 200, 3)),  # type: ignore[arg-type]
    )
    # drawn after everything above so that the designs of earlier datasets keep their other properties
    if rng.random() < 0.12:  # "jumbo index" deck: a rank about a quarter of the card tall, its suit below
        rank_h, suit_ratio, gap = rng.uniform(0.19, 0.27), rng.uniform(0.45, 0.75), rng.uniform(0.02, 0.15)
        st = replace(
            st,
            rank_height=float(rank_h),
            suit_ratio=float(suit_ratio),
            gap=float(gap),
            side=False,
            squeeze=float(min(st.squeeze, 0.8)),  # jumbo ranks are condensed: "10" still fits the corner
        )
    if rng.random() < 0.1 and colours["D"] == colours["H"]:  # more four-colour decks (blue diamonds, green clubs)
        four = (
            {**colours, "C": (0, 130, 40), "D": (0, 70, 200)} if rng.random() < 0.7 else {**colours, "D": (0, 70, 200)}
        )
        st = replace(st, colours=four)
    return st


def _text(
    text: str, font_path: str, height: int, colour: tuple[int, int, int], stroke: int, squeeze: float
) -> np.ndarray:
    """``text`` drawn in ``colour``, cropped to its ink and scaled to ``height`` px: RGBA."""
    font = ImageFont.truetype(font_path, 96)
    box = font.getbbox(text, stroke_width=stroke * 2)
    layer = Image.new("L", (box[2] - box[0] + 8, box[3] - box[1] + 8), 0)
    ImageDraw.Draw(layer).text(
        (4 - box[0], 4 - box[1]), text, font=font, fill=255, stroke_width=stroke * 2, stroke_fill=255
    )
    mask = np.asarray(layer)
    ys, xs = np.nonzero(mask > 20)
    mask = mask[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]
    width = max(1, round(mask.shape[1] * height / mask.shape[0] * squeeze))
    mask = cv2.resize(mask, (width, height), interpolation=cv2.INTER_AREA)
    return _colour(mask, colour)


def _colour(mask: np.ndarray, colour: tuple[int, int, int]) -> np.ndarray:
    out = np.zeros((*mask.shape, 4), np.uint8)
    out[:, :, :3] = colour
    out[:, :, 3] = mask
    return out


def _suit(st: Style, suit: str, height: int) -> np.ndarray:
    colour = st.colours[suit]
    if st.suit_font:
        return _text(SUIT_CHARS[suit], st.suit_font, height, colour, 0, 1.0)
    return _colour(suit_mask(suit, height, st.suit_style), colour)


def _paste(canvas: np.ndarray, layer: np.ndarray, x: int, y: int) -> None:
    """Alpha-composite RGBA ``layer`` onto RGBA ``canvas`` with its top-left at (x, y)."""
    h, w = layer.shape[:2]
    region = canvas[y : y + h, x : x + w]
    top = layer[: region.shape[0], : region.shape[1]]
    alpha = top[:, :, 3:4].astype(np.float32) / 255
    region[:, :, :3] = (top[:, :, :3] * alpha + region[:, :, :3] * (1 - alpha)).astype(np.uint8)
    region[:, :, 3] = np.maximum(region[:, :, 3], top[:, :, 3])


def _index(st: Style, card: str, card_h: int) -> np.ndarray:
    """The corner index (rank over suit, or JOKER spelled downwards) as an RGBA image cropped to its ink."""
    rank_h = max(8, round(st.rank_height * card_h))
    if card == JOKER:
        letters = [_text(ch, st.rank_font, round(rank_h * 0.7), st.colours["S"], st.stroke, 1.0) for ch in "JOKER"]
        width = max(im.shape[1] for im in letters)
        gap = max(1, round(rank_h * 0.08))
        out = np.zeros((sum(im.shape[0] for im in letters) + gap * 4, width, 4), np.uint8)
        y = 0
        for im in letters:
            _paste(out, im, (width - im.shape[1]) // 2, y)
            y += im.shape[0] + gap
        return out
    rank, suit = card[:-1], card[-1]
    colour = st.colours["S"] if st.rank_black else st.colours[suit]
    rank_im = _text(rank, st.rank_font, rank_h, colour, st.stroke, st.squeeze)
    suit_im = _suit(st, suit, max(6, round(rank_h * st.suit_ratio)))
    gap = max(1, round(rank_h * st.gap))
    if st.side:
        h = max(rank_im.shape[0], suit_im.shape[0])
        out = np.zeros((h, rank_im.shape[1] + gap + suit_im.shape[1], 4), np.uint8)
        _paste(out, rank_im, 0, 0)
        _paste(
            out,
            suit_im,
            rank_im.shape[1] + gap,
            (rank_im.shape[0] - suit_im.shape[0]) // 2 if h == rank_im.shape[0] else 0,
        )
        return out
    w = max(rank_im.shape[1], suit_im.shape[1])
    out = np.zeros((rank_im.shape[0] + gap + suit_im.shape[0], w, 4), np.uint8)
    _paste(out, rank_im, (w - rank_im.shape[1]) // 2, 0)
    _paste(out, suit_im, (w - suit_im.shape[1]) // 2, rank_im.shape[0] + gap)
    return out


_PIPS = {  # (column, row) in a 3 x 7 grid
    2: ((1, 0), (1, 6)),
    3: ((1, 0), (1, 3), (1, 6)),
    4: ((0, 0), (2, 0), (0, 6), (2, 6)),
    5: ((0, 0), (2, 0), (1, 3), (0, 6), (2, 6)),
    6: ((0, 0), (2, 0), (0, 3), (2, 3), (0, 6), (2, 6)),
    7: ((0, 0), (2, 0), (1, 1.5), (0, 3), (2, 3), (0, 6), (2, 6)),
    8: ((0, 0), (2, 0), (1, 1.5), (0, 3), (2, 3), (1, 4.5), (0, 6), (2, 6)),
    9: ((0, 0), (2, 0), (0, 2), (2, 2), (1, 3), (0, 4), (2, 4), (0, 6), (2, 6)),
    10: ((0, 0), (2, 0), (1, 1), (0, 2), (2, 2), (0, 4), (2, 4), (1, 5), (0, 6), (2, 6)),
}


def _centre(canvas: np.ndarray, st: Style, card: str, inner: tuple[int, int, int, int], seed: int) -> None:
    x1, y1, x2, y2 = inner
    rank, suit = card[:-1], card[-1]
    if card == JOKER or rank in ("J", "Q", "K"):
        rng = np.random.default_rng([seed, len(card), ord(card[0]), ord(card[-1])])
        picture = canvas[y1:y2, x1:x2]  # a view: the picture stays inside its frame
        w, h = x2 - x1, y2 - y1
        for _ in range(12):
            colour = tuple(int(v) for v in rng.integers(0, 256, 3))
            centre = (int(rng.uniform(0, w)), int(rng.uniform(0, h)))
            axes = (int(rng.uniform(5, w / 3)), int(rng.uniform(5, h / 4)))
            cv2.ellipse(picture, centre, axes, float(rng.uniform(0, 180)), 0, 360, (*colour, 255), -1, cv2.LINE_AA)
        cv2.rectangle(canvas, (x1, y1), (x2, y2), (*st.accent, 255), max(1, w // 60))
        return
    if rank == "A":
        size = int((y2 - y1) * 0.35)
        pip = _suit(st, suit, size)
        _paste(canvas, pip, (x1 + x2 - pip.shape[1]) // 2, (y1 + y2 - pip.shape[0]) // 2)
        return
    size = int((y2 - y1) / 7.5)
    pip = _suit(st, suit, size)
    flipped = pip[::-1, ::-1]
    for col, row in _PIPS[int(rank)]:
        cx = x1 + (0.2 + 0.3 * col) * (x2 - x1)
        cy = y1 + size / 2 + row / 6 * (y2 - y1 - size)
        im = flipped if row > 3 else pip
        _paste(canvas, im, int(cx - im.shape[1] / 2), int(cy - im.shape[0] / 2))


@lru_cache(maxsize=192)
def procedural_face(seed: int, card: str) -> Face:
    """Card ``card`` of procedural design ``seed``."""
    st = style(seed)
    h = FACE_HEIGHT
    w = round(h * st.aspect)
    canvas = np.zeros((h, w, 4), np.uint8)
    r = max(2, round(st.radius * w))
    paper = (*st.paper, 255)
    cv2.rectangle(canvas, (r, 0), (w - 1 - r, h - 1), paper, -1)
    cv2.rectangle(canvas, (0, r), (w - 1, h - 1 - r), paper, -1)
    for cx, cy in ((r, r), (w - 1 - r, r), (r, h - 1 - r), (w - 1 - r, h - 1 - r)):
        cv2.circle(canvas, (cx, cy), r, paper, -1, cv2.LINE_AA)
    if st.border == 1:
        inset = max(3, r // 2)
        cv2.rectangle(canvas, (inset, inset), (w - 1 - inset, h - 1 - inset), (*st.accent, 255), 1, cv2.LINE_AA)
    index = _index(st, card, h)
    if index.shape[1] > 0.4 * w:  # a wide "10" in a large font: shrink it to leave the card a middle
        f = 0.4 * w / index.shape[1]
        index = cv2.resize(index, (round(index.shape[1] * f), round(index.shape[0] * f)), interpolation=cv2.INTER_AREA)
    ih, iw = index.shape[:2]
    mx, my = round(st.margin[0] * h), round(st.margin[1] * h)
    if st.border == 2:
        frame = max(2, round(0.025 * h))
        cv2.rectangle(canvas, (frame, frame), (w - 1 - frame, h - 1 - frame), (*st.accent, 255), frame // 2)
        mx, my = mx + frame, my + frame
    mx, my = min(mx, w // 3 - iw // 2), my
    inner = (mx + iw + round(0.03 * w), my, w - 1 - mx - iw - round(0.03 * w), h - 1 - my)
    if inner[2] - inner[0] > 0.3 * w:
        _centre(canvas, st, card, inner, seed)
    spots = [(mx, my, False), (w - mx - iw, h - my - ih, True)]
    if st.four_corners:
        spots += [(w - mx - iw, my, False), (mx, h - my - ih, True)]
    boxes = []
    for x, y, turned in spots:
        _paste(canvas, index[::-1, ::-1] if turned else index, x, y)
        boxes.append((float(x), float(y), float(x + iw), float(y + ih)))
    return Face(card, f"proc:{seed}", canvas, tuple(boxes))


def describe(seed: int) -> str:
    st = style(seed)
    suit = Path(st.suit_font).stem if st.suit_font else "vector"
    return f"proc:{seed} rank font {Path(st.rank_font).stem}, suits {suit}, index {st.rank_height:.2f}H"
