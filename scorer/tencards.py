"""Ten's custom 129-card deck (AEG, 2021): notation and composition, as data.

Notation (logs, tests, the dashboard), case-insensitive on input:

=========  ==========================================  =========
written    card                                        example
=========  ==========================================  =========
``C9``     number card: colour letter + number 1-9     ``R5``, ``B1``
``C#``     colour wild: any number in that colour      ``G#``
``*N``     rainbow numbered wild: number N, any colour ``*7``
``*#``     full wild: any colour, any number           ``*#``
``$N``     currency card worth N (1-5)                 ``$3``
=========  ==========================================  =========

Colours: ``R`` red, ``B`` blue, ``O`` orange, ``G`` green.

Composition (129 cards), from the user's rule document:
per colour three each of 1-6, one each of 7-9 and two colour wilds (23 x 4 = 92);
rainbow wilds numbered 1-9 (9) and one full wild; 27 currency cards worth 1-5.

Two facts the rule document does not give are **assumptions**, kept here as data so a
group can match its own box: how the 27 currency cards spread over 1-5
(:data:`CURRENCY_SPREAD`) and which cards carry the "4+" and "3+" player-count symbols
(:data:`MARKS`). With 4-5 players every card is used; with 3 the "4+" cards are removed;
with 1-2 the "4+" and "3+" cards.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from scorer.cards import CardError, quoted

__all__ = [
    "CURRENCY_SPREAD",
    "MARKS",
    "Colour",
    "TenCard",
    "TenKind",
    "parse_ten_card",
    "ten_deck",
]


class Colour(Enum):
    RED = "R"
    BLUE = "B"
    ORANGE = "O"
    GREEN = "G"

    def __str__(self) -> str:
        return self.value


class TenKind(Enum):
    NUMBER = "number"
    COLOUR_WILD = "colour_wild"
    RAINBOW_WILD = "rainbow_wild"
    FULL_WILD = "full_wild"
    CURRENCY = "currency"


@dataclass(frozen=True)
class TenCard:
    """A Ten card face. ``colour`` is set for number cards and colour wilds; ``value`` is
    the number (number cards, rainbow wilds) or the currency worth (currency cards)."""

    kind: TenKind
    colour: Colour | None = None
    value: int | None = None

    def __post_init__(self) -> None:
        needs_colour = self.kind in (TenKind.NUMBER, TenKind.COLOUR_WILD)
        if needs_colour != (self.colour is not None):
            raise CardError(f"a {self.kind.value} card {'needs' if needs_colour else 'has no'} colour")
        limit = {TenKind.NUMBER: 9, TenKind.RAINBOW_WILD: 9, TenKind.CURRENCY: 5}.get(self.kind)
        if limit is None:
            if self.value is not None:
                raise CardError(f"a {self.kind.value} card has no number")
        elif self.value is None or not 1 <= self.value <= limit:
            raise CardError(f"a {self.kind.value} card needs a number from 1 to {limit}")

    @property
    def is_wild(self) -> bool:
        return self.kind in (TenKind.COLOUR_WILD, TenKind.RAINBOW_WILD, TenKind.FULL_WILD)

    @property
    def is_currency(self) -> bool:
        return self.kind is TenKind.CURRENCY

    def __str__(self) -> str:
        if self.kind is TenKind.NUMBER:
            return f"{self.colour}{self.value}"
        if self.kind is TenKind.COLOUR_WILD:
            return f"{self.colour}#"
        if self.kind is TenKind.RAINBOW_WILD:
            return f"*{self.value}"
        if self.kind is TenKind.FULL_WILD:
            return "*#"
        return f"${self.value}"


def parse_ten_card(text: str) -> TenCard:
    """Parse ``R5``, ``G#``, ``*7``, ``*#`` or ``$3``."""
    if not isinstance(text, str):
        raise CardError(f"a Ten card must be written as text like 'R5', not {quoted(text)}")
    key = text.strip().upper()
    if len(key) != 2:
        raise CardError(f"{quoted(text)} is not a Ten card (like R5, G#, *7, *#, $3)")
    head, tail = key[0], key[1]
    try:
        if head == "$" and tail.isascii() and tail.isdecimal():
            return TenCard(TenKind.CURRENCY, value=int(tail))
        if head == "*":
            if tail == "#":
                return TenCard(TenKind.FULL_WILD)
            if tail.isascii() and tail.isdecimal():
                return TenCard(TenKind.RAINBOW_WILD, value=int(tail))
        colour = next((c for c in Colour if c.value == head), None)
        if colour is not None:
            if tail == "#":
                return TenCard(TenKind.COLOUR_WILD, colour)
            if tail.isascii() and tail.isdecimal():
                return TenCard(TenKind.NUMBER, colour, int(tail))
    except CardError as exc:
        raise CardError(f"{quoted(text)}: {exc}") from None
    raise CardError(f"{quoted(text)} is not a Ten card (like R5, G#, *7, *#, $3)")


#: How many currency cards of each worth (an assumption: the document says only "27, worth 1-5").
CURRENCY_SPREAD: dict[int, int] = {1: 7, 2: 6, 3: 6, 4: 4, 5: 4}

#: Player-count symbols (an assumption): card text -> how many copies carry "4+" / "3+".
MARKS: dict[str, dict[str, int]] = {
    "4+": {
        **{f"{c.value}{n}": 1 for c in Colour for n in (1, 2, 3)},
        "$1": 1,
        "$2": 1,
    },
    "3+": {
        **{f"{c.value}{n}": 1 for c in Colour for n in (4, 5, 6)},
        "$3": 1,
    },
}


def _full_deck() -> list[TenCard]:
    cards: list[TenCard] = []
    for colour in Colour:
        for number in range(1, 10):
            copies = 3 if number <= 6 else 1
            cards += [TenCard(TenKind.NUMBER, colour, number)] * copies
        cards += [TenCard(TenKind.COLOUR_WILD, colour)] * 2
    cards += [TenCard(TenKind.RAINBOW_WILD, value=n) for n in range(1, 10)]
    cards.append(TenCard(TenKind.FULL_WILD))
    for worth, count in CURRENCY_SPREAD.items():
        cards += [TenCard(TenKind.CURRENCY, value=worth)] * count
    return cards


def ten_deck(players: int) -> tuple[TenCard, ...]:
    """The deck for ``players`` (1-5): all 129 cards for 4-5, fewer for 1-3 (see :data:`MARKS`)."""
    if not 1 <= players <= 5:
        raise CardError(f"Ten is for 1 to 5 players, not {players}")
    removed_marks = [] if players >= 4 else ["4+"] if players == 3 else ["4+", "3+"]
    cards = _full_deck()
    for mark in removed_marks:
        for text, copies in MARKS[mark].items():
            card = parse_ten_card(text)
            for _ in range(copies):
                cards.remove(card)
    return tuple(cards)
