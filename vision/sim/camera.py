"""The webcam: where it hangs over the table (a homography from the table plane to the image) and what its
optics and sensor add to each frame: light that drifts and flickers, vignetting, lens softness, sensor noise
and JPEG compression.

Everything is drawn from the numpy generator given at construction, and each frame's noise from a generator
seeded by the frame's number, so the same seed gives the same frames.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from vision.zones import TABLE_MM, Point

__all__ = ["Camera", "Sensor", "place_camera"]

MARGIN_MM = 45.0  # the play area is framed with this much table round it


@dataclass(frozen=True)
class Camera:
    """A pinhole camera over the table: ``matrix`` maps table mm (x, y, 1) to image pixels."""

    size: tuple[int, int]
    matrix: np.ndarray
    tilt: float  # degrees from looking straight down
    roll: float

    def project(self, points: Any) -> np.ndarray:
        """Table points (N x 2, mm) -> image points (N x 2, px)."""
        pts = np.asarray(points, np.float64).reshape(-1, 1, 2)
        return cv2.perspectiveTransform(pts, self.matrix).reshape(-1, 2)

    def unproject(self, points: Any) -> np.ndarray:
        """Image points (N x 2, px) -> table points (mm)."""
        pts = np.asarray(points, np.float64).reshape(-1, 1, 2)
        return cv2.perspectiveTransform(pts, np.linalg.inv(self.matrix)).reshape(-1, 2)

    def scale_at(self, point: Point) -> float:
        """Image pixels per table millimetre near ``point``."""
        x, y = point
        a, b, c = self.project([(x, y), (x + 10, y), (x, y + 10)])
        return float(math.sqrt(np.linalg.norm(b - a) * np.linalg.norm(c - a)) / 10)

    def to_json(self) -> dict[str, Any]:
        return {
            "size": list(self.size),
            "homography": [[round(float(v), 9) for v in row] for row in self.matrix],
            "tilt_deg": round(self.tilt, 2),
            "roll_deg": round(self.roll, 2),
        }


def _look_at(position: np.ndarray, target: np.ndarray, roll: float) -> np.ndarray:
    """World -> camera rotation. World: x right, y towards seat 0, z down into the table (right-handed)."""
    forward = target - position
    forward /= np.linalg.norm(forward)
    down = np.array([0.0, 1.0, 0.0]) - forward[1] * forward  # image "down" leans towards the camera-side seat
    down /= np.linalg.norm(down)
    right = np.cross(down, forward)
    r = math.radians(roll)
    right, down = math.cos(r) * right + math.sin(r) * down, -math.sin(r) * right + math.cos(r) * down
    return np.stack([right, down, forward])


def place_camera(
    rng: np.random.Generator,
    size: tuple[int, int],
    table: tuple[float, float] = TABLE_MM,
    tilt: float | None = None,
) -> Camera:
    """A camera above the table, on the camera-side seat's edge, tilted ``tilt`` degrees (default 8-22)."""
    w, h = size
    tilt = float(rng.uniform(8, 22)) if tilt is None else tilt
    roll = float(rng.normal(0, 1.5))
    height = float(rng.uniform(900, 1300))
    target = np.array([table[0] / 2 + rng.normal(0, 15), table[1] / 2 + rng.normal(0, 10), 0.0])
    sideways = float(rng.normal(0, 40))
    position = target + np.array([sideways, height * math.tan(math.radians(tilt)), -height])
    rotation = _look_at(position, target, roll)
    extrinsic = np.column_stack([rotation[:, 0], rotation[:, 1], -rotation @ position])
    m = MARGIN_MM
    corners = np.array([[-m, -m, 1], [table[0] + m, -m, 1], [table[0] + m, table[1] + m, 1], [-m, table[1] + m, 1]])
    seen = (extrinsic @ corners.T).T
    seen = seen[:, :2] / seen[:, 2:]
    span = seen.max(axis=0) - seen.min(axis=0)
    focal = min(w / span[0], h / span[1])
    mid = (seen.max(axis=0) + seen.min(axis=0)) / 2
    intrinsic = np.array([[focal, 0, w / 2 - focal * mid[0]], [0, focal, h / 2 - focal * mid[1]], [0, 0, 1]])
    matrix = intrinsic @ extrinsic
    return Camera((w, h), matrix / matrix[2, 2], tilt, roll)


class Sensor:
    """Light, optics and sensor for one video: ``expose(frame, index)`` turns a clean BGR frame into a webcam's.

    Light changes slowly (a drifting brightness and a soft bright patch that wanders) and flickers (a mains
    beat of a few per cent, and now and then a short dip); the lens vignettes and softens; the sensor adds
    noise; the camera compresses each frame as JPEG (``jpeg``: the quality; 0 picks one from 72 to 92 per
    video; None: no compression).
    """

    def __init__(self, rng: np.random.Generator, size: tuple[int, int], fps: float, jpeg: int | None = 0) -> None:
        w, h = size
        self.size, self.fps, self.seed = size, fps, int(rng.integers(1 << 31))
        self.softness = float(rng.uniform(0.55, 0.95)) * w / 1280
        self.jpeg = int(rng.integers(72, 93)) if jpeg == 0 else jpeg
        sigma = float(rng.uniform(1.5, 3.5))
        pad = 16
        bank = rng.normal(0, sigma, (h + pad, w + pad, 3)).astype(np.float32)
        self._plus = np.clip(bank, 0, 255).astype(np.uint8)
        self._minus = np.clip(-bank, 0, 255).astype(np.uint8)
        self._pad = pad
        gw, gh = max(4, w // 16), max(4, h // 16)
        yy, xx = np.mgrid[0:gh, 0:gw].astype(np.float32)
        self._xx, self._yy = xx / gw, yy / gh
        self._vignette = 1 - float(rng.uniform(0.1, 0.3)) * ((self._xx - 0.5) ** 2 + (self._yy - 0.5) ** 2) * 2
        self._cast = (1 + rng.normal(0, 0.04, 3)).astype(np.float32)
        self._base = float(rng.uniform(0.85, 1.08))
        self._drift = [(float(rng.uniform(0.02, 0.06)), float(rng.uniform(8, 30)), float(rng.uniform(0, 6.3)))
                       for _ in range(2)]  # fmt: skip
        self._patch = (float(rng.uniform(0.05, 0.25)), float(rng.uniform(0.15, 0.35)), rng.uniform(0, 6.3, 4))
        self._beat = (float(rng.uniform(0.005, 0.025)), float(rng.uniform(0.3, 2.0)))
        self._dip_rate = float(rng.uniform(0.05, 0.25))  # dips per second

    def gain(self, index: int) -> np.ndarray:
        """The light at frame ``index`` as a small float field (multiply, per BGR channel)."""
        t = index / self.fps
        level = self._base * (1 + sum(a * math.sin(2 * math.pi * t / period + p) for a, period, p in self._drift))
        amp, freq = self._beat
        level *= 1 + amp * math.sin(2 * math.pi * freq * t)
        dip = np.random.default_rng([self.seed, index, 1]).random() < self._dip_rate / self.fps
        level *= 0.9 if dip else 1.0
        strength, radius, phase = self._patch
        cx = 0.5 + 0.35 * math.sin(t / 23 + phase[0]) * math.cos(t / 37 + phase[1])
        cy = 0.5 + 0.35 * math.sin(t / 29 + phase[2]) * math.cos(t / 41 + phase[3])
        patch = strength * np.exp(-((self._xx - cx) ** 2 + (self._yy - cy) ** 2) / (2 * radius * radius))
        field = level * (self._vignette + patch)
        return np.asarray(field[:, :, None] * self._cast, np.float32)

    def expose(self, frame: np.ndarray, index: int) -> np.ndarray:
        """A clean BGR uint8 frame as the webcam delivers it (a new array)."""
        w, h = self.size
        gain = cv2.resize(
            np.clip(self.gain(index) * 128, 0, 255).astype(np.uint8), (w, h), interpolation=cv2.INTER_LINEAR
        )
        out = cv2.multiply(frame, gain, scale=1 / 128)
        out = cv2.GaussianBlur(out, (0, 0), self.softness)
        dx, dy, ex, ey = np.random.default_rng([self.seed, index, 2]).integers(0, self._pad, 4)
        out = cv2.add(out, self._plus[dy : dy + h, dx : dx + w])
        out = cv2.subtract(out, self._minus[ey : ey + h, ex : ex + w])
        if self.jpeg:
            ok, data = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, self.jpeg])
            decoded = cv2.imdecode(data, cv2.IMREAD_COLOR) if ok else None
            if decoded is not None:
                out = decoded
        return np.asarray(out)
