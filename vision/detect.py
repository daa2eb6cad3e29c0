"""Reading cards in an image at run time, without PyTorch: OpenVINO, else ONNX Runtime, else OpenCV DNN.

Two stages (see ``models/MODEL_CARD.md``): the detector boxes every corner index in a letterboxed frame whose long
side is ``imgsz`` (640 by default, which suits photos in which the cards fill much of the picture; a webcam frame
of a whole table, with indices of 10-20 px, is read at its full 1280 px, :data:`WEBCAM_IMGSZ`); the classifier
reads a 64 px square crop around each box from the full-resolution image (52 cards, ``JK``, or ``bg`` for "not an
index"); indices of the same card that lie within a card's reach of each other are joined into one physical card,
whose box is the union of its index boxes (two opposite corners: about the card).

Backend order is by measurement on this machine (1280x720 frame, detector at 640, 2 threads): OpenVINO about
2x faster than ONNX Runtime, which is faster than OpenCV DNN; each is tried in turn if the one before is not
installed or cannot load the model.  The shipped OpenVINO detector is in INT8 (``tablecall quantize``,
:mod:`vision.quantize`); the ONNX files are float32.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import cv2
import numpy as np

from vision.crops import crop_box, cut, cut_turned, turned_square
from vision.facecards import SIZE_RATIO, box_centre, candidate_pairs, pair_square

MODELS = Path(__file__).resolve().parent.parent / "models"
DEFAULT_CONF, DEFAULT_MIN_CARD = 0.25, 0.5  # until evaluate --tune has chosen them for the weights in models/
# each index is read from five crops and the probabilities averaged (the training crops are 1.1-1.55 index sizes
# wide, shifted by ~7 % of their side): three widths, 1.05, 1.15 and 1.6 index sizes, and two 1.3 crops moved 8 % of
# their side left and right. On the detector's boxes of the validation scenes (training designs) the shipped
# classifier names 90.6 % of the indices right this way, 88.9 % with the two crops used until session 6 (1.15 and
# 1.3) and 88.1 % with one 1.3 crop; the five were picked on those scenes among 11 views (widths 1.05-1.6, shifts,
# +-12 degree turns) taken 2 to 5 at a time, and on the held-out designs they name 91.9 % against 90.4 %
# (docs/model-history.md, "Reading each index from several crops")
CROPS: tuple[tuple[float, float, float], ...] = (  # (width in index sizes, shift x, shift y in crop sides)
    (1.15, 0.0, 0.0),
    (1.3, 0.08, 0.0),
    (1.05, 0.0, 0.0),
    (1.6, 0.0, 0.0),
    (1.3, -0.08, 0.0),
)
# ... but not every index needs all five: the first FIRST_VIEWS crops are read for every index, the others only for
# the indices those leave under SURE_VIEWS (their geometric mean). On the detector's boxes of the validation scenes
# 62 % of the indices are that sure after two crops, and not one of them is named otherwise by all five, whose
# probability differs from the two's by at most 0.08 (docs/model-history.md, "Fewer crops for sure indices"); the
# classifier reads about 40 % fewer crops a frame
FIRST_VIEWS = 2
SURE_VIEWS = 0.99
WEBCAM_IMGSZ = 1280  # the live table's detector size: a 1280x720 frame unscaled (indices ~10-20 px at 720p)
# ``imgsz="auto"`` (``tablecall detect --imgsz auto``): an image whose index boxes come out small at the reader's
# size (their median long side under SMALL_INDEX px of the detector's input) is read again, all of it, at LARGER
# times that size.  Of the held-out cards whose indices are under 12 px at 640, 22 % have none boxed there (3 % of
# the rest), 12 % at 960; and there the classifier's crops, cut along better boxes, read surer.  Chosen on the
# validation scenes as `evaluate --tune` chooses, among 640, 800 or 960 for every image and 800 or 960 where the
# median is under 10-28 px (models/MODEL_CARD.md, "Session 23"); a second read costs (over the held-out scenes'
# frames: median 49.9 ms against 41.6, mean 81 against 55), so it is not the default
SMALL_INDEX = 18.0
LARGER = 1.5
ALTERNATIVES = 5  # each reading keeps the classifier's five likeliest names (held-out indices: truth among them 98 %)

# the face reader (vision.facecards) joins in where it sees a whole card between two indices: a square whose "bg"
# probability is under FACE_MAX_BG; each index reading keeps INDEX_FLOOR of every name, the face reading FACE_FLOOR
# (a tenth of it: a face reader sure past 0.999 outvotes two tiny indices that agree on another card; session 16 in
# docs/model-history.md)
FACE_MAX_BG = 0.2
FACE_SURE = 0.5  # and whose likeliest card has at least this probability
INDEX_FLOOR = 0.01
FACE_FLOOR = 0.001
# ... and only where the name the three agree on is one each index gives at least FACE_PLAUSIBLE: two indices of
# different cards (a 7H read at 1.0 beside a QC) are no pair, whatever the face reader sees between them
FACE_PLAUSIBLE = 0.001

# pairing indices into cards (pair_corners; docs/model-history.md, "Telling copies apart", chose these on the
# validation scenes): two indices of one card have boxes of about the same width and height (each within
# SIZE_RATIO, the face reader's candidate pairs' ratio), and any further index of a card the face reader saw whole
# lies on the circle through its two opposite indices, around the card's centre (a card's indices are the corners
# of a rectangle), within ON_CIRCLE of its radius; two such whole cards whose centres are within SAME_CENTRE radii
# are one card
ON_CIRCLE = 0.5
SAME_CENTRE = 0.3
# ... and two indices of the same name are never joined through each other where the face reader sees no card
# between them ("bg" at least APART_BG) and their boxes are turned more than APART_TURN degrees apart: a card's
# indices turn with it, so these are two copies (two decks) lying near each other at different angles.  Either
# sign alone splits cards: the detector's angles are rough (one card's two indices: 95 % within 28 degrees of each
# other as the detector turns them, 98 % within 4.5 as labelled), and the face reader sees "bg" between a card's
# corners where another card covers its middle.  Of the held-out scenes' near pairs of one name, both read right,
# the two together flag 3 of 978 pairs of one card and 31 of 53 pairs of two copies (the face reader alone 32 and
# 42, the angle alone 87 and 36).  Chosen on the validation scenes (models/MODEL_CARD.md, "Session 22").
APART_BG = 0.9
APART_TURN = 15.0
# ... but only where both boxes are at least APART_SHAPE times as long as wide: a near-square box (a corner index
# half covered) has no long side to tell its axis by. The detector's boxes of 150 validation scenes are a median
# 2.55 times as long as wide, 3.7 % of them under 1.3; with session 24's classifier, which reads more such
# indices right, one card whose corners lie on either side of two other cards was reported twice
# (tests/vision/test_detect.py); validation F1 0.9213 -> 0.9217 (two false cards fewer: models/MODEL_CARD.md)
APART_SHAPE = 1.3

Alternatives = tuple[tuple[str, float], ...]
Box = tuple[float, float, float, float]
BACKENDS = ("openvino", "onnxruntime", "opencv")


class ModelError(RuntimeError):
    """The model files are missing or no backend can run them."""


@dataclass(frozen=True)
class Card:
    """One physical card: its name (``QH``), confidence, box in image pixels and the index boxes behind it;
    ``alternatives``: the classifier's likeliest names for it with their probabilities, best first (the live
    table re-reads a card the game rules out as the likeliest one it allows: :func:`vision.track.sightings`)."""

    card: str
    confidence: float
    box: tuple[float, float, float, float]
    indices: tuple[tuple[float, float, float, float], ...] = ()
    alternatives: Alternatives = ()

    def to_json(self) -> dict[str, Any]:
        return {"card": self.card, "confidence": round(self.confidence, 3), "box": [round(v, 1) for v in self.box]}


@dataclass(frozen=True)
class Reading:
    """One index box: the classifier's name for it and probability, the detector's score, the box in pixels."""

    name: str
    score: float
    prob: float
    box: tuple[float, float, float, float]
    alternatives: Alternatives = ()  # the likeliest names and their probabilities, best first
    whole: tuple[Box, ...] = ()  # boxes of other readings the face reader saw as this index's card's opposite corner
    apart: tuple[Box, ...] = ()  # boxes of other readings of another card: no card between them, at another angle


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
    """OpenVINO: the model is reshaped to each new input shape once (a webcam keeps one shape)."""

    name = "openvino"

    def __init__(self, xml: Path, dynamic_batch: bool = False) -> None:
        import openvino as ov

        self.core = ov.Core()
        self.core.set_property("CPU", {"INFERENCE_NUM_THREADS": _threads()})
        self.model = self.core.read_model(str(xml))
        self.dynamic_batch = dynamic_batch
        self.compiled: dict[tuple[int, ...], Any] = {}
        if dynamic_batch:
            self.any = self.core.compile_model(self.model, "CPU")

    def __call__(self, images: np.ndarray) -> np.ndarray:
        batch = to_input(images)
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
        self.session = ort.InferenceSession(str(onnx), options, providers=["CPUExecutionProvider"])
        self.input = self.session.get_inputs()[0].name

    def __call__(self, images: np.ndarray) -> np.ndarray:
        return np.asarray(self.session.run(None, {self.input: to_input(images)})[0])


class OpenCvBackend:
    name = "opencv"

    def __init__(self, onnx: Path) -> None:
        cv2.setNumThreads(_threads())
        self.net = cv2.dnn.readNetFromONNX(str(onnx))

    def __call__(self, images: np.ndarray) -> np.ndarray:
        self.net.setInput(to_input(images))
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


def letterbox(
    image: np.ndarray, size: int, stride: int = 32, square: bool = False
) -> tuple[np.ndarray, float, tuple[int, int]]:
    """Scale the long side to ``size``, pad (grey 114) to a multiple of ``stride`` (or a square): a batch of one
    uint8 BGR image (1, H, W, 3), as the backends take it."""
    h, w = image.shape[:2]
    r = size / max(h, w)
    nw, nh = max(1, round(w * r)), max(1, round(h * r))
    resized = cv2.resize(image, (nw, nh), interpolation=cv2.INTER_AREA if r < 1 else cv2.INTER_LINEAR)
    tw, th = (size, size) if square else (-(-nw // stride) * stride, -(-nh // stride) * stride)
    px, py = (tw - nw) // 2, (th - nh) // 2
    padded = cv2.copyMakeBorder(resized, py, th - nh - py, px, tw - nw - px, cv2.BORDER_CONSTANT, value=(114, 114, 114))
    return padded[None], r, (px, py)


def nms(boxes: np.ndarray, scores: np.ndarray, iou: float) -> list[int]:
    """Greedy non-maximum suppression; boxes are (N, 4) x1 y1 x2 y2."""
    order = scores.argsort()[::-1]
    keep: list[int] = []
    areas = (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])
    while order.size:
        i = int(order[0])
        keep.append(i)
        rest = order[1:]
        ix = np.clip(np.minimum(boxes[i, 2], boxes[rest, 2]) - np.maximum(boxes[i, 0], boxes[rest, 0]), 0, None)
        iy = np.clip(np.minimum(boxes[i, 3], boxes[rest, 3]) - np.maximum(boxes[i, 1], boxes[rest, 1]), 0, None)
        overlap = ix * iy / (areas[i] + areas[rest] - ix * iy + 1e-9)
        order = rest[overlap <= iou]
    return keep


def _gaussian(rboxes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each turned box (cx, cy, w, h, angle in radians) as the covariance (a, b, c) of a uniform rectangle."""
    w2, h2 = rboxes[:, 2] ** 2 / 12, rboxes[:, 3] ** 2 / 12
    cos, sin = np.cos(rboxes[:, 4]), np.sin(rboxes[:, 4])
    return w2 * cos**2 + h2 * sin**2, w2 * sin**2 + h2 * cos**2, (w2 - h2) * cos * sin


def probiou(one: np.ndarray, others: np.ndarray) -> np.ndarray:
    """Overlap of turned box ``one`` with each of ``others`` as 1 - the Hellinger distance of their Gaussians
    (ProbIoU, Llerena et al. 2021: what Ultralytics' turned-box detectors are trained and suppressed with)."""
    a1, b1, c1 = (v[0] for v in _gaussian(one[None]))
    a2, b2, c2 = _gaussian(others)
    a, b, c = a1 + a2, b1 + b2, c1 + c2
    dx, dy = one[0] - others[:, 0], one[1] - others[:, 1]
    det = a * b - c * c + 1e-7
    near = (a * dy * dy + b * dx * dx) / det * 0.25 + (c * dx * dy) / det * 0.5
    spread = np.sqrt(np.clip(a1 * b1 - c1 * c1, 0, None) * np.clip(a2 * b2 - c2 * c2, 0, None))
    shape = 0.5 * np.log(det / (4 * spread + 1e-7) + 1e-7)
    distance = np.clip(near + shape, 1e-7, 100.0)
    return 1 - np.sqrt(1 - np.exp(-distance) + 1e-7)


def nms_turned(rboxes: np.ndarray, scores: np.ndarray, iou: float) -> list[int]:
    """Greedy non-maximum suppression of turned boxes (N, 5: cx, cy, w, h, angle) by :func:`probiou`."""
    order = scores.argsort()[::-1]
    keep: list[int] = []
    while order.size:
        i = int(order[0])
        keep.append(i)
        rest = order[1:]
        order = rest[probiou(rboxes[i], rboxes[rest]) <= iou]
    return keep


def upright_boxes(rboxes: np.ndarray) -> np.ndarray:
    """The upright box (x1, y1, x2, y2) around each turned box (cx, cy, w, h, angle in radians)."""
    cos, sin = np.abs(np.cos(rboxes[:, 4])), np.abs(np.sin(rboxes[:, 4]))
    half_w = (rboxes[:, 2] * cos + rboxes[:, 3] * sin) / 2
    half_h = (rboxes[:, 2] * sin + rboxes[:, 3] * cos) / 2
    return np.stack([rboxes[:, 0] - half_w, rboxes[:, 1] - half_h, rboxes[:, 0] + half_w, rboxes[:, 1] + half_h], 1)


def turns_of(rboxes: np.ndarray) -> np.ndarray:
    """Each turned box's (long side, short side, axis): the long side's direction in degrees, 0-180, clockwise
    from the image's x axis (:func:`vision.crops.quad_axis`'s convention)."""
    w, h = rboxes[:, 2], rboxes[:, 3]
    axis = np.degrees(rboxes[:, 4]) + np.where(w >= h, 0.0, 90.0)
    return np.stack([np.maximum(w, h), np.minimum(w, h), axis % 180], 1)


def turn_between(a: Any, b: Any) -> Any:
    """The angle in degrees, 0-90, between two box axes given in degrees 0-180 (:func:`turns_of`): floats, or
    arrays of them element by element."""
    return abs((a - b + 90.0) % 180.0 - 90.0)


def apart_pairs(pairs: Sequence[tuple[int, int]], background: np.ndarray, turns: np.ndarray) -> list[tuple[int, int]]:
    """Of these index pairs, those of two cards: the face reader's ``bg`` probability between them (``background``,
    one per pair) at least :data:`APART_BG`, and their boxes (``turns``, :func:`turns_of`) turned more than
    :data:`APART_TURN` degrees apart."""
    if not len(pairs):
        return []
    i, j = np.asarray(pairs).T
    turns = np.asarray(turns, np.float64)
    axis = turns[:, 2]
    shaped = turns[:, 0] >= APART_SHAPE * np.maximum(turns[:, 1], 1e-6)  # a near-square box's axis is no angle
    keep = (np.asarray(background) >= APART_BG) & (turn_between(axis[i], axis[j]) > APART_TURN) & shaped[i] & shaped[j]
    return [(int(a), int(b)) for a, b in zip(i[keep], j[keep], strict=True)]


def pair_corners(
    found: Sequence[tuple[str, float, Box] | tuple[str, float, Box, Alternatives]],
    reach: float = 9.0,
    whole: Collection[tuple[Box, Box]] = (),
    apart: Collection[tuple[Box, Box]] = (),
) -> list[Card]:
    """Join index readings ``(name, confidence, box[, alternatives])`` of the same card name into physical cards.

    ``whole``: pairs of index boxes the face reader saw as one card's opposite corners.  Each such pair is a card
    (two pairs sharing an index or a centre are one card, with up to four indices), and takes in every other index
    of its name lying on its circle (:data:`ON_CIRCLE`).  The rest go by distance and size: an index joins the
    surest card of its name with an index closer than ``reach`` times the larger index size (a card's diagonal is
    5-8.5 index heights) and of about its width and height (``SIZE_RATIO``); a card has at most four
    indices.  So farther copies of a name (two decks) stay apart, and so do near ones drawn at other sizes or lying
    off a whole card's corners.  ``apart``: pairs of index boxes known to be of two cards (:data:`APART_BG`); an
    index never joins a card through an index it is apart from.  A card's alternatives are its indices'
    probabilities averaged.
    """
    pairs = {frozenset(pair) for pair in whole if pair[0] != pair[1]}
    two = {frozenset(pair) for pair in apart if pair[0] != pair[1]}
    cards: list[Card] = []
    by_name: dict[str, list[tuple[float, Box, Alternatives]]] = {}
    for name, conf, box, *alts in found:
        by_name.setdefault(name, []).append((conf, box, alts[0] if alts else ()))
    for name, items in by_name.items():
        items.sort(key=lambda item: -item[0])
        for group in _group_corners(items, pairs, reach, two):
            boxes = np.array([b for _, b, _ in group])
            union = (
                float(boxes[:, 0].min()),
                float(boxes[:, 1].min()),
                float(boxes[:, 2].max()),
                float(boxes[:, 3].max()),
            )
            alternatives = _mean_alternatives([a for _, _, a in group])
            cards.append(Card(name, max(c for c, _, _ in group), union, tuple(b for _, b, _ in group), alternatives))
    cards.sort(key=lambda c: (c.box[1], c.box[0]))
    return cards


_Item = tuple[float, Box, Alternatives]


def _group_corners(
    items: Sequence[_Item], whole: set[frozenset[Box]], reach: float, apart: Collection[frozenset[Box]] = ()
) -> list[list[_Item]]:
    """One name's indices (surest first) grouped into cards: see :func:`pair_corners`."""
    faces: list[tuple[set[int], np.ndarray, float]] = []  # (members, centre, radius) of cards seen whole
    for i in range(len(items)):
        for j in range(i + 1, len(items)):
            if frozenset((items[i][1], items[j][1])) in whole:
                ci, cj = box_centre(items[i][1]), box_centre(items[j][1])
                faces.append(({i, j}, (ci + cj) / 2, float(np.linalg.norm(ci - cj)) / 2))
    merged = True
    while merged:  # two pairs of one card: they share an index, or (four corners) their centres
        merged = False
        for a in range(len(faces)):
            for b in range(a + 1, len(faces)):
                (ma, ca, ra), (mb, cb, rb) = faces[a], faces[b]
                if ma & mb or np.linalg.norm(ca - cb) <= SAME_CENTRE * max(ra, rb):
                    faces[a] = (ma | mb, (ca + cb) / 2, max(ra, rb))
                    del faces[b]
                    merged = True
                    break
            if merged:
                break
    placed = set().union(*(members for members, _, _ in faces))
    rest: list[int] = []
    for k in range(len(items)):
        if k in placed:
            continue
        centre = box_centre(items[k][1])
        off = {id(f): abs(float(np.linalg.norm(centre - f[1])) - f[2]) for f in faces}  # from each circle
        on = [f for f in faces if len(f[0]) < 4 and off[id(f)] <= ON_CIRCLE * f[2]]
        if on:
            min(on, key=lambda f: off[id(f)])[0].add(k)
        else:
            rest.append(k)
    groups: list[list[int]] = []
    for k in rest:
        for group in groups:
            if len(group) < 4 and any(
                _near(items[k][1], items[o][1], reach)
                and _similar(items[k][1], items[o][1])
                and frozenset((items[k][1], items[o][1])) not in apart
                for o in group
            ):
                group.append(k)
                break
        else:
            groups.append([k])
    return [[items[k] for k in sorted(members)] for members, _, _ in faces] + [[items[k] for k in g] for g in groups]


def _similar(a: Box, b: Box) -> bool:
    """Whether two index boxes are about the same width and height (each within ``SIZE_RATIO``)."""
    wa, ha, wb, hb = a[2] - a[0], a[3] - a[1], b[2] - b[0], b[3] - b[1]
    return all(max(x, y) <= SIZE_RATIO * max(min(x, y), 1e-6) for x, y in ((wa, wb), (ha, hb)))


def _normalised(logs: np.ndarray) -> np.ndarray:
    """Mean log probabilities (N, classes) as probabilities that sum to one per row."""
    mean = np.exp(logs - logs.max(axis=1, keepdims=True))
    return mean / mean.sum(axis=1, keepdims=True)


def view_crops(
    image: np.ndarray, boxes: np.ndarray, view: tuple[float, float, float], size: int, turns: np.ndarray | None = None
) -> np.ndarray:
    """One view (margin, shift x, shift y: ``CROPS``) of each index box as the classifier reads it, (N, size, size,
    3): the square around the box, or given the boxes' ``turns`` (:func:`turns_of`) the square turned along each."""
    margin, dx, dy = view
    if turns is None:
        return np.stack([cut(image, crop_box(tuple(b), None, margin, (dx, dy)), size) for b in boxes])
    centres = (boxes[:, :2] + boxes[:, 2:]) / 2
    return np.stack(
        [
            cut_turned(image, turned_square((cx, cy), axis, long, None, margin, (dx, dy)), size)
            for (cx, cy), (long, _short, axis) in zip(centres.tolist(), turns.tolist(), strict=True)
        ]
    )


def ranked_names(probs: np.ndarray, names: Sequence[str]) -> list[Alternatives]:
    """For each row of class probabilities (classes in ``names`` order), the likeliest names, best first."""
    order = np.argsort(-probs, axis=1)[:, :ALTERNATIVES]
    return [tuple((names[i], round(float(row[i]), 4)) for i in top) for row, top in zip(probs, order, strict=True)]


def _mean_alternatives(readings: Sequence[Alternatives]) -> Alternatives:
    """The indices' alternatives of one card averaged (a name missing from one index's list counts 0 there)."""
    readings = [r for r in readings if r]
    if not readings:
        return ()
    total: dict[str, float] = {}
    for alternatives in readings:
        for name, p in alternatives:
            total[name] = total.get(name, 0.0) + p / len(readings)
    ranked = sorted(total.items(), key=lambda item: -item[1])[:ALTERNATIVES]
    return tuple((name, round(p, 4)) for name, p in ranked)


def small_indices(boxes: np.ndarray, scale: float, small: float = SMALL_INDEX) -> bool:
    """Whether index ``boxes`` (N, 4, image pixels; upright, around turned boxes) are small for the detector:
    their median long side, times ``scale`` (the detector's input pixels per image pixel), under ``small``."""
    if not len(boxes):
        return False
    sides = np.maximum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]) * scale
    return bool(np.median(sides) < small)


def _stride_multiple(size: int, stride: int) -> int:
    """``size`` rounded up to a multiple of the detector's ``stride``."""
    return -(-size // stride) * stride


def could_join(a: np.ndarray, b: np.ndarray, names: Sequence[str]) -> bool:
    """Whether :func:`join_faces` could join two indices with these probabilities, whatever the face reader
    says: neither is taken for ``bg`` and some card has at least ``FACE_PLAUSIBLE`` in both."""
    return bool(joinable(np.stack([a, b]), [(0, 1)], names)[0])


def joinable(probs: np.ndarray, pairs: Sequence[tuple[int, int]], names: Sequence[str]) -> np.ndarray:
    """:func:`could_join` for each of these pairs of rows of ``probs`` at once (bool, one per pair)."""
    if not len(pairs):
        return np.zeros(0, bool)
    i, j = np.asarray(pairs).T
    both = np.minimum(probs[i], probs[j]) >= FACE_PLAUSIBLE
    ok = np.ones(len(i), bool)
    if "bg" in names:
        bg = list(names).index("bg")
        ok = (probs[i, bg] < 0.5) & (probs[j, bg] < 0.5)
        both[:, bg] = False
    return ok & both.any(axis=1)


def join_faces(
    probs: np.ndarray, pairs: Sequence[tuple[int, int]], faces: np.ndarray, names: Sequence[str]
) -> np.ndarray:
    """Index probabilities (N, classes) joined with the face reader's for index pairs ``pairs`` (``faces``: one row
    of probabilities per pair, same class order).

    Where the face reader sees a whole card (``bg`` under ``FACE_MAX_BG``, its likeliest card at least
    ``FACE_SURE``) between two indices the classifier takes for indices, both get the product of the three readings
    (the indices keeping ``INDEX_FLOOR`` of every name, the face ``FACE_FLOOR``), normalised, provided each index
    gives the name they agree on at least ``FACE_PLAUSIBLE``; an index in several such pairs takes the surest
    product.  Everything else is left as it was."""
    bg = list(names).index("bg") if "bg" in names else None
    best: dict[int, np.ndarray] = {}
    for (i, j), q, ok in zip(pairs, faces, joinable(probs, pairs, names), strict=True):
        if not ok:
            continue
        cards = q if bg is None else np.delete(q, bg)
        if (bg is not None and q[bg] >= FACE_MAX_BG) or cards.max() < FACE_SURE:
            continue
        joint = (q + FACE_FLOOR) * (probs[i] + INDEX_FLOOR) * (probs[j] + INDEX_FLOOR)
        if bg is not None:
            joint[bg] = 0.0
        joint = joint / joint.sum()
        name = int(joint.argmax())
        if min(probs[i, name], probs[j, name]) < FACE_PLAUSIBLE:
            continue
        for k in (i, j):
            if k not in best or joint.max() > best[k].max():
                best[k] = joint
    out = probs.copy()
    for k, joint in best.items():
        out[k] = joint
    return out


def _near(a: tuple[float, ...], b: tuple[float, ...], reach: float) -> bool:
    size = max(a[2] - a[0], a[3] - a[1], b[2] - b[0], b[3] - b[1])
    dx = (a[0] + a[2] - b[0] - b[2]) / 2
    dy = (a[1] + a[3] - b[1] - b[3]) / 2
    return bool(np.hypot(dx, dy) <= reach * size)


class CardReader:
    """Both stages and the pairing; ``read(image)`` takes a BGR or grayscale image of any size."""

    def __init__(
        self,
        models: Path = MODELS,
        backend: str = "auto",
        conf: float | None = None,
        iou: float = 0.7,
        min_card: float | None = None,
        imgsz: int | str | None = None,
        faces: bool = True,
    ) -> None:
        import yaml

        meta_path = models / "data.yaml"
        if not meta_path.exists():
            raise ModelError(
                f"{meta_path} not found: train and export first (tablecall train) or use the shipped models/"
            )
        meta = yaml.safe_load(meta_path.read_text())
        self.det_meta, self.cls_meta = meta["detector"], meta["classifier"]
        self.detector = load_backend(models, self.det_meta["file"], backend)
        self.classifier = load_backend(models, self.cls_meta["file"], backend, dynamic_batch=True)
        self.names: list[str] = list(self.cls_meta["names"])
        # the whole-card reader, where models/ has one (data.yaml "face"); faces=False reads indices alone
        self.face_meta = meta.get("face") if faces else None
        self.face = None
        if self.face_meta:
            self.face = load_backend(models, self.face_meta["file"], backend, dynamic_batch=True)
            face_names = list(self.face_meta["names"])
            self._face_order = [face_names.index(name) for name in self.names]  # its columns in our class order
        # thresholds: as asked, else as chosen on rendered validation scenes (evaluate --tune), else the defaults
        tuned = meta.get("reader") or {}
        self.conf = float(conf if conf is not None else tuned.get("conf", DEFAULT_CONF))
        self.min_card = float(min_card if min_card is not None else tuned.get("min_card", DEFAULT_MIN_CARD))
        self.iou = iou
        self.crops = CROPS
        self.sure_views = SURE_VIEWS  # above 1: every index is read from all the crops
        stride = int(self.det_meta["stride"])
        # "auto": the tuned size, and a second read LARGER where the indices come out small (SMALL_INDEX)
        self.auto = imgsz == "auto"
        self.small_index = SMALL_INDEX
        if self.auto:
            imgsz = None
        elif isinstance(imgsz, str):
            raise ModelError(f"detector size {imgsz!r}: a number of pixels, or auto")
        if imgsz is not None and (imgsz < stride or imgsz > 4096):
            raise ModelError(f"detector size {imgsz} is out of range ({stride}..4096)")
        # the detector's input long side, a multiple of its stride (as asked, else as tuned, else data.yaml's size)
        self.imgsz = _stride_multiple(int(imgsz or tuned.get("imgsz") or self.det_meta["imgsz"]), stride)
        # turned boxes (since session 20): the detector gives each index's axis and the classifier reads it upright
        self.turned = self.det_meta.get("task", "detect") == "obb"
        self.upright = bool(self.cls_meta.get("upright", False))
        if self.upright and not self.turned:
            raise ModelError(f"{models}: the classifier reads turned crops, and the detector gives no turned boxes")

    @property
    def backend(self) -> str:
        return self.detector.name

    @property
    def detector_precision(self) -> str:
        """``int8`` where the detector runs the quantized OpenVINO network (``tablecall quantize``), else ``float``."""
        quantized = (self.det_meta.get("openvino") or {}).get("precision") == "int8"
        return "int8" if quantized and self.backend == "openvino" else "float"

    def indices(
        self, image: np.ndarray, conf: float | None = None, region: Box | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """Stage 1: index boxes (N, 4) in image pixels and their scores (at least ``conf``, default the reader's).

        Given a ``region`` (x1, y1, x2, y2 in image pixels) the detector reads only the window of the letterboxed
        image that holds it, widened to the detector's stride so that the window's grid is the whole image's: the
        same pixels at the same scale, less of them (the live table reads only around its zones)."""
        boxes, scores, _ = self.turned_indices(image, conf, region)
        return boxes, scores

    def turned_indices(
        self, image: np.ndarray, conf: float | None = None, region: Box | None = None, imgsz: int | None = None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        """:meth:`indices`, and for a turned-box detector each box's (long side, short side, axis) in image pixels
        and degrees (:func:`turns_of`; ``None`` for an upright-box detector).  The boxes are upright either way:
        around the turned box where the detector turns them.  ``imgsz``: the detector's size for this read (default
        the reader's)."""
        square = self.detector.name == "opencv"
        stride = int(self.det_meta["stride"])
        batch, r, (px, py) = letterbox(image, imgsz or self.imgsz, stride, square)
        ox = oy = 0
        if region is not None and not square:  # OpenCV DNN reads a square input only
            th, tw = batch.shape[1:3]
            x1 = max(0, int(np.floor((region[0] * r + px) / stride)) * stride)
            y1 = max(0, int(np.floor((region[1] * r + py) / stride)) * stride)
            x2 = min(tw, int(np.ceil((region[2] * r + px) / stride)) * stride)
            y2 = min(th, int(np.ceil((region[3] * r + py) / stride)) * stride)
            if x2 - x1 >= stride and y2 - y1 >= stride:
                batch, ox, oy = np.ascontiguousarray(batch[:, y1:y2, x1:x2]), x1, y1
        out = self.detector(batch)[0]  # (4 + classes [+ angle], anchors)
        classes = out[4:-1] if self.turned else out[4:]
        scores = classes.max(axis=0)
        keep = scores >= (self.conf if conf is None else conf)
        scores = scores[keep]
        if not len(scores):
            return np.zeros((0, 4), np.float32), scores, (np.zeros((0, 3), np.float32) if self.turned else None)
        turns = None
        if self.turned:
            rboxes = np.concatenate([out[:4, keep].T, out[-1:, keep].T], axis=1).astype(np.float64)
            picked = nms_turned(rboxes, scores, self.iou)[:300]
            rboxes = rboxes[picked]
            rboxes[:, :2] = (rboxes[:, :2] + [ox - px, oy - py]) / r
            rboxes[:, 2:4] /= r
            boxes, turns = upright_boxes(rboxes), turns_of(rboxes).astype(np.float32)
        else:
            xywh = out[:4, keep].T
            boxes = np.stack(
                [
                    xywh[:, 0] - xywh[:, 2] / 2,
                    xywh[:, 1] - xywh[:, 3] / 2,
                    xywh[:, 0] + xywh[:, 2] / 2,
                    xywh[:, 1] + xywh[:, 3] / 2,
                ],
                axis=1,
            )
            picked = nms(boxes, scores, self.iou)[:300]
            boxes = (boxes[picked] + [ox - px, oy - py, ox - px, oy - py]) / r
        h, w = image.shape[:2]
        boxes = np.clip(boxes, 0, [w, h, w, h])
        return boxes.astype(np.float32), scores[picked], turns

    def larger_size(self, image: np.ndarray, boxes: np.ndarray) -> int | None:
        """The detector size to read ``image`` again at, given the index ``boxes`` (image pixels) read at the
        reader's size: :data:`LARGER` times it (a multiple of the stride) where their median long side is under
        ``small_index`` px of the detector's input (:data:`SMALL_INDEX`), else ``None`` (no boxes: nothing to tell
        the size by)."""
        if small_indices(boxes, self.imgsz / max(image.shape[:2]), self.small_index):
            return _stride_multiple(round(self.imgsz * LARGER), int(self.det_meta["stride"]))
        return None

    def probabilities(self, image: np.ndarray, boxes: np.ndarray, turns: np.ndarray | None = None) -> np.ndarray:
        """Stage 2: for each box, the probability of each class (``self.names``), shape (N, classes); an upright
        classifier reads each index along its ``turns`` (:meth:`turned_indices`)."""
        if self.upright and turns is None:
            raise ModelError("this classifier reads turned crops: give each box its turn (turned_indices)")
        if not self.upright:
            turns = None
        if not len(boxes):
            return np.zeros((0, len(self.names)), np.float32)
        # the views' geometric mean, normalised: a name one view finds unlikely stays unlikely, so the probability
        # left to the second-best names stays as small as with two crops (an arithmetic mean of five views named
        # as many right but doubled how often a right reading the game wrongly rules out is re-read as another)
        first, rest = self.crops[:FIRST_VIEWS], self.crops[FIRST_VIEWS:]
        logs = self._view_logs(image, boxes, first, turns)
        mean = _normalised(logs.mean(axis=0))
        unsure = np.flatnonzero(mean.max(axis=1) < self.sure_views)
        if rest and len(unsure):
            more = self._view_logs(image, boxes[unsure], rest, None if turns is None else turns[unsure])
            mean[unsure] = _normalised(np.concatenate([logs[:, unsure], more]).mean(axis=0))
        return mean.astype(np.float32)

    def _view_logs(
        self,
        image: np.ndarray,
        boxes: np.ndarray,
        views: Sequence[tuple[float, float, float]],
        turns: np.ndarray | None = None,
    ) -> np.ndarray:
        """The classifier's log probabilities for each box from each of these crops, shape (views, N, classes):
        upright squares around the boxes, or given their ``turns`` squares turned along each index."""
        size = int(self.cls_meta["imgsz"])
        crops = np.concatenate([view_crops(image, boxes, view, size, turns) for view in views])
        probs = np.asarray(self.classifier(crops), np.float64).reshape(len(views), len(boxes), -1)
        return np.log(np.clip(probs, 1e-7, 1.0))

    def face_probabilities(
        self, image: np.ndarray, boxes: np.ndarray, probs: np.ndarray | None = None
    ) -> tuple[list[tuple[int, int]], np.ndarray]:
        """Stage 3: the index pairs that could be one card's opposite corners, and for each the face reader's
        probabilities (``self.names`` order) of the square around them.  Given the indices' ``probs``, only the
        pairs :func:`join_faces` could join are read (the rest could change nothing: a saving, same result)."""
        pairs = candidate_pairs(boxes.tolist())
        if probs is not None:
            pairs = [pair for pair, ok in zip(pairs, joinable(probs, pairs, self.names), strict=True) if ok]
        if self.face is None or self.face_meta is None or not pairs:
            return pairs, np.zeros((len(pairs), len(self.names)), np.float32)
        size, margin = int(self.face_meta["imgsz"]), float(self.face_meta["margin"])
        crops = np.stack([cut(image, pair_square(boxes[i], boxes[j], margin), size) for i, j in pairs])
        raw = np.asarray(self.face(crops), np.float64).reshape(len(pairs), -1)
        return pairs, raw[:, self._face_order].astype(np.float32)

    def with_faces(
        self, image: np.ndarray, boxes: np.ndarray, probs: np.ndarray, turns: np.ndarray | None = None
    ) -> tuple[np.ndarray, list[tuple[int, int]], list[tuple[int, int]]]:
        """The indices' probabilities joined with the face reader's (:func:`join_faces`); the pairs of indices the
        face reader saw as one card's opposite corners: their joined readings name the same card, and the face
        reader sees it whole (``bg`` under ``FACE_MAX_BG``, that card at least ``FACE_SURE``); and, given the
        boxes' ``turns`` (:func:`turns_of`), the pairs it saw as two cards: ``bg`` at least ``APART_BG`` between
        them, their boxes turned more than ``APART_TURN`` degrees apart (:func:`pair_corners`)."""
        pairs, faces = self.face_probabilities(image, boxes, probs)
        joined = join_faces(probs, pairs, faces, self.names)
        names = joined.argmax(axis=1)
        bg = self.names.index("bg") if "bg" in self.names else None
        whole = [
            (i, j)
            for (i, j), q in zip(pairs, faces, strict=True)
            if names[i] == names[j] and (bg is None or q[bg] < FACE_MAX_BG) and q[names[i]] >= FACE_SURE
        ]
        apart = apart_pairs(pairs, faces[:, bg], turns) if turns is not None and bg is not None else []
        return joined, whole, apart

    def classify(
        self, image: np.ndarray, boxes: np.ndarray, turns: np.ndarray | None = None
    ) -> tuple[list[str], np.ndarray]:
        """Stage 2: the class name and probability for each box."""
        probs = self.probabilities(image, boxes, turns)
        best = probs.argmax(axis=1)
        return [self.names[i] for i in best], probs[np.arange(len(best)), best]

    def readings(self, image: np.ndarray, conf: float | None = None, region: Box | None = None) -> list[Reading]:
        """Every index box with a detector score of at least ``conf`` (default: the reader's), and its reading
        (only those the detector finds in ``region``, when given: :meth:`indices`)."""
        if image.ndim == 2:
            image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
        elif image.shape[2] == 4:
            image = cv2.cvtColor(image, cv2.COLOR_BGRA2BGR)
        boxes, det_scores, turns = self.turned_indices(image, conf, region)
        larger = self.larger_size(image, boxes) if self.auto and region is None else None
        if larger:
            boxes, det_scores, turns = self.turned_indices(image, conf, None, larger)
        probs = self.probabilities(image, boxes, turns)
        whole: list[tuple[int, int]] = []
        apart: list[tuple[int, int]] = []
        if self.face is not None:
            probs, whole, apart = self.with_faces(image, boxes, probs, turns)
        as_tuples: list[Box] = [(float(x1), float(y1), float(x2), float(y2)) for x1, y1, x2, y2 in boxes]

        def partners(pairs: list[tuple[int, int]]) -> dict[int, tuple[Box, ...]]:
            out: dict[int, tuple[Box, ...]] = {}
            for i, j in pairs:
                out[i] = (*out.get(i, ()), as_tuples[j])
                out[j] = (*out.get(j, ()), as_tuples[i])
            return out

        same, two = partners(whole), partners(apart)
        return [
            Reading(alts[0][0], float(s), alts[0][1], box, alts, same.get(k, ()), two.get(k, ()))
            for k, (alts, s, box) in enumerate(zip(ranked_names(probs, self.names), det_scores, as_tuples, strict=True))
        ]

    def cards(
        self, readings: Sequence[Reading], conf: float | None = None, min_card: float | None = None
    ) -> list[Card]:
        """The physical cards those readings make at these thresholds (default: the reader's)."""
        conf = self.conf if conf is None else conf
        min_card = self.min_card if min_card is None else min_card
        kept = [r for r in readings if r.name != "bg" and r.score >= conf and r.prob >= min_card]
        found = [(r.name, r.prob * r.score, r.box, r.alternatives) for r in kept]
        return pair_corners(
            found,
            whole=[(r.box, other) for r in kept for other in r.whole],
            apart=[(r.box, other) for r in kept for other in r.apart],
        )

    def read(self, image: np.ndarray, region: Box | None = None) -> list[Card]:
        """Every physical card the image shows (around ``region`` of it, when given), as far as the corners tell."""
        return self.cards(self.readings(image, region=region))

    __call__ = read


def annotate(image: np.ndarray, cards: Sequence[Card]) -> np.ndarray:
    """A copy of BGR ``image`` with each card's index boxes, card box and name drawn on it."""
    out = image.copy() if image.ndim == 3 else cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    thick = max(1, round(max(out.shape[:2]) / 640))
    for card in cards:
        for b in card.indices:
            cv2.rectangle(out, (int(b[0]), int(b[1])), (int(b[2]), int(b[3])), (0, 200, 255), thick)
        x1, y1, x2, y2 = (int(v) for v in card.box)
        cv2.rectangle(out, (x1, y1), (x2, y2), (0, 255, 0), thick)
        label = f"{card.card} {card.confidence:.2f}"
        cv2.putText(
            out, label, (x1, max(12, y1 - 4)), cv2.FONT_HERSHEY_SIMPLEX, 0.5 * thick, (255, 0, 255), thick, cv2.LINE_AA
        )
    return out


def load_detector(
    models: str | Path | None = None, backend: str = "auto", imgsz: int | None = WEBCAM_IMGSZ
) -> CardReader:
    """The live table's card reader (``models/`` unless given; webcam frames at full size); what
    ``vision.detections`` loads.

    It keeps readings of any probability (``min_card`` 0): the tracker drops a card under its ``min_confidence``
    (0.5, the detector's score times the name's probability, so never one under 0.5 probability) unless the game
    narrows what the card can be, and then it reads it among the allowed cards first (:func:`vision.track.sightings`).
    """
    return CardReader(Path(models) if models else MODELS, backend, min_card=0.0, imgsz=imgsz)
