"""The dataset writer: YOLO detector set, classifier crops, held-out scenes, determinism."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

pytest.importorskip("cv2")
pytest.importorskip("tqdm")

from vision.dataset import CLASSES, write_dataset
from vision.synth import DesignPool

PROC = DesignPool((), proc_share=1.0)


def _digest(folder: Path) -> dict[str, str]:
    """Every file's checksum, but data.yaml (it holds the set's absolute path)."""
    files = [p for p in sorted(folder.rglob("*")) if p.is_file() and p.name != "data.yaml"]
    return {str(p.relative_to(folder)): hashlib.md5(p.read_bytes()).hexdigest() for p in files}


def test_writes_a_yolo_set_and_crops(tmp_path: Path) -> None:
    totals = write_dataset(tmp_path, scenes=4, seed=5, pool=PROC, progress=False)
    assert totals["scenes"] == 4 and totals["labels"] > 0
    yaml_text = (tmp_path / "detect" / "data.yaml").read_text()
    assert "0: index" in yaml_text
    images = sorted((tmp_path / "detect" / "images").rglob("*.jpg"))
    labels = sorted((tmp_path / "detect" / "labels").rglob("*.txt"))
    assert len(images) == len(labels) == 4
    for label in labels:
        for line in label.read_text().splitlines():
            cls, *xywh = line.split()
            assert cls == "0" and len(xywh) == 4 and all(0 <= float(v) <= 1 for v in xywh)
    crops = list((tmp_path / "classify").rglob("*.jpg"))
    assert len(crops) == totals["labels"] + totals["bg"]
    assert {p.parent.name for p in crops} <= set(CLASSES)
    assert (tmp_path / "contact_sheet.png").stat().st_size > 0


def test_same_seed_writes_the_same_files(tmp_path: Path) -> None:
    write_dataset(tmp_path / "a", scenes=3, seed=8, pool=PROC, progress=False)
    write_dataset(tmp_path / "b", scenes=3, seed=8, pool=PROC, progress=False)
    assert _digest(tmp_path / "a") == _digest(tmp_path / "b")


def test_two_processes_write_what_one_writes(tmp_path: Path) -> None:
    write_dataset(tmp_path / "one", scenes=4, seed=2, pool=PROC, progress=False, workers=1)
    write_dataset(tmp_path / "two", scenes=4, seed=2, pool=PROC, progress=False, workers=2)
    assert _digest(tmp_path / "one") == _digest(tmp_path / "two")


def test_heldout_keeps_whole_scenes_with_labels(tmp_path: Path) -> None:
    write_dataset(tmp_path, scenes=2, seed=4, pool=PROC, heldout=True, progress=False)
    metas = sorted((tmp_path / "scenes").glob("*.json"))
    assert len(metas) == 2
    meta = json.loads(metas[0].read_text())
    assert {"width", "height", "labels", "cards", "seed"} <= set(meta)
    assert metas[0].with_suffix(".jpg").exists()
    assert not (tmp_path / "detect").exists()
