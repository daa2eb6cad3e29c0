"""The measurements: held-out scenes and rank-only photos scored against a stand-in reader."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest

cv2 = pytest.importorskip("cv2")

from vision import evaluate  # noqa: E402
from vision.cardart import CARDS  # noqa: E402
from vision.detect import DEFAULT_CONF, DEFAULT_MIN_CARD, CardReader, Reading  # noqa: E402
from vision.pairing import Card  # noqa: E402


class Scripted:
    """A stand-in reader that answers from a script, whatever the image."""

    backend = "scripted"

    def __init__(self, answers: list[list[str]]) -> None:
        self.answers = list(answers)

    def read(self, image: np.ndarray) -> list[Card]:
        return [Card(name, 0.9, (0, 0, 1, 1)) for name in self.answers.pop(0)]


def _truths(scenes: Path) -> list[list[str]]:
    metas = [json.loads(p.read_text()) for p in sorted(scenes.glob("*.json"))]
    return [sorted({lab["card_id"]: lab["card"] for lab in m["labels"]}.values()) for m in metas]


def test_reading_every_labelled_card_scores_one(scenes: Path) -> None:
    truths = _truths(scenes)
    result = evaluate.heldout(scenes, Scripted(truths))  # type: ignore[arg-type]
    assert result["precision"] == result["recall"] == 1.0
    assert result["true"] == sum(len(t) for t in truths)


def test_missing_and_invented_cards_lower_recall_and_precision(scenes: Path) -> None:
    truths = _truths(scenes)
    metas = [json.loads(p.read_text()) for p in sorted(scenes.glob("*.json"))]
    absent = [next(c for c in CARDS if c not in {card["card"] for card in m["cards"]}) for m in metas]
    answers = [[*t[1:], a, a] for t, a in zip(truths, absent, strict=True)]  # one missed, one invented twice
    result = evaluate.heldout(scenes, Scripted(answers))  # type: ignore[arg-type]
    n = sum(len(t) for t in truths)
    assert result["recall"] == pytest.approx((n - 3) / n, abs=1e-4)
    assert result["precision"] == pytest.approx((n - 3) / (n - 3 + 6), abs=1e-4)
    kinds = result["false_cards_by_kind"]  # the invented ones lie on no labelled index (a 1 px box at the corner)
    assert kinds == {"another card's index": 0, "an index of its own name": 0, "no labelled index": 6}


def test_false_cards_are_told_by_what_they_lie_on() -> None:
    meta = {"labels": [{"card": "7H", "box": [100, 100, 120, 130]}, {"card": "9C", "box": [300, 100, 320, 130]}]}
    cards = [
        Card("8H", 0.6, (100, 100, 120, 130), ((100, 100, 120, 130),)),  # 7H misread
        Card("9C", 0.9, (300, 100, 320, 130), ((300, 100, 320, 130),)),
        Card("9C", 0.5, (301, 101, 321, 131), ((301, 101, 321, 131),)),  # the same card again
        Card("KS", 0.4, (600, 400, 640, 440)),  # court art read as an index
    ]
    kinds = evaluate._false_kinds(meta, cards, Counter({"8H": 1, "9C": 1, "KS": 1}))
    assert kinds == {"another card's index": 1, "an index of its own name": 1, "no labelled index": 1}


def test_naming_a_covered_card_counts_neither_way(scenes: Path) -> None:
    truths = _truths(scenes)
    metas = [json.loads(p.read_text()) for p in sorted(scenes.glob("*.json"))]
    covered = [
        [c["card"] for c in m["cards"] if c["card"] and c["card"] not in t] for m, t in zip(metas, truths, strict=True)
    ]
    answers = [t + c for t, c in zip(truths, covered, strict=True)]
    result = evaluate.heldout(scenes, Scripted(answers))  # type: ignore[arg-type]
    assert result["precision"] == result["recall"] == 1.0


def test_one_card_reported_twice_is_a_false_card(scenes: Path) -> None:
    truths = _truths(scenes)
    metas = [json.loads(p.read_text()) for p in sorted(scenes.glob("*.json"))]
    # a labelled card with no unlabelled copy in its scene, named twice (its two corners taken for two copies)
    doubled = [
        next(c for c in t if sum(card["card"] == c for card in m["cards"]) == 1)
        for m, t in zip(metas, truths, strict=True)
    ]
    answers = [[*t, d] for t, d in zip(truths, doubled, strict=True)]
    result = evaluate.heldout(scenes, Scripted(answers))  # type: ignore[arg-type]
    n = sum(len(t) for t in truths)
    assert result["recall"] == 1.0
    assert result["precision"] == pytest.approx(n / (n + len(truths)), abs=1e-4)


def test_pinochle_scores_ranks_only(tmp_path: Path) -> None:
    (tmp_path / "images").mkdir()
    (tmp_path / "labels-yolo").mkdir()
    (tmp_path / "labels-yolo" / "classes.txt").write_text("nine\nten\njack\nqueen\nking\nace\n")
    cv2.imwrite(str(tmp_path / "images" / "a.jpg"), np.zeros((40, 30, 3), np.uint8))
    (tmp_path / "labels-yolo" / "a.txt").write_text("4 0.5 0.5 0.2 0.2\n1 0.3 0.3 0.2 0.2\n")
    result = evaluate.pinochle(tmp_path, Scripted([["KS", "2H"]]))  # type: ignore[arg-type]
    assert (result["recall"], result["precision"]) == (0.5, 0.5)


def test_simulated_video_counts_a_card_read_inside_its_outline_at_its_time() -> None:
    from scorer.events import parse_log
    from vision.sim import Options, SimError, Simulation, demo_log
    from vision.sim.render import pick_design

    try:
        design = pick_design(31, "heldout")
    except SimError as exc:
        pytest.skip(str(exc))
    sim = Simulation.prepare(
        parse_log(demo_log("snap").read_text(encoding="utf-8")),
        Options(size=(1280, 720), fps=2, seed=31, design=design),
    )
    cards = [c for event in sim.measure()["events"] for c in event["cards"]]
    frames = sorted({c["frame"] for c in cards})
    right = [[Card(c["card"], 0.9, tuple(c["box"])) for c in cards if c["frame"] == f] for f in frames]
    elsewhere = [[Card(card.card, 0.9, (0, 0, 2, 2)) for card in reads] for reads in right]
    misnamed = [[Card("JK", 0.9, card.box) for card in reads] for reads in right]
    score = {
        name: evaluate.simulated(_Answers(reads), fps=2, games=("snap",))  # type: ignore[arg-type]
        for name, reads in {"right": right, "elsewhere": elsewhere, "misnamed": misnamed, "none": []}.items()
    }
    assert score["right"]["found"] == 1.0 and score["right"]["games"]["snap"] == f"{len(cards)}/{len(cards)}"
    assert score["elsewhere"]["found"] == score["misnamed"]["found"] == 0.0
    assert score["none"]["found"] == 0.0
    assert score["right"]["cards"] == score["right"]["read"] == len(cards) and score["none"]["read"] == 0


def test_simulated_video_counts_a_card_it_never_shows_as_not_read(monkeypatch: pytest.MonkeyPatch) -> None:
    # a card whose index is covered from the time it lands (a Push meld, a large-suited design) has no time
    # in the ground truth: it cannot be read at its time, and measuring must not stop there
    from vision import sim as simulation

    measure = simulation.Simulation.measure

    def hide_one(self: simulation.Simulation) -> dict[str, Any]:
        truth = measure(self)
        card = next(c for event in truth["events"] for c in event["cards"])
        card.update(t_ms=None, frame=None)
        return truth

    monkeypatch.setattr(simulation.Simulation, "measure", hide_one)
    try:
        simulation.render.pick_design(31, "heldout")
    except simulation.SimError as exc:
        pytest.skip(str(exc))
    result = evaluate.simulated(_Answers([]), fps=2, games=("snap",))  # type: ignore[arg-type]
    assert result["unseen"] == 1 and result["read"] == 0 and result["cards"] > 1


class _Answers:
    """A stand-in reader that returns prepared cards, one list per call, whatever the image (none when done)."""

    backend = "scripted"

    def __init__(self, answers: list[list[Card]]) -> None:
        self.answers = list(answers)

    def read(self, image: np.ndarray) -> list[Card]:
        return self.answers.pop(0) if self.answers else []


class _Readings:
    """A stand-in reader with scripted index readings per scene (and per detector size, given ``sizes``: the
    first scenes' answers, then the next size's), the real reader's thresholds and pairing; like the real one it
    returns only the readings at least as sure as the detector threshold it is asked for."""

    backend = "scripted"
    conf, min_card = 0.25, 0.5
    cards = CardReader.cards

    def __init__(self, answers: list[list[Reading]], sizes: tuple[int, ...] = ()) -> None:
        self.answers, self.sizes = list(answers), sizes
        self.imgsz = sizes[0] if sizes else 640
        self.calls = 0

    def readings(self, image: np.ndarray, conf: float | None = None) -> list[Reading]:
        scenes = len(self.answers) // max(1, len(self.sizes))
        first = self.sizes.index(self.imgsz) * scenes if self.sizes else 0
        answer = self.answers[first + self.calls % scenes]
        self.calls += 1
        return [r for r in answer if r.score >= (self.conf if conf is None else conf)]


def test_tuning_picks_the_thresholds_that_keep_the_faint_true_index_and_drop_the_unsure_false_one(
    scenes: Path,
) -> None:
    truths = _truths(scenes)
    metas = [json.loads(p.read_text()) for p in sorted(scenes.glob("*.json"))]
    absent = [next(c for c in CARDS if c not in {card["card"] for card in m["cards"]}) for m in metas]
    answers = []
    for k, (names, wrong) in enumerate(zip(truths, absent, strict=True)):
        sure = [Reading(n, 0.9, 0.97, (1000.0 * i, 0, 1000.0 * i + 10, 20)) for i, n in enumerate(names)]
        sure[0] = Reading(names[0], 0.12, 0.97, sure[0].box)  # the detector is unsure of a true index
        answers.append([*sure, Reading(wrong, 0.9, 0.55, (-5000.0 - k, 0, -4990.0 - k, 20))])  # a doubtful misreading
    result = evaluate.tune(scenes, _Readings(answers))  # type: ignore[arg-type]
    chosen = result["chosen"]
    assert (chosen["precision"], chosen["recall"]) == (1.0, 1.0)
    assert chosen["conf"] <= 0.1 < 0.55 < chosen["min_card"]
    assert result["scenes"] == len(truths) and len(result["grid"]) == len(evaluate.TUNE_CONF) * len(
        evaluate.TUNE_MIN_CARD
    )


class _Mending(_Readings):
    """As the face reader does: with a faint index of the same card beside it (kept only at a low detector
    threshold) the scene's first index is read right, without it as a card the scene does not hold."""

    def __init__(self, truths: list[list[str]], absent: list[str]) -> None:
        answers = []
        for names in truths:
            sure = [Reading(n, 0.9, 0.97, (1000.0 * i, 0, 1000.0 * i + 10, 20)) for i, n in enumerate(names)]
            answers.append([*sure, Reading(names[0], 0.12, 0.97, (0, 100, 10, 120))])  # its faint other corner
        super().__init__(answers)
        self.absent = absent

    def readings(self, image: np.ndarray, conf: float | None = None) -> list[Reading]:
        k = self.calls % len(self.answers)
        answer = super().readings(image, conf)
        if not any(r.score < 0.25 for r in answer):
            answer[0] = Reading(self.absent[k], 0.9, 0.97, answer[0].box)
        return answer


def test_tuning_grades_each_threshold_as_the_run_time_reads_at_it(scenes: Path) -> None:
    metas = [json.loads(p.read_text()) for p in sorted(scenes.glob("*.json"))]
    absent = [next(c for c in CARDS if c not in {card["card"] for card in m["cards"]}) for m in metas]
    grid = evaluate.tune(scenes, _Mending(_truths(scenes), absent))["grid"]  # type: ignore[arg-type]
    at = {(g["conf"], g["min_card"]): g for g in grid}
    assert at[(0.1, 0.5)]["precision"] == at[(0.1, 0.5)]["recall"] == 1.0
    assert at[(0.25, 0.5)]["precision"] < 1.0 and at[(0.25, 0.5)]["recall"] < 1.0  # not the low threshold's, filtered


def test_tuning_keeps_the_defaults_when_the_others_are_no_better_than_noise(scenes: Path) -> None:
    # every index sure and right: all pairs score F1 1.0, and the plain best would be the grid's first corner
    answers = [
        [Reading(n, 0.9, 0.97, (1000.0 * i, 0, 1000.0 * i + 10, 20)) for i, n in enumerate(names)]
        for names in _truths(scenes)
    ]
    chosen = evaluate.tune(scenes, _Readings(answers))["chosen"]  # type: ignore[arg-type]
    assert (chosen["conf"], chosen["min_card"], chosen["f1"]) == (DEFAULT_CONF, DEFAULT_MIN_CARD, 1.0)


def test_tuning_tries_the_detector_sizes_and_keeps_the_first_unless_another_is_clearly_better(scenes: Path) -> None:
    truths = _truths(scenes)
    sure = [[Reading(n, 0.9, 0.97, (1000.0 * i, 0, 1000.0 * i + 10, 20)) for i, n in enumerate(ns)] for ns in truths]
    half = [answer[: len(answer) // 2] for answer in sure]  # at the first size the detector finds half the indices
    reader = _Readings([*half, *sure], sizes=(640, 960))
    result = evaluate.tune(scenes, reader, sizes=(640, 960))  # type: ignore[arg-type]
    assert len(result["grid"]) == 2 * len(evaluate.TUNE_CONF) * len(evaluate.TUNE_MIN_CARD)
    assert (result["chosen"]["imgsz"], result["chosen"]["f1"]) == (960, 1.0) and reader.imgsz == 640
    reader = _Readings([*sure, *sure], sizes=(640, 960))  # both sizes read everything: the first (the default) stays
    assert evaluate.tune(scenes, reader, sizes=(640, 960))["chosen"]["imgsz"] == 640  # type: ignore[arg-type]


def test_tuning_an_empty_folder_says_what_to_render(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="synth DIR --whole"):
        evaluate.tune(tmp_path, _Readings([]))  # type: ignore[arg-type]


def test_evaluate_tune_saves_the_thresholds_the_reader_then_uses_and_training_forgets_them(
    scenes: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import shutil

    from vision import train
    from vision.detect import MODELS
    from web.cli import main

    if not (MODELS / "data.yaml").exists():
        pytest.skip("no shipped models in models/")
    models = tmp_path / "models"
    shutil.copytree(MODELS, models)
    assert main(["evaluate", "--tune", str(scenes), "--models", str(models)]) == 0
    report = json.loads(capsys.readouterr().out)
    chosen = report["tune"]["chosen"]
    reader = CardReader(models)
    assert (reader.conf, reader.min_card) == (chosen["conf"], chosen["min_card"])
    assert chosen["imgsz"] in evaluate.TUNE_IMGSZ and reader.imgsz == chosen["imgsz"] == report["imgsz"]
    assert report["thresholds"] == {"conf": chosen["conf"], "min_card": chosen["min_card"]}
    assert CardReader(models, conf=0.6).conf == 0.6  # asked for beats tuned
    task = "obb" if reader.turned else "detect"  # new detector weights of the same kind
    train.write_data_yaml(models, ["index"], None, {}, task=task)  # the old thresholds no longer hold
    assert (CardReader(models).conf, CardReader(models).min_card) == (0.25, 0.5)
    assert main(["evaluate", "--tune", str(tmp_path / "nothing"), "--models", str(models)]) == 2
    assert "synth DIR --whole" in capsys.readouterr().err


def test_evaluate_tune_at_a_size_given_measures_at_it_and_on_as_many_scenes_as_asked(
    scenes: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--imgsz`` with ``--tune``: the thresholds are chosen at that size (not the tuning sizes), and the held-out
    measurement after it reads at that size, at most ``--limit`` scenes."""
    import shutil

    import yaml

    from vision.detect import MODELS
    from web.cli import main

    if not (MODELS / "data.yaml").exists():
        pytest.skip("no shipped models in models/")
    models = tmp_path / "models"
    shutil.copytree(MODELS, models)
    shipped = (MODELS / "data.yaml").read_bytes()
    argv = ["evaluate", "--tune", str(scenes), "--heldout", str(scenes), "--limit", "1", "--imgsz", "960"]
    assert main([*argv, "--models", str(models)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["imgsz"] == 960 and "imgsz" not in report["tune"]["chosen"]
    assert report["tune"]["scenes"] == report["heldout"]["images"] == 1
    assert yaml.safe_load((models / "data.yaml").read_text())["reader"]["tuned_on"] == str(scenes)
    assert (MODELS / "data.yaml").read_bytes() == shipped  # saved in the folder measured, not in models/


def test_evaluate_without_the_face_reader_says_so(scenes: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from vision.detect import MODELS
    from web.cli import main

    if not (MODELS / "data.yaml").exists():
        pytest.skip("no shipped models in models/")
    assert main(["evaluate", "--heldout", str(scenes), "--limit", "1", "--no-faces"]) == 0
    assert json.loads(capsys.readouterr().out)["faces"] is False


def test_evaluate_sim_in_the_training_designs_counts_every_seed(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--sim --sim-train --sim-seed 31 32``: two videos of the training designs (seed 31's and 32's), both
    counted, not held-out art nor the first seed alone."""
    from vision import sim as simulation
    from vision.detect import MODELS
    from vision.sim.render import pick_design
    from web.cli import main

    if not (MODELS / "data.yaml").exists():
        pytest.skip("no shipped models in models/")
    monkeypatch.setattr(simulation, "DEMOS", ("snap",))  # one demo game of the four: seconds, not minutes
    assert main(["evaluate", "--sim", "--sim-train", "--sim-seed", "31", "32", "--no-faces"]) == 0
    report = json.loads(capsys.readouterr().out)["sim"]
    assert [run["design"] for run in report["runs"]] == [pick_design(31, "train"), pick_design(32, "train")]
    assert report["cards"] == sum(run["cards"] for run in report["runs"]) > 0


def test_simulated_runs_combine_over_all_their_cards() -> None:
    runs = [{"cards": 20, "read": 19, "found": 0.95}, {"cards": 10, "read": 5, "found": 0.5}]
    assert evaluate.combined(runs) == {"runs": runs, "cards": 30, "read": 24, "found": 0.8}


@pytest.mark.parametrize(
    ("scores", "hits", "truths", "expected"),
    [
        ([0.9, 0.8], [True, True], 2, 1.0),  # every box right, nothing missed
        ([0.9, 0.8], [True, True], 4, 51 / 101),  # half the truths never boxed: recall stops at 0.5
        ([0.9, 0.8], [False, True], 1, 0.5),  # a surer false box first: precision 1/2 over all recall
        ([0.9, 0.8], [True, False], 1, 1.0),  # the false box comes after every truth is found
        ([], [], 3, 0.0),
    ],
    ids=["perfect", "half-missed", "false-first", "false-last", "nothing-found"],
)
def test_average_precision_is_the_area_under_cocos_101_point_curve(
    scores: list[float], hits: list[bool], truths: int, expected: float
) -> None:
    ap = evaluate.average_precision(np.array(scores, float), np.array(hits, bool), truths)
    assert ap == pytest.approx(expected)


def test_each_true_box_is_taken_once_by_the_surest_box_over_half_its_union() -> None:
    truth = np.array([[0, 0, 10, 10], [20, 0, 30, 10]], float)
    boxes = np.array([[0, 0, 10, 10], [1, 0, 11, 10], [20, 0, 26, 10], [50, 50, 60, 60]], float)
    scores = np.array([0.5, 0.9, 0.8, 0.7])
    # the surer second box takes the first truth; the first box finds it taken; 6 of 10 px wide is IoU 0.6
    assert evaluate._match50(boxes, scores, truth).tolist() == [False, True, True, False]


class _Boxes:
    """A stand-in reader whose readings are the scenes' labelled index boxes, named as labelled but for one name."""

    def __init__(self, metas: list[dict[str, Any]], wrong: str | None = None) -> None:
        self.metas, self.wrong = list(metas), wrong

    def readings(self, image: np.ndarray, conf: float | None = None) -> list[Reading]:
        assert conf == evaluate.AP_CONF  # every box the detector gives
        labels = self.metas.pop(0)["labels"]
        named = [("JK" if lab["card"] == self.wrong else lab["card"], lab["box"]) for lab in labels]
        return [Reading(name, 0.9, 0.95, tuple(box)) for name, box in named]


def test_ap50_of_the_labelled_boxes_is_one_and_a_misnamed_card_scores_nothing(scenes: Path) -> None:
    metas = [json.loads(p.read_text()) for p in sorted(scenes.glob("*.json"))]
    result = evaluate.ap50(scenes, _Boxes(metas))  # type: ignore[arg-type]
    names = {lab["card"] for meta in metas for lab in meta["labels"]}
    assert result["index_ap50"] == result["identity_map50"] == 1.0 and result["cards"] == len(names)
    assert result["labelled_indices"] == sum(len(meta["labels"]) for meta in metas)
    wrong = sorted(names - {"JK"})[0]
    result = evaluate.ap50(scenes, _Boxes(metas, wrong))  # type: ignore[arg-type]
    assert result["index_ap50"] == 1.0  # the boxes are all right
    assert result["lowest_ap50"][0] == (wrong, 0.0)
    assert result["identity_map50"] < 1.0
