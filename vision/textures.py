"""What surrounds the cards in a synthetic scene: tables, card backs, hands and clutter, light and the camera.

Every function draws from the ``numpy`` generator it is given, so scenes stay deterministic by seed.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.cardart import FACE_HEIGHT, Face


def _noise(rng: np.random.Generator, w: int, h: int, cells: int) -> np.ndarray:
    """Smooth value noise in [0, 1]: a coarse random grid blown up with cubic interpolation."""
    gw, gh = max(2, cells), max(2, round(cells * h / w))
    grid = rng.random((gh, gw)).astype(np.float32)
    return np.clip(cv2.resize(grid, (w, h), interpolation=cv2.INTER_CUBIC), 0, 1)


def _colour(rng: np.random.Generator, kind: str) -> np.ndarray:
    bases = {
        "wood": [(150, 100, 60), (110, 70, 40), (190, 150, 100), (80, 50, 30)],
        "felt": [(20, 100, 50), (30, 60, 120), (120, 20, 30), (40, 40, 40), (20, 90, 90)],
        "cloth": [(200, 200, 190), (180, 60, 60), (60, 90, 150), (230, 220, 200), (90, 120, 80)],
        "cork": [(180, 140, 90), (160, 120, 80)],
        "plain": [(240, 240, 240), (200, 200, 205), (60, 60, 65), (170, 160, 150), (30, 30, 30), (120, 140, 160)],
    }[kind]
    base = np.array(bases[int(rng.integers(len(bases)))], np.float32)
    return np.clip(base + rng.normal(0, 12, 3), 0, 255)


def table_texture(rng: np.random.Generator, w: int, h: int) -> np.ndarray:
    """A table top: wood, felt, cloth, cork or plain; RGB uint8."""
    kind = str(rng.choice(["wood", "felt", "cloth", "cork", "plain"], p=[0.3, 0.2, 0.2, 0.1, 0.2]))
    colour = _colour(rng, kind)
    if kind == "wood":
        warp = _noise(rng, w, h, 6) * float(rng.uniform(10, 40))
        along = np.arange(w if rng.random() < 0.5 else h, dtype=np.float32)
        freq = float(rng.uniform(0.05, 0.2))
        grain = np.sin((along[None, :] if along.size == w else along[:, None]) * freq * 0.3 + warp) * 0.5 + 0.5
        shade = 0.75 + 0.35 * grain + 0.15 * (_noise(rng, w, h, 60) - 0.5)
        if rng.random() < 0.5:  # planks
            planks = int(rng.integers(3, 9))
            seams = (np.arange(h) * planks // h) if along.size == w else (np.arange(w) * planks // w)
            shade = shade * (0.9 + 0.2 * rng.random(planks)[seams][:, None] if along.size == w else 1)
    elif kind == "felt":
        shade = 0.9 + 0.15 * (_noise(rng, w, h, 8) - 0.5) + rng.normal(0, 0.03, (h, w)).astype(np.float32)
    elif kind == "cloth":
        period = float(rng.uniform(2.5, 8))
        xx = np.arange(w, dtype=np.float32)[None, :]
        yy = np.arange(h, dtype=np.float32)[:, None]
        weave = 0.5 + 0.25 * (np.sin(xx / period * np.pi) + np.sin(yy / period * np.pi))
        shade = 0.8 + 0.25 * weave + 0.2 * (_noise(rng, w, h, 5) - 0.5)
        if rng.random() < 0.3:  # checks / stripes
            cell = float(rng.uniform(20, 120))
            shade = shade * (0.8 + 0.25 * ((np.floor(xx / cell) + np.floor(yy / cell)) % 2))
    elif kind == "cork":
        speck = cv2.GaussianBlur(rng.random((h, w)).astype(np.float32), (3, 3), 0)
        shade = 0.75 + 0.5 * speck + 0.2 * (_noise(rng, w, h, 30) - 0.5)
    else:
        shade = 1 + 0.08 * (_noise(rng, w, h, 4) - 0.5) + rng.normal(0, 0.01, (h, w)).astype(np.float32)
    image = np.clip(np.asarray(shade, np.float32)[:, :, None] * colour, 0, 255)
    return image.astype(np.uint8)


def back_face(design: str, seed: int) -> Face:
    """A face-down card: a patterned back of the design's proportions (no index, so no labels)."""
    rng = np.random.default_rng([seed, 31])
    h, w = FACE_HEIGHT, round(FACE_HEIGHT * float(rng.uniform(0.64, 0.72)))
    image = np.zeros((h, w, 4), np.uint8)
    r = w // 16
    cv2.rectangle(image, (r, 0), (w - 1 - r, h - 1), (255, 255, 255, 255), -1)
    cv2.rectangle(image, (0, r), (w - 1, h - 1 - r), (255, 255, 255, 255), -1)
    for cx, cy in ((r, r), (w - 1 - r, r), (r, h - 1 - r), (w - 1 - r, h - 1 - r)):
        cv2.circle(image, (cx, cy), r, (255, 255, 255, 255), -1, cv2.LINE_AA)
    colour = tuple(int(v) for v in rng.integers(0, 200, 3))
    m = w // 14
    cv2.rectangle(image, (m, m), (w - m, h - m), (*colour, 255), -1)
    step = int(rng.integers(6, 20))
    for k in range(-h, w + h, step):
        cv2.line(image, (k, m), (k + h, h - m), (255, 255, 255, 255), 1, cv2.LINE_AA)
        if rng.random() < 0.5:
            cv2.line(image, (k + h, m), (k, h - m), (255, 255, 255, 255), 1, cv2.LINE_AA)
    image[:m, :, :3] = np.where(image[:m, :, 3:] > 0, 255, 0)
    image[h - m :, :, :3] = np.where(image[h - m :, :, 3:] > 0, 255, 0)
    image[:, :m, :3] = np.where(image[:, :m, 3:] > 0, 255, 0)
    image[:, w - m :, :3] = np.where(image[:, w - m :, 3:] > 0, 255, 0)
    return Face("back", design, image, ())


_SKIN = ((224, 172, 140), (198, 134, 66), (141, 85, 36), (255, 205, 170), (170, 110, 80))


def _hand(rng: np.random.Generator, w: int, h: int) -> tuple[np.ndarray, tuple[int, int, int]]:
    """A hand reaching in from one edge: palm plus fingers, as a mask."""
    mask = np.zeros((h, w), np.uint8)
    size = float(rng.uniform(0.12, 0.3)) * min(w, h) * 1.6
    edge = int(rng.integers(4))
    t = float(rng.uniform(0.1, 0.9))
    start = [(t * w, h + size * 0.2), (t * w, -size * 0.2), (-size * 0.2, t * h), (w + size * 0.2, t * h)][edge]
    inward = [(0, -1), (0, 1), (1, 0), (-1, 0)][edge]
    angle = np.degrees(np.arctan2(inward[1], inward[0])) + float(rng.normal(0, 25))
    d = np.array([np.cos(np.radians(angle)), np.sin(np.radians(angle))])
    palm = np.array(start) + d * size * float(rng.uniform(0.4, 0.9))
    cv2.ellipse(mask, tuple(int(v) for v in palm), (int(size * 0.45), int(size * 0.38)), angle, 0, 360, 255, -1)
    arm_end = np.array(start) - d * size
    cv2.line(mask, tuple(int(v) for v in arm_end), tuple(int(v) for v in palm), 255, int(size * 0.55))
    for k in range(int(rng.integers(2, 6))):
        fa = angle + (k - 1.5) * float(rng.uniform(8, 18))
        fd = np.array([np.cos(np.radians(fa)), np.sin(np.radians(fa))])
        tip = palm + fd * size * float(rng.uniform(0.6, 0.95))
        cv2.line(mask, tuple(int(v) for v in palm), tuple(int(v) for v in tip), 255, max(2, int(size * 0.13)))
        cv2.circle(mask, tuple(int(v) for v in tip), max(1, int(size * 0.065)), 255, -1)
    skin = np.array(_SKIN[int(rng.integers(len(_SKIN)))]) + rng.normal(0, 10, 3)
    return mask, tuple(int(np.clip(v, 0, 255)) for v in skin)  # type: ignore[return-value]


def _thing(rng: np.random.Generator, w: int, h: int) -> tuple[np.ndarray, tuple[int, int, int]]:
    """Clutter: a coin, a phone, a pen, a cup or a chip."""
    mask = np.zeros((h, w), np.uint8)
    c = (int(rng.uniform(0, w)), int(rng.uniform(0, h)))
    s = float(rng.uniform(0.03, 0.15)) * min(w, h)
    kind = int(rng.integers(4))
    if kind == 0:
        cv2.circle(mask, c, int(s * 0.5), 255, -1, cv2.LINE_AA)
    elif kind == 1:
        box = cv2.boxPoints((c, (s * 1.2, s * 2.2), float(rng.uniform(0, 180)))).astype(np.int32)
        cv2.fillPoly(mask, [box], 255)
    elif kind == 2:
        a = float(rng.uniform(0, np.pi))
        end = (int(c[0] + np.cos(a) * s * 3), int(c[1] + np.sin(a) * s * 3))
        cv2.line(mask, c, end, 255, max(2, int(s * 0.12)))
    else:
        cv2.ellipse(mask, c, (int(s), int(s * 0.8)), float(rng.uniform(0, 180)), 0, 360, 255, -1)
    colour = tuple(int(v) for v in rng.integers(0, 256, 3))
    return mask, colour  # type: ignore[return-value]


def occluders(rng: np.random.Generator, frame: np.ndarray, owner: np.ndarray) -> None:
    """Hands and objects over the cards; their pixels belong to nobody (owner -1)."""
    h, w = owner.shape
    items = []
    if rng.random() < 0.3:
        items.append(_hand(rng, w, h))
    for _ in range(int(rng.choice(4, p=[0.55, 0.25, 0.12, 0.08]))):
        items.append(_thing(rng, w, h))
    for mask, colour in items:
        soft = cv2.GaussianBlur(mask, (5, 5), 0).astype(np.float32) / 255
        ys, xs = np.nonzero(mask)
        if len(xs) == 0:
            continue
        x1, y1 = max(0, xs.min() - 24), max(0, ys.min() - 24)
        x2, y2 = min(w, xs.max() + 25), min(h, ys.max() + 25)
        part, roi = soft[y1:y2, x1:x2], frame[y1:y2, x1:x2]
        shade = 0.8 + 0.4 * _noise(rng, x2 - x1, y2 - y1, 6)
        paint = shade[:, :, None] * np.array(colour, np.float32)
        shadow = np.roll(cv2.GaussianBlur(part, (31, 31), 0), (8, 8), axis=(0, 1))
        roi *= (1 - 0.35 * shadow)[:, :, None]
        roi[:] = paint * part[:, :, None] + roi * (1 - part[:, :, None])
        owner[y1:y2, x1:x2][part > 0.5] = -1


def apply_camera(rng: np.random.Generator, frame: np.ndarray) -> np.ndarray:
    """Light and camera: uneven light, colour cast, glare, blur, noise, JPEG. Float RGB in, uint8 RGB out."""
    h, w = frame.shape[:2]
    sw, sh = max(2, w // 8), max(2, h // 8)  # light fields are smooth: compute them small, then enlarge
    yy, xx = np.mgrid[0:sh, 0:sw].astype(np.float32)
    field = (0.55 + 0.6 * _noise(rng, sw, sh, 3)) * float(rng.uniform(0.7, 1.25))
    field *= 1 - float(rng.uniform(0, 0.4)) * (((xx / sw - 0.5) ** 2 + (yy / sh - 0.5) ** 2) * 2)
    glare = np.zeros_like(field)
    if rng.random() < 0.3:  # a bright soft spot
        cx, cy, r = rng.uniform(0, sw), rng.uniform(0, sh), float(rng.uniform(0.05, 0.3)) * sw
        glare = np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * r * r)) * float(rng.uniform(60, 220))
    cast = (1 + rng.normal(0, 0.06, 3)).astype(np.float32)
    field = cv2.resize(field, (w, h), interpolation=cv2.INTER_LINEAR)
    image = frame * field[:, :, None] * cast
    if glare.any():
        image += cv2.resize(glare.astype(np.float32), (w, h), interpolation=cv2.INTER_LINEAR)[:, :, None]
    if rng.random() < 0.5:
        sigma = float(rng.uniform(0.3, 1.6))
        image = cv2.GaussianBlur(image, (0, 0), sigma)
    elif rng.random() < 0.25:  # motion blur
        k = int(rng.integers(3, 9))
        kernel = np.zeros((k, k), np.float32)
        kernel[k // 2, :] = 1 / k
        rot = cv2.getRotationMatrix2D((k / 2 - 0.5, k / 2 - 0.5), float(rng.uniform(0, 180)), 1)
        kernel = cv2.warpAffine(kernel, rot, (k, k))
        image = cv2.filter2D(image, -1, kernel / max(kernel.sum(), 1e-6))
    noise = rng.standard_normal((h, w, 1), dtype=np.float32) * float(rng.uniform(1, 9))  # luminance noise
    image += noise
    out = np.clip(image, 0, 255, out=image).astype(np.uint8)
    if rng.random() < 0.2:  # a cheaper sensor: lose resolution
        f = float(rng.uniform(0.5, 0.85))
        small = cv2.resize(out, (round(w * f), round(h * f)), interpolation=cv2.INTER_AREA)
        out = cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)
    if rng.random() < 0.8:
        _ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(30, 96))])
        out = cv2.imdecode(buf, cv2.IMREAD_UNCHANGED)
    if rng.random() < 0.05:  # a grayscale camera
        out = np.repeat(cv2.cvtColor(out, cv2.COLOR_RGB2GRAY)[:, :, None], 3, axis=2)
    return out
