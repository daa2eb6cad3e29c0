"""Spades referee state: the frozen records, the queries on them (whose turn, which cards are
legal), and the end of a hand (scoring it into the history). Used by :mod:`scorer.spades`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from scorer.cards import Card, Suit
from scorer.events import EventError, GameEvent
from scorer.game import Ruling, Severity, team_name
from scorer.spades_scoring import Rules, TeamScore, game_winner, is_game_end, score_hand
from scorer.spades_tricks import TWO_OF_CLUBS, Trick, legal_cards

__all__ = [
    "BIDDING",
    "EXCHANGE",
    "PLAY",
    "Context",
    "Hand",
    "HandResult",
    "SpadesState",
    "exchange_pending",
    "finish_hand",
    "leader",
    "legal_plays",
    "next_bidder",
    "put",
    "turn",
]

Json = Any
BIDDING, EXCHANGE, PLAY = "bidding", "exchange", "play"
NO_SEATS: tuple[None, None, None, None] = (None, None, None, None)

#: how often a bag penalty is paid in one hand, in words: "11 bags reach the bag limit of 2 five times" (not "2 5")
_WORDS = {3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight", 9: "nine", 10: "ten", 11: "eleven"}


@dataclass(frozen=True)
class Hand:
    """The hand being played. ``holdings`` is each seat's cards when the deal is known, else ``None``."""

    number: int
    dealer: int
    phase: str = BIDDING
    holdings: tuple[frozenset[Card], ...] | None = None
    bids: tuple[int | None, ...] = NO_SEATS
    blind: tuple[bool, ...] = (False, False, False, False)
    exchanged: tuple[tuple[Card, ...] | None, ...] = NO_SEATS
    tricks: tuple[Trick, ...] = ()  # completed tricks
    trick: Trick | None = None  # the trick in progress, once led
    broken: bool = False
    voids: tuple[tuple[tuple[Suit, int], ...], ...] = ((), (), (), ())  # (suit not followed, trick), unproven
    spade_leads: tuple[int | None, ...] = NO_SEATS  # trick where a seat led spades unbroken, unproven

    @property
    def started(self) -> bool:
        return any(b is not None for b in self.bids) or bool(self.tricks) or self.trick is not None

    def played(self) -> dict[Card, tuple[int, int]]:
        """Every card played this hand: card -> (trick number, seat)."""
        tricks = (*self.tricks, self.trick) if self.trick else self.tricks
        return {card: (t.number, seat) for t in tricks for seat, card in t.plays()}

    def taken(self) -> tuple[int, ...]:
        """Tricks won so far, per seat."""
        winners = [t.winner() for t in self.tricks]
        return tuple(winners.count(seat) for seat in range(4))


@dataclass(frozen=True)
class HandResult:
    """A scored hand: one row of the history."""

    number: int
    dealer: int
    entry: str  # "cards" (played card by card) or "score" (score-only)
    bids: tuple[int, ...]
    blind: tuple[bool, ...]
    tricks: tuple[int, ...]
    teams: tuple[TeamScore, TeamScore]


@dataclass(frozen=True)
class SpadesState:
    """The whole game: players (seats 0 & 2 against 1 & 3), rules, next dealer, hand, history."""

    players: tuple[str, ...]
    rules: Rules
    dealer: int = 0  # who deals the next hand (or this one, while it is in progress)
    hand: Hand | None = None
    results: tuple[HandResult, ...] = ()

    @property
    def team_names(self) -> tuple[str, str]:
        p = self.players
        return team_name(p[0], p[2]), team_name(p[1], p[3])

    @property
    def totals(self) -> tuple[int, int]:
        if not self.results:
            return 0, 0
        first, second = self.results[-1].teams
        return first.total, second.total

    @property
    def bag_counts(self) -> tuple[int, int]:
        if not self.results:
            return 0, 0
        first, second = self.results[-1].teams
        return first.bag_count, second.bag_count

    @property
    def winner(self) -> int | None:
        """The winning team (0: seats 0 & 2, 1: seats 1 & 3), once the game is over."""
        return game_winner(self.totals, self.rules) if self.results else None


# -- queries ---------------------------------------------------------------------------------------------
def leader(hand: Hand, rules: Rules) -> int | None:
    """Who leads the next trick (``None``: whoever holds the 2 of clubs, hands unknown)."""
    if hand.tricks:
        return hand.tricks[-1].winner()
    if rules.first_lead == "two_of_clubs":
        if hand.holdings is None:
            return None
        return next(seat for seat in range(4) if TWO_OF_CLUBS in hand.holdings[seat])
    return (hand.dealer + 1) % 4


def next_bidder(hand: Hand) -> int | None:
    """The next seat to bid, from the dealer's left (``None`` when all have bid)."""
    order = [(hand.dealer + 1 + i) % 4 for i in range(4)]
    return next((seat for seat in order if hand.bids[seat] is None), None)


def exchange_pending(hand: Hand, rules: Rules) -> tuple[int, ...]:
    """Seats that still have to pass cards in a Blind Nil exchange (none when both partners bid it)."""
    if not rules.blind_nil_exchange:
        return ()
    seats = [s for s in range(4) if hand.blind[s] != hand.blind[(s + 2) % 4]]
    return tuple(s for s in seats if hand.exchanged[s] is None)


def turn(state: SpadesState) -> int | None:
    """The seat expected to act next (``None``: anyone who holds the 2 of clubs, or nobody)."""
    hand = state.hand
    if state.winner is not None:
        return None
    if hand is None:
        return (state.dealer + 1) % 4
    if hand.phase == BIDDING:
        return next_bidder(hand)
    if hand.phase == PLAY:
        return hand.trick.next_seat if hand.trick else leader(hand, state.rules)
    return None


def legal_plays(state: SpadesState) -> frozenset[Card] | None:
    """The cards the player in turn may play, when the deal is known (else ``None``)."""
    hand = state.hand
    seat = turn(state)
    if hand is None or hand.phase != PLAY or hand.holdings is None or seat is None:
        return None
    first = state.rules.first_lead == "two_of_clubs" and not hand.tricks and hand.trick is None
    led = hand.trick.led if hand.trick else None
    return legal_cards(hand.holdings[seat], led, hand.broken, first)


# -- handler support ----------------------------------------------------------------------------------------
class Context:
    """What an event handler needs: the state, the event, and the rulings said so far."""

    def __init__(self, state: SpadesState, event: GameEvent) -> None:
        self.state, self.event = state, event
        self.rulings: list[Ruling] = []

    def name(self, seat: int) -> str:
        return self.state.players[seat]

    def say(self, code: str, severity: Severity, message: str, seat: int | None = None, **data: Json) -> None:
        player = None if seat is None else self.name(seat)
        self.rulings.append(Ruling(code, severity, message, player, self.event.seq, data))

    def seat(self, key: str = "player") -> int:
        return self.event.player(self.state.players, key)

    def per_player(self, key: str, low: int, high: int, complete: bool = True) -> tuple[int, ...]:
        """A ``{name: number}`` payload as one number per seat (0 for a name left out if not ``complete``)."""
        value = self.event.data.get(key)
        players = self.state.players
        where = f"{self.event.where()}: '{key}'"
        if not isinstance(value, Mapping):
            raise EventError(f'{where} must be an object like {{"{players[0]}": 3, ...}}')
        unknown = [k for k in value if k not in players]
        if unknown:
            raise EventError(f"{where}: {unknown[0]!r} is not one of the players: {', '.join(players)}")
        missing = [p for p in players if p not in value]
        if complete and missing:
            raise EventError(f"{where} has no number for {missing[0]}")
        out = []
        for name in players:
            number = value.get(name, 0)
            if isinstance(number, bool) or not isinstance(number, int) or not low <= number <= high:
                raise EventError(f"{where}: {name}'s number must be a whole number from {low} to {high}")
            out.append(number)
        return tuple(out)


def put(values: tuple[Any, ...], index: int, value: Any) -> tuple[Any, ...]:
    """``values`` with the item at ``index`` replaced."""
    return (*values[:index], value, *values[index + 1 :])


def finish_hand(ctx: Context, hand: Hand, tricks: tuple[int, ...], entry: str) -> SpadesState:
    """Score the hand, add it to the history and pass the deal to the left."""
    state = ctx.state
    bids = tuple(b or 0 for b in hand.bids)
    teams = score_hand(bids, hand.blind, tricks, state.totals, state.bag_counts, state.rules)
    result = HandResult(hand.number, hand.dealer, entry, bids, hand.blind, tricks, teams)
    new = replace(state, hand=None, dealer=(hand.dealer + 1) % 4, results=(*state.results, result))
    parts = [f"{n} {t.points:+d} (total {t.total})" for n, t in zip(state.team_names, teams, strict=True)]
    ctx.say("hand_scored", Severity.INFO, f"Hand {hand.number}: " + ", ".join(parts) + ".")
    for name, team in zip(state.team_names, teams, strict=True):
        if team.bag_penalty:  # "bags reach 5, -200." for 11 bags: twice, and 1 carried (the wording audit, session 40)
            limit, times = state.rules.bag_limit, team.bag_penalty // -state.rules.bag_penalty
            often = "" if times == 1 else " twice" if times == 2 else f" {_WORDS.get(times, times)} times"
            reach = (
                f"{times * limit + team.bag_count} bags reach the bag limit of {limit}{often}"  # not "reach 2 5 times"
            )
            ctx.say("bag_penalty", Severity.INFO, f"{name}: {reach}: {team.bag_penalty}, {team.bag_count} carried.")
    a, b = new.totals
    if new.winner is not None:
        ctx.say("game_won", Severity.INFO, f"{new.team_names[new.winner]} win, {max(a, b)} to {min(a, b)}.")
    elif is_game_end(new.totals, state.rules):
        ctx.say("tie_play_on", Severity.INFO, f"Both teams have {a}: another hand is played.")
    return new
