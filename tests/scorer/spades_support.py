"""Helpers for the Spades tests: a table that feeds events to a live Session, and random hands."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from scorer.cards import Card, standard_deck
from scorer.events import GameEvent, Source
from scorer.game import Ruling
from scorer.session import Session
from scorer.spades import legal_plays, turn
from scorer.spades_state import exchange_pending
from scorer.spades_tricks import TWO_OF_CLUBS

PLAYERS = ("Alex", "Beth", "Charlie", "David")
AC, BD = "Alex & Charlie", "Beth & David"


class Table:
    """A live Spades session fed one event at a time (seq and ts are filled in)."""

    def __init__(self, options: Mapping[str, Any] | None = None, players: Sequence[str] = PLAYERS) -> None:
        self.session = Session("spades", players, options)
        self.players = tuple(players)

    def event(self, kind: str, **data: Any) -> list[Ruling]:
        seq = self.session.next_seq
        return self.session.append(GameEvent(seq, 1000 * seq, Source.MANUAL, kind, data))

    def codes(self, kind: str, **data: Any) -> list[str]:
        """The codes of the rulings an event causes, leaving out the referee's info notes."""
        return [r.code for r in self.event(kind, **data) if r.severity.value != "info"]

    def deal(self, hands: Sequence[Sequence[str]] | None = None, dealer: str | None = None) -> list[Ruling]:
        data: dict[str, Any] = {}
        if dealer is not None:
            data["dealer"] = dealer
        if hands is not None:
            data["hands"] = {p: list(h) for p, h in zip(self.players, hands, strict=True)}
        return self.event("deal", **data)

    def bids(self, *bids: int | str) -> None:
        """Bids in turn order from the dealer's left; ``"B"`` is a Blind Nil."""
        for bid in bids:
            seat = turn(self.session.state)
            assert seat is not None
            if bid == "B":
                self.event("bid", player=self.players[seat], bid=0, blind=True)
            else:
                self.event("bid", player=self.players[seat], bid=bid)

    def play(self, *cards: str) -> list[Ruling]:
        """Cards played in turn order (by whoever is in turn)."""
        out: list[Ruling] = []
        for card in cards:
            seat = turn(self.session.state)
            assert seat is not None, "nobody is in turn"
            out += self.event("play", player=self.players[seat], card=card)
        return out

    def play_by(self, player: str, card: str) -> list[str]:
        return self.codes("play", player=player, card=card)

    @property
    def state(self) -> Any:
        return self.session.state

    def summary(self) -> dict[str, Any]:
        return self.session.summary()


def random_deal(rng: random.Random) -> tuple[tuple[Card, ...], ...]:
    deck = list(standard_deck())
    rng.shuffle(deck)
    return tuple(tuple(deck[13 * i : 13 * (i + 1)]) for i in range(4))


def sorted_cards(cards: Any) -> list[Card]:
    return sorted(cards, key=str)


def play_random_hand(
    table: Table, rng: random.Random, bids: Sequence[int | str], known: bool = True
) -> list[tuple[str, str]]:
    """Deal at random, bid ``bids``, play random legal cards to the end; returns the plays.

    With ``known`` the deal is announced; legality comes from the referee's own query."""
    hands = random_deal(rng)
    table.deal([[str(c) for c in h] for h in hands] if known else None)
    table.bids(*bids)
    holdings = [set(h) for h in hands]
    exchange(table, rng, holdings)
    plays: list[tuple[str, str]] = []
    number = table.state.hand.number
    while table.state.hand is not None and table.state.hand.number == number:
        seat = turn(table.state)
        if seat is None:  # first lead with the 2 of clubs, hands unknown: its holder leads
            seat = next(s for s in range(4) if TWO_OF_CLUBS in holdings[s])
        legal = legal_plays(table.state) if known else None
        card = rng.choice(sorted_cards(legal if legal is not None else _legal_unknown(table, holdings, seat)))
        holdings[seat].discard(card)
        plays.append((table.players[seat], str(card)))
        table.event("play", player=table.players[seat], card=str(card))
    return plays


def exchange(table: Table, rng: random.Random, holdings: list[set[Card]]) -> None:
    """Make the Blind Nil exchange the bids call for, with random cards."""
    hand = table.state.hand
    if hand is None or hand.phase != "exchange":
        return
    count = table.state.rules.blind_nil_exchange
    for seat in exchange_pending(hand, table.state.rules):
        cards = rng.sample(sorted_cards(holdings[seat]), count)
        holdings[seat] -= set(cards)
        holdings[(seat + 2) % 4] |= set(cards)
        table.event("exchange", player=table.players[seat], cards=[str(c) for c in cards])


def _legal_unknown(table: Table, holdings: list[set[Card]], seat: int | None) -> set[Card]:
    """Legal cards computed by the test itself (the referee does not know the hands)."""
    assert seat is not None
    hand = table.state.hand
    own = holdings[seat]
    first = not hand.tricks and hand.trick is None and table.state.rules.first_lead == "two_of_clubs"
    if first and TWO_OF_CLUBS in own:
        return {TWO_OF_CLUBS}
    if hand.trick is not None:
        follow = {c for c in own if c.suit is hand.trick.led}
        return follow or own
    if hand.broken:
        return own
    others = {c for c in own if c.suit.value != "S"}
    return others or own
