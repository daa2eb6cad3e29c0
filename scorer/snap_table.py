"""Snap's table: who holds which cards, what matches, and the small moves that shift cards around.

The referee (:mod:`scorer.snap`) and its call judge (:mod:`scorer.snap_calls`) share these
records and helpers. Card accounting is exact at all times: every one of the 52 cards is on a
face-up pile, in the Snap Pot, in a known :class:`Packet` of some face-down pile, or among the
``unseen`` cards that fill the face-down piles' hidden packets (``len(unseen)`` equals the
number of hidden cards on the table).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

from scorer.cards import Card, standard_deck
from scorer.events import EventError, GameEvent
from scorer.game import Ruling, Severity

__all__ = [
    "DECK",
    "POT",
    "Call",
    "Match",
    "Packet",
    "SnapState",
    "cards_match",
    "find_matches",
    "gather",
    "held",
    "is_in",
    "locate",
    "next_in",
    "pay_top_card",
    "possible_flips",
    "push_under",
    "put",
    "refresh",
    "right_of",
    "sort_cards",
]

Json = Any
POT = -1  # the Snap Pot, where a seat number would stand
DECK: tuple[Card, ...] = standard_deck()
_INDEX = {card: index for index, card in enumerate(DECK)}


def sort_cards(cards: Iterable[Card]) -> tuple[Card, ...]:
    """Cards in deck order (spades A..K, hearts, diamonds, clubs): a canonical form for sets."""
    return tuple(sorted(cards, key=_INDEX.__getitem__))


@dataclass(frozen=True)
class Packet:
    """Cards that went under a face-down pile together: ``cards`` the referee knows (their
    order inside the packet unknown), or ``hidden`` cards nobody has seen since the deal."""

    cards: tuple[Card, ...] = ()
    hidden: int = 0

    @property
    def size(self) -> int:
        return len(self.cards) + self.hidden


@dataclass(frozen=True)
class Match:
    """Two face-up tops that match: seat ``first``'s top and seat ``second``'s (or the Snap
    Pot's when ``second`` is :data:`POT`)."""

    first: int
    second: int
    first_card: Card
    second_card: Card

    @property
    def with_pot(self) -> bool:
        return self.second == POT

    def involves(self, seat: int) -> bool:
        return seat in (self.first, self.second)

    def seats(self) -> tuple[int, ...]:
        return (self.first,) if self.with_pot else (self.first, self.second)


@dataclass(frozen=True)
class Call:
    """A call ("Snap!", "Snap Pot!") or a slap heard from seat ``seat`` at time ``ts``."""

    seat: int
    kind: str
    ts: int
    seq: int


@dataclass(frozen=True)
class SnapState:
    """The whole table. Face-up piles and the pot list cards bottom first (the top is last);
    a face-down pile lists its packets top first."""

    players: tuple[str, ...]
    match_by: str = "rank"
    penalty: str = "card_to_turner"
    callers: str = "anyone"
    window: int = 150
    grace: int = 0  # call_grace_ms
    style: str = "voice"
    phase: str = "deal"  # deal | play | over
    dealer: int = -1
    turn: int = 0
    face_down: tuple[tuple[Packet, ...], ...] = ()
    face_up: tuple[tuple[Card, ...], ...] = ()
    pot: tuple[Card, ...] = ()
    unseen: frozenset[Card] = frozenset()
    matches: tuple[Match, ...] = ()
    pending: tuple[Call, ...] = ()  # valid calls waiting to be settled
    owed: tuple[Call, ...] = ()  # false calls whose penalty waits for the pending calls
    settled: tuple[tuple[str, tuple[int, ...]], ...] = ()  # calls settled since the last flip (later ones are
    # late): each kind with the seats of the matches it settled (with owners_only only they may call late)
    flips: int = 0
    out: tuple[tuple[int, int], ...] = ()  # (seat, seq of the event that put them out)
    winners: tuple[int, ...] = ()
    finished_seq: int = 0

    def name(self, seat: int) -> str:
        return "the Snap Pot" if seat == POT else self.players[seat]

    @property
    def out_seats(self) -> frozenset[int]:
        return frozenset(seat for seat, _ in self.out)


# -- counting and seats -----------------------------------------------------------------------
def held(state: SnapState, seat: int) -> int:
    """How many cards ``seat`` holds: face-down and face-up."""
    return sum(packet.size for packet in state.face_down[seat]) + len(state.face_up[seat])


def is_in(state: SnapState, seat: int) -> bool:
    return seat not in state.out_seats


def next_in(state: SnapState, seat: int) -> int:
    """The first player still in, clockwise (to the left) after ``seat`` (``seat`` itself if alone)."""
    count = len(state.players)
    for step in range(1, count + 1):
        other = (seat + step) % count
        if is_in(state, other):
            return other
    return seat


def right_of(state: SnapState, seat: int) -> int | None:
    """The nearest player still in on ``seat``'s right (counter-clockwise), or ``None``."""
    count = len(state.players)
    for step in range(1, count):
        other = (seat - step) % count
        if is_in(state, other):
            return other
    return None


# -- matches ---------------------------------------------------------------------------------
def cards_match(first: Card, second: Card, match_by: str) -> bool:
    """Whether two face-up cards match under the ``match`` option (rank, suit or colour)."""
    if match_by == "suit":
        return first.suit == second.suit
    if match_by == "colour":
        return first.suit.is_red == second.suit.is_red
    return first.rank == second.rank


def find_matches(state: SnapState) -> tuple[Match, ...]:
    """Every pair of face-up tops that match, and every top that matches the Snap Pot's top."""
    tops = [(seat, pile[-1]) for seat, pile in enumerate(state.face_up) if pile]
    found: list[Match] = []
    for index, (seat, card) in enumerate(tops):
        for other, other_card in tops[index + 1 :]:
            if cards_match(card, other_card, state.match_by):
                found.append(Match(seat, other, card, other_card))
        if state.pot and cards_match(card, state.pot[-1], state.match_by):
            found.append(Match(seat, POT, card, state.pot[-1]))
    return tuple(found)


def describe(state: SnapState, match: Match, joined: str = "matches") -> str:
    first = f"{state.name(match.first)}'s {match.first_card}"
    if match.with_pot:
        return f"{first} {joined} the Snap Pot's {match.second_card}"
    return f"{first} {joined} {state.name(match.second)}'s {match.second_card}"


def _match_data(state: SnapState, match: Match) -> dict[str, Json]:
    return {
        "players": [state.name(seat) for seat in match.seats()],
        "cards": [str(match.first_card), str(match.second_card)],
        "pot": match.with_pot,
    }


# -- where cards are ---------------------------------------------------------------------------
def locate(state: SnapState, card: Card) -> str:
    """Where ``card`` is, in words."""
    for seat, pile in enumerate(state.face_up):
        if card in pile:
            where = "on top of" if pile[-1] == card else "inside"
            return f"{where} {state.name(seat)}'s face-up pile"
    if card in state.pot:
        return "in the Snap Pot"
    for seat, packets in enumerate(state.face_down):
        if any(card in packet.cards for packet in packets):
            return f"in {state.name(seat)}'s face-down pile (the referee saw it go there)"
    return "not seen since the deal"


def _turned_over(state: SnapState, seat: int) -> tuple[Packet, ...]:
    """``seat``'s face-down pile, or the face-up pile turned over when the face-down one is empty."""
    if state.face_down[seat]:
        return state.face_down[seat]
    pile = state.face_up[seat]
    return (Packet(sort_cards(pile)),) if pile else ()


def possible_flips(state: SnapState, seat: int) -> tuple[Card, ...]:
    """The cards ``seat`` could turn next (several when the referee does not know the order)."""
    packets = _turned_over(state, seat)
    if not packets:
        return ()
    top = packets[0]
    return top.cards if top.cards else sort_cards(state.unseen)


def take_flip(state: SnapState, seat: int, card: Card, event: GameEvent) -> SnapState:
    """``state`` with ``card`` taken from the top of ``seat``'s face-down pile onto their face-up
    pile; a card that cannot be there raises :class:`EventError`."""
    if card not in possible_flips(state, seat):
        raise EventError(f"{event.where()}: {_cannot_flip(state, seat, card)}")
    top, *rest = state.face_down[seat]
    if top.cards:
        top = Packet(tuple(c for c in top.cards if c != card))
        unseen = state.unseen
    else:
        top = Packet(hidden=top.hidden - 1)
        unseen = state.unseen - {card}
    packets = ((top,) if top.size else ()) + tuple(rest)
    face_down = put(state.face_down, seat, packets)
    face_up = put(state.face_up, seat, (*state.face_up[seat], card))
    return replace(state, face_down=face_down, face_up=face_up, unseen=unseen)


def _cannot_flip(state: SnapState, seat: int, card: Card) -> str:
    name = state.name(seat)
    top = _turned_over(state, seat)[0]
    if top.cards and card not in top.cards:
        known = ", ".join(str(c) for c in top.cards)
        which = f"is {known}" if len(top.cards) == 1 else f"is one of {known}"
        where = locate(state, card)
        return f"{name} cannot turn up {card}: their next face-down card {which} ({card} is {where})"
    return f"{name} cannot turn up {card}: it is {locate(state, card)}, so it cannot be in their face-down pile"


# -- moving cards ------------------------------------------------------------------------------
def put(rows: tuple[Any, ...], seat: int, value: Any) -> tuple[Any, ...]:
    return (*rows[:seat], value, *rows[seat + 1 :])


def push_under(state: SnapState, seat: int, packet: Packet) -> SnapState:
    """``packet`` put under ``seat``'s face-down pile (hidden packets side by side merge)."""
    packets = state.face_down[seat]
    if packet.size == 0:
        return state
    if packets and packet.hidden and packets[-1].hidden:
        packets = (*packets[:-1], Packet(hidden=packets[-1].hidden + packet.hidden))
    else:
        packets = (*packets, packet)
    return replace(state, face_down=put(state.face_down, seat, packets))


def gather(state: SnapState, seats: Iterable[int]) -> tuple[SnapState, tuple[Card, ...]]:
    """Pick up the face-up piles of ``seats`` (in that order); returns their cards, bottom first."""
    cards: list[Card] = []
    face_up = state.face_up
    for seat in seats:
        cards += face_up[seat]
        face_up = put(face_up, seat, ())
    return replace(state, face_up=face_up), tuple(cards)


def pay_top_card(state: SnapState, payer: int, payee: int, fresh: int = 0) -> tuple[SnapState, Card | None]:
    """``payer``'s next card (top of the face-down pile, or the bottom of the face-up pile when
    the face-down pile is empty) goes under ``payee``'s face-down pile. Returns the new state and
    the card, or ``None`` when the referee cannot know it. When the top packet holds several known
    cards, the referee cannot tell which one moved: that packet's cards count as unseen again.
    ``fresh``: the cards at the bottom of the payer's face-down pile that penalties settled with this one paid in;
    penalties settled together are paid at once, from the cards each player had (a payer whose face-down pile was
    empty passed on a card just received and kept the face-up one: a review, session 39)."""
    packets = state.face_down[payer]
    if not packets or (fresh >= sum(p.size for p in packets) and state.face_up[payer]):
        card, *rest = state.face_up[payer]
        state = replace(state, face_up=put(state.face_up, payer, tuple(rest)))
        return push_under(state, payee, Packet((card,))), card
    top, *below = packets
    if len(top.cards) == 1:
        state = replace(state, face_down=put(state.face_down, payer, tuple(below)))
        return push_under(state, payee, top), top.cards[0]
    unseen = state.unseen | frozenset(top.cards)
    left = Packet(hidden=top.size - 1)
    packets = ((left,) if left.size else ()) + tuple(below)
    state = replace(state, face_down=put(state.face_down, payer, packets), unseen=unseen)
    return push_under(state, payee, Packet(hidden=1)), None


# -- after every change --------------------------------------------------------------------------
def refresh(state: SnapState, event: GameEvent, reason: str) -> tuple[SnapState, list[Ruling]]:
    """Match alerts for what appeared and what went (``reason`` says why it went), players who
    ran out of cards, the turn moved past them, and the winner."""
    found = find_matches(state)
    rulings = [
        # "No longer a match: Alex's 8H matches Cara's 8C (won by Cara)" read as a contradiction (newcomer audit)
        Ruling("match_gone", Severity.INFO, f"The match of {describe(state, m, 'and')} is over ({reason}).",
               None, event.seq, _match_data(state, m))
        for m in state.matches if m not in found
    ]  # fmt: skip
    rulings += [
        Ruling("match", Severity.ALERT, f"Match! {describe(state, m)}.", None, event.seq, _match_data(state, m))
        for m in found
        if m not in state.matches
    ]
    state = replace(state, matches=found)
    gone = [seat for seat in range(len(state.players)) if is_in(state, seat) and held(state, seat) == 0]
    for seat in gone:
        message = f"{state.name(seat)} has no cards left and is out."
        rulings.append(Ruling("player_out", Severity.INFO, message, state.name(seat), event.seq))
    state = replace(state, out=state.out + tuple((seat, event.seq) for seat in gone))
    if state.phase == "play" and not is_in(state, state.turn):
        state = replace(state, turn=next_in(state, state.turn))
    left = [seat for seat in range(len(state.players)) if is_in(state, seat)]
    if state.phase == "play" and len(left) <= 1:
        winners = tuple(left) if left else tuple(gone)
        state = replace(state, phase="over", winners=winners, finished_seq=event.seq, pending=(), owed=())
        names = " and ".join(state.name(seat) for seat in winners)
        trapped = f" ({len(state.pot)} cards stay trapped in the Snap Pot)" if state.pot else ""
        if len(winners) == 1:
            message = f"{names} holds all the cards and wins{trapped}."
        else:
            message = f"{names} ran out of cards at the same moment, the last players in: they share the win{trapped}."
        rulings.append(Ruling("winner", Severity.INFO, message, names if len(winners) == 1 else None, event.seq))
    return state, rulings
