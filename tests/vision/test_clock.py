"""The server's one clock (vision/clock.py): the wall clock's time at the start, then steady. NTP setting the
laptop's clock back after a sleep moved the game clocks and the camera's frame times with it (the clock audit,
session 43); the camera's frames and the games' clocks read this one, so they agree."""

from __future__ import annotations

import itertools
import time
from pathlib import Path

import pytest

import vision.clock
from tests.vision.test_capture import write_video
from vision.capture import Capture
from vision.clock import wall, wall_ms


def test_the_clock_reads_the_wall_clock_and_then_goes_on_steadily(monkeypatch: pytest.MonkeyPatch) -> None:
    assert abs(wall() - time.time()) < 1.0  # (unless the wall clock was stepped since the process started)
    before = wall_ms()
    real = time.time
    monkeypatch.setattr(time, "time", lambda: real() - 3600)  # NTP sets it back an hour
    time.sleep(0.05)
    after = wall_ms()
    assert before + 50 <= after < before + 1_000
    readings = [wall() for _ in range(1000)]
    assert all(a <= b for a, b in itertools.pairwise(readings))


def test_the_camera_s_frames_are_stamped_by_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A frame's wall_ms is the game clock's (vision.links.HubLink turns it into the game's time): the tracker
    compares frame times, and one set back after a step never took a faint card laid on a pile as played."""
    monkeypatch.setattr(vision.clock, "_WALL0", vision.clock._WALL0 - 3600)  # as if started an hour earlier
    path = write_video(tmp_path / "rt.mp4", 4, fps=20.0)
    frames = list(Capture(str(path), lossless=True, realtime=True).start().frames(timeout=2))
    assert len(frames) == 4
    assert all(abs(f.wall_ms - (time.time() - 3600) * 1000) < 5_000 for f in frames)
