"""Ten's table as frozen data: the deck still to draw, the tableau, the market, each player's
tokens and collected cards, the auction in progress; and the small steps that change them.

Kept apart from :mod:`scorer.ten` (the referee: which event is legal, what it says) so that
both stay short. Everything here is pure and returns new values.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from enum import Enum
from typing import Any

from scorer.cards import CardError
from scorer.events import EventError, GameEvent
from scorer.tencards import TenCard, TenKind, parse_ten_card, ten_deck

__all__ = [
    "BUST_TOKENS",
    "CURRENCY_TOKENS",
    "FACES",
    "START_TOKENS",
    "Auction",
    "Holding",
    "Payment",
    "Phase",
    "TenRules",
    "TenState",
    "TurnRow",
    "count_field",
    "deck_counts",
    "gain",
    "read_card",
    "read_cards",
    "read_payment",
    "seats_after",
    "sorted_cards",
]

#: The box holds 50 currency tokens and 15 bust tokens; each player starts with 5 currency tokens.
CURRENCY_TOKENS = 50
BUST_TOKENS = 15
START_TOKENS = 5
BUST_TOKEN_WORTH = 3

#: Every distinct card face, in the deck's order (numbers by colour, wilds, currency).
FACES: tuple[TenCard, ...] = tuple(dict.fromkeys(ten_deck(5)))
_ORDER = {card: index for index, card in enumerate(FACES)}

Json = Any


def sorted_cards(cards: Iterable[TenCard]) -> tuple[TenCard, ...]:
    """Cards in the deck's order (so that equal piles are equal tuples)."""
    return tuple(sorted(cards, key=_ORDER.__getitem__))


def deck_counts(players: int) -> tuple[int, ...]:
    """How many of each face in :data:`FACES` the deck for ``players`` holds."""
    counts = Counter(ten_deck(players))
    return tuple(counts[face] for face in FACES)


def seats_after(seat: int, players: int) -> tuple[int, ...]:
    """Every seat once, starting left of ``seat`` and ending with ``seat``."""
    return tuple((seat + step) % players for step in range(1, players + 1))


class Phase(Enum):
    DRAW = "draw"  # the active player draws or stops
    AUCTION = "auction"  # a wild is up for auction
    BUY = "buy"  # the active player took the numbers and may buy one card
    FINAL_BUY = "final_buy"  # the game has ended: one last buy each, in turn
    OVER = "over"


@dataclass(frozen=True)
class TenRules:
    """The house rules in force."""

    complete_run: int = 10
    token_cap: int = 10
    currency_subtracts: bool = True


@dataclass(frozen=True)
class Payment:
    """What a player hands over: currency tokens, bust tokens (worth 3, never split), cards (1 each)."""

    tokens: int = 0
    bust_tokens: int = 0
    cards: tuple[TenCard, ...] = ()

    @property
    def value(self) -> int:
        return self.tokens + BUST_TOKEN_WORTH * self.bust_tokens + len(self.cards)

    def to_json(self) -> dict[str, Json]:
        return {"tokens": self.tokens, "bust_tokens": self.bust_tokens, "cards": [str(c) for c in self.cards]}


@dataclass(frozen=True)
class Holding:
    """One player's currency tokens, bust tokens and collected cards (numbers and wilds)."""

    tokens: int = START_TOKENS
    bust_tokens: int = 0
    cards: tuple[TenCard, ...] = ()

    @property
    def means(self) -> int:
        """The most this player can pay."""
        return Payment(self.tokens, self.bust_tokens, self.cards).value

    def holds_number(self, card: TenCard) -> bool:
        return any(c.kind is TenKind.NUMBER and c == card for c in self.cards)

    def pay(self, payment: Payment) -> Holding:
        left = Counter(self.cards)
        left.subtract(payment.cards)
        return Holding(
            self.tokens - payment.tokens, self.bust_tokens - payment.bust_tokens, sorted_cards(left.elements())
        )

    def take(self, cards: Iterable[TenCard]) -> Holding:
        return replace(self, cards=sorted_cards((*self.cards, *cards)))


@dataclass(frozen=True)
class Auction:
    """A wild up for auction: who still bids (in order, the active player last) and the best bid."""

    wild: TenCard
    bidders: tuple[int, ...]
    high_bid: int | None = None
    high_bidder: int | None = None
    payment: Payment | None = None


@dataclass(frozen=True)
class TurnRow:
    """One finished turn (or, with ``last_buy``, one buy of the final round), for the history."""

    seat: int
    drawn: tuple[TenCard, ...] = ()
    outcome: str = ""
    bought: TenCard | None = None
    auctions: tuple[tuple[TenCard, int | None, int], ...] = ()  # (wild, winner seat or None, price)
    last_buy: bool = False

    def to_json(self, players: Sequence[str], number: int) -> dict[str, Json]:
        bought = None if self.bought is None else str(self.bought)
        if self.last_buy:
            return {"last_buy": players[self.seat], "bought": bought}
        row: dict[str, Json] = {
            "turn": number,
            "player": players[self.seat],
            "drawn": [str(c) for c in self.drawn],
            "outcome": self.outcome,
            "bought": bought,
        }
        if self.auctions:
            row["auctions"] = [
                {"card": str(wild), "winner": None if who is None else players[who], "price": price}
                for wild, who, price in self.auctions
            ]
        return row


@dataclass(frozen=True)
class TenState:
    """The whole table. ``deck`` counts the undrawn cards of each face in :data:`FACES`."""

    players: tuple[str, ...]
    rules: TenRules
    deck: tuple[int, ...]
    holdings: tuple[Holding, ...]
    supply_tokens: int
    supply_bust: int
    active: int = 0
    phase: Phase = Phase.DRAW
    tableau: tuple[TenCard, ...] = ()  # number and currency cards of this turn, in drawn order
    drawn: tuple[TenCard, ...] = ()  # every card of this turn, wilds included
    auctions: tuple[tuple[TenCard, int | None, int], ...] = ()  # this turn's auctions
    market: tuple[TenCard, ...] = ()
    discard: tuple[TenCard, ...] = ()
    auction: Auction | None = None
    ending: bool = False  # the last card is drawn (or the table said so): this turn is the last
    final_order: tuple[int, ...] = ()  # who still has a last buy, in order
    outcome: str = ""  # how the turn in its buy phase ended its draws
    rows: tuple[TurnRow, ...] = ()
    score_only: bool = False

    @property
    def deck_left(self) -> int:
        return sum(self.deck)

    @property
    def numbers(self) -> int:
        return sum(c.value or 0 for c in self.tableau if c.kind is TenKind.NUMBER)

    @property
    def currency(self) -> int:
        return sum(c.value or 0 for c in self.tableau if c.is_currency)

    @property
    def total(self) -> int:
        """The running total: numbers add, currency subtracts (unless the house rule is off)."""
        return self.numbers - (self.currency if self.rules.currency_subtracts else 0)

    def with_holding(self, seat: int, holding: Holding) -> TenState:
        holdings = list(self.holdings)
        holdings[seat] = holding
        return replace(self, holdings=tuple(holdings))

    def without(self, card: TenCard) -> TenState:
        """The state with one ``card`` taken from the deck (the caller checked it is there)."""
        deck = list(self.deck)
        deck[_ORDER[card]] -= 1
        return replace(self, deck=tuple(deck))

    def count_in_deck(self, card: TenCard) -> int:
        return self.deck[_ORDER[card]]


def gain(state: TenState, seat: int, amount: int) -> tuple[TenState, int, int]:
    """``seat`` takes ``amount`` currency tokens from the supply, up to the cap and what the supply
    holds. Returns the new state, the tokens taken and those left behind because of the cap."""
    holding = state.holdings[seat]
    room = max(0, state.rules.token_cap - holding.tokens)
    taken = min(amount, room, state.supply_tokens)
    state = state.with_holding(seat, replace(holding, tokens=holding.tokens + taken))
    return replace(state, supply_tokens=state.supply_tokens - taken), taken, max(0, amount - room)


def read_card(event: GameEvent, key: str = "card") -> TenCard:
    """The Ten card named under ``key``; an :class:`EventError` for bad text."""
    value = event.data.get(key)
    if not isinstance(value, str):
        raise EventError(f"{event.where()}: '{key}' must be a Ten card like 'R5', 'G#', '*7', '*#' or '$3'")
    try:
        return parse_ten_card(value)
    except CardError as exc:
        raise EventError(f"{event.where()}: '{key}': {exc}") from None


def read_cards(event: GameEvent, value: Json, what: str) -> list[TenCard]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise EventError(f"{event.where()}: {what} must be a list of Ten cards like ['R5', 'G#']")
    try:
        return [parse_ten_card(v) for v in value]
    except CardError as exc:
        raise EventError(f"{event.where()}: {what}: {exc}") from None


def count_field(event: GameEvent, data: Mapping[str, Json], key: str, who: str, high: int, paying: bool = False) -> int:
    """A count of ``key`` (``tokens``, ``bust_tokens``) of ``who``: what a player pays (``paying``: at most what
    they hold, ``high``) or holds at the end (at most what the game has)."""
    value = data.get(key, 0)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise EventError(f"{event.where()}: {who}'s '{key}' must be a whole number >= 0, not {value!r}")
    if value > high:
        noun = key.replace("_", " ")
        noun = noun if value != 1 else noun[:-1]
        says = f"pays {value} {noun} but holds {high}" if paying else f"has {value} {noun}, but the game has {high}"
        raise EventError(f"{event.where()}: {who} {says}")
    return value


def read_payment(event: GameEvent, name: str, holding: Holding) -> Payment | None:
    """The ``pay`` object of a buy or bid, checked against what ``name`` holds; ``None`` if absent.
    Handing over tokens or cards the player does not have is an :class:`EventError`."""
    if not event.has("pay"):
        return None
    pay = event.data["pay"]
    if not isinstance(pay, Mapping) or set(pay) - {"tokens", "bust_tokens", "cards"}:
        raise EventError(f'{event.where()}: \'pay\' must look like {{"tokens": 2, "bust_tokens": 1, "cards": ["R1"]}}')
    tokens = count_field(event, pay, "tokens", name, holding.tokens, paying=True)
    bust = count_field(event, pay, "bust_tokens", name, holding.bust_tokens, paying=True)
    cards = read_cards(event, pay.get("cards", []), "'pay' 'cards'")
    short = Counter(cards) - Counter(holding.cards)
    if short:
        missing = ", ".join(str(card) for card in sorted_cards(short.elements()))
        raise EventError(f"{event.where()}: {name} has not collected {missing}, so cannot pay with it")
    return Payment(tokens, bust, sorted_cards(cards))
