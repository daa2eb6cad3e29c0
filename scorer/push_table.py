"""Push's table: the game state and the accounting of its 108 cards.

Cards are tracked by face (``7H``, ``JK``): the two copies of a card are alike in play, so a copy
number in an event (``7H/2``) is checked (1-2 for a card, 1-4 for a joker) and otherwise only tells
two identical wilds of one meld apart. A hand is a count plus the cards known to be in it (dealt
face up to the referee, drawn from the discard pile, pushed, shown in a refused meld); the rest are
**unseen** (in a hidden hand or in the stock, which is all hidden: a buried wild upcard is unseen
again). Every card is in exactly one place, and the number of unseen cards always equals the hidden
hand cards plus the stock: that is the check that lets the referee refuse an event that names a
card which cannot be where the event says.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from scorer.cards import CardError, Face, Joker, Rank, copy_number, copy_slip, parse_face, push_deck, quoted
from scorer.events import EventError, GameEvent
from scorer.game import Ruling, Severity
from scorer.push_melds import Meld, Stand, face_key
from scorer.shown import cut

__all__ = [
    "DECK",
    "DealResult",
    "Hand",
    "Pending",
    "PushState",
    "TableMeld",
    "give",
    "parse_entry",
    "read_entries",
    "read_face",
    "read_wilds",
    "reveal",
    "ruling",
    "seen",
    "show",
    "sort_faces",
    "take",
    "unseen",
]

Json = Any
#: How many of each face the 108 cards hold: 2 of each card, 4 jokers.
DECK: Counter[Face] = Counter(card.face for card in push_deck())


def ruling(code: str, severity: Severity, message: str, player: str | None, seq: int, **data: Json) -> Ruling:
    """A Push ruling, said as a sentence like the other games' (a full stop at the end; they had none: wording
    audit, session 40)."""
    if not message.endswith((".", "!", "?")):
        message += "."
    return Ruling(code, severity, message, player, seq, data)


def show(faces: Iterable[Face]) -> list[str]:
    """Faces in display order, as text."""
    return [str(f) for f in sorted(faces, key=face_key)]


def sort_faces(faces: Iterable[Face]) -> tuple[Face, ...]:
    return tuple(sorted(faces, key=face_key))


@dataclass(frozen=True)
class Hand:
    """A player's hand as the referee knows it: how many cards, and which of them are known."""

    count: int = 0
    known: tuple[Face, ...] = ()

    @property
    def hidden(self) -> int:
        return self.count - len(self.known)


@dataclass(frozen=True)
class TableMeld:
    """A meld on the table, numbered from 1 in the order it was laid this deal; ``origin``: the ``seq`` of the ``meld``
    event that laid it and its place in that event's list of melds (from 1; a refused one keeps its place), which a
    correction of an earlier event does not change (its number can: a meld corrected into an earlier event comes
    before it)."""

    number: int
    owner: int
    meld: Meld
    origin: tuple[int, int] = (0, 0)


@dataclass(frozen=True)
class Pending:
    """A wild freed by a swap, which its player must put into another meld at once."""

    seat: int
    wild: Face
    meld: int


@dataclass(frozen=True)
class DealResult:
    """One scored deal: who went out, the cards left per seat (``None``: not reported), team points."""

    deal: int
    out: int | None
    hands: tuple[tuple[Face, ...] | None, ...]
    points: tuple[int, int]


@dataclass(frozen=True)
class PushState:
    """Everything the referee knows. ``phase``: waiting (for a deal), play, counting, over;
    ``step`` within a turn: bury (a wild upcard), draw, stock (draw after a push), play."""

    players: tuple[str, ...]
    set_suits_distinct: bool = False
    bury_wild_upcard: bool = True
    deal: int = 0
    phase: str = "waiting"
    dealer: int | None = None
    turn: int = 0
    step: str = "draw"
    stock: int = 0
    discard: tuple[Face, ...] = ()
    hands: tuple[Hand, ...] = (Hand(), Hand(), Hand(), Hand())
    melds: tuple[TableMeld, ...] = ()
    laid: tuple[bool, ...] = (False, False, False, False)
    pending: Pending | None = None
    out: int | None = None
    results: tuple[DealResult, ...] = ()

    def left_of(self, seat: int) -> int:
        return (seat + 1) % len(self.players)

    def with_hand(self, seat: int, hand: Hand) -> PushState:
        hands = list(self.hands)
        hands[seat] = hand
        return replace(self, hands=tuple(hands))


# -- where the cards are -------------------------------------------------------------------------
def seen(state: PushState) -> Counter[Face]:
    """Every card whose place the referee knows."""
    counts: Counter[Face] = Counter(state.discard)
    for hand in state.hands:
        counts.update(hand.known)
    for table in state.melds:
        counts.update(table.meld.cards)
    return counts


def unseen(state: PushState) -> Counter[Face]:
    """The cards in hidden hand slots or the hidden part of the stock."""
    return DECK - seen(state)


def _places(state: PushState, face: Face) -> str:
    found = [f"meld #{t.number}" for t in state.melds for c in t.meld.cards if c == face]
    found += ["the discard pile"] * state.discard.count(face)
    found += [f"{state.players[s]}'s hand" for s, h in enumerate(state.hands) for c in h.known if c == face]
    return ", ".join(found)


def _resolve(state: PushState, seat: int, faces: Sequence[Face], where: str) -> Counter[Face]:
    """Which of ``faces`` come from the known part of a hand, checking each can be there."""
    hand = state.hands[seat]
    name = state.players[seat]
    known = Counter(hand.known)
    pool = unseen(state)
    from_known: Counter[Face] = Counter()
    hidden = hand.hidden
    if len(faces) > hand.count:
        raise EventError(f"{where}: {name} holds {hand.count} cards, not {len(faces)}")
    for face in faces:
        if known[face] > 0:
            known[face] -= 1
            from_known[face] += 1
        elif hidden > 0 and pool[face] > 0:
            hidden -= 1
            pool[face] -= 1
        elif hidden == 0:
            held = " ".join(show(hand.known)) or "nothing"
            many = hand.known.count(face)
            what = f"only {many} {face}" if many else f"no {face}"
            raise EventError(f"{where}: {name} holds {what} (the referee knows the hand: {held})")
        else:
            places = _places(state, face)
            where_else = f"Push has {DECK[face]} {face}" + (f", seen at: {places}" if places else "")
            raise EventError(f"{where}: {name} cannot have another {face}: {where_else}")
    return from_known


def take(state: PushState, seat: int, faces: Sequence[Face], where: str) -> PushState:
    """``faces`` leave ``seat``'s hand (raises :class:`EventError` if they cannot be there)."""
    from_known = _resolve(state, seat, faces, where)
    hand = state.hands[seat]
    rest = Counter(hand.known)
    rest.subtract(from_known)
    return state.with_hand(seat, Hand(hand.count - len(faces), sort_faces((+rest).elements())))


def reveal(state: PushState, seat: int, faces: Sequence[Face], where: str) -> PushState:
    """``faces`` were shown from ``seat``'s hand and went back into it: they become known."""
    from_known = _resolve(state, seat, faces, where)
    hand = state.hands[seat]
    shown = Counter(faces)
    shown.subtract(from_known)
    return state.with_hand(seat, Hand(hand.count, sort_faces([*hand.known, *(+shown).elements()])))


def give(state: PushState, seat: int, known: Sequence[Face], hidden: int = 0) -> PushState:
    """``seat``'s hand gains ``known`` cards and ``hidden`` unknown ones."""
    hand = state.hands[seat]
    return state.with_hand(seat, Hand(hand.count + len(known) + hidden, sort_faces([*hand.known, *known])))


# -- reading events ------------------------------------------------------------------------------
def parse_entry(text: Json, where: str) -> tuple[Face, int | None]:
    """A card written ``7H``, ``7H/2`` or ``JK/3``: its face and the copy named (or ``None``)."""
    if not isinstance(text, str):
        raise EventError(f"{where}: a card must be text like '7H' or 'JK/2', not {quoted(text)}")
    face_text, sep, copy_text = text.partition("/")
    try:
        face = parse_face(face_text)
    except CardError as exc:
        raise EventError(f"{where}: {exc if sep else copy_slip(face_text, exc)}") from None
    if not sep:
        return face, None
    top = DECK[face]
    copy = copy_number(copy_text, top)
    if copy is None:
        raise EventError(f"{where}: '{cut(text)}': Push has {top} copies of {face}, numbered 1 to {top}")
    return face, copy


def read_face(event: GameEvent, key: str) -> Face:
    if key not in event.data:
        raise EventError(f"{event.where()}: '{key}' is missing (a card like '7H' or 'JK')")
    return parse_entry(event.data[key], f"{event.where()}: '{key}'")[0]


def read_entries(raw: Json, where: str) -> list[tuple[Face, int | None]]:
    if not isinstance(raw, list) or not raw:
        raise EventError(f"{where}: 'cards' must be a non-empty list of cards like ['7H', 'JK']")
    return [parse_entry(item, where) for item in raw]


def _stand(text: Json, where: str) -> Stand:
    if isinstance(text, str):
        try:
            face = parse_face(text)
        except CardError:
            face = None
        if face is not None and not isinstance(face, Joker):
            return face
        try:
            return Rank.parse(text)
        except CardError:
            pass
    raise EventError(f"{where}: a wild stands for a card like '7H' or a rank like '7', not {text!r}")


def read_wilds(raw: Json, entries: Sequence[tuple[Face, int | None]], where: str) -> dict[int, Stand]:
    """``{"JK/1": "5H"}``: which of ``entries`` (by index) stands for what."""
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        raise EventError(f'{where}: \'wilds\' must map a wild to what it stands for, like {{"JK": "5H"}}')
    declared: dict[int, Stand] = {}
    for key, value in raw.items():
        face, copy = parse_entry(key, f"{where}: 'wilds'")
        spots = [i for i, (f, c) in enumerate(entries) if f == face and (copy is None or c == copy)]
        if not spots:
            raise EventError(f"{where}: 'wilds' names {key}, which is not among the cards")
        if len(spots) > 1:
            raise EventError(
                f"{where}: two {face} in the cards: write them with copies (JK/1, JK/2) to tell them apart"
            )
        declared[spots[0]] = _stand(value, f"{where}: 'wilds' {key}")
    return declared
