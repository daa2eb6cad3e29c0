"""Which zones a hand or an arm covers now: motion on the table plane, zone by zone.

A hand reaching over the table moves; the cards lying in the zones do not. Each frame is warped onto the table
plane at low resolution (``mm_per_px``), its light normalised (a flicker or a dimming changes every pixel alike,
a hand does not), and compared with the previous frame. A zone with more than ``occlusion`` of its area in
motion is frozen (:class:`vision.track.Tracker` then leaves it alone) for this frame and ``motion_hold`` more.
A card sliding in is motion too: its zone stays frozen until it lies still, which is when it should count.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.calibrate import Calibration
from vision.track import TrackSettings
from vision.zones import Layout

__all__ = ["MotionMeter"]


class MotionMeter:
    """Per-frame zone coverage by motion (see the module docstring)."""

    def __init__(self, calibration: Calibration, layout: Layout, settings: TrackSettings, mm_per_px: float = 5.0):
        self.calibration, self.layout, self.settings = calibration, layout, settings
        self.mm_per_px = mm_per_px
        w, h = layout.table
        self.size = (max(8, round(w / mm_per_px)), max(8, round(h / mm_per_px)))
        self._masks: dict[str, np.ndarray] = {}
        for zone in layout.zones:
            mask = np.zeros((self.size[1], self.size[0]), np.uint8)
            poly = np.round(np.array(zone.polygon, np.float64) / mm_per_px).astype(np.int32)
            cv2.fillPoly(mask, [poly], 1)
            self._masks[zone.name] = mask.astype(bool)
        self._previous: np.ndarray | None = None
        self._hold: dict[str, int] = {}
        self.motion: np.ndarray = np.zeros((self.size[1], self.size[0]), bool)

    def _warp(self, image: np.ndarray) -> np.ndarray:
        calibration = self.calibration.scaled((image.shape[1], image.shape[0]))
        scale = np.diag([1 / self.mm_per_px, 1 / self.mm_per_px, 1.0])
        gray = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
        plane = cv2.warpPerspective(gray, scale @ calibration.homography, self.size, flags=cv2.INTER_AREA)
        plane = cv2.GaussianBlur(plane, (5, 5), 0).astype(np.float32)
        return np.asarray(plane * (128.0 / max(float(plane.mean()), 1.0)))

    def update(self, image: np.ndarray) -> tuple[str, ...]:
        """The zones frozen for this frame (covered by motion now or ``motion_hold`` frames ago)."""
        plane = self._warp(image)
        previous, self._previous = self._previous, plane
        if previous is None:
            return ()
        self.motion = np.abs(plane - previous) > self.settings.motion_level
        frozen = []
        for name, mask in self._masks.items():
            covered = float(self.motion[mask].mean()) if mask.any() else 0.0
            if covered >= self.settings.occlusion:
                self._hold[name] = self.settings.motion_hold + 1
            if self._hold.get(name, 0) > 0:
                self._hold[name] -= 1
                frozen.append(name)
        return tuple(frozen)

    @property
    def compares(self) -> bool:
        """Whether :meth:`update` has a picture to compare the next one with (not so in a new or reset meter: it
        then finds no motion, having measured none)."""
        return self._previous is not None

    def saved(self) -> tuple[np.ndarray | None, dict[str, int], np.ndarray]:
        """What :meth:`update` changes, for :meth:`restore`."""
        return self._previous, dict(self._hold), self.motion

    def restore(self, saved: tuple[np.ndarray | None, dict[str, int], np.ndarray]) -> None:
        """Back to before the last :meth:`update` (``saved`` then): a frame the tracker did not take is not the frame
        the next one is compared with (a card that landed meanwhile was then no motion, and taken for its pile's top
        read anew: fault fuzz, session 41)."""
        self._previous, self._hold, self.motion = saved[0], dict(saved[1]), saved[2]

    def reset(self) -> None:
        """Forget the previous frame (after a gap in the video, a reconnect or a recalibration)."""
        self._previous = None
        self._hold.clear()
