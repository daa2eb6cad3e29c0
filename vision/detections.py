"""One validated ``Detections`` type for the live pipeline, and the one adapter from the card detector to it.

Everything after the detector (tracking, observers, the annotated view) reads :class:`Detections` only, so the
detector's own output format (``vision.detect``, still changing) is translated in exactly one place:
:func:`adapt`. Like supervision's ``Detections`` it holds parallel arrays, one row per detection:

* ``xyxy``: ``(N, 4)`` float boxes ``x1, y1, x2, y2`` in image pixels (``x1 <= x2``, ``y1 <= y2``);
* ``confidence``: ``(N,)`` floats in ``[0, 1]``;
* ``card``: ``N`` card names in :mod:`scorer.cards` notation (``AS``, ``10H``, ``JK``; ``TH`` is read as ``10H``);
* ``corners``: ``(N, 4, 2)`` the card's outline in pixels where the detector knows it (``NaN`` where not);
* ``alternatives``: per detection the detector's likeliest names with their probabilities, best first (empty
  where the detector gives none): what :func:`vision.sightings.sightings` re-reads a card the game rules out from.

A box may be a whole card or one corner index (the detector boxes corner indices); :attr:`Detections.anchor`
is the point that stands for the card: the centre of its outline if known, else the centre of its box.
Indexing with a boolean mask or index array gives a new ``Detections``; iterating gives :class:`Detection` s.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from scorer.cards import CardError, parse_face

__all__ = ["Detection", "DetectionError", "Detections", "Detector", "DetectorUnavailable", "adapt", "load_detector"]


class DetectionError(ValueError):
    """Detector output that cannot be right (a bad box, an unknown card name, a confidence outside 0..1)."""


class DetectorUnavailable(RuntimeError):
    """No card detector can run here (no weights in ``models/``, or the runtime is missing); says why."""


class Detector(Protocol):
    """Anything that turns a BGR frame into detections (the result goes through :func:`adapt`)."""

    def __call__(self, image: np.ndarray) -> Any: ...


Alternatives = tuple[tuple[str, float], ...]


@dataclass(frozen=True)
class Detection:
    """One row of :class:`Detections`."""

    card: str
    confidence: float
    box: tuple[float, float, float, float]
    corners: tuple[tuple[float, float], ...] | None = None
    alternatives: Alternatives = ()

    @property
    def anchor(self) -> tuple[float, float]:
        if self.corners:
            xs, ys = zip(*self.corners, strict=True)
            return sum(xs) / len(xs), sum(ys) / len(ys)
        x1, y1, x2, y2 = self.box
        return (x1 + x2) / 2, (y1 + y2) / 2


def card_name(text: Any) -> str:
    """The canonical name of a detected card (``'th'`` -> ``'10H'``); raises DetectionError."""
    if not isinstance(text, str):
        raise DetectionError(f"a detection's card must be a name like 'AS', not {text!r}")
    try:
        return str(parse_face(text))
    except CardError as exc:
        raise DetectionError(f"the detector named a card {text!r} that does not exist ({exc})") from None


@dataclass(frozen=True, eq=False)
class Detections:
    """Card detections of one frame (validated; the arrays are read-only)."""

    xyxy: np.ndarray
    confidence: np.ndarray
    card: tuple[str, ...]
    corners: np.ndarray
    alternatives: tuple[Alternatives, ...] = ()

    def __post_init__(self) -> None:
        xyxy = np.asarray(self.xyxy, dtype=np.float64).reshape(-1, 4) if len(self.xyxy) else np.zeros((0, 4))
        n = len(xyxy)
        conf = np.asarray(self.confidence, dtype=np.float64).reshape(-1)
        corners = np.asarray(self.corners, dtype=np.float64) if np.size(self.corners) else np.full((n, 4, 2), np.nan)
        if conf.shape != (n,) or len(self.card) != n or corners.shape != (n, 4, 2):
            raise DetectionError(
                f"detections need one box, confidence, card and outline each: got {n} boxes, "
                f"{conf.size} confidences, {len(self.card)} cards, outlines of shape {corners.shape}"
            )
        if not np.isfinite(xyxy).all() or (xyxy[:, 2] < xyxy[:, 0]).any() or (xyxy[:, 3] < xyxy[:, 1]).any():
            raise DetectionError("a detection box must be finite x1, y1, x2, y2 with x1 <= x2 and y1 <= y2")
        if not np.isfinite(conf).all() or (conf < 0).any() or (conf > 1).any():
            raise DetectionError("a detection confidence must lie between 0 and 1")
        known = np.isfinite(corners).all(axis=(1, 2))
        if (np.isfinite(corners).any(axis=(1, 2)) & ~known).any():
            raise DetectionError("a card outline needs all four corners (or none)")
        names = tuple(card_name(c) for c in self.card)
        if self.alternatives and len(self.alternatives) != n:
            raise DetectionError(f"detections need one list of alternatives each: {len(self.alternatives)} for {n}")
        object.__setattr__(self, "alternatives", tuple(_alternatives(a) for a in self.alternatives) or ((),) * n)
        for name, array in (("xyxy", xyxy), ("confidence", conf), ("corners", corners)):
            array.setflags(write=False)
            object.__setattr__(self, name, array)
        object.__setattr__(self, "card", names)

    # -- constructors ---------------------------------------------------------------------------
    @classmethod
    def empty(cls) -> Detections:
        return cls(np.zeros((0, 4)), np.zeros(0), (), np.zeros((0, 4, 2)))

    @classmethod
    def from_records(cls, records: Iterable[Detection | Mapping[str, Any]]) -> Detections:
        """From :class:`Detection` s or dicts ``{"card", "confidence", "box", "corners"?}`` (``tablecall detect``)."""
        rows = [r if isinstance(r, Detection) else _record(r) for r in records]
        if not rows:
            return cls.empty()
        outlines = np.full((len(rows), 4, 2), np.nan)
        for i, row in enumerate(rows):
            if row.corners is not None:
                outlines[i] = np.asarray(row.corners, dtype=np.float64).reshape(4, 2)
        return cls(
            np.array([r.box for r in rows], dtype=np.float64),
            np.array([r.confidence for r in rows], dtype=np.float64),
            tuple(r.card for r in rows),
            outlines,
            tuple(r.alternatives for r in rows),
        )

    # -- reading ----------------------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self.card)

    def __iter__(self) -> Iterator[Detection]:
        for i in range(len(self)):
            yield self.row(i)

    def row(self, i: int) -> Detection:
        quad = self.corners[i]
        corners = tuple((float(x), float(y)) for x, y in quad) if np.isfinite(quad).all() else None
        box = tuple(float(v) for v in self.xyxy[i])
        box4 = (box[0], box[1], box[2], box[3])
        return Detection(self.card[i], float(self.confidence[i]), box4, corners, self.alternatives[i])

    def __getitem__(self, index: Any) -> Detections:
        picked = np.arange(len(self))[index]
        picked = np.atleast_1d(picked)
        return Detections(
            self.xyxy[picked],
            self.confidence[picked],
            tuple(self.card[i] for i in picked),
            self.corners[picked],
            tuple(self.alternatives[i] for i in picked),
        )

    @property
    def anchor(self) -> np.ndarray:
        """``(N, 2)``: each card's point in the image (outline centre, else box centre)."""
        centre = (self.xyxy[:, :2] + self.xyxy[:, 2:]) / 2
        known = np.isfinite(self.corners).all(axis=(1, 2))
        if known.any():
            centre = centre.copy()
            centre[known] = self.corners[known].mean(axis=1)
        return np.asarray(centre)

    def with_confidence(self, at_least: float) -> Detections:
        return self[self.confidence >= at_least]

    def to_json(self) -> list[dict[str, Any]]:
        out = []
        for d in self:
            row: dict[str, Any] = {
                "card": d.card,
                "confidence": round(d.confidence, 4),
                "box": [round(v, 1) for v in d.box],
            }
            if d.corners:
                row["corners"] = [[round(x, 1), round(y, 1)] for x, y in d.corners]
            out.append(row)
        return out


def _alternatives(raw: Any) -> Alternatives:
    """``[(name, probability), ...]`` validated: known card names (the classifier's ``bg`` is dropped), 0..1."""
    if isinstance(raw, (str, bytes)) or not isinstance(raw, Iterable):
        raise DetectionError(f"a detection's alternatives must be (card, probability) pairs, not {raw!r}")
    out = []
    for pair in raw:
        if isinstance(pair, (str, bytes)) or not isinstance(pair, Sequence) or len(pair) != 2:
            raise DetectionError(f"a detection's alternatives must be (card, probability) pairs, not {pair!r}")
        name, p = pair
        prob = _number(p, "alternative's probability")
        if not 0 <= prob <= 1:
            raise DetectionError(f"an alternative's probability must lie between 0 and 1, not {p!r}")
        if name != "bg":
            out.append((card_name(name), prob))
    return tuple(out)


def _number(value: Any, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise DetectionError(f"a detection's {what} must be a number, not {value!r}")
    number = float(value)
    if not math.isfinite(number):
        raise DetectionError(f"a detection's {what} must be finite, not {value!r}")
    return number


def _record(raw: Mapping[str, Any] | Any) -> Detection:
    """One detection from a dict or an object with attributes (card/name/label, confidence/score, box/xyxy)."""
    get = raw.get if isinstance(raw, Mapping) else (lambda key, default=None: getattr(raw, key, default))
    name = next((get(k) for k in ("card", "name", "label") if get(k) is not None), None)
    conf = next((get(k) for k in ("confidence", "score", "conf") if get(k) is not None), None)
    box = next((get(k) for k in ("box", "xyxy", "bbox") if get(k) is not None), None)
    corners = next((get(k) for k in ("corners", "quad", "polygon") if get(k) is not None), None)
    alternatives = _alternatives(get("alternatives") or ())
    if name is None or conf is None or box is None:
        raise DetectionError(f"a detection needs a card, a confidence and a box: {raw!r}")
    values = list(np.asarray(box, dtype=object).reshape(-1)) if not isinstance(box, str) else []
    if len(values) != 4:
        raise DetectionError(f"a detection box must be [x1, y1, x2, y2], not {box!r}")
    x1, y1, x2, y2 = (_number(v, "box") for v in values)
    quad: tuple[tuple[float, float], ...] | None = None
    if corners is not None:
        points = list(np.asarray(corners, dtype=object).reshape(-1))
        if len(points) != 8:
            raise DetectionError(f"a card outline must be four [x, y] corners, not {corners!r}")
        numbers = [_number(v, "outline") for v in points]
        quad = tuple((numbers[i], numbers[i + 1]) for i in range(0, 8, 2))
    return Detection(card_name(name), _number(conf, "confidence"), (x1, y1, x2, y2), quad, alternatives)


def adapt(raw: Any) -> Detections:
    """THE adapter: whatever the detector returned, as validated :class:`Detections`.

    Accepts ``Detections`` (as is), ``{"cards": [...]}`` (``tablecall detect --json``), an object with a
    ``cards`` attribute, or a sequence of records (dicts or objects: ``card``/``name``/``label``,
    ``confidence``/``score``/``conf``, ``box``/``xyxy``/``bbox``, optional ``corners``/``quad``/``polygon``).
    """
    if isinstance(raw, Detections):
        return raw
    if raw is None:
        return Detections.empty()
    if isinstance(raw, Mapping):
        if "cards" not in raw:
            raise DetectionError(f"detector output has no 'cards': {sorted(raw)!r}")
        raw = raw["cards"]
    elif hasattr(raw, "cards") and not isinstance(raw, (list, tuple)):
        raw = raw.cards
    if isinstance(raw, (str, bytes)) or not isinstance(raw, Sequence | Iterable):
        raise DetectionError(f"detector output must be a list of detections, not {type(raw).__name__}")
    return Detections.from_records(raw)


def load_detector(models: str | None = None) -> Detector:
    """The runtime card detector (:mod:`vision.detect`) with the weights in ``models``.

    Raises :class:`DetectorUnavailable` with the reason when there is none (no ``vision.detect`` yet, no
    weights, a runtime that does not load), so the live table can say so and carry on without cards.
    """
    try:
        import vision.detect as detect  # the detector helper's module: its API is still settling
    except ModuleNotFoundError as exc:
        raise DetectorUnavailable(f"no card detector is installed ({exc.name} is missing)") from None
    factory = next((getattr(detect, n) for n in ("load_detector", "load", "CardDetector") if hasattr(detect, n)), None)
    if factory is None:
        raise DetectorUnavailable("vision.detect has no load_detector()/CardDetector to build a detector from")
    try:
        model = factory(models) if models else factory()
    except (FileNotFoundError, OSError, RuntimeError, ValueError) as exc:
        raise DetectorUnavailable(f"the card detector cannot start: {exc}") from None
    for method in ("detect", "__call__", "predict"):
        if callable(getattr(model, method, None)):
            return getattr(model, method)  # type: ignore[no-any-return]
    raise DetectorUnavailable(f"{type(model).__name__} has no detect() method")
