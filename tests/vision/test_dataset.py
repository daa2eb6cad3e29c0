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


def test_only_the_artwork_a_set_draws_is_rendered_before_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Procedural scenes and one face-crop job of an artwork design render that one design first, not every design
    of the pool: on a fresh machine a set of procedural scenes waited minutes for all 18 training designs."""
    import vision.dataset

    prepared: list[str] = []
    monkeypatch.setattr(vision.dataset, "prepare", lambda item: prepared.append(item.name))
    pool = DesignPool(("gnome:tango", "kde:standard"), proc_share=1.0)
    totals = write_dataset(tmp_path, scenes=1, seed=5, pool=pool, progress=False, face_designs=1)
    assert prepared == ["gnome:tango"] and totals["face_crops"] > 0  # face job 0: the pool's first design
    prepared.clear()
    write_dataset(tmp_path / "drawn", scenes=0, seed=5, pool=DesignPool(pool.artwork, proc_share=0.5), progress=False)
    assert prepared == list(pool.artwork)  # scenes that can draw artwork: all of it


def test_writes_a_yolo_set_and_crops(tmp_path: Path) -> None:
    totals = write_dataset(tmp_path, scenes=4, seed=5, pool=PROC, progress=False)
    assert totals["scenes"] == 4 and totals["labels"] > 0
    yaml_text = (tmp_path / "detect" / "data.yaml").read_text()
    assert "0: index" in yaml_text
    images = sorted((tmp_path / "detect" / "images").rglob("*.jpg"))
    labels = sorted((tmp_path / "detect" / "labels").rglob("*.txt"))
    assert len(images) == len(labels) == 4
    for label in labels:  # turned boxes: each index's four corners (Ultralytics OBB)
        for line in label.read_text().splitlines():
            cls, *corners = line.split()
            assert cls == "0" and len(corners) == 8 and all(0 <= float(v) <= 1 for v in corners)
    assert json.loads((tmp_path / "oriented.json").read_text()) == {"oriented": True}
    crops = list((tmp_path / "classify").rglob("*.jpg"))
    assert len(crops) == totals["labels"] + totals["bg"]
    assert {p.parent.name for p in crops} <= set(CLASSES)
    assert (tmp_path / "contact_sheet.png").stat().st_size > 0


def test_turned_labels_are_the_index_quads_in_the_tile() -> None:
    from vision.dataset import obb_lines
    from vision.synth import Label

    quad = ((110.0, 40.0), (130.0, 60.0), (90.0, 100.0), (70.0, 80.0))
    label = Label("QH", (70.0, 40.0, 130.0, 100.0), quad, 1.0, 0, "proc:1")
    (line,) = obb_lines([label], 0.5, (20, 10), 100, 100)
    assert line.split() == [
        "0",
        "0.350000",
        "0.100000",
        "0.450000",
        "0.200000",
        "0.250000",
        "0.400000",
        "0.150000",
        "0.300000",
    ]
    (clipped,) = obb_lines([label], 1.0, (0, 0), 100, 100)  # a corner past the tile's edge stays on it
    assert max(float(v) for v in clipped.split()[1:]) == 1.0


def test_axis_aligned_writes_the_earlier_kind(tmp_path: Path) -> None:
    totals = write_dataset(tmp_path, scenes=2, seed=5, pool=PROC, progress=False, oriented=False)
    for label in (tmp_path / "detect" / "labels").rglob("*.txt"):
        for line in label.read_text().splitlines():
            assert len(line.split()) == 5
    assert json.loads((tmp_path / "oriented.json").read_text()) == {"oriented": False}
    assert len(list((tmp_path / "classify").rglob("*.jpg"))) == totals["labels"] + totals["bg"]


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
