"""The server's one clock (vision/clock.py): the wall clock's time at the start, then steady. NTP setting the
laptop's clock back after a sleep moved the game clocks and the camera's frame times with it (the clock audit,
session 43); the camera's frames and the games' clocks read this one, so they agree."""

from __future__ import annotations

import importlib.util
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


class LaptopClocks:
    """A laptop's clocks, in seconds: ``CLOCK_BOOTTIME`` counts time asleep, ``CLOCK_MONOTONIC`` does not (Linux),
    the wall clock goes on through a sleep. This one slept 1000 s between its boot and tablecall's start."""

    BOOTTIME, MONOTONIC = 7, 1  # Linux's clock ids

    def __init__(self) -> None:
        self.monotonic, self.wall = 5_000.0, 1_800_000_000.0
        self.boot = self.monotonic + 1_000.0

    def gettime(self, clock_id: int) -> float:
        return self.boot if clock_id == self.BOOTTIME else self.monotonic

    def run(self, seconds: float, asleep: bool = False) -> None:
        self.boot, self.wall = self.boot + seconds, self.wall + seconds
        if not asleep:
            self.monotonic += seconds


def test_the_clock_counts_a_laptop_s_sleep_and_not_the_sleeps_before_it_started(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The phones' clocks go on through a laptop's sleep: so does this one, and it says how long the machine slept
    since it started. It reads the steady clock that counts sleep (``CLOCK_BOOTTIME``), not ``CLOCK_MONOTONIC`` (an
    hour's sleep held every time stamped after it an hour behind the phones and the wall clock, and no sleep was
    ever said), and takes its start from that same clock (started on ``CLOCK_MONOTONIC``, every time was ahead
    by however long the laptop had slept since it booted)."""
    clocks = LaptopClocks()
    monkeypatch.setattr(time, "CLOCK_BOOTTIME", LaptopClocks.BOOTTIME, raising=False)
    monkeypatch.setattr(time, "CLOCK_MONOTONIC", LaptopClocks.MONOTONIC, raising=False)
    monkeypatch.setattr(time, "clock_gettime", clocks.gettime)
    monkeypatch.setattr(time, "monotonic", lambda: clocks.monotonic)
    monkeypatch.setattr(time, "time", lambda: clocks.wall)
    spec = importlib.util.spec_from_file_location("fresh_clock", vision.clock.__file__)
    assert spec is not None and spec.loader is not None
    fresh = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(fresh)  # the server starts
    assert (fresh.wall(), fresh.asleep_ms()) == (clocks.wall, 0)
    clocks.run(10.0)
    assert (fresh.wall(), fresh.asleep_ms()) == (clocks.wall, 0)
    clocks.run(3_600.0, asleep=True)  # the lid is shut for an hour
    clocks.run(2.5)
    assert (fresh.wall(), fresh.wall_ms(), fresh.asleep_ms()) == (clocks.wall, int(clocks.wall * 1000), 3_600_000)
