"""The camera view's hand-over from the pipeline thread to its viewers: JPEG cached per frame, MJPEG per new frame."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

cv2 = pytest.importorskip("cv2")

from vision.capture import Frame  # noqa: E402
from vision.liveview import CameraView  # noqa: E402


class Drawing:
    """Counts the pictures drawn; each is the newest frame's image (grey if there is none)."""

    def __init__(self) -> None:
        self.view: CameraView | None = None
        self.drawn = 0

    def __call__(self) -> np.ndarray:
        self.drawn += 1
        last = self.view.last if self.view else None
        return last[0].image if last else np.full((36, 64, 3), 128, np.uint8)


def frame(index: int, level: int = 0) -> Frame:
    return Frame(np.full((48, 64, 3), level, np.uint8), index, index * 66, index * 66)


def make(ok: bool = True) -> tuple[CameraView, Drawing, dict[str, bool]]:
    draw, camera = Drawing(), {"ok": ok}
    view = CameraView(draw, lambda: camera["ok"], threading.Event())
    draw.view = view
    return view, draw, camera


def test_a_snapshot_is_drawn_once_per_frame() -> None:
    view, draw, _ = make()
    view.show((frame(0), None, None))
    first = view.snapshot()
    assert view.snapshot() is first and draw.drawn == 1  # the same frame: the cached JPEG
    view.show((frame(1, 255), None, None))
    picture = cv2.imdecode(np.frombuffer(view.snapshot(), np.uint8), cv2.IMREAD_GRAYSCALE)
    assert draw.drawn == 2 and picture.shape == (48, 64) and picture.mean() > 250  # the new frame


def test_without_a_camera_picture_the_view_is_drawn_afresh_each_time() -> None:
    view, draw, camera = make(ok=False)
    view.snapshot()
    view.show((frame(0), None, None))
    view.snapshot()
    assert draw.drawn == 2  # the placeholder says why there is no picture, which may change: never cached
    camera["ok"] = True
    view.snapshot()
    view.snapshot()
    assert draw.drawn == 3


def test_the_stream_sends_each_new_frame_once_and_ends_when_stopped() -> None:
    view, draw, _ = make()
    view.show((frame(0), None, None))
    stream = view.mjpeg(boundary="b", max_fps=1000, timeout=5.0)
    head, body = next(stream), next(stream)
    assert head.startswith(b"--b\r\nContent-Type: image/jpeg\r\nContent-Length: ")
    assert len(body) == int(head.rsplit(b" ", 1)[1]) + 6  # "\r\n\r\n" + the JPEG + "\r\n"
    threading.Timer(0.02, view.show, [(frame(1, 255), None, None)]).start()
    started = time.monotonic()
    next(stream)  # waits for the new frame (woken by it, not by the 5 s timeout), then sends it
    assert time.monotonic() - started < 2.5
    assert view.last is not None and view.last[0].index == 1 and draw.drawn == 2
    next(stream)
    view.stopped.set()
    assert list(stream) == []


def test_a_stream_waiting_for_a_new_frame_looks_again_when_the_camera_is_lost() -> None:
    """The camera is lost (or the table stops): no new frame comes, but the pipeline wakes the streams, and each
    sends the view drawn afresh (which says why there is no picture) at once, not after its wait runs out."""
    view, draw, camera = make()
    view.show((frame(0), None, None))
    stream = view.mjpeg(boundary="b", max_fps=1000, timeout=5.0)
    next(stream), next(stream)

    def lost() -> None:
        camera["ok"] = False
        view.wake()

    threading.Timer(0.05, lost).start()
    started = time.monotonic()
    next(stream)  # waits for a new frame: woken by the camera's loss, not by the 5 s timeout
    assert time.monotonic() - started < 2.5 and draw.drawn == 2
    view.stopped.set()
