"""Classifier crops cut along the detector's own boxes: what the classifier is given at run time.

The scene crops of :mod:`vision.dataset` are cut around each *labelled* index, jittered at random.  At run time the
classifier reads crops cut along the *detector's* boxes (:meth:`vision.detect.CardReader.probabilities`, its views
``CROPS``): on small, blurred and partly covered indices those boxes are shifted, loose or turned a little wrong,
and the detector also boxes card art where no index is (court and joker pictures, pips), which the classifier must
call ``bg``.  So rendered scenes of the training designs (seeds no other set uses) are boxed by a shipped detector at
the reader's detector size, and each box is cut as the reader cuts it, in two of its views drawn per box:

* named by the labelled index it covers (:data:`MATCH` IoU or more; the index's card),
* ``bg`` where it overlaps no index at all (:data:`NOTHING` IoU or less with every labelled and every hidden index:
  indices covered too much to be labelled count too, as reading them is no mistake),
* and left out in between (a box across two indices, or half on one).

``tablecall synth OUT --reader-boxes N [--models M]`` writes them into ``OUT/classify/{train,val}/<CLASS>/``
beside the other classifier crops, deterministically by ``--seed``, scene number and the detector's networks.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.cardart import iou
from vision.crops import quad_box
from vision.dataset import BACKGROUND, VAL_EVERY, count_written, crop_folders, scene_seed
from vision.synth import DesignPool, render_scene

READER_SEED_BASE = 900_000_000  # scene seeds no detector, classifier, face or video set uses
MATCH = 0.5  # IoU with a labelled index for a detector box to be named by it
NOTHING = 0.05  # IoU with every index (labelled or hidden) under which a detector box is background
VIEWS_PER_BOX = 2  # of the reader's CROPS, drawn per box

_READERS: dict[Path, Any] = {}  # a process's CardReader for each models folder


def _reader(models: Path) -> Any:
    if models not in _READERS:
        from vision.detect import CardReader

        _READERS[models] = CardReader(models, faces=False)
    return _READERS[models]


def box_names(
    boxes: np.ndarray,
    labelled: list[tuple[str, tuple[float, float, float, float]]],
    hidden: list[tuple[tuple[float, float], ...]],
) -> list[str | None]:
    """For each detector box (upright, image pixels): the card of the labelled index it matches, ``bg`` where it
    overlaps no index (labelled or ``hidden``), ``None`` where neither (left out)."""
    others = [box for _, box in labelled] + [quad_box(q) for q in hidden]
    out: list[str | None] = []
    for b in boxes.tolist():
        scores = [iou(b, box) for _, box in labelled]
        best = int(np.argmax(scores)) if scores else -1
        if best >= 0 and scores[best] >= MATCH:
            out.append(labelled[best][0])
        elif all(iou(b, box) <= NOTHING for box in others):
            out.append(BACKGROUND)
        else:
            out.append(None)
    return out


def write_scene_crops(out: Path, number: int, seed: int, models: Path, pool: DesignPool) -> int:
    """Render scene ``number``, box it with the detector of ``models`` and write its crops; how many."""
    from vision.detect import view_crops

    reader = _reader(models)
    scene = render_scene(READER_SEED_BASE + scene_seed(seed, number), pool)
    bgr = cv2.cvtColor(scene.image, cv2.COLOR_RGB2BGR)
    boxes, _scores, turns = reader.turned_indices(bgr)
    names = box_names(boxes, [(lab.card, lab.box) for lab in scene.labels], list(scene.hidden))
    keep = [i for i, name in enumerate(names) if name is not None]
    if not keep:
        return 0
    rng = np.random.default_rng([seed, number, 97])
    size = int(reader.cls_meta["imgsz"])
    split = "val" if number % VAL_EVERY == 0 else "train"
    written = 0
    for i in keep:
        views = rng.choice(len(reader.crops), size=min(VIEWS_PER_BOX, len(reader.crops)), replace=False)
        for v in sorted(views.tolist()):
            crop = view_crops(bgr, boxes[i : i + 1], reader.crops[v], size, None if turns is None else turns[i : i + 1])
            name = f"r{seed}_{number:06d}_{i}_{v}.jpg"
            cv2.imwrite(str(out / split / str(names[i]) / name), crop[0], [cv2.IMWRITE_JPEG_QUALITY, 95])
            written += 1
    return written


def _job(args: tuple[Path, int, int, Path, DesignPool]) -> int:
    return write_scene_crops(*args)


def write_reader_crops(
    out: Path,
    scenes: int,
    models: Path,
    seed: int = 1,
    workers: int = 1,
    start: int = 0,
    progress: bool = True,
    pool: DesignPool | None = None,
) -> int:
    """Crops along the detector's boxes of ``scenes`` rendered scenes (numbers ``start``...) of the training
    designs under ``out/{train,val}/<CLASS>/`` (``out`` is the ``classify`` folder); returns how many."""
    from vision.train import is_oriented

    reader = _reader(models)  # a missing or broken models folder fails here, with its own message
    marker = out.parent / "oriented.json"  # the kind of crops in this set: the training recipe records it
    if marker.exists() and is_oriented(out.parent) != reader.turned:
        kind = "turned" if reader.turned else "upright"
        raise ValueError(f"{out.parent} holds the other kind of crops than this detector's boxes give ({kind})")
    marker.parent.mkdir(parents=True, exist_ok=True)
    marker.write_text(json.dumps({"oriented": reader.turned}) + "\n")
    pool = crop_folders(out, pool)
    jobs = [(out, n, seed, models, pool) for n in range(start, start + scenes)]
    return count_written(_job, jobs, workers, progress, "crops along the detector's boxes", "scene")
