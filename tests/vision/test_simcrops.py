"""vision.simcrops: classifier crops from simulated webcam video of training designs, never the demo games."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from pathlib import Path

import pytest

from vision.cardart import designs
from vision.dataset import CLASSES
from vision.sim import DEMOS, demo_log
from vision.simcrops import training_logs, video_design, write_video_crops


def test_the_demo_games_are_never_training_logs() -> None:
    logs = training_logs()
    assert logs, "tests/golden and docs/examples hold logs of the simulator's games"
    demo_bytes = {demo_log(name).read_bytes() for name in DEMOS}
    assert not any(p.read_bytes() in demo_bytes for p in logs)


def test_videos_use_training_designs_only() -> None:
    heldout = {d.name for d in designs("heldout")}
    artwork = tuple(d.name for d in designs("train"))
    picked = {video_design(n, artwork, 1000) for n in range(60)}
    assert picked.isdisjoint(heldout)
    assert any(p.startswith("proc:") for p in picked) and any(not p.startswith("proc:") for p in picked)


def _write(folder: Path) -> dict[str, str]:
    for name in CLASSES:
        (folder / name).mkdir(parents=True, exist_ok=True)
    log = next(p for p in training_logs() if p.parent.name == "snap")
    n = write_video_crops(folder, log, "proc:4321", 77)
    files = sorted(folder.glob("*/*.jpg"))
    assert n == len(files) > 10
    return {f"{p.parent.name}/{p.name}": hashlib.sha256(p.read_bytes()).hexdigest() for p in files}


def test_a_video_gives_labelled_crops_and_the_same_seed_the_same_crops(tmp_path: Path) -> None:
    from scorer.events import parse_log

    first = _write(tmp_path / "a")
    assert first == _write(tmp_path / "b")
    log = next(p for p in training_logs() if p.parent.name == "snap")
    cards = {str(c) for e in parse_log(log.read_text()).events for c in _cards(e.data)}
    labels = {key.split("/")[0] for key in first}
    assert labels <= cards  # every crop is labelled with a card the game put down


def _cards(value: object) -> list[str]:
    if isinstance(value, str) and 2 <= len(value) <= 3 and value[-1] in "CDHS":
        return [value]
    if isinstance(value, Mapping):
        return [c for v in value.values() for c in _cards(v)]
    if isinstance(value, (list, tuple)):
        return [c for v in value for c in _cards(v)]
    return []


def test_a_set_of_videos_fills_train_and_validation(tmp_path: Path) -> None:
    from vision.simcrops import write_sim_crops
    from vision.synth import DesignPool

    n = write_sim_crops(tmp_path, 2, seed=5, progress=False, pool=DesignPool((), proc_share=1.0))
    train, val = (len(list((tmp_path / split).glob("*/*.jpg"))) for split in ("train", "val"))
    assert n == train + val and train > 0 and val > 0  # video 0 goes to validation (every 20th)


@pytest.mark.parametrize("videos", [-1])
def test_synth_refuses_a_negative_video_count(videos: int, tmp_path: Path) -> None:
    from web.cli import main

    assert main(["synth", str(tmp_path), "--sim-videos", str(videos)]) == 2
