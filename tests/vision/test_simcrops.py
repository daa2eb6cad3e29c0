"""vision.simcrops: classifier crops from simulated webcam video of training designs, never the demo games."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pytest

from vision.cardart import designs
from vision.dataset import CLASSES
from vision.sim import DEMOS, demo_log
from vision.simcrops import training_logs, video_design, write_video_crops, write_video_faces


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


def test_a_video_gives_the_face_reader_whole_cards_and_background(tmp_path: Path) -> None:
    from scorer.events import parse_log
    from vision.facecards import FACE_SIZE

    def write(folder: Path) -> dict[str, str]:
        for name in CLASSES:
            (folder / name).mkdir(parents=True, exist_ok=True)
        n = write_video_faces(folder, log, "proc:4321", 77)
        files = sorted(folder.glob("*/*.jpg"))
        assert n == len(files)
        return {f"{p.parent.name}/{p.name}": hashlib.sha256(p.read_bytes()).hexdigest() for p in files}

    log = next(p for p in training_logs() if p.parent.name == "spades")
    first = write(tmp_path / "a")
    assert first == write(tmp_path / "b")
    labels = [key.split("/")[0] for key in first]
    cards = {str(c) for e in parse_log(log.read_text()).events for c in _cards(e.data)}
    assert labels.count("bg") > 10 and len(labels) - labels.count("bg") > 20
    assert set(labels) - {"bg"} <= cards
    import cv2

    crop = cv2.imread(str(tmp_path / "a" / next(k for k in first if not k.startswith("bg"))))
    assert crop.shape == (FACE_SIZE, FACE_SIZE, 3)
    # a whole card lies centred: its middle is the card's (light) face, the square's corners are the table
    middle = crop[FACE_SIZE // 2 - 8 : FACE_SIZE // 2 + 8, FACE_SIZE // 2 - 8 : FACE_SIZE // 2 + 8].mean()
    corners = np.mean([crop[:6, :6].mean(), crop[:6, -6:].mean(), crop[-6:, :6].mean(), crop[-6:, -6:].mean()])
    assert middle > corners + 40


def _index(obj: int, centre: tuple[float, float], card_centre: tuple[float, float]) -> tuple:
    x, y = centre
    return (obj, (x - 5, y - 7, x + 5, y + 7), 100.0, np.array(card_centre))


@pytest.mark.parametrize(
    ("a", "b", "background"),
    [
        pytest.param(_index(1, (30, 20), (60, 60)), _index(1, (90, 100), (60, 60)), False, id="one_card_corners"),
        pytest.param(_index(1, (30, 20), (60, 60)), _index(1, (80, 20), (60, 60)), True, id="one_side_of_a_card"),
        pytest.param(_index(1, (30, 20), (60, 60)), _index(2, (150, 100), (180, 140)), True, id="two_neighbours"),
        # a pile: the top card's corner and the opposite corner of the card under it, 4 px off: a card's square
        pytest.param(_index(1, (30, 20), (60, 60)), _index(2, (94, 104), (64, 64)), False, id="a_pile"),
    ],
)
def test_which_pairs_of_two_shown_indices_are_background(a: tuple, b: tuple, background: bool) -> None:
    from vision.simcrops import _background

    assert _background(a, b) is background


@pytest.mark.parametrize("option", ["--sim-videos", "--face-videos"])
def test_synth_refuses_a_negative_video_count(option: str, tmp_path: Path) -> None:
    from web.cli import main

    assert main(["synth", str(tmp_path), option, "-1"]) == 2


def test_face_videos_go_into_the_faces_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import json

    from web.cli import main

    assert main(["synth", str(tmp_path), "--face-videos", "1", "--workers", "1"]) == 0
    report = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    files = list((tmp_path / "faces" / "val").glob("*/*.jpg"))  # video 0 goes to validation
    assert report["face_crops"] == len(files) > 0 and not (tmp_path / "classify").exists()


def test_sim_videos_added_to_a_set_are_numbered_from_the_start(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--start 1``: video 1 (a training one), not video 0 again (a validation one, written twice)."""
    import json

    from web.cli import main

    assert main(["synth", str(tmp_path), "--sim-videos", "1", "--start", "1", "--workers", "1"]) == 0
    report = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    files = list((tmp_path / "classify").rglob("*.jpg"))
    assert report["sim_crops"] == len(files) > 0
    assert {f.parent.parent.name for f in files} == {"train"}


def test_face_scenes_and_face_videos_together_give_whole_card_crops_of_both(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The index pairs of a scene (s*.jpg) and the whole cards of a video (v*.jpg), all the face reader's size,
    all counted."""
    import json

    import cv2

    from vision import dataset, facecards
    from vision.facecards import FACE_SIZE
    from vision.synth import DesignPool
    from web.cli import main

    # procedural decks only: the training designs' artwork (minutes to render on a fresh machine) is not needed here
    procedural = lambda heldout=False, proc_share=0.6: DesignPool((), proc_share=1.0)  # noqa: E731
    monkeypatch.setattr(dataset, "default_pool", procedural)
    monkeypatch.setattr(facecards, "default_pool", procedural)

    assert main(["synth", str(tmp_path), "--face-scenes", "1", "--face-videos", "1", "--workers", "1"]) == 0
    report = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    files = list((tmp_path / "faces").rglob("*.jpg"))
    assert report["face_crops"] == len(files)
    assert {f.name[0] for f in files} == {"s", "v"}
    assert {cv2.imread(str(f)).shape for f in files} == {(FACE_SIZE, FACE_SIZE, 3)}
