"""Snap rule tables: one case per rule and per option value, named after the rule it checks.

Unless a case says otherwise: Alex, Beth and Cara sit in that (clockwise) order, Cara deals, so
Alex (18 cards) turns first, then Beth (17), then Cara (17); the face-down order is unknown to
the referee, so any unseen card may be turned. Each case is a script for
:func:`tests.scorer.snap_support.run` (``"Alex 7H; Beth 7S @2000; Cara snap"``) and the codes of
the rulings its last step brings.
"""

from __future__ import annotations

from typing import Any

import pytest

from scorer.cards import parse_card, standard_deck
from scorer.events import EventError, GameEvent, Source
from scorer.game import Severity
from scorer.session import Session
from scorer.snap import possible_flips
from scorer.snap_table import Packet, sort_cards
from tests.scorer.snap_support import ONE_CARD, PLAYERS, Table, accounting_problems, codes, run

# A Snap Pot of 7H (Alex) under 7S (Beth), made by a tie between Cara and Alex; Cara to flip.
GRACE = {"call_grace_ms": 1500}  # what a new game starts with (a log without it: 0)
POT = "Alex 7H; Beth 7S @2000; Cara snap @2100; Alex snap @2200; resolve"
POT_OWNERS = "Alex 7H; Beth 7S @2000; Beth snap @2100; Alex snap @2200; resolve"  # the same, by the owners
# Cara's real call is pending when Alex and Beth call "Snap Pot!" with no pot on the table: both calls are false
FALSE_TWICE = "Alex 7H; Beth 7S @2000; Cara snap @2100; Alex snap_pot @2120; Beth snap_pot @2130; resolve"
# Four players, Dana deals: Cara's 9D matches Dana's 9C, then Alex's 5H matches Beth's 5S; each owner calls their own
FOUR = ("Alex", "Beth", "Cara", "Dana")
TWO_MATCHES = "Alex 8H; Beth 5S; Cara 9D; Dana 9C; Alex 5H; Alex snap @5300; Cara snap @5350; resolve"
# Slapping: a pot of two 7s, then Alex's 7D matches both Cara's 7C and the pot; Beth slaps
SLAP_POT = "Alex 7H; Beth 7S @2000; Alex slap @2300; Beth slap @2350; resolve"
SLAP_POT_AND_PILE = SLAP_POT + "; Cara 9C; Alex KD; Beth 4C; Cara 7C; Alex 7D; Beth slap; resolve"

RULINGS = [
    # turns
    pytest.param("Alex 2C", {}, [], id="left_of_dealer_turns_first"),
    pytest.param("Beth 2C", {}, ["out_of_turn"], id="flip_out_of_turn_is_a_foul"),
    pytest.param("Alex 2C; Cara 3D", {}, ["out_of_turn"], id="skipping_a_player_is_out_of_turn"),
    pytest.param("Beth 2C; Cara 3D", {}, [], id="play_goes_on_left_of_an_out_of_turn_flipper"),
    pytest.param("Alex 2C; Beth 3D; Cara 4S; Alex 5H", {}, [], id="turns_go_clockwise"),
    pytest.param("Alex 2C", {"dealer": "Alex"}, ["out_of_turn"], id="dealer_does_not_turn_first"),
    # match alerts
    pytest.param("Alex 7H; Beth 7S", {}, ["match"], id="same_rank_is_a_match"),
    pytest.param("Alex 7H; Beth 8H", {}, [], id="no_alert_without_a_match"),
    pytest.param("Alex 7H; Beth 2C; Cara 7D", {}, ["match"], id="match_with_any_other_players_pile"),
    pytest.param("Alex 7H; Beth 7S; Cara 2C", {}, [], id="match_stands_until_a_top_changes"),
    pytest.param("Alex 7H; Beth 7S; Cara 2C; Alex 3D", {}, ["match_gone"], id="covered_match_is_gone"),
    pytest.param("Alex 7H; Beth 7S; Cara 7D", {}, ["match", "match"], id="each_new_pair_is_alerted"),
    pytest.param("Alex 7H; Beth 7S; Cara 2C; Alex 7C", {}, ["match_gone", "match"], id="new_card_new_match"),
    pytest.param("Alex 7H; Alex 7S", {}, ["out_of_turn"], id="own_pile_never_matches_itself"),
    pytest.param("Alex 7H; Beth 8H", {"match": "rank"}, [], id="match_rank_ignores_suit"),
    pytest.param("Alex 7H; Beth 8H", {"match": "suit"}, ["match"], id="match_suit_same_suit"),
    pytest.param("Alex 7H; Beth 7S", {"match": "suit"}, [], id="match_suit_ignores_rank"),
    pytest.param("Alex 7H; Beth 8D", {"match": "colour"}, ["match"], id="match_colour_red_and_red"),
    pytest.param("Alex 7S; Beth KC", {"match": "colour"}, ["match"], id="match_colour_black_and_black"),
    pytest.param("Alex 7H; Beth 7S", {"match": "colour"}, [], id="match_colour_red_and_black"),
    pytest.param(POT + "; Cara 7D", {}, ["match"], id="top_matching_the_snap_pot_is_alerted"),
    # calls and their settlement
    pytest.param("Alex 7H; Beth 7S; Cara snap", {}, ["call_heard"], id="valid_call_waits_for_the_window"),
    pytest.param("Alex 7H; Beth 7S; Cara snap; Cara 2C", {}, ["snap_won", "match_gone"], id="next_flip_settles"),
    pytest.param("Alex 7H; Beth 7S; Cara snap; resolve", {}, ["snap_won", "match_gone"], id="resolve_settles"),
    pytest.param(
        "Alex 7H; Beth 7S @2000; Cara snap @2100; Alex snap @2300",
        {},
        ["snap_won", "match_gone", "late_call"],
        id="call_after_the_window_settles_the_first_and_is_late",  # call_grace_ms 0: a log without it
    ),
    pytest.param(
        "Alex 7H; Beth 7S @2000; Cara snap @2100; Alex snap @2300",
        GRACE,
        ["call_heard"],  # it waits: a slower phone's earlier press may still be on its way
        id="call_after_the_window_waits_for_slower_phones",
    ),
    pytest.param(
        "Alex 7H; Beth 7S @2000; Cara snap @2100; Alex snap @2300; resolve",
        GRACE,
        ["snap_won", "match_gone", "late_call"],
        id="call_after_the_window_is_late_at_the_settling",
    ),
    pytest.param(  # Beth's phone is slow: her press (2050) arrives after Alex's two (2060, 2210): she was first
        "Alex 7H; Beth 7S @1000; Alex snap @2060; Alex snap @2210; Beth snap @2000; resolve",
        {**GRACE, "tie_window_ms": 0},
        ["snap_won", "match_gone", "late_call", "late_call"],
        id="a_slow_phones_earlier_press_still_wins",
    ),
    pytest.param(
        "Alex 7H; Beth 7S @2000; Cara snap @2100; Alex snap @3800",
        GRACE,
        ["snap_won", "match_gone", "late_call"],
        id="call_long_after_the_window_and_its_grace_settles_the_first_and_is_late",
    ),
    pytest.param("resolve", {}, [], id="resolve_with_nothing_pending_does_nothing"),
    pytest.param(POT, {}, ["snap_pot_formed", "match_gone"], id="tie_within_window_forms_snap_pot"),
    pytest.param(
        "Alex 7H; Beth 7S @2000; Cara snap @2100; Alex snap @2250; resolve",
        {},
        ["snap_pot_formed", "match_gone"],
        id="tie_window_includes_its_last_millisecond",
    ),
    pytest.param(
        "Alex 7H; Beth 7S @2000; Alex snap @2100; Cara snap @2090; resolve",
        {},
        ["snap_pot_formed", "match_gone"],
        id="tie_judged_by_ts_not_arrival_order",
    ),
    pytest.param(
        "Alex 7H; Beth 7S @2000; Alex snap @2100; Alex snap @2150; resolve",
        {},
        ["snap_won", "match_gone"],
        id="one_player_calling_twice_is_no_tie",
    ),
    pytest.param(
        "Alex 7H; Beth 7S @2000; Cara snap @2100; Alex snap @2100; resolve",
        {"tie_window_ms": 0},
        ["snap_pot_formed", "match_gone"],
        id="tie_window_0_same_ms_ties",
    ),
    pytest.param(
        "Alex 7H; Beth 7S @2000; Cara snap @2100; Alex snap @2101",
        {"tie_window_ms": 0},
        ["snap_won", "match_gone", "late_call"],
        id="tie_window_0_one_ms_later_is_late",
    ),
    pytest.param(
        "Alex 7H; Beth 7S @2000; Cara snap @2100; Alex snap @2600; resolve",
        {"tie_window_ms": 500},
        ["snap_pot_formed", "match_gone"],
        id="tie_window_500_ties_half_a_second_apart",
    ),
    pytest.param(POT + "; Cara 7D; Beth snap_pot; resolve", {}, ["snap_pot_won", "match_gone"], id="snap_pot_won"),
    pytest.param(
        POT + "; Cara 7D @5000; Alex snap_pot @5100; Beth snap_pot @5140; resolve",
        {},
        ["snap_pot_grown", "match_gone"],
        id="second_tie_grows_the_snap_pot",
    ),
    pytest.param(  # Alex's 9H matches Dana's 9C, Cara's 7D the pot's 7S: Beth calls both, each wins its own
        POT + "; Cara 7D @3000; Dana 9C @4000; Alex 9H @5000; Beth snap @5100; Beth snap_pot @5150; resolve",
        {"players": FOUR},
        ["snap_won", "match_gone", "snap_pot_won", "match_gone"],
        id="one_players_snap_and_snap_pot_in_one_window_both_win",
    ),
    pytest.param(POT + "; Cara 7D; Alex snap", {}, ["false_call"], id="snap_call_on_a_pot_match_is_false"),
    pytest.param("Alex 7H; Beth 7S; Cara snap_pot", {}, ["false_call"], id="snap_pot_call_without_pot_is_false"),
    pytest.param("Alex 7H; Beth 8S; Cara snap", {}, ["false_call"], id="call_without_a_match_is_false"),
    pytest.param("Cara snap", {}, ["false_call"], id="call_before_any_flip_is_false"),
    pytest.param(
        "Alex 7H; Beth 7S @2000; Cara snap @2100; Alex snap_pot @2120",
        {},
        ["false_call"],
        id="false_call_while_a_call_is_pending_is_judged_at_once",
    ),
    pytest.param(
        "Alex 7H; Beth 7S @2000; Cara snap @2100; Alex snap_pot @2120; resolve",
        {},
        ["snap_won", "match_gone", "penalty_paid"],
        id="its_penalty_is_paid_after_the_settlement",
    ),
    pytest.param(
        FALSE_TWICE, {}, ["snap_won", "match_gone", "penalty_paid", "penalty_paid"], id="each_false_call_pays"
    ),
    pytest.param(
        "Alex 7H; Beth 7S; Cara snap; resolve; Beth snap", {}, ["late_call"], id="late_call_before_next_flip_is_free"
    ),
    pytest.param(
        "Alex 7H; Beth 7S; Cara snap; resolve; Cara 2C; Beth snap",
        {},
        ["false_call"],
        id="call_after_next_flip_is_false",
    ),
    pytest.param("Alex 7H; Beth 7S; Cara snap", {"callers": "anyone"}, ["call_heard"], id="callers_anyone"),
    pytest.param(
        "Alex 7H; Beth 7S; Cara snap", {"callers": "owners_only"}, ["false_call"], id="callers_owners_only_bystander"
    ),
    pytest.param(
        "Alex 7H; Beth 7S; Beth snap", {"callers": "owners_only"}, ["call_heard"], id="callers_owners_only_owner"
    ),
    pytest.param(
        "Alex 7H; Beth 7S; Beth snap; resolve; Alex snap",
        {"callers": "owners_only"},
        ["late_call"],
        id="owners_only_owner_late_call_is_free",
    ),
    pytest.param(
        "Alex 7H; Beth 7S; Beth snap; resolve; Cara snap",
        {"callers": "owners_only"},
        ["false_call"],
        id="owners_only_bystander_late_call_is_false",
    ),
    pytest.param(
        POT_OWNERS + "; Cara 7D; Alex snap_pot",
        {"callers": "owners_only"},
        ["false_call"],
        id="owners_only_pot_bystander",
    ),
    pytest.param(
        POT_OWNERS + "; Cara 7D; Cara snap_pot", {"callers": "owners_only"}, ["call_heard"], id="owners_only_pot_owner"
    ),
    pytest.param(
        TWO_MATCHES,
        {"callers": "owners_only", "players": FOUR},
        ["snap_won", "match_gone", "snap_won", "match_gone"],
        id="owners_only_two_matches_called_together_are_two_wins_not_a_tie",
    ),
    pytest.param("Alex 7H; Beth 7S; Cara slap", {"call_style": "slap"}, ["call_heard"], id="call_style_slap"),
    pytest.param("Alex 7H; Beth 8S; Cara slap", {"call_style": "slap"}, ["false_call"], id="false_slap"),
    pytest.param(
        "Alex 7H; Beth 7S @2000; Cara slap @2100; Alex slap @2200; resolve",
        {"call_style": "slap"},
        ["snap_pot_formed", "match_gone"],
        id="slaps_tie_like_calls",
    ),
    pytest.param(
        "Alex 7H; Beth 7S @2000; Cara slap @2100; Alex slap @2200; resolve; Cara 7D; Beth slap; resolve",
        {"call_style": "slap"},
        ["snap_pot_won", "match_gone"],
        id="slap_wins_the_snap_pot",
    ),
    pytest.param(
        SLAP_POT_AND_PILE,
        {"call_style": "slap"},
        ["snap_pot_won", "match_gone", "match_gone", "match_gone"],
        id="slap_on_a_pile_and_pot_match_wins_the_pot",
    ),
    pytest.param("Alex 7H; Beth 7S; Cara snap", {"call_style": "voice"}, ["call_heard"], id="call_style_voice"),
    # running out, elimination, the winner
    pytest.param(
        "Alex 7H; Beth 2C; Cara 3D; Alex turn_over", ONE_CARD, ["pile_turned_over"], id="turn_over_when_empty"
    ),
    pytest.param("Alex 7H; Beth 2C; Cara 3D; Alex 7H", ONE_CARD, ["pile_turned_over"], id="flip_turns_over_by_itself"),
    pytest.param(
        "Alex 7H; Beth 7S; Cara 2C; Alex turn_over",
        ONE_CARD,
        ["pile_turned_over", "match_gone"],
        id="turning_over_ends_a_match",
    ),
    pytest.param(
        "Alex 7H; Beth 7S; Cara snap; resolve",
        ONE_CARD,
        ["snap_won", "match_gone", "player_out"],
        id="player_with_no_cards_is_out",
    ),
    pytest.param(
        "Alex 7H; Beth 7S; Cara snap; resolve; Alex snap", ONE_CARD, ["call_by_out_player"], id="out_player_cannot_call"
    ),
    pytest.param(
        "Alex 7H; Beth 7S @2000; Beth snap @2100; Cara snap @2150; Alex snap_pot @4000",
        ONE_CARD,
        ["snap_pot_formed", "match_gone", "player_out", "call_by_out_player"],
        id="a_call_whose_settling_put_its_caller_out_is_ignored",
    ),
    pytest.param(
        "Alex 7H; Beth 7S; Cara snap; resolve; Cara 2C; Beth 3D", ONE_CARD, [], id="turn_skips_players_who_are_out"
    ),
    pytest.param(
        "Alex 7H; Beth 7S; Beth snap; resolve",
        {"deal": {"counts": {"Alex": 1, "Beth": 51}}, "players": ("Alex", "Beth")},
        ["snap_won", "match_gone", "player_out", "winner"],
        id="last_player_with_cards_wins",
    ),
]


@pytest.mark.parametrize(("script", "options", "expected"), RULINGS)
def test_rule(script: str, options: dict[str, Any], expected: list[str]) -> None:
    options = dict(options)
    players = options.pop("players", ("Alex", "Beth", "Cara"))
    _, rulings = run(script, players, **options)
    assert codes(rulings) == expected


@pytest.mark.parametrize(
    ("script", "options", "players", "winners", "held", "pot"),
    [
        pytest.param(FALSE_TWICE, {}, PLAYERS, [("snap_won", "Cara"), ("penalty_paid", "Alex"),
                     ("penalty_paid", "Beth")], [16, 15, 21], 0, id="each_false_call_pays"),
        pytest.param(TWO_MATCHES, {"callers": "owners_only"}, FOUR, [("snap_won", "Alex"), ("snap_won", "Cara")],
                     [14, 12, 14, 12], 0, id="owners_only_two_matches_called_together_are_two_wins_not_a_tie"),
        pytest.param(SLAP_POT_AND_PILE, {"call_style": "slap"}, PLAYERS, [("snap_pot_won", "Beth")], [15, 22, 15], 0,
                     id="slap_on_a_pile_and_pot_match_wins_the_pot"),
    ],
)  # fmt: skip
def test_who_wins_and_pays_at_the_settlement(
    script: str,
    options: dict[str, Any],
    players: tuple[str, ...],
    winners: list[tuple[str, str]],
    held: list[int],
    pot: int,
) -> None:
    """RULES.md Snap: each false call (no match, or "Snap Pot!" with no pot) costs its caller a card; the first call
    on a match wins its piles, and only calls on the same match tie (``callers: owners_only``: each owner calls their
    own); a slap on a card matching a pile and the Snap Pot wins the pot and the pile ("same logic")."""
    table, rulings = run(script, players, **options)
    assert [(r.code, r.player) for r in rulings if r.code != "match_gone"] == winners
    assert [table.held(p) for p in players] == held
    assert table.view["pot"]["cards"] == pot and sum(held) + pot == 52


# -- what the rulings and the table say -----------------------------------------------------------
def test_match_alert_names_the_piles_and_cards() -> None:
    _, rulings = run("Alex 7H; Beth 7S")
    (alert,) = rulings
    assert alert.severity.value == "alert"
    assert "Alex's 7H matches Beth's 7S" in alert.message
    assert dict(alert.data) == {"players": ["Alex", "Beth"], "cards": ["7H", "7S"], "pot": False}


def test_pot_alert_names_the_pot() -> None:
    _, rulings = run(POT + "; Cara 7D")
    assert "Cara's 7D matches the Snap Pot's 7S" in rulings[0].message
    assert rulings[0].data["pot"] is True


def test_snap_winner_takes_both_piles_under_their_face_down_pile() -> None:
    table, rulings = run("Alex 7H; Beth 2C; Cara 4D; Alex 5S; Beth 5C; Cara snap; resolve")
    assert codes(rulings) == ["snap_won", "match_gone"]
    assert table.pile("Alex")["face_up"] == 0 and table.pile("Beth")["face_up"] == 0
    assert table.pile("Cara") == {
        "player": "Cara",
        "face_down": 16 + 4,
        "face_down_known": ["5S", "7H", "2C", "5C"],  # the referee saw them go there (deck order)
        "face_up": 1,
        "top": "4D",
        "out": False,
    }
    assert table.pile("Alex")["face_down_known"] == table.pile("Beth")["face_down_known"] == []
    assert table.held("Alex") == 16 and table.held("Beth") == 15
    assert table.state.face_down[2][-1].cards == tuple(map(parse_card, ["5S", "7H", "2C", "5C"]))


def test_earliest_ts_wins_even_when_heard_second() -> None:
    table, rulings = run("Alex 7H; Beth 7S @2000; Alex snap @2100; Cara snap @2050; resolve", tie_window_ms=0)
    assert codes(rulings) == ["snap_won", "match_gone", "late_call"]
    assert rulings[0].player == "Cara" and table.held("Cara") == 17 + 2


def test_a_slow_phones_earlier_press_beats_a_fast_phones_later_presses() -> None:
    """Beth pressed at 2000 on slow Wi-Fi; Alex at 2060 and again at 2210 (mashing), arriving first: his second press
    settled the race before Beth's arrived, and her earlier press was ruled late (a press-time audit, session 35)."""
    script = "Alex 7H; Beth 7S @1000; Alex snap @2060; Alex snap @2210; Beth snap @2000; resolve"
    table, rulings = run(script, tie_window_ms=0, **GRACE)  # 60 ms apart: no tie
    assert [(r.code, r.player) for r in rulings if r.code != "match_gone"] == [
        ("snap_won", "Beth"),
        ("late_call", "Alex"),
        ("late_call", "Alex"),
    ]
    assert table.view["piles"][0]["face_up"] == 0 and table.view["pot"]["cards"] == 0


def test_three_matching_piles_all_go_to_the_winner() -> None:
    table, rulings = run("Alex 7H; Beth 7S; Cara 7D; Beth snap; resolve")
    assert codes(rulings) == ["snap_won", "match_gone", "match_gone", "match_gone"]
    assert table.held("Beth") == 17 + 2 and table.held("Alex") == 17 and table.held("Cara") == 16
    assert table.view["matches"] == []


def test_snap_pot_keeps_a_matching_card_on_top_and_play_goes_on() -> None:
    table, rulings = run(POT)
    assert table.view["pot"] == {"cards": 2, "top": "7S"}
    assert table.view["turn"] == "Cara"  # play continues where it stopped
    assert "Alex and Cara" in rulings[0].message
    assert "Alex's pile (1), Beth's pile (1) form the Snap Pot, now 2 cards" in rulings[0].message


def test_snap_pot_winner_takes_the_pot_and_the_matching_pile() -> None:
    table, _ = run(POT + "; Cara 7D; Alex 2C; Beth snap_pot; resolve")
    # Alex's 2C covered nothing of the match: Cara's 7D still matches the pot's 7S
    assert table.view["pot"] == {"cards": 0, "top": None}
    assert table.pile("Beth")["face_down"] == 16 + 3 and table.pile("Cara")["face_up"] == 0
    assert table.pile("Alex")["face_up"] == 1


def test_second_tie_adds_the_matching_pile_to_the_pot() -> None:
    table, rulings = run(POT + "; Cara 7D @5000; Alex snap_pot @5100; Beth snap_pot @5140; resolve")
    assert table.view["pot"] == {"cards": 3, "top": "7D"}
    assert "Cara's pile (1) goes onto the Snap Pot, now 3 cards with 7D on top" in rulings[0].message
    assert table.held("Cara") == 16


def test_pending_calls_and_window_are_shown() -> None:
    table, _ = run("Alex 7H; Beth 7S @2000; Cara snap @2100")
    assert table.view["pending_calls"] == [{"player": "Cara", "kind": "snap", "ts": 2100, "seq": 4}]
    assert table.view["window_closes"] == 2250


# -- false-call penalties -----------------------------------------------------------------------------
PENALTIES = [
    # (option, script, expected cards held by Alex, Beth, Cara afterwards)
    pytest.param("card_to_turner", "Alex 7H; Cara snap", (18, 18, 16), id="card_to_turner_goes_to_whose_turn_it_is"),
    pytest.param("card_to_turner", "Alex 7H; Beth snap", (19, 16, 17), id="card_to_turner_own_turn_goes_right"),
    pytest.param("card_to_turner", "Alex snap", (17, 17, 18), id="card_to_turner_first_player_right_is_dealer"),
    pytest.param("card_to_each", "Alex 7H; Cara snap", (19, 18, 15), id="card_to_each_pays_everyone"),
    pytest.param("card_to_each", "Alex 7H; Beth snap", (19, 15, 18), id="card_to_each_on_own_turn_too"),
    pytest.param("pile_to_pot", "Alex 7H; Beth 8S; Cara 9D; Cara snap", (18, 17, 16), id="pile_to_pot_forms_pot"),
    pytest.param("pile_to_pot", "Alex 7H; Cara snap", (18, 18, 16), id="pile_to_pot_without_pile_pays_turner"),
]


@pytest.mark.parametrize(("penalty", "script", "held"), PENALTIES)
def test_false_call_penalty(penalty: str, script: str, held: tuple[int, int, int]) -> None:
    table, rulings = run(script, false_call_penalty=penalty)
    assert codes(rulings) == ["false_call"]
    assert (table.held("Alex"), table.held("Beth"), table.held("Cara")) == held
    assert sum(held) + table.view["pot"]["cards"] == 52


def test_pile_to_pot_goes_under_an_existing_pot() -> None:
    table, rulings = run(POT + "; Cara 9D; Alex 4C; Cara snap", false_call_penalty="pile_to_pot")
    assert codes(rulings) == ["false_call"]
    assert table.view["pot"] == {"cards": 3, "top": "7S"}
    assert table.state.pot[0] == parse_card("9D")


def test_pile_to_pot_can_make_a_pot_match() -> None:
    table, rulings = run("Alex 7H; Beth 7S; Cara 8D; Cara snap_pot", false_call_penalty="pile_to_pot")
    assert codes(rulings) == ["false_call"]  # 8D matches nothing, so the new pot brings no alert
    table, rulings = run("Alex 8H; Beth 8C; Alex snap_pot", false_call_penalty="pile_to_pot")
    assert codes(rulings) == ["false_call", "match_gone", "match"]  # Alex's 8H, now the pot, matches Beth's 8C
    assert table.view["pot"] == {"cards": 1, "top": "8H"}


def test_penalty_card_from_a_known_packet_is_named() -> None:
    order = {"Alex": ["AS", "2S"], "Beth": ["3S"], "Cara": ["4S"]}
    rest = [c for c in _deck_text() if c not in {"AS", "2S", "3S", "4S"}]
    order["Alex"] += rest[:16]
    order["Beth"] += rest[16:32]
    order["Cara"] += rest[32:]
    table, rulings = run("Cara snap", deal={"order": order})
    assert "gives their next card, 4S, to Alex, whose turn it is" in rulings[0].message
    assert table.state.face_down[0][-1].cards == (parse_card("4S"),)


def test_penalty_card_from_an_unordered_packet_makes_it_unseen_again() -> None:
    two = {"deal": {"counts": {"Alex": 2, "Beth": 25, "Cara": 25}}}
    table, _ = run("Alex 7H; Beth 2C; Cara 3D; Alex 8S; Beth 4C; Cara 5D; Alex turn_over", **two)
    assert set(possible_flips(table.state, 0)) == {parse_card("7H"), parse_card("8S")}
    unseen = table.view["unseen"]
    rulings = table.call("Alex")  # false, on his own turn: one of 7H and 8S goes to Cara, nobody knows which
    assert "gives their next face-down card to Cara" in rulings[0].message
    assert table.view["unseen"] == unseen + 2
    assert accounting_problems(table.state) == []
    assert parse_card("7H") in possible_flips(table.state, 0) and parse_card("8S") in possible_flips(table.state, 0)
    assert table.held("Alex") == 1 and table.held("Cara") == 25 + 1
    assert table.pile("Alex")["face_down_known"] == table.pile("Cara")["face_down_known"] == []  # not known now


@pytest.mark.parametrize("card", ["2C", "3C"])
def test_two_penalty_cards_paid_to_one_player_at_once_go_under_together(card: str) -> None:
    """Alex and Beth both called Snap Pot falsely while Alex's Snap waited: each gives Cara, whose turn it is, a card
    when the calls are settled, together. The referee paid them in press order and refused Cara's flip of the one it
    put second (nobody can tell which went under first; a differential audit, session 39)."""
    rest = [c for c in _deck_text() if c not in {"7H", "2C", "7S", "3C", "KD"}]
    order = {"Alex": ["7H", "2C", *rest[:24]], "Beth": ["7S", "3C", *rest[24:]], "Cara": ["KD"]}  # Cara: one card
    script = "Alex 7H; Beth 7S @2000; Alex snap @2100; Alex snap_pot @2140; Beth snap_pot @2120; resolve"
    table, rulings = run(script, deal={"order": order})
    assert codes(rulings)[-2:] == ["penalty_paid", "penalty_paid"]
    assert table.state.face_down[2][1:] == (Packet(sort_cards([parse_card("2C"), parse_card("3C")])),)
    assert accounting_problems(table.state) == []
    table.flip("Cara", "KD")
    table.flip("Alex", rest[0])
    table.flip("Beth", rest[24])
    assert set(possible_flips(table.state, 2)) == {parse_card("2C"), parse_card("3C")}
    rulings = table.flip("Cara", card)
    assert [r.code for r in rulings if r.severity in (Severity.FOUL, Severity.ERROR)] == []
    assert table.pile("Cara")["face_down_known"] == [next(c for c in ("2C", "3C") if c != card)]


@pytest.mark.parametrize("card", ["KS", "QS"])
def test_penalties_settled_together_are_paid_from_the_cards_each_player_had(card: str) -> None:
    """Dana, in turn, her face-down pile empty, is paid KS by Alex and QS by Beth and pays her own penalty to Cara,
    all in one settlement: the referee had her pass on KS, the card paid in first, and refused her flip of it. They
    hand their cards over at once: Dana gives her face-up 9D and holds KS and QS, in an order nobody knows (a
    review, session 39)."""
    fixed = {"Alex": ["5C", "KS"], "Beth": ["6C", "QS"], "Cara": ["5H"], "Dana": ["9D"]}
    rest = [c for c in _deck_text() if c not in {c for cards in fixed.values() for c in cards}]
    order = {"Alex": [*fixed["Alex"], *rest[:15]], "Beth": [*fixed["Beth"], *rest[15:30]],
             "Cara": [*fixed["Cara"], *rest[30:46]], "Dana": fixed["Dana"]}  # fmt: skip
    players = ("Alex", "Beth", "Cara", "Dana")
    script = "Dana 9D; Alex 5C; Beth 6C; Cara 5H @4000; Cara snap @4100; Alex snap_pot @4120; Dana snap_pot @4140"
    table, rulings = run(script + "; Beth snap_pot @4160; resolve @7000", players, dealer="Cara", deal={"order": order})
    paid = [r.message for r in rulings if r.code == "penalty_paid"]
    assert "Dana gives their next card, 9D, to Cara" in paid[1], paid
    assert table.state.face_down[3] == (Packet(sort_cards([parse_card("KS"), parse_card("QS")])),)
    assert table.state.face_up[3] == () and accounting_problems(table.state) == []
    rulings = table.flip("Dana", card)
    assert [r.code for r in rulings if r.severity in (Severity.FOUL, Severity.ERROR)] == []


@pytest.mark.parametrize("first", ["Dana", "Alex"])
def test_penalties_settled_together_put_nobody_out_between_them(first: str) -> None:
    """Dana, in turn, holds one card (9D face up) and calls falsely with Alex: paid at once, she gives her 9D to Cara
    and keeps Alex's KS. When she had pressed first she went out before Alex paid, and his card went to Cara "as they
    called on their own turn" (a second review, session 39)."""
    fixed = {"Alex": ["5C", "KS"], "Beth": ["6C", "QS"], "Cara": ["5H"], "Dana": ["9D"]}
    rest = [c for c in _deck_text() if c not in {c for cards in fixed.values() for c in cards}]
    order = {"Alex": [*fixed["Alex"], *rest[:15]], "Beth": [*fixed["Beth"], *rest[15:30]],
             "Cara": [*fixed["Cara"], *rest[30:46]], "Dana": fixed["Dana"]}  # fmt: skip
    players = ("Alex", "Beth", "Cara", "Dana")
    second = "Alex" if first == "Dana" else "Dana"
    script = (
        f"Dana 9D; Alex 5C; Beth 6C; Cara 5H @4000; Cara snap @4100; {first} snap_pot @4120; {second} snap_pot @4140"
    )
    table, rulings = run(script + "; resolve @7000", players, dealer="Cara", deal={"order": order})
    paid = {r.player: r.message for r in rulings if r.code == "penalty_paid"}
    assert "Alex gives their next card, KS, to Dana, whose turn it is" in paid["Alex"]
    assert "Dana gives their next card, 9D, to Cara" in paid["Dana"]
    assert "player_out" not in codes(rulings) and table.state.turn == 3
    assert [table.held(p) for p in players] == [15, 17, 17 + 1 + 1, 1] and accounting_problems(table.state) == []


def test_card_to_each_pays_from_the_caller_s_own_cards_and_names_them() -> None:
    """Beth (face-down pile empty, 6D 7D face up) and Alex call falsely together under card_to_each: Alex's card came
    to Beth in the same settlement, and she paid it on unnamed; she pays her own two, named (a second review)."""
    two = {"deal": {"counts": {"Alex": 25, "Beth": 2, "Cara": 25}}}
    script = "Alex 8S; Beth 6D; Cara 9H; Alex 9C; Beth 7D @6000; Cara snap @6100"  # 9C and 9H, Cara's turn
    table, rulings = run(
        script + "; Alex snap_pot @6120; Beth snap_pot @6140; resolve", false_call_penalty="card_to_each", **two
    )
    paid = [r.message for r in rulings if r.code == "penalty_paid"]
    assert "Beth pays one card to each other player: 6D to Cara, 7D to Alex." in paid[1], paid
    assert table.held("Beth") == 1 and "player_out" not in codes(rulings) and accounting_problems(table.state) == []


def test_a_known_and_an_unseen_penalty_card_paid_together_are_both_unseen() -> None:
    """Beth pays Cara a face-down card nobody saw, Alex (no face-down pile) his face-up 7H, in one settlement: which
    is above the other nobody knows, so 7H counts as unseen again."""
    two = {"deal": {"counts": {"Alex": 2, "Beth": 25, "Cara": 25}}}
    script = "Alex 7H; Beth 2C; Cara 9D; Alex 8S; Beth 9C; Cara snap @6000; Alex snap_pot @6040; Beth snap_pot @6020"
    table, rulings = run(script + "; resolve", **two)
    assert codes(rulings)[-2:] == ["penalty_paid", "penalty_paid"]
    assert "7H" in rulings[-1].message
    assert table.state.face_down[2][-1] == Packet(hidden=2)
    assert parse_card("7H") in table.state.unseen and accounting_problems(table.state) == []
    assert table.held("Alex") == 1 and table.held("Cara") == 25 - 1 + 3 + 2


def test_card_to_each_stops_when_the_caller_runs_out() -> None:
    counts = {"Alex": 48, "Beth": 1, "Cara": 1, "Dana": 2}
    players = ("Alex", "Beth", "Cara", "Dana")
    table, rulings = run(
        "Beth snap", players, dealer="Dana", false_call_penalty="card_to_each", deal={"counts": counts}
    )
    assert codes(rulings) == ["false_call", "player_out"]
    assert [table.held(p) for p in players] == [48, 0, 2, 2]  # Beth had one card: it went to Cara


def _deck_text() -> list[str]:
    return [str(c) for c in standard_deck()]


# -- the deal -------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("players", "dealer", "counts"),
    [
        pytest.param(2, 0, [26, 26], id="deal_2_players_evenly"),
        pytest.param(3, 2, [18, 17, 17], id="deal_extra_card_to_dealers_left"),
        pytest.param(5, 1, [10, 10, 11, 11, 10], id="deal_5_players_extras_from_the_left"),
        pytest.param(12, 11, [5, 5, 5, 5, 4, 4, 4, 4, 4, 4, 4, 4], id="deal_12_players"),
        pytest.param(7, 3, [7, 7, 7, 7, 8, 8, 8], id="deal_7_players_wraps_round"),
    ],
)
def test_deal_whole_deck_evenly_from_the_dealers_left(players: int, dealer: int, counts: list[int]) -> None:
    names = tuple(f"P{i}" for i in range(players))
    table = Table(names, dealer=names[dealer])
    assert [table.held(n) for n in names] == counts
    assert table.view["turn"] == names[(dealer + 1) % players]
    assert codes(table.last) == ["dealt"]


def test_uneven_counts_are_a_foul_but_count() -> None:
    table = Table(dealer="Cara", deal={"counts": {"Alex": 20, "Beth": 20, "Cara": 12}})
    assert codes(table.last) == ["dealt", "uneven_deal"]
    assert table.held("Cara") == 12


def test_known_order_is_followed() -> None:
    order = {"Alex": _deck_text()[:26], "Beth": _deck_text()[26:]}
    table = Table(("Alex", "Beth"), dealer="Beth", deal={"order": order})
    assert table.view["unseen"] == 0
    table.flip("Alex", "AS")
    with pytest.raises(EventError, match="next face-down card is AD"):
        table.flip("Beth", "2S")
    table.flip("Beth", "AD")
    assert codes(table.last) == ["match"]  # AD on Alex's AS


def test_order_for_some_players_and_counts_for_the_others() -> None:
    table = Table(dealer="Cara", deal={"order": {"Alex": _deck_text()[:18]}, "counts": {"Beth": 17, "Cara": 17}})
    assert table.view["unseen"] == 34
    with pytest.raises(EventError, match="AS: it is in Alex's face-down pile"):
        table.flip("Beth", "AS")  # AS is Alex's top card


def test_a_player_put_out_by_an_inserted_call_is_placed_in_game_order() -> None:
    """Alex's false call with his only card was missed, then entered with Insert after the deal: he went out first,
    as the rulings say, but was placed above Beth, who went out after him (places went by seq; a fuzz audit,
    session 35)."""
    rest = [str(c) for c in standard_deck() if str(c) not in ("2C", "3D")]
    order = {"Alex": ["2C"], "Beth": ["3D"], "Cara": rest}
    session = Session("snap", ["Alex", "Beth", "Cara"])
    for seq, ts, kind, data in [
        (1, 0, "deal", {"dealer": "Cara", "order": order}),
        (2, 3000, "call", {"player": "Beth", "kind": "snap"}),
        (3, 4000, "insert", {"after": 1, "event": {"type": "call", "player": "Alex", "kind": "snap", "ts": 1000}}),
    ]:
        session.append(GameEvent(seq, ts, Source.MANUAL, kind, data))
    places = {row["player"]: row["place"] for row in session.score().history}
    assert places == {"Alex": 3, "Beth": 2, "Cara": 1}


def test_players_out_at_the_same_event_share_the_place_below_those_still_in() -> None:
    """Alex and Beth tie with their last cards: both piles go to the Snap Pot and both are out at once, third of
    four (not fourth: the standings on the score sheet)."""
    deal = {"counts": {"Alex": 1, "Beth": 1, "Cara": 25, "Dana": 25}}
    table, rulings = run("Alex 7H; Beth 7S @2000; Cara snap @2100; Dana snap @2150; resolve", FOUR, deal=deal)
    assert codes(rulings) == ["snap_pot_formed", "match_gone", "player_out", "player_out"]
    places = {row["player"]: row["place"] for row in table.session.score().history}
    assert places == {"Alex": 3, "Beth": 3}


@pytest.mark.parametrize(
    ("second", "said"),
    [
        ("@2140", 'Alex called "Snap!" 40 ms after the first call: in time to tie (up to 150 ms).'),
        ("@2300", 'Alex called "Snap!" 200 ms after the first call, past the 150 ms that tie: too late to tie.'),
        ("@2000", 'Alex called "Snap!" first; calls up to 150 ms after it tie with it.'),  # earlier than Cara's
    ],
)
def test_a_call_heard_says_whether_it_may_still_tie(second: str, said: str) -> None:
    """A call in the grace after the window said "calls until 2250 ms tie with the first" though it came at 2300
    (spit/snap phones audit, s38)."""
    _, rulings = run(f"Alex 7H; Beth 7S @2000; Cara snap @2100; Alex snap {second}", **GRACE)
    assert [(r.code, r.message) for r in rulings] == [("call_heard", said)]
