"""vision.recover: the shipped ONNX files rebuild into trainable networks that compute the same thing."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("ultralytics")
pytest.importorskip("onnxruntime")
onnx = pytest.importorskip("onnx")

from vision.recover import RecoverError, max_difference, rebuild, write_checkpoint  # noqa: E402

MODELS = Path(__file__).resolve().parents[2] / "models"
pytestmark = [
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
    pytest.mark.filterwarnings("ignore::FutureWarning"),
]


@pytest.mark.parametrize(
    ("stem", "shape"),
    [("card-classifier", (4, 3, 64, 64)), ("card-face", (2, 3, 96, 96)), ("index-detector", (1, 3, 384, 640))],
)
def test_a_shipped_export_rebuilds_exactly(stem: str, shape: tuple[int, ...]) -> None:
    path = MODELS / f"{stem}.onnx"
    if not path.exists():
        pytest.skip(f"{path} is not shipped yet")
    net = rebuild(path)
    assert max_difference(path, net, shape) < 1e-3
    assert all(p.requires_grad for p in net.model[0].parameters())  # trainable, batch norms restored


def test_the_checkpoint_loads_in_ultralytics(tmp_path: Path) -> None:
    from ultralytics import YOLO

    path = MODELS / "card-face.onnx"
    if not path.exists():
        pytest.skip(f"{path} is not shipped yet")
    out = write_checkpoint(path, tmp_path / "face.pt")
    model = YOLO(str(out))
    assert model.task == "classify" and len(model.names) == 54
    assert max_difference(path, model.model.eval(), (1, 3, 96, 96)) < 1e-3


def test_an_onnx_file_that_is_no_ultralytics_export_is_refused(tmp_path: Path) -> None:
    from onnx import TensorProto, helper

    node = helper.make_node("Relu", ["x"], ["y"])
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])],
    )
    path = tmp_path / "plain.onnx"
    onnx.save(helper.make_model(graph), str(path))
    with pytest.raises(RecoverError, match="not an Ultralytics"):
        rebuild(path)


@pytest.mark.parametrize(
    ("node", "module"),
    [
        ("/model.0/conv/Conv", "model.0.conv"),
        ("/model.2/m.0/cv1/conv/Conv", "model.2.m.0.cv1.conv"),
        ("/model.22/cv2.2/cv2.2.2/Conv", "model.22.cv2.2.2"),
        ("/model.22/cv3.0/cv3.0.1/conv/Conv", "model.22.cv3.0.1.conv"),
        ("/model.9/linear/Gemm", "model.9.linear"),
    ],
)
def test_an_exported_node_names_its_module(node: str, module: str) -> None:
    from vision.recover import module_path

    assert module_path(node) == module


def test_calibrated_batch_norms_train_from_where_the_export_left_off() -> None:
    """In training a batch norm divides by its batch's statistics: calibrated on the same images, a training-mode
    pass computes what the export computes; left as identities, it does not."""
    import numpy as np
    import torch

    from vision.recover import calibrate

    path = MODELS / "card-face.onnx"
    if not path.exists():
        pytest.skip(f"{path} is not shipped yet")
    rng = np.random.default_rng(2)
    images = (rng.random((1, 3, 96, 96)) * 0.3 + rng.random((32, 3, 1, 1)) * 0.7).astype(np.float32)
    x = torch.from_numpy(images)

    def training_pass(net: object) -> np.ndarray:
        net.train()  # type: ignore[attr-defined]
        with torch.no_grad():
            return torch.softmax(net(x), dim=1).numpy()  # type: ignore[operator]

    plain = rebuild(path)
    with torch.no_grad():
        want = plain.eval()(x)[0].numpy()  # eval mode: (probabilities, logits)
    assert np.abs(training_pass(plain) - want).max() > 0.05  # identities: the first training step sees another net
    net = calibrate(rebuild(path), images)
    with torch.no_grad():
        assert np.abs(net.eval()(x)[0].numpy() - want).max() < 1e-4  # the same network in eval mode
    assert np.abs(training_pass(net) - want).max() < 0.02
    with pytest.raises(RecoverError, match="just rebuilt"):
        calibrate(net, images)


def test_an_upright_detector_turns_into_a_turned_box_one_keeping_its_weights(tmp_path: Path) -> None:
    """What ``train --warm`` does when the data has turned boxes and the last detector boxed upright: every tensor
    of the upright network carries over, the angle branch is new, and Ultralytics loads it as an OBB model."""
    import torch
    from ultralytics import YOLO
    from ultralytics.nn.tasks import DetectionModel

    from vision.recover import to_oriented

    upright = DetectionModel("yolov8n.yaml", nc=1, verbose=False)
    upright.names, upright.task = {0: "index"}, "detect"
    source = tmp_path / "upright.pt"
    torch.save({"epoch": -1, "model": upright, "ema": None, "optimizer": None, "train_args": {}}, source)
    turned = YOLO(str(to_oriented(source, tmp_path / "turned.pt")))
    assert turned.task == "obb" and turned.names == {0: "index"}
    mine, theirs = upright.state_dict(), turned.model.state_dict()
    shared = [k for k in mine if k in theirs and mine[k].shape == theirs[k].shape]
    assert len(shared) == len(mine)  # the whole upright network carries over
    assert all(torch.equal(mine[k], theirs[k]) for k in shared)
    assert any(".cv4." in k for k in theirs) and not any(".cv4." in k for k in mine)  # the angle branch is new
    turned.model.eval()
    with torch.no_grad():
        out = turned.model(torch.rand(1, 3, 64, 96))[0]
    assert out.shape[1] == 6 and float(out[0, -1].abs().max()) < 0.05  # and starts out saying upright
