"""Reading a whole card from two of its corner indices: where the indices are too small to read, the face is not.

A webcam over a whole table shows indices of 10-17 px, where a 6 and an 8, a 10 and a Q, or a blue diamond and a
black spade look alike; the same card's face, 90-120 px tall, shows its pips plainly (count and shape).  Two index
boxes of one card at opposite corners give the card's centre (their midpoint) and its size (their distance) whatever
the design, so no card outline is needed: for every pair of index boxes that could be opposite corners of one card
(:func:`candidate_pairs`, similar sizes, 1.5-9 index sizes apart) the run time cuts a square around the midpoint
(:func:`pair_square`, 1.3 times their distance: the whole card at any rotation) and a third network reads it: one of
the 53 faces when a whole card lies centred in it, ``bg`` for anything else (two indices of different cards, two
corners of one side, a card mostly covered).

Training crops (``tablecall synth --face-cards``): whole faces of the training designs on table patches, at any
angle, on top of and under other cards, the square cut exactly as the run time cuts it from jittered index
centres, then degraded like a webcam frame (shrunk to 36-192 px, blur, light, noise, JPEG); and pairs from whole
rendered scenes, which give the ``bg`` crops the run time meets (fans, rows, piles) and more faces.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np

from vision.cardart import CARDS, Face, face, has_card
from vision.crops import cut
from vision.dataset import (
    BACKGROUND,
    CLASSES,
    VAL_EVERY,
    count_written,
    crop_folders,
    default_pool,
    drawn_artwork,
    face_design,
    scene_seed,
)
from vision.facecrops import degrade
from vision.synth import DesignPool, Scene, render_scene
from vision.textures import table_texture

FACE_SIZE = 96  # the face reader's input side
FACE_MARGIN = 1.3  # the square's side in distances between the two index centres
#: centre distance of two candidate indices, in the larger index size (see pair_corners): from 1.5, since a jumbo
#: index's card (rank and suit 38 % of its height) has its opposite corners 1.8 index sizes apart (session 18)
PAIR_REACH = (1.5, 9.0)
SIZE_RATIO = 1.7  # two indices of one card have about the same box size
FULLY_SHOWN = 0.85  # a scene's card counts as a face to read when this share of it is uncovered
ONE_SIDE = 0.6  # two indices of one card closer than this many card diagonals are one side's corners, not opposite

Box = tuple[float, float, float, float]


def box_centre(box: Sequence[float]) -> np.ndarray:
    """The centre of an ``(x1, y1, x2, y2)`` box."""
    return np.array([(box[0] + box[2]) / 2, (box[1] + box[3]) / 2], np.float64)


def _size(box: Sequence[float]) -> float:
    return float(max(box[2] - box[0], box[3] - box[1]))


def could_pair(a: Sequence[float], b: Sequence[float]) -> bool:
    """Whether index boxes ``a`` and ``b`` could be opposite corners of one card."""
    sa, sb = _size(a), _size(b)
    if min(sa, sb) <= 0 or max(sa, sb) / min(sa, sb) > SIZE_RATIO:
        return False
    d = float(np.linalg.norm(box_centre(a) - box_centre(b)))
    return PAIR_REACH[0] * max(sa, sb) <= d <= PAIR_REACH[1] * max(sa, sb)


def candidate_pairs(boxes: Sequence[Sequence[float]]) -> list[tuple[int, int]]:
    """Every pair ``(i, j)``, ``i < j``, of boxes that could be one card's opposite corners (:func:`could_pair`
    for all pairs at once: a webcam frame of a full table has a few thousand pairs of indices)."""
    b = np.asarray(boxes, np.float64).reshape(-1, 4)
    size = np.maximum(b[:, 2] - b[:, 0], b[:, 3] - b[:, 1])
    centre = np.stack([(b[:, 0] + b[:, 2]) / 2, (b[:, 1] + b[:, 3]) / 2], axis=1)
    i, j = np.triu_indices(len(b), k=1)
    small, large = np.minimum(size[i], size[j]), np.maximum(size[i], size[j])
    d = np.sqrt(((centre[i] - centre[j]) ** 2).sum(axis=1))
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):  # a ratio could_pair takes as too big
        ok = (small > 0) & (large / np.where(small > 0, small, 1) <= SIZE_RATIO)
    ok &= (PAIR_REACH[0] * large <= d) & (d <= PAIR_REACH[1] * large)
    return [(int(a), int(c)) for a, c in zip(i[ok], j[ok], strict=True)]


def pair_square(a: Sequence[float], b: Sequence[float], margin: float = FACE_MARGIN) -> Box:
    """The square the face reader sees for index boxes ``a`` and ``b``: around their midpoint, ``margin`` times
    the distance between their centres."""
    ca, cb = box_centre(a), box_centre(b)
    mid, half = (ca + cb) / 2, margin * float(np.linalg.norm(ca - cb)) / 2
    return float(mid[0] - half), float(mid[1] - half), float(mid[0] + half), float(mid[1] + half)


# -- training crops from faces --------------------------------------------------------------------
def _opposite_centres(f: Face, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Centres of two opposite corner indices of ``f`` (a face whose second index was not found has it where the
    first one turned half round lies: cards are printed point-symmetric)."""
    centres = [box_centre(b) for b in f.indices]
    first = centres[int(rng.integers(len(centres)))]
    h, w = f.image.shape[:2]
    farthest = max(centres, key=lambda c: float(np.linalg.norm(c - first)))
    if np.linalg.norm(farthest - first) < 0.5 * h:
        farthest = np.array([w, h], np.float64) - first
    return first, farthest


def _paste(canvas: np.ndarray, rgba: np.ndarray, m: np.ndarray) -> None:
    size = canvas.shape[0]
    layer = cv2.warpAffine(rgba, m, (size, size), flags=cv2.INTER_AREA, borderValue=(0, 0, 0, 0))
    alpha = layer[:, :, 3:4].astype(np.float32) / 255
    canvas[:] = layer[:, :, :3] * alpha + canvas * (1 - alpha)


def _placed(m: np.ndarray, f: Face, angle: float, offset: np.ndarray) -> np.ndarray:
    """``m`` (face -> crop) for another face turned by ``angle`` about the target's centre and moved by
    ``offset`` (face pixels)."""
    h, w = f.image.shape[:2]
    turn = cv2.getRotationMatrix2D((w / 2, h / 2), angle, 1.0)
    turn[:, 2] += offset
    return np.vstack([m, [0, 0, 1]])[:2] @ np.vstack([turn, [0, 0, 1]])


def face_card_crop(
    f: Face,
    rng: np.random.Generator,
    others: Sequence[Face] = (),
    table: np.ndarray | None = None,
    size: int = FACE_SIZE,
) -> np.ndarray:
    """One degraded RGB square of face ``f`` lying on the table, cut as the run time cuts it: around the midpoint
    of two opposite index centres (jittered like detector boxes), ``FACE_MARGIN`` times their distance wide, at
    any angle; cards of ``others`` lie under it (a pile, a neighbour) or over its edge."""
    work = size * 2
    if table is None or min(table.shape[:2]) < work:
        table = table_texture(rng, work, work)
    y, x = (int(rng.integers(0, d - work + 1)) for d in table.shape[:2])
    canvas = table[y : y + work, x : x + work].astype(np.float32)
    ca, cb = _opposite_centres(f, rng)
    d = float(np.linalg.norm(ca - cb))
    ca, cb = ca + rng.normal(0, 0.03 * d, 2), cb + rng.normal(0, 0.03 * d, 2)
    mid, side = (ca + cb) / 2, FACE_MARGIN * float(np.linalg.norm(ca - cb))
    m = cv2.getRotationMatrix2D((float(mid[0]), float(mid[1])), float(rng.uniform(0, 360)), work / side)
    m[:, 2] += (work / 2 - mid[0], work / 2 - mid[1])
    h, w = f.image.shape[:2]
    under = [o for o in others if rng.random() < 0.35]
    over = [o for o in others if all(o is not u for u in under) and rng.random() < 0.25]
    for o in under:  # a pile (small offset) or a neighbour further off
        spread = 0.08 if rng.random() < 0.5 else 0.8
        offset = rng.normal(0, spread, 2) * (w, h)
        _paste(
            canvas, o.image, _placed(m, o, float(rng.normal(0, 12) if spread < 0.5 else rng.uniform(0, 360)), offset)
        )
    _paste(canvas, f.image, m)
    for o in over:  # over the edge only: its centre a card's height or more away
        turn = float(rng.uniform(0, 2 * np.pi))
        offset = np.array([np.cos(turn), np.sin(turn)]) * h * float(rng.uniform(0.9, 1.4))
        _paste(canvas, o.image, _placed(m, o, float(rng.uniform(0, 360)), offset))
    # shown at 36-192 px (a whole table's cards in a webcam frame are 90-120 px tall)
    return degrade(rng, np.clip(canvas, 0, 255).astype(np.uint8), size, smallest=36, largest=work, shrink_share=0.8)


# -- training crops from whole scenes -------------------------------------------------------------
def _shown(scene: Scene, card_id: int) -> float:
    """Share of a scene card's outline not covered by cards drawn after it (hands are not counted)."""
    quads = {c["card_id"]: np.float32(c["quad"]) for c in scene.cards}
    quad = quads[card_id]
    x1, y1 = np.floor(quad.min(axis=0)).astype(int)
    x2, y2 = np.ceil(quad.max(axis=0)).astype(int)
    mask = np.zeros((y2 - y1 + 1, x2 - x1 + 1), np.uint8)
    cv2.fillPoly(mask, [np.round(quad - [x1, y1]).astype(np.int32)], 1)
    area = int(mask.sum())
    for other, q in quads.items():
        if other > card_id:
            cv2.fillPoly(mask, [np.round(q - [x1, y1]).astype(np.int32)], 0)
    return float(mask.sum()) / max(area, 1)


def squares_card(a: Sequence[float], b: Sequence[float], centre: np.ndarray, diagonal: float) -> bool:
    """Whether the square of two index boxes lies on a card (``centre``, ``diagonal``) as that card's own pair's
    would: far enough apart for opposite corners, their midpoint within a fifth of a diagonal of its centre.  Two
    different cards' indices can do that (a pile's top card and a corner of the card under it, a little offset);
    the square then shows a card, so such a pair is no ``bg`` example, and it is left out of the face sets."""
    apart = float(np.linalg.norm(box_centre(a) - box_centre(b)))
    middle = (box_centre(a) + box_centre(b)) / 2
    return apart >= ONE_SIDE * diagonal and float(np.linalg.norm(middle - centre)) < 0.2 * diagonal


def scene_pairs(scene: Scene) -> list[tuple[str, Box, Box]]:
    """The candidate pairs of a scene's labelled indices as ``(class, box, box)``: the card for two opposite
    corners of a card shown whole, ``bg`` for other pairs (different cards, one side's two corners); pairs of a
    card partly covered are left out (what it should read there is unclear), and so are two cards' indices whose
    square lies on either card as its own would (``squares_card``)."""
    out: list[tuple[str, Box, Box]] = []
    labels = scene.labels
    quads = {c["card_id"]: np.float32(c["quad"]) for c in scene.cards}
    diagonals = {k: float(np.linalg.norm(q[0] - q[2])) for k, q in quads.items()}
    centres = {k: q.mean(axis=0) for k, q in quads.items()}
    shown: dict[int, float] = {}
    for i, j in candidate_pairs([lab.box for lab in labels]):
        a, b = labels[i], labels[j]
        if a.card_id != b.card_id:
            if not any(squares_card(a.box, b.box, centres[k], diagonals[k]) for k in (a.card_id, b.card_id)):
                out.append((BACKGROUND, a.box, b.box))
            continue
        diagonal = diagonals[a.card_id]
        if np.linalg.norm(box_centre(a.box) - box_centre(b.box)) < ONE_SIDE * diagonal:
            out.append((BACKGROUND, a.box, b.box))  # two corners of one side
            continue
        if a.card_id not in shown:
            shown[a.card_id] = _shown(scene, a.card_id)
        if shown[a.card_id] >= FULLY_SHOWN:
            out.append((a.card, a.box, b.box))
    return out


def jitter(box: Sequence[float], rng: np.random.Generator) -> Box:
    """``box`` moved by about 8 % of its size, as a detector's box lies about its index."""
    s = _size(box)
    dx, dy = rng.normal(0, 0.08 * s, 2)
    return float(box[0] + dx), float(box[1] + dy), float(box[2] + dx), float(box[3] + dy)


def write_scene_pairs(folder: Path, seed: int, pool: DesignPool, bg_per_scene: int = 6, size: int = FACE_SIZE) -> int:
    """Render scene ``seed`` and write its face crops (every whole card, up to ``bg_per_scene`` ``bg``)."""
    scene = render_scene(seed, pool)
    rng = np.random.default_rng([seed, 777])
    bgr = cv2.cvtColor(scene.image, cv2.COLOR_RGB2BGR)
    pairs = scene_pairs(scene)
    faces = [p for p in pairs if p[0] != BACKGROUND]
    bg = [p for p in pairs if p[0] == BACKGROUND]
    picked = [bg[k] for k in rng.permutation(len(bg))[:bg_per_scene]]
    for k, (name, a, b) in enumerate(faces + picked):
        crop = cut(bgr, pair_square(jitter(a, rng), jitter(b, rng)), size)  # boxes moved as a detector's are
        cv2.imwrite(str(folder / name / f"s{seed}_{k}.jpg"), crop, [cv2.IMWRITE_JPEG_QUALITY, 95])
    return len(faces) + len(picked)


def write_design_faces(folder: Path, design: str, seed: int, per_card: int = 2, size: int = FACE_SIZE) -> int:
    """Face crops of every card of ``design`` into ``folder/<CARD>/``; returns how many were written."""
    rng = np.random.default_rng([seed, 5151])
    cards = [c for c in CARDS if has_card(design, c)]
    tables = [table_texture(rng, 2 * size + 64, 2 * size + 64) for _ in range(3)]
    written = 0
    for card in cards:
        f = face(design, card)
        if not f.indices:
            continue
        for k in range(per_card):
            others = [face(design, cards[int(rng.integers(len(cards)))]) for _ in range(int(rng.integers(0, 4)))]
            crop = face_card_crop(f, rng, others, tables[int(rng.integers(len(tables)))], size)
            name = f"f{seed}_{design.replace(':', '-').replace('/', '-')}_{card}_{k}.jpg"
            cv2.imwrite(
                str(folder / card / name), cv2.cvtColor(crop, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, 95]
            )
            written += 1
    return written


SCENE_SEED_BASE = 700_000_000  # face-set scenes: seeds no detector or classifier scene uses


def _job(args: tuple[str, Path, int, int, DesignPool]) -> int:
    kind, out, seed, number, pool = args
    folder = out / ("val" if number % VAL_EVERY == 0 else "train")
    job_seed = scene_seed(seed, number)
    if kind == "scene":
        return write_scene_pairs(folder, SCENE_SEED_BASE + job_seed, pool)
    return write_design_faces(folder, face_design(pool, number), job_seed)


def write_face_set(
    out: Path,
    designs: int,
    scenes: int,
    seed: int = 1,
    workers: int = 1,
    start: int = 0,
    progress: bool = True,
    pool: DesignPool | None = None,
) -> int:
    """The face reader's crops under ``out/{train,val}/<CLASS>/``: ``designs`` designs' faces (mostly procedural,
    every 8th an artwork design of ``pool``, by default the training designs) and the pairs of ``scenes`` scenes of
    ``pool``; returns how many crops were written.  Deterministic by ``seed`` and job number, whatever the number of
    processes."""
    pool = pool or default_pool()
    numbers = range(start, start + designs)
    crop_folders(out, pool, used=[*(drawn_artwork(pool) if scenes else ()), *(face_design(pool, n) for n in numbers)])
    jobs = [("design", out, seed, n, pool) for n in numbers]
    jobs += [("scene", out, seed, n, pool) for n in range(start, start + scenes)]
    return count_written(_job, jobs, workers, progress, "face crops")


__all__ = [
    "BACKGROUND",
    "CLASSES",
    "FACE_MARGIN",
    "FACE_SIZE",
    "ONE_SIDE",
    "SIZE_RATIO",
    "box_centre",
    "candidate_pairs",
    "could_pair",
    "face_card_crop",
    "jitter",
    "pair_square",
    "scene_pairs",
    "squares_card",
    "write_design_faces",
    "write_face_set",
    "write_scene_pairs",
]
