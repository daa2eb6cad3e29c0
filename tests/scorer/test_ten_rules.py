"""Ten's referee, rule by rule: each case is named after the rule it checks (RULES.md, Ten).

Three players (Alex, Beth, Cara; Alex starts) unless a case says otherwise. Events are written
short: ``"R5"`` draws R5, ``"stop numbers"``, ``"Beth bids 3"``, ``"Beth passes"``,
``"Alex buys R5"``, ``"Alex skips"`` (see ``ten_support.event``).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from scorer.events import EventError, parse_log
from scorer.game import OptionError, Severity
from scorer.session import Session, replay
from scorer.ten import GAME, TenState
from scorer.ten_state import FACES, Phase
from scorer.tencards import parse_ten_card
from tests.scorer.ten_support import Event, cards, check_bookkeeping, event, holding, last_codes, play, start

# -- drawing, the running total and the bust ---------------------------------------------------------
DRAWS = [
    pytest.param(["R5"], ["running_total"], id="running_total_after_each_draw"),
    pytest.param(["R5", "$2", "R6"], ["running_total"], id="currency_subtracts_from_the_total"),
    pytest.param(["R4", "R6"], ["running_total"], id="total_10_is_safe"),
    pytest.param(["R5", "R6"], ["running_total", "bust_numbers"], id="total_11_busts"),
    pytest.param(["R5", "$1", "R7"], ["running_total", "bust_numbers"], id="total_after_currency_reaches_11"),
    pytest.param(["$5", "$5"], ["running_total"], id="currency_alone_10_is_safe"),
    pytest.param(["$5", "$5", "$1"], ["running_total", "bust_currency"], id="currency_alone_11_busts"),
    pytest.param(["R9", "$5", "$5", "$1"], ["running_total", "bust_currency"], id="currency_bust_with_numbers_shown"),
    pytest.param(["R5", "*7"], ["auction"], id="a_wild_calls_an_auction"),
    pytest.param(["R5", "G#"], ["auction"], id="a_colour_wild_calls_an_auction"),
    pytest.param(["*#"], ["auction"], id="the_full_wild_calls_an_auction"),
    pytest.param(["*7", "R5"], ["auction_pending"], id="no_draw_during_an_auction"),
    pytest.param(["R5", ("draw", {"card": "R6", "player": "Beth"})], ["out_of_turn"], id="draw_out_of_turn"),
    pytest.param(["R5", "stop numbers", "G3"], ["buy_passed", "running_total"], id="a_draw_after_a_buy_phase_passes"),
    pytest.param(
        ["R5", "stop numbers", ("draw", {"card": "G3", "player": "Alex"})], ["buy_pending"], id="buyer_cannot_draw"
    ),
]


@pytest.mark.parametrize(("events", "codes"), DRAWS)
def test_draw_rules(events: list[Event], codes: list[str]) -> None:
    assert last_codes(events) == codes


def test_running_total_is_announced_with_its_parts() -> None:
    _, rulings = play(["R5", "$2", "R6"])
    assert [r.message for r in rulings] == [
        "Alex: 5 (numbers 5, currency 0).",
        "Alex: 3 (numbers 5, currency 2).",
        "Alex: 9 (numbers 11, currency 2).",
    ]
    assert rulings[-1].data == {"total": 9, "numbers": 11, "currency": 2}


@pytest.mark.parametrize(
    ("subtracts", "codes"),
    [
        pytest.param(True, ["running_total"], id="currency_subtracts_on"),
        pytest.param(False, ["running_total", "bust_numbers"], id="currency_subtracts_off"),
    ],
)
def test_option_currency_subtracts(subtracts: bool, codes: list[str]) -> None:
    assert last_codes(["R5", "$2", "R6"], currency_subtracts=subtracts) == codes


def test_number_bust_sends_numbers_to_market_and_pays_the_others() -> None:
    state, rulings = play(["R5", "$2", "B3", "G5"])  # 5 - 2 + 3 + 5 = 11
    assert rulings[-1].severity is Severity.ALERT and rulings[-1].player == "Alex"
    assert [str(c) for c in state.market] == ["R5", "B3", "G5"]
    assert [str(c) for c in state.discard] == ["$2"]
    assert [(h.tokens, h.bust_tokens) for h in state.holdings] == [(5, 1), (7, 0), (7, 0)]
    assert (state.active, state.phase, state.tableau) == (1, Phase.DRAW, ())
    assert state.rows[-1].outcome == "bust_numbers"
    check_bookkeeping(state)


def test_currency_bust_discards_the_currency_and_pays_nobody() -> None:
    state, rulings = play(["R4", "$5", "$5", "$2"])
    assert rulings[-1].code == "bust_currency" and "nobody gains" in rulings[-1].message
    assert [str(c) for c in state.market] == ["R4"]
    assert sorted(str(c) for c in state.discard) == ["$2", "$5", "$5"]
    assert [(h.tokens, h.bust_tokens) for h in state.holdings] == [(5, 1), (5, 0), (5, 0)]
    check_bookkeeping(state)


def test_the_bust_token_supply_can_run_out() -> None:
    state = replace(start(), supply_bust=0)
    state, rulings = play(["R5", "R6"], state)
    assert [r.code for r in rulings][-2:] == ["bust_numbers", "no_bust_token"]
    assert state.holdings[0].bust_tokens == 0


# -- prizes, the others' gains and the cap -----------------------------------------------------------
STOPS = [
    pytest.param(["stop numbers"], ["nothing_to_take"], id="stop_needs_a_card_drawn"),
    pytest.param(
        ["*7", "Beth passes", "Cara passes", "Alex bids 0", "stop numbers"],
        ["nothing_to_take"],
        id="stop_needs_a_card_in_the_row_not_only_a_wild",
    ),
    pytest.param(["*7", "stop numbers"], ["auction_pending"], id="no_stop_during_an_auction"),
    pytest.param(["R5", ("stop", {"prize": "numbers", "player": "Cara"})], ["out_of_turn"], id="stop_out_of_turn"),
    pytest.param(["R5", "stop numbers", "stop numbers"], ["no_stop_now"], id="no_second_stop_in_the_buy_phase"),
    pytest.param(["R5", "$3", "stop numbers"], ["took_numbers"], id="numbers_prize"),
    pytest.param(["R5", "$3", "stop currency"], ["took_currency"], id="currency_prize"),
]


@pytest.mark.parametrize(("events", "codes"), STOPS)
def test_stop_rules(events: list[Event], codes: list[str]) -> None:
    assert last_codes(events) == codes


def test_numbers_prize_takes_the_numbers_pays_the_others_and_opens_a_buy() -> None:
    state, _ = play(["R5", "$3", "B2", "stop numbers"])
    assert [str(c) for c in state.holdings[0].cards] == ["R5", "B2"]
    assert [h.tokens for h in state.holdings] == [5, 8, 8]
    assert (state.phase, state.active, state.tableau, state.market) == (Phase.BUY, 0, (), ())
    assert [str(c) for c in state.discard] == ["$3"]
    check_bookkeeping(state)


def test_currency_prize_takes_the_currency_and_sends_numbers_to_market() -> None:
    state, _ = play(["R5", "$3", "B2", "stop currency"])
    assert [h.tokens for h in state.holdings] == [8, 5, 5]
    assert [str(c) for c in state.market] == ["R5", "B2"]
    assert (state.phase, state.active, state.holdings[0].cards) == (Phase.DRAW, 1, ())
    check_bookkeeping(state)


CAP = [
    pytest.param({}, 9, 0, [10, 8], ["token_cap"], id="others_gain_stops_at_the_cap"),
    pytest.param({}, 7, 3, [10, 8], [], id="bust_tokens_do_not_count_to_the_cap"),
    pytest.param({"token_cap": 12}, 9, 0, [12, 8], [], id="token_cap_option_12"),
    pytest.param({"token_cap": 10}, 10, 0, [10, 8], ["token_cap"], id="token_cap_option_10_at_the_cap"),
]


@pytest.mark.parametrize(("options", "tokens", "bust", "after", "alerts"), CAP)
def test_token_cap(options: dict[str, Any], tokens: int, bust: int, after: list[int], alerts: list[str]) -> None:
    state = holding(start(**options), 1, tokens=tokens, bust_tokens=bust)
    state, rulings = play(["R5", "$3", "stop numbers"], state)
    assert [h.tokens for h in state.holdings[1:]] == after
    assert [r.code for r in rulings if r.severity is Severity.ALERT] == alerts
    if alerts:
        assert rulings[-1].player == "Beth" and rulings[-1].data["lost"] == tokens + 3 - state.rules.token_cap


def test_own_currency_prize_stops_at_the_cap() -> None:
    state = holding(start(), 0, tokens=8)
    state, rulings = play(["$4", "stop currency"], state)
    assert state.holdings[0].tokens == 10
    assert [r.code for r in rulings][-1] == "token_cap"
    assert "Alex reaches the 10-token cap: takes 2 of 4, 2 not collected" in rulings[-1].message


def test_a_player_already_at_the_cap_is_at_it() -> None:
    state = holding(start(), 0, tokens=10)
    state, rulings = play(["$4", "stop currency"], state)
    assert state.holdings[0].tokens == 10
    assert "Alex is at the 10-token cap: takes 0 of 4, 4 not collected" in rulings[-1].message


# -- buying ------------------------------------------------------------------------------------------
def buying(**alex: Any) -> TenState:
    """Alex took R1 and is in the buy phase; the market holds R5, G3, B7."""
    state, _ = play(["R1", "stop numbers"])
    state = replace(state, market=tuple(cards("R5 G3 B7")))
    return holding(state, 0, **alex) if alex else state


def buy(card: str, pay: dict[str, Any] | None = None, player: str = "Alex") -> Event:
    data: dict[str, Any] = {"player": player, "card": card}
    if pay is not None:
        data["pay"] = pay
    return ("buy", data)


BUYS = [
    pytest.param({}, buy("G3"), ["bought"], id="buy_pays_the_number_in_tokens"),
    pytest.param({"tokens": 2}, buy("R5"), ["too_little_currency"], id="too_little_currency"),
    pytest.param(
        {"tokens": 2, "bust_tokens": 1}, buy("R5"), ["too_little_currency"], id="say_how_to_pay_beyond_tokens"
    ),
    pytest.param(
        {"tokens": 2, "bust_tokens": 1}, buy("R5", {"tokens": 2, "bust_tokens": 1}), ["bought"], id="bust_token_is_3"
    ),
    pytest.param(
        {"bust_tokens": 2}, buy("R5", {"bust_tokens": 2}), ["bought", "overpaid"], id="bust_token_overpayment_lost"
    ),
    pytest.param(
        {"tokens": 1, "bust_tokens": 1}, buy("B7", {"tokens": 1, "bust_tokens": 1}), ["too_little_currency"], id="short"
    ),
    pytest.param(
        {"tokens": 1, "cards": "R1 B2 *4"},
        buy("G3", {"tokens": 1, "cards": ["R1", "*4"]}),
        ["bought"],
        id="collected_cards_spend_1_each",
    ),
    pytest.param({"cards": "R1 R5"}, buy("R5"), ["duplicate_card"], id="no_duplicate_colour_and_number"),
    pytest.param({}, buy("G3", player="Beth"), ["out_of_turn"], id="buy_out_of_turn"),
    pytest.param({}, ("pass_buy", {"player": "Alex"}), ["buy_passed"], id="pass_buy"),
]


@pytest.mark.parametrize(("alex", "item", "codes"), BUYS)
def test_buy_rules(alex: dict[str, Any], item: Event, codes: list[str]) -> None:
    assert last_codes([item], buying(**alex)) == codes


def test_a_buy_moves_the_card_and_the_payment_and_ends_the_turn() -> None:
    state, _ = play([buy("R5", {"tokens": 1, "bust_tokens": 1, "cards": ["B2"]})], buying(bust_tokens=1, cards="R1 B2"))
    alex = state.holdings[0]
    assert (alex.tokens, alex.bust_tokens, [str(c) for c in alex.cards]) == (4, 0, ["R1", "R5"])
    assert [str(c) for c in state.market] == ["G3", "B7"]
    assert "B2" in [str(c) for c in state.discard]
    assert (state.supply_tokens, state.supply_bust) == (36, 16)  # the test gave Alex a bust token from nowhere
    assert (state.phase, state.active, str(state.rows[-1].bought)) == (Phase.DRAW, 1, "R5")


def test_a_foul_buy_changes_nothing() -> None:
    state = buying(tokens=2)
    after, _ = play([buy("R5")], state)
    assert after == state


def test_buy_outside_a_buy_phase() -> None:
    assert last_codes(["R5", buy("G3")]) == ["no_buy_now"]
    assert last_codes(["R5", ("pass_buy", {"player": "Alex"})]) == ["no_buy_now"]


@pytest.mark.parametrize(
    ("item", "match"),
    [
        pytest.param(buy("O9"), "O9 is not in the market", id="card_not_in_market"),
        pytest.param(buy("G3", {"tokens": 6}), "Alex pays 6 tokens but holds 5", id="pays_tokens_not_held"),
        pytest.param(buy("G3", {"bust_tokens": 1}), "pays 1 bust token but holds 0", id="pays_bust_tokens_not_held"),
        pytest.param(buy("G3", {"cards": ["B9"]}), "has not collected B9", id="pays_cards_not_held"),
        pytest.param(buy("G3", {"coins": 3}), "'pay' must look like", id="pay_of_wrong_shape"),
        pytest.param(buy("G3", {"tokens": -1}), "whole number >= 0", id="negative_payment"),
        pytest.param(buy("Z3"), "is not a Ten card", id="bad_card_text"),
        pytest.param(buy("G3", player="Zed"), "one of the players", id="unknown_player"),
    ],
)
def test_malformed_buys_are_refused(item: Event, match: str) -> None:
    with pytest.raises(EventError, match=match):
        GAME.apply(buying(), event(item, 3))


# -- auctions ----------------------------------------------------------------------------------------
AUCTIONS = [
    pytest.param(["*7", "Cara bids 1"], ["out_of_turn"], id="bids_start_left_of_the_active_player"),
    pytest.param(["*7", "Alex bids 1"], ["out_of_turn"], id="the_active_player_bids_last"),
    pytest.param(["*7", "Beth bids 2", "Cara bids 2"], ["bid_too_low"], id="a_bid_must_be_higher"),
    pytest.param(["*7", "Beth bids 6"], ["too_little_currency"], id="a_bid_needs_the_means"),
    pytest.param(["*7", "Beth bids 0"], ["auction_bid"], id="a_bid_of_nothing_is_a_bid"),
    pytest.param(["*7", "Beth bids 1", "Cara bids 3", "Alex passes"], ["auction_pass", "auction_won"], id="best_wins"),
    pytest.param(["*7", "Beth bids 1", "Cara passes", "Alex bids 2"], ["auction_bid", "auction_won"], id="active_wins"),
    pytest.param(["*7", "Beth passes", "Cara passes", "Alex passes"], ["auction_pass", "auction_unsold"], id="no_bid"),
    pytest.param(["R5", "Beth bids 1"], ["no_auction"], id="no_bid_without_an_auction"),
    pytest.param(["*7", "Beth passes", "Cara passes", "Alex passes", "R5"], ["running_total"], id="the_turn_goes_on"),
]


@pytest.mark.parametrize(("events", "codes"), AUCTIONS)
def test_auction_rules(events: list[Event], codes: list[str]) -> None:
    assert last_codes(events) == codes


def test_the_best_bid_pays_and_takes_the_wild() -> None:
    state, rulings = play(["R5", "*7", "Beth bids 1", "Cara bids 3", "Alex passes"])
    assert rulings[-1].message == "Cara takes *7 for 3."
    assert [h.tokens for h in state.holdings] == [5, 5, 2]
    assert [str(c) for c in state.holdings[2].cards] == ["*7"]
    assert (state.phase, state.active, [str(c) for c in state.tableau]) == (Phase.DRAW, 0, ["R5"])
    check_bookkeeping(state)


def test_a_bid_can_be_paid_with_bust_tokens_and_cards() -> None:
    state = holding(start(), 1, tokens=1, bust_tokens=1, cards="G1 G2")
    bid = ("auction_bid", {"player": "Beth", "bid": 5, "pay": {"tokens": 1, "bust_tokens": 1, "cards": ["G2"]}})
    state, _ = play(["*#", bid, "Cara passes", "Alex passes"], state)
    beth = state.holdings[1]
    assert (beth.tokens, beth.bust_tokens, [str(c) for c in beth.cards]) == (0, 0, ["G1", "*#"])


def test_an_unsold_wild_is_discarded() -> None:
    state, _ = play(["*7", "Beth passes", "Cara passes", "Alex passes"])
    assert [str(c) for c in state.discard] == ["*7"] and state.auction is None
    check_bookkeeping(state)


def test_the_auction_is_announced_with_its_order() -> None:
    state, rulings = play(["*7"])
    assert rulings[-1].message == "Auction! Alex drew *7: Beth bids first, Alex last."
    assert GAME.view(state)["auction"] == {"card": "*7", "next": "Beth", "high_bid": None, "high_bidder": None}


def test_a_solo_player_bids_alone() -> None:
    state, rulings = play(["*#", ("auction_bid", {"player": "Solo", "bid": 0})], start(["Solo"]))
    assert [r.code for r in rulings][-2:] == ["auction_bid", "auction_won"]
    assert [str(c) for c in state.holdings[0].cards] == ["*#"]


# -- the end -----------------------------------------------------------------------------------------
def nearly_done(*left: str) -> TenState:
    """A fresh table whose draw pile holds only ``left``."""
    wanted = [parse_ten_card(text) for text in left]
    return replace(start(), deck=tuple(wanted.count(face) for face in FACES))


def test_the_last_card_ends_the_game_after_that_turn_then_last_buys() -> None:
    state, rulings = play(["R5", "G2"], nearly_done("R5", "G2"))
    assert rulings[-1].code == "last_card"
    with pytest.raises(EventError, match="the draw pile is empty"):
        GAME.apply(state, event("R3", 3))
    state, rulings = play(["stop numbers", "Alex skips"], state)
    assert [r.code for r in rulings][-1] == "last_buys" and rulings[-1].message.endswith("Beth first.")
    assert [state.players[s] for s in state.final_order] == ["Beth", "Cara", "Alex"]
    assert last_codes(["Alex skips"], state) == ["out_of_turn"]
    state, rulings = play(["Beth skips", "Cara skips", "Alex skips"], state)
    assert [r.code for r in rulings][-2:] == ["buy_passed", "game_over"]
    sheet = GAME.score(state)
    assert sheet.finished and sheet.winner == ("Alex",) and sheet.totals == {"Alex": 2, "Beth": 0, "Cara": 0}


def test_last_buys_are_real_buys() -> None:
    state, _ = play(["R5", "stop currency"], nearly_done("R5"))
    assert state.phase is Phase.FINAL_BUY and [str(c) for c in state.market] == ["R5"]
    state, _ = play([buy("R5", player="Beth"), "Cara skips", "Alex skips"], state)
    assert [str(c) for c in state.holdings[1].cards] == ["R5"] and state.holdings[1].tokens == 0
    assert GAME.score(state).winner == ("Beth",)


def test_a_bust_on_the_last_card_goes_straight_to_the_last_buys() -> None:
    assert last_codes(["R5", "R6"], nearly_done("R5", "R6")) == [
        "running_total",
        "last_card",
        "bust_numbers",
        "last_buys",
    ]


def test_a_wild_as_the_last_card_with_nothing_drawn_ends_the_turn() -> None:
    state, rulings = play(
        ["R5", "stop numbers", "Alex skips", "*9", "Cara passes", "Alex passes", "Beth passes"], nearly_done("R5", "*9")
    )
    assert [r.code for r in rulings][-2:] == ["auction_unsold", "last_buys"]
    assert state.rows[-1].outcome == "none" and state.players[state.final_order[0]] == "Cara"


END = [
    pytest.param(["R5", "end"], ["last_card"], id="end_mid_turn_makes_this_turn_the_last"),
    pytest.param(["R5", "end", "R6"], ["no_more_draws"], id="no_draw_after_the_end"),
    pytest.param(["R5", "stop currency", "end"], ["last_buys"], id="end_between_turns_starts_the_last_buys"),
    pytest.param(["end", "end"], ["game_ending"], id="end_only_once"),
    pytest.param(["R5", "end", "stop currency"], ["took_currency", "last_buys"], id="end_then_stop"),
    pytest.param(
        ["*7", "Beth passes", "Cara passes", "Alex passes", "end"],
        ["last_card", "last_buys"],
        id="end_after_only_a_wild",
    ),
]


@pytest.mark.parametrize(("events", "codes"), END)
def test_end_rules(events: list[Event], codes: list[str]) -> None:
    assert last_codes(events) == codes


def test_end_between_turns_gives_the_last_buy_to_who_played_last() -> None:
    state, _ = play(["R5", "stop currency", "end"])
    assert [state.players[s] for s in state.final_order] == ["Beth", "Cara", "Alex"]


def test_nothing_counts_after_the_game() -> None:
    state, _ = play(["end", "Alex skips", "Beth skips", "Cara skips"])  # no turn yet: Alex buys first
    assert state.phase is Phase.OVER
    for item in ["R5", "stop numbers", "Beth bids 1", "Alex skips", "end"]:
        after, rulings = play([item], state)
        assert after == state and [r.code for r in rulings] == ["game_over"]


# -- malformed events --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("events", "match"),
    [
        pytest.param(["R9", "R9"], "no R9 is left", id="a_card_drawn_twice_that_has_one_copy"),
        pytest.param(["R1", "R1", "R1"], "no R1 is left", id="a_card_removed_for_three_players"),
        pytest.param(["X1"], "is not a Ten card", id="bad_card_text"),
        pytest.param([("draw", {})], "'card' must be a Ten card", id="missing_card"),
        pytest.param(["R5", ("stop", {"prize": "both"})], "'prize' must be one of numbers, currency", id="bad_prize"),
        pytest.param(["*7", ("auction_bid", {"player": "Beth", "bid": -1})], "whole number >= 0", id="negative_bid"),
        pytest.param(["*7", ("auction_pass", {"player": "Zed"})], "one of the players", id="unknown_bidder"),
        pytest.param([("shuffle", {})], "Ten has no event 'shuffle'", id="unknown_event"),
    ],
)
def test_malformed_events_raise(events: list[Event], match: str) -> None:
    with pytest.raises(EventError, match=match):
        play(events)


def test_a_session_refuses_a_malformed_event_and_changes_nothing() -> None:
    session = Session("ten", ["Alex", "Beth"])
    session.append(event("R9", 1))
    before = (session.state, list(session.rulings))
    with pytest.raises(EventError, match="no R9 is left"):
        session.append(event("R9", 2))
    assert (session.state, session.rulings) == before


@pytest.mark.parametrize(
    ("options", "match"),
    [
        ({"token_cap": 4}, "the house rule 'token cap'"),
        ({"complete_run_bonus": 8}, "the house rule 'complete run bonus'"),
        ({"currency_subtracts": 1}, "true or false"),
        ({"bonus": 10}, "no option 'bonus'"),
    ],
)
def test_options_are_checked(options: dict[str, Any], match: str) -> None:
    with pytest.raises(OptionError, match=match):
        Session("ten", ["Alex"], options)


def test_player_counts() -> None:
    with pytest.raises(EventError, match="1 to 5 players, not 6"):
        Session("ten", ["A", "B", "C", "D", "E", "F"])
    assert sum(Session("ten", ["A"]).state.deck) == 102
    assert sum(Session("ten", ["A", "B", "C"]).state.deck) == 115
    assert sum(Session("ten", ["A", "B", "C", "D"]).state.deck) == 129


def test_the_view_says_what_comes_next() -> None:
    view = GAME.view(play(["R5", "$2"])[0])
    assert view["prompt"] == "Alex draws or stops."
    assert view["running_total"] == {"total": 3, "numbers": 5, "currency": 2}
    assert (view["tableau"], view["deck_left"], view["phase"]) == (["R5", "$2"], 113, "draw")
    assert view["players"]["Alex"]["tokens"] == 5
    assert GAME.view(buying())["prompt"] == "Alex may buy one card from the market."


def test_the_golden_game_calls_each_alert_at_its_moment() -> None:
    log = Path(__file__).resolve().parents[1] / "golden" / "ten" / "three_players_two_busts_tie_break.jsonl"
    session = replay(parse_log(log.read_text(encoding="utf-8").splitlines()))
    alerts = [(r.seq, r.code, r.player) for r in session.rulings if r.severity is Severity.ALERT]
    assert alerts == [
        (4, "auction", "Alex"),
        (12, "bust_numbers", "Beth"),
        (16, "bust_currency", "Cara"),
        (26, "token_cap", "Alex"),
        (28, "last_buys", "Alex"),
        (31, "game_over", None),
    ]
    assert not [r for r in session.rulings if r.severity is Severity.FOUL]


def test_a_gain_takes_what_the_supply_has_left() -> None:
    state = replace(start(token_cap=20), supply_tokens=1)
    state, rulings = play(["R5", "$3", "stop numbers"], state)
    assert [h.tokens for h in state.holdings] == [5, 6, 5]
    assert [(r.code, r.player, r.data["taken"]) for r in rulings if r.code == "supply_empty"] == [
        ("supply_empty", "Beth", 1),
        ("supply_empty", "Cara", 0),
    ]


@pytest.mark.parametrize("named", [False, True], ids=["draws_unnamed", "draws_named"])
def test_a_correction_that_ends_an_earlier_turn_does_not_hand_later_cards_to_the_next_player(named: bool) -> None:
    """Alex's second card was B6, not B3: corrected, his turn ends in a bust at the B6. Unnamed, his G2 and his stop
    then went to Beth and her O4 O5 to Cara, silently (the phones sent draws and stops without the player until
    session 37: Ten-on-phones audit). Named (as the phones send them now), each is Alex's or Beth's still: the ones
    the corrected game has out of turn are fouls that change nothing, said as such."""
    from scorer.events import GameEvent, Source

    def who(name: str) -> dict[str, str]:
        return {"player": name} if named else {}

    bodies: list[dict[str, Any]] = [
        {"type": "draw", "card": "R5", **who("Alex")},
        {"type": "draw", "card": "B3", **who("Alex")},
        {"type": "draw", "card": "G2", **who("Alex")},
        {"type": "stop", "prize": "numbers", **who("Alex")},
        {"type": "pass_buy", "player": "Alex"},
        {"type": "draw", "card": "O4", **who("Beth")},
        {"type": "draw", "card": "O5", **who("Beth")},
        {"type": "stop", "prize": "numbers", **who("Beth")},
        {"type": "pass_buy", "player": "Beth"},
    ]
    session = Session("ten", ["Alex", "Beth", "Cara"])
    for seq, body in enumerate(bodies, start=1):
        session.append(GameEvent(seq, seq * 1000, Source.MANUAL, body.pop("type"), body))
    held = {name: p["cards"] for name, p in session.view()["players"].items()}
    assert held == {"Alex": ["R5", "B3", "G2"], "Beth": ["O4", "O5"], "Cara": []}
    fix = {"target": 2, "event": {"type": "draw", "card": "B6", **who("Alex")}}
    new = session.append(GameEvent(10, 10_000, Source.MANUAL, "correct", fix))
    held = {name: p["cards"] for name, p in session.view()["players"].items()}
    if not named:
        assert held == {"Alex": [], "Beth": ["G2"], "Cara": ["O4", "O5"]}  # what the unnamed log can only mean
        return
    assert held == {"Alex": [], "Beth": ["O4", "O5"], "Cara": []}  # R5 B6 bust; Alex's G2 is not Beth's
    fouls = [(r.seq, r.code) for r in new if r.severity is Severity.FOUL]
    assert fouls == [(3, "out_of_turn"), (4, "out_of_turn"), (5, "no_buy_now")]
    assert session.view()["active"] == "Cara" and session.view()["market"] == ["R5", "B6"]


def test_a_draw_out_of_turn_says_it_counts_for_nothing() -> None:
    """It said "It is Alex's turn, not Beth's." and no more, though the draw changes nothing (the wording audit)."""
    before, _ = play(["R5"])
    after, rulings = play([("draw", {"card": "R6", "player": "Beth"})], before)
    assert [r.message for r in rulings] == ["It is Alex's turn, not Beth's: this counts for nothing."]
    assert after == before
