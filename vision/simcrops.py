"""Classifier crops cut from simulated webcam video of training designs: indices as the live table sees them.

The rendered scenes and the face crops (:mod:`vision.dataset`, :mod:`vision.facecrops`) give the classifier index
designs by the thousand, but a webcam over a whole table shows them differently: 10-17 px tall, through a lens,
a sensor and a video codec (:mod:`vision.sim.camera`), on cards that slid in and lie in piles, rows and tricks.
On simulated video the index reader's misses are such indices (``models/MODEL_CARD.md``).  So the simulator's own
frames give crops too: game logs that are *not* the demo games (the demos are what the simulated-video tests and
``tablecall evaluate --sim`` measure) rendered with training designs only (GNOME training themes and procedural
decks, never a held-out design), and every resting face-up card's corner index that shows (``MIN_VISIBLE`` of it
uncovered, as the rendered scenes label indices, and no hand over it) cut as the run time cuts a detector box
(:func:`vision.crops.crop_box`, jittered as in training) from the frame the webcam delivers.

``tablecall synth OUT --sim-videos N`` writes them into ``OUT/classify/{train,val}/<CARD>/`` beside the other
classifier crops, deterministically by ``--seed`` and video number.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np

from scorer.events import parse_log
from vision import synth
from vision.cardart import ROOT, has_card
from vision.crops import crop_box, cut
from vision.dataset import VAL_EVERY, count_written, scene_seed
from vision.synth import DesignPool

SIM_GAMES = ("snap", "spit", "spades", "push")  # the games the simulator lays out
CROP_SIZE = 64
FRAME_STEP_S = 1.5  # one frame in this many seconds of video gives crops
SIM_SEED_BASE = 800_000_000  # video seeds no scene or face-set job uses
MIN_VISIBLE = 0.6  # an index this much uncovered is labelled (vision.synth.render_scene's min_visible)


def training_logs() -> list[Path]:
    """The game logs of the simulator's games in ``tests/golden`` and ``docs/examples`` (not the demo games)."""
    demos = {p.read_bytes() for p in (ROOT / "vision" / "sim" / "demos").glob("*.jsonl")}
    found = [p for game in SIM_GAMES for p in sorted((ROOT / "tests" / "golden" / game).glob("*.jsonl"))]
    found += [ROOT / "docs" / "examples" / f"{game}.jsonl" for game in SIM_GAMES]
    return [p for p in found if p.exists() and p.read_bytes() not in demos]


def video_design(number: int, artwork: Sequence[str], proc_base: int) -> str:
    """Video ``number``'s card design: a training artwork theme for every other video, else a procedural deck."""
    if artwork and number % 2 == 0:
        return artwork[(number // 2) % len(artwork)]
    return f"proc:{proc_base + number}"


def write_video_crops(folder: Path, log_path: Path, design: str, seed: int, size: int = CROP_SIZE) -> int:
    """Crops of every shown index of one simulated video into ``folder/<CARD>/``; returns how many."""
    from vision.sim import Options, SimError, Simulation
    from vision.sim.scene import HAND

    try:
        sim = Simulation.prepare(parse_log(log_path.read_text(encoding="utf-8")), Options(seed=seed, design=design))
    except SimError:
        return 0  # a log the simulator cannot lay out (no cards on the table): nothing to cut
    rng = np.random.default_rng([seed, 4242])
    step = max(1, round(FRAME_STEP_S * sim.options.fps))
    written = 0
    for index in range(int(rng.integers(step)), sim.frames, step):
        clean, owner, poses = sim.clean(index)
        frame = sim.sensor.expose(clean, index)
        for obj, pose in poses.items():
            card = sim.timeline.tracks[obj].card
            if not pose.up or card is None:
                continue
            name = card.split("/")[0]
            if not has_card(design, name):
                continue
            _, boxes = sim.scene.quads(card, pose)
            for k, quad in enumerate(boxes):
                if synth._visible(owner, quad, obj) < MIN_VISIBLE or _under_hand(owner, quad, HAND):
                    continue
                x1, y1 = quad.min(axis=0)
                x2, y2 = quad.max(axis=0)
                crop = cut(frame, crop_box((x1, y1, x2, y2), rng), size)
                path = folder / name / f"v{seed}_{index}_{obj}_{k}.jpg"
                cv2.imwrite(str(path), crop, [cv2.IMWRITE_JPEG_QUALITY, 95])
                written += 1
    return written


def _has_cards(log_path: Path) -> bool:
    """Whether the simulator puts any card of this log on the table (score-only logs put none)."""
    from vision.sim import Options, SimError, Simulation

    try:
        sim = Simulation.prepare(parse_log(log_path.read_text(encoding="utf-8")), Options(size=(320, 180)))
    except SimError:
        return False
    return bool(sim.timeline.expects)


def _under_hand(owner: np.ndarray, quad: np.ndarray, hand: int) -> bool:
    h, w = owner.shape
    x1, y1 = np.clip(np.floor(quad.min(axis=0)).astype(int), 0, [w - 1, h - 1])
    x2, y2 = np.clip(np.ceil(quad.max(axis=0)).astype(int) + 1, 1, [w, h])
    return bool(np.any(owner[y1:y2, x1:x2] == hand))


def _job(args: tuple[Path, int, int, Path, str]) -> int:
    out, seed, number, log_path, design = args
    folder = out / ("val" if number % VAL_EVERY == 0 else "train")
    return write_video_crops(folder, log_path, design, SIM_SEED_BASE + scene_seed(seed, number))


def write_sim_crops(
    out: Path,
    videos: int,
    seed: int = 1,
    workers: int = 1,
    start: int = 0,
    progress: bool = True,
    pool: DesignPool | None = None,
) -> int:
    """Classifier crops from ``videos`` simulated videos (numbers ``start``...) under ``out/{train,val}/<CLASS>/``
    (``out`` is the ``classify`` folder) in the training designs of ``pool``; returns how many crops were written."""
    from vision.cardart import design, prepare
    from vision.dataset import CLASSES, default_pool

    pool = pool or default_pool()
    for name in pool.artwork:
        prepare(design(name))
    for split in ("train", "val"):
        for name in CLASSES:
            (out / split / name).mkdir(parents=True, exist_ok=True)
    logs = [p for p in training_logs() if _has_cards(p)]
    if not logs:
        raise FileNotFoundError(f"no game logs of {', '.join(SIM_GAMES)} under {ROOT / 'tests' / 'golden'}")
    jobs = [
        (out, seed, n, logs[n % len(logs)], video_design(n // len(logs), pool.artwork, pool.proc_seeds[1]))
        for n in range(start, start + videos)
    ]
    return count_written(_job, jobs, workers, progress, "simulated video crops", "video")
