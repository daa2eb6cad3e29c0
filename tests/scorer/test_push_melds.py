"""Push melds: validation with wilds, lay-offs, swaps, requirements and the requirement finder.

Rule tables name each case after the rule it checks; Hypothesis compares the validator and the
finder with the brute-force enumerators of :mod:`tests.scorer.push_brute`.
"""

from __future__ import annotations

from collections import Counter
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorer.cards import JOKER, Card, Face, Rank, Suit, parse_face
from scorer.push_melds import (
    REQUIREMENTS,
    Meld,
    card_value,
    check_layoff,
    check_meld,
    check_swap,
    describe_requirement,
    find_requirement,
    meets_requirement,
    requirement_shortfall,
)
from tests.scorer.push_brute import brute_meets, brute_valid, run_by_counting, run_by_permutation


def faces(text: str) -> list[Face]:
    return [parse_face(t) for t in text.split()]


def stand(text: str) -> Card | Rank:
    face = parse_face(text) if len(text) > 1 and text[-1] in "SHDC" else None
    return face if isinstance(face, Card) else Rank.parse(text)


def meld(kind: str, text: str, declared: dict[int, str] | None = None, distinct: bool = False) -> Meld:
    check = check_meld(kind, faces(text), {i: stand(s) for i, s in (declared or {}).items()}, distinct_suits=distinct)
    assert check.meld is not None, check.reason
    return check.meld


# -- validity: (kind, cards, declared, set_suits_distinct) -> valid?, and why not --------------
VALIDITY = [
    ("set_three_naturals", "set", "7S 7H 7D", {}, False, True, ""),
    ("set_two_decks_same_card", "set", "7S 7S 7H", {}, False, True, ""),
    ("set_eight_naturals_two_decks", "set", "7S 7S 7H 7H 7D 7D 7C 7C", {}, False, True, ""),
    ("set_with_joker", "set", "7S 7H JK", {}, False, True, ""),
    ("set_with_two_as_wild", "set", "KS 2D KH", {}, False, True, ""),
    ("set_one_natural_is_enough", "set", "QS JK 2C", {}, False, True, ""),
    ("set_mixed_ranks", "set", "7S 8H 7D", {}, False, False, "one rank"),
    ("set_too_short", "set", "7S 7H", {}, False, False, "at least 3 cards"),
    ("set_all_jokers_no_natural", "set", "JK JK JK", {}, False, False, "natural"),
    ("set_of_twos_natural", "set", "2S 2H 2D", {}, False, True, ""),
    ("set_of_twos_with_joker", "set", "2S JK JK", {}, False, True, ""),
    ("set_of_twos_two_stands_for_itself", "set", "2S 2H JK", {0: "5"}, False, False, "stands for itself"),
    ("set_declared_wrong_rank", "set", "7S 7H JK", {2: "8"}, False, False, "set is of 7s"),
    ("set_declared_right_rank", "set", "7S 7H JK", {2: "7"}, False, True, ""),
    ("set_natural_declared_as_other", "set", "7S 7H 7D", {0: "8S"}, False, False, "not wild"),
    ("set_suits_distinct_off_allows_repeat", "set", "7S 7S 7H", {}, False, True, ""),
    ("set_suits_distinct_on_refuses_repeat", "set", "7S 7S 7H", {}, True, False, "each suit appears once"),
    ("set_suits_distinct_on_four_suits", "set", "7S 7H 7D 7C", {}, True, True, ""),
    ("set_suits_distinct_on_max_four", "set", "7S 7H 7D 7C JK", {}, True, False, "at most 4"),
    ("set_suits_distinct_wild_for_missing_suit", "set", "7S 7H JK", {2: "7C"}, True, True, ""),
    ("set_suits_distinct_wild_for_present_suit", "set", "7S 7H JK", {2: "7H"}, True, False, "already has"),
    ("run_three_naturals", "run", "5H 6H 7H", {}, False, True, ""),
    ("run_any_order", "run", "7H 5H 6H", {}, False, True, ""),
    ("run_ace_low", "run", "AH 2H 3H", {}, False, True, ""),
    ("run_ace_high", "run", "QH KH AH", {}, False, True, ""),
    ("run_no_wrap_round_the_corner", "run", "KH AH 2H 3H", {}, False, False, "round the corner"),
    ("run_two_makes_a_wrap_look_alike_valid", "run", "KH AH 2H", {}, False, True, ""),  # the 2H is wild: Q-K-A
    ("run_round_the_corner_naturals", "run", "KS AS 2S 3S", {0: "KS", 2: "2S"}, False, False, ""),
    ("run_round_the_corner_no_wild", "run", "QS KS AS 3S", {}, False, False, "round the corner"),
    ("run_thirteen_cards", "run", "AH 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH", {}, False, True, ""),
    ("run_ace_both_ends", "run", "AH 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH", {}, False, False, "at most 13"),
    ("run_mixed_suits", "run", "5H 6S 7H", {}, False, False, "one suit"),
    ("run_duplicate_card", "run", "5H 5H 6H", {}, False, False, "two 5H"),
    ("run_gap_filled_by_joker", "run", "5H JK 7H", {}, False, True, ""),
    ("run_gap_filled_by_two", "run", "5H 2C 7H", {}, False, True, ""),
    ("run_gap_too_wide", "run", "4H 9H JK", {}, False, False, "more places"),
    ("run_ace_too_far", "run", "AH 6H JK", {}, False, False, "too far apart"),
    ("run_too_short", "run", "5H 6H", {}, False, False, "at least 3"),
    ("run_all_wild_no_natural", "run", "JK JK 2C", {1: "5C", 2: "6C", 0: "4C"}, False, False, "natural"),
    ("run_natural_two_counts_as_natural", "run", "2H JK JK", {}, False, True, ""),
    ("run_only_jokers", "run", "JK JK JK", {}, False, False, "natural"),
    ("run_declared_wild_other_suit", "run", "5H 6H JK", {2: "7S"}, False, False, "one suit"),
    ("run_declared_wild_on_natural", "run", "5H 6H JK", {2: "6H"}, False, False, "two cards stand for the 6"),
    ("run_declared_wild_below", "run", "5H 6H JK", {2: "4H"}, False, True, ""),
    ("run_declared_rank_only", "run", "5H 6H JK", {2: "4"}, False, True, ""),
    ("run_declared_out_of_reach", "run", "5H 6H JK", {2: "9H"}, False, False, "more places"),
]


@pytest.mark.parametrize(
    ("kind", "text", "declared", "distinct", "valid", "why"), [c[1:] for c in VALIDITY], ids=[c[0] for c in VALIDITY]
)
def test_meld_validity(kind: str, text: str, declared: dict[int, str], distinct: bool, valid: bool, why: str) -> None:
    check = check_meld(kind, faces(text), {i: stand(s) for i, s in declared.items()}, distinct_suits=distinct)
    assert check.ok is valid, check.reason
    assert why in check.reason
    if valid:
        assert check.meld is not None and sorted(map(str, check.meld.cards)) == sorted(text.split())


# -- what the wilds stand for ------------------------------------------------------------------
ARRANGEMENTS = [
    ("wild_extends_run_upward", "run", "5H 6H JK", {}, "run 5H 6H JK=7H", True),
    ("declared_wild_extends_downward", "run", "5H 6H JK", {2: "4H"}, "run JK=4H 5H 6H", False),
    ("wild_fills_the_gap", "run", "5H JK 7H", {}, "run 5H JK=6H 7H", False),
    ("ace_high_with_wild_below", "run", "KH AH 2C", {}, "run 2C=QH KH AH", False),
    ("two_takes_its_own_place", "run", "AH 2H 3H", {}, "run AH 2H 3H", False),
    # RULES.md: "A 2 standing for itself (e.g. in 2-3-4 of its suit) cannot be replaced": listed in any order, a 2
    # of the run's suit takes its own place when it can, and a wild fills the rest
    ("two_takes_its_own_place_listed_first", "run", "2H JK 3H", {}, "run 2H 3H JK=4H", True),
    ("two_takes_its_own_place_beside_a_joker", "run", "AH JK 2H 3H 4H", {}, "run AH 2H 3H 4H JK=5H", False),
    ("two_of_other_suit_is_wild", "run", "AH 2C 3H", {}, "run AH 2C=2H 3H", False),
    ("two_declared_as_wild_in_its_suit", "run", "2H 3H 4H", {0: "5H"}, "run 3H 4H 2H=5H", False),
    ("set_wild_stands_for_rank", "set", "7S 7H JK", {}, "set 7S 7H JK=7", False),
    ("set_of_twos_all_natural", "set", "2S 2H JK", {}, "set 2S 2H JK=2", False),
]


@pytest.mark.parametrize(
    ("kind", "text", "declared", "shown", "ambiguous"), [c[1:] for c in ARRANGEMENTS], ids=[c[0] for c in ARRANGEMENTS]
)
def test_wild_arrangement(kind: str, text: str, declared: dict[int, str], shown: str, ambiguous: bool) -> None:
    check = check_meld(kind, faces(text), {i: stand(s) for i, s in declared.items()})
    assert str(check.meld) == shown
    assert check.ambiguous is ambiguous


def test_meld_kind_and_empty_layoff() -> None:
    assert "set or a run" in check_meld("pair", faces("7S 7H 7D")).reason
    assert "at least one card" in check_layoff(meld("set", "7S 7H 7D"), []).reason


def test_set_suits_distinct_wild_takes_first_missing_suit() -> None:
    check = check_meld("set", faces("7S 7D JK"), distinct_suits=True)
    assert str(check.meld) == "set 7S 7D JK=7H" and check.ambiguous
    assert not check_meld("set", faces("7S 7D 7H JK"), distinct_suits=True).ambiguous


def test_natural_two_cannot_be_swapped_but_wild_two_can() -> None:
    low = meld("run", "AH 2H 3H")
    assert low.is_natural(0) and low.is_natural(1)
    assert "stands for itself" in check_swap(low, Card(Rank.TWO, Suit.HEARTS), Card(Rank.TWO, Suit.HEARTS)).reason
    wild_two = meld("run", "AH 2C 3H")
    assert not wild_two.is_natural(1)


# -- lay-offs ----------------------------------------------------------------------------------
LAYOFFS = [
    ("layoff_extends_run_high", ("run", "5H 6H 7H"), "8H", {}, True, "run 5H 6H 7H 8H"),
    ("layoff_extends_run_low", ("run", "5H 6H 7H"), "4H", {}, True, "run 4H 5H 6H 7H"),
    ("layoff_run_wrong_suit", ("run", "5H 6H 7H"), "8S", {}, False, "one suit"),
    ("layoff_run_not_adjacent", ("run", "5H 6H 7H"), "10H", {}, False, "more places"),
    ("layoff_run_ace_high", ("run", "JH QH KH"), "AH", {}, True, "run JH QH KH AH"),
    ("layoff_run_no_wrap", ("run", "QH KH AH"), "2H", {0: "2H"}, False, ""),
    ("layoff_two_as_wild_below", ("run", "QH KH AH"), "2H", {}, True, "run 2H=JH QH KH AH"),
    ("layoff_wild_keeps_its_place", ("run", "5H JK 7H"), "6H", {}, False, "two cards stand for the 6"),
    ("layoff_wild_on_run", ("run", "5H 6H 7H"), "JK", {}, True, "run 5H 6H 7H JK=8H"),
    ("layoff_wild_declared_low", ("run", "5H 6H 7H"), "JK", {0: "4H"}, True, "run JK=4H 5H 6H 7H"),
    ("layoff_on_set", ("set", "7S 7H 7D"), "7S", {}, True, "set 7S 7H 7D 7S"),
    ("layoff_on_set_wrong_rank", ("set", "7S 7H 7D"), "8S", {}, False, "one rank"),
    ("layoff_two_cards", ("run", "5H 6H 7H"), "8H 9H", {}, True, "run 5H 6H 7H 8H 9H"),
]


@pytest.mark.parametrize(
    ("base", "text", "declared", "valid", "expect"), [c[1:] for c in LAYOFFS], ids=[c[0] for c in LAYOFFS]
)
def test_layoff(base: tuple[str, str], text: str, declared: dict[int, str], valid: bool, expect: str) -> None:
    table = meld(*base)
    check = check_layoff(table, faces(text), {i: stand(s) for i, s in declared.items()})
    assert check.ok is valid, check.reason
    assert (str(check.meld) == expect) if valid else (expect in check.reason)


def test_layoff_with_distinct_suits_refuses_a_repeated_suit() -> None:
    table = meld("set", "7S 7H 7D", distinct=True)
    assert check_layoff(table, faces("7C"), distinct_suits=True).ok
    assert not check_layoff(table, faces("7S"), distinct_suits=True).ok
    assert check_layoff(table, faces("7S"), distinct_suits=False).ok


def test_a_layoff_refused_by_a_wild_read_so_on_the_table_says_so() -> None:
    """7H 7S JK laid with set_suits_distinct and nothing declared: the JK was read as 7D, and a natural 7D laid off
    was refused as "JK is declared as 7D" though nobody had declared anything (a differential audit, session 39)."""
    table = meld("set", "7H 7S JK", distinct=True)
    check = check_layoff(table, faces("7D"), distinct_suits=True)
    assert not check.ok and "JK stands for 7D, a suit the set already has" in check.reason
    assert "the wilds on the table keep what they stand for" in check.reason and "declared" not in check.reason
    other = check_layoff(table, faces("7S"), distinct_suits=True)  # refused whatever the JK stands for: no hint
    assert not other.ok and "wilds on the table" not in other.reason
    for run in ("5H JK 7H", "5H 2C 7H"):  # the wild can only be 6H: no correction reads it otherwise (a review)
        only = check_layoff(meld("run", run), faces("6H"))
        assert not only.ok and "wilds on the table" not in only.reason, only.reason


# -- swaps -------------------------------------------------------------------------------------
SWAPS = [
    ("swap_natural_for_joker_in_run", ("run", "5H JK 7H"), "6H", "JK", True, "run 5H 6H 7H"),
    ("swap_wrong_card", ("run", "5H JK 7H"), "8H", "JK", False, "stands for 6H, not 8H"),
    ("swap_wild_two_in_run", ("run", "5H 2C 7H"), "6H", "2C", True, "run 5H 6H 7H"),
    ("swap_two_standing_for_itself", ("run", "AH 2H 3H"), "2H", "2H", False, "stands for itself"),
    # the same rule whatever the order the cards were listed in (the 2H takes its own place, the JK the rest)
    ("swap_two_standing_for_itself_cards_in_any_order", ("run", "2H JK 3H"), "4H", "2H", False, "stands for itself"),
    ("swap_two_standing_for_itself_beside_a_joker", ("run", "AH JK 2H 3H 4H"), "5H", "2H", False, "stands for itself"),
    ("swap_for_the_joker_not_the_two", ("run", "AH JK 2H 3H 4H"), "2H", "JK", False, "stands for 5H, not 2H"),
    ("swap_any_suit_in_set", ("set", "7S 7H JK"), "7C", "JK", True, "set 7S 7H 7C"),
    ("swap_wrong_rank_in_set", ("set", "7S 7H JK"), "8C", "JK", False, "stands for 7, not 8C"),
    ("swap_joker_for_joker", ("run", "5H JK 7H"), "JK", "JK", False, "only a natural card"),
    ("swap_natural_is_not_wild", ("run", "5H 6H 7H"), "6H", "6H", False, "not wild"),
    ("swap_wild_not_in_meld", ("run", "5H JK 7H"), "6H", "2C", False, "there is no 2C"),
]


@pytest.mark.parametrize(
    ("base", "natural", "wild", "valid", "expect"), [c[1:] for c in SWAPS], ids=[c[0] for c in SWAPS]
)
def test_swap(base: tuple[str, str], natural: str, wild: str, valid: bool, expect: str) -> None:
    check = check_swap(meld(*base), parse_face(natural), parse_face(wild))
    assert check.ok is valid, check.reason
    assert (str(check.meld) == expect) if valid else (expect in check.reason)


def test_swap_in_distinct_suit_set_needs_the_exact_card() -> None:
    table = meld("set", "7S 7H JK", {2: "7C"}, distinct=True)
    assert check_swap(table, Card(Rank.SEVEN, Suit.CLUBS), JOKER).ok
    assert "stands for 7C, not 7D" in check_swap(table, Card(Rank.SEVEN, Suit.DIAMONDS), JOKER).reason


# -- scoring values ----------------------------------------------------------------------------
VALUES = [("value_king", "KS", 10), ("value_queen", "QH", 10), ("value_jack", "JD", 10), ("value_ten", "10C", 10),
          ("value_nine", "9S", 5), ("value_three", "3H", 5), ("value_ace", "AD", 15), ("value_two", "2C", 20),
          ("value_joker", "JK", 20)]  # fmt: skip


@pytest.mark.parametrize(("card", "points"), [c[1:] for c in VALUES], ids=[c[0] for c in VALUES])
def test_card_values(card: str, points: int) -> None:
    assert card_value(parse_face(card)) == points


# -- requirements ------------------------------------------------------------------------------
REQUIREMENT_CASES = [
    ("deal1_two_sets_of_3", 1, [("set", "7S 7H JK"), ("set", "8D 8C 8S")], True),
    ("deal1_one_set_is_not_enough", 1, [("set", "7S 7H JK")], False),
    ("deal1_runs_do_not_count_as_sets", 1, [("run", "5H 6H 7H"), ("set", "8D 8C 8S")], False),
    ("deal1_longer_set_counts", 1, [("set", "7S 7H 7D 7C"), ("set", "8D 8C 8S")], True),
    ("deal2_set_of_3_and_run_of_4", 2, [("set", "7S 7H JK"), ("run", "5H 6H 7H 8H")], True),
    ("deal2_run_of_3_is_short", 2, [("set", "7S 7H JK"), ("run", "5H 6H 7H")], False),
    ("deal2_two_sets_wrong_kind", 2, [("set", "7S 7H JK"), ("set", "8D 8C 8S")], False),
    ("deal3_two_runs_of_4", 3, [("run", "5H 6H 7H 8H"), ("run", "9S 10S JS QS")], True),
    ("deal3_same_suit_runs", 3, [("run", "AH 2H 3H 4H"), ("run", "9H 10H JH QH")], True),
    ("deal3_one_run", 3, [("run", "5H 6H 7H 8H")], False),
    ("deal4_three_sets_of_3", 4, [("set", "7S 7H JK"), ("set", "8D 8C 8S"), ("set", "KS KH 2C")], True),
    ("deal4_two_sets", 4, [("set", "7S 7H JK"), ("set", "8D 8C 8S")], False),
    ("deal5_two_runs_of_5", 5, [("run", "5H 6H 7H 8H 9H"), ("run", "9S 10S JS QS KS")], True),
    ("deal5_run_of_4_is_short", 5, [("run", "5H 6H 7H 8H 9H"), ("run", "10S JS QS KS")], False),
    ("extra_melds_allowed", 1, [("set", "7S 7H JK"), ("run", "5H 6H 7H"), ("set", "8D 8C 8S")], True),
]


@pytest.mark.parametrize(
    ("deal", "melds", "met"), [c[1:] for c in REQUIREMENT_CASES], ids=[c[0] for c in REQUIREMENT_CASES]
)
def test_requirement(deal: int, melds: list[tuple[str, str]], met: bool) -> None:
    laid = [meld(kind, text) for kind, text in melds]
    assert meets_requirement(laid, deal) is met
    assert (requirement_shortfall(laid, deal) == "") is met


def test_requirement_words() -> None:
    assert [describe_requirement(d) for d in range(1, 6)] == [
        "two sets of 3",
        "a set of 3 and a run of 4",
        "two runs of 4",
        "three sets of 3",
        "two runs of 5",
    ]


FINDER = [
    ("finder_deal1_yes", 1, "7S 7H JK 8D 8C 2H 9S", True),
    ("finder_deal1_one_wild_short", 1, "7S 7H JK 8D 8C 3H 9S", False),
    ("finder_deal1_no", 1, "7S 7H 9C 8D 8C 3H", False),
    ("finder_deal2_yes", 2, "KS KH KD 4S 5S 6S 2D", True),
    ("finder_deal2_wild_cannot_serve_twice", 2, "KS KH JK 4S 5S 9D QC", False),
    ("finder_deal3_yes_same_suit", 3, "AH 2H 3H 4H 9H 10H JH QH", True),
    ("finder_deal3_ace_high_and_low", 3, "AH 2H 3H 4H JS QS KS AS", True),
    ("finder_deal3_no_wrap", 3, "QH KH AH 2S 3H 4H 5D 6D", False),
    ("finder_deal4_yes", 4, "7S 7H JK 8D 8C 8S KS KH 2C", True),
    ("finder_deal4_no", 4, "7S 7H JK 8D 8C 8S KS QH 3C", False),
    ("finder_deal5_yes_wilds", 5, "5H 6H JK 8H 9H 9S 10S 2C QS KS", True),
    ("finder_deal5_no", 5, "5H 6H 7H 8H 9H 9S 10S JS QS 3D", False),
]


@pytest.mark.parametrize(("deal", "hand", "possible"), [c[1:] for c in FINDER], ids=[c[0] for c in FINDER])
def test_requirement_finder(deal: int, hand: str, possible: bool) -> None:
    plan = find_requirement(faces(hand), deal)
    assert (plan is not None) is possible
    assert brute_meets(faces(hand), deal) is possible
    if plan is not None:
        _assert_plan(plan, faces(hand), deal, distinct=False)


def test_finder_respects_set_suits_distinct() -> None:
    hand = faces("7S 7S 7H 8D 8D 8C")
    assert find_requirement(hand, 1) is not None
    assert find_requirement(hand, 1, distinct_suits=True) is None


def _assert_plan(plan: tuple[Meld, ...], hand: list[Face], deal: int, distinct: bool) -> None:
    used = Counter(f for m in plan for f in m.cards)
    assert not used - Counter(hand), "the plan uses cards the hand does not hold"
    assert meets_requirement(plan, deal)
    for m in plan:
        assert brute_valid(m.kind, m.cards, distinct), str(m)
        assert check_meld(m.kind, m.cards, dict(enumerate(m.stands)), distinct_suits=distinct).ok


# -- Hypothesis: the validator and finder against brute force ----------------------------------
def _pool(draw: st.DrawFn) -> list[Face]:
    """A narrow pool (a few neighbouring ranks, one or two suits, wilds) so that melds are common."""
    low = draw(st.integers(1, 12))
    ranks = [Rank.from_number((low + k - 1) % 13 + 1) for k in range(draw(st.integers(3, 5)))]
    suits = draw(st.lists(st.sampled_from(list(Suit)), min_size=1, max_size=2, unique=True))
    cards: list[Face] = [Card(r, s) for r in ranks for s in suits]
    return [*cards, JOKER, Card(Rank.TWO, draw(st.sampled_from(list(Suit))))]


@st.composite
def small_melds(draw: st.DrawFn) -> tuple[str, list[Face], bool]:
    pool = _pool(draw)
    cards = draw(st.lists(st.sampled_from(pool), min_size=3, max_size=5))
    return draw(st.sampled_from(["set", "run"])), cards, draw(st.booleans())


@settings(max_examples=400, deadline=None)
@given(small_melds())
def test_validator_agrees_with_brute_force(case: tuple[str, list[Face], bool]) -> None:
    kind, cards, distinct = case
    check = check_meld(kind, cards, distinct_suits=distinct)
    assert check.ok is brute_valid(kind, cards, distinct), (kind, [str(c) for c in cards], check.reason)
    if kind == "run":
        assert run_by_permutation(cards) is run_by_counting(cards)
    if check.meld is not None:
        _assert_arrangement(check.meld, cards, distinct)


def _assert_arrangement(found: Meld, cards: list[Face], distinct: bool) -> None:
    """The arrangement is a real meld: each card is itself or a wild, on the places of one run or set."""
    assert Counter(found.cards) == Counter(cards)
    for face, stood in zip(found.cards, found.stands, strict=True):
        assert face in (stood, JOKER) or (isinstance(face, Card) and face.rank is Rank.TWO)
    ranks = [s if isinstance(s, Rank) else s.rank for s in found.stands]
    if found.kind == "set":
        assert len(set(ranks)) == 1
    else:
        assert len({s.suit for s in found.stands if isinstance(s, Card)}) == 1
        high = Rank.KING in ranks and Rank.TWO not in ranks
        places = [14 if r is Rank.ACE and high else r.number for r in ranks]
        assert places == list(range(places[0], places[0] + len(places)))
    # what the validator says the wilds stand for is accepted when declared
    again = check_meld(found.kind, found.cards, dict(enumerate(found.stands)), distinct_suits=distinct)
    assert again.meld == found and not again.ambiguous


@settings(max_examples=200, deadline=None)
@given(small_melds(), st.integers(3, 4))
def test_a_longer_meld_holds_a_meld_of_any_shorter_length(case: tuple[str, list[Face], bool], size: int) -> None:
    """Why the finder may look for melds of exactly the required size."""
    kind, cards, distinct = case
    if size < len(cards) and brute_valid(kind, cards, distinct):
        assert any(brute_valid(kind, list(sub), distinct) for sub in combinations(cards, size))


@st.composite
def hands(draw: st.DrawFn) -> tuple[int, list[Face], bool]:
    deal = draw(st.integers(1, 5))
    pool = _pool(draw)
    size = sum(n for _, n in REQUIREMENTS[deal]) + draw(st.integers(0, 2))
    return deal, draw(st.lists(st.sampled_from(pool), min_size=size, max_size=size)), draw(st.booleans())


@settings(max_examples=150, deadline=None)
@given(hands())
def test_finder_agrees_with_brute_force(case: tuple[int, list[Face], bool]) -> None:
    deal, hand, distinct = case
    plan = find_requirement(hand, deal, distinct_suits=distinct)
    assert (plan is not None) is brute_meets(hand, deal, distinct), (deal, [str(c) for c in hand])
    if plan is not None:
        _assert_plan(plan, hand, deal, distinct)
