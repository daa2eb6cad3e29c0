"""Classifier crops cut from simulated webcam video of training designs: indices as the live table sees them.

The rendered scenes and the face crops (:mod:`vision.dataset`, :mod:`vision.facecrops`) give the classifier index
designs by the thousand, but a webcam over a whole table shows them differently: 10-17 px tall, through a lens,
a sensor and a video codec (:mod:`vision.sim.camera`), on cards that slid in and lie in piles, rows and tricks.
On simulated video the index reader's misses are such indices (``docs/model-history.md``).  So the simulator's own
frames give crops too: game logs that are *not* the demo games (the demos are what the simulated-video tests and
``tablecall evaluate --sim`` measure) rendered with training designs only (GNOME training themes and procedural
decks, never a held-out design), and every resting face-up card's corner index that shows (``MIN_VISIBLE`` of it
uncovered, as the rendered scenes label indices, and no hand over it) cut as the run time cuts a turned detector
box (:func:`vision.crops.turned_square`, jittered as in training) from the frame the webcam delivers.

``tablecall synth OUT --sim-videos N`` writes them into ``OUT/classify/{train,val}/<CARD>/`` beside the other
classifier crops, deterministically by ``--seed`` and video number.

The face reader (:mod:`vision.facecards`) is given the same frames with ``tablecall synth OUT --face-videos N``
(into ``OUT/faces``): for every resting face-up card shown whole (``FULLY_SHOWN``, no hand over it) whose two
opposite corner indices show, the square the run time cuts around those two index boxes, labelled with the card;
and a few ``bg`` squares a frame, from pairs of shown indices that could be one card's corners
(:func:`vision.facecards.candidate_pairs`) but belong to two cards or to one side of a card.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

import cv2
import numpy as np

from scorer.events import parse_log
from vision import synth
from vision.cardart import ROOT, has_card
from vision.crops import cut, cut_turned, quad_axis, quad_box, turned_square
from vision.dataset import BACKGROUND, VAL_EVERY, count_written, scene_seed
from vision.facecards import (
    FACE_SIZE,
    FULLY_SHOWN,
    ONE_SIDE,
    Box,
    box_centre,
    candidate_pairs,
    could_pair,
    jitter,
    pair_square,
    squares_card,
)
from vision.synth import DesignPool

SIM_GAMES = ("snap", "spit", "spades", "push")  # the games the simulator lays out
CROP_SIZE = 64
FRAME_STEP_S = 1.5  # one frame in this many seconds of video gives crops
SIM_SEED_BASE = 800_000_000  # video seeds no scene or face-set job uses
FACE_SEED_BASE = 850_000_000  # the face reader's videos: other seeds again
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


Shown = tuple[int, str, np.ndarray, list[np.ndarray]]  # object, card, outline, index quads (frame pixels)


def _sampled_frames(
    log_path: Path, design: str, seed: int, rng: np.random.Generator
) -> Iterator[tuple[int, np.ndarray, np.ndarray, list[Shown]]]:
    """Every ``FRAME_STEP_S`` seconds of one simulated video (from a random first frame): the frame's number, the
    frame the webcam delivers, its owner map and its resting face-up cards of ``design``.  Nothing for a log the
    simulator cannot lay out (no cards on the table)."""
    from vision.sim import Options, SimError, Simulation

    try:
        sim = Simulation.prepare(parse_log(log_path.read_text(encoding="utf-8")), Options(seed=seed, design=design))
    except SimError:
        return
    step = max(1, round(FRAME_STEP_S * sim.options.fps))
    for index in range(int(rng.integers(step)), sim.frames, step):
        clean, owner, poses = sim.clean(index)
        cards: list[Shown] = []
        for obj, pose in poses.items():
            card = sim.timeline.tracks[obj].card
            name = card.split("/")[0] if card is not None else None
            if pose.up and name is not None and has_card(design, name):
                outline, quads = sim.scene.quads(card, pose)
                cards.append((obj, name, outline, quads))
        yield index, sim.sensor.expose(clean, index), owner, cards


def write_video_crops(folder: Path, log_path: Path, design: str, seed: int, size: int = CROP_SIZE) -> int:
    """Crops of every shown index of one simulated video into ``folder/<CARD>/``; returns how many."""
    rng = np.random.default_rng([seed, 4242])
    written = 0
    for index, frame, owner, cards in _sampled_frames(log_path, design, seed, rng):
        for obj, name, _, quads in cards:
            for k, quad in enumerate(quads):
                if not _shows(owner, quad, obj):
                    continue
                cx, cy, long_side, short_side, axis = quad_axis(quad)  # turned as the run time turns it
                crop = cut_turned(frame, turned_square((cx, cy), axis, long_side, rng, short_side=short_side), size)
                cv2.imwrite(str(folder / name / f"v{seed}_{index}_{obj}_{k}.jpg"), crop, [cv2.IMWRITE_JPEG_QUALITY, 95])
                written += 1
    return written


def write_video_faces(
    folder: Path, log_path: Path, design: str, seed: int, bg_per_frame: int = 2, size: int = FACE_SIZE
) -> int:
    """The face reader's crops of one simulated video into ``folder/<CLASS>/``; returns how many."""
    rng = np.random.default_rng([seed, 4343])
    written = 0
    for index, frame, owner, cards in _sampled_frames(log_path, design, seed, rng):
        shown: list[tuple[int, Box, float, np.ndarray]] = []  # (object, index box, the card's diagonal, centre)
        faces: list[tuple[str, Box, Box]] = []
        for obj, name, outline, quads in cards:
            diagonal = float(np.linalg.norm(outline[0] - outline[2]))
            boxes = [quad_box(q) for q in quads if _shows(owner, q, obj)]
            shown += [(obj, b, diagonal, outline.mean(axis=0)) for b in boxes]
            if len(boxes) < 2 or synth._visible(owner, outline, obj) < FULLY_SHOWN or _under_hand(owner, outline):
                continue
            a, b = max(
                ((a, b) for i, a in enumerate(boxes) for b in boxes[i + 1 :]),
                key=lambda ab: float(np.linalg.norm(box_centre(ab[0]) - box_centre(ab[1]))),
            )
            if np.linalg.norm(box_centre(a) - box_centre(b)) >= ONE_SIDE * diagonal and could_pair(a, b):
                faces.append((name, a, b))
        bg = [
            (BACKGROUND, shown[i][1], shown[j][1])
            for i, j in candidate_pairs([s[1] for s in shown])
            if _background(shown[i], shown[j])
        ]
        picked = [bg[k] for k in rng.permutation(len(bg))[:bg_per_frame]]
        for k, (label, a, b) in enumerate(faces + picked):
            crop = cut(frame, pair_square(jitter(a, rng), jitter(b, rng)), size)
            cv2.imwrite(str(folder / label / f"v{seed}_{index}_{k}.jpg"), crop, [cv2.IMWRITE_JPEG_QUALITY, 95])
            written += 1
    return written


def _background(a: tuple[int, Box, float, np.ndarray], b: tuple[int, Box, float, np.ndarray]) -> bool:
    """Whether two shown indices are a ``bg`` pair: one side's two corners of a card, or corners of two cards
    unless their square lies centred on either card as one card's would (a pile's top card and the card under
    it, a little offset: what the face reader should say there is the top card, not ``bg``, so it is left out)."""
    if a[0] == b[0]:
        return float(np.linalg.norm(box_centre(a[1]) - box_centre(b[1]))) < ONE_SIDE * a[2]
    return not any(squares_card(a[1], b[1], c[3], c[2]) for c in (a, b))


def _shows(owner: np.ndarray, quad: np.ndarray, obj: int) -> bool:
    """Whether an index shows as the scenes label one: ``MIN_VISIBLE`` of it uncovered, no hand over it."""
    return synth._visible(owner, quad, obj) >= MIN_VISIBLE and not _under_hand(owner, quad)


def _has_cards(log_path: Path) -> bool:
    """Whether the simulator puts any card of this log on the table (score-only logs put none)."""
    from vision.sim import Options, SimError, Simulation

    try:
        sim = Simulation.prepare(parse_log(log_path.read_text(encoding="utf-8")), Options(size=(320, 180)))
    except SimError:
        return False
    return bool(sim.timeline.expects)


def _under_hand(owner: np.ndarray, quad: np.ndarray) -> bool:
    from vision.sim.scene import HAND

    h, w = owner.shape
    x1, y1 = np.clip(np.floor(quad.min(axis=0)).astype(int), 0, [w - 1, h - 1])
    x2, y2 = np.clip(np.ceil(quad.max(axis=0)).astype(int) + 1, 1, [w, h])
    return bool(np.any(owner[y1:y2, x1:x2] == HAND))


def _job(args: tuple[str, Path, int, int, Path, str]) -> int:
    kind, out, seed, number, log_path, design = args
    folder = out / ("val" if number % VAL_EVERY == 0 else "train")
    if kind == "face":
        return write_video_faces(folder, log_path, design, FACE_SEED_BASE + scene_seed(seed, number))
    return write_video_crops(folder, log_path, design, SIM_SEED_BASE + scene_seed(seed, number))


def write_sim_crops(
    out: Path,
    videos: int,
    seed: int = 1,
    workers: int = 1,
    start: int = 0,
    progress: bool = True,
    pool: DesignPool | None = None,
    faces: bool = False,
) -> int:
    """Classifier crops (or with ``faces`` the face reader's) from ``videos`` simulated videos (numbers
    ``start``...) under ``out/{train,val}/<CLASS>/`` (``out`` is the ``classify`` or the ``faces`` folder) in the
    training designs of ``pool``; returns how many crops were written.  The face reader's videos are other videos
    (other seeds) than the classifier's."""
    from vision.dataset import crop_folders, default_pool

    pool = pool or default_pool()
    logs = [p for p in training_logs() if _has_cards(p)]
    if not logs:
        raise FileNotFoundError(f"no game logs of {', '.join(SIM_GAMES)} under {ROOT / 'tests' / 'golden'}")
    kind = "face" if faces else "index"
    jobs = [
        (kind, out, seed, n, logs[n % len(logs)], video_design(n // len(logs), pool.artwork, pool.proc_seeds[1]))
        for n in range(start, start + videos)
    ]
    crop_folders(out, pool, used=[job[5] for job in jobs])
    what = "simulated video face crops" if faces else "simulated video crops"
    return count_written(_job, jobs, workers, progress, what, "video")
