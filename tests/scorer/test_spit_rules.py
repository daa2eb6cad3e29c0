"""Spit rule tables: rank adjacency, plays, races, moves, stall detection and "Spit!", bad input.

Each case id names the rule it checks. Round ends, layouts, slaps and the two ways to win are
in ``test_spit_rounds.py``; the invariants in ``test_spit_properties.py``.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from scorer.cards import Rank
from scorer.events import EventError
from scorer.game import Severity
from scorer.session import Session
from scorer.spit import GAME
from scorer.spit_table import Phase, Placed, RoundRecord, Rules, is_adjacent, is_stalled, legal_plays
from tests.scorer.spit_support import PLAYERS, add, card, codes, event, started, table

# -- adjacency: every rank, with and without the Ace wrapping ------------------------------------
WRAPPING = {
    "A": {"K", "2"},
    "2": {"A", "3"},
    "3": {"2", "4"},
    "4": {"3", "5"},
    "5": {"4", "6"},
    "6": {"5", "7"},
    "7": {"6", "8"},
    "8": {"7", "9"},
    "9": {"8", "10"},
    "10": {"9", "J"},
    "J": {"10", "Q"},
    "Q": {"J", "K"},
    "K": {"Q", "A"},
}
ACE_HIGH_ONLY = {**WRAPPING, "A": {"K"}, "2": {"3"}}


@pytest.mark.parametrize(
    ("rank", "wraps", "expected"),
    [pytest.param(r, True, n, id=f"ace_wraps-{r}-next-to-{'-'.join(sorted(n))}") for r, n in WRAPPING.items()]
    + [pytest.param(r, False, n, id=f"ace_high-{r}-next-to-{'-'.join(sorted(n))}") for r, n in ACE_HIGH_ONLY.items()],
)
def test_rank_adjacency(rank: str, wraps: bool, expected: set[str]) -> None:
    neighbours = {other.value for other in Rank if is_adjacent(Rank.parse(rank), other, wraps)}
    assert neighbours == expected


# -- a single play judged on the table -----------------------------------------------------------
@pytest.mark.parametrize(
    ("options", "top", "played", "legal"),
    [
        pytest.param({}, "9D", "10H", True, id="one_above_is_legal"),
        pytest.param({}, "9D", "8C", True, id="one_below_is_legal"),
        pytest.param({}, "9D", "JC", False, id="two_above_is_a_foul"),
        pytest.param({}, "9D", "9C", False, id="same_rank_is_a_foul_by_default"),
        pytest.param({"same_rank_allowed": True}, "9D", "9C", True, id="same_rank_allowed_option"),
        pytest.param({"same_rank_allowed": True}, "9D", "JC", False, id="same_rank_option_keeps_adjacency"),
        pytest.param({}, "KD", "AC", True, id="ace_on_king"),
        pytest.param({}, "AD", "KC", True, id="king_on_ace"),
        pytest.param({}, "AD", "2C", True, id="two_on_ace_when_ace_wraps"),
        pytest.param({}, "2D", "AC", True, id="ace_on_two_when_ace_wraps"),
        pytest.param({"ace_wraps": False}, "AD", "2C", False, id="two_on_ace_foul_without_wrap"),
        pytest.param({"ace_wraps": False}, "2D", "AC", False, id="ace_on_two_foul_without_wrap"),
        pytest.param({"ace_wraps": False}, "KD", "AC", True, id="ace_on_king_without_wrap"),
        pytest.param({}, "QH", "KH", True, id="suits_do_not_matter_same_suit"),
        pytest.param({}, "QH", "JS", True, id="suits_do_not_matter_other_colour"),
    ],
)
def test_play_legality(options: dict[str, Any], top: str, played: str, legal: bool) -> None:
    alex: list[str | None] = [played + "+2", None, None, None, None]
    state = table(alex, ["4C", None, None, None, None], [[top], ["7S"]], (3, 3), options)
    new, rulings = GAME.apply(state, event(5, "play", player="Alex", card=played, pile=0))
    assert new.piles[0][-1].card == card(played)  # the card lies where it was put, legal or not
    if legal:
        assert "illegal_play" not in codes(rulings)
        assert new.fouls == ()
    else:
        foul = next(r for r in rulings if r.code == "illegal_play")
        assert foul.severity is Severity.FOUL and foul.player == "Alex" and foul.seq == 5
        assert played in foul.message and top in foul.message and "spit pile 1" in foul.message
        assert foul.message.startswith(f"Alex played {played}")  # not "Foul: Alex ...": the badge says foul (s40)
        assert foul.data == {"card": played, "pile": 0, "top": top, "from": 0}
        assert [(f.card, f.pile, f.seq) for f in new.fouls] == [(card(played), 0, 5)]


def test_illegal_play_is_recorded_and_an_undo_takes_it_back() -> None:
    session = started()
    before = session.state
    rulings = add(session, "play", player="Beth", card="6D", pile=1)  # 6D on 9D
    assert codes(rulings) == ["illegal_play"]
    assert session.state.top(1) == card("6D") and len(session.state.fouls) == 1
    assert session.view()["fouls"] == [{"seq": 4, "player": "Beth", "card": "6D", "pile": 1, "code": "illegal_play"}]
    add(session, "undo", target=4)
    assert session.state == before
    assert all(r.code != "illegal_play" for r in session.rulings)


@pytest.mark.parametrize("one_pile", [True, False], ids=["one pile: the foul player's last card", "two piles"])
def test_an_illegal_play_that_nothing_fits_neither_calls_spit_nor_ends_the_round(one_pile: bool) -> None:
    """Nothing fits Alex's illegal 9S: it is to be taken back, so it must not block the table into a Spit! call or a
    round's end (in a one-pile round, Alex's last stock card on the pile ended the round and gave him the game)."""
    if one_pile:
        state = replace(table(["9S", None, None, None, None], ["7H", None, None, None, None], [["2C", "3D"]]), short=0)
    else:
        state = table(["9S", "5C", None, None, None], ["7H", None, None, None, None], [["2C", "3D"], ["QH"]], (1, 1))
    state, rulings = GAME.apply(state, event(10, "play", player="Alex", card="9S", pile=0))
    assert codes(rulings) == ["illegal_play"]
    assert state.phase is Phase.PLAY and state.called == () and GAME.score(state).winner is None


def test_undoing_a_play_whose_next_card_was_turned_up_says_to_undo_the_turn_up_first() -> None:
    session = started()
    before = session.state
    add(session, "play", player="Beth", card="6D", pile=1)  # 6D on 9D: illegal, and Beth turns up the next card
    add(session, "reveal", player="Beth", stock=4, card="8C")
    with pytest.raises(EventError, match=r"would leave event 5 \(reveal\) impossible: .*Undo or correct event 5 first"):
        add(session, "undo", target=4)
    add(session, "undo", target=5)
    add(session, "undo", target=4)
    assert session.state == before


def test_a_legal_play_uncovers_the_next_card_to_turn() -> None:
    session = started()
    assert codes(add(session, "play", player="Alex", card="3S", pile=0)) == []
    assert session.state.sides[0].stock[0].is_empty
    add(session, "play", player="Alex", card="4S", pile=0)
    assert session.state.sides[0].stock[1].needs_reveal
    assert codes(add(session, "reveal", player="Alex", stock=1, card="8S")) == []
    assert session.state.sides[0].stock[1].top == card("8S")


# -- two plays on the same pile: the earlier stands, the later is judged on the new top -----------
@pytest.mark.parametrize(
    ("first", "second", "expected"),
    [
        pytest.param(("Alex", "3S", 1000), ("Beth", "AD", 1040), ["lost_race"], id="later_card_loses_the_race"),
        pytest.param(("Beth", "AD", 1000), ("Alex", "3S", 1040), ["lost_race"], id="race_goes_by_time_not_seat"),
        pytest.param(("Alex", "3S", 1000), ("Beth", "AD", 1000), ["lost_race"], id="same_ts_goes_by_seq"),
        pytest.param(("Alex", "3S", 1000), ("Alex", "4S", 1040), [], id="later_card_fitting_the_new_top_stands"),
        pytest.param(("Alex", "3S", 1000), ("Alex", "AC", 1040), ["illegal_play"], id="own_card_is_no_race"),
    ],
)
def test_simultaneous_plays_on_one_pile(
    first: tuple[str, str, int], second: tuple[str, str, int], expected: list[str]
) -> None:
    session = started(alex=["3S", "4S", "5S", "6S", "AC"])
    add(session, "play", ts=first[2], player=first[0], card=first[1], pile=0)
    rulings = add(session, "play", ts=second[2], player=second[0], card=second[1], pile=0)
    assert codes(rulings) == expected
    assert session.state.piles[0][-2].card == card(first[1])  # the earlier card stands under it
    if expected == ["lost_race"]:
        assert first[0] in rulings[0].message and rulings[0].player == second[0]


OPENING, PLAYED, SPAT = None, True, False  # who put a spit-pile card there: the opening, a play, a Spit! call


@pytest.mark.parametrize(
    ("pile", "played", "expected"),
    [
        pytest.param([("4C", OPENING), ("5D", PLAYED, "Beth"), ("6S", PLAYED, "Alex")], "4H", "lost_race",
                     id="fits_the_card_under_the_opponents_play"),
        pytest.param([("4C", OPENING), ("5D", PLAYED, "Beth"), ("6S", PLAYED, "Alex")], "3H", "illegal_play",
                     id="only_the_card_just_under_it_counts"),
        pytest.param([("KD", OPENING), ("5C", SPAT, "Alex")], "QH", "illegal_play", id="a_spit_card_on_top_is_no_race"),
    ],
)  # fmt: skip
def test_a_foul_is_a_lost_race_only_against_the_play_that_landed_just_before_it(
    pile: list[tuple[Any, ...]], played: str, expected: str
) -> None:
    """docs/games/spit.md: ``lost_race`` when the card "would have fitted the card under the opponent's card that
    landed just before it on that pile"; otherwise the foul is an ``illegal_play``. Beth plays on spit pile 1."""
    state = table(["KH", None, None, None, None], [played + "+2", None, None, None, None], [["9C"], ["9S"]], (3, 3))
    cards = tuple(
        Placed(card(text), PLAYERS.index(rest[1]) if rest[1:] else 0, seq, bool(rest[0]))
        for seq, (text, *rest) in enumerate(pile)
    )
    state = replace(state, piles=(cards, state.piles[1]))
    _, rulings = GAME.apply(state, event(9, "play", player="Beth", card=played, pile=0))
    assert codes(rulings) == [expected]
    top = pile[-1][0]
    why = f"Alex's {top} landed on spit pile 1 first" if expected == "lost_race" else "is not one rank above or below"
    assert rulings[0].message.startswith(f"Beth played {played} on spit pile 1: ") and why in rulings[0].message


# -- moving a face-up card into an empty space -----------------------------------------------------
@pytest.mark.parametrize(
    ("alex", "move", "expected", "after"),
    [
        pytest.param(
            [None, "4S+1", "5S", "6S", "7S"], (1, 0), [], [(0, "4S"), (1, None), (1, "5S")], id="move_into_empty_space"
        ),
        pytest.param(["3S", "4S+1", "5S", "6S", "7S"], (1, 0), ["illegal_move"], None, id="never_onto_a_pile"),
        pytest.param(
            ["3S", "?+2", None, "6S", "7S"], (0, 1), ["illegal_move"], None, id="never_onto_a_pile_still_face_down"
        ),
    ],
)
def test_moves(alex: list[str | None], move: tuple[int, int], expected: list[str], after: Any) -> None:
    state = table(alex, ["KH", None, None, None, None], [["9D"], ["9C"]], (2, 2))
    new, rulings = GAME.apply(state, event(7, "move", player="Alex", **{"from": move[0], "to": move[1]}))
    assert codes(rulings) == expected
    if after is None:
        assert new == state
    else:
        stock = new.sides[0].stock
        top = [(s.down, None if s.top is None else str(s.top)) for s in stock[:2]]
        assert top == after[:2] and stock[1].needs_reveal


# -- stall detection -----------------------------------------------------------------------------
FILL = ["4H", "4D", "5H", "5D"]  # lone face-up cards that fit none of the piles below (2C, 7C, JD)


@pytest.mark.parametrize(
    ("alex", "beth", "piles", "options", "stalled"),
    [
        pytest.param(["3S", "5D+2"], ["9H"], [["7C"], ["JD"]], {}, True, id="no_top_fits_either_pile"),
        pytest.param(["3S", "5D+2"], ["10H"], [["7C"], ["JD"]], {}, False, id="opponent_top_fits_second_pile"),
        pytest.param(["3S", "6D+2"], ["9H"], [["7C"], ["JD"]], {}, False, id="own_top_fits_first_pile"),
        pytest.param(["3S", "?+2"], ["9H"], [["7C"], ["JD"]], {}, False, id="face_down_top_still_to_turn"),
        pytest.param(["3S", "5D+2", None], ["9H"], [["7C"], ["JD"]], {}, False, id="empty_space_uncovers_a_card"),
        pytest.param(["3S", "5D", None], ["9H"], [["7C"], ["JD"]], {}, True, id="empty_space_but_nothing_under"),
        pytest.param(["AS"], ["9H"], [["2C"], ["JD"]], {}, False, id="ace_on_two_counts_when_wrapping"),
        pytest.param(["AS"], ["9H"], [["2C"], ["JD"]], {"ace_wraps": False}, True, id="ace_on_two_not_without_wrap"),
        pytest.param(["7S"], ["9H"], [["7C"], ["JD"]], {}, True, id="same_rank_is_no_play_by_default"),
        pytest.param(["7S"], ["9H"], [["7C"], ["JD"]], {"same_rank_allowed": True}, False, id="same_rank_option"),
        pytest.param(["3S"], ["8H"], [["7C"]], {}, False, id="single_pile_play_exists"),
        pytest.param(["3S"], ["9H"], [["7C"]], {}, True, id="single_pile_stalled"),
    ],
)
def test_stall_detection(
    alex: list[str | None], beth: list[str | None], piles: list[list[str]], options: dict[str, Any], stalled: bool
) -> None:
    """Spaces not given hold a lone card that fits nothing, so only the given ones matter."""
    alex, beth = alex + FILL[: 5 - len(alex)], [*beth, "4S", "4C", "5S", "5C"]
    state = table(alex, beth, piles, (4, 4) if len(piles) == 2 else (0, 4), options)
    assert is_stalled(state) is stalled
    assert (not legal_plays(state)) or not stalled


def test_the_event_that_leaves_nobody_a_play_raises_the_spit_alert() -> None:
    state = table(["8H", "2S", None, None, None], ["KS", None, None, None, None], [["7C"], ["JD"]], (3, 3))
    assert not is_stalled(state)
    new, rulings = GAME.apply(state, event(9, "play", player="Alex", card="8H", pile=0))
    assert [(r.code, r.severity) for r in rulings] == [("spit_call", Severity.ALERT)]
    assert "Alex and Beth" in rulings[0].message
    assert GAME.view(new)["stalled"] is True and "Spit! Nobody can play." in GAME.view(new)["alerts"]


def test_spit_alert_names_only_players_with_spit_cards() -> None:
    state = table(["8H", "2S", None, None, None], ["KS", None, None, None, None], [["7C"], ["JD"]], (0, 3))
    _, rulings = GAME.apply(state, event(9, "play", player="Alex", card="8H", pile=0))
    assert codes(rulings) == ["spit_call"] and "Beth turns" in rulings[0].message


def test_spit_on_a_stalled_table_resumes_play() -> None:
    state = table(["8H", None, None, None, None], ["KS", None, None, None, None], [["5C"], ["JD"]], (3, 3))
    assert is_stalled(state)
    new, rulings = GAME.apply(state, event(9, "spit", cards={"Alex": "QD", "Beth": "2C"}))
    assert codes(rulings) == []  # KS now fits QD: no alert, no foul
    assert [new.top(0), new.top(1)] == [card("QD"), card("2C")]
    assert [side.spit for side in new.sides] == [2, 2]


def test_spit_while_a_play_exists_is_a_false_spit() -> None:
    session = started()
    rulings = add(session, "spit", cards={"Alex": "QD", "Beth": "KC"})
    assert codes(rulings) == ["false_spit"]
    assert rulings[0].severity is Severity.FOUL and "can still play" in rulings[0].message
    assert [session.state.top(0), session.state.top(1)] == [card("QD"), card("KC")]  # the cards are turned


def test_a_spit_called_for_both_may_come_as_two_events() -> None:
    """The camera may see the two spit cards in two frames: the second player's card still answers the call,
    though the first one's card has given the table a play again."""
    state = table(["8H", "2S", None, None, None], ["KS", None, None, None, None], [["7C"], ["JD"]], (3, 3))
    state, rulings = GAME.apply(state, event(9, "play", player="Alex", card="8H", pile=0))
    assert codes(rulings) == ["spit_call"]
    state, rulings = GAME.apply(state, event(10, "spit", cards={"Alex": "QD"}))  # Beth's KS now fits
    assert codes(rulings) == [] and not is_stalled(state)
    state, rulings = GAME.apply(state, event(11, "spit", cards={"Beth": "3C"}))
    assert codes(rulings) == [] and state.top(1) == card("3C")
    _, rulings = GAME.apply(state, event(12, "spit", cards={"Beth": "4C"}))  # the call is answered: now false
    # it said only "Alex can still play ...", not that it was a false Spit!, nor whose (the wording audit, session 40)
    assert codes(rulings) == ["false_spit"] and rulings[0].message.startswith("False Spit! (Beth): Alex can still play")


def test_a_spit_card_by_a_player_who_answered_the_call_already_is_false_though_the_other_answers_it() -> None:
    """After the call named both, Alex's card went alone and gave the table a play: Beth's card still answers the
    call, Alex's second card, turned with it in one event, is a false Spit! (his own, not Beth's)."""
    state = table(["8H", "2S", None, None, None], ["KS", None, None, None, None], [["7C"], ["JD"]], (3, 3))
    state, _ = GAME.apply(state, event(9, "play", player="Alex", card="8H", pile=0))
    state, rulings = GAME.apply(state, event(10, "spit", cards={"Alex": "QD"}))  # Beth's KS now fits
    assert codes(rulings) == [] and state.called == (1,)
    state, rulings = GAME.apply(state, event(11, "spit", cards={"Alex": "3D", "Beth": "3C"}))
    assert codes(rulings) == ["false_spit"] and rulings[0].message.startswith("False Spit! (Alex): Beth can still play")
    assert [state.top(0), state.top(1)] == [card("3D"), card("3C")] and state.called == ()


def test_a_call_stands_while_a_player_it_named_has_still_to_turn_a_card() -> None:
    """Alex's spit card alone leaves the table blocked: no new call naming both (the camera then gave Beth's card,
    turned onto the same pile, to Alex); Beth still owes hers."""
    state = table(["8H", "2S", None, None, None], ["KS", None, None, None, None], [["7C"], ["9D"]], (3, 3))
    state, rulings = GAME.apply(state, event(9, "play", player="Alex", card="8H", pile=0))
    assert codes(rulings) == ["spit_call"]
    state, rulings = GAME.apply(state, event(10, "spit", cards={"Alex": "5C"}))  # nothing fits 5C either
    assert codes(rulings) == [] and is_stalled(state) and GAME.view(state)["called"] == ["Beth"]
    state, rulings = GAME.apply(state, event(11, "spit", cards={"Beth": "6D"}, piles={"Beth": 0}))  # onto 5C
    assert state.top(0) == card("6D") and state.sides[1].spit == 2
    assert codes(rulings) == ["spit_call"]  # answered by both, still blocked: a new call


@pytest.mark.parametrize(
    "acts",
    [("play", {"card": "KS", "pile": 0}), ("move", {"from": 0, "to": 1})],
    ids=["plays", "moves"],
)
def test_a_player_the_call_named_who_plays_on_has_answered_it(acts: tuple[str, dict[str, Any]]) -> None:
    """Beth, named by the call, plays on (or moves a card) after Alex's spit card instead of turning hers: a spit
    card she turns later, while she can play, is a false Spit!, and the camera no longer takes a new card on her
    pile for her spit card (the view's ``called``)."""
    state = table(["8H", "2S", None, None, None], ["KS", None, "AD", None, None], [["7C"], ["JD"]], (3, 3))
    state, _ = GAME.apply(state, event(9, "play", player="Alex", card="8H", pile=0))
    state, _ = GAME.apply(state, event(10, "spit", cards={"Alex": "QD"}))  # Beth's KS now fits
    assert GAME.view(state)["called"] == ["Beth"]
    kind, data = acts
    state, rulings = GAME.apply(state, event(11, kind, player="Beth", **data))
    assert codes(rulings) == [] and GAME.view(state)["called"] == []
    _, rulings = GAME.apply(state, event(12, "spit", cards={"Beth": "3C"}))
    assert codes(rulings) == ["false_spit"]


def test_a_false_spit_says_a_move_into_an_empty_space_is_left() -> None:
    state = table(["8H", None, "3S+1", None, None], ["KS", None, None, None, None], [["5C"], ["JD"]], (3, 3))
    assert not is_stalled(state)
    _, rulings = GAME.apply(state, event(9, "spit", cards={"Alex": "QD", "Beth": "2C"}))
    assert codes(rulings) == ["false_spit"] and "Alex can still move a face-up stock card" in rulings[0].message


def test_spit_piles_option_puts_a_card_on_the_other_pile() -> None:
    state = table(["8H", None, None, None, None], ["KS", None, None, None, None], [["9C"], ["JD"]], (3, 3))
    new, _ = GAME.apply(state, event(9, "spit", cards={"Alex": "QD"}, piles={"Alex": 1}))
    assert [len(cards) for cards in new.piles] == [1, 2] and new.top(1) == card("QD")


def test_a_card_played_straight_from_face_down_is_turned_and_played() -> None:
    state = table(["?+2", None, None, None, None], ["KS", None, None, None, None], [["9C"], ["JD"]], (3, 3))
    new, rulings = GAME.apply(state, event(9, "play", player="Alex", card="10H", pile=0, **{"from": 0}))
    assert codes(rulings) == [] and new.top(0) == card("10H")
    assert new.sides[0].stock[0].down == 1 and new.sides[0].stock[0].top is None


def test_late_play_after_the_round_is_over_is_a_foul_and_changes_nothing() -> None:
    state = replace(table(["8H", None, None, None, None], ["KS"] + [None] * 4, [["9C"], ["JD"]]), phase=Phase.SLAP)
    new, rulings = GAME.apply(state, event(9, "play", player="Beth", card="KS", pile=0))
    assert codes(rulings) == ["late_play"] and new == state


@pytest.mark.parametrize(
    ("card_text", "late"), [("KS", True), ("3S", False)], ids=["own_card_is_a_late_play", "another_card_is_refused"]
)
def test_a_late_play_is_of_a_card_the_player_could_play(card_text: str, late: bool) -> None:
    state = replace(table(["8H", None, None, None, None], ["KS"] + [None] * 4, [["9C"], ["JD"]]), phase=Phase.SLAP)
    play = event(9, "play", player="Beth", card=card_text, pile=0)
    if late:
        assert codes(GAME.apply(state, play)[1]) == ["late_play"]
    else:
        with pytest.raises(EventError, match="3S is not face up on Beth's stock"):
            GAME.apply(state, play)


def test_a_late_play_after_the_piles_were_shared_at_once_is_a_late_play_too() -> None:
    """With ``winner_takes_smaller`` (or one spit pile) the piles are shared the moment the round ends."""
    record = RoundRecord(1, "cleared", 0, False, (0, 10), (6, 10), (6, 46), None)
    state = replace(GAME.initial_state(PLAYERS, {"slap": "winner_takes_smaller"}), history=(record,), round=2)
    new, rulings = GAME.apply(state, event(40, "play", player="Beth", card="5C", pile=0))
    assert codes(rulings) == ["late_play"] and new == state
    new, rulings = GAME.apply(state, event(41, "reveal", player="Beth", stock=0, card="KD"))
    assert codes(rulings) == ["late_reveal"] and new == state


def test_view_is_plain_json_with_the_legal_plays() -> None:
    import json

    session = started()
    view = json.loads(json.dumps(session.view()))
    assert view["phase"] == "play" and view["spit_piles"] == [{"top": "2C", "size": 1}, {"top": "9D", "size": 1}]
    plays = {(p["player"], p["card"], p["pile"]) for p in view["legal_plays"]}
    assert plays == {("Alex", "3S", 0), ("Beth", "10H", 1), ("Beth", "AD", 0)}
    assert view["players"]["Alex"]["stock"][4] == {"down": 4, "top": "7S"}
    assert view["players"]["Alex"]["spit_cards"] == 10 and view["players"]["Alex"]["cards"] == 25


# -- malformed events: refused, nothing changes ----------------------------------------------------
@pytest.mark.parametrize(
    ("kind", "data", "message"),
    [
        pytest.param("play", {"player": "Cara", "card": "3S", "pile": 0}, "one of the players", id="unknown_player"),
        pytest.param("play", {"player": "Alex", "card": "3X", "pile": 0}, "not a suit", id="bad_card_text"),
        pytest.param("play", {"player": "Alex", "card": "JK", "pile": 0}, "joker", id="no_jokers_in_spit"),
        pytest.param("play", {"player": "Alex", "card": "3S", "pile": 2}, "'pile'", id="pile_out_of_range"),
        pytest.param("play", {"player": "Alex", "card": "3S"}, "'pile' is missing", id="pile_missing"),
        pytest.param("play", {"player": "Alex", "card": "10H", "pile": 1}, "not face up on Alex", id="not_own_card"),
        pytest.param("play", {"player": "Alex", "card": "3S", "pile": 0, "from": 2}, "shows 5S", id="wrong_from"),
        pytest.param("reveal", {"player": "Alex", "stock": 1, "card": "8S"}, "already shows 4S", id="nothing_to_turn"),
        pytest.param("move", {"player": "Alex", "from": 0, "to": 0}, "the same stock pile", id="move_in_place"),
        pytest.param("move", {"player": "Alex", "from": 5, "to": 0}, "'from'", id="never_a_sixth_pile"),
        pytest.param("move", {"player": "Alex", "from": 0, "to": 1, "card": "9S"}, "shows 3S", id="move_wrong_card"),
        pytest.param("spit", {"cards": ["QD"]}, "'cards' must map", id="spit_cards_not_a_mapping"),
        pytest.param("spit", {"cards": {"Cara": "QD"}}, "not playing", id="spit_unknown_player"),
        pytest.param("spit", {"cards": {"Alex": "9D"}}, "already face up", id="spit_card_already_face_up"),
        pytest.param(
            "spit",
            {"cards": {"Alex": "QD"}, "piles": {"Alex": 2}},
            r"from 0 to 1 \(spit pile 1 to 2\)",
            id="spit_pile_range",
        ),
        pytest.param("spit", {"cards": {"Alex": "QD"}, "piles": {"Beth": 0}}, "turned no spit", id="spit_pile_who"),
        pytest.param("layout", {"player": "Alex", "counts": [1, 2, 3, 4, 5]}, "cannot lay out", id="layout_in_play"),
        pytest.param("slap", {"player": "Alex"}, "'pile' is missing", id="slap_needs_a_pile"),
    ],
)
def test_malformed_events_are_refused(kind: str, data: dict[str, Any], message: str) -> None:
    session = started()
    before = session.state
    with pytest.raises(EventError, match=message):
        add(session, kind, **data)
    assert session.state == before and len(session.events) == 3


def test_unknown_event_type_is_refused() -> None:
    state = GAME.initial_state(PLAYERS, {})
    with pytest.raises(EventError, match="Spit has no event 'flip'"):
        GAME.apply(state, event(1, "flip", player="Alex"))
    with pytest.raises(EventError, match="has no event 'flip'"):
        add(Session("spit", PLAYERS), "flip", player="Alex")


def test_a_card_known_to_be_the_opponents_cannot_be_turned_up() -> None:
    state = table(["8H", "?+1", None, None, None], ["KS", None, None, None, None], [["9C"], ["JD"]], (3, 3))
    beth = replace(state.sides[1], known=frozenset({card("2D")}))
    state = replace(state, sides=(state.sides[0], beth))
    with pytest.raises(EventError, match="among Beth's cards"):
        GAME.apply(state, event(9, "reveal", player="Alex", stock=1, card="2D"))
    alex = replace(state.sides[0], known=frozenset({card("3D"), card("4D"), card("5D"), card("6D")}))
    state = replace(state, sides=(alex, beth))  # Alex's 4 face-down cards are all known
    with pytest.raises(EventError, match="all known and 7D is not one of them"):
        GAME.apply(state, event(9, "reveal", player="Alex", stock=1, card="7D"))
    new, _ = GAME.apply(state, event(9, "reveal", player="Alex", stock=1, card="5D"))
    assert new.sides[0].known == frozenset({card("3D"), card("4D"), card("6D")})


def test_events_before_the_opening_spit_are_refused() -> None:
    session = Session("spit", PLAYERS)
    with pytest.raises(EventError, match="no card can be played now"):
        add(session, "play", player="Alex", card="3S", pile=0)
    with pytest.raises(EventError, match="no spit card can be turned now"):
        add(session, "spit", cards={"Alex": "3S"})


def test_a_round_end_before_the_opening_spit_is_false() -> None:
    session = Session("spit", PLAYERS)
    assert codes(add(session, "round_end")) == ["false_round_end"]  # nobody has laid out yet
    add(session, "layout", player="Alex", counts=[1, 2, 3, 4, 5])
    assert codes(add(session, "round_end", player="Alex")) == ["false_round_end"]
    assert "Lay out the stock piles" in session.rulings[-1].message
    add(session, "layout", player="Beth", counts=[1, 2, 3, 4, 5])
    assert codes(add(session, "round_end", player="Beth")) == ["false_round_end"]


def test_rules_from_options() -> None:
    state = GAME.initial_state(PLAYERS, {"ace_wraps": False, "scoring": "points"})
    assert state.rules == Rules(ace_wraps=False, same_rank_allowed=False, scoring="points", slap="race")
    assert [side.hand for side in state.sides] == [26, 26] and state.phase is Phase.LAYOUT
