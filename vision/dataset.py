"""Write training and evaluation data from rendered scenes (deterministic by seed, tqdm progress, processes).

``write_dataset(OUT, scenes=N, seed=S)`` renders scenes of the *training* designs and writes

* ``OUT/detect/``: the stage-1 detector set in YOLO format, one class ``index``: each scene downscaled so its
  long side is ``det_long`` pixels (the detector's input size at run time) and cut to a ``tile`` x ``tile``
  piece (cheap training at the run-time pixel scale), ``data.yaml``;
* ``OUT/classify/{train,val}/<CARD>/``: the stage-2 crops, one per visible index, cut from the full-size scene
  around a jittered index box (as the detector will box it) and resized to ``crop`` pixels, plus ``bg`` crops of
  anything that is not an index (pips, pictures, table, hands);
* with ``face_designs``, more crops cut straight from the faces of that many extra designs;
* ``OUT/contact_sheet.png``: the first scenes with their labels, for people to look at.

``write_dataset(OUT, ..., heldout=True)`` renders scenes of the held-out designs instead and keeps them whole
(``OUT/scenes/*.jpg`` + ``*.json`` with every label) for :mod:`vision.evaluate`; ``whole=True`` keeps scenes of the
training designs whole the same way (a validation set: the reader's thresholds are chosen on it, never on the
held-out designs or the real photos).
"""

from __future__ import annotations

import json
import signal
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from multiprocessing import get_context
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.cardart import CARDS, design, designs, prepare
from vision.crops import crop_box, cut, cut_turned, quad_axis, turned_square
from vision.facecrops import write_design_crops
from vision.synth import DesignPool, Label, Scene, render_scene, yolo_lines

BACKGROUND = "bg"
CLASSES = (*CARDS, BACKGROUND)
VAL_EVERY = 20  # every 20th scene goes to validation


@dataclass(frozen=True)
class Plan:
    """What one ``write_dataset`` call writes; shared with the worker processes."""

    out: Path
    seed: int
    pool: DesignPool
    det_long: int = 640
    tile: int = 416
    crop: int = 64
    whole: bool = False  # whole scenes for evaluation (held-out designs, or training designs for choosing thresholds)
    oriented: bool = True  # turned index boxes (OBB labels) and crops turned upright; False: the earlier kind


def scene_seed(seed: int, number: int) -> int:
    return seed * 1_000_003 + number


def _background_boxes(rng: np.random.Generator, scene: Scene, count: int) -> list[tuple]:
    """Boxes the size of indices that overlap no index quad: half on cards (pips, pictures), half anywhere."""
    h, w = scene.image.shape[:2]
    sizes = [max(b.box[2] - b.box[0], b.box[3] - b.box[1]) for b in scene.labels] or [0.05 * h]
    taken = [np.array(q) for q in scene.hidden] + [np.array(lab.quad) for lab in scene.labels]
    boxes: list[tuple] = []
    for attempt in range(count * 6):
        if len(boxes) >= count:
            break
        side = float(rng.choice(sizes)) * float(rng.uniform(0.8, 1.6))
        if attempt % 2 == 0 and scene.cards:
            quad = np.array(scene.cards[int(rng.integers(len(scene.cards)))]["quad"])
            t = rng.random(2)
            cx, cy = (quad[0] * (1 - t[0]) + quad[1] * t[0]) * (1 - t[1]) + (quad[3] * (1 - t[0]) + quad[2] * t[0]) * t[
                1
            ]
        else:
            cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        box = (cx - side / 2, cy - side / 2, cx + side / 2, cy + side / 2)
        if box[0] < 0 or box[1] < 0 or box[2] > w or box[3] > h:
            continue
        if all(not _overlaps(box, q) for q in taken):
            boxes.append(box)
    return boxes


def _overlaps(box: tuple, quad: np.ndarray) -> bool:
    return not (
        quad[:, 0].max() < box[0] or quad[:, 0].min() > box[2] or quad[:, 1].max() < box[1] or quad[:, 1].min() > box[3]
    )


def _tile(rng: np.random.Generator, image: np.ndarray, labels: list[Label], scale: float, tile: int) -> tuple:
    """A ``tile`` x ``tile`` piece of the downscaled scene, centred on an index most of the time."""
    h, w = image.shape[:2]
    if w <= tile and h <= tile:
        return image, [(lab, lab.box) for lab in labels], (0, 0)
    if labels and rng.random() < 0.8:
        lab = labels[int(rng.integers(len(labels)))]
        cx, cy = (lab.box[0] + lab.box[2]) / 2 * scale, (lab.box[1] + lab.box[3]) / 2 * scale
        x0 = int(np.clip(cx - rng.uniform(0.15, 0.85) * tile, 0, max(0, w - tile)))
        y0 = int(np.clip(cy - rng.uniform(0.15, 0.85) * tile, 0, max(0, h - tile)))
    else:
        x0, y0 = int(rng.integers(0, max(1, w - tile + 1))), int(rng.integers(0, max(1, h - tile + 1)))
    piece = image[y0 : y0 + tile, x0 : x0 + tile]
    kept = []
    for lab in labels:
        x1, y1, x2, y2 = (v * scale for v in lab.box)
        cx1, cy1 = max(x1, x0), max(y1, y0)
        cx2, cy2 = min(x2, x0 + piece.shape[1]), min(y2, y0 + piece.shape[0])
        if cx2 <= cx1 or cy2 <= cy1:
            continue
        if (cx2 - cx1) * (cy2 - cy1) >= 0.6 * (x2 - x1) * (y2 - y1):
            kept.append((lab, (cx1 - x0, cy1 - y0, cx2 - x0, cy2 - y0)))
    return piece, kept, (x0, y0)


def obb_lines(labels: list[Label], scale: float, offset: tuple[int, int], w: int, h: int) -> list[str]:
    """Labels as Ultralytics OBB lines (``0 x1 y1 ... x4 y4``, normalised, clipped to the tile): each index's quad
    in the downscaled scene's tile at ``offset``."""
    lines = []
    for lab in labels:
        quad = (np.asarray(lab.quad, np.float64) * scale - offset) / (w, h)
        quad = np.clip(quad, 0.0, 1.0)
        lines.append("0 " + " ".join(f"{v:.6f}" for v in quad.ravel()))
    return lines


def _write_scene(plan: Plan, number: int) -> dict[str, int]:
    seed = scene_seed(plan.seed, number)
    scene = render_scene(seed, plan.pool)
    name = f"s{plan.seed}_{number:06d}"
    bgr = cv2.cvtColor(scene.image, cv2.COLOR_RGB2BGR)
    if plan.whole:
        folder = plan.out / "scenes"
        cv2.imwrite(str(folder / f"{name}.jpg"), bgr, [cv2.IMWRITE_JPEG_QUALITY, 92])
        (folder / f"{name}.json").write_text(json.dumps(scene.to_json()))
        return {"scenes": 1, "labels": len(scene.labels)}
    split = "val" if number % VAL_EVERY == 0 else "train"
    rng = np.random.default_rng([seed, 99])
    h, w = bgr.shape[:2]
    scale = plan.det_long / max(h, w)
    small = cv2.resize(bgr, (round(w * scale), round(h * scale)), interpolation=cv2.INTER_AREA)
    piece, kept, offset = _tile(rng, small, scene.labels, scale, plan.tile)
    det = plan.out / "detect"
    cv2.imwrite(str(det / "images" / split / f"{name}.jpg"), piece, [cv2.IMWRITE_JPEG_QUALITY, 92])
    ph, pw = piece.shape[:2]
    if plan.oriented:
        lines = obb_lines([lab for lab, _ in kept], scale, offset, pw, ph)
    else:
        lines = yolo_lines(
            [Label(lab.card, box, lab.quad, lab.visible, lab.card_id, lab.design) for lab, box in kept], pw, ph
        )
    (det / "labels" / split / f"{name}.txt").write_text("\n".join(lines) + "\n" * bool(lines))
    cls = plan.out / "classify" / split
    turn = np.random.default_rng([seed, 98])  # the turned crops draw their own: the tile stays as it was
    for k, lab in enumerate(scene.labels):
        if plan.oriented:
            cx, cy, long_side, short_side, axis = quad_axis(lab.quad)
            crop = cut_turned(bgr, turned_square((cx, cy), axis, long_side, turn, short_side=short_side), plan.crop)
        else:
            crop = cut(bgr, crop_box(lab.box, rng), plan.crop)
        cv2.imwrite(str(cls / lab.card / f"{name}_{k}.jpg"), crop, [cv2.IMWRITE_JPEG_QUALITY, 95])
    backgrounds = _background_boxes(rng, scene, max(1, len(scene.labels) // 3))
    for k, box in enumerate(backgrounds):
        if plan.oriented:  # whatever a turned detector box may hold, at any angle
            square = ((box[0] + box[2]) / 2, (box[1] + box[3]) / 2, box[2] - box[0], float(turn.uniform(0, 360)))
            crop = cut_turned(bgr, square, plan.crop)
        else:
            crop = cut(bgr, box, plan.crop)
        cv2.imwrite(str(cls / BACKGROUND / f"{name}_b{k}.jpg"), crop, [cv2.IMWRITE_JPEG_QUALITY, 95])
    return {"scenes": 1, "labels": len(scene.labels), "tile_labels": len(kept), "bg": len(backgrounds)}


def _write_face_crops(plan: Plan, number: int) -> dict[str, int]:
    """Crops straight from one design's faces: procedural designs, and now and then a training artwork design."""
    seed = scene_seed(plan.seed, number) + 500_000_000
    name = face_design(plan.pool, number)
    split = "val" if number % VAL_EVERY == 0 else "train"
    crops = write_design_crops(plan.out / "classify" / split, name, seed, size=plan.crop, upright=plan.oriented)
    return {"face_crops": crops}


def init_worker() -> None:
    """A worker process draws with one OpenCV thread (the processes share the cores), and leaves Ctrl-C to the
    parent, which stops the pool and says what was kept (a traceback from each worker buried that)."""
    cv2.setNumThreads(1)
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def count_written(
    job: Callable[[Any], int], jobs: list[Any], workers: int, progress: bool, desc: str, unit: str = "job"
) -> int:
    """Run ``job`` on each of ``jobs`` (in ``workers`` spawned processes when more than one), with a progress bar;
    the sum of what the jobs return (files written)."""
    from tqdm import tqdm

    bar = tqdm(total=len(jobs), unit=unit, disable=not progress, desc=desc)
    written = 0
    if workers > 1:
        with get_context("spawn").Pool(workers, initializer=init_worker) as processes:
            for count in processes.imap_unordered(job, jobs, chunksize=2):
                written += count
                bar.update()
    else:
        for args in jobs:
            written += job(args)
            bar.update()
    bar.close()
    return written


def _job(args: tuple[str, Plan, int]) -> dict[str, int]:
    kind, plan, number = args
    return _write_scene(plan, number) if kind == "scene" else _write_face_crops(plan, number)


def _folders(plan: Plan) -> None:
    if plan.whole:
        (plan.out / "scenes").mkdir(parents=True, exist_ok=True)
        return
    for split in ("train", "val"):
        (plan.out / "detect" / "images" / split).mkdir(parents=True, exist_ok=True)
        (plan.out / "detect" / "labels" / split).mkdir(parents=True, exist_ok=True)
        for name in CLASSES:
            (plan.out / "classify" / split / name).mkdir(parents=True, exist_ok=True)
    (plan.out / "detect" / "data.yaml").write_text(
        f"path: {(plan.out / 'detect').resolve()}\ntrain: images/train\nval: images/val\nnames:\n  0: index\n"
    )


def face_design(pool: DesignPool, number: int) -> str:
    """The design of face-crop job ``number``: every 8th one of ``pool``'s artwork designs in turn, else a procedural
    design no scene uses."""
    artwork = pool.artwork
    if artwork and number % 8 == 0:
        return artwork[(number // 8) % len(artwork)]
    return f"proc:{pool.proc_seeds[1] + number}"


def drawn_artwork(pool: DesignPool) -> tuple[str, ...]:
    """The artwork designs a scene of ``pool`` can draw: none where every deck is procedural."""
    return pool.artwork if pool.proc_share < 1 else ()


def prepare_artwork(names: Iterable[str]) -> None:
    """Render the faces of the artwork designs named (procedural names are drawn as needed) into the cache once,
    before worker processes need them, and no others: a set of procedural scenes or one video's crops waited minutes
    for all 18 training designs on a fresh machine."""
    for name in dict.fromkeys(names):
        if not name.startswith("proc:"):
            prepare(design(name))


def crop_folders(out: Path, pool: DesignPool | None = None, used: Iterable[str] | None = None) -> DesignPool:
    """Ready a crop set: ``out/{train,val}/<CLASS>/`` made and the artwork designs it uses (``used``, by default
    those scenes of ``pool`` can draw; ``pool`` by default the training designs) rendered once; the pool."""
    pool = pool or default_pool()
    prepare_artwork(drawn_artwork(pool) if used is None else used)
    for split in ("train", "val"):
        for name in CLASSES:
            (out / split / name).mkdir(parents=True, exist_ok=True)
    return pool


def default_pool(heldout: bool = False, proc_share: float = 0.6) -> DesignPool:
    """Training: every training artwork design plus procedural ones; held out: the held-out artwork only."""
    chosen = designs("heldout" if heldout else "train")
    return DesignPool(tuple(d.name for d in chosen), proc_share=0.0 if heldout else proc_share)


def write_dataset(
    out: Path,
    scenes: int,
    seed: int = 1,
    workers: int = 1,
    heldout: bool = False,
    pool: DesignPool | None = None,
    progress: bool = True,
    start: int = 0,
    face_designs: int = 0,
    whole: bool | None = None,
    oriented: bool = True,
) -> dict[str, int]:
    """Render scenes ``start .. start+scenes-1`` of ``seed`` and write them under ``out`` (see module doc).

    ``face_designs`` more designs (mostly procedural, unseen by any scene) add classifier crops cut straight
    from their faces (:mod:`vision.facecrops`): cheap index variety.
    """
    whole = heldout if whole is None else whole
    plan = Plan(Path(out), seed, pool or default_pool(heldout), whole=whole, oriented=oriented)
    faces = range(start, start + face_designs) if not whole else range(0)
    prepare_artwork([*drawn_artwork(plan.pool), *(face_design(plan.pool, n) for n in faces)])
    _folders(plan)
    if not whole:  # what kind of crops and boxes these are: the training recipe records it with the networks
        (plan.out / "oriented.json").write_text(json.dumps({"oriented": plan.oriented}) + "\n")
    jobs = [("scene", plan, n) for n in range(start, start + scenes)]
    jobs += [("faces", plan, n) for n in faces]
    totals: dict[str, int] = {}
    if workers > 1:
        context = get_context("spawn")  # fork after OpenCV has started its threads can deadlock
        with context.Pool(workers, initializer=init_worker) as processes:
            _add(totals, _progress(processes.imap(_job, jobs, chunksize=4), len(jobs), progress))
    else:
        _add(totals, _progress(map(_job, jobs), len(jobs), progress))
    if start == 0 and scenes > 0:
        contact_sheet(
            [render_scene(scene_seed(seed, n), plan.pool) for n in range(min(6, scenes))], out / "contact_sheet.png"
        )
    return totals


def _add(totals: dict[str, int], results: Iterable[dict[str, int]]) -> None:
    for result in results:
        for k, v in result.items():
            totals[k] = totals.get(k, 0) + v


def _progress(items: Iterable[dict[str, int]], total: int, enabled: bool) -> Iterable[dict[str, int]]:
    from tqdm import tqdm

    return tqdm(items, total=total, unit="job", disable=not enabled, desc="rendering")


def draw_labels(image: np.ndarray, labels: Iterable[Label], colour: tuple[int, int, int] = (0, 255, 0)) -> np.ndarray:
    """A copy of RGB ``image`` with each label's box and card written on it."""
    out = image.copy()
    for lab in labels:
        x1, y1, x2, y2 = (int(v) for v in lab.box)
        cv2.rectangle(out, (x1, y1), (x2, y2), colour, 2)
        cv2.putText(out, lab.card, (x1, max(10, y1 - 3)), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (255, 0, 255), 1, cv2.LINE_AA)
    return out


def contact_sheet(scenes: list[Scene], path: Path, width: int = 640) -> Path:
    """Scenes with their labels, two per row, written as one PNG for people to look at."""
    tiles = []
    for scene in scenes:
        im = draw_labels(scene.image, scene.labels)
        h, w = im.shape[:2]
        im = cv2.resize(im, (width, round(h * width / w)), interpolation=cv2.INTER_AREA)
        tiles.append(im)
    height = max(t.shape[0] for t in tiles)
    tiles = [np.pad(t, ((0, height - t.shape[0]), (0, 0), (0, 0))) for t in tiles]
    if len(tiles) % 2:
        tiles.append(np.zeros_like(tiles[0]))
    sheet = np.vstack([np.hstack(tiles[i : i + 2]) for i in range(0, len(tiles), 2)])
    path.parent.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(path), cv2.cvtColor(sheet, cv2.COLOR_RGB2BGR))
    return path
