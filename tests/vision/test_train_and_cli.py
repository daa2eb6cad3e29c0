"""The recipe end to end on a tiny rendered set (a few steps, then ONNX + OpenVINO export), and the CLI.

One module-scoped fixture trains once (about a minute on two cores); the ``tablecall detect`` tests then run
the exported models through OpenVINO and ONNX Runtime: any image size, grayscale, unreadable files, --save.
"""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import yaml

cv2 = pytest.importorskip("cv2")
pytest.importorskip("ultralytics")
pytest.importorskip("openvino")
pytest.importorskip("onnxruntime")

from vision import train  # noqa: E402
from vision.dataset import write_dataset  # noqa: E402
from vision.facecards import write_face_set  # noqa: E402
from vision.synth import DesignPool  # noqa: E402
from web.cli import main  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
# torch's ONNX exporter and Ultralytics warn about their own deprecations; those are not ours to fix
pytestmark = [
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
    pytest.mark.filterwarnings("ignore::FutureWarning"),
    pytest.mark.filterwarnings("ignore::UserWarning"),
]


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("recipe")
    write_dataset(base / "data", scenes=8, seed=3, pool=DesignPool((), proc_share=1.0), progress=False)
    write_face_set(
        base / "data" / "faces", designs=2, scenes=2, seed=3, progress=False, pool=DesignPool((), proc_share=1.0)
    )
    recipe = train.Recipe(
        data=base / "data",
        stages=("classifier", "detector", "face"),
        detector=train.detector_config(epochs=1, imgsz=160, batch=4),
        classifier=train.classifier_config(epochs=1, imgsz=32, batch=32),
        face=train.face_config(epochs=1, imgsz=32, batch=32),
        face_init=base / "runs" / train.CLASSIFIER / "weights" / "best.pt",  # written by the first stage
        models=base / "models",
        runs=base / "runs",
        device="cpu",
        quantize=2,  # the detector's INT8 network, calibrated on two rendered scenes
    )
    written = train.run(recipe)
    assert set(written) == {"classifier", "detector", "face"}
    return base / "models"


def test_training_exports_onnx_openvino_and_the_class_order(trained: Path) -> None:
    import yaml

    for stem in (train.DETECTOR, train.CLASSIFIER, train.FACE):
        assert (trained / f"{stem}.onnx").stat().st_size > 100_000
        assert (trained / f"{stem}_openvino" / f"{stem}.xml").exists()
        assert (trained / f"{stem}_openvino" / f"{stem}.bin").exists()
    meta = yaml.safe_load((trained / "data.yaml").read_text())
    assert meta["detector"]["names"] == ["index"]
    assert meta["detector"]["task"] == "obb" and meta["classifier"]["upright"] is True  # turned boxes, upright crops
    assert "bg" in meta["classifier"]["names"] and "QH" in meta["classifier"]["names"]
    assert len(meta["classifier"]["names"]) == len(set(meta["classifier"]["names"]))
    assert sorted(meta["face"]["names"]) == sorted(meta["classifier"]["names"])  # the run time maps them by name
    calibration = {"scenes": 2, "seed": 91, "sizes": [640, 1280]}
    assert meta["detector"]["openvino"] == {"precision": "int8", "calibration": calibration}

    def network(stem: str) -> str:
        return (trained / f"{stem}_openvino" / f"{stem}.xml").read_text()

    assert 'type="FakeQuantize"' in network(train.DETECTOR)  # INT8; the classifier's network stays in float
    assert 'type="FakeQuantize"' not in network(train.CLASSIFIER)
    # the face reader started from the classifier's weights
    import torch

    runs = trained.parent / "runs"
    checkpoint = torch.load(runs / train.FACE / "weights" / "last.pt", map_location="cpu", weights_only=False)
    assert checkpoint["train_args"]["pretrained"] == str(runs / f"{train.FACE}-start.pt")


def test_training_in_this_process_leaves_no_thread_that_blocks_sigsegv(trained: Path) -> None:
    """Training loads polars, whose allocator kept background threads that block SIGSEGV in pytest's process for the
    rest of the run: a fault in one ended CI with no faulthandler dump (tests/conftest.py; the suite audit, s43)."""
    blocking = []
    for task in Path("/proc/self/task").iterdir():
        try:
            lines = (task / "status").read_text().splitlines()
            name = (task / "comm").read_text().strip()
        except OSError:  # (a thread that ended meanwhile)
            continue
        status = dict(line.split(":\t", 1) for line in lines if ":\t" in line)
        if int(status["SigBlk"], 16) & (1 << (signal.SIGSEGV - 1)):
            blocking.append(name)
    assert blocking == []


def test_resuming_a_finished_stage_trains_nothing(trained: Path) -> None:
    runs = trained.parent / "runs"
    last = runs / train.CLASSIFIER / "weights" / "last.pt"
    assert last.exists() and train._finished(last)
    before = last.stat().st_mtime_ns
    config = train.classifier_config(epochs=1, imgsz=32, batch=32)
    best = train.train_stage("classifier", trained.parent / "data" / "classify", config, "cpu", resume=True, runs=runs)
    assert best == runs / train.CLASSIFIER / "weights" / "best.pt"
    assert last.stat().st_mtime_ns == before


def test_train_no_export_leaves_the_models_folder_alone(
    trained: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--no-export``: a finished stage resumed (nothing to train) and nothing exported, the models folder not made."""
    data, runs, models = trained.parent / "data", trained.parent / "runs", tmp_path / "models"
    argv = ["train", "--stage", "classifier", "--data", str(data), "--runs", str(runs), "--models", str(models)]
    assert main([*argv, "--device", "cpu", "--resume", "--no-export"]) == 0
    assert set(json.loads(capsys.readouterr().out)["classifier"]) == {"weights"}
    assert not models.exists()


@pytest.fixture
def images(tmp_path: Path) -> dict[str, Path]:
    rng = np.random.default_rng(0)
    colour = rng.integers(0, 255, (300, 500, 3), dtype=np.uint8)
    paths = {"colour": tmp_path / "table.jpg", "gray": tmp_path / "gray.png", "bad": tmp_path / "broken.jpg"}
    cv2.imwrite(str(paths["colour"]), colour)
    cv2.imwrite(str(paths["gray"]), cv2.cvtColor(colour, cv2.COLOR_BGR2GRAY))
    paths["bad"].write_bytes(b"not an image")
    return paths


@pytest.mark.parametrize("backend", ["openvino", "onnxruntime"])
def test_detect_prints_json_per_image_and_reports_unreadable(
    trained: Path, images: dict[str, Path], tmp_path: Path, backend: str, capsys: pytest.CaptureFixture[str]
) -> None:
    save = tmp_path / "annotated"
    args = ["detect", str(images["colour"]), str(images["bad"]), str(images["gray"]), str(tmp_path / "missing.png")]
    status = main(
        [
            *args,
            "--json",
            "--models",
            str(trained),
            "--backend",
            backend,
            "--save",
            str(save),
            "--conf",
            "0.001",
            "--min-card",
            "0",
        ]
    )
    out, err = capsys.readouterr()
    assert status == 2
    assert "broken.jpg: cannot read it as an image" in err and "missing.png: no such file" in err
    lines = [json.loads(line) for line in out.splitlines()]
    assert [line["image"] for line in lines] == [str(images["colour"]), str(images["gray"])]
    for line in lines:
        for card in line["cards"]:
            x1, y1, x2, y2 = card["box"]
            assert 0 <= x1 <= x2 <= 500 and 0 <= y1 <= y2 <= 300
            assert 0 <= card["confidence"] <= 1 and isinstance(card["card"], str)
    assert sorted(p.name for p in save.iterdir()) == ["gray.jpg", "table.jpg"]


def test_detect_all_readable_exits_zero(
    trained: Path, images: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["detect", str(images["colour"]), "--models", str(trained)]) == 0
    assert str(images["colour"]) in capsys.readouterr().out


def test_detect_save_never_writes_over_an_image_it_read(
    trained: Path,
    images: dict[str, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``--save`` into the photos' own folder: table.jpg is read, and its annotated copy is table_.jpg (it replaced
    the photo); a folder that cannot be made or written is said, not a traceback or a silent success."""
    photo = images["colour"].read_bytes()
    assert main(["detect", str(images["colour"]), "--models", str(trained), "--save", str(tmp_path)]) == 0
    assert images["colour"].read_bytes() == photo
    assert (tmp_path / "table_.jpg").is_file()
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    status = main(["detect", str(images["colour"]), "--models", str(trained), "--save", str(blocker / "out")])
    assert status == 2 and "--save" in capsys.readouterr().err
    monkeypatch.setattr(cv2, "imwrite", lambda *a, **k: False)  # what it says for a folder it may not write
    status = main(["detect", str(images["colour"]), "--models", str(trained), "--save", str(tmp_path / "out")])
    assert status == 2 and "cannot write" in capsys.readouterr().err


def test_detect_reads_the_images_of_a_folder_in_name_order(
    trained: Path, images: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import pillow_heif
    from PIL import Image

    pillow_heif.register_heif_opener()  # Pillow writes HEIC with it
    folder, empty = tmp_path / "photos", tmp_path / "empty"
    folder.mkdir()
    empty.mkdir()
    (folder / "b.PNG").write_bytes(images["gray"].read_bytes())
    (folder / "a.jpg").write_bytes(images["colour"].read_bytes())
    with Image.open(images["colour"]) as photo:
        photo.save(folder / "c.heic")  # an iPhone's photo
    (folder / "notes.txt").write_text("not a picture")
    (empty / "notes.txt").write_text("not a picture")
    assert main(["detect", str(folder), "--json", "--models", str(trained)]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [line["image"] for line in lines] == [str(folder / n) for n in ("a.jpg", "b.PNG", "c.heic")]
    assert main(["detect", str(empty), str(images["colour"]), "--json", "--models", str(trained)]) == 2
    out, err = capsys.readouterr()
    assert [json.loads(line)["image"] for line in out.splitlines()] == [str(images["colour"])]
    assert f"{empty}: a folder with no" in err and "(skipped)" in err


def test_detect_does_not_import_torch(trained: Path, images: dict[str, Path]) -> None:
    code = (
        "import sys\nfrom web.cli import main\n"
        f"status = main(['detect', {str(images['colour'])!r}, '--json', '--models', {str(trained)!r}])\n"
        "assert 'torch' not in sys.modules and 'ultralytics' not in sys.modules, 'torch was imported'\n"
        "sys.exit(status)\n"
    )
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True, capture_output=True, timeout=120)


def test_detect_without_models_says_so(
    tmp_path: Path, images: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["detect", str(images["colour"]), "--models", str(tmp_path)]) == 2
    assert "data.yaml" in capsys.readouterr().err


def test_synth_and_train_commands(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    synth = ["synth", "--scenes", "2", "--workers", "1", "--proc-share", "1"]
    assert main([*synth, str(tmp_path / "set"), "--face-designs", "1", "--start", "1"]) == 0
    totals = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert totals["scenes"] == 2 and totals["face_crops"] > 50  # the option reaches the renderer
    assert len(list((tmp_path / "set" / "classify").glob("*/*/f*.jpg"))) == totals["face_crops"]
    assert main([*synth, str(tmp_path / "val"), "--whole"]) == 0  # training designs kept whole, for --tune
    assert len(list((tmp_path / "val" / "scenes").glob("*.json"))) == 2
    assert not (tmp_path / "val" / "detect").exists()
    assert main(["train", "--data", str(tmp_path / "nowhere")]) == 2
    assert "tablecall synth" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        pytest.param(["train", "--threads", "0"], "--threads must be from 1 to 256, not 0", id="no_threads"),
        pytest.param(["train", "--fraction", "2"], "--fraction must be from", id="fraction_over_one"),
        pytest.param(["train", "--det-epochs", "-3"], "--det-epochs must be from 1", id="negative_epochs"),
        pytest.param(["train", "--device", "7"], "--device 7: this machine has", id="gpu_not_there"),
        pytest.param(["train", "--device", "gpu"], "--device must be auto, cpu or GPU numbers", id="device_word"),
        pytest.param(["synth", "FILE/set", "--scenes", "1"], "cannot make that folder", id="synth_into_a_file"),
        pytest.param(["synth", "OUT", "--face-designs", "-2"], "--face-designs must be from 0", id="negative_designs"),
    ],
)
def test_training_commands_refuse_what_cannot_work_before_starting(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    """Said in a line, exit 2, before any work: not a traceback from PyTorch or Ultralytics minutes later."""
    (tmp_path / "a-file").write_text("")
    named = {"FILE/set": str(tmp_path / "a-file" / "set"), "OUT": str(tmp_path / "out")}
    extra = ["--data", str(tmp_path)] if args[0] == "train" else []
    assert main([named.get(a, a) for a in args] + extra) == 2
    assert message in capsys.readouterr().err


def test_warm_start_trains_on_from_the_previous_best(trained: Path) -> None:
    runs = trained.parent / "runs"
    config = train.classifier_config(epochs=1, imgsz=32, batch=32, lr0=0.0005)  # a gentler continuation
    best = train.train_stage("classifier", trained.parent / "data" / "classify", config, "cpu", runs=runs, warm=True)
    start = runs / f"{train.CLASSIFIER}-start.pt"
    assert start.exists()
    assert best.exists() and train._finished(runs / train.CLASSIFIER / "weights" / "last.pt")
    # Ultralytics discards the model's weights unless ``pretrained`` names them: the run must have used them
    import torch

    checkpoint = torch.load(runs / train.CLASSIFIER / "weights" / "last.pt", map_location="cpu", weights_only=False)
    assert checkpoint["train_args"]["pretrained"] == str(start)
    assert checkpoint["train_args"]["lr0"] == 0.0005


def test_the_reader_reads_faces_between_index_pairs(trained: Path) -> None:
    from vision.detect import CardReader

    reader = CardReader(trained, "onnxruntime")
    assert reader.face is not None
    image = np.random.default_rng(1).integers(0, 255, (300, 500, 3), dtype=np.uint8)
    boxes = np.float32([[10, 10, 22, 24], [70, 80, 82, 94], [400, 200, 412, 214]])
    pairs, probs = reader.face_probabilities(image, boxes)
    assert pairs == [(0, 1)] and probs.shape == (1, len(reader.names))
    assert np.allclose(probs.sum(axis=1), 1, atol=1e-3)
    assert CardReader(trained, faces=False).face is None


def test_warm_start_on_a_new_machine_starts_from_the_shipped_export(trained: Path, tmp_path: Path) -> None:
    """No runs/ (a fresh clone): ``--warm`` rebuilds the stage from models/ and trains on from there."""
    import torch

    from vision.recover import max_difference, rebuild

    runs = tmp_path / "runs"
    config = train.classifier_config(epochs=1, imgsz=32, batch=32, lr0=0.0005)
    data = trained.parent / "data" / "classify"
    best = train.train_stage("classifier", data, config, "cpu", runs=runs, warm=True, models=trained)
    start = runs / f"{train.CLASSIFIER}-start.pt"
    assert best.exists() and start.exists()
    checkpoint = torch.load(runs / train.CLASSIFIER / "weights" / "last.pt", map_location="cpu", weights_only=False)
    assert checkpoint["train_args"]["pretrained"] == str(start)
    # the start is the export itself, not a fresh network
    begun = torch.load(start, map_location="cpu", weights_only=False)["model"]
    assert max_difference(trained / f"{train.CLASSIFIER}.onnx", begun, (2, 3, 32, 32)) < 1e-4
    fresh = rebuild(trained / f"{train.CLASSIFIER}.onnx")
    assert max_difference(trained / f"{train.CLASSIFIER}.onnx", fresh, (2, 3, 32, 32)) < 1e-4
    with pytest.raises(FileNotFoundError, match="--warm"):
        train.train_stage("face", data, config, "cpu", runs=runs, warm=True, models=tmp_path / "none")


@pytest.mark.parametrize("stem", [train.DETECTOR, train.CLASSIFIER, train.FACE])
def test_each_export_rebuilds_into_the_network_it_came_from(trained: Path, stem: str) -> None:
    from vision.recover import max_difference, rebuild

    shape = (1, 3, 160, 224) if stem == train.DETECTOR else (3, 3, 32, 32)
    assert max_difference(trained / f"{stem}.onnx", rebuild(trained / f"{stem}.onnx"), shape) < 1e-3


def test_an_upright_classifier_needs_a_detector_that_turns_its_boxes(trained: Path, tmp_path: Path) -> None:
    import shutil

    import yaml

    from vision.backends import ModelError
    from vision.detect import CardReader

    reader = CardReader(trained, "onnxruntime")
    assert reader.turned and reader.upright
    image = np.random.default_rng(2).integers(0, 255, (300, 500, 3), dtype=np.uint8)
    boxes, _, turns = reader.turned_indices(image, conf=0.0)
    assert turns is not None and turns.shape == (len(boxes), 3)
    assert reader.probabilities(image, boxes, turns).shape == (len(boxes), len(reader.names))
    with pytest.raises(ModelError, match="turn"):
        reader.probabilities(image, boxes)  # an upright crop would be read as the classifier never saw one
    models = tmp_path / "models"
    shutil.copytree(trained, models)
    meta = yaml.safe_load((models / "data.yaml").read_text())
    meta["detector"]["task"] = "detect"
    (models / "data.yaml").write_text(yaml.safe_dump(meta))
    with pytest.raises(ModelError, match="turned"):
        CardReader(models, "onnxruntime")


def test_export_only_publishes_weights_trained_elsewhere(
    trained: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    best = trained.parent / "runs" / train.DETECTOR / "weights" / "best.pt"
    models = tmp_path / "models"
    shutil.copytree(trained, models)  # a candidate folder: the other stages' files as they are
    (models / f"{train.DETECTOR}.onnx").unlink()
    shutil.rmtree(models / f"{train.DETECTOR}_openvino")
    args = ["train", "--stage", "detector", "--data", "data/g99", "--det-lr0", "0.001", "--models", str(models)]
    assert main([*args, "--export-only", str(best), "--quantize-scenes", "0"]) == 0
    assert "openvino_int8" not in json.loads(capsys.readouterr().out)["detector"]  # kept FP16: no calibration run
    assert (models / f"{train.DETECTOR}.onnx").stat().st_size > 100_000
    assert (models / f"{train.DETECTOR}_openvino" / f"{train.DETECTOR}.xml").exists()
    data = yaml.safe_load((models / "data.yaml").read_text())
    assert data["training"]["detector"]["data"] == "data/g99"  # where the weights were trained, as given
    assert data["training"]["detector"]["extra"]["lr0"] == 0.001
    assert data["classifier"] == yaml.safe_load((trained / "data.yaml").read_text())["classifier"]
    assert not (models / "runs").exists() and not (tmp_path / "runs").exists()  # nothing trained
    capsys.readouterr()
    assert main([*args, "--export-only", str(tmp_path / "none.pt")]) == 2
    assert "no such weights file" in capsys.readouterr().err
    assert main(["train", "--export-only", str(best), "--models", str(models)]) == 2  # which stage?
    assert "--stage" in capsys.readouterr().err
