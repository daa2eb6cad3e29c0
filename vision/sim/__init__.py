"""The table simulator: a game log rendered as the video a webcam over the table would take, with ground truth.

``tablecall simulate LOG.jsonl -o game.mp4`` (:mod:`vision.sim.command`) or :func:`simulate`. The parts:
:mod:`~vision.sim.tables` (what lies where, read from the referee), :mod:`~vision.sim.script` (builds the
:mod:`~vision.sim.timeline` of table actions), :mod:`~vision.sim.camera` (camera placement, light, sensor),
:mod:`~vision.sim.scene` (drawing), :mod:`~vision.sim.render` (frames, video file, ground truth).
``docs/simulator.md`` explains it.
"""

from __future__ import annotations

import threading
from pathlib import Path

from scorer.events import parse_log
from vision.cardart import data_dir
from vision.sim.render import Options, Simulation, pick_design, simulate, truth_path
from vision.sim.timeline import SimError, Timing

__all__ = [
    "DEMOS",
    "Options",
    "RenderStopped",
    "SimError",
    "Simulation",
    "Timing",
    "demo_log",
    "demo_video",
    "demo_video_made",
    "simulate",
    "truth_path",
]

DEMO_DIR = Path(__file__).resolve().parent / "demos"
#: the scripted demo games: a short Snap game with matches and a Snap Pot, a Spit round with an illegal play
#: (taken back by an undo), a Spades hand with a refused play, and the end of a Push deal.
DEMOS = ("snap", "spit", "spades", "push")


def demo_log(name: str) -> Path:
    """The path of demo ``name`` (one of :data:`DEMOS`)."""
    if name not in DEMOS:
        raise SimError(f"no demo called {name!r} (demos: {', '.join(DEMOS)})")
    return DEMO_DIR / f"{name}.jsonl"


def demo_video_made(
    name: str, folder: Path | None = None, size: tuple[int, int] = (1280, 720), fps: float = 15.0, seed: int = 0
) -> Path | None:
    """Where :func:`demo_video` keeps demo ``name``'s video, if it is rendered already (and newer than its log)."""
    out = _demo_video_path(name, folder, size, fps, seed)
    if out.exists() and truth_path(out).exists() and out.stat().st_mtime >= demo_log(name).stat().st_mtime:
        return out
    return None


def _demo_video_path(name: str, folder: Path | None, size: tuple[int, int], fps: float, seed: int) -> Path:
    return (folder or data_dir() / "sim") / f"{name}-{size[0]}x{size[1]}-{fps:g}fps-{seed}.mp4"


def demo_video(
    name: str,
    folder: Path | None = None,
    size: tuple[int, int] = (1280, 720),
    fps: float = 15.0,
    seed: int = 0,
    stop: threading.Event | None = None,
) -> Path:
    """Demo ``name`` as a video with markers and its ground truth, rendered once into ``folder`` (default
    ``data/sim/``) and reused while newer than the demo log: what a live table can play when no camera is given.
    The cards are a held-out design when one is installed, so the detector sees art it never trained on. ``stop``
    set: the rendering ends at the next frame, raising :class:`RenderStopped`, and leaves nothing half-written
    (Ctrl-C while serve rendered it killed the process inside OpenCV's writer)."""
    log = demo_log(name)
    made = demo_video_made(name, folder, size, fps, seed)
    if made is not None:
        return made
    out = _demo_video_path(name, folder, size, fps, seed)
    try:
        design = pick_design(seed, "heldout")
    except SimError:
        design = None
    options = Options(size=size, fps=fps, seed=seed, design=design, markers=True)

    def stopped(done: int, total: int) -> None:
        if stop is not None and stop.is_set():
            raise RenderStopped(f"the demo video was stopped after {done} of {total} frames")

    simulate(parse_log(log.read_text(encoding="utf-8")), out, options, progress=stopped)
    return out


class RenderStopped(SimError):
    """The rendering was asked to stop (:func:`demo_video`'s ``stop``)."""
