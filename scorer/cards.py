"""Playing cards: ranks, suits, jokers, physical copies and the decks our games use.

Notation (logs, tests, the dashboard):

* a card is its rank then its suit: ``AS``, ``10H``, ``QD``, ``2C``;
  ranks ``A 2 3 4 5 6 7 8 9 10 J Q K``, suits ``S H D C``;
* input is forgiving: ``TH`` means ``10H``, case is ignored, surrounding blanks are
  stripped; output always prints ``10H``;
* ``JK`` is a joker;
* when several identical cards share a table (Push uses two decks and four jokers), a
  physical copy is written ``AS/2`` or ``JK/4``; copies are numbered from 1. Events
  name the copy only where it matters.

Ten uses its own custom deck: see :mod:`scorer.tencards`.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from enum import Enum

from scorer.shown import as_json, cut

__all__ = [
    "JOKER",
    "Card",
    "CardError",
    "Face",
    "Joker",
    "PhysicalCard",
    "Rank",
    "Suit",
    "copy_number",
    "copy_slip",
    "parse_card",
    "parse_face",
    "parse_physical",
    "push_deck",
    "quoted",
    "standard_deck",
]


def quoted(text: object) -> str:
    """Card text as typed, quoted and cut short: a 5,000-character card field came back whole, twice (the wording
    audit, session 40)."""
    if not isinstance(text, str):  # a number, null, true or a list as JSON writes it, not as Python does ("None")
        return as_json(text)
    shown = repr(text)
    return shown if len(shown) <= 24 else cut(shown) + shown[-1]


class CardError(ValueError):
    """Text that does not name a card; the message says what was wrong."""


class Rank(Enum):
    """A card's rank; ``value`` is its printed form, ``number`` its position A=1 … K=13."""

    ACE = "A"
    TWO = "2"
    THREE = "3"
    FOUR = "4"
    FIVE = "5"
    SIX = "6"
    SEVEN = "7"
    EIGHT = "8"
    NINE = "9"
    TEN = "10"
    JACK = "J"
    QUEEN = "Q"
    KING = "K"

    @property
    def number(self) -> int:
        """A=1, 2=2, … 10=10, J=11, Q=12, K=13."""
        return _RANK_ORDER.index(self) + 1

    @property
    def high(self) -> int:
        """Rank strength with the Ace high: 2=2 … K=13, A=14."""
        return 14 if self is Rank.ACE else self.number

    @classmethod
    def from_number(cls, number: int) -> Rank:
        """The rank at position ``number`` (1..13; 14 is also accepted for an Ace)."""
        if number == 14:
            return cls.ACE
        if not 1 <= number <= 13:
            raise CardError(f"there is no rank number {number} (1 to 13)")
        return _RANK_ORDER[number - 1]

    @classmethod
    def parse(cls, text: str) -> Rank:
        key = text.strip().upper()
        key = "10" if key == "T" else key
        for rank in cls:
            if rank.value == key:
                return rank
        raise CardError(f"{quoted(text)} is not a rank (A, 2-10, J, Q, K)")

    def __str__(self) -> str:
        return self.value


_RANK_ORDER: tuple[Rank, ...] = tuple(Rank)
_RANK_WORDS = frozenset(rank.value for rank in Rank) | {"T"}  # a rank without a suit (parse_face)


class Suit(Enum):
    """A card's suit; ``value`` is its one-letter form."""

    SPADES = "S"
    HEARTS = "H"
    DIAMONDS = "D"
    CLUBS = "C"

    @property
    def is_red(self) -> bool:
        return self in (Suit.HEARTS, Suit.DIAMONDS)

    @property
    def colour(self) -> str:
        return "red" if self.is_red else "black"

    @classmethod
    def parse(cls, text: str) -> Suit:
        key = text.strip().upper()
        for suit in cls:
            if suit.value == key:
                return suit
        raise CardError(f"{quoted(text)} is not a suit (S, H, D, C)")

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True, order=False)
class Card:
    """One face of a standard deck, e.g. ``Card(Rank.ACE, Suit.SPADES)`` printed ``AS``."""

    rank: Rank
    suit: Suit

    @classmethod
    def parse(cls, text: str) -> Card:
        """Parse ``AS``, ``10h``, ``TH``; a joker or anything else raises :class:`CardError`."""
        face = parse_face(text)
        if isinstance(face, Joker):
            raise CardError(f"{quoted(text)} is a joker; this game has no jokers")
        return face

    def __str__(self) -> str:
        return f"{self.rank.value}{self.suit.value}"

    def __repr__(self) -> str:
        return f"Card({str(self)!r})"


@dataclass(frozen=True)
class Joker:
    """A joker face (printed ``JK``). All jokers look the same."""

    def __str__(self) -> str:
        return "JK"

    def __repr__(self) -> str:
        return "JOKER"


JOKER = Joker()

Face = Card | Joker


def parse_face(text: str) -> Face:
    """Parse a card or a joker (``JK``)."""
    if not isinstance(text, str):
        raise CardError(f"a card must be written as text like 'AS', not {quoted(text)}")
    key = text.strip().upper()
    if key in ("JK", "JOKER"):
        return JOKER
    if key in _RANK_WORDS:  # '10' said "'1' is not a rank" (the wording audit, session 40)
        raise CardError(f"{quoted(text)} has no suit: write rank then suit, like '{key}H' (S, H, D or C)")
    if len(key) < 2 or not key.isalnum():
        raise CardError(f"{quoted(text)} is not a card: write rank then suit, like 'AS' or '10H'")
    try:
        return Card(Rank.parse(key[:-1]), Suit.parse(key[-1]))
    except CardError as exc:
        raise CardError(f"{quoted(text)} is not a card: {exc}") from None


def copy_slip(text: str, exc: CardError) -> CardError:
    """``exc``, or where ``text`` is a card and a copy number without the slash between them, a CardError saying where
    the slash goes: 'KH2' said "'KH' is not a rank" (the wording audit). Only for games with copies (Push): in a game
    of one deck the hint led to 'KH/2', refused in its turn (a review, session 40)."""
    key = text.strip().upper()
    for at in (2, 3):
        if key[at:].isascii() and key[at:].isdecimal() and len(key) <= 6 and (key[:at] == "JK" or _is_card(key[:at])):
            return CardError(f"{quoted(text)} is not a card: a copy goes after a slash, like '{key[:at]}/{key[at:]}'")
    return exc


def _is_card(key: str) -> bool:
    try:
        Rank.parse(key[:-1]), Suit.parse(key[-1])
    except CardError:
        return False
    return True


def copy_number(text: str, top: int) -> int | None:
    """The copy number written after a slash, if it is one from 1 to ``top`` (``None`` otherwise). Checked before
    ``int()``: past 4,300 digits ``int()`` raises, and Import answered 500 (a review, session 40)."""
    text = text.strip()
    if not (text.isascii() and text.isdecimal()) or len(text) > len(str(top)) + 2:  # not "٢" (isdecimal takes it)
        return None
    number = int(text)
    return number if 1 <= number <= top else None


def parse_card(text: str) -> Card:
    """Parse a standard card (no jokers)."""
    return Card.parse(text)


@dataclass(frozen=True)
class PhysicalCard:
    """One physical card when a table holds several identical faces (``AS/2``)."""

    face: Face
    copy: int = 1

    def __post_init__(self) -> None:
        if self.copy < 1:
            raise CardError(f"copy numbers start at 1, not {self.copy}")

    def __str__(self) -> str:
        return f"{self.face}/{self.copy}"


def parse_physical(text: str, default_copy: int = 1) -> PhysicalCard:
    """Parse ``AS/2`` (or ``AS``, which means copy ``default_copy``)."""
    if not isinstance(text, str):
        raise CardError(f"a card must be written as text like 'AS/2', not {quoted(text)}")
    face_text, sep, copy_text = text.partition("/")
    if not sep:
        try:
            return PhysicalCard(parse_face(face_text), default_copy)
        except CardError as exc:
            raise copy_slip(face_text, exc) from None
    copy = copy_number(copy_text, 99)
    if copy is None:
        raise CardError(f"{quoted(text)}: the copy after '/' must be a number, like 'AS/2'")
    return PhysicalCard(parse_face(face_text), copy)


def _faces() -> Iterator[Card]:
    for suit in Suit:
        for rank in Rank:
            yield Card(rank, suit)


def standard_deck() -> tuple[Card, ...]:
    """The 52 cards, spades first, A..K in each suit."""
    return tuple(_faces())


def push_deck(decks: int = 2, jokers: int = 4) -> tuple[PhysicalCard, ...]:
    """Push's 108 physical cards: two 52-card decks and four jokers, each copy distinct."""
    cards = [PhysicalCard(face, copy) for copy in range(1, decks + 1) for face in _faces()]
    cards += [PhysicalCard(JOKER, copy) for copy in range(1, jokers + 1)]
    return tuple(cards)
