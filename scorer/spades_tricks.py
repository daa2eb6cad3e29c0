"""Spades tricks: who wins a trick, and which cards a player may play (legality as a query).

* The highest card of the suit led wins, unless a spade was played: then the highest spade.
  Ace is high.
* A player must follow the suit led if able; otherwise any card.
* A leader may not lead a spade until spades are **broken** (a spade has been played on
  another suit's lead, or led by a player who held only spades), unless holding only spades.
* With ``first_lead = two_of_clubs`` the holder of the 2 of clubs leads it to the first trick.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from scorer.cards import Card, Rank, Suit

__all__ = ["TWO_OF_CLUBS", "Trick", "beats", "legal_cards"]

TWO_OF_CLUBS = Card(Rank.TWO, Suit.CLUBS)


def beats(card: Card, best: Card) -> bool:
    """Whether ``card`` beats ``best``, the card now winning the trick."""
    if card.suit == best.suit:
        return card.rank.high > best.rank.high
    return card.suit is Suit.SPADES


@dataclass(frozen=True)
class Trick:
    """A trick: its number in the hand (1 to 13), its leader's seat and the cards in play order."""

    number: int
    leader: int
    cards: tuple[Card, ...] = ()

    @property
    def led(self) -> Suit | None:
        return self.cards[0].suit if self.cards else None

    @property
    def complete(self) -> bool:
        return len(self.cards) == 4

    @property
    def next_seat(self) -> int:
        return (self.leader + len(self.cards)) % 4

    def seat_of(self, index: int) -> int:
        return (self.leader + index) % 4

    def plays(self) -> tuple[tuple[int, Card], ...]:
        """(seat, card) in play order."""
        return tuple((self.seat_of(i), card) for i, card in enumerate(self.cards))

    def winner(self) -> int:
        """The seat winning the trick so far (the leader if no card is down yet)."""
        best_index = 0
        for index, card in enumerate(self.cards[1:], start=1):
            if beats(card, self.cards[best_index]):
                best_index = index
        return self.seat_of(best_index)

    def add(self, card: Card) -> Trick:
        if self.complete:
            raise ValueError(f"trick {self.number} already has four cards")
        return Trick(self.number, self.leader, (*self.cards, card))


def legal_cards(
    hand: Iterable[Card],
    led: Suit | None,
    spades_broken: bool,
    two_of_clubs_lead: bool = False,
) -> frozenset[Card]:
    """The cards of ``hand`` that may be played to a trick whose led suit is ``led``
    (``None``: leading). ``two_of_clubs_lead``: this is the first lead of a hand played with
    ``first_lead = two_of_clubs``."""
    cards = frozenset(hand)
    if led is not None:
        following = frozenset(c for c in cards if c.suit is led)
        return following or cards
    if two_of_clubs_lead and TWO_OF_CLUBS in cards:
        return frozenset({TWO_OF_CLUBS})
    if spades_broken:
        return cards
    others = frozenset(c for c in cards if c.suit is not Suit.SPADES)
    return others or cards
