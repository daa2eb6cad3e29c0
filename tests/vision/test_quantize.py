"""The detector's INT8 network: which ops stay in float, and the command's errors (the quick training test in
test_train_and_cli.py quantizes a freshly trained detector end to end)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("cv2")
pytest.importorskip("openvino")

from vision.backends import ModelError
from vision.detect import MODELS
from vision.quantize import head_ops, quantize_detector
from web.cli import main

ONNX_NAMES = [
    "/model.0/conv/Conv",
    "/model.21/cv2/conv/Conv",
    "/model.22/cv2.0/cv2.0.0/conv/Conv",  # the head's convolutions are quantized
    "/model.22/cv3.2/cv3.2.1/act/Sigmoid",
    "/model.22/Concat",
    "/model.22/dfl/Softmax",
    "/model.22/dfl/conv/Conv",
    "/model.22/Sigmoid",
    "model.22.dfl.conv.weight",
]
TORCH_NAMES = [
    "__module.model.0.conv/aten::_convolution/Convolution",
    "__module.model.22.cv2.0.0.conv/aten::_convolution/Convolution",
    "__module.model.22/aten::cat/Concat",
    "__module.model.22.dfl/aten::softmax/Softmax",
    "__module.model.22.dfl.conv/aten::_convolution/Convolution",
    "__module.model.22/aten::sigmoid/Sigmoid",
]


@pytest.mark.parametrize(
    ("names", "kept"),
    [
        (ONNX_NAMES, {"/model.22/Concat", "/model.22/dfl/Softmax", "/model.22/dfl/conv/Conv", "/model.22/Sigmoid"}),
        (TORCH_NAMES, set(TORCH_NAMES[2:])),
    ],
    ids=["onnx", "pytorch-export"],
)
def test_the_heads_decoding_stays_in_float_and_its_convolutions_do_not(names: list[str], kept: set[str]) -> None:
    assert set(head_ops(names)) - {"model.22.dfl.conv.weight"} == kept


def test_the_shipped_detectors_head_is_found() -> None:
    import openvino as ov

    model = ov.convert_model(str(MODELS / "index-detector.onnx"))
    names = [op.get_friendly_name() for op in model.get_ordered_ops()]
    kept = head_ops(names)
    assert "/model.22/dfl/conv/Conv" in kept and "/model.22/Sigmoid" in kept
    assert not any("/cv2." in name or "/cv3." in name or "/cv4." in name for name in kept)


def test_a_network_without_ultralytics_layers_is_refused() -> None:
    with pytest.raises(ModelError, match=r"no model\.N"):
        head_ops(["conv1/Conv", "fc/MatMul"])


def test_quantizing_a_folder_without_a_detector_says_so(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="no detector to quantize"):
        quantize_detector(tmp_path, scenes=1)


def test_the_quantize_command_reports_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["quantize", "--models", str(tmp_path)]) == 2
    assert "no detector to quantize" in capsys.readouterr().err
    assert main(["quantize", "--scenes", "0", "--models", str(tmp_path)]) == 2
    assert "at least 1" in capsys.readouterr().err


@pytest.mark.skipif(not (MODELS / "data.yaml").exists(), reason="no shipped models in models/")
def test_the_shipped_int8_detector_boxes_the_indices_the_float_onnx_network_boxes() -> None:
    import yaml

    pytest.importorskip("onnxruntime")
    from vision.detect import CardReader
    from vision.evaluate import box_ious
    from vision.synth import DesignPool, render_scene

    assert yaml.safe_load((MODELS / "data.yaml").read_text())["detector"]["openvino"]["precision"] == "int8"
    int8 = CardReader(MODELS, "openvino", imgsz=640, faces=False)
    float32 = CardReader(MODELS, "onnxruntime", imgsz=640, faces=False)
    assert (int8.detector_precision, float32.detector_precision) == ("int8", "float")  # what evaluate reports
    matched = total = 0
    for seed in range(4):
        frame = render_scene(seed, DesignPool((), proc_share=1.0), size=(1280, 720)).image[:, :, ::-1].copy()
        (a, _), (b, _) = int8.indices(frame), float32.indices(frame)
        iou = box_ious(a, b)
        matched += int((iou.max(axis=0) >= 0.7).sum()) if len(a) else 0
        total += len(b)
    assert total >= 20 and matched >= 0.9 * total  # the same boxes, to within the rounding of 8-bit integers
