"""Spades scoring rules, one parametrized case per rule (values worked out by hand from RULES.md)."""

from __future__ import annotations

from typing import Any

import pytest

from scorer.game import OptionError
from scorer.session import Session
from scorer.spades import GAME
from scorer.spades_scoring import Rules, blind_nil_allowed, game_winner, score_team
from tests.scorer.spades_support import AC, BD, PLAYERS, Table

F, T = False, True


def rules(**options: Any) -> Rules:
    return Rules.from_options(GAME.spec.resolve(options))


# (bids, blind, tricks, bags before, options) -> (points, bags this hand, bag penalty, bags carried)
TEAM_CASES = [
    pytest.param((3, 2), (F, F), (4, 2), 0, {}, (51, 1, 0, 1), id="contract_made_extra_trick_is_a_bag"),
    pytest.param((3, 2), (F, F), (4, 3), 0, {}, (52, 2, 0, 2), id="worked_example_bid_5_won_7_is_52"),
    pytest.param((4, 2), (F, F), (4, 2), 0, {}, (60, 0, 0, 0), id="contract_made_exactly"),
    pytest.param((5, 1), (F, F), (1, 5), 0, {}, (60, 0, 0, 0), id="contract_is_the_partners_sum"),
    pytest.param((4, 3), (F, F), (3, 3), 0, {}, (-70, 0, 0, 0), id="contract_failed_minus_10_per_trick_bid"),
    pytest.param((4, 3), (F, F), (7, 6), 5, {}, (-24, 6, -100, 1), id="bags_reach_10_cost_100_and_carry"),
    pytest.param((3, 3), (F, F), (5, 4), 8, {}, (-37, 3, -100, 1), id="bag_penalty_with_carry_over"),
    pytest.param((1, 0), (F, F), (13, 0), 9, {}, (-78, 12, -200, 1), id="21_bags_in_one_hand_cost_200"),
    pytest.param((0, 4), (F, F), (0, 5), 0, {}, (141, 1, 0, 1), id="nil_made_plus_100"),
    pytest.param((0, 4), (F, F), (2, 3), 0, {}, (-138, 2, 0, 2), id="failed_nil_tricks_bags_only_default"),
    pytest.param(
        (0, 4), (F, F), (2, 3), 0, {"failed_nil_tricks": "help_contract"}, (-59, 1, 0, 1), id="failed_nil_helps"
    ),
    pytest.param((0, 4), (F, F), (2, 3), 0, {"failed_nil_tricks": "ignored"}, (-140, 0, 0, 0), id="failed_nil_ignored"),
    pytest.param((0, 5), (F, F), (3, 4), 0, {}, (-147, 3, 0, 3), id="failed_nil_bags_count_even_if_contract_fails"),
    pytest.param((0, 3), (T, F), (0, 4), 0, {}, (231, 1, 0, 1), id="blind_nil_made_plus_200"),
    pytest.param((0, 3), (T, F), (1, 3), 0, {}, (-169, 1, 0, 1), id="blind_nil_failed_minus_200"),
    pytest.param((0, 0), (F, F), (0, 0), 0, {}, (200, 0, 0, 0), id="both_nil_made_plus_200"),
    pytest.param((0, 0), (F, F), (1, 2), 0, {}, (-197, 3, 0, 3), id="both_nil_failed_minus_200_and_bags"),
    pytest.param((0, 0), (F, F), (1, 2), 0, {"failed_nil_tricks": "ignored"}, (-200, 0, 0, 0), id="both_nil_failed"),
    pytest.param((0, 0), (F, F), (0, 3), 0, {}, (3, 3, 0, 3), id="both_nil_one_each_cancels"),
    pytest.param((0, 0), (T, T), (0, 0), 0, {}, (400, 0, 0, 0), id="both_blind_nil_made_plus_400"),
    pytest.param((0, 0), (T, T), (0, 1), 0, {"failed_nil_tricks": "ignored"}, (0, 0, 0, 0), id="both_blind_one_each"),
    pytest.param((0, 0), (T, T), (2, 1), 0, {"failed_nil_tricks": "ignored"}, (-400, 0, 0, 0), id="both_blind_failed"),
    pytest.param((3, 3), (F, F), (5, 4), 2, {"bag_limit": 5, "bag_penalty": 50}, (13, 3, -50, 0), id="bag_limit_5"),
    pytest.param((3, 3), (F, F), (5, 4), 8, {"bag_penalty": 0}, (63, 3, 0, 1), id="bag_penalty_0_still_resets"),
    pytest.param((0, 4), (F, F), (0, 4), 0, {"nil_value": 50}, (90, 0, 0, 0), id="nil_value_50"),
    pytest.param((0, 4), (T, F), (0, 4), 0, {"blind_nil_value": 300}, (340, 0, 0, 0), id="blind_nil_value_300"),
    pytest.param((0, 4), (T, F), (0, 4), 0, {"nil_value": 50}, (240, 0, 0, 0), id="blind_nil_ignores_nil_value"),
]


@pytest.mark.parametrize(("bids", "blind", "tricks", "bags_before", "options", "expected"), TEAM_CASES)
def test_team_score(
    bids: tuple[int, int],
    blind: tuple[bool, bool],
    tricks: tuple[int, int],
    bags_before: int,
    options: dict[str, Any],
    expected: tuple[int, int, int, int],
) -> None:
    team = score_team(bids, blind, tricks, 100, bags_before, rules(**options))
    assert (team.points, team.bags, team.bag_penalty, team.bag_count) == expected
    assert team.total == 100 + team.points
    assert team.points == team.contract_points + team.nil_points + team.bags + team.bag_penalty
    assert team.tricks == sum(tricks)


def test_worked_example_contracts_4_3_2_2() -> None:
    """Bids 4/3/2/2: Alex + Charlie need 6, Beth + David need 5."""
    table = Table()
    table.event(
        "hand", bids=dict(zip(PLAYERS, (4, 3, 2, 2), strict=True)), tricks=dict.fromkeys(PLAYERS, 3) | {"Alex": 4}
    )
    teams = table.summary()["history"][0]["teams"]
    assert (teams["Alex & Charlie"]["contract"], teams["Beth & David"]["contract"]) == (6, 5)


def test_worked_example_bags_over_three_hands() -> None:
    """Bid 4 won 7, then 3 won 6, then 4 won 9: 3 + 3 + 5 = 11 bags -> -100 and 1 carried;
    9 more bags bring the next -100."""
    r = Rules()
    hands = [((2, 2), (4, 3)), ((2, 1), (3, 3)), ((2, 2), (5, 4)), ((1, 1), (6, 5))]
    total = bags = 0
    seen = []
    for bids, tricks in hands:
        team = score_team(bids, (F, F), tricks, total, bags, r)
        total, bags = team.total, team.bag_count
        seen.append((team.points, total, bags))
    # 40+3; 30+3; 40+5-100 (11 bags: 1 left); 20+9-100 (10 bags: 0 left)
    assert seen == [(43, 43, 3), (33, 76, 6), (-55, 21, 1), (-71, -50, 0)]


@pytest.mark.parametrize(
    ("bids", "tricks", "bagged", "clean"),
    [
        pytest.param((1, 3, 1, 2), (4, 3, 4, 2), AC, BD, id="first_team_carries_its_own_bags"),
        pytest.param((3, 1, 2, 1), (3, 4, 2, 4), BD, AC, id="second_team_carries_its_own_bags"),
    ],
)
def test_each_team_carries_its_own_bags(
    bids: tuple[int, ...], tricks: tuple[int, ...], bagged: str, clean: str
) -> None:
    """RULES.md Spades: "each time a team's accumulated bags reach 10, -100" -- each team's own bags, carried from
    hand to hand: one team bids 2 and takes 8 twice (6 + 6 = 12 bags), the other makes its 5 exactly."""
    table = Table()
    hand = {"bids": dict(zip(PLAYERS, bids, strict=True)), "tricks": dict(zip(PLAYERS, tricks, strict=True))}
    table.event("hand", **hand)
    table.event("hand", **hand)
    first, second = (row["teams"] for row in table.summary()["history"])
    assert (first[bagged]["bag_count"], first[clean]["bag_count"]) == (6, 0)
    # hand 2: 20 + 6 bags, and 12 bags reach 10: -100 with 2 carried
    assert (second[bagged]["bag_count"], second[bagged]["points"], second[clean]["bag_count"]) == (2, -74, 0)
    assert table.summary()["totals"] == {bagged: 26 - 74, clean: 100}


# (totals, options) -> winning team (0: seats 0 & 2) or None
WINNER_CASES = [
    pytest.param((0, 0), {}, None, id="no_one_near_target"),
    pytest.param((499, 200), {}, None, id="499_is_not_500"),
    pytest.param((500, 200), {}, 0, id="first_to_500_wins"),
    pytest.param((200, 510), {}, 1, id="second_team_reaches_500"),
    pytest.param((520, 510), {}, 0, id="both_pass_500_higher_wins"),
    pytest.param((505, 530), {}, 1, id="both_pass_500_higher_wins_second"),
    pytest.param((510, 510), {}, None, id="exact_tie_plays_another_hand"),
    pytest.param((300, 250), {"target": 300}, 0, id="target_300"),
    pytest.param((499, 250), {"target": 1000}, None, id="target_1000"),
    pytest.param((-200, 50), {"mercy": -200}, 1, id="mercy_at_threshold_loses"),
    pytest.param((-199, 50), {"mercy": -200}, None, id="mercy_above_threshold_plays_on"),
    pytest.param((-1000, 0), {}, None, id="mercy_off_by_default"),
    pytest.param((-250, -300), {"mercy": -200}, 0, id="mercy_both_below_higher_wins"),
    pytest.param((-250, -250), {"mercy": -200}, None, id="mercy_tie_plays_on"),
]


@pytest.mark.parametrize(("totals", "options", "expected"), WINNER_CASES)
def test_game_winner(totals: tuple[int, int], options: dict[str, Any], expected: int | None) -> None:
    assert game_winner(totals, rules(**options)) == expected


@pytest.mark.parametrize(
    ("deficit", "team", "totals", "allowed"),
    [
        pytest.param(0, 0, (300, 0), True, id="off_always_allowed"),
        pytest.param(100, 0, (100, 200), True, id="behind_by_100_allowed"),
        pytest.param(100, 0, (150, 200), False, id="behind_by_50_refused"),
        pytest.param(100, 1, (200, 100), True, id="second_team_behind"),
        pytest.param(100, 1, (100, 100), False, id="level_refused"),
    ],
)
def test_blind_nil_requires_deficit(deficit: int, team: int, totals: tuple[int, int], allowed: bool) -> None:
    assert blind_nil_allowed(team, totals, rules(blind_nil_requires_deficit=deficit)) is allowed


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("target", 300),
        ("target", 10),
        ("bag_limit", 5),
        ("bag_penalty", 50),
        ("nil_value", 50),
        ("blind_nil_value", 300),
        ("blind_nil_requires_deficit", 100),
        ("blind_nil_exchange", 0),
        ("blind_nil_exchange", 2),
        ("blind_nil_exchange", 4),
        ("failed_nil_tricks", "help_contract"),
        ("failed_nil_tricks", "ignored"),
        ("first_lead", "two_of_clubs"),
        ("mercy", -200),
    ],
)
def test_option_values_accepted(name: str, value: Any) -> None:
    session = Session("spades", PLAYERS, {name: value})
    assert getattr(session.state.rules, name) == value
    assert session.header.options == {name: value}


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("target", 0, "target"),
        ("target", "500", "whole number"),
        ("bag_limit", 0, "the house rule 'bag limit'"),
        ("bag_penalty", -100, "the house rule 'bag penalty'"),
        ("nil_value", True, "the house rule 'nil value'"),
        ("blind_nil_value", 2.5, "the house rule 'blind nil value'"),
        ("blind_nil_requires_deficit", -1, "the house rule 'blind nil requires deficit'"),
        ("blind_nil_exchange", 1, "0, 2, 3, 4"),
        ("failed_nil_tricks", "bags", "bags_only, help_contract, ignored"),
        ("first_lead", "dealer", "left_of_dealer, two_of_clubs"),
        ("mercy", 200, "mercy"),
        ("trumps", "hearts", "no option 'trumps'"),
    ],
)
def test_option_values_refused(name: str, value: Any, message: str) -> None:
    with pytest.raises(OptionError, match=message):
        Session("spades", PLAYERS, {name: value})


def test_defaults_match_the_rules() -> None:
    assert Rules.from_options(GAME.spec.resolve({})) == Rules()
    assert GAME.spec.resolve({}) == {
        "target": 500,
        "bag_limit": 10,
        "bag_penalty": 100,
        "nil_value": 100,
        "blind_nil_value": 200,
        "blind_nil_requires_deficit": 0,
        "blind_nil_exchange": 3,
        "failed_nil_tricks": "bags_only",
        "first_lead": "left_of_dealer",
        "mercy": 0,
    }


@pytest.mark.parametrize(
    ("rule", "counted"), [("bags_only", 3), ("help_contract", 5), ("ignored", 3)], ids=lambda v: str(v)
)
def test_the_tricks_counted_toward_the_contract_leave_out_a_failed_nil_unless_they_help(
    rule: str, counted: int
) -> None:
    """Alex bids 4 and takes 3, Charlie's Nil takes 2: the history said "took 5 (set)", which reads as made; the
    screen shows the tricks that count toward the contract (a review, s38)."""
    team = score_team((4, 0), (F, F), (3, 2), 0, 0, rules(failed_nil_tricks=rule))
    assert (team.tricks, team.counted, team.made) == (5, counted, rule == "help_contract")
    assert team.to_json()["counted"] == counted
