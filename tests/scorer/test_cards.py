"""Cards: notation round-trips, forgiving input, and deck composition."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scorer.cards import (
    JOKER,
    Card,
    CardError,
    PhysicalCard,
    Rank,
    Suit,
    parse_card,
    parse_face,
    parse_physical,
    push_deck,
    standard_deck,
)
from scorer.tencards import MARKS, TenKind, parse_ten_card, ten_deck

cards = st.builds(Card, st.sampled_from(list(Rank)), st.sampled_from(list(Suit)))


@given(cards)
def test_every_card_parses_back_to_itself(card: Card) -> None:
    assert parse_card(str(card)) == card
    assert parse_card(str(card).lower()) == card
    assert parse_card(f"  {card} ") == card


@given(cards, st.integers(1, 9))
def test_every_physical_card_parses_back_to_itself(card: Card, copy: int) -> None:
    physical = PhysicalCard(card, copy)
    assert parse_physical(str(physical)) == physical


@pytest.mark.parametrize(
    ("text", "printed"),
    [("AS", "AS"), ("10H", "10H"), ("TH", "10H"), ("th", "10H"), ("qd", "QD"), ("2c", "2C"), (" KS ", "KS")],
    ids=["ace", "ten", "T-for-ten", "lower-T", "lower", "two", "blanks"],
)
def test_forgiving_input_and_canonical_output(text: str, printed: str) -> None:
    assert str(parse_card(text)) == printed


@pytest.mark.parametrize("text", ["", "A", "1S", "11H", "AX", "ZZ", "10", "JKS", "A S"])
def test_bad_card_text_says_what_is_wrong(text: str) -> None:
    with pytest.raises(CardError) as info:
        parse_card(text)
    assert repr(text) in str(info.value) or text.strip() in str(info.value)


def test_joker_is_a_face_but_not_a_standard_card() -> None:
    assert parse_face("JK") is JOKER
    assert parse_face("jk") is JOKER
    with pytest.raises(CardError, match="joker"):
        parse_card("JK")
    assert str(parse_physical("JK/3")) == "JK/3"


def test_rank_numbers() -> None:
    assert [r.number for r in Rank] == list(range(1, 14))
    assert Rank.ACE.high == 14 and Rank.KING.high == 13 and Rank.TWO.high == 2
    assert Rank.from_number(14) is Rank.ACE
    assert Suit.HEARTS.is_red and not Suit.SPADES.is_red


def test_standard_deck_has_52_distinct_cards() -> None:
    deck = standard_deck()
    assert len(deck) == 52 == len(set(deck))


def test_push_deck_has_108_distinct_physical_cards_with_equal_faces() -> None:
    deck = push_deck()
    assert len(deck) == 108 == len(set(deck))
    faces = Counter(card.face for card in deck)
    assert faces[JOKER] == 4
    assert all(count == 2 for face, count in faces.items() if face != JOKER)
    first, second = PhysicalCard(parse_card("AS"), 1), PhysicalCard(parse_card("AS"), 2)
    assert first != second and first.face == second.face


@given(st.sampled_from([str(c) for c in ten_deck(5)]))
def test_every_ten_card_parses_back_to_itself(text: str) -> None:
    assert str(parse_ten_card(text)) == text
    assert parse_ten_card(text.lower()) == parse_ten_card(text)


def test_full_ten_deck_matches_the_rules() -> None:
    deck = ten_deck(5)
    kinds = Counter(card.kind for card in deck)
    assert len(deck) == 129
    assert kinds[TenKind.NUMBER] == 4 * 21
    assert kinds[TenKind.COLOUR_WILD] == 8
    assert kinds[TenKind.RAINBOW_WILD] == 9
    assert kinds[TenKind.FULL_WILD] == 1
    assert kinds[TenKind.CURRENCY] == 27
    assert {card.value for card in deck if card.kind is TenKind.CURRENCY} == {1, 2, 3, 4, 5}


@pytest.mark.parametrize(
    ("players", "removed"),
    [(5, ()), (4, ()), (3, ("4+",)), (2, ("4+", "3+")), (1, ("4+", "3+"))],
    ids=["five-all", "four-all", "three-minus-4+", "two-minus-both", "solo-minus-both"],
)
def test_ten_deck_is_filtered_by_player_count(players: int, removed: tuple[str, ...]) -> None:
    full = Counter(ten_deck(5))
    expected = full.copy()
    for mark in removed:
        expected -= Counter({parse_ten_card(text): n for text, n in MARKS[mark].items()})
    assert Counter(ten_deck(players)) == expected
    assert len(ten_deck(players)) == 129 - sum(sum(MARKS[m].values()) for m in removed)


@pytest.mark.parametrize(
    "text", ["R0", "R10", "X5", "$6", "$0", "*0", "R", "", "#R", "**", "R\u00b2", "$\u00b2", "*\u00b2"]
)
def test_bad_ten_card_text_is_refused(text: str) -> None:
    with pytest.raises(CardError):
        parse_ten_card(text)


@pytest.mark.parametrize("text", ["AS/x", "AS/", "AS/\u00b2", "AS/-1"])
def test_a_copy_that_is_not_a_number_is_refused(text: str) -> None:
    with pytest.raises(CardError, match="must be a number"):
        parse_physical(text)


def test_ten_deck_refuses_impossible_player_counts() -> None:
    with pytest.raises(CardError, match="1 to 5"):
        ten_deck(6)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("10", "'10' has no suit: write rank then suit, like '10H' (S, H, D or C)"),  # was "'1' is not a rank"
        ("q", "'q' has no suit: write rank then suit, like 'QH'"),
        ("KH2", "'KH2' is not a card: a copy goes after a slash, like 'KH/2'"),  # "'KH' is not a rank"
        ("10d2", "like '10D/2'"),
        ("JK3", "like 'JK/3'"),
        ("ZZ", "'ZZ' is not a card: 'Z' is not a rank"),
        ("KH/" + "1" * 5000, "'KH/1111111111111111…': the copy after '/' must be a number"),  # int() raised past 4,300
        ("KH/\u0662", "the copy after '/' must be a number"),  # an Arabic-Indic 2: isdecimal() and int() take it
        ("KH\u0662", "'KH\u0662' is not a card: 'KH' is not a rank"),  # no hint towards 'KH/\u0662', then refused
        (
            "10C" + "2" * 5000,
            "'10C2222222222222222…' is not a card: '10C2222222222222222…' is not a rank",
        ),  # echoed whole
    ],
)
def test_a_common_slip_in_card_text_is_named(text: str, message: str) -> None:
    """The wording audit (session 40): a card typed without its suit, or a copy without its slash (only where copies
    exist: in a one-deck game the hint led to 'KH/2', refused in its turn: a review)."""
    with pytest.raises(CardError) as info:
        parse_physical(text)
    assert message in str(info.value) and len(str(info.value)) < 120
    if "/" not in text:
        with pytest.raises(CardError) as info:
            parse_face(text)
        assert "slash" not in str(info.value)


def test_card_fields_that_are_not_text_are_said_as_json_writes_them() -> None:
    """Push's card fields said "not 'None'", "not 'True'", "not '5'" (a second review, session 40)."""
    for value, said in ((None, "null"), (True, "true"), (5, "5"), (["AS"] * 30, '["AS", "AS", "AS", "…')):
        with pytest.raises(CardError) as info:
            parse_face(value)  # type: ignore[arg-type]
        assert str(info.value) == f"a card must be written as text like 'AS', not {said}"
    with pytest.raises(CardError, match="'R\u0662' is not a Ten card"):  # an Arabic-Indic 2 was read as R2
        parse_ten_card("R\u0662")
