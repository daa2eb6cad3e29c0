"""Spit's table as data, and the questions a referee asks of it (see :mod:`scorer.spit` for the rules).

Everything here is a pure query on a frozen :class:`SpitState`: which plays are legal
(:func:`fits`, :func:`legal_plays`), whether the table is stalled (:func:`is_stalled`), which
cards can still be face down in a player's hands (:func:`hidden_problem`), and the card count
(:func:`card_total`). The transitions live in :mod:`scorer.spit` and :mod:`scorer.spit_rounds`.

Card accounting: the camera sees face-up cards only. Every card is either face up (a stock
top or a spit-pile card, known by name) or face down in one player's hands (stock, spit cards,
or cards held between rounds). A face-down card is *known* to be a player's when it was face
up when that player picked it up (their stock tops and the spit pile they took); the rest are
unknown. A card turned up must be one the player can hold: not face up elsewhere, not known
to be the opponent's, and, when every face-down card of the player is known, one of those.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from scorer.cards import Card, Rank, standard_deck

__all__ = [
    "DECK",
    "SLOTS",
    "Foul",
    "Phase",
    "Placed",
    "Play",
    "RoundEnd",
    "RoundRecord",
    "Rules",
    "Side",
    "Slot",
    "SpitState",
    "can_uncover",
    "card_total",
    "face_up_cards",
    "fits",
    "hidden_problem",
    "is_adjacent",
    "is_stalled",
    "legal_plays",
    "pile_name",
    "slot_name",
]

Json = Any
DECK: frozenset[Card] = frozenset(standard_deck())
SLOTS = 5  # never more than five stock piles


class Phase(Enum):
    """Where a round stands."""

    LAYOUT = "layout"  # the players lay out their stock piles
    START = "start"  # both laid out: waiting for the opening "Spit!"
    PLAY = "play"  # simultaneous play
    SLAP = "slap"  # the round is over: waiting for a player to slap a spit pile
    OVER = "over"  # the game is over


@dataclass(frozen=True)
class Rules:
    """The house rules in force (see the options in :mod:`scorer.spit`)."""

    ace_wraps: bool = True
    same_rank_allowed: bool = False
    scoring: str = "standard"
    slap: str = "race"


@dataclass(frozen=True)
class Slot:
    """One stock-pile space: ``down`` face-down cards under an optional face-up ``top``."""

    down: int = 0
    top: Card | None = None

    @property
    def size(self) -> int:
        return self.down + (self.top is not None)

    @property
    def is_empty(self) -> bool:
        return self.size == 0

    @property
    def needs_reveal(self) -> bool:
        """The top card is face down: the player turns it up next."""
        return self.top is None and self.down > 0


@dataclass(frozen=True)
class Side:
    """One player's cards: ``hand`` (face down, between rounds), five stock slots, spit cards."""

    hand: int = 0
    stock: tuple[Slot, ...] = ()
    spit: int = 0
    known: frozenset[Card] = frozenset()  # face-down cards known to be this player's
    laid_out: bool = False

    @property
    def stock_cards(self) -> int:
        return sum(slot.size for slot in self.stock)

    @property
    def face_down(self) -> int:
        return self.hand + self.spit + sum(slot.down for slot in self.stock)

    @property
    def cards(self) -> int:
        """Every card this player owns: stock, spit cards and cards in hand."""
        return self.hand + self.spit + self.stock_cards

    @property
    def tops(self) -> tuple[Card, ...]:
        return tuple(slot.top for slot in self.stock if slot.top is not None)


@dataclass(frozen=True)
class Placed:
    """A card on a spit pile: who put it there, at which event, and whether it was played
    from stock (``True``) or turned from the spit cards (``False``)."""

    card: Card
    seat: int
    seq: int
    played: bool


@dataclass(frozen=True)
class Play:
    """A play the referee would allow: ``seat``'s ``card`` from stock slot ``slot`` onto ``pile``."""

    seat: int
    card: Card
    slot: int
    pile: int


@dataclass(frozen=True)
class Foul:
    """An illegal play that stands on the table until a correction takes it back."""

    seq: int
    round: int
    seat: int
    card: Card
    pile: int
    slot: int
    code: str


@dataclass(frozen=True)
class RoundEnd:
    """Why the round ended: ``cleared`` (``first_out`` played every stock card) or ``blocked``."""

    reason: str
    first_out: int | None
    seq: int


@dataclass(frozen=True)
class RoundRecord:
    """One finished round, for the score sheet."""

    round: int
    reason: str
    first_out: int | None
    single_pile: bool
    held: tuple[int, ...]  # stock + spit cards each player still held at the end
    took: tuple[int, ...]  # spit-pile cards each player took
    cards: tuple[int, ...]  # cards each player holds for the next layout
    points: tuple[int, ...] | None  # points scored this round (``scoring: points``)

    def to_json(self, players: tuple[str, ...]) -> dict[str, Json]:
        def by_name(values: tuple[int, ...]) -> dict[str, int]:
            return dict(zip(players, values, strict=True))

        row: dict[str, Json] = {
            "round": self.round,
            "end": self.reason,
            "first_out": None if self.first_out is None else players[self.first_out],
            "single_pile": self.single_pile,
            "held": by_name(self.held),
            "took": by_name(self.took),
            "cards": by_name(self.cards),
        }
        if self.points is not None:
            row["points"] = by_name(self.points)
        return row


@dataclass(frozen=True)
class SpitState:
    """The whole referee state: immutable; equal states compare equal."""

    players: tuple[str, ...]
    rules: Rules
    sides: tuple[Side, ...]
    phase: Phase = Phase.LAYOUT
    round: int = 1
    piles: tuple[tuple[Placed, ...], ...] = ()
    short: int | None = None  # the seat without spit cards in a one-spit-pile round
    ended: RoundEnd | None = None
    called: tuple[int, ...] = ()  # seats the last Spit! call told to turn a spit card that have not yet
    fouls: tuple[Foul, ...] = ()
    history: tuple[RoundRecord, ...] = ()
    points: tuple[int, ...] = (0, 0)
    winner: tuple[int, ...] = field(default=())

    @property
    def single_pile(self) -> bool:
        return self.short is not None

    @property
    def pile_count(self) -> int:
        return 1 if self.single_pile else 2

    def top(self, pile: int) -> Card:
        return self.piles[pile][-1].card


def is_adjacent(a: Rank, b: Rank, ace_wraps: bool) -> bool:
    """Ranks one apart, Ace high (A-K); with ``ace_wraps`` the Ace is also next to the 2."""
    gap = abs(a.high - b.high)
    return gap == 1 or (ace_wraps and gap == 12)


def fits(card: Card, top: Card, rules: Rules) -> bool:
    """Whether ``card`` may go on a spit pile showing ``top`` (suits never matter)."""
    if card.rank is top.rank:
        return rules.same_rank_allowed
    return is_adjacent(card.rank, top.rank, rules.ace_wraps)


def legal_plays(state: SpitState, seat: int | None = None) -> list[Play]:
    """Every legal play of the face-up stock tops (of ``seat``, or of both players)."""
    if state.phase is not Phase.PLAY:
        return []
    seats = range(len(state.sides)) if seat is None else (seat,)
    plays = []
    for who in seats:
        for index, slot in enumerate(state.sides[who].stock):
            if slot.top is None:
                continue
            for pile in range(len(state.piles)):
                if fits(slot.top, state.top(pile), state.rules):
                    plays.append(Play(who, slot.top, index, pile))
    return plays


def can_uncover(side: Side) -> bool:
    """The player can still bring a new card face up: a face-down top to turn, or an empty
    space to move a face-up card into, uncovering a face-down card under it."""
    if any(slot.needs_reveal for slot in side.stock):
        return True
    has_space = any(slot.is_empty for slot in side.stock)
    return has_space and any(slot.top is not None and slot.down > 0 for slot in side.stock)


def is_stalled(state: SpitState) -> bool:
    """In play, nobody can play a card or uncover one: time for "Spit!" (or the round is blocked)."""
    if state.phase is not Phase.PLAY:
        return False
    return not legal_plays(state) and not any(can_uncover(side) for side in state.sides)


def face_up_cards(state: SpitState) -> dict[Card, str]:
    """Every face-up card and where it lies, in words."""
    where: dict[Card, str] = {}
    for pile, cards in enumerate(state.piles):
        for placed in cards:
            where[placed.card] = f"on {pile_name(pile)}"
    for seat, side in enumerate(state.sides):
        for index, slot in enumerate(side.stock):
            if slot.top is not None:
                where[slot.top] = f"on {state.players[seat]}'s {slot_name(index)}"
    return where


def hidden_problem(state: SpitState, seat: int, card: Card) -> str | None:
    """Why ``card`` cannot be one of ``seat``'s face-down cards (``None`` when it can be)."""
    name = state.players[seat]
    side = state.sides[seat]
    where = face_up_cards(state)
    if card in where:
        return f"{card} is already face up {where[card]}"
    if side.face_down == 0:
        return f"{name} has no face-down card to turn up"
    for other, other_side in enumerate(state.sides):
        if other != seat and card in other_side.known:
            return f"{card} is among {state.players[other]}'s cards (it was face up when they picked it up)"
    if card not in side.known and len(side.known) >= side.face_down:
        return f"{name}'s face-down cards are all known and {card} is not one of them"
    return None


def card_total(state: SpitState) -> int:
    """The number of cards the state accounts for: 52 at every moment."""
    return sum(side.cards for side in state.sides) + sum(len(cards) for cards in state.piles)


def pile_name(pile: int) -> str:
    """A spit pile as a person says it (events number them from 0)."""
    return f"spit pile {pile + 1}"


def slot_name(slot: int) -> str:
    """A stock pile as a person says it (events number them from 0)."""
    return f"stock pile {slot + 1}"
