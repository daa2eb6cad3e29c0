"""The square crop around a corner index that the card classifier reads, shared by training and run time."""

from __future__ import annotations

import cv2
import numpy as np

CROP_MARGIN = 1.3  # the crop's side is this many times the index box's longer side


def crop_box(
    box: tuple[float, ...], rng: np.random.Generator | None, margin: float = CROP_MARGIN, shift: tuple = (0.0, 0.0)
) -> tuple:
    """The square crop the classifier sees around an index box: ``margin`` times its longer side, jittered
    (training) or moved by ``shift`` (x, y) times its own side (the reader's extra views)."""
    x1, y1, x2, y2 = box
    side = max(x2 - x1, y2 - y1)
    cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
    if rng is not None:
        side *= float(rng.uniform(1.1, 1.55)) / margin
        cx += float(rng.normal(0, 0.07)) * side
        cy += float(rng.normal(0, 0.07)) * side
    side *= margin
    cx, cy = cx + shift[0] * side, cy + shift[1] * side
    return cx - side / 2, cy - side / 2, cx + side / 2, cy + side / 2


def cut(image: np.ndarray, square: tuple, size: int) -> np.ndarray:
    """Crop ``square`` (it may reach outside the image: edges are replicated) and resize to ``size``."""
    x1, y1, x2, y2 = (round(v) for v in square)
    h, w = image.shape[:2]
    ix1, iy1, ix2, iy2 = max(x1, 0), max(y1, 0), min(x2, w), min(y2, h)
    if ix2 <= ix1 or iy2 <= iy1 or x2 - x1 < 2:
        return np.zeros((size, size, *image.shape[2:]), image.dtype)
    piece = image[iy1:iy2, ix1:ix2]
    if (ix1, iy1, ix2, iy2) != (x1, y1, x2, y2):
        piece = cv2.copyMakeBorder(piece, iy1 - y1, y2 - iy2, ix1 - x1, x2 - ix2, cv2.BORDER_REPLICATE)
    interp = cv2.INTER_AREA if piece.shape[0] > size else cv2.INTER_LINEAR
    return cv2.resize(piece, (size, size), interpolation=interp)
