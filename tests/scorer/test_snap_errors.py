"""Snap: malformed or impossible events are refused with a clear message and change nothing.

Same table as the rule tables: Alex, Beth, Cara; Cara deals; the face-down order is unknown.
"""

from __future__ import annotations

from typing import Any

import pytest

from scorer.events import EventError
from tests.scorer.snap_support import ONE_CARD, Table, codes, run

ERRORS = [
    pytest.param([("flip", {"player": "Alex", "card": "2C"})], "not been dealt", id="flip_before_the_deal"),
    pytest.param([("deal", {"dealer": "Cara"}), ("deal", {"dealer": "Cara"})], "dealt already", id="second_deal"),
    pytest.param([("deal", {"dealer": "Zed"})], "'dealer'", id="unknown_dealer"),
    pytest.param(
        [("deal", {"dealer": "Cara", "counts": {"Alex": 20, "Beth": 20, "Cara": 20}})], "gives out 60", id="deal_not_52"
    ),
    pytest.param(
        [("deal", {"dealer": "Cara", "counts": {"Alex": 26, "Beth": 26}})], "missing: Cara", id="deal_misses_a_player"
    ),
    pytest.param(
        [("deal", {"dealer": "Cara", "counts": {"Alex": 26, "Beth": 26, "Zed": 0}})], "not playing", id="deal_stranger"
    ),
    pytest.param(
        [("deal", {"dealer": "Cara", "counts": {"Alex": 52, "Beth": 0, "Cara": 0}})], ">= 1", id="deal_empty_pile"
    ),
    pytest.param(
        [("deal", {"dealer": "Cara", "order": {"Alex": ["AS"] * 18}, "counts": {"Beth": 17, "Cara": 17}})],
        "more than once",
        id="deal_order_repeats_a_card",
    ),
    pytest.param(
        [("deal", {"dealer": "Cara", "order": {"Alex": ["ZZ"]}, "counts": {"Beth": 17, "Cara": 34}})],
        "'order' for Alex",
        id="deal_order_bad_card",
    ),
    pytest.param(
        [
            ("deal", {"dealer": "Cara"}),
            ("flip", {"player": "Alex", "card": "7H"}),
            ("flip", {"player": "Beth", "card": "7H"}),
        ],
        "on top of Alex's face-up pile",
        id="flip_of_a_card_already_face_up",
    ),
    pytest.param([("deal", {"dealer": "Cara"}), ("flip", {"player": "Alex", "card": "7X"})], "'card'", id="bad_card"),
    pytest.param([("deal", {"dealer": "Cara"}), ("flip", {"player": "Zed", "card": "7H"})], "'player'", id="stranger"),
    pytest.param(
        [("deal", {"dealer": "Cara"}), ("flip", {"player": "Alex", "card": "7H"}), ("turn_over", {"player": "Alex"})],
        "still has 17 face-down cards",
        id="turn_over_with_cards_left",
    ),
    pytest.param([("deal", {"dealer": "Cara"}), ("call", {"player": "Alex"})], "'kind'", id="call_without_kind"),
    pytest.param(
        [("deal", {"dealer": "Cara"}), ("call", {"player": "Alex", "kind": "slap"})],
        "call_style is voice",
        id="slap_at_a_voice_table",
    ),
    pytest.param(
        [("deal", {"dealer": "Cara"}), ("call", {"player": "Alex", "kind": "snap", "slap": True})],
        "not both",
        id="call_both_slap_and_snap",
    ),
]


@pytest.mark.parametrize(("events", "message"), ERRORS)
def test_impossible_event_is_refused_and_changes_nothing(
    events: list[tuple[str, dict[str, Any]]], message: str
) -> None:
    table = Table()
    *before, (last_type, last_data) = events
    for type_, data in before:
        table.send(type_, **data)
    state, count = table.state, len(table.session.events)
    with pytest.raises(EventError, match=message):
        table.send(last_type, **last_data)
    assert table.state == state and len(table.session.events) == count


def test_voice_kind_at_a_slap_table_is_refused() -> None:
    table = Table(dealer="Cara", call_style="slap")
    with pytest.raises(EventError, match="call_style is slap"):
        table.call("Alex", "snap")
    table.send("call", player="Alex")  # a slap needs no kind
    assert codes(table.last) == ["false_call"]


def test_out_player_cannot_flip() -> None:
    table, _ = run("Alex 7H; Beth 7S; Cara snap; resolve", **ONE_CARD)
    with pytest.raises(EventError, match="Alex is out"):
        table.flip("Alex", "2C")


def test_events_after_the_game_are_refused() -> None:
    table, _ = run("Alex 7H; Beth 7S; Beth snap; resolve", ("Alex", "Beth"), deal={"counts": {"Alex": 1, "Beth": 51}})
    with pytest.raises(EventError, match="game is over"):
        table.flip("Beth", "2C")
    with pytest.raises(EventError, match="game is over"):
        table.call("Beth")


def test_flip_that_would_end_the_game_by_settling_asks_for_resolve() -> None:
    table, _ = run("Alex 7H; Beth 7S; Beth snap", ("Alex", "Beth"), deal={"counts": {"Alex": 1, "Beth": 51}})
    with pytest.raises(EventError, match="send 'resolve'"):
        table.flip("Beth", "2C")
    rulings = table.resolve()
    assert codes(rulings) == ["snap_won", "match_gone", "player_out", "winner"]
    # it read "No longer a match: Alex's 7H matches Beth's 7S (won by Beth)" (a newcomer audit, session 36)
    assert rulings[1].message == "The match of Alex's 7H and Beth's 7S is over (won by Beth)."


@pytest.mark.parametrize(
    ("options", "message"),
    [
        pytest.param({"match": "value"}, "rank, suit, colour", id="match_option_values"),
        pytest.param({"false_call_penalty": "pile"}, "card_to_turner", id="penalty_option_values"),
        pytest.param({"callers": "nobody"}, "owners_only", id="callers_option_values"),
        pytest.param({"tie_window_ms": 2001}, "from 0 to 2000", id="tie_window_range"),
        pytest.param({"call_style": "buzzer"}, "voice, slap", id="call_style_values"),
        pytest.param({"jokers": True}, "no option 'jokers'", id="unknown_option"),
    ],
)
def test_bad_options_are_refused(options: dict[str, Any], message: str) -> None:
    with pytest.raises(EventError, match=message):
        Table(**options)


@pytest.mark.parametrize("players", [1, 13], ids=["one_player_is_too_few", "thirteen_are_too_many"])
def test_two_to_twelve_players(players: int) -> None:
    with pytest.raises(EventError, match="2 to 12 players"):
        Table(tuple(f"P{i}" for i in range(players)))
