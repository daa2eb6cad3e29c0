"""Spit rule tables between the plays: layouts (the short stack too), round end, the slap,
the pick-up, the standard win and the 100-point variant. Case ids name the rule checked."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from scorer.events import EventError
from scorer.game import OptionError, Severity
from scorer.session import Session
from scorer.spit import GAME
from scorer.spit_table import Phase, Side, SpitState
from tests.scorer.spit_support import PLAYERS, add, card, codes, event, table

FULL = [1, 2, 3, 4, 5]


def holding(alex: int, beth: int, **options: Any) -> Session:
    """A session at the layout of round 2 where Alex holds ``alex`` cards and Beth ``beth``."""
    session = Session("spit", PLAYERS, options)
    session.state = replace(session.state, round=2, sides=(Side(hand=alex), Side(hand=beth)))
    return session


# -- layouts -------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("cards", "counts", "fouls", "spit"),
    [
        pytest.param(26, FULL, [], 11, id="full_layout_is_piles_of_1_to_5"),
        pytest.param(26, [5, 4, 3, 2, 1], [], 11, id="full_layout_in_any_order"),
        pytest.param(26, [3, 3, 3, 3, 3], ["bad_layout"], 11, id="piles_must_be_1_to_5"),
        pytest.param(26, [2, 2, 3, 4, 5], ["bad_layout"], 10, id="sixteen_stock_cards_is_wrong"),
        pytest.param(15, FULL, [], 0, id="exactly_15_cards_leave_no_spit_cards"),
        pytest.param(12, [1, 2, 3, 4, 2], [], 0, id="short_stack_pile_by_pile"),
        pytest.param(7, [1, 2, 2, 1, 1], [], 0, id="short_stack_row_by_row"),
        pytest.param(3, [1, 1, 1, 0, 0], [], 0, id="short_stack_empty_spaces_when_cards_run_out"),
        pytest.param(12, [1, 2, 3, 4], ["bad_layout"], 2, id="short_stack_keeps_no_spit_cards"),
        pytest.param(12, [6, 2, 2, 1, 1], ["bad_layout"], 0, id="short_stack_no_pile_above_5"),
        pytest.param(14, [1, 2, 3, 4, 4], [], 0, id="short_stack_last_pile_short"),
        pytest.param(14, [5, 5, 2, 1, 1], ["bad_layout"], 0, id="short_stack_never_more_than_a_full_layout"),
    ],
)
def test_layout(cards: int, counts: list[int], fouls: list[str], spit: int) -> None:
    session = holding(cards, 52 - cards)
    rulings = add(session, "layout", player="Alex", counts=counts)
    assert codes(rulings) == fouls
    alex = session.state.sides[0]
    assert alex.spit == spit and alex.stock_cards == sum(counts) and alex.hand == 0
    assert [slot.size for slot in alex.stock] == counts + [0] * (5 - len(counts))
    assert all(slot.needs_reveal or slot.is_empty for slot in alex.stock)  # no tops given yet
    if fouls:
        assert rulings[0].severity is Severity.FOUL and rulings[0].player == "Alex"


@pytest.mark.parametrize(
    ("data", "message"),
    [
        pytest.param({"counts": [1, 2, 3, 4, 5, 6]}, "up to 5 stock piles", id="never_more_than_5_piles"),
        pytest.param({"counts": [0, 0, 0, 0, 0]}, "up to 5 stock piles", id="layout_needs_cards"),
        pytest.param({"counts": [6, 6, 6, 6, 6]}, "holds 26 cards, fewer than the 30", id="more_cards_than_held"),
        pytest.param({"counts": FULL, "spit": 10}, "so 11 spit cards, not 10", id="spit_count_checked"),
        pytest.param({"counts": FULL, "tops": ["2S"]}, "one card \\(or null\\) per stock pile", id="one_top_per_pile"),
        pytest.param({"counts": [1, 0], "tops": [None, "2S"]}, "on an empty stock pile", id="no_top_on_empty_pile"),
        pytest.param({"counts": [1, 1], "tops": ["2S", "2S"]}, "already face up", id="no_card_twice"),
        pytest.param({"counts": [1, 1], "tops": ["2S", 7]}, "cards like 'AS'", id="tops_are_card_texts"),
    ],
)
def test_malformed_layouts_are_refused(data: dict[str, Any], message: str) -> None:
    session = Session("spit", PLAYERS)
    with pytest.raises(EventError, match=message):
        add(session, "layout", player="Alex", **{k: v for k, v in data.items() if v is not None})
    assert session.events == []


def test_a_player_lays_out_once_per_round() -> None:
    session = Session("spit", PLAYERS)
    add(session, "layout", player="Alex", counts=FULL)
    with pytest.raises(EventError, match="already laid out"):
        add(session, "layout", player="Alex", counts=FULL)


def test_somebody_must_keep_spit_cards() -> None:
    session = Session("spit", PLAYERS)
    add(session, "layout", player="Alex", counts=[6, 5, 5, 5, 5])
    with pytest.raises(EventError, match="nobody keeps spit cards"):
        add(session, "layout", player="Beth", counts=[6, 5, 5, 5, 5])


def test_both_layouts_call_for_the_opening_spit() -> None:
    session = Session("spit", PLAYERS)
    add(session, "layout", player="Alex", counts=FULL, tops=["3S", "4S", "5S", "6S", "7S"])
    rulings = add(session, "layout", player="Beth", counts=FULL, tops=[None, "JD", "AD", "5C", "6D"])
    assert codes(rulings) == ["round_ready"] and session.state.phase is Phase.START and not session.state.single_pile
    assert codes(add(session, "reveal", player="Beth", stock=0, card="10H")) == []  # turned before the Spit!
    with pytest.raises(EventError, match="needs a card from Beth"):
        add(session, "spit", cards={"Alex": "2C"})
    add(session, "spit", cards={"Alex": "2C", "Beth": "9D"})
    assert [session.state.top(0), session.state.top(1)] == [card("2C"), card("9D")]


@pytest.mark.parametrize(
    "piles",
    [
        pytest.param({"Alex": 0, "Beth": 0}, id="both_on_the_first_pile"),
        pytest.param({"Alex": 1, "Beth": 1}, id="both_on_the_second_pile"),
    ],
)
def test_the_opening_spit_starts_each_spit_pile_with_one_card(piles: dict[str, int]) -> None:
    """RULES.md Spit: at the start "each turns the top spit card face up into the middle: the two spit piles"; an
    opening Spit! that puts both cards on one pile (a mis-tapped 'piles') is refused, and the right one then counts."""
    session = Session("spit", PLAYERS)
    add(session, "layout", player="Alex", counts=FULL, tops=["3S", "4S", "5S", "6S", "7S"])
    add(session, "layout", player="Beth", counts=FULL, tops=["10H", "JD", "AD", "5C", "6D"])
    before = session.state
    with pytest.raises(EventError, match="the opening Spit! starts each spit pile with one card"):
        add(session, "spit", cards={"Alex": "2C", "Beth": "9D"}, piles=piles)
    assert session.state == before and len(session.events) == 2
    add(session, "spit", cards={"Alex": "2C", "Beth": "9D"}, piles={"Alex": 1, "Beth": 0})
    assert [session.state.top(0), session.state.top(1)] == [card("9D"), card("2C")]
    assert session.state.phase is Phase.PLAY


# -- the short stack: one spit pile ------------------------------------------------------------------
def test_fewer_than_15_cards_means_a_single_spit_pile() -> None:
    session = holding(12, 40)
    add(session, "layout", player="Alex", counts=[1, 2, 3, 4, 2], tops=["3S", "4S", "5S", "6S", "7S"])
    rulings = add(session, "layout", player="Beth", counts=FULL, tops=["10H", "JD", "AD", "5C", "6D"])
    assert codes(rulings) == ["round_ready"] and "one spit pile" in rulings[0].message
    assert session.state.single_pile and session.state.short == 0
    with pytest.raises(EventError, match="Alex has no spit cards left"):
        add(session, "spit", cards={"Alex": "2C", "Beth": "9D"})
    add(session, "spit", cards={"Beth": "8D"})
    assert len(session.state.piles) == 1 and session.view()["single_pile"] is True
    with pytest.raises(EventError, match=r"single spit pile: play on spit pile 1 \(.pile. 0\)"):
        add(session, "play", player="Alex", card="7S", pile=1)
    assert codes(add(session, "play", player="Alex", card="7S", pile=0)) == []


# -- the end of a round ----------------------------------------------------------------------------
def last_card(options: dict[str, Any] | None = None, piles: list[list[str]] | None = None) -> SpitState:
    """Alex has one stock card left (5S) that fits spit pile 1; Beth has 4 stock and 2 spit cards."""
    piles = piles or [["2C", "3C", "4H"], ["9D", "10H", "JD", "QD", "KC", "AC"]]
    return table(["5S", None, None, None, None], ["8C+3", None, None, None, None], piles, (3, 2), options)


def test_playing_the_last_stock_card_ends_the_round() -> None:
    state, rulings = GAME.apply(last_card(), event(40, "play", player="Alex", card="5S", pile=0))
    assert [(r.code, r.severity) for r in rulings] == [("round_over", Severity.ALERT)]
    assert "Alex has played every stock card" in rulings[0].message and "Slap the smaller" in rulings[0].message
    assert state.phase is Phase.SLAP and state.ended is not None and state.ended.first_out == 0
    assert "Round over: slap the smaller spit pile!" in GAME.view(state)["alerts"]


def test_an_illegal_last_card_does_not_end_the_round() -> None:
    state, rulings = GAME.apply(last_card(), event(40, "play", player="Alex", card="5S", pile=1))
    assert codes(rulings) == ["illegal_play"] and state.phase is Phase.PLAY


@pytest.mark.parametrize(
    ("slapper", "pile", "hands", "larger"),
    [
        pytest.param("Alex", 0, (3 + 4, 6 + 6), False, id="first_slapper_takes_smaller_pile"),
        pytest.param("Beth", 0, (3 + 6, 6 + 4), False, id="loser_can_win_the_slap"),
        pytest.param("Alex", 1, (3 + 6, 6 + 4), True, id="slapping_the_larger_pile_takes_it"),
    ],
)
def test_slap_race_shares_the_piles(slapper: str, pile: int, hands: tuple[int, int], larger: bool) -> None:
    state, _ = GAME.apply(last_card(), event(40, "play", player="Alex", card="5S", pile=0))  # piles: 4 and 6
    state, rulings = GAME.apply(state, event(41, "slap", player=slapper, pile=pile))
    assert codes(rulings) == ["round_result"] and ("larger" in rulings[0].message) is larger
    assert tuple(side.hand for side in state.sides) == hands
    assert state.phase is Phase.LAYOUT and state.round == 2 and state.piles == ()
    row = GAME.score(state).history[0]
    assert row["took"] == {"Alex": hands[0] - 3, "Beth": hands[1] - 6} and row["held"] == {"Alex": 3, "Beth": 6}
    assert row["end"] == "cleared" and row["first_out"] == "Alex" and row["single_pile"] is False
    taken = {"Alex": state.sides[0].known, "Beth": state.sides[1].known}
    assert card("8C") in taken["Beth"]  # her face-up stock top is hers, face down, next round
    assert (card("4H") in taken[slapper]) is (pile == 0)
    view = GAME.view(state)["players"]  # the camera gives a spit card to the player known to hold it
    assert {name: view[name]["known"] for name in taken} == {n: sorted(str(c) for c in k) for n, k in taken.items()}
    assert "8C" in view["Beth"]["known"]
    state, rulings = GAME.apply(state, event(42, "slap", player="Beth" if slapper == "Alex" else "Alex", pile=pile))
    assert codes(rulings) == ["late_slap"] and rulings[0].severity is Severity.INFO


def test_slap_during_play_is_a_foul_and_changes_nothing() -> None:
    state = last_card()
    new, rulings = GAME.apply(state, event(40, "slap", player="Beth", pile=0))
    assert codes(rulings) == ["early_slap"] and new == state


def test_slap_before_play_is_refused() -> None:
    with pytest.raises(EventError, match="nothing to slap"):
        GAME.apply(GAME.initial_state(PLAYERS, {}), event(1, "slap", player="Beth", pile=0))


@pytest.mark.parametrize(
    ("piles", "hands"),
    [
        pytest.param([["2C", "3C", "4H"], ["9D", "10H", "JD", "QD", "KC", "AC"]], (3 + 4, 6 + 6), id="takes_smaller"),
        pytest.param([["2C", "3C", "4H"], ["9D", "10H", "JD", "QD"]], (3 + 4, 6 + 4), id="equal_piles_takes_its_own"),
        pytest.param([["9D", "10H", "JD", "QD", "KC", "AC", "2C", "3C", "4H"], ["8D"]], (3 + 1, 6 + 10), id="pile_2"),
    ],
)
def test_winner_takes_smaller_option_needs_no_slap(piles: list[list[str]], hands: tuple[int, int]) -> None:
    state = last_card({"slap": "winner_takes_smaller"}, piles)
    target = 0 if piles[0][-1] == "4H" else 1
    state, rulings = GAME.apply(state, event(40, "play", player="Alex", card="5S", pile=target))
    assert codes(rulings) == ["round_over", "round_result"]
    assert tuple(side.hand for side in state.sides) == hands and state.phase is Phase.LAYOUT


@pytest.mark.parametrize("slap", ["race", "winner_takes_smaller"])
def test_blocked_round_ends_and_waits_for_the_slap(slap: str) -> None:
    """Nobody has spit cards; Alex's 8H on 7C is the last play; then nothing fits 8H or 2D, and
    Alex's new empty space uncovers nothing (his other cards lie alone)."""
    alex: list[str | None] = ["8H", "2S", "2H", "2C", "4H"]
    state = table(alex, ["KS+2", "5C", "5D", "5S", "6C"], [["7C"], ["JD", "2D"]], (0, 0), {"slap": slap})
    state, rulings = GAME.apply(state, event(50, "play", player="Alex", card="8H", pile=0))
    assert codes(rulings) == ["round_over"] and "nobody has spit cards left" in rulings[0].message
    assert state.phase is Phase.SLAP and state.ended is not None and state.ended.reason == "blocked"
    state, rulings = GAME.apply(state, event(51, "slap", player="Beth", pile=0))
    assert tuple(side.hand for side in state.sides) == (4 + 2, 7 + 2)
    row = GAME.score(state).history[0]
    assert row["end"] == "blocked" and row["first_out"] is None and row["held"] == {"Alex": 4, "Beth": 7}


def test_round_end_call_while_a_play_exists_is_false() -> None:
    state = last_card()
    new, rulings = GAME.apply(state, event(40, "round_end", player="Beth"))
    assert codes(rulings) == ["false_round_end"] and "Alex can still play 5S" in rulings[0].message and new == state
    stalled = table(["8H", "2S", None, None, None], ["KS", None, None, None, None], [["5C"], ["JD"]], (0, 3))
    _, rulings = GAME.apply(stalled, event(40, "round_end", player="Alex"))
    assert codes(rulings) == ["false_round_end"] and "Beth still has spit cards: say Spit!" in rulings[0].message
    over, _ = GAME.apply(state, event(40, "play", player="Alex", card="5S", pile=0))
    assert GAME.apply(over, event(41, "round_end")) == (over, [])


# -- one spit pile: the standard win -------------------------------------------------------------------
def single(alex: list[str | None], beth: list[str | None], spit: tuple[int, int]) -> SpitState:
    return table(alex, beth, [["9D", "10H", "JD"]], spit)


def test_short_stack_player_clearing_first_wins_the_game() -> None:
    state = single(["QC", None, None, None, None], ["2C+3", "5H", None, None, None], (0, 6))
    state, rulings = GAME.apply(state, event(60, "play", player="Alex", card="QC", pile=0))
    assert codes(rulings) == ["round_over", "round_result", "game_over"]
    assert rulings[-1].player == "Alex" and "wins the game" in rulings[-1].message
    assert [side.hand for side in state.sides] == [0, 5 + 6 + 4]
    sheet = GAME.score(state)
    assert sheet.finished and sheet.winner == ("Alex",) and sheet.totals == {"Alex": 0, "Beth": 15}
    assert sheet.lower_wins and GAME.view(state)["winner"] == ["Alex"]
    with pytest.raises(EventError, match="the game is over"):
        GAME.apply(state, event(61, "layout", player="Beth", counts=FULL))


def test_spitter_clearing_first_keeps_spit_cards_and_the_game_goes_on() -> None:
    state = single(["2C+3", "5H", None, None, None], ["QC", None, None, None, None], (0, 6))
    state, rulings = GAME.apply(state, event(60, "play", player="Beth", card="QC", pile=0))
    assert codes(rulings) == ["round_over", "round_result"]
    assert [side.hand for side in state.sides] == [5 + 4, 6]  # Alex takes the pile; Beth keeps her spit cards
    assert state.phase is Phase.LAYOUT and not GAME.score(state).finished


@pytest.mark.parametrize(
    ("alex", "beth", "hands"),
    [
        pytest.param(["8H", "2S", "2H", "2D", "2C"], ["KS", "3S", "3H", None, None], (4 + 2, 3), id="more_stock_takes"),
        pytest.param(["8H", "2S", "2H", None, None], ["KS+3", "3S", "3H", "3D", "3C"], (2, 8 + 2), id="spitter_more"),
        pytest.param(["8H", "2S", "2H", "2D", "2C"], ["KS", "3S", "3H", "3D", None], (4, 4 + 2), id="tie_spitter"),
    ],
)
def test_blocked_single_pile_round_the_player_further_behind_takes_the_pile(
    alex: list[str | None], beth: list[str | None], hands: tuple[int, int]
) -> None:
    """Alex (no spit cards) plays 8H on the single pile's 7C; then nobody can play."""
    state = table(alex, beth, [["7C"]], (0, 0))
    assert state.short == 0
    state, rulings = GAME.apply(state, event(70, "play", player="Alex", card="8H", pile=0))
    assert codes(rulings) == ["round_over", "round_result"]
    assert tuple(side.hand for side in state.sides) == hands


# -- scoring: points ---------------------------------------------------------------------------------
def test_points_are_the_cards_still_held_each_round() -> None:
    state = last_card({"scoring": "points"})
    state, _ = GAME.apply(state, event(40, "play", player="Alex", card="5S", pile=0))
    state, _ = GAME.apply(state, event(41, "slap", player="Alex", pile=0))
    sheet = GAME.score(state)
    assert sheet.totals == {"Alex": 3, "Beth": 6} and sheet.history[0]["points"] == {"Alex": 3, "Beth": 6}
    assert not sheet.finished and sheet.lower_wins and GAME.view(state)["points"] == {"Alex": 3, "Beth": 6}


@pytest.mark.parametrize(
    ("before", "winner"),
    [
        pytest.param((40, 94), ("Alex",), id="reaching_100_ends_it_lowest_wins"),
        pytest.param((97, 80), ("Beth",), id="the_player_reaching_100_loses_to_the_lower"),
        pytest.param((97, 94), ("Alex", "Beth"), id="equal_lowest_totals_share_the_win"),
        pytest.param((40, 93), None, id="99_points_does_not_end_it"),
    ],
)
def test_points_game_ends_at_100(before: tuple[int, int], winner: tuple[str, ...] | None) -> None:
    state = replace(last_card({"scoring": "points"}), points=before)
    state, _ = GAME.apply(state, event(40, "play", player="Alex", card="5S", pile=0))
    state, rulings = GAME.apply(state, event(41, "slap", player="Alex", pile=0))
    sheet = GAME.score(state)
    assert sheet.totals == {"Alex": before[0] + 3, "Beth": before[1] + 6}
    assert sheet.winner == winner and sheet.finished is (winner is not None)
    assert ("game_over" in codes(rulings)) is (winner is not None)


def test_points_game_deals_again_when_a_player_runs_out() -> None:
    state = single(["QC", None, None, None, None], ["2C+3", "5H", None, None, None], (0, 6))
    beth = replace(state.sides[1], known=frozenset({card("7D")}))
    state = replace(state, rules=replace(state.rules, scoring="points"), sides=(state.sides[0], beth))
    state, rulings = GAME.apply(state, event(60, "play", player="Alex", card="QC", pile=0))
    assert codes(rulings) == ["round_over", "round_result", "fresh_deal"]
    assert [side.hand for side in state.sides] == [26, 26] and all(not side.known for side in state.sides)
    assert GAME.score(state).totals == {"Alex": 0, "Beth": 11} and state.phase is Phase.LAYOUT


def test_standard_totals_are_the_cards_each_player_owns() -> None:
    state = last_card()
    assert GAME.score(state).totals == {"Alex": 1 + 3, "Beth": 4 + 2}


@pytest.mark.parametrize(
    ("options", "message"),
    [
        pytest.param({"scoring": "golf"}, "standard, points", id="scoring_values"),
        pytest.param({"slap": "fastest"}, "race, winner_takes_smaller", id="slap_values"),
        pytest.param({"ace_wraps": "yes"}, "true or false", id="ace_wraps_is_a_flag"),
        pytest.param({"jokers": True}, "has no option 'jokers'", id="unknown_option"),
    ],
)
def test_bad_options_are_refused(options: dict[str, Any], message: str) -> None:
    with pytest.raises(OptionError, match=message):
        Session("spit", PLAYERS, options)
