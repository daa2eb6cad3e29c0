"""The networks' runtimes (vision.backends): the input they are given, and that they read alike."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("cv2")

from vision.backends import ModelError, load_backend, to_input
from vision.detect import MODELS


def test_to_input_is_the_networks_float_rgb_input() -> None:
    images = np.random.default_rng(0).integers(0, 256, (3, 5, 7, 3), dtype=np.uint8)
    expected = images[:, :, :, ::-1].transpose(0, 3, 1, 2).astype(np.float32) / 255
    out = to_input(images)
    assert out.shape == (3, 3, 5, 7) and out.dtype == np.float32
    assert np.array_equal(out, expected)  # the very numbers the networks were always given


@pytest.mark.skipif(not (MODELS / "data.yaml").exists(), reason="no shipped models in models/")
@pytest.mark.parametrize("backend", ["onnxruntime", "opencv"])
def test_the_backends_read_the_same_uint8_images_alike(backend: str) -> None:
    pytest.importorskip("openvino")
    pytest.importorskip(backend if backend != "opencv" else "cv2")

    crops = np.random.default_rng(1).integers(0, 256, (4, 64, 64, 3), dtype=np.uint8)
    crops[:, 20:40, 20:40] = (30, 60, 200)  # a block of strong colour, so swapped channels would show
    ov_out = load_backend(MODELS, "card-classifier", "openvino", dynamic_batch=True)(crops)
    other = load_backend(MODELS, "card-classifier", backend)(crops)
    assert ov_out.shape == other.shape
    assert np.abs(ov_out - other).max() < 0.05  # OpenVINO computes in bf16 here
    assert (ov_out.argmax(axis=1) == other.argmax(axis=1)).all()


def test_openvino_sends_nothing_when_tablecall_loads_it() -> None:
    """`import openvino` sent a usage event to Google Analytics (openvino.tools.ovc, by way of openvino_telemetry:
    a thread, and a process forked from it) from the server and every command that reads cards (the suite audit,
    session 43). In a process of its own: the stand-in that sends nothing is what OpenVINO takes."""
    code = (
        "import threading, vision.backends\n"
        "from vision.detect import MODELS\n"
        "b = vision.backends.load_backend(MODELS, 'index-detector', 'openvino')\n"
        "import openvino.tools.ovc.telemetry_utils as t\n"
        "print(t.tm.__name__, sorted(x.name for x in threading.enumerate()))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["openvino.tools.ovc.telemetry_stub", "['MainThread']"], done.stdout


@pytest.mark.parametrize("backend", ["openvino", "opencv"])
def test_two_threads_reading_with_one_model_each_get_their_own_reading(backend: str) -> None:
    """A camera's table still reading when the next one starts with the same reader: OpenVINO's one request per
    compiled model said "Infer Request is busy" and gave readings of the other thread's picture, and OpenCV's
    setInput of one thread could come before the other's forward (the suite audit, session 43)."""
    model = load_backend(MODELS, "index-detector", backend)
    rng = np.random.default_rng(7)
    pictures = [rng.integers(0, 256, (1, 160 + 32 * i, 192, 3), dtype=np.uint8) for i in range(3)]
    alone = [model(p) for p in pictures]
    wrong: list[tuple[int, str]] = []

    def read(n: int) -> None:
        for k in range(40):
            i = (n + k) % len(pictures)
            try:
                if not np.array_equal(model(pictures[i]), alone[i]):
                    wrong.append((i, "another reading"))
            except Exception as exc:  # (what a thread met is the finding)
                wrong.append((i, repr(exc)))

    threads = [threading.Thread(target=read, args=(n,)) for n in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert wrong == [], wrong[:3]


@pytest.mark.skipif(not (MODELS / "data.yaml").exists(), reason="no shipped models in models/")
def test_a_model_file_onnx_runtime_cannot_read_goes_on_to_opencv_and_none_is_a_model_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ONNX Runtime's errors (InvalidProtobuf, NoSuchFile, Fail ...) are no RuntimeError: a .onnx it could not read
    (no OpenVINO folder beside it) was a traceback, OpenCV DNN never tried, no "cannot load" (mutation round, s55)."""
    ort = pytest.importorskip("onnxruntime")
    (tmp_path / "junk.onnx").write_bytes(b"half a download")
    with pytest.raises(ModelError) as caught:
        load_backend(tmp_path, "junk")
    said = str(caught.value)
    assert "openvino: FileNotFoundError" in said and "onnxruntime: " in said and "opencv: " in said, said
    from onnxruntime.capi.onnxruntime_pybind11_state import InvalidProtobuf

    (tmp_path / "card-classifier.onnx").symlink_to(MODELS / "card-classifier.onnx")

    def refuse(*args: object, **kwargs: object) -> None:
        raise InvalidProtobuf("Load model failed: Protobuf parsing failed.")

    monkeypatch.setattr(ort, "InferenceSession", refuse)
    assert load_backend(tmp_path, "card-classifier").name == "opencv"


@pytest.mark.skipif(not (MODELS / "data.yaml").exists(), reason="no shipped models in models/")
def test_auto_takes_openvino_and_a_backend_asked_for_is_the_one_given(tmp_path: Path) -> None:
    """OpenVINO first (about 2x faster than ONNX Runtime here); ``--backend`` gets the backend it names."""
    pytest.importorskip("openvino")
    pytest.importorskip("onnxruntime")
    assert load_backend(MODELS, "index-detector").name == "openvino"
    for name in ("openvino", "onnxruntime", "opencv"):
        assert load_backend(MODELS, "card-classifier", name).name == name
    (tmp_path / "card-classifier.onnx").symlink_to(MODELS / "card-classifier.onnx")  # no OpenVINO folder here
    assert load_backend(tmp_path, "card-classifier").name == "onnxruntime"
    with pytest.raises(ModelError) as caught:  # nothing here: each backend says which file it looked for
        load_backend(tmp_path, "gone")
    assert str(caught.value) == (
        f"cannot load gone from {tmp_path}: openvino: FileNotFoundError: {tmp_path / 'gone_openvino' / 'gone.xml'}; "
        f"onnxruntime: FileNotFoundError: {tmp_path / 'gone.onnx'}; opencv: FileNotFoundError: {tmp_path / 'gone.onnx'}"
    )


@pytest.mark.skipif(not (MODELS / "data.yaml").exists(), reason="no shipped models in models/")
def test_openvino_missing_or_unreadable_goes_on_to_onnx_runtime(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("onnxruntime")
    (tmp_path / "card-classifier.onnx").symlink_to(MODELS / "card-classifier.onnx")
    (tmp_path / "card-classifier_openvino").mkdir()
    (tmp_path / "card-classifier_openvino" / "card-classifier.xml").write_text("<net/>")  # OpenVINO: RuntimeError
    assert load_backend(tmp_path, "card-classifier").name == "onnxruntime"
    monkeypatch.setitem(sys.modules, "openvino", None)  # not installed: ImportError
    assert load_backend(MODELS, "card-classifier").name == "onnxruntime"


@pytest.mark.skipif(not (MODELS / "data.yaml").exists(), reason="no shipped models in models/")
def test_openvino_compiles_a_model_once_per_shape_and_the_classifier_once_for_every_batch() -> None:
    """Compiling is the slow part: the classifier (a batch of crops a frame, as many as it has boxes) compiled for
    each batch size took 139 ms a call against 23 (scripts/b12_cost.py, session 55); the detector's few shapes
    (a webcam keeps one) are kept."""
    pytest.importorskip("openvino")
    rng = np.random.default_rng(3)
    classifier = load_backend(MODELS, "card-classifier", "openvino", dynamic_batch=True)
    for n in (1, 3, 5):
        assert classifier(rng.integers(0, 256, (n, 64, 64, 3), dtype=np.uint8)).shape[0] == n
    assert classifier.compiled == {}  # type: ignore[attr-defined]
    detector = load_backend(MODELS, "index-detector", "openvino")
    picture = rng.integers(0, 256, (1, 64, 96, 3), dtype=np.uint8)
    detector(picture)
    first = dict(detector.compiled)  # type: ignore[attr-defined]
    detector(picture)
    assert detector.compiled == first and len(first) == 1  # type: ignore[attr-defined]


@pytest.mark.skipif(not (MODELS / "data.yaml").exists(), reason="no shipped models in models/")
def test_each_backend_runs_on_tablecall_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    import cv2

    pytest.importorskip("openvino")
    pytest.importorskip("onnxruntime")
    monkeypatch.setenv("TABLECALL_THREADS", "3")
    before = cv2.getNumThreads()
    try:
        ov = load_backend(MODELS, "card-classifier", "openvino", dynamic_batch=True)
        assert ov.core.get_property("CPU", "INFERENCE_NUM_THREADS") == 3  # type: ignore[attr-defined]
        ort = load_backend(MODELS, "card-classifier", "onnxruntime")
        assert ort.session.get_session_options().intra_op_num_threads == 3  # type: ignore[attr-defined]
        load_backend(MODELS, "card-classifier", "opencv")
        assert cv2.getNumThreads() == 3
    finally:
        cv2.setNumThreads(before)


def test_save_meta_keeps_the_comment_lines_data_yaml_starts_with(tmp_path: Path) -> None:
    """``tablecall quantize`` and ``evaluate --tune`` rewrite models/data.yaml: its opening comments (what wrote it,
    what reads it) stay; the new values replace the old."""
    import yaml

    from vision.backends import save_meta

    (tmp_path / "data.yaml").write_text("# the shipped models\n# tuned on seed 77\nnames: [old]\n")
    path = save_meta(tmp_path, {"names": ["AS", "2S"], "conf": 0.25})
    text = path.read_text()
    assert text.startswith("# the shipped models\n# tuned on seed 77\n") and "old" not in text
    assert yaml.safe_load(text) == {"names": ["AS", "2S"], "conf": 0.25}
