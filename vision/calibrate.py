"""Calibration: the table plane in the camera image, as a homography from image pixels to table millimetres.

Two ways to find it:

* **ArUco markers** (:func:`from_markers`): the four markers of ``tablecall markers`` (dictionary
  :data:`vision.zones.ARUCO_DICT`, ids 0-3) lie at the play area's corners where the layout says
  (:attr:`vision.zones.Layout.markers`); each seen marker gives four point pairs. Three markers are enough.
* **Four clicked corners** (:func:`from_corners`): the play area's corners in the camera image, clicked on the
  dashboard in the order far-left, far-right, near-right, near-left (the table's top-left, top-right,
  bottom-right, bottom-left in table coordinates).

While the table runs, :class:`DriftWatch` re-checks the calibration now and then, so a bumped camera is
noticed: with markers by where they are seen now, without markers by how far the picture has shifted.
Detection uses the OpenCV 4.7+/5 ``cv2.aruco.ArucoDetector`` API.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from vision.zones import ARUCO_DICT, Layout, Marker, Point

__all__ = [
    "Calibration",
    "CalibrationError",
    "Drift",
    "DriftWatch",
    "aruco_dictionary",
    "find_markers",
    "from_corners",
    "from_markers",
]

MIN_MARKERS = 3
MAX_ERROR_MM = 8.0  # markers that disagree more than this are not where the layout says


class CalibrationError(ValueError):
    """No calibration can be made from what was given; the message says what to do."""


def aruco_dictionary(name: str = ARUCO_DICT) -> Any:
    if not hasattr(cv2.aruco, name):
        raise CalibrationError(f"OpenCV has no ArUco dictionary {name!r}")
    return cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, name))


def _gray(image: np.ndarray) -> np.ndarray:
    if image.ndim == 2:
        return image
    return cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)


def find_markers(image: np.ndarray, dictionary: str = ARUCO_DICT) -> dict[int, np.ndarray]:
    """Every ArUco marker in ``image``: id -> its four corners (TL, TR, BR, BL as printed) in pixels."""
    detector = cv2.aruco.ArucoDetector(aruco_dictionary(dictionary), cv2.aruco.DetectorParameters())
    corners, ids, _ = detector.detectMarkers(_gray(image))
    if ids is None:
        return {}
    return {int(i): np.asarray(c, np.float64).reshape(4, 2) for i, c in zip(ids.reshape(-1), corners, strict=True)}


@dataclass(frozen=True, eq=False)
class Calibration:
    """Image pixels -> table millimetres (``homography``), for images of ``image_size`` (width, height)."""

    homography: np.ndarray
    image_size: tuple[int, int]
    method: str  # "aruco" | "corners"
    error_mm: float = 0.0
    markers: tuple[int, ...] = ()
    corners: tuple[Point, ...] = ()  # the clicked corners (image px), for editing them again
    inverse: np.ndarray = field(init=False, repr=False)

    def __post_init__(self) -> None:
        h = np.asarray(self.homography, np.float64).reshape(3, 3)
        if not np.isfinite(h).all() or abs(np.linalg.det(h)) < 1e-12 or abs(h[2, 2]) < 1e-12:
            raise CalibrationError("the calibration's homography is not invertible")
        if len(self.image_size) != 2 or min(self.image_size) <= 0:
            raise CalibrationError(
                f"the calibration's image_size must be a width and a height in pixels, not {list(self.image_size)}"
            )
        h = h / h[2, 2]
        h.setflags(write=False)
        inverse = np.linalg.inv(h)
        inverse.setflags(write=False)
        object.__setattr__(self, "homography", h)
        object.__setattr__(self, "inverse", inverse)

    def to_table(self, points: Any) -> np.ndarray:
        """Image points ``(N, 2)`` px -> table points ``(N, 2)`` mm."""
        return _apply(self.homography, points)

    def to_image(self, points: Any) -> np.ndarray:
        """Table points ``(N, 2)`` mm -> image points ``(N, 2)`` px."""
        return _apply(self.inverse, points)

    def scaled(self, size: tuple[int, int]) -> Calibration:
        """The same calibration for frames of another size (a camera that changed its resolution)."""
        if tuple(size) == tuple(self.image_size):
            return self
        sx, sy = self.image_size[0] / size[0], self.image_size[1] / size[1]
        scale = np.diag([sx, sy, 1.0])
        corners = tuple((x / sx, y / sy) for x, y in self.corners)
        return Calibration(
            self.homography @ scale, (int(size[0]), int(size[1])), self.method, self.error_mm, self.markers, corners
        )

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "method": self.method,
            "image_size": list(self.image_size),
            "homography": [[float(v) for v in row] for row in self.homography],
            "error_mm": round(float(self.error_mm), 3),
            "markers": list(self.markers),
        }
        if self.corners:
            out["corners"] = [[float(x), float(y)] for x, y in self.corners]
        return out

    @classmethod
    def from_json(cls, data: Any) -> Calibration:
        try:
            homography = np.array(data["homography"], dtype=np.float64).reshape(3, 3)
            size = (int(data["image_size"][0]), int(data["image_size"][1]))
            corners = tuple((float(x), float(y)) for x, y in data.get("corners", []))
            return cls(
                homography,
                size,
                str(data["method"]),
                float(data.get("error_mm", 0.0)),
                tuple(int(i) for i in data.get("markers", [])),
                corners,
            )
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            raise CalibrationError(
                f"the [calibration] section needs method, image_size and a 3x3 homography ({exc})"
            ) from None


def _apply(matrix: np.ndarray, points: Any) -> np.ndarray:
    pts = np.asarray(points, np.float64).reshape(-1, 2)
    if not len(pts):
        return np.zeros((0, 2))
    return np.asarray(cv2.perspectiveTransform(pts.reshape(-1, 1, 2), matrix)).reshape(-1, 2)


def _marker_pairs(seen: dict[int, np.ndarray], layout: Layout) -> tuple[list[int], np.ndarray, np.ndarray]:
    ids = [m.id for m in layout.markers if m.id in seen]
    if not ids:
        return [], np.zeros((0, 2)), np.zeros((0, 2))
    by_id = {m.id: m for m in layout.markers}
    image = np.concatenate([seen[i] for i in ids])
    table = np.array([p for i in ids for p in by_id[i].corners], np.float64)
    return ids, image, table


def from_markers(image: np.ndarray, layout: Layout, min_markers: int = MIN_MARKERS) -> Calibration:
    """Calibrate from the layout's ArUco markers seen in ``image``; raises CalibrationError saying what is wrong."""
    if not layout.markers:
        raise CalibrationError("this table's layout has no markers: click the four corners of the play area instead")
    seen = find_markers(image)
    ids, image_pts, table_pts = _marker_pairs(seen, layout)
    wanted = [m.id for m in layout.markers]
    need = min(min_markers, len(wanted))
    if len(ids) < need:
        found = ", ".join(map(str, sorted(seen))) or "none"
        missing = ", ".join(str(i) for i in wanted if i not in ids)
        raise CalibrationError(
            f"found {len(ids)} of the table's corner markers (ids seen: {found}; missing: {missing}); "
            f"{need} are needed. Is the whole play area in view, lit, and are the markers from 'tablecall markers'?"
        )
    homography, _ = cv2.findHomography(image_pts, table_pts, 0)
    if homography is None:
        raise CalibrationError("the markers give no usable table plane (are they lying flat at the corners?)")
    h, w = image.shape[:2]
    calibration = Calibration(homography, (w, h), "aruco", 0.0, tuple(ids))
    error = float(np.linalg.norm(calibration.to_table(image_pts) - table_pts, axis=1).mean())
    if error > MAX_ERROR_MM:
        printed = _printed_size(seen, layout, ids)
        if printed is not None:  # in the right corners, but printed at another size (a sheet of 80 mm markers)
            expected = layout.markers[0].size
            raise CalibrationError(
                f"the markers disagree by {error:.0f} mm: they look {printed:.0f} mm wide, and this table's layout "
                f"expects {expected:.0f} mm: print the sheet again with 'tablecall markers --size {expected:.0f}' "
                "(or at 100% scale)"
            )
        raise CalibrationError(
            f"the markers disagree by {error:.0f} mm: put markers 0-3 at the far-left, far-right, near-right and "
            "near-left corners as the printed sheet says"
        )
    return Calibration(homography, (w, h), "aruco", error, tuple(ids))


#: a marker whose side is this share off the layout's counts as printed at another size
SIZE_OFF = 0.1


def _printed_size(seen: dict[int, np.ndarray], layout: Layout, ids: list[int]) -> float | None:
    """The markers' side (mm) where they lie where the layout says (their centres agree) but are all of one other
    size than the layout's; None otherwise (too few to tell, sizes that differ, or centres that disagree)."""
    by_id = {m.id: m for m in layout.markers}
    if len(ids) < 4 or len({by_id[i].size for i in ids}) != 1:
        return None
    centres = np.array([seen[i].reshape(-1, 2).mean(axis=0) for i in ids], np.float64)
    homography, _ = cv2.findHomography(centres, np.array([by_id[i].centre for i in ids], np.float64), 0)
    if homography is None:
        return None
    sides = []
    for i in ids:
        corners = _apply(homography, seen[i])
        sides.append(float(np.linalg.norm(corners - np.roll(corners, 1, axis=0), axis=1).mean()))
    expected = by_id[ids[0]].size
    printed = float(np.median(sides))
    if abs(printed - expected) < SIZE_OFF * expected or max(sides) - min(sides) > SIZE_OFF * printed:
        return None
    image = np.concatenate([seen[i] for i in ids])  # and markers of that size, where the layout says, agree
    table = np.array([p for i in ids for p in Marker(i, by_id[i].centre, printed).corners], np.float64)
    refit, _ = cv2.findHomography(image, table, 0)
    if refit is None or float(np.linalg.norm(_apply(refit, image) - table, axis=1).mean()) > MAX_ERROR_MM:
        return None
    return printed


def from_corners(points: Sequence[Sequence[float]], layout: Layout, image_size: tuple[int, int]) -> Calibration:
    """Calibrate from the play area's four corners clicked in the image (far-left, far-right, near-right, near-left)."""
    try:
        pts = np.array(points, np.float64).reshape(4, 2)
    except ValueError:
        raise CalibrationError(f"give exactly four corners [[x, y], ...], not {points!r}") from None
    w, h = image_size
    if not np.isfinite(pts).all() or (pts < -1).any() or (pts[:, 0] > w + 1).any() or (pts[:, 1] > h + 1).any():
        raise CalibrationError(f"the corners must lie inside the {w}x{h} camera image")
    if not _is_convex(pts):
        raise CalibrationError(
            "the four corners must go round the play area: far-left, far-right, near-right, near-left"
        )
    tw, th = layout.table
    table = np.array([(0, 0), (tw, 0), (tw, th), (0, th)], np.float64)
    homography = cv2.getPerspectiveTransform(pts.astype(np.float32), table.astype(np.float32))
    return Calibration(homography, (int(w), int(h)), "corners", 0.0, (), tuple((float(x), float(y)) for x, y in pts))


def _is_convex(pts: np.ndarray) -> bool:
    """A convex quadrilateral, clockwise on screen (image y points down), with some area."""
    signs = []
    for i in range(4):
        a, b, c = pts[i], pts[(i + 1) % 4], pts[(i + 2) % 4]
        signs.append((b[0] - a[0]) * (c[1] - b[1]) - (b[1] - a[1]) * (c[0] - b[0]))
    area = 0.5 * abs(sum(pts[i][0] * pts[(i + 1) % 4][1] - pts[(i + 1) % 4][0] * pts[i][1] for i in range(4)))
    return all(s > 0 for s in signs) and area > 100


@dataclass(frozen=True)
class Drift:
    """One re-check: has the camera moved since it was calibrated? ``None``: cannot tell now."""

    moved: bool | None
    shift: float  # mm (markers) or pixels (picture shift)
    message: str
    markers: tuple[int, ...] = ()


class DriftWatch:
    """Re-checks a calibration against new frames (markers where the layout has them, else the picture)."""

    def __init__(
        self,
        calibration: Calibration,
        layout: Layout,
        reference: np.ndarray | None = None,
        tolerance_mm: float = 12.0,
        tolerance_px: float = 6.0,
    ) -> None:
        self.calibration, self.layout = calibration, layout
        self.tolerance_mm, self.tolerance_px = tolerance_mm, tolerance_px
        self._reference = None if reference is None else self._thumb(reference)

    @staticmethod
    def _thumb(image: np.ndarray) -> np.ndarray:
        small = cv2.resize(_gray(image), (320, 180), interpolation=cv2.INTER_AREA).astype(np.float32)
        return np.asarray(cv2.GaussianBlur(small, (0, 0), 1.5))

    def check(self, image: np.ndarray) -> Drift:
        if self.layout.markers and self.calibration.method == "aruco":
            return self._by_markers(image)
        return self._by_picture(image)

    def _by_markers(self, image: np.ndarray) -> Drift:
        ids, image_pts, table_pts = _marker_pairs(find_markers(image), self.layout)
        if not ids:
            return Drift(None, 0.0, "no corner marker in view: cannot re-check the calibration now")
        calibration = self.calibration.scaled((image.shape[1], image.shape[0]))
        shift = float(np.linalg.norm(calibration.to_table(image_pts) - table_pts, axis=1).max())
        if shift > self.tolerance_mm:
            return Drift(True, shift, f"the camera has moved: marker(s) {ids} are {shift:.0f} mm off", tuple(ids))
        return Drift(False, shift, "calibration holds", tuple(ids))

    def _by_picture(self, image: np.ndarray) -> Drift:
        thumb = self._thumb(image)
        if self._reference is None:
            self._reference = thumb
            return Drift(False, 0.0, "reference picture taken")
        window = cv2.createHanningWindow((thumb.shape[1], thumb.shape[0]), cv2.CV_32F)
        (dx, dy), response = cv2.phaseCorrelate(self._reference, thumb, window)
        shift = math.hypot(dx, dy) * image.shape[1] / 320
        if response < 0.05:
            return Drift(None, shift, "the picture changed too much to re-check the calibration")
        if shift > self.tolerance_px:
            return Drift(
                True, shift, f"the camera has moved: the picture shifted {shift:.0f} px; click the corners again"
            )
        return Drift(False, shift, "calibration holds")
