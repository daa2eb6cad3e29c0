"""Reading cards in an image at run time, without PyTorch: OpenVINO, else ONNX Runtime, else OpenCV DNN.

Two stages (see ``models/MODEL_CARD.md``): the detector boxes every corner index in a letterboxed frame whose long
side is ``imgsz`` (640 by default, which suits photos in which the cards fill much of the picture; a webcam frame
of a whole table, with indices of 10-20 px, is read at its full 1280 px, :data:`WEBCAM_IMGSZ`); the classifier
reads a 64 px square crop around each box from the full-resolution image (52 cards, ``JK``, or ``bg`` for "not an
index"); indices of the same card that lie within a card's reach of each other are joined into one physical card,
whose box is the union of its index boxes (two opposite corners: about the card).

The networks run on :mod:`vision.backends`; the detector's boxes are handled by :mod:`vision.boxes`, and the
readings are joined into cards by :mod:`vision.pairing`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.backends import ModelError, load_backend
from vision.boxes import letterbox, nms, nms_turned, turns_of, upright_boxes
from vision.crops import crop_box, cut, cut_turned, turned_square
from vision.facecards import candidate_pairs, pair_square
from vision.pairing import (
    ALTERNATIVES,
    FACE_MAX_BG,
    FACE_SURE,
    Alternatives,
    Box,
    Card,
    apart_pairs,
    join_faces,
    joinable,
    pair_corners,
)

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
        try:  # damaged: a traceback, and the camera demo's thread died (mutation round of the demo, session 55)
            meta = yaml.safe_load(meta_path.read_text())
            self.det_meta, self.cls_meta = meta["detector"], meta["classifier"]
        except (yaml.YAMLError, ValueError, TypeError, KeyError) as exc:
            raise ModelError(
                f"{meta_path} cannot be read ({exc.__class__.__name__}: {exc}): train and export again "
                "(tablecall train) or use the shipped models/"
            ) from None
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
    narrows what the card can be, and then it reads it among the allowed cards first
    (:func:`vision.sightings.sightings`).
    """
    return CardReader(Path(models) if models else MODELS, backend, min_card=0.0, imgsz=imgsz)
