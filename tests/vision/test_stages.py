"""Where the card reader loses cards (vision.stages), measured with a stand-in reader on rendered scenes."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("cv2")

from vision import stages
from vision.cardart import CARDS
from vision.detect import DEFAULT_CONF, DEFAULT_MIN_CARD, CardReader, Reading, ranked_names


class _Perfect:
    """A stand-in reader whose detector boxes exactly the labelled indices and whose classifier names them right."""

    crops = ((1.15, 0.0, 0.0), (1.3, 0.08, 0.0))
    names = (*CARDS, "bg")
    conf, min_card = DEFAULT_CONF, DEFAULT_MIN_CARD
    imgsz = 640  # the detector's input size (the legibility bands measure indices at it)
    cards = CardReader.cards  # the real pairing at these thresholds

    def __init__(self, metas: list[dict], blind_to: str | None = None, doubt: float = 0.0) -> None:
        self.metas, self.blind_to, self.scene, self.doubt = metas, blind_to, -1, doubt

    def turned_indices(self, image: np.ndarray) -> tuple[np.ndarray, np.ndarray, None]:
        self.scene += 1
        boxes = np.array([lab["box"] for lab in self.metas[self.scene]["labels"]], np.float32).reshape(-1, 4)
        return boxes, np.ones(len(boxes), np.float32), None  # upright boxes, as an upright-box detector gives

    def readings(self, image: np.ndarray) -> list[Reading]:
        """Every labelled index read as :meth:`probabilities` says (no face reader: nothing seen whole or apart)."""
        boxes, scores, turns = self.turned_indices(image)
        return [
            Reading(alts[0][0], float(score), alts[0][1], (*map(float, box),), alts)  # type: ignore[arg-type]
            for alts, score, box in zip(
                ranked_names(self.probabilities(image, boxes, turns), self.names), scores, boxes, strict=True
            )
        ]

    def classify(
        self, image: np.ndarray, boxes: np.ndarray, turns: np.ndarray | None = None
    ) -> tuple[list[str], np.ndarray]:
        names = [self.names[i] for i in self.probabilities(image, boxes, turns).argmax(axis=1)]
        if self.blind_to is not None and self.crops == ((1.3, 0.0, 0.0),):
            names = [self.blind_to] * len(names)
        return names, np.ones(len(names), np.float32)

    def probabilities(self, image: np.ndarray, boxes: np.ndarray, turns: np.ndarray | None = None) -> np.ndarray:
        """The truth, and ``doubt`` of the probability on the next card of the deck (a likely misreading)."""
        probs = np.zeros((len(boxes), len(self.names)), np.float32)
        for row, lab in zip(probs, self.metas[self.scene]["labels"], strict=True):
            truth = self.names.index(lab["card"])
            row[truth], row[(truth + 1) % 52] = 1 - self.doubt, self.doubt
        return probs


def test_stages_count_boxed_cards_and_indices_named_right_per_crop_setting(scenes: Path) -> None:
    metas = [json.loads(p.read_text()) for p in sorted(scenes.glob("*.json"))]
    result = stages.stages(scenes, _Perfect(metas))  # type: ignore[arg-type]
    assert (
        result["cards"] == sum(len({lab["card_id"] for lab in m["labels"]}) for m in metas)
        and result["cards_boxed"] == 1.0
    )
    assert result["indices_named_right"] == {"one crop 1.3": 1.0, "reader's crops": 1.0, "knowing a hand of 13": 1.0}
    assert result["right_reading_bent_when_ruled_out"] == 0.0  # nothing else was likely: nothing to bend it into
    assert result["right_reading_bent_sure_when_ruled_out"] == 0.0
    assert all(b["indices"] == 0 for b in result["misread_indices_reread_right_by_share"].values())  # none misread
    bands = result["indices_named_right_by_share_visible"]
    assert sum(b["indices"] for b in bands.values()) == result["indices"]
    assert all(b["named_right"] == 1.0 for b in bands.values() if b["indices"])
    designs = {lab["design"] for meta in metas for lab in meta["labels"]}
    assert result["indices_named_right_by_design"] == dict.fromkeys(sorted(designs), 1.0)
    blind = _Perfect(metas, blind_to="JK")  # wrong whenever it is given the single 1.3 crop
    result = stages.stages(scenes, blind)  # type: ignore[arg-type]
    assert result["indices_named_right"] == {"one crop 1.3": 0.0, "reader's crops": 1.0, "knowing a hand of 13": 1.0}
    assert blind.crops == ((1.15, 0.0, 0.0), (1.3, 0.08, 0.0))  # given back


def test_stages_measure_what_knowing_the_hand_gains_and_costs(scenes: Path) -> None:
    metas = [json.loads(p.read_text()) for p in sorted(scenes.glob("*.json"))]
    result = stages.stages(scenes, _Perfect(metas, doubt=0.3))  # type: ignore[arg-type]
    # right, but 30 % on the next card: a ruled-out right reading is bent into it when that card is in the hand
    assert 0.1 < result["right_reading_bent_when_ruled_out"] < 0.5  # a hand of 13 of the 51 others: ~0.25
    assert result["right_reading_bent_sure_when_ruled_out"] == result["right_reading_bent_when_ruled_out"]  # all 30 %
    result = stages.stages(scenes, _Perfect(metas, doubt=0.7))  # type: ignore[arg-type]
    named = result["indices_named_right"]  # always misread as the next card; re-read unless that card is in the hand
    assert named["reader's crops"] == 0.0 and 0.6 < named["knowing a hand of 13"] < 0.95  # ~1 - 12/51
    # the misreading ruled out, the truth has all that is left (30 %): a re-read that sure, and right
    shares = result["misread_indices_reread_right_by_share"]
    assert shares["0.9 or more"]["indices"] > 0 and shares["0.9 or more"]["right"] == 1.0
    assert all(b["indices"] == 0 for band, b in shares.items() if band != "0.9 or more")


def test_stages_say_what_became_of_each_card(scenes: Path) -> None:
    metas = [json.loads(p.read_text()) for p in sorted(scenes.glob("*.json"))]
    fates = stages.stages(scenes, _Perfect(metas))["cards_by_fate"]  # type: ignore[arg-type]
    assert set(fates) == set(stages.FATES) and sum(fates.values()) == pytest.approx(1.0, abs=1e-3)
    assert fates["found"] + fates["read right, joined with a copy"] == pytest.approx(1.0, abs=1e-3)  # all read right
    fates = stages.stages(scenes, _Perfect(metas, doubt=0.7))["cards_by_fate"]  # type: ignore[arg-type]
    assert fates["misread"] > 0.5 and fates["found"] < 0.5  # each read as the next card (that card may be there too)


@pytest.mark.parametrize(
    ("truth", "read", "expected"),
    [
        pytest.param("7C", "7S", "suit only", id="clubs_read_spades"),
        pytest.param("10H", "6H", "rank only", id="ten_read_six"),
        pytest.param("QD", "KS", "rank and suit", id="both"),
        pytest.param("KD", "JK", "not a card index (bg) or the joker", id="court_art_read_a_joker"),
        pytest.param("5C", "bg", "not a card index (bg) or the joker", id="an_index_taken_for_no_index"),
    ],
)
def test_a_misreading_is_told_by_what_it_gets_wrong(truth: str, read: str, expected: str) -> None:
    assert stages.misread_kind(truth, read) == expected


def test_stages_count_misread_indices_by_what_they_got_wrong(scenes: Path) -> None:
    metas = [json.loads(p.read_text()) for p in sorted(scenes.glob("*.json"))]
    right = stages.stages(scenes, _Perfect(metas))  # type: ignore[arg-type]
    assert sum(right["misread_indices_by_kind"].values()) == 0 and right["suits_taken_for_each_other"] == {}
    wrong = stages.stages(scenes, _Perfect(metas, doubt=0.7))  # type: ignore[arg-type]
    # each read as the next card of the deck: 7H as 8H, a king as the next suit's ace
    kinds = wrong["misread_indices_by_kind"]
    assert list(kinds) == list(stages.MISREAD_KINDS) and sum(kinds.values()) == wrong["indices"]
    assert kinds["rank only"] > 0 and kinds["suit only"] == 0


def test_stages_give_recall_by_how_legible_each_card_is(scenes: Path) -> None:
    metas = [json.loads(p.read_text()) for p in sorted(scenes.glob("*.json"))]
    result = stages.stages(scenes, _Perfect(metas))  # type: ignore[arg-type]
    bands = result["cards_found_by_legibility"]
    assert list(bands) == [band for band, _, _ in stages.LEGIBILITY]
    assert bands["every card"]["cards"] == result["cards"] and bands["every card"]["share"] == 1.0
    counts = [b["cards"] for b in bands.values()]
    assert counts == sorted(counts, reverse=True) and counts[-1] > 0  # each band within the one before
    assert bands["every card"]["found"] == pytest.approx(result["cards_by_fate"]["found"], abs=1e-3)
    misread = stages.stages(scenes, _Perfect(metas, doubt=0.7))["cards_found_by_legibility"]  # type: ignore[arg-type]
    assert all(misread[band]["found"] < bands[band]["found"] for band in bands)


@pytest.mark.parametrize(
    ("labels", "expected"),
    [
        pytest.param([{"box": [0, 0, 10, 20], "visible": 0.5}], (0.5, 10.0), id="box_long_side_at_half_scale"),
        pytest.param(
            [{"box": [0, 0, 10, 40], "visible": 0.9}, {"box": [0, 0, 10, 20], "visible": 1.0}],
            (1.0, 10.0),
            id="a_fully_visible_index_before_a_longer_covered_one",
        ),
        pytest.param(
            [{"box": [0, 0, 30, 30], "quad": [[15, 0], [30, 15], [15, 30], [0, 15]], "visible": 1.0}],
            (1.0, 0.5 * 15 * 2**0.5),
            id="the_outline_where_there_is_one_not_its_box",
        ),
    ],
)
def test_a_card_is_as_legible_as_its_best_index(labels: list, expected: tuple) -> None:
    assert stages._most_legible(labels, 0.5) == pytest.approx(expected)


def test_a_second_copy_within_reach_of_the_first_is_joined_with_it() -> None:
    meta = {
        "labels": [
            {"card_id": 1, "card": "7H", "box": [100, 100, 120, 130]},
            {"card_id": 2, "card": "7H", "box": [160, 100, 180, 130]},  # a copy two index widths away
            {"card_id": 3, "card": "7H", "box": [900, 600, 920, 630]},  # a copy far away: its own card
            {"card_id": 4, "card": "9C", "box": [500, 100, 520, 130]},
        ]
    }
    readings = [Reading(lab["card"], 0.9, 0.9, tuple(lab["box"]), ((lab["card"], 0.9),)) for lab in meta["labels"][:3]]
    fates = Counter(stages._card_fates(meta, readings, _Perfect([])).values())  # type: ignore[arg-type]
    assert fates == {"found": 2, "read right, joined with a copy": 1, "not boxed": 1}
