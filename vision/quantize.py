"""The index detector's OpenVINO network in 8-bit integers (post-training quantisation with NNCF).

The detector is most of a frame's time on the CPU (about 20 of 45 ms at 640 on a 2-core machine in bfloat16, the
precision OpenVINO picks where the CPU has it); in INT8 it takes about 12.  ``tablecall quantize`` reads the
shipped ONNX network (float32), runs it over rendered scenes of the *training* designs letterboxed as the reader
letterboxes them (long side 640 for photos and 1280 for a webcam frame, alternately) to learn each layer's range,
and writes the INT8 network in place of ``models/index-detector_openvino``.  The head's decoding (its own
reshapes, the box distribution's softmax, the sigmoid of the scores and angles) stays in float, as Ultralytics'
own INT8 export keeps it.  ONNX Runtime and OpenCV DNN, the fallbacks, keep reading the float32 ONNX file.

The calibration scenes are rendered from a seed (:data:`SEED`), so each run sees the same ones (two runs on one
machine wrote the same bytes), and they are never the validation (seed 77) or held-out scenes (seed 9001) the
reader is measured on.
``models/MODEL_CARD.md`` has what it changed.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.backends import ModelError, save_meta, to_input
from vision.boxes import letterbox
from vision.dataset import default_pool, scene_seed
from vision.detect import MODELS
from vision.synth import render_scene

SCENES, SEED = 200, 91  # calibration scenes of the training designs (validation scenes are seed 77)
SIZES = (640, 1280)  # letterboxed long sides, alternately: tablecall detect's and the live table's
DETECTOR = "index-detector"


def calibration_frames(count: int = SCENES, seed: int = SEED, progress: bool = True) -> Iterator[np.ndarray]:
    """``count`` whole scenes of the training designs (BGR, as a camera gives them), rendered from ``seed``."""
    from tqdm import tqdm

    pool = default_pool()
    for number in tqdm(range(count), desc="calibration scenes", unit="scene", disable=not progress):
        yield cv2.cvtColor(render_scene(scene_seed(seed, number), pool).image, cv2.COLOR_RGB2BGR)


def detector_inputs(frames: Iterable[np.ndarray], stride: int = 32, sizes: Sequence[int] = SIZES) -> list[np.ndarray]:
    """Each frame letterboxed as the reader does (long side ``sizes[k % len(sizes)]``), a uint8 batch of one: the
    network's input is :func:`vision.backends.to_input` of it (kept as uint8, 200 frames take a quarter of the
    memory)."""
    return [letterbox(frame, sizes[k % len(sizes)], stride)[0] for k, frame in enumerate(frames)]


def head_ops(names: Sequence[str]) -> list[str]:
    """The detector head's decoding: ops of the last ``model.N`` module itself and of its ``dfl``, not of its
    convolution branches (``cv2``, ``cv3``, ``cv4``), in an Ultralytics network read from ONNX (``/model.22/Concat``)
    or exported to OpenVINO from PyTorch (``__module.model.22/aten::cat``)."""
    numbers = [int(m.group(1)) for name in names if (m := re.search(r"model\.(\d+)[./]", name))]
    if not numbers:
        raise ModelError("not an Ultralytics detector: no model.N layers")
    head = rf"model\.{max(numbers)}"
    direct = re.compile(rf"^/{head}/[^/]+$|^__module\.{head}/")
    dfl = re.compile(rf"{head}(/|\.)dfl")
    return [name for name in names if direct.search(name) or dfl.search(name)]


def quantize_detector(
    models: Path = MODELS,
    scenes: int = SCENES,
    seed: int = SEED,
    sizes: Sequence[int] = SIZES,
    progress: bool = True,
    log: Callable[[str], Any] = print,
) -> dict[str, Any]:
    """Write ``models/index-detector_openvino`` as the INT8 network calibrated on ``scenes`` rendered scenes
    (:func:`calibration_frames`) and record it in ``models/data.yaml``; returns what it recorded."""
    import openvino as ov
    import yaml

    try:
        import nncf
    except ImportError as exc:
        raise ModelError("quantizing needs NNCF, a training package: pip install -e '.[train]'") from exc
    nncf.set_log_level(logging.WARNING)  # not a line for each op it leaves alone

    meta_path, onnx = models / "data.yaml", models / f"{DETECTOR}.onnx"
    if not meta_path.exists() or not onnx.exists():
        raise ModelError(f"{models} has no detector to quantize ({meta_path.name} and {onnx.name}): train first")
    meta = yaml.safe_load(meta_path.read_text())
    stride = int(meta["detector"]["stride"])
    if scenes < 1:
        raise ModelError("quantizing needs at least one calibration scene")
    samples = detector_inputs(calibration_frames(scenes, seed, progress), stride, sizes)
    model = ov.convert_model(str(onnx))  # not read_model: this fuses the SiLUs (Swish), which INT8 kernels need
    ignored = head_ops([op.get_friendly_name() for op in model.get_ordered_ops()])
    log(f"quantize: {len(samples)} calibration frames, {len(ignored)} head ops kept in float")
    quantized = nncf.quantize(
        model,
        nncf.Dataset(samples, to_input),
        preset=nncf.QuantizationPreset.MIXED,
        subset_size=len(samples),
        ignored_scope=nncf.IgnoredScope(names=ignored, validate=False),
    )
    target = models / f"{DETECTOR}_openvino"
    target.mkdir(parents=True, exist_ok=True)
    ov.save_model(quantized, str(target / f"{DETECTOR}.xml"), compress_to_fp16=False)
    record = {"precision": "int8", "calibration": {"scenes": scenes, "seed": seed, "sizes": list(sizes)}}
    meta["detector"]["openvino"] = record
    save_meta(models, meta)
    return record
