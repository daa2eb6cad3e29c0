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


# Oriented crops (since session 20): a detector that boxes each index as a turned rectangle (Ultralytics OBB) tells
# the direction of the index's long side, its rank-over-suit axis; the classifier then reads the index turned
# upright or upside down, never at any other angle, instead of at every angle in an axis-aligned square.
SQUARE_ISH = 0.85  # an index whose short side is this close to its long one: a detector may take either as long
AXIS_JITTER = 5.0  # degrees (sd): the training crops' axis is off by about what a detector's angle is off


def quad_box(quad: object) -> tuple[float, float, float, float]:
    """The upright box (x1, y1, x2, y2) around a quadrilateral's corners."""
    points = np.asarray(quad, np.float64).reshape(-1, 2)
    x1, y1 = points.min(axis=0).tolist()
    x2, y2 = points.max(axis=0).tolist()
    return x1, y1, x2, y2


def quad_axis(quad: object) -> tuple[float, float, float, float, float]:
    """A labelled index quad (four corners in order) as (cx, cy, long side, short side, axis): its centre, its
    sides' lengths and the longer side's direction in degrees, 0-180, clockwise from the image's x axis (y down)."""
    q = np.asarray(quad, np.float64).reshape(4, 2)
    a, b = (q[1] - q[0] + q[2] - q[3]) / 2, (q[3] - q[0] + q[2] - q[1]) / 2
    la, lb = float(np.hypot(*a)), float(np.hypot(*b))
    longer = a if la >= lb else b
    axis = float(np.degrees(np.arctan2(longer[1], longer[0]))) % 180
    cx, cy = q.mean(axis=0)
    return float(cx), float(cy), max(la, lb), min(la, lb), axis


def turned_square(
    centre: tuple[float, float],
    axis: float,
    long_side: float,
    rng: np.random.Generator | None,
    margin: float = CROP_MARGIN,
    shift: tuple = (0.0, 0.0),
    short_side: float | None = None,
) -> tuple[float, float, float, float]:
    """The turned square the classifier reads around an oriented index: (cx, cy, side, axis), ``margin`` times its
    long side wide, its vertical along the index's ``axis``; jittered as :func:`crop_box` jitters (training: also
    the axis by ``AXIS_JITTER``, upside down half the time, and a nearly square index now and then taken the other
    way, as a detector may), or moved by ``shift`` (x, y) times its side in the square's own frame."""
    side = long_side
    cx, cy = centre
    if rng is not None:
        side *= float(rng.uniform(1.1, 1.55)) / margin
        cx += float(rng.normal(0, 0.07)) * side * margin
        cy += float(rng.normal(0, 0.07)) * side * margin
        axis += float(rng.normal(0, AXIS_JITTER)) + 180 * int(rng.integers(2))
        if short_side is not None and short_side >= SQUARE_ISH * long_side and rng.random() < 0.5:
            axis += 90
    side *= margin
    turn = np.radians(axis - 90)  # the square's x axis in the image
    ux, uy = np.cos(turn), np.sin(turn)
    cx += (shift[0] * ux - shift[1] * uy) * side
    cy += (shift[0] * uy + shift[1] * ux) * side
    return float(cx), float(cy), float(side), float(axis % 360)


def cut_turned(image: np.ndarray, square: tuple[float, float, float, float], size: int) -> np.ndarray:
    """Crop a turned ``square`` (cx, cy, side, axis: :func:`turned_square`) with its vertical along ``axis`` and
    resize it to ``size``: the axis-aligned square around it first (shrunk with area averaging, as :func:`cut`
    does), then turned, so small crops of a large image keep the detail an axis-aligned crop keeps."""
    cx, cy, side, axis = square
    if side < 2:
        return np.zeros((size, size, *image.shape[2:]), image.dtype)
    outer = side * np.sqrt(2) * 1.02
    work = max(size, int(np.ceil(size * outer / side)))
    piece = cut(image, (cx - outer / 2, cy - outer / 2, cx + outer / 2, cy + outer / 2), work)
    m = cv2.getRotationMatrix2D((work / 2, work / 2), axis - 90, size * outer / (side * work))
    m[:, 2] += (size - work) / 2  # the piece's centre to the crop's
    return cv2.warpAffine(piece, m, (size, size), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
