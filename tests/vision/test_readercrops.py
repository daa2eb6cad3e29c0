"""vision.readercrops: classifier crops cut along the shipped detector's boxes of rendered training scenes."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest

from vision.dataset import BACKGROUND
from vision.detect import MODELS
from vision.readercrops import MATCH, box_names, write_reader_crops
from vision.synth import DesignPool

INDEX = (100.0, 100.0, 120.0, 130.0)
HIDDEN_QUAD = ((300.0, 300.0), (320.0, 300.0), (320.0, 330.0), (300.0, 330.0))


@pytest.mark.parametrize(
    ("box", "expected"),
    [
        (INDEX, "7H"),  # on the labelled index
        ((101.0, 102.0, 121.0, 133.0), "7H"),  # a little off: still that index
        ((110.0, 100.0, 130.0, 130.0), None),  # half on it: neither the card nor background
        ((500.0, 500.0, 520.0, 530.0), BACKGROUND),  # on nothing that is an index
        ((300.0, 300.0, 320.0, 330.0), None),  # on an index too covered to be labelled: reading it is no mistake
        ((114.0, 100.0, 134.0, 130.0), None),  # a quarter on it
    ],
    ids=["on it", "a little off", "half on it", "on nothing", "on a hidden index", "a quarter on it"],
)
def test_each_detector_box_is_named_by_what_it_covers(box: tuple[float, ...], expected: str | None) -> None:
    assert box_names(np.array([box], np.float32), [("7H", INDEX)], [HIDDEN_QUAD]) == [expected]


def test_the_best_overlap_names_a_box_between_two_indices() -> None:
    boxes = np.array([(100, 100, 120, 130), (104, 100, 124, 130)], np.float32)
    assert box_names(boxes, [("7H", INDEX), ("8S", (104.0, 100.0, 124.0, 130.0))], []) == ["7H", "8S"]
    assert MATCH >= 0.5  # one box can match one index only


@pytest.mark.skipif(not (MODELS / "data.yaml").exists(), reason="needs the shipped models")
def test_scenes_boxed_by_the_shipped_detector_give_named_crops_the_same_each_time(tmp_path: Path) -> None:
    pool = DesignPool((), proc_share=1.0)  # procedural decks only: no artwork to prepare

    def write(folder: Path) -> dict[str, str]:
        n = write_reader_crops(folder / "classify", 3, MODELS, seed=5, progress=False, pool=pool)
        files = sorted((folder / "classify").glob("*/*/*.jpg"))
        assert n == len(files)
        return {str(p.relative_to(folder / "classify")): hashlib.sha256(p.read_bytes()).hexdigest() for p in files}

    first = write(tmp_path / "a")
    assert first == write(tmp_path / "b")
    splits = {key.split("/")[0] for key in first}
    assert splits == {"train", "val"}  # scene 0 goes to validation (every 20th)
    cards = [key.split("/")[1] for key in first]
    assert len(cards) - cards.count(BACKGROUND) > 20  # most of the detector's boxes lie on labelled indices
    assert json.loads((tmp_path / "a" / "oriented.json").read_text()) == {"oriented": True}  # turned along the boxes


@pytest.mark.skipif(not (MODELS / "data.yaml").exists(), reason="needs the shipped models")
def test_turned_crops_are_not_mixed_into_a_set_of_upright_ones(tmp_path: Path) -> None:
    (tmp_path / "oriented.json").write_text('{"oriented": false}')
    with pytest.raises(ValueError, match="other kind of crops"):
        write_reader_crops(tmp_path / "classify", 1, MODELS, progress=False, pool=DesignPool((), proc_share=1.0))


@pytest.mark.parametrize(
    ("extra", "message"),
    [(["--reader-boxes", "-1"], "cannot be negative"), (["--reader-boxes", "1", "--models", "nowhere"], "not found")],
    ids=["negative", "no models"],
)
def test_the_command_says_what_is_wrong(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str], message: str
) -> None:
    from web.cli import main

    assert main(["synth", str(tmp_path / "set"), *extra]) == 2
    assert message in capsys.readouterr().err


@pytest.mark.skipif(not (MODELS / "data.yaml").exists(), reason="needs the shipped models")
def test_the_command_adds_the_scenes_from_its_start(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--start 3``: the crops of scene 3, added to a set, not those of scene 0 again; ``--proc-share 1``: procedural
    decks only, so no artwork is rendered first (the option was not passed on to --reader-boxes' scenes, and all 18
    training designs were rendered first: minutes on a fresh machine)."""
    from vision import dataset
    from web.cli import main

    prepared: list[str] = []
    monkeypatch.setattr(dataset, "prepare", lambda item: prepared.append(item.name))
    command = ["synth", str(tmp_path), "--reader-boxes", "1", "--start", "3", "--workers", "1", "--proc-share", "1"]
    assert main(command) == 0
    report = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    names = [p.name for p in (tmp_path / "classify").rglob("*.jpg")]
    assert report["reader_crops"] == len(names) > 0
    assert all(name.startswith("r1_000003_") for name in names)
    assert prepared == []
