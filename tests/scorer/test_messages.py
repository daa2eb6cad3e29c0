"""The words of refusals and rulings that session 40's audits changed, pinned where a mutation audit found no test
that would notice them going wrong (data/s40/mut: each test here failed with its mutant)."""

from __future__ import annotations

import json

import pytest

from scorer.cards import CardError, parse_face
from scorer.events import EventError, LogError, parse_log
from scorer.game import OptionError, Ruling
from scorer.session import Session, replay
from tests.scorer.push_play import discard, draw
from tests.scorer.snap_support import run
from tests.scorer.ten_support import play
from tests.scorer.test_push import DEAL, table

GRACE = {"call_grace_ms": 1500}
HEADER = '{"format": "tablecall-log", "version": 1, "game": "spades", "players": ["A", "B", "C", "D"]}'


def line(seq: int, kind: str = "bid", **data: object) -> str:
    return json.dumps({"seq": seq, "ts": 0, "source": "manual", "type": kind, **data})


# -- cards -------------------------------------------------------------------------------------------------------
def test_a_lone_t_says_it_has_no_suit() -> None:
    with pytest.raises(CardError, match="'t' has no suit: write rank then suit, like 'TH'"):
        parse_face("t")


@pytest.mark.parametrize("text", ["3H/0", "3H/3"])
def test_a_push_copy_out_of_range_is_refused(text: str) -> None:
    """Copy 0 of a card that has copies 1 and 2 is no card (a mutant taking it went unnoticed)."""
    t = table(DEAL, draw("Alex"))
    with pytest.raises(EventError, match=f"'{text}': Push has 2 copies of 3H, numbered 1 to 2"):
        t.send(discard("Alex", text))


@pytest.mark.parametrize("text", ["3HX", "ZZ2", "3H2X"])
def test_the_slash_hint_only_for_a_card_then_digits(text: str) -> None:
    t = table(DEAL, draw("Alex"))
    with pytest.raises(EventError) as info:
        t.send(discard("Alex", text))
    assert "slash" not in str(info.value), str(info.value)


# -- log files -----------------------------------------------------------------------------------------------------
def test_a_lower_seq_says_it_comes_after_the_higher_one() -> None:
    with pytest.raises(LogError, match="seq 2 comes after seq 4: each event needs a higher seq"):
        parse_log([HEADER, line(4, player="B", bid=3), line(2, player="C", bid=3)])


def test_replay_of_a_long_unknown_type_does_not_echo_it_whole() -> None:
    with pytest.raises(LogError) as info:
        replay(parse_log([HEADER, line(1, "x" * 3000)]))
    assert len(str(info.value)) < 200, len(str(info.value))


@pytest.mark.parametrize(
    ("title", "said"), [(["x" * 40], 'must be a text, not ["' + "x" * 18 + "…"), (["é"], 'must be a text, not ["é"]')]
)
def test_a_header_title_that_is_not_text_is_echoed_short_and_as_typed(title: object, said: str) -> None:
    with pytest.raises(LogError) as info:
        parse_log([HEADER.replace("}", f', "title": {json.dumps(title, ensure_ascii=False)}}}')])
    assert said in str(info.value)


# -- house rules -----------------------------------------------------------------------------------------------------
def test_a_true_or_false_house_rule_is_named_as_the_page_names_it() -> None:
    with pytest.raises(OptionError) as info:
        Session("ten", ["A", "B", "C"], {"currency_subtracts": 1})
    assert str(info.value) == "the house rule 'currency subtracts' (currency_subtracts) must be true or false, not 1"


def test_a_refused_choice_is_echoed_as_typed() -> None:
    with pytest.raises(OptionError, match=r'not "café"$'):
        Session("spades", ["A", "B", "C", "D"], {"first_lead": "café"})


# -- rulings' words --------------------------------------------------------------------------------------------------
def test_a_call_exactly_at_the_window_still_ties() -> None:
    """The settling counts a call at the window's last millisecond as a tie; the call heard must say so too."""
    _, rulings = run("Alex 7H; Beth 7S @2000; Cara snap @2100; Alex snap @2250", **GRACE)
    message = 'Alex called "Snap!" 150 ms after the first call: in time to tie (up to 150 ms).'
    assert [r.message for r in rulings] == [message]


def test_a_call_is_timed_from_the_earliest_call_not_the_first_heard() -> None:
    _, rulings = run("Alex 7H; Beth 7S @2000; Cara snap @2100; Alex snap @2000; Beth snap @2120", **GRACE)
    assert rulings[-1].message.startswith('Beth called "Snap!" 120 ms after the first call')


def test_a_stop_out_of_turn_says_it_counts_for_nothing() -> None:
    _, rulings = play(["R5", ("stop", {"prize": "numbers", "player": "Cara"})])
    assert rulings[-1].message == "It is Alex's turn, not Cara's: this counts for nothing."


def test_an_illegal_move_and_an_early_slap_do_not_start_with_foul() -> None:
    from tests.scorer.test_spit_rounds import last_card
    from tests.scorer.test_spit_rules import GAME, event
    from tests.scorer.test_spit_rules import table as spit_table

    state = spit_table(["3S", "4S+1", "5S", "6S", "7S"], ["KH", None, None, None, None], [["9D"], ["9C"]], (2, 2))
    _, rulings = GAME.apply(state, event(7, "move", player="Alex", **{"from": 1, "to": 0}))
    assert rulings[0].message.startswith("Alex moved 4S onto")
    _, rulings = GAME.apply(last_card(), event(40, "slap", player="Beth", pile=0))
    assert rulings[0].message == "Beth slapped a spit pile while the round is still on."


def test_a_false_spit_by_both_names_both() -> None:
    from tests.scorer.test_spit_rules import add, started

    rulings = add(started(), "spit", cards={"Alex": "QD", "Beth": "KC"})
    assert rulings[0].message.startswith("False Spit! (Alex and Beth): ")


# -- rulings are sentences -----------------------------------------------------------------------------------------
def _push_rulings() -> list[Ruling]:
    """The rulings of the Push rule tables' situations, random whole games and the deal-end reports."""
    from tests.scorer.push_play import deal_end, random_game
    from tests.scorer.test_push import OUT_BY_DISCARD, PLAY, TURN

    tables = [table(*before, event) for _, before, event, _ in TURN + PLAY]
    tables += [table(*random_game(seed)) for seed in range(3)]
    out = deal_end({"Beth": "KS KH KD 4S 5S 6S", "David": "AS AH AD 5D 6D 7D"})
    tables.append(table(*OUT_BY_DISCARD, out, ("deal", {"dealer": "Charlie", "upcard": "2H"})))
    tables.append(table(*OUT_BY_DISCARD, deal_end({"Alex": "3H", "Beth": "", "David": "KS"}, out="Beth")))
    tables.append(table(DEAL, draw("Alex"), discard("Alex", "3H"), deal_end({})))
    return [r for t in tables for r in t.session.rulings]


def test_push_rulings_are_sentences_like_the_other_games() -> None:
    """Push said its rulings in lower case without a full stop ("the deal passes left: Alex deals"), the other games
    as sentences (the wording audit, session 40; in banners, spoken, and read out by screen readers)."""
    rulings = _push_rulings()
    wanted = {"out_of_turn", "wrong_dealer", "wild_upcard", "out_mismatch", "cards_unaccounted", "deal_end_early",
              "deal_scored", "game_over", "went_out", "stock_empty", "requirement_not_met", "invalid_meld"}  # fmt: skip
    assert wanted <= {r.code for r in rulings}, wanted - {r.code for r in rulings}
    for ruling in rulings:
        assert ruling.message[:1].isupper() and ruling.message.endswith((".", "!", "?")), (ruling.code, ruling.message)
