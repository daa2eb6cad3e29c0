"""The live table's camera view: the newest frame the pipeline read, with what it saw in it, handed from the
pipeline's thread to the web requests that show it, as one JPEG (cached per frame) or a multipart MJPEG stream.

:class:`vision.live.LiveTable` publishes each frame (:meth:`CameraView.show`) and draws the view
(``LiveTable.annotated``); any number of dashboards read it at once.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator

import cv2
import numpy as np

from vision.capture import Frame
from vision.detections import Detections
from vision.track import Update

__all__ = ["CameraView", "Shown"]

#: a frame with the detections and the tracker's update it gave (None where it was not read)
Shown = tuple[Frame, Detections | None, Update | None]


class CameraView:
    """The newest :data:`Shown` frame, for the camera view. ``draw()`` pictures it (or why there is none),
    ``picture_ok()`` says whether the camera gives pictures now, and ``stopped`` ends every stream."""

    def __init__(self, draw: Callable[[], np.ndarray], picture_ok: Callable[[], bool], stopped: threading.Event):
        self.draw, self.picture_ok, self.stopped = draw, picture_ok, stopped
        self.last: Shown | None = None
        self._ready = threading.Condition()
        self._jpeg: tuple[int, bytes] | None = None

    def show(self, shown: Shown) -> None:
        """A new frame (the pipeline's thread): streams waiting for one send it."""
        with self._ready:
            self.last = shown
            self._ready.notify_all()

    def wake(self) -> None:
        """No new frame, but streams should look again (the camera was lost, or the table stopped)."""
        with self._ready:
            self._ready.notify_all()

    def snapshot(self, quality: int = 80) -> bytes:
        """The camera view as one JPEG (cached per frame)."""
        last = self.last
        key = last[0].index if last and self.picture_ok() else -1
        cached = self._jpeg
        if cached is not None and cached[0] == key and key >= 0:
            return cached[1]
        ok, data = cv2.imencode(".jpg", self.draw(), [cv2.IMWRITE_JPEG_QUALITY, quality])
        if not ok:  # pragma: no cover - OpenCV always encodes a BGR uint8 image
            raise RuntimeError("could not encode the camera view as JPEG")
        self._jpeg = (key, data.tobytes())
        return self._jpeg[1]

    def mjpeg(self, boundary: str = "frame", max_fps: float = 10.0, timeout: float = 2.0) -> Iterator[bytes]:
        """Multipart JPEG chunks for ``multipart/x-mixed-replace; boundary=<boundary>``, until ``stopped``."""
        shown = -2
        while not self.stopped.is_set():
            started = time.monotonic()
            with self._ready:
                last = self.last
                if last is not None and last[0].index == shown and self.picture_ok():
                    self._ready.wait(timeout)
            last = self.last
            shown = last[0].index if last else -1
            jpeg = self.snapshot()
            yield (
                b"--"
                + boundary.encode()
                + b"\r\nContent-Type: image/jpeg\r\nContent-Length: "
                + str(len(jpeg)).encode()
            )
            yield b"\r\n\r\n" + jpeg + b"\r\n"
            rest = 1 / max_fps - (time.monotonic() - started)
            if rest > 0:
                self.stopped.wait(rest)
