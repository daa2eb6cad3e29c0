"""Detections as table sightings (vision.sightings): projected onto the table, each in its zone, one card's indices
merged or read together, and re-read among the cards the game allows there (no pictures)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vision.detections import Detection, Detections
from vision.sightings import joint_reading, reread_card, sightings
from vision.track import TrackSettings, deck_for
from vision.zones import Layout, default_layout

LAYOUT = default_layout("snap", 2)
PILE0 = LAYOUT.zone("face_up/0").centre
PILE1 = LAYOUT.zone("face_up/1").centre
POT = LAYOUT.zone("pot").centre
SETTINGS = TrackSettings(appear_frames=3, leave_frames=4, flag_frames=3)


def test_weak_detections_are_ignored() -> None:
    layout = default_layout("snap", 2)
    image_to_table = np.eye(3)
    det = Detections.from_records([Detection("AS", 0.25, (490, 590, 510, 610))])  # under even the weak tier's 0.3
    assert sightings(det, image_to_table, layout, SETTINGS) == []


@pytest.mark.parametrize(
    "alternatives, deck, expected",
    [
        pytest.param((("JK", 0.6), ("KD", 0.35)), True, ("KD", 0.9 * 0.35 / 0.4), id="court_art_read_as_a_joker"),
        pytest.param((("JK", 0.6), ("KD", 0.35)), False, ("JK", 0.9 * 0.6), id="no_deck_given_stays"),
        pytest.param((("JK", 0.98), ("KD", 0.01), ("QD", 0.01)), True, ("JK", 0.9 * 0.98), id="a_plain_joker_stays"),
        pytest.param((("KD", 0.6), ("JK", 0.35)), True, ("KD", 0.9 * 0.6), id="a_card_of_the_game_is_not_reread"),
    ],
)
def test_a_card_the_game_does_not_use_is_read_again_among_its_deck(
    alternatives: tuple[tuple[str, float], ...], deck: bool, expected: tuple[str, float]
) -> None:
    box = (PILE0[0] - 5, PILE0[1] - 5, PILE0[0] + 5, PILE0[1] + 5)
    det = Detections.from_records([Detection(alternatives[0][0], 0.9 * alternatives[0][1], box, None, alternatives)])
    (one,) = sightings(det, np.eye(3), LAYOUT, TrackSettings(), deck=deck_for("snap") if deck else None)
    assert (one.card, one.zone) == (expected[0], "face_up/0")
    assert one.confidence == pytest.approx(expected[1])


@pytest.mark.parametrize(
    "elsewhere, expected",
    [
        pytest.param(0.8 * 0.99, "7S", id="not_into_a_card_read_plainly_on_the_other_pile"),
        pytest.param(0.4, "JC", id="a_faint_reading_elsewhere_rules_nothing_out"),
        pytest.param(None, "JC", id="nothing_elsewhere"),
    ],
)
def test_a_reread_does_not_make_a_card_read_plainly_in_another_zone(elsewhere: float | None, expected: str) -> None:
    # the bench's Spit game at seed 12: a covered 2H's corner at a pile's edge (2H ruled out there: covered) was read
    # again as 2D, Beth's face-up stock top, seen plainly there in the same frame, and flagged as a duplicate
    near = (("JS", 0.8), ("JC", 0.12), ("7S", 0.07))
    box = (PILE0[0] - 5, PILE0[1] - 5, PILE0[0] + 5, PILE0[1] + 5)
    records = [Detection("JS", 0.6 * 0.8, box, None, near)]
    if elsewhere is not None:
        other = (PILE1[0] - 5, PILE1[1] - 5, PILE1[0] + 5, PILE1[1] + 5)
        records.append(Detection("JC", elsewhere, other, None, (("JC", 0.99), ("JS", 0.01))))
    possible = {"face_up/0": frozenset(deck_for("snap")) - {"JS"}}
    found = sightings(
        Detections.from_records(records), np.eye(3), LAYOUT, TrackSettings(), possible, None, deck_for("snap")
    )
    (pile,) = [s for s in found if s.zone == "face_up/0"]
    assert pile.card == expected


_NAMES = ["AS", "KD", "JC", "JS", "7H"]
_READING = st.tuples(
    st.sampled_from([0, 1, 2]),  # face_up/0, face_up/1, pot
    st.permutations(_NAMES).map(lambda names: names[:3]),
    st.lists(st.floats(0.01, 1.0), min_size=3, max_size=3),
    st.floats(0.3, 1.0),  # the detector's score
)


@settings(max_examples=200, deadline=None)
@given(st.lists(_READING, min_size=1, max_size=6), st.lists(st.sets(st.sampled_from(_NAMES)), min_size=3, max_size=3))
def test_a_reread_never_makes_a_card_read_plainly_in_another_zone(readings: list, allowed: list) -> None:
    zones, spots = ["face_up/0", "face_up/1", "pot"], [PILE0, PILE1, POT]
    records, plain = [], {}
    for zone, names, weights, score in readings:
        total = sum(weights) * 1.05  # a little probability left to names not listed
        alternatives = tuple(sorted(zip(names, (w / total for w in weights), strict=True), key=lambda a: -a[1]))
        x, y = spots[zone]
        records.append(
            Detection(alternatives[0][0], score * alternatives[0][1], (x - 5, y - 5, x + 5, y + 5), None, alternatives)
        )
        if score * alternatives[0][1] >= SETTINGS.min_confidence:
            plain.setdefault(alternatives[0][0], set()).add(zones[zone])
    possible = {zones[k]: frozenset(cards) for k, cards in enumerate(allowed)}
    found = sightings(Detections.from_records(records), np.eye(3), LAYOUT, SETTINGS, possible, None, deck_for("snap"))
    for s in found:
        read_so = {r.card for r, (zone, *_) in zip(records, readings, strict=True) if zones[zone] == s.zone}
        if s.card not in read_so:  # a re-read: not the card any index there was read as
            assert s.zone in plain.get(s.card, {s.zone}), (s, plain)


def test_sightings_keep_faint_readings_only_with_a_weak_tier() -> None:
    det = Detections.from_records([Detection("AS", 0.4, (PILE0[0] - 5, PILE0[1] - 5, PILE0[0] + 5, PILE0[1] + 5))])
    assert sightings(det, np.eye(3), LAYOUT, TrackSettings(weak_confidence=0.5)) == []
    (one,) = sightings(det, np.eye(3), LAYOUT, TrackSettings())
    assert one.card == "AS" and one.confidence == pytest.approx(0.4)


# -- piles, moves ---------------------------------------------------------------------------------------------
# -- sightings -------------------------------------------------------------------------------------------------------
def test_two_indices_of_one_card_are_one_sighting_at_their_middle() -> None:
    layout = default_layout("snap", 2)
    x, y = layout.zone("pot").centre
    det = Detections.from_records(
        [
            Detection("QH", 0.9, (x - 30, y - 42, x - 20, y - 30)),
            Detection("QH", 0.8, (x + 20, y + 30, x + 30, y + 42)),
        ]
    )
    (one,) = sightings(det, np.eye(3), layout, SETTINGS)
    assert one.card == "QH" and one.zone == "pot" and one.point == pytest.approx((x, y)) and one.confidence == 0.9


def test_sightings_are_projected_to_the_table() -> None:
    layout = default_layout("snap", 2)
    scale = np.diag([0.5, 0.5, 1.0])  # image px -> table mm: half
    x, y = layout.zone("face_up/1").centre
    det = Detections.from_records([Detection("2C", 0.95, (2 * x - 5, 2 * y - 5, 2 * x + 5, 2 * y + 5))])
    (one,) = sightings(det, scale, layout, SETTINGS)
    assert one.point == pytest.approx((x, y)) and one.zone == "face_up/1"


# -- re-reading what the game rules out -------------------------------------------------------------------------------
SPADES = default_layout("spades", 4)


def on_spot(card: str, conf: float, guesses: tuple[tuple[str, float], ...], zone: str = "trick/0") -> Detections:
    x, y = SPADES.zone(zone).centre
    return Detections.from_records([Detection(card, conf, (x - 5, y - 5, x + 5, y + 5), None, guesses)])


def test_a_reading_the_zone_rules_out_is_reread_as_the_likeliest_card_it_allows() -> None:
    det = on_spot("7C", 0.62 * 0.9, (("7C", 0.62), ("AC", 0.3), ("4C", 0.05)))  # detector score 0.9
    (one,) = sightings(det, np.eye(3), SPADES, SETTINGS, {"trick/0": {"AC", "KD", "2H"}})
    assert one.card == "AC" and one.zone == "trick/0"
    # the score times AC's share of what the spot may hold: AC and the 3 % the classifier gave cards it did not list
    assert one.confidence == pytest.approx(0.9 * 0.3 / 0.33)


@pytest.mark.parametrize(
    "possible, card",
    [
        pytest.param(None, "7C", id="no_rules_no_reread"),
        pytest.param({"trick/1": {"AC"}}, "7C", id="other_zones_rules_do_not_apply"),
        pytest.param({"trick/0": {"KD", "2H"}}, "7C", id="no_allowed_alternative_stays_for_the_referee"),
    ],
)
def test_readings_are_left_alone_unless_ruled_out_with_an_allowed_alternative(possible: dict | None, card: str) -> None:
    det = on_spot("7C", 0.56, (("7C", 0.62), ("AC", 0.3), ("4C", 0.05)))
    (one,) = sightings(det, np.eye(3), SPADES, SETTINGS, possible)
    assert one.card == card and one.confidence == pytest.approx(0.56)


def test_an_allowed_reading_keeps_its_name_with_its_share_of_the_allowed_probability() -> None:
    det = on_spot("7C", 0.62 * 0.9, (("7C", 0.62), ("AC", 0.3), ("4C", 0.05)))
    (one,) = sightings(det, np.eye(3), SPADES, SETTINGS, {"trick/0": {"7C", "AC"}})
    assert one.card == "7C" and one.confidence == pytest.approx(0.9 * 0.62 / (0.92 + 0.03))


def test_a_doubtful_reading_the_hands_make_sure_of_counts() -> None:
    # 7S at 45 % (7C, 40 %, is in another player's hand): too weak alone (0.9 x 0.45 < 0.5), sure among the allowed
    # (QS and the 10 % the classifier gave unlisted cards are the rest of what the spot may hold)
    det = on_spot("7S", 0.45 * 0.9, (("7S", 0.45), ("7C", 0.4), ("QS", 0.05)))
    (alone,) = sightings(det, np.eye(3), SPADES, SETTINGS)
    assert alone.confidence < SETTINGS.min_confidence  # faint: it would have to hold for weak_frames
    (one,) = sightings(det, np.eye(3), SPADES, SETTINGS, {"trick/0": {"7S", "QS"}})
    assert one.card == "7S" and one.confidence == pytest.approx(0.9 * 0.45 / 0.6)


def test_a_confident_reading_is_not_bent_to_fit_the_rules() -> None:
    # the allowed cards got 2 % of the probability, under the floor (5 %): the card is what it looks like
    det = on_spot("7C", 0.9, (("7C", 0.97), ("AC", 0.02)))
    (one,) = sightings(det, np.eye(3), SPADES, SETTINGS, {"trick/0": {"AC"}})
    assert one.card == "7C"


def test_a_reread_that_cannot_tell_between_allowed_cards_is_too_weak_to_count() -> None:
    det = on_spot("7C", 0.5 * 0.9, (("7C", 0.5), ("AC", 0.2), ("AD", 0.2)))
    (one,) = sightings(det, np.eye(3), SPADES, SETTINGS, {"trick/0": {"AC", "AD"}})
    # the score times AC's share (0.2 of the 0.5 the allowed and unlisted cards got): faint at best
    assert one.confidence == pytest.approx(0.9 * 0.2 / 0.5) and one.confidence < SETTINGS.min_confidence


@pytest.mark.parametrize(
    "guesses, allowed, floor, expected",
    [
        pytest.param((("7C", 0.6), ("AC", 0.3), ("AD", 0.1)), {"AC", "AD"}, 0.05, ("AC", 0.75), id="share"),
        pytest.param((("7C", 0.6), ("AC", 0.3)), {"KD"}, 0.05, None, id="none_allowed"),
        pytest.param((("7C", 0.96), ("AC", 0.04)), {"AC"}, 0.05, None, id="under_the_floor"),
        pytest.param((), {"AC"}, 0.0, None, id="no_alternatives"),
        # a confident misreading ruled out: the runner-up is not made surer than the classifier was of it
        pytest.param((("4D", 0.85), ("AD", 0.09)), {"AD", "10D"}, 0.05, ("AD", 0.6), id="unlisted_count_as_allowed"),
    ],
)
def test_reread_card(guesses: tuple, allowed: set[str], floor: float, expected: tuple | None) -> None:
    got = reread_card(guesses, allowed, floor)
    assert got == (None if expected is None else (expected[0], pytest.approx(expected[1])))


@pytest.mark.parametrize(
    "guesses, legal, expected",
    [
        # 9S would be a renege (9D and 10D follow suit): at a tenth of the weight, the doubtful reading leans to 9D
        pytest.param((("9S", 0.7), ("9D", 0.25)), {"9D", "10D"}, ("9D", 0.25 / (0.07 + 0.25 + 0.05)), id="leans_legal"),
        # a renege plainly seen stays a renege (less sure than the classifier alone: the referee still flags it)
        pytest.param(
            (("9S", 0.97), ("9D", 0.01)), {"9D"}, ("9S", 0.097 / (0.097 + 0.01 + 0.02)), id="plain_foul_stays"
        ),
        # a legal reading is surer for the illegal ones weighing less
        pytest.param((("9D", 0.6), ("9S", 0.3)), {"9D"}, ("9D", 0.6 / (0.6 + 0.03 + 0.1)), id="legal_surer"),
    ],
)
def test_reread_card_leans_to_legal_cards(guesses: tuple, legal: set[str], expected: tuple) -> None:
    assert reread_card(guesses, None, 0.05, legal, 0.1) == (expected[0], pytest.approx(expected[1]))


def test_a_doubtful_reading_on_the_spot_in_turn_leans_to_a_legal_card() -> None:
    det = on_spot("9S", 0.7 * 0.9, (("9S", 0.7), ("9D", 0.25)))
    (one,) = sightings(det, np.eye(3), SPADES, SETTINGS, None, {"trick/0": {"9D", "10D"}})
    assert one.card == "9D" and one.confidence == pytest.approx(0.9 * 0.25 / 0.37)
    (one,) = sightings(det, np.eye(3), SPADES, SETTINGS, None, {"trick/1": {"9D"}})  # another spot's rules
    assert one.card == "9S" and one.confidence == pytest.approx(0.63)


# -- one card's indices read together ---------------------------------------------------------------------------
def corners(zone: str, layout: Layout, *indices: tuple[str, float, tuple]) -> Detections:
    """Index readings ``(name, detector score, alternatives)`` at two opposite corners of a card in ``zone``."""
    x, y = layout.zone(zone).centre
    spots = [(x - 25, y - 35), (x + 25, y + 35), (x, y)]
    return Detections.from_records(
        [
            Detection(name, score * alts[0][1], (cx - 5, cy - 5, cx + 5, cy + 5), None, alts)
            for (name, score, alts), (cx, cy) in zip(indices, spots, strict=False)
        ]
    )


SIDEWAYS_10D = (  # the two corners of a 10D lying sideways, as the detector read them on simulated video
    ("10S", 0.6, (("10S", 0.66), ("10D", 0.21), ("10C", 0.13))),
    ("10D", 0.55, (("10D", 0.76), ("QD", 0.13), ("10C", 0.08))),
)


def test_a_trick_spots_indices_that_disagree_are_read_together() -> None:
    (one,) = sightings(corners("trick/2", SPADES, *SIDEWAYS_10D), np.eye(3), SPADES, SETTINGS)
    assert one.card == "10D" and one.zone == "trick/2"
    # a card is there unless both boxes are false sightings (1 - 0.4 x 0.45), times 10D's share of the joint reading
    assert one.confidence == pytest.approx(0.82 * dict(joint_reading([a for _, _, a in SIDEWAYS_10D]))["10D"])


def test_on_a_pile_the_indices_are_not_read_together() -> None:
    # a pile's top and the edge of the card below it both show: two readings stay two cards
    got = sightings(corners("face_up/0", LAYOUT, *SIDEWAYS_10D), np.eye(3), LAYOUT, TrackSettings(min_confidence=0.3))
    assert sorted(s.card for s in got) == ["10D", "10S"]


def test_an_index_that_gives_the_joint_name_little_is_left_out() -> None:
    # a clear KH and a faint box read as 8C (KH under 10 % there): the KH stands as it was
    det = corners("trick/0", SPADES, ("KH", 0.6, (("KH", 1.0),)), ("8C", 0.3, (("8C", 0.9), ("3C", 0.05))))
    got = sorted((s.card, round(s.confidence, 2)) for s in sightings(det, np.eye(3), SPADES, SETTINGS))
    assert got == [("KH", 0.6)]


@pytest.mark.parametrize(
    "readings, expected",
    [
        pytest.param(((("10S", 0.66), ("10D", 0.21)), (("10D", 0.76), ("QD", 0.13))), "10D", id="both_find_it_likely"),
        pytest.param(((("KS", 0.63), ("KC", 0.36)), (("KC", 0.85), ("KS", 0.15))), "KC", id="the_surer_index_wins"),
        pytest.param(((("7H", 0.99),), (("7H", 0.6), ("7D", 0.4))), "7H", id="agreeing_indices"),
    ],
)
def test_joint_reading(readings: tuple, expected: str) -> None:
    joint = joint_reading(readings)
    assert joint[0][0] == expected and abs(sum(p for _, p in joint) - 1) < 0.05
    assert [p for _, p in joint] == sorted((p for _, p in joint), reverse=True)


# -- where a card is: the calibration's perspective, one card's indices ---------------------------------------------
def test_sightings_are_projected_through_the_camera_s_perspective() -> None:
    """A camera looking down at a slant: the homography has a perspective row and is not symmetric. Each card is
    seen at its table point and in its zone (projected with the matrix's rows taken as columns, or without the
    divide by the third coordinate, all three were put outside every zone: in transit, not seen)."""
    to_table = np.array([[0.9, 0.15, -40.0], [-0.05, 1.1, -20.0], [0.0002, 0.0004, 1.0]])
    to_image = np.linalg.inv(to_table)
    records = []
    for card, zone in (("2C", "face_up/0"), ("9H", "face_up/1"), ("KS", "pot")):
        x, y, w = to_image @ [*LAYOUT.zone(zone).centre, 1.0]
        records.append(Detection(card, 0.9, (x / w - 5, y / w - 5, x / w + 5, y / w + 5)))
    found = sightings(Detections.from_records(records), to_table, LAYOUT, SETTINGS)
    assert {s.card: s.zone for s in found} == {"2C": "face_up/0", "9H": "face_up/1", "KS": "pot"}
    for s in found:
        assert s.point == pytest.approx(LAYOUT.zone(s.zone).centre, abs=0.5)


def test_a_card_is_in_the_zone_its_middle_is_in_though_its_surer_index_lies_outside() -> None:
    """A card laid a little off its pile: its middle is on the pile, its surer index just past the pile's edge. It
    is seen on the pile (taken where its surer index lies, it was in transit and never went onto the pile)."""
    pile = LAYOUT.zone("face_up/0")
    xs = [x for x, _ in pile.polygon]
    x, y = max(xs) - 15, pile.centre[1]
    det = Detections.from_records(
        [
            Detection("QH", 0.8, (x - 30, y - 40, x - 20, y - 30)),
            Detection("QH", 0.9, (x + 20, y + 30, x + 30, y + 40)),  # its middle 10 mm past the pile's edge
        ]
    )
    (one,) = sightings(det, np.eye(3), LAYOUT, SETTINGS)
    assert LAYOUT.zone_at((x + 25, y + 35)) is None
    assert one.zone == "face_up/0" and one.point == pytest.approx((x, y)) and one.confidence == 0.9


def test_a_card_the_game_has_twice_may_be_read_again_though_its_twin_is_read_plainly_elsewhere() -> None:
    """Push plays with two decks: a 7H laid on Ann's meld does not rule out the 7H Bob holds for his. A doubtful
    reading on Bob's strip is read again as his 7H (ruling it out as a one-copy card would be, the reading became
    7D, a card he does not hold, and a foul for nothing)."""
    push = default_layout("push", 4)
    deck = deck_for("push")
    assert deck is not None and deck["7H"] == 2

    def at(zone: str, card: str, conf: float, alternatives: tuple) -> Detection:
        x, y = push.zone(zone).centre
        return Detection(card, conf, (x - 5, y - 5, x + 5, y + 5), None, alternatives)

    records = [
        at("melds/0", "7H", 0.95, (("7H", 0.99), ("7D", 0.01))),
        at("melds/1", "8H", 0.9 * 0.6, (("8H", 0.6), ("7H", 0.3), ("7D", 0.05))),
    ]
    possible = {"melds/1": frozenset({"7H", "7D"})}
    found = sightings(Detections.from_records(records), np.eye(3), push, SETTINGS, possible, None, deck)
    assert sorted((s.zone, s.card) for s in found) == [("melds/0", "7H"), ("melds/1", "7H")]
