"""A small scripted table for the live pipeline's tests: frames with ArUco corner markers, plain cards and a
moving hand, drawn through a known camera; and an *oracle* detector that knows which cards each frame shows.

The oracle stands in for the trained detector (no weights exist yet): each frame carries its number in a row of
black and white blocks at the image's top-left, which the oracle reads back from the pixels (so it works on
frames that went through a real video file), and it reports every card of the script that lies on the table
at that moment and is not under the hand, as :class:`vision.detections.Detections` with the card's outline.
The end-to-end tests with the real detector and the real simulator are in ``test_e2e.py``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from vision.detections import Detection, Detections
from vision.markers import marker_cells
from vision.zones import CARD_MM, Layout, Point

SIZE = (960, 540)
FPS = 10.0
BITS = 12
BLOCK = 14


def camera(
    size: tuple[int, int] = SIZE, nudge: Point = (0.0, 0.0), table: tuple[float, float] = (1000.0, 700.0)
) -> np.ndarray:
    """Table mm -> image px: a camera above the near edge, looking down at a slight angle (a trapezoid)."""
    w, h = size
    tw, th = table
    dx, dy = nudge
    src = np.float32([(0, 0), (tw, 0), (tw, th), (0, th)])
    dst = np.float32(
        [
            (0.19 * w + dx, 0.1 * h + dy),
            (0.81 * w + dx, 0.1 * h + dy),
            (0.95 * w + dx, 0.95 * h + dy),
            (0.05 * w + dx, 0.95 * h + dy),
        ]
    )
    return np.asarray(cv2.getPerspectiveTransform(src, dst), np.float64)


def project(matrix: np.ndarray, points: Sequence[Point]) -> np.ndarray:
    pts = np.asarray(points, np.float64).reshape(-1, 1, 2)
    return np.asarray(cv2.perspectiveTransform(pts, matrix)).reshape(-1, 2)


def card_quad(centre: Point, angle: float = 0.0) -> list[Point]:
    w, h = CARD_MM
    r = math.radians(angle)
    c, s = math.cos(r), math.sin(r)
    local = [(-w / 2, -h / 2), (w / 2, -h / 2), (w / 2, h / 2), (-w / 2, h / 2)]
    return [(centre[0] + x * c - y * s, centre[1] + x * s + y * c) for x, y in local]


@dataclass(frozen=True)
class Card:
    """A card lying at ``at`` (table mm) from ``on`` to ``off`` (ms); it slides in from ``start`` over ``slide`` ms."""

    card: str
    at: Point
    on: float
    off: float = math.inf
    start: Point | None = None
    slide: float = 400.0
    angle: float = 0.0

    def where(self, t: float) -> Point | None:
        if t >= self.off:
            return None
        if t >= self.on:
            return self.at
        if self.start is None or t < self.on - self.slide:
            return None
        u = (t - (self.on - self.slide)) / self.slide
        return (self.start[0] + (self.at[0] - self.start[0]) * u, self.start[1] + (self.at[1] - self.start[1]) * u)


@dataclass(frozen=True)
class Hand:
    """A hand and forearm reaching from ``base`` to ``reach`` and back between ``t0`` and ``t1`` (ms)."""

    base: Point
    reach: Point
    t0: float
    t1: float

    def tip(self, t: float) -> Point | None:
        if not self.t0 <= t <= self.t1:
            return None
        u = math.sin(math.pi * (t - self.t0) / (self.t1 - self.t0))
        return (self.base[0] + (self.reach[0] - self.base[0]) * u, self.base[1] + (self.reach[1] - self.base[1]) * u)

    def polygon(self, t: float) -> list[Point] | None:
        tip = self.tip(t)
        if tip is None:
            return None
        dx, dy = tip[0] - self.base[0], tip[1] - self.base[1]
        length = max(1.0, math.hypot(dx, dy))
        nx, ny = -dy / length * 55, dx / length * 55
        return [
            (self.base[0] + nx, self.base[1] + ny),
            (tip[0] + nx, tip[1] + ny),
            (tip[0] + dx / length * 60, tip[1] + dy / length * 60),
            (tip[0] - nx, tip[1] - ny),
            (self.base[0] - nx, self.base[1] - ny),
        ]


@dataclass
class Script:
    layout: Layout
    cards: list[Card] = field(default_factory=list)
    hands: list[Hand] = field(default_factory=list)
    matrix: np.ndarray = field(default_factory=camera)
    size: tuple[int, int] = SIZE
    markers: bool = True
    extra: dict[int, list[tuple[str, Point]]] = field(default_factory=dict)  # frame -> misreadings to add
    bump: tuple[int, np.ndarray] | None = None  # from this frame on, the camera hangs here (it was bumped)

    def matrix_at(self, index: int) -> np.ndarray:
        return self.bump[1] if self.bump is not None and index >= self.bump[0] else self.matrix

    def visible(self, t: float) -> list[tuple[str, list[Point]]]:
        hands = [p for h in self.hands if (p := h.polygon(t))]
        out = []
        for card in self.cards:
            at = card.where(t)
            if at is None:
                continue
            covered = any(cv2.pointPolygonTest(np.float32(p), at, False) >= 0 for p in hands)
            if not covered:
                out.append((card.card, card_quad(at, card.angle)))
        return out

    def frame(self, index: int) -> np.ndarray:
        t = index * 1000 / FPS
        w, h = self.size
        matrix = self.matrix_at(index)
        image = np.full((h, w, 3), (40, 70, 40), np.uint8)
        tw, th = self.layout.table
        cv2.fillPoly(
            image,
            [np.round(project(matrix, [(0, 0), (tw, 0), (tw, th), (0, th)])).astype(np.int32)],
            (60, 110, 60),
        )
        if self.markers:
            self._markers(image, matrix)
        for card in self.cards:
            at = card.where(t)
            if at is not None:
                quad = np.round(project(matrix, card_quad(at, card.angle))).astype(np.int32)
                cv2.fillPoly(image, [quad], (235, 235, 235))
                cv2.polylines(image, [quad], True, (30, 30, 160), 2)
                cx, cy = quad.mean(axis=0)
                cv2.putText(
                    image, card.card, (int(cx) - 14, int(cy) + 6), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (20, 20, 20), 2
                )
        for hand in self.hands:
            poly = hand.polygon(t)
            if poly:
                cv2.fillPoly(image, [np.round(project(matrix, poly)).astype(np.int32)], (120, 160, 210))
        stamp(image, index)
        return image

    def _markers(self, image: np.ndarray, matrix: np.ndarray) -> None:
        for marker in self.layout.markers:
            cells = marker_cells(marker.id)
            n = cells.shape[0]
            (x0, y0), size = marker.corners[0], marker.size
            quiet = [(x0 - 6, y0 - 6), (x0 + size + 6, y0 - 6), (x0 + size + 6, y0 + size + 6), (x0 - 6, y0 + size + 6)]
            cv2.fillPoly(image, [np.round(project(matrix, quiet)).astype(np.int32)], (255, 255, 255))
            step = size / n
            for r in range(n):
                for c in range(n):
                    if cells[r, c]:
                        sq = [
                            (x0 + c * step, y0 + r * step),
                            (x0 + (c + 1) * step, y0 + r * step),
                            (x0 + (c + 1) * step, y0 + (r + 1) * step),
                            (x0 + c * step, y0 + (r + 1) * step),
                        ]
                        cv2.fillPoly(image, [np.round(project(matrix, sq)).astype(np.int32)], (0, 0, 0), cv2.LINE_AA)

    def write(self, path: Path, frames: int, fourcc: str = "mp4v") -> Path:
        writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*fourcc), FPS, self.size)
        assert writer.isOpened(), f"OpenCV cannot write {path}"
        for i in range(frames):
            writer.write(self.frame(i))
        writer.release()
        return path

    def oracle(self, min_conf: float = 0.9):  # type: ignore[no-untyped-def]
        """A detector for this script's frames (reads the frame number from the pixels)."""

        def detect(image: np.ndarray) -> Detections:
            index = read_stamp(image)
            rows = []
            seen = self.visible(index * 1000 / FPS) + [(c, card_quad(p)) for c, p in self.extra.get(index, [])]
            for name, quad in seen:
                corners = project(self.matrix_at(index), quad)
                x1, y1 = corners.min(axis=0)
                x2, y2 = corners.max(axis=0)
                rows.append(
                    Detection(name, min_conf, (x1, y1, x2, y2), tuple((float(x), float(y)) for x, y in corners))
                )
            return Detections.from_records(rows)

        return detect


def stamp(image: np.ndarray, number: int) -> None:
    """Write ``number`` as BITS black/white blocks at the image's top-left (with a white frame around)."""
    image[0 : BLOCK + 8, 0 : BITS * BLOCK + 8] = 255
    for bit in range(BITS):
        if (number >> bit) & 1:
            x = 4 + bit * BLOCK
            image[4 : 4 + BLOCK, x : x + BLOCK] = 0


def read_stamp(image: np.ndarray) -> int:
    gray = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    number = 0
    for bit in range(BITS):
        x = 4 + bit * BLOCK + BLOCK // 2
        if gray[4 + BLOCK // 2, x] < 128:
            number |= 1 << bit
    return number
