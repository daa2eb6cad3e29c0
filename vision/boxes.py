"""Boxes as the detector gives them: the letterboxed input, upright and turned boxes, their overlap and
non-maximum suppression, and a turned box's axis."""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np


def letterbox(
    image: np.ndarray, size: int, stride: int = 32, square: bool = False
) -> tuple[np.ndarray, float, tuple[int, int]]:
    """Scale the long side to ``size``, pad (grey 114) to a multiple of ``stride`` (or a square): a batch of one
    uint8 BGR image (1, H, W, 3), as the backends take it."""
    h, w = image.shape[:2]
    r = size / max(h, w)
    nw, nh = max(1, round(w * r)), max(1, round(h * r))
    resized = cv2.resize(image, (nw, nh), interpolation=cv2.INTER_AREA if r < 1 else cv2.INTER_LINEAR)
    tw, th = (size, size) if square else (-(-nw // stride) * stride, -(-nh // stride) * stride)
    px, py = (tw - nw) // 2, (th - nh) // 2
    padded = cv2.copyMakeBorder(resized, py, th - nh - py, px, tw - nw - px, cv2.BORDER_CONSTANT, value=(114, 114, 114))
    return padded[None], r, (px, py)


def nms(boxes: np.ndarray, scores: np.ndarray, iou: float) -> list[int]:
    """Greedy non-maximum suppression; boxes are (N, 4) x1 y1 x2 y2."""
    order = scores.argsort()[::-1]
    keep: list[int] = []
    areas = (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])
    while order.size:
        i = int(order[0])
        keep.append(i)
        rest = order[1:]
        ix = np.clip(np.minimum(boxes[i, 2], boxes[rest, 2]) - np.maximum(boxes[i, 0], boxes[rest, 0]), 0, None)
        iy = np.clip(np.minimum(boxes[i, 3], boxes[rest, 3]) - np.maximum(boxes[i, 1], boxes[rest, 1]), 0, None)
        overlap = ix * iy / (areas[i] + areas[rest] - ix * iy + 1e-9)
        order = rest[overlap <= iou]
    return keep


def _gaussian(rboxes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each turned box (cx, cy, w, h, angle in radians) as the covariance (a, b, c) of a uniform rectangle."""
    w2, h2 = rboxes[:, 2] ** 2 / 12, rboxes[:, 3] ** 2 / 12
    cos, sin = np.cos(rboxes[:, 4]), np.sin(rboxes[:, 4])
    return w2 * cos**2 + h2 * sin**2, w2 * sin**2 + h2 * cos**2, (w2 - h2) * cos * sin


def probiou(one: np.ndarray, others: np.ndarray) -> np.ndarray:
    """Overlap of turned box ``one`` with each of ``others`` as 1 - the Hellinger distance of their Gaussians
    (ProbIoU, Llerena et al. 2021: what Ultralytics' turned-box detectors are trained and suppressed with)."""
    a1, b1, c1 = (v[0] for v in _gaussian(one[None]))
    a2, b2, c2 = _gaussian(others)
    a, b, c = a1 + a2, b1 + b2, c1 + c2
    dx, dy = one[0] - others[:, 0], one[1] - others[:, 1]
    det = a * b - c * c + 1e-7
    near = (a * dy * dy + b * dx * dx - 2 * c * dx * dy) / det * 0.25  # d^T (sum of covariances)^-1 d / 4
    spread = np.sqrt(np.clip(a1 * b1 - c1 * c1, 0, None) * np.clip(a2 * b2 - c2 * c2, 0, None))
    shape = 0.5 * np.log(det / (4 * spread + 1e-7) + 1e-7)
    distance = np.clip(near + shape, 1e-7, 100.0)
    return 1 - np.sqrt(1 - np.exp(-distance) + 1e-7)


def nms_turned(rboxes: np.ndarray, scores: np.ndarray, iou: float) -> list[int]:
    """Greedy non-maximum suppression of turned boxes (N, 5: cx, cy, w, h, angle) by :func:`probiou`."""
    order = scores.argsort()[::-1]
    keep: list[int] = []
    while order.size:
        i = int(order[0])
        keep.append(i)
        rest = order[1:]
        order = rest[probiou(rboxes[i], rboxes[rest]) <= iou]
    return keep


def upright_boxes(rboxes: np.ndarray) -> np.ndarray:
    """The upright box (x1, y1, x2, y2) around each turned box (cx, cy, w, h, angle in radians)."""
    cos, sin = np.abs(np.cos(rboxes[:, 4])), np.abs(np.sin(rboxes[:, 4]))
    half_w = (rboxes[:, 2] * cos + rboxes[:, 3] * sin) / 2
    half_h = (rboxes[:, 2] * sin + rboxes[:, 3] * cos) / 2
    return np.stack([rboxes[:, 0] - half_w, rboxes[:, 1] - half_h, rboxes[:, 0] + half_w, rboxes[:, 1] + half_h], 1)


def turns_of(rboxes: np.ndarray) -> np.ndarray:
    """Each turned box's (long side, short side, axis): the long side's direction in degrees, 0-180, clockwise
    from the image's x axis (:func:`vision.crops.quad_axis`'s convention)."""
    w, h = rboxes[:, 2], rboxes[:, 3]
    axis = np.degrees(rboxes[:, 4]) + np.where(w >= h, 0.0, 90.0)
    return np.stack([np.maximum(w, h), np.minimum(w, h), axis % 180], 1)


def turn_between(a: Any, b: Any) -> Any:
    """The angle in degrees, 0-90, between two box axes given in degrees 0-180 (:func:`turns_of`): floats, or
    arrays of them element by element."""
    return abs((a - b + 90.0) % 180.0 - 90.0)
