"""Spades invariants, checked with Hypothesis on random deals, bids and legal play:

* card-by-card entry (hands known or not) and score-only entry give the same scores;
* replaying a session's log gives the live state and rulings, also after a JSON round trip;
* with the deal known, the 52 cards are conserved at every step.
"""

from __future__ import annotations

import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from scorer.cards import Card, standard_deck
from scorer.events import EventError, format_log, parse_log
from scorer.session import replay
from tests.scorer.spades_support import PLAYERS, Table, play_random_hand

SETTINGS = settings(max_examples=40, deadline=None)

bid = st.one_of(st.integers(0, 6), st.integers(7, 13), st.just("B"))
hand_bids = st.lists(bid, min_size=4, max_size=4)
options = st.fixed_dictionaries(
    {},
    optional={
        "failed_nil_tricks": st.sampled_from(["bags_only", "help_contract", "ignored"]),
        "blind_nil_exchange": st.sampled_from([0, 2, 3, 4]),
        "first_lead": st.sampled_from(["left_of_dealer", "two_of_clubs"]),
        "bag_limit": st.integers(3, 10),
        "target": st.integers(100, 500),
    },
)


def score_only_copy(history: list[dict[str, Any]], opts: dict[str, Any]) -> Table:
    """The same hands, entered as bids and tricks."""
    table = Table(opts)
    for row in history:
        table.event("hand", bids=row["bids"], tricks=row["tricks"], blind=row["blind_nil"])
    return table


def without_entry(history: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in row.items() if k != "entry"} for row in history]


@SETTINGS
@given(seed=st.integers(0, 2**32), bids=st.lists(hand_bids, min_size=1, max_size=4), opts=options)
def test_card_by_card_and_score_only_agree(seed: int, bids: list[list[int | str]], opts: dict[str, Any]) -> None:
    known, unknown = Table(opts), Table(opts)
    for hand in bids:
        if known.summary()["finished"]:
            break
        plays = play_random_hand(known, random.Random(seed), hand, known=True)
        replayed = play_random_hand(unknown, random.Random(seed), hand, known=False)
        assert plays == replayed  # the same deal and the same cards, hands known or not
    history = known.summary()["history"]
    assert unknown.summary()["history"] == history
    assert [r for r in unknown.session.rulings if r.severity.value != "info"] == []
    assert [r for r in known.session.rulings if r.severity.value != "info"] == []
    paper = score_only_copy(history, opts)
    assert without_entry(paper.summary()["history"]) == without_entry(history)
    for key in ("totals", "winner", "finished"):
        assert paper.summary()[key] == known.summary()[key]
    for row in history:
        assert sum(row["tricks"].values()) == 13
    for table in (known, unknown, paper):
        assert replay(table.session.log()).state == table.session.state


@SETTINGS
@given(seed=st.integers(0, 2**32), bids=hand_bids, noise=st.integers(0, 30))
def test_replay_equals_live_state(seed: int, bids: list[int | str], noise: int) -> None:
    """Live play with random mistakes mixed in (plays out of turn, cards already played, undos);
    replaying the log gives the same state and rulings, also after the log's JSON round trip."""
    rng = random.Random(seed)
    table = Table()
    table.deal(dealer=PLAYERS[rng.randrange(4)])
    table.bids(*bids)
    deck = list(standard_deck())
    for step in range(52 + noise):
        if table.state.hand is None:
            break
        try:
            if step % 7 == 3 and table.session.events:
                table.event("undo", target=rng.choice(table.session.events).seq)
            else:
                table.event("play", player=rng.choice(PLAYERS), card=str(rng.choice(deck)))
        except EventError:
            pass  # refused: nothing changed
    live = table.session
    again = replay(live.log())
    assert again.state == live.state
    assert again.rulings == live.rulings
    text = format_log(live.log())
    parsed = parse_log(text)
    assert parsed == live.log()
    assert replay(parsed).state == live.state
    assert format_log(parsed) == text


@SETTINGS
@given(seed=st.integers(0, 2**32), bids=hand_bids, exchange=st.sampled_from([0, 2, 3, 4]))
def test_cards_are_conserved(seed: int, bids: list[int | str], exchange: int) -> None:
    table = Table({"blind_nil_exchange": exchange})
    everything = set(standard_deck())
    seen: list[int] = []

    def check(*_: Any) -> None:
        hand = table.state.hand
        if hand is None or hand.holdings is None:
            return
        held: list[Card] = [c for h in hand.holdings for c in h]
        played = list(hand.played())
        assert len(held) + len(played) == 52 and set(held) | set(played) == everything
        if hand.phase == "play":  # (during the Blind Nil exchange a hand holds 10 or 16 cards for a moment)
            on_table = {seat for seat, _ in hand.trick.plays()} if hand.trick else set()
            for seat, cards in enumerate(hand.holdings):
                assert len(cards) == 13 - len(hand.tricks) - (seat in on_table)
        seen.append(len(played))

    original = table.event

    def watched(kind: str, **data: Any) -> Any:
        out = original(kind, **data)
        check()
        return out

    table.event = watched  # type: ignore[method-assign]
    play_random_hand(table, random.Random(seed), bids, known=True)
    assert seen[-1] == 51  # checked through the last card before the hand was scored
    assert len(table.summary()["history"]) == 1
