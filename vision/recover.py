"""Training weights back from the shipped ONNX files, so that a new machine can continue training.

``tablecall train --warm`` starts each stage from its last ``best.pt``, which lives in the gitignored ``runs/``: a
fresh clone (a new session's machine, a lent GPU machine) has none, only ``models/*.onnx``.  Ultralytics exports a
fused network (each convolution's batch norm folded into its weights and bias) and names every initializer after
the module it came from (``model.2.cv1.conv.weight``), so the trainable network can be rebuilt exactly: the same
architecture from its YAML, each convolution given the fused weights, and its batch norm made the identity plus
the fused bias (scale 1, mean 0, variance ``1 - eps``).  The rebuilt network computes what the ONNX file computes
(checked by :func:`max_difference`).

In training, though, a batch norm divides by its batch's statistics, not by its running ones: with the identity
batch norms every layer's output would change at the first step.  :func:`calibrate` measures each convolution's
output (mean and variance per channel) on real training images and gives its batch norm those statistics, with
scale and shift chosen so that the network still computes the same (scale ``sqrt(var + eps)``, shift bias plus
mean): then a training batch normalises the way the export already does, and training starts where it left off.

Heavy imports (torch, onnx, ultralytics) stay inside functions.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

YAMLS = {"classify": "yolov8n-cls.yaml", "detect": "yolov8n.yaml", "obb": "yolov8n-obb.yaml"}


class RecoverError(ValueError):
    """The ONNX file is not an Ultralytics export this module can rebuild."""


def _metadata(model: Any) -> dict[str, str]:
    return {p.key: p.value for p in model.metadata_props}


def rebuild(onnx_path: Path) -> Any:
    """The Ultralytics network (float32, eval mode) whose fused export is ``onnx_path``."""
    import onnx
    import torch
    from onnx import numpy_helper
    from ultralytics.nn.tasks import ClassificationModel, DetectionModel, OBBModel

    exported = onnx.load(str(onnx_path))
    meta = _metadata(exported)
    task = meta.get("task")
    if task not in YAMLS or "names" not in meta:
        raise RecoverError(f"{onnx_path}: not an Ultralytics classify, detect or obb export (task {task!r})")
    names = ast.literal_eval(meta["names"])
    kind = {"classify": ClassificationModel, "detect": DetectionModel, "obb": OBBModel}[task]
    net = kind(YAMLS[task], nc=len(names), verbose=False)
    net.names, net.task = names, task
    weights = {i.name: torch.from_numpy(numpy_helper.to_array(i).copy()) for i in exported.graph.initializer}
    modules = dict(net.named_modules())
    filled: set[str] = set()
    for node in exported.graph.node:
        if node.op_type not in ("Conv", "Gemm") or len(node.input) < 2 or node.input[1] not in weights:
            continue  # DFL's fixed convolution may be folded into a constant
        owner = module_path(node.name)
        module = modules.get(owner)
        if module is None:
            raise RecoverError(f"{onnx_path}: {node.name} has no place in {YAMLS[task]}")
        tensors = [weights[name] for name in node.input[1:3]]  # by the node's inputs: the export may share
        _fill(module, modules.get(owner.rpartition(".")[0]), tensors, onnx_path, node.name)  # equal tensors
        filled.add(owner)
    _check_complete(net, filled, onnx_path)
    return net.float().eval()


def module_path(node: str) -> str:
    """The module an exported node came from: ``/model.22/cv2.2/cv2.2.2/Conv`` -> ``model.22.cv2.2.2`` (each
    scope repeats its parent's path for children of a ``Sequential``)."""
    scopes = node.strip("/").split("/")[:-1]
    path, last = "", ""
    for scope in scopes:
        path += scope[len(last) :] if last and scope.startswith(last + ".") else ("." if path else "") + scope
        last = scope
    return path


def _fill(module: Any, parent: Any, tensors: list[Any], onnx_path: Path, node: str) -> None:
    """Give ``module`` the fused weight and bias; where it has no bias, its parent's batch norm carries it."""
    import torch

    weight, bias = tensors[0], tensors[1] if len(tensors) > 1 else None
    if tuple(module.weight.shape) != tuple(weight.shape):
        raise RecoverError(f"{onnx_path}: {node} {tuple(weight.shape)} does not fit {tuple(module.weight.shape)}")
    with torch.no_grad():
        module.weight.copy_(weight)
        if bias is None:
            return
        if module.bias is not None:
            module.bias.copy_(bias)
            return
        bn = getattr(parent, "bn", None)
        if bn is None or tuple(bn.bias.shape) != tuple(bias.shape):
            raise RecoverError(f"{onnx_path}: {node} has a bias its network has no place for")
        bn.weight.fill_(1.0)
        bn.bias.copy_(bias)
        bn.running_mean.zero_()
        bn.running_var.fill_(1.0 - bn.eps)


def _check_complete(net: Any, filled: set[str], onnx_path: Path) -> None:
    """Every trainable tensor came from the file (a convolution without a fused bias had a batch norm of zero
    bias; Ultralytics always fuses, so a missing one means a different network)."""
    missing = []
    for key, param in net.named_parameters():
        if not param.requires_grad:
            continue  # DFL's fixed weights
        owner = key.rpartition(".")[0]
        conv = owner.rpartition(".")[0] + ".conv" if owner.endswith(".bn") else owner
        if conv not in filled:
            missing.append(key)
    if missing:
        raise RecoverError(f"{onnx_path}: no weights for {len(missing)} tensors, e.g. {missing[:3]}")


def calibrate(net: Any, images: Any, batch: int = 64) -> Any:
    """Give ``net``'s batch norms the statistics of their convolutions' outputs on ``images`` (N, 3, H, W, float
    0-1), keeping what the network computes (see the module doc); returns ``net`` in eval mode."""
    import torch

    norm = torch.nn.BatchNorm2d
    pairs = [(m.conv, m.bn) for m in net.modules() if hasattr(m, "conv") and isinstance(getattr(m, "bn", None), norm)]
    if any(bool(bn.running_mean.abs().max() > 0) or bool((bn.weight != 1).any()) for _, bn in pairs):
        raise RecoverError("calibrate takes a network just rebuilt (identity batch norms)")
    sums: dict[int, list[Any]] = {}

    def record(index: int) -> Any:
        def hook(_module: Any, _inputs: Any, output: Any) -> None:
            x = output.detach().double().transpose(0, 1).reshape(output.shape[1], -1)
            entry = sums.setdefault(index, [0, 0.0, 0.0])
            entry[0] += x.shape[1]
            entry[1] = entry[1] + x.sum(dim=1)
            entry[2] = entry[2] + (x * x).sum(dim=1)

        return hook

    handles = [conv.register_forward_hook(record(k)) for k, (conv, _) in enumerate(pairs)]
    net.eval()
    with torch.no_grad():
        for start in range(0, len(images), batch):
            net(torch.as_tensor(images[start : start + batch], dtype=torch.float32))
    for handle in handles:
        handle.remove()
    with torch.no_grad():
        for k, (_, bn) in enumerate(pairs):
            n, total, squares = sums[k]
            mean = total / n
            var = (squares / n - mean * mean).clamp(min=1e-6)
            bias = bn.bias.double()  # the fused bias
            scale = torch.sqrt(var + bn.eps)
            bn.weight.copy_(scale.float())
            bn.bias.copy_((bias + mean).float())
            bn.running_mean.copy_(mean.float())
            bn.running_var.copy_(var.float())
    return net


def max_difference(onnx_path: Path, net: Any, shape: tuple[int, ...]) -> float:
    """Largest absolute difference between ONNX Runtime on ``onnx_path`` and ``net`` on one random input."""
    import numpy as np
    import onnxruntime as ort
    import torch

    x = np.random.default_rng(0).random(shape, dtype=np.float32)
    session = ort.InferenceSession(str(onnx_path), providers=["CPUExecutionProvider"])
    want = session.run(None, {session.get_inputs()[0].name: x})[0]
    with torch.no_grad():
        got = net(torch.from_numpy(x))
    got = got[0] if isinstance(got, (tuple, list)) else got
    return float(np.abs(got.numpy() - want).max())


def write_checkpoint(onnx_path: Path, out: Path, images: Any = None) -> Path:
    """Rebuild ``onnx_path`` (calibrated on ``images``, where given: :func:`calibrate`) and save it as an
    Ultralytics checkpoint ``out`` (what ``YOLO(out)`` and ``pretrained=out`` load)."""
    import torch

    net = rebuild(onnx_path)
    if images is not None and len(images):
        calibrate(net, images)
    out.parent.mkdir(parents=True, exist_ok=True)
    args = {"task": net.task, "recovered_from": str(onnx_path)}
    torch.save({"epoch": -1, "model": net, "ema": None, "optimizer": None, "train_args": args}, out)
    return out


def to_oriented(checkpoint: Path, out: Path) -> Path:
    """The detector of ``checkpoint`` (an Ultralytics ``detect`` checkpoint) as a turned-box (``obb``) detector:
    the same backbone, neck and box and class branches (every tensor whose shape fits), a new angle branch; saved
    as an Ultralytics checkpoint ``out``.  How the upright index detector's training carries over to the turned one
    (``vision.train``).  The new angle branch starts by saying 0 for every box (its last layer's weights near
    zero, its bias where Ultralytics' angle, (sigmoid - 1/4) pi, is 0), so the turned detector starts out boxing
    as the upright one did and learns the angles from there."""
    import math

    import torch
    from ultralytics.nn.tasks import OBBModel

    source = torch.load(checkpoint, map_location="cpu", weights_only=False)
    net = source.get("ema") or source["model"]
    names = dict(net.names)
    oriented = OBBModel(YAMLS["obb"], nc=len(names), verbose=False)
    oriented.load(net, verbose=False)
    with torch.no_grad():
        for branch in oriented.model[-1].cv4:
            last = branch[-1]
            last.weight.mul_(0.01)
            last.bias.fill_(-math.log(3))  # sigmoid = 1/4
    oriented.names, oriented.task = names, "obb"
    out.parent.mkdir(parents=True, exist_ok=True)
    args = {"task": "obb", "turned_from": str(checkpoint)}
    torch.save({"epoch": -1, "model": oriented, "ema": None, "optimizer": None, "train_args": args}, out)
    return out
