"""The validated Detections type and the one adapter from the detector's output."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest

from vision.detections import Detection, DetectionError, Detections, DetectorUnavailable, adapt, load_detector


@dataclass
class ReaderCard:
    """Shaped like ``vision.pairing.Card`` (card, confidence, box, index boxes)."""

    card: str
    confidence: float
    box: tuple[float, float, float, float]
    indices: tuple[tuple[float, float, float, float], ...] = ()


def test_from_records_validates_and_names_cards_canonically() -> None:
    det = Detections.from_records(
        [
            {"card": "th", "confidence": 0.9, "box": [10, 20, 30, 40]},
            {"card": "JK", "confidence": 0.5, "box": [0, 0, 1, 1], "corners": [[0, 0], [1, 0], [1, 1], [0, 1]]},
        ]
    )
    assert det.card == ("10H", "JK") and len(det) == 2
    assert det.anchor.tolist() == [[20.0, 30.0], [0.5, 0.5]]
    assert det.row(1).corners == ((0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0))
    assert det.to_json()[0] == {"card": "10H", "confidence": 0.9, "box": [10.0, 20.0, 30.0, 40.0]}


def test_arrays_are_read_only() -> None:
    det = Detections.from_records([Detection("AS", 0.9, (0, 0, 5, 5))])
    with pytest.raises(ValueError):
        det.xyxy[0, 0] = 3


def test_indexing_and_filtering_give_detections() -> None:
    det = Detections.from_records([Detection(c, p, (0, 0, 1, 1)) for c, p in (("AS", 0.9), ("KD", 0.2), ("2C", 0.6))])
    assert det.with_confidence(0.5).card == ("AS", "2C")
    assert det[np.array([2])].card == ("2C",) and det[1:].card == ("KD", "2C")
    assert [d.card for d in det] == ["AS", "KD", "2C"]
    assert len(Detections.empty()) == 0 and Detections.empty().anchor.shape == (0, 2)


@pytest.mark.parametrize(
    "raw, message",
    [
        pytest.param([{"card": "ZZ", "confidence": 0.9, "box": [0, 0, 1, 1]}], "does not exist", id="unknown_card"),
        pytest.param(
            [{"card": "AS", "confidence": 1.5, "box": [0, 0, 1, 1]}], "between 0 and 1", id="confidence_too_high"
        ),
        pytest.param([{"card": "AS", "confidence": 0.5, "box": [5, 0, 1, 1]}], "x1 <= x2", id="box_inside_out"),
        pytest.param([{"card": "AS", "confidence": 0.5, "box": [0, 0, 1]}], "x1, y1, x2, y2", id="box_three_numbers"),
        pytest.param([{"card": "AS", "confidence": 0.5, "box": [0, 0, "a", 1]}], "must be a number", id="box_text"),
        pytest.param([{"card": "AS", "confidence": float("nan"), "box": [0, 0, 1, 1]}], "finite", id="confidence_nan"),
        pytest.param([{"card": "AS", "box": [0, 0, 1, 1]}], "needs a card, a confidence", id="no_confidence"),
        pytest.param([{"card": 7, "confidence": 0.5, "box": [0, 0, 1, 1]}], "a name like", id="card_not_text"),
        pytest.param(
            [{"card": "AS", "confidence": 0.5, "box": [0, 0, 1, 1], "corners": [[0, 0]]}],
            "four",
            id="outline_one_point",
        ),
        pytest.param(
            [{"card": "AS", "confidence": 0.5, "box": [0, 0, 1, 1], "alternatives": [["AS", 1.2]]}],
            "between 0 and 1",
            id="alternative_probability_too_high",
        ),
        pytest.param(
            [{"card": "AS", "confidence": 0.5, "box": [0, 0, 1, 1], "alternatives": [["ZZ", 0.2]]}],
            "does not exist",
            id="alternative_unknown_card",
        ),
        pytest.param(
            [{"card": "AS", "confidence": 0.5, "box": [0, 0, 1, 1], "alternatives": "AS"}],
            "pairs",
            id="alternatives_text",
        ),
        pytest.param({"boxes": []}, "has no 'cards'", id="dict_without_cards"),
        pytest.param("AS", "a list of detections", id="text"),
    ],
)
def test_bad_detector_output_is_refused(raw: object, message: str) -> None:
    with pytest.raises(DetectionError, match=message):
        adapt(raw)


def test_alternatives_are_validated_and_kept_through_indexing() -> None:
    raw = {
        "card": "th",
        "confidence": 0.6,
        "box": [0, 0, 4, 4],
        "alternatives": [["th", 0.7], ["bg", 0.2], ["js", 0.1]],
    }
    det = adapt({"cards": [raw, {"card": "AS", "confidence": 0.9, "box": [5, 5, 9, 9]}]})
    assert det.row(0).alternatives == (("10H", 0.7), ("JS", 0.1))  # canonical names; "not an index" dropped
    assert det.row(1).alternatives == ()
    assert det[det.confidence < 0.8].row(0).alternatives == (("10H", 0.7), ("JS", 0.1))


def test_mismatched_arrays_are_refused() -> None:
    with pytest.raises(DetectionError, match="one box, confidence, card and outline each"):
        Detections(np.zeros((2, 4)), np.zeros(1), ("AS", "KD"), np.full((2, 4, 2), np.nan))
    with pytest.raises(DetectionError, match="all four corners"):
        quad = np.full((1, 4, 2), np.nan)
        quad[0, 0] = (1, 1)
        Detections(np.zeros((1, 4)), np.ones(1), ("AS",), quad)


@pytest.mark.parametrize(
    "raw",
    [
        pytest.param([ReaderCard("QH", 0.93, (1, 2, 3, 4), ((1, 2, 2, 3),))], id="detect_card_objects"),
        pytest.param(
            {"image": "x.jpg", "cards": [{"card": "QH", "confidence": 0.93, "box": [1, 2, 3, 4]}]},
            id="tablecall_detect_json_line",
        ),
        pytest.param([{"label": "qh", "score": 0.93, "xyxy": (1, 2, 3, 4)}], id="other_key_names"),
        pytest.param([{"name": "QH", "conf": np.float32(0.93), "bbox": np.array([1, 2, 3, 4])}], id="numpy_values"),
    ],
)
def test_the_adapter_reads_every_shape_of_detector_output(raw: object) -> None:
    det = adapt(raw)
    assert det.card == ("QH",) and det.xyxy.tolist() == [[1, 2, 3, 4]]
    assert det.confidence[0] == pytest.approx(0.93)


def test_the_adapter_passes_detections_and_none() -> None:
    det = Detections.from_records([Detection("AS", 0.9, (0, 0, 5, 5))])
    assert adapt(det) is det and len(adapt(None)) == 0


def test_load_detector_without_weights_says_why(tmp_path) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(DetectorUnavailable, match=r"cannot start|no card detector") as error:
        load_detector(str(tmp_path))
    assert str(tmp_path) in str(error.value) or "vision.detect" in str(error.value)
