"""A game log as a webcam video, with the ground truth beside it.

:func:`simulate` renders a log into a video file (``.mp4``: MPEG-4 Part 2 ``mp4v``, the codec this OpenCV
build writes everywhere; ``.avi``: Motion JPEG) and writes ``<video>.truth.json``: for every event its time in
the video and, for each card it puts face up on the table, the first time the card lies still in its zone
with nothing over it but the cards of its own meld (at least one corner index wholly in view), with its zone,
frame number and outline in pixels.

:class:`Simulation` is the same without files: ``frame(i)`` renders any frame (the same seed gives the same
pixels), ``truth()`` measures the ground truth, for tests and for the live pipeline's end-to-end checks.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from scorer.events import GameLog
from vision import synth
from vision.cardart import ArtError, designs, face
from vision.sim.camera import Camera, Sensor, place_camera
from vision.sim.scene import HAND, Scene
from vision.sim.script import build
from vision.sim.timeline import Expect, Pose, SimError, Timeline, Timing
from vision.zones import Layout, default_layout

__all__ = ["TRUTH_FORMAT", "Options", "Simulation", "pick_design", "simulate", "truth_path"]

TRUTH_FORMAT = "tablecall-sim-truth"
INDEX_SHOWN = 0.95  # share of a corner index's pixels that must be in view


@dataclass(frozen=True)
class Options:
    """What to render: frame size, frame rate, seed, card design (or the split to pick one from), markers."""

    size: tuple[int, int] = (1280, 720)
    fps: float = 15.0
    seed: int = 0
    design: str | None = None
    split: str | None = None  # pick the design among "train" or "heldout" designs (None: any)
    markers: bool = False
    duration: float | None = None  # seconds; None: as long as the game takes
    layout: Layout | None = None
    jpeg: bool = True
    timing: Timing | None = None  # how long things take (None: the default ``Timing``)


def pick_design(seed: int, split: str | None = None) -> str:
    """An installed artwork design, chosen by ``seed`` among ``split``'s (a procedural deck if none is installed).

    GNOME's and npm's designs only: the KDE decks, added later for training scenes, would change the design each
    seed has given videos, tests and benchmarks since the simulator was written."""
    candidates = list(designs(split, sources=("gnome", "npm")))
    rng = np.random.default_rng([seed, 3])
    for index in rng.permutation(len(candidates)):
        try:
            face(candidates[int(index)].name, "AS")
        except ArtError:
            continue
        return candidates[int(index)].name
    if split == "heldout":
        raise SimError("no held-out card design is installed (./dev vision renders them into data/faces)")
    return f"proc:{int(rng.integers(100_000))}"


def truth_path(video: Path) -> Path:
    """Where the ground truth of ``video`` goes: ``game.mp4`` -> ``game.truth.json``."""
    return video.with_name(video.stem + ".truth.json")


@dataclass
class Simulation:
    """A log ready to render: timeline, camera, scene and sensor, all fixed by the options' seed."""

    log: GameLog
    options: Options
    timeline: Timeline
    camera: Camera
    scene: Scene
    sensor: Sensor
    design: str
    frames: int
    _truth: dict[int, dict[str, Any]] = field(default_factory=dict)

    @classmethod
    def prepare(cls, log: GameLog, options: Options = Options()) -> Simulation:
        w, h = options.size
        if w < 64 or h < 64 or w % 2 or h % 2:
            raise SimError(f"the frame size must be even and at least 64x64, not {w}x{h}")
        if not 1 <= options.fps <= 120:
            raise SimError(f"the frame rate must be from 1 to 120, not {options.fps}")
        layout = options.layout or default_layout(log.header.game, len(log.header.players))
        duration_ms = None if options.duration is None else options.duration * 1000
        timeline = build(log, layout, options.seed, options.timing, duration=duration_ms)
        design = options.design or pick_design(options.seed, options.split)
        try:
            face(design, "AS")
        except ArtError as exc:
            raise SimError(str(exc)) from None
        rng = np.random.default_rng([options.seed, 1])
        camera = place_camera(rng, options.size)
        scene = Scene(timeline, camera, design, options.seed, options.markers)
        sensor = Sensor(rng, options.size, options.fps, jpeg=0 if options.jpeg else None)
        length = duration_ms if duration_ms is not None else timeline.duration
        frames = max(1, round(length / 1000 * options.fps))
        return cls(log, options, timeline, camera, scene, sensor, design, frames)

    def time(self, index: int) -> float:
        """Frame ``index``'s time in ms."""
        return index * 1000 / self.options.fps

    def clean(self, index: int) -> tuple[np.ndarray, np.ndarray, dict[int, Pose]]:
        """Frame ``index`` before the camera (BGR), its owner map and the resting cards' poses."""
        return self.scene.render(self.time(index))

    def frame(self, index: int) -> np.ndarray:
        """Frame ``index`` as the webcam delivers it (BGR uint8); measures the ground truth on the way."""
        clean, owner, poses = self.clean(index)
        self._measure(index, owner, poses)
        return self.sensor.expose(clean, index)

    def iter_frames(self) -> Iterator[np.ndarray]:
        for index in range(self.frames):
            yield self.frame(index)

    def measure(self) -> dict[str, Any]:
        """The ground truth without making the video: every clean frame drawn and measured, none exposed."""
        for index in range(self.frames):
            _, owner, poses = self.clean(index)
            self._measure(index, owner, poses)
        return self.truth()

    # ground truth --------------------------------------------------------------------------------------
    def _measure(self, index: int, owner: np.ndarray, poses: dict[int, Pose]) -> None:
        t = self.time(index)
        for number, expect in enumerate(self.timeline.expects):
            if number in self._truth or expect.landed > t or expect.obj not in poses:
                continue
            pose = poses[expect.obj]
            if not self.timeline.layout.zone(expect.zone).contains(pose.centre):
                continue
            outline, boxes = self.scene.quads(expect.card, pose)
            if not _clear(owner, outline, expect.obj, boxes):
                continue
            x1, y1 = outline.min(axis=0)
            x2, y2 = outline.max(axis=0)
            self._truth[number] = {
                "card": expect.card,
                "zone": expect.zone,
                "t_ms": round(t),
                "frame": index,
                "landed_ms": round(expect.landed),
                "box": [round(float(v), 1) for v in (x1, y1, x2, y2)],
                "quad": [[round(float(x), 1), round(float(y), 1)] for x, y in outline],
            }

    def truth(self) -> dict[str, Any]:
        """The ground truth (render every frame first; cards never seen have ``t_ms`` None)."""
        w, h = self.options.size
        cards: dict[int, list[dict[str, Any]]] = {}
        for number, expect in enumerate(self.timeline.expects):
            found = self._truth.get(number) or _unseen(expect)
            cards.setdefault(expect.seq, []).append(found)
        events = [{**e, "cards": cards.get(int(str(e["seq"])), [])} for e in self.timeline.events]
        return {
            "format": TRUTH_FORMAT,
            "version": 1,
            "game": self.log.header.game,
            "players": list(self.log.header.players),
            "seed": self.options.seed,
            "design": self.design,
            "size": [w, h],
            "fps": self.options.fps,
            "frames": self.frames,
            "duration_ms": round(self.frames * 1000 / self.options.fps),
            "markers": self.options.markers,
            "camera": self.camera.to_json(),
            "layout": self.timeline.layout.to_json(),
            "events": events,
        }


def _unseen(expect: Expect) -> dict[str, Any]:
    return {"card": expect.card, "zone": expect.zone, "t_ms": None, "frame": None, "landed_ms": round(expect.landed)}


def _clear(owner: np.ndarray, outline: np.ndarray, ident: int, boxes: list[np.ndarray]) -> bool:
    """No hand over the card, the card inside the frame, and one corner index (or the whole card) in view."""
    h, w = owner.shape
    if outline.min() < 0 or outline[:, 0].max() >= w or outline[:, 1].max() >= h:
        return False
    x1, y1 = np.floor(outline.min(axis=0)).astype(int)
    x2, y2 = np.ceil(outline.max(axis=0)).astype(int) + 1
    mask = np.zeros((y2 - y1, x2 - x1), np.uint8)
    cv2.fillPoly(mask, [np.round(outline - [x1, y1]).astype(np.int32)], 1)
    if np.any(owner[y1:y2, x1:x2][mask > 0] == HAND):
        return False
    if boxes:
        return max(synth._visible(owner, box, ident) for box in boxes) >= INDEX_SHOWN
    return synth._visible(owner, outline, ident) >= INDEX_SHOWN


def simulate(
    log: GameLog, out: Path, options: Options = Options(), progress: Callable[[int, int], None] | None = None
) -> dict[str, Any]:
    """Render ``log`` into the video ``out`` and write its ground truth beside it; returns the ground truth."""
    sim = Simulation.prepare(log, options)
    codec = {".mp4": "mp4v", ".m4v": "mp4v", ".avi": "MJPG"}.get(out.suffix.lower())
    if codec is None:
        raise SimError(f"{out.name}: the video must be .mp4 or .avi")
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise SimError(f"cannot make the folder {out.parent} for {out.name} ({exc.strerror or exc})") from None
    if not os.access(out.parent, os.W_OK):
        raise SimError(f"cannot write {out}: the folder {out.parent} is not writable")
    # the video and its truth are written under other names and renamed at the end, so an interrupted run (Ctrl-C,
    # a full disk) never leaves a cut-off video beside an earlier run's truth; names of this process's own, so two
    # processes rendering one video at once (two demos started together, a test run's two workers) each write their
    # own copy and the second renames an identical one into place, rather than both writing one file and the second
    # finding it renamed away
    part = out.with_name(f"{out.stem}.part{os.getpid()}-{threading.get_ident()}{out.suffix}")
    writer = cv2.VideoWriter(str(part), cv2.VideoWriter.fourcc(*codec), options.fps, options.size)
    if not writer.isOpened():
        raise SimError(f"cannot write {out} with the {codec} codec (is OpenCV built with FFmpeg?)")
    try:
        try:
            for index, frame in enumerate(sim.iter_frames()):
                writer.write(frame)
                if progress:
                    progress(index + 1, sim.frames)
        finally:
            writer.release()
        truth = sim.truth()
        truth["video"] = out.name
        truth_part = truth_path(part)
        truth_part.write_text(json.dumps(truth, indent=1) + "\n", encoding="utf-8")
        truth_path(out).unlink(missing_ok=True)  # never the new video beside the old truth, even for a moment
        os.replace(part, out)
        os.replace(truth_part, truth_path(out))
    finally:
        part.unlink(missing_ok=True)
        truth_path(part).unlink(missing_ok=True)
    return truth
