"""Synthetic table scenes, as a webcam sees them, with a box around every visible corner index.

``render_scene(seed, pool)`` is deterministic: the same seed, design pool and installed fonts give the same
pixels and labels.  A scene is a table texture (wood, felt, cloth, cork, plain), one to four groups of cards
(scattered singles, piles, fanned hands, overlapping rows and columns, some face down), a camera homography
(tilt, roll), hands and other objects over the cards, uneven light, shadows, glare, blur, sensor noise and JPEG.

Why corner indices: fanned, stacked and overlapping cards show only their corners, and the corner index (rank
over suit) is what a person reads too.  Every index whose pixels are at least ``min_visible`` uncovered and
inside the frame is labelled with its card, so a detector learns indices and a classifier learns identities.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from vision.cardart import CARDS, FACE_HEIGHT, JOKER, Face, face, has_card
from vision.textures import apply_camera, back_face, occluders, table_texture


@dataclass(frozen=True)
class DesignPool:
    """Where a scene's decks come from: artwork designs, and procedural seeds ``proc_seeds`` (a range)."""

    artwork: tuple[str, ...]
    proc_share: float = 0.5
    proc_seeds: tuple[int, int] = (0, 100_000)

    def pick(self, rng: np.random.Generator) -> str:
        if not self.artwork or rng.random() < self.proc_share:
            return f"proc:{int(rng.integers(*self.proc_seeds))}"
        return self.artwork[int(rng.integers(len(self.artwork)))]


@dataclass(frozen=True)
class Label:
    """One visible corner index: its card, axis-aligned box in frame pixels and how much of it shows."""

    card: str
    box: tuple[float, float, float, float]
    quad: tuple[tuple[float, float], ...]
    visible: float
    card_id: int
    design: str

    def to_json(self) -> dict[str, Any]:
        return {
            "card": self.card,
            "box": [round(v, 1) for v in self.box],
            "quad": [[round(x, 1), round(y, 1)] for x, y in self.quad],
            "visible": round(self.visible, 3),
            "card_id": self.card_id,
            "design": self.design,
        }


@dataclass
class Scene:
    seed: int
    image: np.ndarray  # H x W x 3 RGB uint8
    labels: list[Label]
    cards: list[dict[str, Any]] = field(default_factory=list)
    hidden: list[tuple[tuple[float, float], ...]] = field(default_factory=list)  # indices too covered to label

    def to_json(self) -> dict[str, Any]:
        h, w = self.image.shape[:2]
        return {
            "seed": self.seed,
            "width": w,
            "height": h,
            "labels": [x.to_json() for x in self.labels],
            "cards": self.cards,
        }


@dataclass(frozen=True)
class Placement:
    """A card on the table plane: centre, angle (degrees), height in pixels, face up or down."""

    card: str
    design: str
    centre: tuple[float, float]
    angle: float
    height: float
    face_up: bool = True


SIZES = ((1280, 720), (1280, 720), (1280, 720), (1280, 960), (960, 1280), (1280, 720))


# -- layouts ---------------------------------------------------------------------------------------
def _group(rng: np.random.Generator, kind: str, n: int, centre: np.ndarray, height: float) -> list[tuple]:
    """(centre, angle) for ``n`` cards of one group, in drawing order (later cards on top)."""
    base = float(rng.uniform(0, 360))
    width = height * 0.7
    out = []
    if kind == "fan":
        spread = float(rng.uniform(4, 14))
        radius = height * float(rng.uniform(0.6, 1.3))
        pivot = centre + _rot(base) @ np.array([0.0, radius])
        for i in range(n):
            a = base + (i - (n - 1) / 2) * spread
            out.append((pivot + _rot(a) @ np.array([0.0, -radius]), a))
    elif kind in ("row", "column"):
        step = width * float(rng.uniform(0.15, 0.4)) if kind == "row" else height * float(rng.uniform(0.12, 0.3))
        axis = _rot(base) @ (np.array([1.0, 0.0]) if kind == "row" else np.array([0.0, 1.0]))
        for i in range(n):
            jitter = rng.normal(0, 0.01 * height, 2)
            out.append((centre + axis * step * (i - (n - 1) / 2) + jitter, base + float(rng.normal(0, 1.5))))
    elif kind == "pile":
        for _ in range(n):
            out.append((centre + rng.normal(0, 0.04 * height, 2), base + float(rng.normal(0, 8))))
    else:  # scatter
        for _ in range(n):
            offset = rng.uniform(-1.5, 1.5, 2) * height
            out.append((centre + offset, float(rng.uniform(0, 360))))
    return out


def _rot(degrees: float) -> np.ndarray:
    r = np.deg2rad(degrees)
    return np.array([[np.cos(r), -np.sin(r)], [np.sin(r), np.cos(r)]])


def layout(rng: np.random.Generator, pool: DesignPool, w: int, h: int) -> list[Placement]:
    """Cards of one scene, bottom first: 1 to 4 groups, 1 to about 40 cards."""
    close_up = rng.random() < 0.15
    height = float(h * (rng.uniform(0.45, 0.8) if close_up else np.exp(rng.uniform(np.log(0.14), np.log(0.45)))))
    groups = 1 if close_up else int(rng.integers(1, 5))
    placements: list[Placement] = []
    for _ in range(groups):
        design_name = pool.pick(rng)
        kind = str(rng.choice(["scatter", "pile", "fan", "row", "column"], p=[0.25, 0.1, 0.25, 0.25, 0.15]))
        limit = {"scatter": 6, "pile": 8, "fan": 13, "row": 12, "column": 9}[kind]
        n = int(rng.integers(1, (3 if close_up else limit) + 1))
        centre = rng.uniform([0.1 * w, 0.1 * h], [0.9 * w, 0.9 * h])
        size = height * float(rng.uniform(0.9, 1.1))
        deck = [c for c in CARDS[:-1] if rng.random() < 0.97] + ([JOKER] if rng.random() < 0.3 else [])
        picks = rng.permutation(deck)[:n]
        for card, (c, a) in zip(picks, _group(rng, kind, n, centre, size), strict=False):
            up = rng.random() > 0.08
            if not has_card(design_name, str(card)):
                card = CARDS[int(rng.integers(52))]
            placements.append(Placement(str(card), design_name, (float(c[0]), float(c[1])), float(a), size, up))
    return placements


# -- drawing ---------------------------------------------------------------------------------------
def _camera(rng: np.random.Generator, w: int, h: int) -> np.ndarray:
    """A homography from the table plane to the frame: tilt (foreshortening), roll and a little shear."""
    src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    tilt = float(rng.uniform(0, 0.22))
    dst = src.copy()
    dst[0, 0] += tilt * w
    dst[1, 0] -= tilt * w
    dst += rng.normal(0, 0.025 * min(w, h), (4, 2)).astype(np.float32)
    centre = np.float32([w / 2, h / 2])
    dst = (dst - centre) @ _rot(float(rng.normal(0, 6))).T.astype(np.float32) + centre
    return cv2.getPerspectiveTransform(src, dst.astype(np.float32))


def _card_matrix(p: Placement, face_w: int, face_h: int) -> np.ndarray:
    """Face pixels -> table plane."""
    s = p.height / face_h
    r = _rot(p.angle) * s
    m = np.eye(3)
    m[:2, :2] = r
    m[:2, 2] = np.array(p.centre) - r @ np.array([face_w / 2, face_h / 2])
    return m


def _warp(image: np.ndarray, m: np.ndarray, w: int, h: int) -> tuple[np.ndarray, tuple[int, int]] | None:
    """Warp ``image`` by ``m`` into the frame's bounding box of the result; None when it falls outside."""
    ih, iw = image.shape[:2]
    corners = cv2.perspectiveTransform(np.float32([[[0, 0], [iw, 0], [iw, ih], [0, ih]]]), m)[0]
    x1, y1 = np.floor(corners.min(axis=0)).astype(int)
    x2, y2 = np.ceil(corners.max(axis=0)).astype(int)
    x1, y1, x2, y2 = max(x1, 0), max(y1, 0), min(x2, w), min(y2, h)
    if x2 - x1 < 2 or y2 - y1 < 2:
        return None
    scale = np.sqrt(abs(np.linalg.det(m[:2, :2]))) if m[2, 0] == 0 == m[2, 1] else _local_scale(m, iw, ih)
    if scale < 0.7:  # shrink first with area averaging: warping alone aliases fine print
        factor = max(scale * 1.2, 1 / 8)
        small = cv2.resize(
            image, (max(2, round(iw * factor)), max(2, round(ih * factor))), interpolation=cv2.INTER_AREA
        )
        m = m @ np.diag([iw / small.shape[1], ih / small.shape[0], 1.0])
        image = small
    shift = np.array([[1, 0, -x1], [0, 1, -y1], [0, 0, 1]], float)
    out = cv2.warpPerspective(image, shift @ m, (x2 - x1, y2 - y1), flags=cv2.INTER_LINEAR, borderValue=(0, 0, 0, 0))
    return out, (x1, y1)


def _local_scale(m: np.ndarray, iw: int, ih: int) -> float:
    pts = cv2.perspectiveTransform(np.float32([[[0, 0], [iw, 0], [0, ih]]]), m)[0]
    return float(np.sqrt(np.linalg.norm(pts[1] - pts[0]) / iw * np.linalg.norm(pts[2] - pts[0]) / ih))


def _composite(
    frame: np.ndarray, owner: np.ndarray, layer: np.ndarray, at: tuple[int, int], ident: int, shadow: float
) -> None:
    x, y = at
    h, w = layer.shape[:2]
    alpha = layer[:, :, 3].astype(np.float32) / 255
    roi = frame[y : y + h, x : x + w]
    if shadow > 0:
        k = max(3, (min(h, w) // 12) | 1)
        soft = cv2.GaussianBlur(alpha, (k, k), 0)
        shift = max(1, k // 3)
        soft = np.roll(soft, (shift, shift), axis=(0, 1))
        roi *= (1 - shadow * soft)[:, :, None]
    roi[:] = layer[:, :, :3] * alpha[:, :, None] + roi * (1 - alpha[:, :, None])
    owner[y : y + h, x : x + w][alpha > 0.5] = ident


def _visible(owner: np.ndarray, quad: np.ndarray, ident: int) -> float:
    """Share of the index quad's area that is inside the frame and not covered."""
    area = cv2.contourArea(quad.astype(np.float32))
    if area < 1:
        return 0.0
    h, w = owner.shape
    x1, y1 = np.maximum(np.floor(quad.min(axis=0)).astype(int), 0)
    x2, y2 = np.minimum(np.ceil(quad.max(axis=0)).astype(int), [w, h])
    if x2 <= x1 or y2 <= y1:
        return 0.0
    mask = np.zeros((y2 - y1, x2 - x1), np.uint8)
    cv2.fillPoly(mask, [np.round(quad - [x1, y1]).astype(np.int32)], 1)
    shown = int(((owner[y1:y2, x1:x2] == ident) & (mask > 0)).sum())
    return min(1.0, shown / area)


def render_scene(seed: int, pool: DesignPool, size: tuple[int, int] | None = None, min_visible: float = 0.6) -> Scene:
    """One table scene, deterministic by ``seed``: RGB pixels, visible index labels and card metadata."""
    rng = np.random.default_rng([seed, 20240])
    w, h = size or SIZES[int(rng.integers(len(SIZES)))]
    frame = table_texture(rng, w, h).astype(np.float32)
    owner = np.full((h, w), -1, np.int32)
    camera = _camera(rng, w, h)
    placements = layout(rng, pool, w, h)
    shadow = float(rng.uniform(0.15, 0.5))
    faces: list[tuple[Face, np.ndarray] | None] = []
    cards = []
    for ident, p in enumerate(placements):
        f = face(p.design, p.card) if p.face_up else back_face(p.design, int(rng.integers(1 << 30)))
        m = camera @ _card_matrix(p, f.image.shape[1], f.image.shape[0])
        warped = _warp(f.image, m, w, h)
        faces.append((f, m) if p.face_up else None)
        if warped is None:
            continue
        _composite(frame, owner, warped[0], warped[1], ident, shadow)
        fh, fw = f.image.shape[:2]
        outline = cv2.perspectiveTransform(np.float32([[[0, 0], [fw, 0], [fw, fh], [0, fh]]]), m)[0]
        cards.append(
            {
                "card": p.card if p.face_up else None,
                "design": p.design,
                "card_id": ident,
                "quad": np.round(outline, 1).tolist(),
            }
        )
    occluders(rng, frame, owner)
    labels, hidden = [], []
    for ident, item in enumerate(faces):
        if item is None:
            continue
        f, m = item
        for x1, y1, x2, y2 in f.indices:
            quad = cv2.perspectiveTransform(np.float32([[[x1, y1], [x2, y1], [x2, y2], [x1, y2]]]), m)[0]
            seen = _visible(owner, quad, ident)
            if seen < min_visible:
                hidden.append(tuple((float(x), float(y)) for x, y in quad))
                continue
            bx1, by1 = np.maximum(quad.min(axis=0), 0)
            bx2, by2 = np.minimum(quad.max(axis=0), [w, h])
            if min(bx2 - bx1, by2 - by1) < 4:
                hidden.append(tuple((float(x), float(y)) for x, y in quad))
                continue
            box = (float(bx1), float(by1), float(bx2), float(by2))
            labels.append(Label(f.card, box, tuple((float(x), float(y)) for x, y in quad), seen, ident, f.design))
    image = apply_camera(rng, frame)
    return Scene(seed, image, labels, cards, hidden)


def yolo_lines(labels: Sequence[Label], w: int, h: int, classes: dict[str, int] | None = None) -> list[str]:
    """Labels as YOLO text lines (``class cx cy w h``, normalised); one class ``index`` unless ``classes``."""
    lines = []
    for lab in labels:
        x1, y1, x2, y2 = lab.box
        cls = classes[lab.card] if classes else 0
        lines.append(f"{cls} {(x1 + x2) / 2 / w:.6f} {(y1 + y2) / 2 / h:.6f} {(x2 - x1) / w:.6f} {(y2 - y1) / h:.6f}")
    return lines


__all__ = ["FACE_HEIGHT", "DesignPool", "Label", "Placement", "Scene", "layout", "render_scene", "yolo_lines"]
