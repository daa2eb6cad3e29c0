"""Training recipe for the two-stage card reader, and export to ONNX and OpenVINO.

Stage 1 (``detector``): YOLOv8n from scratch, one class ``index`` (a corner index: rank over suit), trained at
416 px on 416 px tiles of scenes already downscaled to the run-time 640 px frame, so tiles train cheaply at the
pixel scale the detector meets later.  Stage 2 (``classifier``): the yolov8n-cls network from scratch on 64 px
crops around each index, 54 classes (52 cards, ``JK``, ``bg`` for whatever is not an index).

This machine: offline (no pretrained weights, no downloads: ``YOLO_OFFLINE``), two cores (``torch`` set to two
threads in a callback; Ultralytics leaves it at one), bf16 autocast on CPU (Ultralytics allows bf16 only on CUDA:
:func:`_enable_cpu_bf16` lifts that; 3-4x faster here).  On a GPU the same recipe runs with Ultralytics' AMP.
Runs are resumable (``resume=True`` continues ``last.pt``); ``minutes`` caps a stage's wall time (Ultralytics'
``time``: the schedule is re-fitted to the budget after the first epoch).

Heavy imports (torch, ultralytics) stay inside functions: importing this module is cheap.
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from vision.cardart import ROOT
from vision.quantize import SCENES as QUANTIZE_SCENES
from vision.quantize import quantize_detector

MODELS = ROOT / "models"
RUNS = ROOT / "runs" / "vision"
DETECTOR = "index-detector"
CLASSIFIER = "card-classifier"
FACE = "card-face"
NAMES = {"detector": DETECTOR, "classifier": CLASSIFIER, "face": FACE}
SIZES = {"detector": 640, "classifier": 64, "face": 96}  # export input sizes (all three are dynamic)
DATA = {"detector": "detect/data.yaml", "classifier": "classify", "face": "faces"}  # under the synth folder
MODEL_YAMLS = {"detect": "yolov8n.yaml", "obb": "yolov8n-obb.yaml", "classify": "yolov8n-cls.yaml"}


@dataclass
class StageConfig:
    """One stage's Ultralytics settings (anything in ``extra`` is passed through)."""

    epochs: int
    imgsz: int
    batch: int
    minutes: float | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def detector_config(
    epochs: int = 30,
    minutes: float | None = None,
    imgsz: int = 416,
    batch: int = 32,
    lr0: float = 0.002,
    scale: float = 0.35,
) -> StageConfig:
    extra = {
        "optimizer": "AdamW",
        "lr0": lr0,
        "cos_lr": True,
        "warmup_epochs": 1,
        "mosaic": 1.0,
        "close_mosaic": max(1, epochs // 10),
        "scale": scale,  # zoom 0.65-1.35 by default: the scenes already vary card size
        "degrees": 0.0,  # scenes are already rotated; rotating boxes would only loosen them
        "fliplr": 0.0,  # a mirrored index does not exist
        "translate": 0.1,
        "hsv_h": 0.01,
    }
    return StageConfig(epochs, imgsz, batch, minutes, extra)


def classifier_config(
    epochs: int = 20, minutes: float | None = None, imgsz: int = 64, batch: int = 256, lr0: float = 0.002
) -> StageConfig:
    extra = {
        "optimizer": "AdamW",
        "lr0": lr0,
        "cos_lr": True,
        "warmup_epochs": 1,
        "fliplr": 0.0,
        "flipud": 0.0,
        "scale": 0.15,  # RandomResizedCrop keeps 85-100 % of the crop: never cut the rank away
        "erasing": 0.1,
        "auto_augment": "",  # RandAugment's solarize/posterize blur red and black; plain colour jitter instead
        "hsv_h": 0.01,
        "dropout": 0.1,
    }
    return StageConfig(epochs, imgsz, batch, minutes, extra)


def face_config(
    epochs: int = 20,
    minutes: float | None = None,
    imgsz: int = 96,
    batch: int = 128,
    lr0: float = 0.001,
    hue: float = 0.5,
) -> StageConfig:
    """The face reader (``vision.facecards``): the classifier's recipe on 96 px squares of whole cards; ``hue``
    is the colour jitter's hue range (0.5 turns colours at random: suits by their shape, not their ink)."""
    config = classifier_config(epochs, minutes, imgsz, batch, lr0)
    config.extra["scale"] = 0.1  # keep 90-100 %: the square is cut to hold the whole card
    config.extra["hsv_h"] = hue
    return config


def configure_offline() -> None:
    """Ultralytics settings for a machine without network: no downloads, no sync, a local config folder."""
    config = ROOT / ".yolo"
    os.environ.setdefault("YOLO_OFFLINE", "1")
    os.environ.setdefault("YOLO_AUTOINSTALL", "False")
    os.environ.setdefault("YOLO_CONFIG_DIR", str(config))
    fonts = Path(os.environ["YOLO_CONFIG_DIR"]) / "Ultralytics"
    fonts.mkdir(parents=True, exist_ok=True)
    for name in ("Arial.ttf", "Arial.Unicode.ttf"):  # plots want these; never download them
        target = fonts / name
        source = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")
        if not target.exists() and source.exists():
            shutil.copyfile(source, target)
    from ultralytics.utils import SETTINGS

    SETTINGS.update({"sync": False})


def _enable_cpu_bf16() -> None:
    """Let Ultralytics' training loop autocast to bfloat16 on the CPU (it only allows CUDA)."""
    import torch
    import ultralytics.engine.trainer as trainer

    original = trainer.autocast
    if getattr(original, "_tablecall", False):
        return

    def autocast(enabled: Any, device: str = "cuda") -> Any:
        if device == "cpu" and enabled is torch.bfloat16:
            return torch.autocast("cpu", dtype=torch.bfloat16)
        return original(enabled, device)

    autocast._tablecall = True  # type: ignore[attr-defined]
    trainer.autocast = autocast


def pick_device(device: str = "auto") -> str:
    import torch

    if device == "auto":
        return "0" if torch.cuda.is_available() else "cpu"
    return device


def train_stage(
    stage: str,
    data: Path,
    config: StageConfig,
    device: str = "auto",
    threads: int = 2,
    resume: bool = False,
    runs: Path = RUNS,
    bf16: bool = True,
    fraction: float = 1.0,
    warm: bool = False,
    init: Path | None = None,
    models: Path = MODELS,
) -> Path:
    """Train one stage (``detector``, ``classifier`` or ``face``) and return its best weights.

    ``resume`` continues an interrupted run (same schedule); ``warm`` starts a new run from the stage's last
    best weights (a new schedule, possibly new data): how training is spread over several sessions; where
    ``runs/`` has none (a new machine), from the weights shipped in ``models`` (rebuilt from their ONNX export,
    :mod:`vision.recover`); ``init`` starts a new run from other weights of the same classes (the face reader from
    the index classifier's; a ``.pt`` checkpoint or an Ultralytics ``.onnx`` export).
    """
    configure_offline()
    import torch
    from ultralytics import YOLO

    device = pick_device(device)
    name = NAMES[stage]
    last = runs / name / "weights" / "last.pt"
    on_cpu = device == "cpu"
    if on_cpu:
        torch.set_num_threads(threads)
    best = runs / name / "weights" / "best.pt"
    if resume and last.exists() and _finished(last):
        return best if best.exists() else last  # this stage ended before the interruption: nothing to resume
    task = detector_task(data) if stage == "detector" else "classify"
    if warm and not best.exists() and init is None:
        init = models / f"{name}.onnx"  # a new machine: no runs/ yet, so the shipped weights (vision.recover)
        if not init.exists():
            raise FileNotFoundError(f"--warm: neither {best} nor {init} exists")
    warm_start: Path | None = None  # Ultralytics drops a model's own weights when pretrained is False
    if resume and last.exists():
        model = YOLO(str(last))
    elif (warm and best.exists()) or init is not None:
        warm_start = _start_weights(stage, data, config, runs, best if warm and best.exists() else init, task)
        model = YOLO(str(warm_start))
        resume = False
    else:
        model = YOLO(MODEL_YAMLS[task], task=task)
        resume = False
    if on_cpu:
        model.add_callback("on_pretrain_routine_start", lambda _: torch.set_num_threads(threads))
        model.add_callback("on_train_start", lambda _: torch.set_num_threads(threads))
    args = {
        "data": str(data),
        "epochs": config.epochs,
        "imgsz": config.imgsz,
        "batch": config.batch,
        "device": device,
        "project": str(runs.resolve()),
        "name": name,
        "exist_ok": True,
        "pretrained": str(warm_start) if warm_start else False,
        "amp": _mixed_precision(on_cpu, bf16),
        "plots": False,
        "workers": 0 if on_cpu else min(16, os.cpu_count() or 1),  # a GPU waits on its loaders
        "seed": 0,
        "deterministic": False,
        "patience": 1000,
        "verbose": True,
        "fraction": fraction,
        **config.extra,
    }
    if config.minutes:
        args["time"] = config.minutes / 60
    if resume:
        model.train(resume=True, **{k: args[k] for k in ("device", "workers", "amp")})
    else:
        model.train(**args)
    return best if best.exists() else last


def _start_weights(stage: str, data: Path, config: StageConfig, runs: Path, source: Path | None, task: str) -> Path:
    """A new run's starting checkpoint (``runs/<name>-start.pt``) from ``source``: a checkpoint copied, an ONNX
    export rebuilt (:mod:`vision.recover`), an upright detector turned into a turned-box one where ``task`` asks."""
    name = NAMES[stage]
    start = runs / f"{name}-start.pt"
    start.parent.mkdir(parents=True, exist_ok=True)
    if source is not None and source.suffix == ".onnx":
        from vision.recover import write_checkpoint

        print(f"train: {name} starts from {source} (rebuilt from the export: vision/recover.py)")
        write_checkpoint(source, start, calibration_images(stage, data, config.imgsz))
    else:
        shutil.copyfile(source, start)  # type: ignore[arg-type]
    if task == "obb" and checkpoint_task(start) == "detect":
        from vision.recover import to_oriented

        print(f"train: {name} turns the upright detector of {source} into a turned-box one (vision/recover.py)")
        to_oriented(start, start)
    return start


def _mixed_precision(on_cpu: bool, bf16: bool) -> Any:
    """Ultralytics' ``amp``: bf16 where asked for and the device has it (on the CPU it makes training 3-4x
    faster), else float16 AMP on a GPU and none on the CPU."""
    import torch

    if on_cpu and bf16:
        _enable_cpu_bf16()
        return "bf16"
    if on_cpu:
        return False
    if bf16 and torch.cuda.is_available() and torch.cuda.is_bf16_supported():
        return "bf16"  # also skips Ultralytics' AMP check, which wants to download a model
    return True


def detector_task(data: Path) -> str:
    """``obb`` where the detector set's labels are turned boxes (four corners, ``tablecall synth`` since session
    20), else ``detect`` (upright boxes, ``synth --axis-aligned``)."""
    import yaml

    meta = yaml.safe_load(data.read_text())
    folder = Path(meta.get("path", data.parent)) / "labels" / str(meta["train"]).split("/")[-1]
    for label in sorted(folder.glob("*.txt")):
        first = label.read_text().split("\n", 1)[0].split()
        if first:
            return "obb" if len(first) == 9 else "detect"
    return "detect"


def is_oriented(data: Path) -> bool:
    """Whether ``tablecall synth`` wrote this folder's crops turned along their index (``oriented.json``)."""
    marker = data / "oriented.json"
    return marker.exists() and bool(json.loads(marker.read_text()).get("oriented"))


def checkpoint_task(checkpoint: Path) -> str:
    import torch

    saved = torch.load(checkpoint, map_location="cpu", weights_only=False)
    net = saved.get("ema") or saved["model"]
    return str(getattr(net, "task", None) or saved.get("train_args", {}).get("task", "detect"))


def calibration_images(stage: str, data: Path, imgsz: int, count: int = 256) -> Any:
    """``count`` training images of the stage's data, evenly spread, as an (N, 3, imgsz, imgsz) float array 0-1
    (RGB): what :func:`vision.recover.calibrate` measures the rebuilt network's batch norms on."""
    import cv2
    import numpy as np

    if stage == "detector":
        import yaml

        meta = yaml.safe_load(data.read_text())
        folder = Path(meta.get("path", data.parent)) / meta["train"]
        files = sorted(folder.rglob("*.jpg")) + sorted(folder.rglob("*.png"))
    else:
        files = sorted((data / "train").glob("*/*.jpg"))
    picked = files[:: max(1, len(files) // count)][:count]
    images = []
    for path in picked:
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if image is not None:
            images.append(cv2.resize(image, (imgsz, imgsz), interpolation=cv2.INTER_AREA)[:, :, ::-1])
    if not images:
        return np.zeros((0, 3, imgsz, imgsz), np.float32)
    return np.ascontiguousarray(np.stack(images).transpose(0, 3, 1, 2), dtype=np.float32) / 255


def _finished(checkpoint: Path) -> bool:
    """Ultralytics marks a checkpoint of a completed run with epoch -1 (and drops the optimizer)."""
    import torch

    return int(torch.load(checkpoint, map_location="cpu", weights_only=False).get("epoch", -1)) == -1


def export(weights: Path, stage: str, models: Path = MODELS, imgsz: int | None = None) -> dict[str, str]:
    """Export trained weights to ONNX (dynamic shapes) and OpenVINO (FP16 weights) under ``models/``."""
    configure_offline()
    from ultralytics import YOLO

    name = NAMES[stage]
    size = imgsz or SIZES[stage]
    models.mkdir(parents=True, exist_ok=True)
    onnx = Path(YOLO(str(weights)).export(format="onnx", imgsz=size, dynamic=True, simplify=True, device="cpu"))
    shutil.copyfile(onnx, models / f"{name}.onnx")
    ov_dir = Path(YOLO(str(weights)).export(format="openvino", imgsz=size, dynamic=True, half=True, device="cpu"))
    target = models / f"{name}_openvino"
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    for item in ov_dir.iterdir():
        suffix = item.suffix if item.suffix in (".xml", ".bin") else ""
        shutil.copyfile(item, target / (f"{name}{suffix}" if suffix else item.name))
    return {"onnx": str(models / f"{name}.onnx"), "openvino": str(target / f"{name}.xml")}


def class_names(weights: Path) -> list[str]:
    configure_offline()
    from ultralytics import YOLO

    names = YOLO(str(weights)).names
    return [names[i] for i in sorted(names)]


def write_data_yaml(
    models: Path,
    detector: list[str] | None,
    classifier: list[str] | None,
    notes: dict[str, Any],
    face: list[str] | None = None,
    task: str = "detect",
    upright: bool = False,
) -> Path:
    """``models/data.yaml``: the class order of each stage and the input sizes the runtime needs; the detector's
    ``task`` (``obb``: turned boxes) and whether the classifier reads crops turned ``upright`` along them."""
    path = models / "data.yaml"
    current: dict[str, Any] = {}
    if path.exists():
        import yaml

        current = yaml.safe_load(path.read_text()) or {}
    if detector is not None:
        current["detector"] = {
            "file": DETECTOR,
            "names": detector,
            "imgsz": SIZES["detector"],
            "stride": 32,
            "task": task,
        }
    if classifier is not None:
        from vision.crops import CROP_MARGIN

        size = SIZES["classifier"]
        current["classifier"] = {
            "file": CLASSIFIER,
            "names": classifier,
            "imgsz": size,
            "crop_margin": CROP_MARGIN,
            "upright": upright,
        }
    if face is not None:
        from vision.facecards import FACE_MARGIN

        current["face"] = {"file": FACE, "names": face, "imgsz": SIZES["face"], "margin": FACE_MARGIN}
    current.setdefault("training", {}).update(notes)
    current.pop("reader", None)  # thresholds chosen for the previous weights: evaluate --tune chooses them anew
    import yaml

    path.write_text(
        "# written by `tablecall train` (reader: `tablecall evaluate --tune`); vision/detect.py reads it\n"
        + yaml.safe_dump(current, sort_keys=False)
    )
    return path


@dataclass
class Recipe:
    """A whole run: which stages, their settings, where the data and the outputs are."""

    data: Path
    stages: tuple[str, ...] = ("classifier", "detector")
    detector: StageConfig = field(default_factory=detector_config)
    classifier: StageConfig = field(default_factory=classifier_config)
    face: StageConfig = field(default_factory=face_config)
    face_init: Path | None = None
    device: str = "auto"
    threads: int = 2
    resume: bool = False
    export: bool = True
    models: Path = MODELS
    runs: Path = RUNS
    bf16: bool = True
    fraction: float = 1.0
    warm: bool = False
    quantize: int = QUANTIZE_SCENES  # calibration scenes for the detector's INT8 OpenVINO network (0: keep FP16)


def stage_config(recipe: Recipe, stage: str) -> StageConfig:
    return {"detector": recipe.detector, "classifier": recipe.classifier, "face": recipe.face}[stage]


def publish(best: Path, stage: str, recipe: Recipe) -> dict[str, Any]:
    """Export one stage's trained weights into ``recipe.models``, record its class order and training settings in
    ``data.yaml``, and quantize the detector; what a training run does after its last epoch, and what
    ``tablecall train --export-only`` does with weights trained elsewhere (a lent GPU machine)."""
    written = export(best, stage, recipe.models)
    names = class_names(best)
    write_data_yaml(
        recipe.models,
        names if stage == "detector" else None,
        names if stage == "classifier" else None,
        {stage: {"data": str(recipe.data), **asdict(stage_config(recipe, stage))}},
        names if stage == "face" else None,
        task=checkpoint_task(best) if stage == "detector" else "detect",
        upright=stage == "classifier" and is_oriented(recipe.data),
    )
    if stage == "detector" and recipe.quantize:
        written["openvino_int8"] = quantize_detector(recipe.models, recipe.quantize)
    return written


def run(recipe: Recipe) -> dict[str, Any]:
    """Train the chosen stages in order, export each, record the class order; returns what was written."""
    written: dict[str, Any] = {}
    for stage in recipe.stages:
        config = stage_config(recipe, stage)
        data = recipe.data / DATA[stage]
        if not data.exists():
            raise FileNotFoundError(f"{data} does not exist: write the data first (tablecall synth {recipe.data})")
        best = train_stage(
            stage,
            data,
            config,
            recipe.device,
            recipe.threads,
            recipe.resume,
            recipe.runs,
            recipe.bf16,
            recipe.fraction,
            recipe.warm,
            recipe.face_init if stage == "face" else None,
            recipe.models,
        )
        written[stage] = {"weights": str(best)}
        if recipe.export:
            written[stage].update(publish(best, stage, recipe))
    if recipe.export:
        (recipe.runs / "last_run.json").write_text(json.dumps(written, indent=2))
    return written
