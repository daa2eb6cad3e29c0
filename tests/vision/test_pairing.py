"""Index readings joined into cards (vision.pairing): corners of one card, copies, cards seen whole, apart pairs."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("cv2")

from vision.pairing import ALTERNATIVES, APART_BG, APART_SHAPE, APART_TURN, apart_pairs, pair_corners


def test_pairing_joins_two_corners_of_one_card() -> None:
    found = [("QH", 0.9, (10, 10, 30, 50)), ("QH", 0.8, (150, 200, 170, 240))]
    cards = pair_corners(found)
    assert len(cards) == 1
    assert cards[0].box == (10, 10, 170, 240) and cards[0].confidence == 0.9


def test_pairing_keeps_far_copies_and_other_cards_apart() -> None:
    found = [("QH", 0.9, (10, 10, 30, 50)), ("QH", 0.8, (1500, 900, 1520, 940)), ("KS", 0.7, (40, 10, 60, 50))]
    cards = pair_corners(found)
    assert sorted(c.card for c in cards) == ["KS", "QH", "QH"]


def test_pairing_keeps_near_copies_of_other_sizes_apart() -> None:
    # two decks: a QH with 20x40 indices and, within reach, a QH of a deck drawn at 40x80
    found = [("QH", 0.9, (10, 10, 30, 50)), ("QH", 0.8, (150, 200, 190, 280))]
    assert len(pair_corners(found)) == 2
    assert len(pair_corners([found[0], ("QH", 0.8, (150, 200, 175, 250))])) == 1  # 25x50: within 1.7 times


def test_a_card_seen_whole_takes_its_other_corners_and_no_copy() -> None:
    # a four-corner QH: opposite corners a and c seen whole by the face reader; b and d lie on the circle through
    # a and c around the card's centre (100, 140); a copy's index e lies near but off that circle
    a, b, c, d = (0, 0, 20, 40), (180, 0, 200, 40), (180, 240, 200, 280), (0, 240, 20, 280)
    e = (90, 120, 110, 160)
    found = [("QH", 0.9, a), ("QH", 0.8, b), ("QH", 0.7, c), ("QH", 0.6, d), ("QH", 0.5, e)]
    cards = pair_corners(found, whole=[(a, c)])
    assert sorted(len(card.indices) for card in cards) == [1, 4]
    assert next(card for card in cards if len(card.indices) == 4).box == (0, 0, 200, 280)
    # both diagonals seen whole: one card, as the two pairs share their centre
    assert sorted(len(card.indices) for card in pair_corners(found[:4], whole=[(a, c), (b, d)])) == [4]
    # without the face reader, e is near a and of its size: it would be taken for one of the card's corners
    assert len(pair_corners(found)) == 2


def test_a_card_seen_whole_keeps_a_corner_whose_box_is_cut_short() -> None:
    # the lower corner half under another card: its box is 20x18, too unlike 20x40 to pair by size alone
    found = [("7S", 0.9, (0, 0, 20, 40)), ("7S", 0.8, (180, 240, 200, 258))]
    assert len(pair_corners(found)) == 2
    (card,) = pair_corners(found, whole=[(found[0][2], found[1][2])])
    assert len(card.indices) == 2


def test_two_indices_are_apart_only_with_no_card_between_them_and_at_another_angle() -> None:
    turns = np.array([[40, 20, 10], [40, 20, 10 + APART_TURN + 5], [40, 20, 14], [40, 20, 175]], np.float32)
    pairs = [(0, 1), (0, 2), (0, 3), (1, 2)]
    high, low = APART_BG, APART_BG - 0.05
    # 0-1: bg and turned; 0-2: turned 4 degrees (one card's corners, its middle covered); 0-3: 15 degrees round
    # 180; 1-2: turned but the face reader is unsure it is no card
    assert apart_pairs(pairs, np.array([high, 1.0, 1.0, low]), turns) == [(0, 1)]
    assert apart_pairs(pairs, np.array([low, low, low, low]), turns) == []


@pytest.mark.parametrize(
    ("sides", "apart"),
    [((40, 20), True), ((40, 40 / APART_SHAPE + 0.5), False), ((20.8, 18), False)],
    ids=["an index's shape", "just under the shape", "a half-covered corner (tests' scene 5)"],
)
def test_a_near_square_box_has_no_angle_to_tell_two_cards_apart_by(sides: tuple[float, float], apart: bool) -> None:
    turns = np.array([[40, 20, 140], [*sides, 100]], np.float32)
    assert apart_pairs([(0, 1)], np.array([1.0]), turns) == ([(0, 1)] if apart else [])
    assert apart_pairs([(1, 0)], np.array([1.0]), turns) == ([(1, 0)] if apart else [])  # either box of the pair


def test_pairing_never_joins_an_index_through_one_it_is_apart_from() -> None:
    # two QH copies within reach of each other (two decks), and the first copy's other corner c
    a, b, c = (10, 10, 30, 50), (150, 100, 170, 140), (150, 200, 170, 240)
    found = [("QH", 0.9, a), ("QH", 0.7, b), ("QH", 0.8, c)]
    assert len(pair_corners(found)) == 1  # by distance alone, all three are one card
    cards = pair_corners(found, apart=[(a, b), (c, b)])
    assert sorted(card.indices for card in cards) == [(a, c), (b,)]
    # apart from one index of a card, an index still joins the card through another it is not apart from
    (card,) = pair_corners(found, apart=[(a, b)])
    assert set(card.indices) == {a, b, c}


def test_pairing_averages_the_corners_alternatives() -> None:
    found = [
        ("QH", 0.9, (10, 10, 30, 50), (("QH", 0.8), ("QD", 0.2))),
        ("QH", 0.6, (150, 200, 170, 240), (("QH", 0.6), ("KH", 0.3), ("QD", 0.1))),
    ]
    (card,) = pair_corners(found)
    assert card.alternatives == (("QH", 0.7), ("QD", 0.15), ("KH", 0.15))
    # of the six names its indices give, a card keeps the ALTERNATIVES likeliest
    five = (("QH", 0.5), ("QD", 0.2), ("KH", 0.1), ("QS", 0.1), ("QC", 0.05))
    (card,) = pair_corners([("QH", 0.9, (10, 10, 30, 50), five), ("QH", 0.6, (150, 200, 170, 240), (("JH", 0.9),))])
    assert len(card.alternatives) == ALTERNATIVES and card.alternatives[:2] == (("JH", 0.45), ("QH", 0.25))


def test_a_card_seen_whole_with_its_four_corners_takes_no_fifth_index() -> None:
    # QH seen whole from corners a and c, with b and d on its circle; e, a copy's index (two decks), lies on that
    # circle too (150 px from the card's centre (100, 140)): a card has at most four indices
    a, b, c, d = (0, 0, 20, 40), (180, 0, 200, 40), (180, 240, 200, 280), (0, 240, 20, 280)
    e = (240, 120, 260, 160)
    found = [("QH", 0.9, a), ("QH", 0.8, b), ("QH", 0.7, c), ("QH", 0.6, d), ("QH", 0.5, e)]
    assert sorted(card.indices for card in pair_corners(found, whole=[(a, c)])) == [(a, b, c, d), (e,)]


def test_an_index_well_off_a_whole_cards_circle_is_another_card() -> None:
    # QH seen whole from corners a and c (centre (100, 140), radius 150); a copy's index f 240 px from the centre:
    # 90 px off the circle, more than ON_CIRCLE of its radius
    a, c, f = (0, 0, 20, 40), (180, 240, 200, 280), (330, 120, 350, 160)
    cards = pair_corners([("QH", 0.9, a), ("QH", 0.8, c), ("QH", 0.7, f)], whole=[(a, c)])
    assert sorted(card.indices for card in cards) == [(a, c), (f,)]
