"""What the camera tests share: small videos written by OpenCV, waiting for the live table, a camera server."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import cv2
import numpy as np

T = TypeVar("T")

#: the play area's corners in :func:`write_video`'s picture (far-left, far-right, near-right, near-left)
CORNERS = [[40, 30], [280, 30], [300, 215], [20, 215]]


def write_video(path: Path, seconds: float = 4.0, fps: float = 5.0, size: tuple[int, int] = (320, 240)) -> Path:
    """A still table seen from above: a textured cloth (so the drift check has something to hold on to) and
    a lighter play area whose corners are :data:`CORNERS`. Written as MPEG-4 (fourcc ``mp4v``)."""
    w, h = size
    rng = np.random.default_rng(7)
    cloth = cv2.GaussianBlur(rng.integers(30, 120, (h, w, 3), dtype=np.uint8), (5, 5), 0)
    scale = np.array([w / 320, h / 240])
    area = (np.array(CORNERS, np.float64) * scale).astype(np.int32)
    cv2.fillConvexPoly(cloth, area, (70, 120, 60))
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"mp4v"), fps, (w, h))
    assert writer.isOpened(), "OpenCV cannot write MPEG-4 here"
    for _ in range(round(seconds * fps)):
        writer.write(cloth)
    writer.release()
    assert path.stat().st_size > 0
    return path


def wait_for(check: Callable[[], T | None], seconds: float = 15.0, what: str = "the camera") -> T:
    """Poll ``check`` until it returns something true; fail with ``what`` after ``seconds``."""
    ends = time.monotonic() + seconds
    while True:
        result = check()
        if result:
            return result
        if time.monotonic() > ends:
            raise AssertionError(f"waited {seconds} s for {what}")
        time.sleep(0.05)


def live_status(client: Any, game_id: str) -> dict[str, Any]:
    response = client.get(f"/api/games/{game_id}/camera")
    assert response.status_code == 200, response.get_json()
    status: dict[str, Any] = response.get_json()
    return status


def frames_seen(client: Any, game_id: str) -> dict[str, Any] | None:
    """The camera status once the live table has had a picture (else None)."""
    status = live_status(client, game_id)
    live = status.get("live")
    return status if live and live["frame"] is not None and status["image"]["size"] else None
