"""Classifier crops cut straight from card faces: many more index designs per minute than whole scenes give.

A scene costs ~0.15 s and yields ~12 crops of 3-4 designs; here one design's 53 faces yield ~100 crops in about
0.3 s, so a set can hold thousands of procedural designs.  Each crop is the square the run time cuts around an
index box (same size and jitter as in :func:`vision.crops.turned_square`), the card pasted on a table patch,
often half covered beside the index by a neighbouring card (as in fans and rows; now and then over up to a third
of the index's width, as in tight fans: scenes label indices with up to 40 % covered), turned upright or upside
down as the run time turns an index's crop along its turned box (since session 20; at any angle before, and with
``upright=False``), then degraded like a webcam frame: shrunk to 11-64 px (log-uniform: many webcam-sized ones)
and enlarged back (small indices lose detail), blur, light, noise, JPEG.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from vision.cardart import CARDS, Face, face, has_card
from vision.crops import AXIS_JITTER, SQUARE_ISH
from vision.textures import table_texture


def _affine(box: tuple[float, ...], rng: np.random.Generator, size: int, upright: bool = True) -> np.ndarray:
    """Face pixels -> crop pixels: the jittered square around ``box``, turned as the run time turns an index's
    crop (``upright``: its long side upright or upside down, :func:`vision.crops.turned_square`), else by any
    angle (the earlier, axis-aligned crops)."""
    x1, y1, x2, y2 = box
    side = max(x2 - x1, y2 - y1) * float(rng.uniform(1.1, 1.55))
    cx = (x1 + x2) / 2 + float(rng.normal(0, 0.07)) * side
    cy = (y1 + y2) / 2 + float(rng.normal(0, 0.07)) * side
    if upright:
        w, h = x2 - x1, y2 - y1
        angle = (90.0 if w > h else 0.0) + float(rng.normal(0, AXIS_JITTER)) + 180 * int(rng.integers(2))
        if min(w, h) >= SQUARE_ISH * max(w, h) and rng.random() < 0.5:
            angle += 90
    else:
        angle = float(rng.uniform(0, 360))
    m = cv2.getRotationMatrix2D((cx, cy), angle, size / side)
    m[:, 2] += (size / 2 - cx, size / 2 - cy)
    return m


def _paste(canvas: np.ndarray, rgba: np.ndarray, m: np.ndarray, size: int) -> None:
    layer = cv2.warpAffine(rgba, m, (size, size), flags=cv2.INTER_AREA, borderValue=(0, 0, 0, 0))
    alpha = layer[:, :, 3:4].astype(np.float32) / 255
    canvas[:] = layer[:, :, :3] * alpha + canvas * (1 - alpha)


def face_crop(
    f: Face,
    corner: int,
    rng: np.random.Generator,
    size: int = 64,
    neighbour: Face | None = None,
    table: np.ndarray | None = None,
    upright: bool = True,
) -> np.ndarray:
    """One degraded RGB crop around index ``corner`` of face ``f`` (on a patch of ``table`` if given), turned as
    ``_affine`` turns it."""
    work = size * 2  # draw at twice the size, shrink at the end
    if table is None or min(table.shape[:2]) < work:
        table = table_texture(rng, work, work)
    y, x = (int(rng.integers(0, d - work + 1)) for d in table.shape[:2])
    canvas = table[y : y + work, x : x + work].astype(np.float32)
    m = _affine(f.indices[corner], rng, work, upright)
    _paste(canvas, f.image, m, work)
    if neighbour is not None and rng.random() < 0.5:  # the next card of a fan or row, beside the index
        x1, y1, x2, y2 = f.indices[corner]
        gap = (x2 - x1) * float(rng.uniform(-0.3, 1.5))  # below 0: it covers the index's far side, as in tight fans
        dx = x2 + gap if x1 < f.image.shape[1] / 2 else x1 - gap - neighbour.image.shape[1]
        dy = y1 - float(rng.uniform(0, 0.5)) * (y2 - y1)
        move = np.array([[1, 0, dx], [0, 1, dy], [0, 0, 1]])
        _paste(canvas, neighbour.image, (np.vstack([m, [0, 0, 1]]) @ move)[:2], work)
    # the crop shown at 11-64 px, log-uniform: a webcam frame of a whole table gives crops of 14-22 px (indices of
    # 10-17 px), where the simulated video loses most cards
    return degrade(rng, canvas, size, smallest=11, largest=size, shrink_share=0.7)


def degrade(
    rng: np.random.Generator, canvas: np.ndarray, size: int, smallest: int, largest: int, shrink_share: float
) -> np.ndarray:
    """A drawn RGB square made to look like part of a webcam frame and returned at ``size``: light and colour
    cast, now and then glare; shown (``shrink_share`` of the time) at ``smallest``-``largest`` px, log-uniform,
    else at ``largest``; blur, noise, JPEG, now and then grayscale."""
    work = canvas.shape[0]
    canvas = canvas.astype(np.float32)
    light = float(rng.uniform(0.55, 1.3))
    canvas *= light * (1 + rng.normal(0, 0.05, 3)).astype(np.float32)
    if rng.random() < 0.2:  # glare
        yy, xx = np.mgrid[0:work, 0:work].astype(np.float32)
        cx, cy = rng.uniform(0, work, 2)
        r = float(rng.uniform(0.2, 0.8)) * work
        canvas += (np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * r * r)) * float(rng.uniform(40, 160)))[:, :, None]
    image = np.clip(canvas, 0, 255).astype(np.uint8)
    shrink = rng.random() < shrink_share
    small = round(float(np.exp(rng.uniform(np.log(smallest), np.log(largest))))) if shrink else largest
    image = cv2.resize(image, (small, small), interpolation=cv2.INTER_AREA)
    if rng.random() < 0.5:
        image = cv2.GaussianBlur(image, (0, 0), float(rng.uniform(0.3, 1.2)))
    noise = rng.normal(0, float(rng.uniform(1, 8)), (small, small, 1))
    image = np.clip(image + noise, 0, 255).astype(np.uint8)
    if rng.random() < 0.7:
        _ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(30, 96))])
        image = cv2.imdecode(buf, cv2.IMREAD_UNCHANGED)
    if rng.random() < 0.05:
        image = np.repeat(cv2.cvtColor(image, cv2.COLOR_RGB2GRAY)[:, :, None], 3, axis=2)
    return cv2.resize(image, (size, size), interpolation=cv2.INTER_AREA if small > size else cv2.INTER_LINEAR)


def write_design_crops(
    folder: Path, design: str, seed: int, per_card: int = 2, size: int = 64, upright: bool = True
) -> int:
    """Crops of every card of ``design`` into ``folder/<CARD>/``; returns how many were written."""
    rng = np.random.default_rng([seed, 4242])
    written = 0
    cards = [c for c in CARDS if has_card(design, c)]
    tables = [table_texture(rng, 384, 384) for _ in range(3)]
    for card in cards:
        f = face(design, card)
        if not f.indices:
            continue
        for k in range(per_card):
            neighbour = face(design, cards[int(rng.integers(len(cards)))])
            table = tables[int(rng.integers(len(tables)))]
            crop = face_crop(f, int(rng.integers(len(f.indices))), rng, size, neighbour, table, upright)
            name = f"f{seed}_{design.replace(':', '-').replace('/', '-')}_{card}_{k}.jpg"
            cv2.imwrite(
                str(folder / card / name), cv2.cvtColor(crop, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, 95]
            )
            written += 1
    return written
