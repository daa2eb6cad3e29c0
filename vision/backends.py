"""The networks' runtimes, without PyTorch: OpenVINO, else ONNX Runtime, else OpenCV DNN (:func:`load_backend`).

Backend order is by measurement on this machine (1280x720 frame, detector at 640, 2 threads): OpenVINO about
2x faster than ONNX Runtime, which is faster than OpenCV DNN; each is tried in turn if the one before is not
installed or cannot load the model.  The shipped OpenVINO detector is in INT8 (``tablecall quantize``,
:mod:`vision.quantize`); the ONNX files are float32.
"""

from __future__ import annotations

import itertools
import os
import threading
from pathlib import Path
from typing import Any, Protocol

import cv2
import numpy as np

BACKENDS = ("openvino", "onnxruntime", "opencv")


class ModelError(RuntimeError):
    """The model files are missing or no backend can run them."""


class Backend(Protocol):
    """A network that takes a batch of BGR images, uint8 (N, H, W, 3), as OpenCV reads them, and returns its
    output; each turns them into the networks' input (float RGB 0-1, N, 3, H, W) with :func:`to_input`."""

    name: str

    def __call__(self, images: np.ndarray) -> np.ndarray: ...


def _threads() -> int:
    return int(os.environ.get("TABLECALL_THREADS", "2"))


def to_input(images: np.ndarray) -> np.ndarray:
    """uint8 BGR (N, H, W, 3) -> float32 RGB 0-1 (N, 3, H, W), one channel at a time: the same numbers as
    ``images[..., ::-1].transpose(0, 3, 1, 2).astype(np.float32) / 255``, which took 6 ms for one 640x384 frame
    where the input was a transposed view (this takes 1)."""
    out = np.empty((images.shape[0], 3, *images.shape[1:3]), np.float32)
    for c in range(3):
        np.divide(images[..., 2 - c], np.float32(255), out=out[:, c], casting="unsafe")
    return out


class OpenVinoBackend:
    """OpenVINO: the model is reshaped to each new input shape once (a webcam keeps one shape). One call at a time:
    a compiled model has one request, so two threads reading at once (a camera's table still reading while the next
    starts with the same reader) had "Infer Request is busy" and readings of the other thread's picture (the suite
    audit, session 43)."""

    name = "openvino"

    def __init__(self, xml: Path, dynamic_batch: bool = False) -> None:
        import openvino as ov

        self.core = ov.Core()
        self.core.set_property("CPU", {"INFERENCE_NUM_THREADS": _threads()})
        self.model = self.core.read_model(str(xml))
        self.dynamic_batch = dynamic_batch
        self.compiled: dict[tuple[int, ...], Any] = {}
        self._lock = threading.Lock()
        if dynamic_batch:
            self.any = self.core.compile_model(self.model, "CPU")

    def __call__(self, images: np.ndarray) -> np.ndarray:
        batch = to_input(images)
        with self._lock:
            if self.dynamic_batch:
                return np.asarray(self.any(batch)[0])
            shape = tuple(batch.shape)
            if shape not in self.compiled:
                if len(self.compiled) > 4:
                    self.compiled.clear()
                model = self.model.clone()
                model.reshape({model.inputs[0].any_name: list(shape)})
                self.compiled[shape] = self.core.compile_model(model, "CPU")
            return np.asarray(self.compiled[shape](batch)[0])


class OnnxRuntimeBackend:
    name = "onnxruntime"

    def __init__(self, onnx: Path) -> None:
        import onnxruntime as ort

        options = ort.SessionOptions()
        options.intra_op_num_threads = _threads()
        options.inter_op_num_threads = 1
        try:
            self.session = ort.InferenceSession(str(onnx), options, providers=["CPUExecutionProvider"])
        except Exception as exc:  # its errors (InvalidProtobuf, NoSuchFile, Fail ...) are no RuntimeError: the
            raise ModelError(f"{exc.__class__.__name__}: {exc}") from exc  # next backend is tried (mutation round, s55)
        self.input = self.session.get_inputs()[0].name

    def __call__(self, images: np.ndarray) -> np.ndarray:
        return np.asarray(self.session.run(None, {self.input: to_input(images)})[0])


class OpenCvBackend:
    name = "opencv"

    def __init__(self, onnx: Path) -> None:
        cv2.setNumThreads(_threads())
        self.net = cv2.dnn.readNetFromONNX(str(onnx))
        self._lock = threading.Lock()  # (setInput, then forward: another thread's picture could come between)

    def __call__(self, images: np.ndarray) -> np.ndarray:
        batch = to_input(images)
        with self._lock:
            self.net.setInput(batch)
            return np.asarray(self.net.forward())


def load_backend(models: Path, stem: str, prefer: str = "auto", dynamic_batch: bool = False) -> Backend:
    """The first backend of ``BACKENDS`` (or just ``prefer``) that loads ``models/<stem>``."""
    order = BACKENDS if prefer == "auto" else (prefer,)
    problems = []
    for name in order:
        try:
            if name == "openvino":
                xml = models / f"{stem}_openvino" / f"{stem}.xml"
                if not xml.exists():
                    raise FileNotFoundError(xml)
                return OpenVinoBackend(xml, dynamic_batch)
            onnx = models / f"{stem}.onnx"
            if not onnx.exists():
                raise FileNotFoundError(onnx)
            return OnnxRuntimeBackend(onnx) if name == "onnxruntime" else OpenCvBackend(onnx)
        except (ImportError, FileNotFoundError, RuntimeError, cv2.error) as exc:
            problems.append(f"{name}: {exc.__class__.__name__}: {exc}")
    raise ModelError(f"cannot load {stem} from {models}: " + "; ".join(problems))


def save_meta(models: Path, meta: dict[str, Any]) -> Path:
    """Write ``meta`` as ``models/data.yaml``, keeping the comment lines it starts with."""
    import yaml

    path = models / "data.yaml"
    lines = path.read_text().splitlines(keepends=True) if path.exists() else []
    header = "".join(itertools.takewhile(lambda line: line.startswith("#"), lines))
    path.write_text(header + yaml.safe_dump(meta, sort_keys=False))
    return path
