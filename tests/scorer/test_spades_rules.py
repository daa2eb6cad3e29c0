"""Spades referee rules at the table: one parametrized case per rule, named after it.

Seats: Alex (0) and Charlie (2) against Beth (1) and David (3). Unless a case says otherwise
David deals, so Alex bids first and leads the first trick.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from scorer.cards import Card, Suit, parse_card
from scorer.events import EventError
from scorer.spades import legal_plays, turn
from scorer.spades_tricks import Trick, legal_cards
from tests.scorer.spades_support import AC, BD, PLAYERS, Table


def words(text: str) -> list[str]:
    return text.split()


# A deal easy to reason about (each list is 13 cards):
DEAL = (
    words("AS KS QS AH KH QH JH AD KD AC KC QC JC"),  # Alex
    words("JS 10S 9S 10H 9H 8H QD JD 10D 10C 9C 8C 7C"),  # Beth
    words("8S 7S 6S 5S 7H 6H 5H 9D 8D 7D 6C 5C 4C"),  # Charlie
    words("4S 3S 2S 4H 3H 2H 6D 5D 4D 3D 2D 3C 2C"),  # David
)
RANKS = words("A K Q J 10 9 8 7 6 5 4 3 2")
# One suit each: Alex holds only spades.
SUITS = tuple([rank + suit for rank in RANKS] for suit in "SHDC")


def cards(text: str) -> set[Card]:
    return {parse_card(c) for c in text.split()}


# -- tricks: who wins, what is legal ----------------------------------------------------------------------
@pytest.mark.parametrize(
    ("leader", "played", "winner"),
    [
        pytest.param(0, "10H AH 2H KH", 1, id="highest_of_suit_led_wins"),
        pytest.param(0, "2H AD AC KH", 3, id="other_suits_cannot_win"),
        pytest.param(0, "AH 2S KH QH", 1, id="a_spade_trumps"),
        pytest.param(2, "AH 2S 3S KH", 0, id="highest_spade_wins"),
        pytest.param(1, "5S AH AD 4S", 1, id="spade_led_highest_spade"),
        pytest.param(3, "KD QD AD JD", 1, id="ace_is_high"),
        pytest.param(0, "2C 3C 4C 5C", 3, id="winner_counted_from_the_leader"),
    ],
)
def test_trick_winner(leader: int, played: str, winner: int) -> None:
    trick = Trick(1, leader)
    for text in played.split():
        trick = trick.add(parse_card(text))
    assert trick.winner() == winner


@pytest.mark.parametrize(
    ("hand", "led", "broken", "first", "legal"),
    [
        pytest.param("AH 2H KS 3D", Suit.HEARTS, False, False, "AH 2H", id="must_follow_suit"),
        pytest.param("KS 3D QC", Suit.HEARTS, False, False, "KS 3D QC", id="void_may_play_anything"),
        pytest.param("AH KS 3D", None, False, False, "AH 3D", id="no_spade_lead_before_broken"),
        pytest.param("AH KS 3D", None, True, False, "AH KS 3D", id="spade_lead_once_broken"),
        pytest.param("KS 2S", None, False, False, "KS 2S", id="only_spades_may_lead_spades"),
        pytest.param("2C KS AH", None, False, True, "2C", id="two_of_clubs_leads_first"),
        pytest.param("KS 2S 3H", Suit.SPADES, False, False, "KS 2S", id="follow_a_spade_lead"),
    ],
)
def test_legal_cards(hand: str, led: Suit | None, broken: bool, first: bool, legal: str) -> None:
    assert legal_cards(cards(hand), led, broken, first) == cards(legal)


# -- rulings: (options, deal?, setup, event, expected non-info codes) ---------------------------------------
Setup = Callable[[Table], Any]


def dealt(deal: tuple[list[str], ...] | None = DEAL, bids: tuple[int | str, ...] = (3, 3, 3, 3)) -> Setup:
    def setup(table: Table) -> None:
        table.deal(deal, dealer="David")
        if bids:
            table.bids(*bids)

    return setup


def then(first: Setup, *cards: str) -> Setup:
    def setup(table: Table) -> None:
        first(table)
        table.play(*cards)

    return setup


CLUBS_TWICE = ("AC", "7C", "4C", "2C", "KC", "8C", "5C", "3C")  # Alex wins both; David is out of clubs


def case(name: str, setup: Setup, event: str, codes: list[str], **options: Any) -> Any:
    """A ruling case: ``event`` reads "Beth plays 10H", "Alex bids 4" or "Alex bids blind"."""
    player, verb, what = event.split()
    if verb == "plays":
        data: tuple[str, dict[str, Any]] = ("play", {"player": player, "card": what})
    elif what == "blind":
        data = ("bid", {"player": player, "bid": 0, "blind": True})
    else:
        data = ("bid", {"player": player, "bid": int(what)})
    return pytest.param(options, setup, data, codes, id=name)


DAVID_VOID = then(dealt(), *CLUBS_TWICE, "QC", "9C", "6C")  # Alex leads QC: David cannot follow
UNKNOWN = dealt(None)
TWO_C = {"first_lead": "two_of_clubs"}
TRICK_ONE_2C = then(dealt(), "2C", "AC", "10C", "6C")  # David leads the 2C, Alex's AC wins: Alex leads next

RULING_CASES = [
    # bidding
    case("bid_in_turn", dealt(bids=()), "Alex bids 4", []),
    case("bid_out_of_turn", dealt(bids=()), "Beth bids 4", ["bid_out_of_turn"]),
    case("bid_twice", dealt(bids=(3,)), "Alex bids 4", ["already_bid"]),
    case("blind_nil_allowed", dealt(bids=()), "Alex bids blind", []),
    case(
        "blind_nil_requires_deficit",
        dealt(bids=()),
        "Alex bids blind",
        ["blind_nil_not_allowed"],
        blind_nil_requires_deficit=100,
    ),
    # play, hands known
    case("lead_in_turn", dealt(), "Alex plays AH", []),
    case("play_before_bidding", dealt(bids=(3, 3)), "Alex plays AH", ["play_before_bidding"]),
    case("lead_out_of_turn", dealt(), "Beth plays 9H", ["play_out_of_turn"]),
    case("play_out_of_turn", then(dealt(), "AH"), "Charlie plays 7H", ["play_out_of_turn"]),
    case("must_follow_suit", then(dealt(), "AH"), "Beth plays JS", ["must_follow_suit"]),
    case("card_already_played", then(dealt(), "AH"), "Beth plays AH", ["card_already_played"]),
    case("spades_led_unbroken", dealt(), "Alex plays AS", ["spades_not_broken"]),
    case("only_spades_may_be_led", dealt(SUITS), "Alex plays AS", []),
    case("void_may_trump", DAVID_VOID, "David plays 2S", []),
    case("void_may_discard", DAVID_VOID, "David plays 2D", []),
    case("spades_broken_by_a_discard_may_be_led", then(DAVID_VOID, "2S"), "David plays 3S", []),
    # first lead: the 2 of clubs
    case("two_of_clubs_led", dealt(), "David plays 2C", [], **TWO_C),
    case("two_of_clubs_holder_leads", dealt(), "Alex plays AC", ["play_out_of_turn"], **TWO_C),
    case("two_of_clubs_must_be_led", dealt(), "David plays 3C", ["first_lead_two_of_clubs"], **TWO_C),
    case("two_of_clubs_hands_unknown", UNKNOWN, "Beth plays 5C", ["first_lead_two_of_clubs"], **TWO_C),
    case("two_of_clubs_anyone_may_hold_it", UNKNOWN, "Charlie plays 2C", [], **TWO_C),
    # only the first trick: the winner of trick 1 leads trick 2 with any card ("The winner leads next")
    case("two_of_clubs_only_leads_the_first_trick", TRICK_ONE_2C, "Alex plays AH", [], **TWO_C),
    case("left_of_dealer_leads_by_default", UNKNOWN, "Charlie plays 2C", ["play_out_of_turn"]),
    # play, hands unknown: what shows later
    case("unknown_hands_accept_a_discard", then(UNKNOWN, "AH"), "Beth plays 2C", []),
    case("unknown_hands_accept_a_spade_lead", UNKNOWN, "Alex plays AS", []),
    case("revoke_shown_later", then(UNKNOWN, "AH", "2C", "5H", "3H", "KH"), "Beth plays 10H", ["revoke"]),
    case("no_revoke_in_another_suit", then(UNKNOWN, "AH", "2C", "5H", "3H", "KD"), "Beth plays 10D", []),
    case("revoke_by_trumping", then(UNKNOWN, "AH", "2S", "5H", "3H"), "Beth plays 10H", ["revoke"]),
    case(
        "spades_led_before_broken", then(UNKNOWN, "AS", "JS", "5S", "2S"), "Alex plays AH", ["spades_led_before_broken"]
    ),
    case("spade_lead_with_only_spades", then(UNKNOWN, "AS", "JS", "5S", "2S"), "Alex plays KS", []),
    case("spade_lead_once_broken", then(UNKNOWN, "AH", "2S", "5H", "3H"), "Beth plays JS", []),
    case(
        "spade_led_once_broken_is_no_suspicion",
        then(UNKNOWN, "AH", "2S", "5H", "3H", "JS", "5S", "4S", "AS", "KD"),  # Beth trumps, then leads JS
        "Beth plays 10D",
        [],
    ),
    case("same_card_twice_hands_unknown", then(UNKNOWN, "AH"), "Beth plays AH", ["card_already_played"]),
]


@pytest.mark.parametrize(("options", "setup", "event", "codes"), RULING_CASES)
def test_ruling(options: dict[str, Any], setup: Setup, event: tuple[str, dict[str, Any]], codes: list[str]) -> None:
    table = Table(options)
    setup(table)
    before = table.state
    assert table.codes(event[0], **event[1]) == codes
    if any(code in REFUSED for code in codes):
        assert table.state == before, "a refused event changes nothing"


REFUSED = {
    "already_bid",
    "blind_nil_not_allowed",
    "play_before_bidding",
    "play_out_of_turn",
    "must_follow_suit",
    "card_already_played",
    "spades_not_broken",
    "first_lead_two_of_clubs",
}


def test_revoke_names_the_trick_and_the_player() -> None:
    table = Table()
    dealt(None)(table)
    table.play("AH", "2C", "5H", "3H")  # trick 1: Beth shows no heart
    table.play("KD", "10D", "9D", "2D")  # trick 2
    table.play("QH")  # Alex leads trick 3
    (ruling,) = [r for r in table.event("play", player="Beth", card="9H") if r.code == "revoke"]
    assert ruling.player == "Beth" and ruling.severity.value == "foul"
    assert ruling.data == {"trick": 1, "suit": "H"} and "trick 1" in ruling.message
    assert table.session.view()["watch"] == []
    # only once: a second heart from Beth raises nothing new
    table.play("7H", "4H", "JH")
    assert [r.code for r in table.event("play", player="Beth", card="8H")] == []


def test_two_tricks_not_followed_are_two_revokes() -> None:
    """A table that penalises each revoke needs each named: only the first was."""
    table = Table()
    dealt(None)(table)
    table.play("AH", "2C", "5H", "3H")  # trick 1: Beth shows no heart
    table.play("KH", "3C", "6H", "4H")  # trick 2 (Alex won trick 1 and leads): again none
    table.play("QH")
    revokes = [r for r in table.event("play", player="Beth", card="9H") if r.code == "revoke"]
    assert [r.data["trick"] for r in revokes] == [1, 2] and all("hearts" in r.message for r in revokes)


def test_spades_led_before_broken_is_ruled_once() -> None:
    """Proved by the first other suit shown; later ones raise nothing new (as a revoke, once)."""
    table = Table()
    dealt(None)(table)
    table.play("AS", "JS", "5S", "2S")  # Alex leads a spade unbroken and wins
    assert [r.code for r in table.play("AH") if r.code != "trick_won"] == ["spades_led_before_broken"]
    table.play("10H", "7H", "4H")  # Alex wins and leads again
    assert [r.code for r in table.event("play", player="Alex", card="KH")] == []
    assert table.session.view()["watch"] == []


def test_watch_lists_what_the_referee_waits_for() -> None:
    table = Table()
    dealt(None)(table)
    table.play("AS", "2C")
    assert table.session.view()["watch"] == [
        {"player": "Alex", "trick": 1, "suit": "S", "why": "led spades unbroken"},
        {"player": "Beth", "trick": 1, "suit": "S", "why": "did not follow suit"},
    ]


def test_refused_play_is_taken_back_and_replayed() -> None:
    table = Table()
    dealt()(table)
    table.play("AH")
    assert table.codes("play", player="Beth", card="JS") == ["must_follow_suit"]
    assert table.codes("play", player="Beth", card="10H") == []
    assert [p["card"] for p in table.session.view()["trick"]] == ["AH", "10H"]


def test_trick_completion_and_the_winner_leads() -> None:
    table = Table()
    dealt()(table)
    rulings = table.play("AH", "8H", "5H", "2H")
    assert [(r.code, r.player) for r in rulings] == [("trick_won", "Alex")]
    assert turn(table.state) == 0
    table.play("AC", "10C", "6C", "2C", "KC", "9C", "5C", "3C", "QC", "8C", "4C")
    won = table.play("2S")
    assert [(r.code, r.player, r.data["trick"]) for r in won] == [("trick_won", "David", 4)]
    assert table.session.view()["spades_broken"] is True
    assert legal_plays(table.state) == cards("4S 3S 4H 3H 6D 5D 4D 3D 2D")


@pytest.mark.parametrize(
    ("tricks", "note"),
    [
        pytest.param(("2H", "KH", "5H", "3H"), "Beth wins trick 1 with KH.", id="second_card_leader_alex"),
        pytest.param(("2H", "KH", "5H", "3H", "9D", "QD", "2D", "3D"), "Charlie wins trick 2 with QD.",
                     id="second_card_leader_beth"),
        pytest.param(("2H", "KH", "5H", "3H", "9D", "2D", "3D", "QD"), "Alex wins trick 2 with QD.",
                     id="fourth_card_leader_beth"),
        pytest.param(("2H", "3H", "KH", "5H", "9D", "2D", "3D", "QD"), "Beth wins trick 2 with QD.",
                     id="fourth_card_leader_charlie"),
    ],
)  # fmt: skip
def test_the_trick_won_note_names_the_winning_card(tricks: tuple[str, ...], note: str) -> None:
    """The dashboard's note names the card that took the trick, whoever led it (hands unknown, David deals)."""
    table = Table()
    dealt(None)(table)
    rulings = table.play(*tricks)
    assert [r.message for r in rulings if r.code == "trick_won"][-1] == note


def test_whole_hand_with_one_suit_each() -> None:
    """Alex holds all the spades: whatever the others play, he wins all 13 tricks."""
    table = Table()
    table.deal(SUITS, dealer="David")
    table.bids(13, 0, 0, 0)
    for rank in RANKS:
        table.play(rank + "S", rank + "H", rank + "D", rank + "C")
    row = table.summary()["history"][0]
    assert row["tricks"] == {"Alex": 13, "Beth": 0, "Charlie": 0, "David": 0}
    # Alex 13 made +130, Charlie Nil made +100; Beth and David both Nil made: +200
    assert table.summary()["totals"] == {AC: 230, BD: 200}


# -- the Blind Nil exchange -----------------------------------------------------------------------------
def test_blind_nil_exchange_moves_the_cards() -> None:
    table = Table()
    table.deal(DEAL, dealer="David")
    table.bids("B", 3, 4, 3)
    assert table.session.view()["exchange_pending"] == ["Alex", "Charlie"]
    assert table.codes("exchange", player="Beth", cards=["QD", "JD", "10D"]) == ["exchange_not_allowed"]
    assert table.codes("exchange", player="Alex", cards=["AS", "KS"]) == ["exchange_wrong_count"]
    assert table.codes("exchange", player="Alex", cards=["AS", "KS", "QS"]) == []
    assert table.codes("exchange", player="Alex", cards=["AH", "KH", "QH"]) == ["exchange_not_allowed"]
    assert table.codes("exchange", player="Charlie", cards=["5H", "6H", "QS"]) == []
    hands = table.session.view()["hands"]
    assert hands["Alex"][:3] == ["QS", "AH", "KH"] and "6H" in hands["Alex"] and "AS" in hands["Charlie"]
    assert table.session.view()["phase"] == "play"


@pytest.mark.parametrize(
    ("options", "bids", "phase"),
    [
        pytest.param({}, ("B", 3, 4, 3), "exchange", id="blind_nil_exchanges_3"),
        pytest.param({"blind_nil_exchange": 0}, ("B", 3, 4, 3), "play", id="exchange_0_none"),
        pytest.param({}, ("B", 3, "B", 3), "play", id="both_blind_nil_no_exchange"),
        pytest.param({}, (0, 3, 4, 3), "play", id="plain_nil_no_exchange"),
    ],
)
def test_when_an_exchange_is_due(options: dict[str, Any], bids: tuple[int | str, ...], phase: str) -> None:
    table = Table(options)
    table.deal(DEAL, dealer="David")
    table.bids(*bids)
    assert table.session.view()["phase"] == phase


@pytest.mark.parametrize("count", [2, 4])
def test_blind_nil_exchange_counts(count: int) -> None:
    table = Table({"blind_nil_exchange": count})
    table.deal(DEAL, dealer="David")
    table.bids(3, "B", 3, 3)
    assert table.codes("exchange", player="Beth", cards=DEAL[1][:3]) == ["exchange_wrong_count"]
    assert table.codes("exchange", player="Beth", cards=DEAL[1][:count]) == []
    assert table.codes("exchange", player="David", cards=DEAL[3][:count]) == []
    assert len(table.session.view()["hands"]["Beth"]) == 13


@pytest.mark.parametrize(
    ("deal", "code", "hands_after"),
    [
        pytest.param(DEAL, "exchange_missing", None, id="hands_known_exchange_missing"),
        pytest.param(None, "exchange_not_recorded", None, id="hands_unknown_exchange_unseen"),
    ],
)
def test_play_without_the_exchange(deal: Any, code: str, hands_after: Any) -> None:
    table = Table()
    table.deal(deal, dealer="David")
    table.bids("B", 3, 4, 3)
    assert [r.code for r in table.event("play", player="Alex", card="AH")] == [code]
    assert table.session.view()["hands"] == hands_after
    assert table.session.view()["exchange_pending"] == []
    assert [p["card"] for p in table.session.view()["trick"]] == ["AH"]


@pytest.mark.parametrize(
    ("options", "deal", "refused", "code"),
    [
        pytest.param({}, DEAL, ("Beth", "JS"), "play_out_of_turn", id="out_of_turn_hands_known"),
        pytest.param({}, None, ("Beth", "JS"), "play_out_of_turn", id="out_of_turn_hands_unknown"),
        pytest.param({"first_lead": "two_of_clubs"}, DEAL, ("David", "3C"), "first_lead_two_of_clubs", id="first_lead"),
    ],
)
def test_a_play_that_does_not_count_leaves_the_exchange_pending(
    options: dict[str, Any], deal: Any, refused: tuple[str, str], code: str
) -> None:
    table = Table(options)
    table.deal(deal, dealer="David")
    table.bids(3, "B", 3, 4)
    before = table.session.view()
    assert table.play_by(*refused) == [code]
    assert table.session.view() == before
    assert table.codes("exchange", player="Beth", cards=["10C", "9C", "8C"]) == []
    assert table.codes("exchange", player="David", cards=["2S", "3S", "4S"]) == []
    assert table.session.view()["phase"] == "play"


# -- dealing, score-only hands, claims, the end of the game ----------------------------------------------
def test_dealer_rotates_left_and_bidding_starts_left_of_dealer() -> None:
    table = Table()
    assert table.session.view()["dealer"] == "Alex" and turn(table.state) == 1
    table.event("hand", bids=dict.fromkeys(PLAYERS, 3), tricks=dict.fromkeys(PLAYERS, 3) | {"Alex": 4})
    assert table.session.view()["dealer"] == "Beth" and turn(table.state) == 2
    assert table.codes("deal", dealer="Alex") == ["wrong_dealer"]
    assert table.session.view()["dealer"] == "Alex"
    assert table.codes("deal", dealer="Beth") == []  # the re-deal by the right dealer is no foul
    assert table.session.view()["dealer"] == "Beth" and turn(table.state) == 2


def test_first_deal_may_name_any_dealer() -> None:
    table = Table()
    assert table.codes("deal", dealer="Charlie") == []
    assert turn(table.state) == 3


def test_score_only_tricks_must_add_up_to_13() -> None:
    table = Table()
    tricks = {"Alex": 4, "Beth": 3, "Charlie": 3, "David": 2}
    assert table.codes("hand", bids=dict.fromkeys(PLAYERS, 3), tricks=tricks) == ["tricks_not_13"]
    assert table.summary()["history"] == [] and table.summary()["totals"] == {AC: 0, BD: 0}


def test_score_only_blind_nil_needs_the_deficit() -> None:
    table = Table({"blind_nil_requires_deficit": 100})
    bids = {"Alex": 0, "Beth": 4, "Charlie": 4, "David": 4}
    tricks = {"Alex": 0, "Beth": 4, "Charlie": 5, "David": 4}
    assert table.codes("hand", bids=bids, tricks=tricks, blind=["Alex"]) == ["blind_nil_not_allowed"]
    assert table.codes("hand", bids=bids, tricks=tricks) == []
    assert table.summary()["totals"] == {AC: 141, BD: 80}


@pytest.mark.parametrize(
    ("bidder", "codes"),
    [
        pytest.param("Alex", ["blind_nil_not_allowed"], id="ahead_alex_refused"),
        pytest.param("Beth", [], id="behind_beth_allowed"),
        pytest.param("Charlie", ["blind_nil_not_allowed"], id="ahead_charlie_refused"),
        pytest.param("David", [], id="behind_david_allowed"),
    ],
)
def test_blind_nil_bid_needs_the_bidder_s_own_team_behind(bidder: str, codes: list[str]) -> None:
    """Card by card, the deficit is the bidder's own team's: Alex & Charlie lead 81 to 40 (40 needed)."""
    table = Table({"blind_nil_requires_deficit": 40})
    table.event("hand", **hand((4, 2, 4, 2), (5, 2, 4, 2)))
    assert table.summary()["totals"] == {AC: 81, BD: 40}
    while turn(table.state) != PLAYERS.index(bidder):  # Beth deals hand 2: Charlie bids first
        table.bids(3)
    assert table.codes("bid", player=bidder, bid=0, blind=True) == codes


@pytest.mark.parametrize(
    ("claim", "codes", "tricks"),
    [
        pytest.param({"player": "Alex"}, [], (13, 0, 0, 0), id="claim_all"),
        pytest.param({"tricks": {"Alex": 10, "Beth": 3}}, [], (10, 3, 0, 0), id="claim_split"),
        pytest.param({"tricks": {"Alex": 10}}, ["claim_does_not_add_up"], None, id="claim_must_add_up"),
    ],
)  # fmt: skip
def test_claim(claim: dict[str, Any], codes: list[str], tricks: tuple[int, ...] | None) -> None:
    table = Table()
    dealt()(table)
    assert table.codes("claim", **claim) == codes
    history = table.summary()["history"]
    assert (tuple(history[0]["tricks"].values()) if history else None) == tricks


def test_claim_after_some_tricks() -> None:
    table = Table()
    dealt()(table)
    table.play("AH", "8H", "5H", "2H", "KH", "9H")  # Alex won trick 1; trick 2 half played
    assert table.codes("claim", tricks={"Alex": 11, "Charlie": 1}) == []
    assert table.summary()["history"][0]["tricks"] == {"Alex": 12, "Beth": 0, "Charlie": 1, "David": 0}


def hand(bids: tuple[int, ...], tricks: tuple[int, ...]) -> dict[str, dict[str, int]]:
    return {"bids": dict(zip(PLAYERS, bids, strict=True)), "tricks": dict(zip(PLAYERS, tricks, strict=True))}


def test_both_pass_target_higher_wins_and_the_game_is_over() -> None:
    table = Table({"target": 100})
    rulings = table.event("hand", **hand((5, 5, 0, 0), (7, 6, 0, 0)))
    # Alex & Charlie: 50 + 2 bags + 100 Nil = 152; Beth & David: 50 + 1 bag + 100 Nil = 151
    assert table.summary()["totals"] == {AC: 152, BD: 151}
    assert table.summary()["winner"] == ["Alex", "Charlie"] and table.summary()["finished"] is True
    assert "game_won" in [r.code for r in rulings]
    assert table.session.view()["phase"] == "game_over" and turn(table.state) is None
    with pytest.raises(EventError, match="the game is over"):
        table.event("hand", **hand((3, 3, 3, 3), (4, 3, 3, 3)))
    with pytest.raises(EventError, match="the game is over"):
        table.event("bid", player="Beth", bid=3)


def test_the_game_over_refusal_gives_the_winners_total_first() -> None:
    table = Table({"target": 100})
    table.event("hand", **hand((0, 5, 0, 5), (3, 6, 0, 4)))  # Beth & David make their 10; Alex's Nil fails
    assert table.summary()["winner"] == ["Beth", "David"]
    a, b = table.summary()["totals"][BD], table.summary()["totals"][AC]
    with pytest.raises(EventError, match=rf"Beth & David won, {a} to {b}\)"):
        table.event("bid", player="Beth", bid=3)


def test_exact_tie_past_target_plays_another_hand() -> None:
    table = Table({"target": 100, "bag_limit": 20})
    rulings = table.event("hand", **hand((1, 2, 0, 0), (11, 2, 0, 0)))
    # Alex & Charlie: 10 + 10 bags + 100 Nil = 120; Beth & David: 20 + 100 Nil = 120
    assert table.summary()["totals"] == {AC: 120, BD: 120}
    assert table.summary()["winner"] is None and "tie_play_on" in [r.code for r in rulings]
    table.event("hand", **hand((3, 3, 3, 3), (3, 3, 3, 4)))
    # 120 + 60 = 180 against 120 + 60 + 1 bag = 181
    assert table.summary()["totals"] == {AC: 180, BD: 181}
    assert table.summary()["winner"] == ["Beth", "David"]


def test_mercy_ends_the_game() -> None:
    table = Table({"mercy": -100})
    table.event("hand", **hand((6, 3, 6, 3), (3, 4, 2, 4)))
    # Alex & Charlie bid 12, took 5: -120; Beth & David bid 6, took 8: 60 + 2 = 62
    assert table.summary()["totals"] == {AC: -120, BD: 62}
    assert table.summary()["winner"] == ["Beth", "David"]


# -- malformed events are refused, and nothing changes ------------------------------------------------------
SHORT = (DEAL[0][:12], DEAL[1], DEAL[2], [*DEAL[3], DEAL[0][12]])
TWICE = (DEAL[0], DEAL[1], DEAL[2], [*DEAL[3][:12], "AS"])
HAND = {"bids": dict.fromkeys(PLAYERS, 3), "tricks": dict.fromkeys(PLAYERS, 3) | {"Alex": 4}}
NIL_HAND = {**HAND, "bids": HAND["bids"] | {"Alex": 0}}  # Alex may be a Blind Nil bidder


@pytest.mark.parametrize(
    ("setup", "kind", "data", "message"),
    [
        pytest.param(None, "deal", {"hands": dict(zip(PLAYERS, SHORT, strict=True))}, "dealt 12 cards", id="deal_13"),
        pytest.param(None, "deal", {"hands": dict(zip(PLAYERS, TWICE, strict=True))}, "AS is dealt twice", id="once"),
        pytest.param(None, "deal", {"hands": {"Alex": DEAL[0]}}, "13 cards of each", id="deal_everyone"),
        pytest.param(None, "deal", {"dealer": "Zoe"}, "one of the players", id="deal_unknown_dealer"),
        pytest.param(dealt(), "deal", {}, "under way", id="deal_during_a_hand"),
        pytest.param(None, "bid", {"player": "Zoe", "bid": 3}, "one of the players", id="bid_unknown_player"),
        pytest.param(None, "bid", {"player": "Alex", "bid": 14}, "from 0 to 13", id="bid_0_to_13"),
        pytest.param(None, "bid", {"player": "Alex"}, "'bid' is missing", id="bid_missing"),
        pytest.param(None, "bid", {"player": "Alex", "bid": 3, "blind": True}, "Blind Nil bid is 0", id="blind_is_0"),
        pytest.param(dealt(), "play", {"player": "Alex", "card": "1X"}, "not a card", id="play_bad_card"),
        pytest.param(dealt(), "play", {"player": "Alex", "card": "9H"}, "Beth holds it", id="play_card_not_held"),
        pytest.param(dealt(bids=("B", 3, 3, 3)), "exchange", {"player": "Alex", "cards": ["AS", "AS", "KS"]}, "twice",
                     id="exchange_card_twice"),
        pytest.param(dealt(bids=("B", 3, 3, 3)), "exchange", {"player": "Alex", "cards": ["AS", "KS", "2S"]},
                     "does not hold 2S", id="exchange_card_not_held"),
        pytest.param(None, "hand", {**HAND, "bids": {"Alex": 3}}, "no number for Beth", id="hand_every_bid"),
        pytest.param(None, "hand", {**HAND, "tricks": HAND["tricks"] | {"Beth": 14}}, "from 0 to 13", id="hand_tricks"),
        pytest.param(None, "hand", {**HAND, "bids": HAND["bids"] | {"Zoe": 1}}, "'Zoe' is not one", id="hand_names"),
        pytest.param(None, "hand", {**HAND, "blind": ["Alex"]}, "Blind Nil but bid", id="hand_blind_is_nil"),
        pytest.param(None, "hand", {**HAND, "blind": ["Zoe"]}, "'Zoe' is not one", id="hand_blind_names"),
        pytest.param(None, "hand", {**NIL_HAND, "blind": ["Alex", "Alex"]}, "'blind' names Alex twice",
                     id="hand_blind_names_once"),
        pytest.param(dealt(), "hand", HAND, "card by card", id="hand_during_a_card_hand"),
        pytest.param(None, "claim", {"player": "Alex"}, "nothing to claim", id="claim_without_a_hand"),
    ],
)  # fmt: skip
def test_malformed_event_is_refused(setup: Setup | None, kind: str, data: dict[str, Any], message: str) -> None:
    table = Table()
    if setup is not None:
        setup(table)
    before, count = table.state, len(table.session.events)
    with pytest.raises(EventError, match=message):
        table.event(kind, **data)
    assert table.state == before and len(table.session.events) == count


def test_bid_out_of_turn_stands() -> None:
    table = Table()
    table.deal(dealer="David")
    table.event("bid", player="Charlie", bid=5)
    assert table.session.view()["bids"] == {"Alex": None, "Beth": None, "Charlie": 5, "David": None}
    assert turn(table.state) == 0
    table.bids(2, 3, 1)
    assert table.session.view()["phase"] == "play" and turn(table.state) == 0


def test_info_rulings_announce_the_score_and_the_bag_penalty() -> None:
    table = Table()
    table.event("hand", **hand((2, 1, 2, 1), (8, 1, 3, 1)))  # Alex & Charlie: 40 + 7 bags = 47
    rulings = table.event("hand", **hand((2, 1, 2, 1), (8, 1, 3, 1)))  # 40 + 7 bags, 14 bags: -100 -> -53
    assert [(r.code, r.severity.value) for r in rulings] == [("hand_scored", "info"), ("bag_penalty", "info")]
    assert rulings[0].message == "Hand 2: Alex & Charlie -53 (total -6), Beth & David +20 (total 40)."
    assert table.summary()["history"][1]["teams"][AC]["bag_count"] == 4
    assert rulings[1].message == "Alex & Charlie: 14 bags reach the bag limit of 10: -100, 4 carried."


def test_a_bag_penalty_paid_twice_in_one_hand_says_so() -> None:
    """11 bags with a bag limit of 5 said "bags reach 5, -200.", as if once (the wording audit, session 40)."""
    table = Table({"bag_limit": 5})
    rulings = table.event("hand", **hand((1, 1, 1, 1), (7, 0, 6, 0)))  # Alex & Charlie bid 2, take 13: 11 bags
    assert rulings[1].message == "Alex & Charlie: 11 bags reach the bag limit of 5 twice: -200, 1 carried."
    table = Table({"bag_limit": 3})
    rulings = table.event("hand", **hand((1, 1, 1, 1), (7, 0, 6, 0)))
    assert rulings[1].message == "Alex & Charlie: 11 bags reach the bag limit of 3 three times: -300, 2 carried."
    rulings = Table({"bag_limit": 2}).event("hand", **hand((1, 1, 1, 1), (7, 0, 6, 0)))  # "11 bags reach 2 5 times"
    assert rulings[1].message == "Alex & Charlie: 11 bags reach the bag limit of 2 five times: -500, 1 carried."


def test_a_second_bid_says_how_to_change_the_first() -> None:
    """It said "Alex already bid 3; ignored." and not how a wrong bid is put right (the wording audit, session 40)."""
    table = Table()
    dealt(bids=(3,))(table)
    rulings = table.event("bid", player="Alex", bid=4)
    assert [r.message for r in rulings] == ["Alex already bid 3; ignored: to change that bid, edit it on the Log tab."]
