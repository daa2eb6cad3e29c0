"""Spit between the plays: laying out, ending a round, sharing the spit piles, picking up,
and the two ways to win (see :mod:`scorer.spit` for the rules and the interpretations)."""

from __future__ import annotations

from dataclasses import replace

from scorer.cards import Card
from scorer.game import Ruling, Severity
from scorer.spit_table import (
    DECK,
    SLOTS,
    Phase,
    RoundEnd,
    RoundRecord,
    Side,
    Slot,
    SpitState,
    is_stalled,
    pile_name,
)

__all__ = [
    "FULL_LAYOUT",
    "POINTS_TARGET",
    "after_change",
    "end_round",
    "is_standard_layout",
    "layout_slots",
    "share_piles",
    "start_round_if_ready",
]

FULL_LAYOUT = (1, 2, 3, 4, 5)  # the stock piles of a full layout: 15 cards
POINTS_TARGET = 100  # ``scoring: points``: the game ends when anyone reaches this


def is_standard_layout(counts: tuple[int, ...], holding: int) -> bool:
    """Piles of 1-5 cards (15 in all) when the player holds 15 or more; with fewer, every card
    goes into the stock piles "as far as the cards go": never more cards in a pile than a full
    layout has (the largest pile at most 5, the next at most 4, ...), no spit cards left over."""
    piles = sorted((count for count in counts if count), reverse=True)
    if sum(piles) != min(holding, sum(FULL_LAYOUT)) or len(piles) > SLOTS:
        return False
    return all(count <= most for count, most in zip(piles, sorted(FULL_LAYOUT, reverse=True), strict=False))


def start_round_if_ready(state: SpitState, seq: int) -> tuple[SpitState, list[Ruling]]:
    """Once both players have laid out: decide one or two spit piles and call for the opening Spit!"""
    if not all(side.laid_out for side in state.sides):
        return state, []
    short = [seat for seat, side in enumerate(state.sides) if side.spit == 0]
    state = replace(state, phase=Phase.START, short=short[0] if short else None)
    if short:
        spitter = state.players[1 - short[0]]
        message = (
            f"Both laid out. {state.players[short[0]]} has no spit cards, so this round uses one spit pile: "
            f"{spitter} says Spit! and turns a spit card."
        )
    else:
        message = "Both laid out: say Spit! together and turn a spit card each."
    return state, [Ruling("round_ready", Severity.INFO, message, None, seq)]


def after_change(state: SpitState, seq: int) -> tuple[SpitState, list[Ruling]]:
    """After anything that changes the table in play: call "Spit!" or end a blocked round. While a player the last
    call named has still to turn their card, that call stands: no new one (it named both again after one card went
    alone, and the camera then gave the other player's card, turned onto the same pile, to the first)."""
    if not is_stalled(state) or any(state.sides[seat].spit > 0 for seat in state.called):
        return state, []
    seats = tuple(seat for seat, side in enumerate(state.sides) if side.spit > 0)
    if seats:
        who = " and ".join(state.players[seat] for seat in seats)
        message = f"Spit! Nobody can play: {who} turn{'s' if len(seats) == 1 else ''} a spit card."
        return replace(state, called=seats), [Ruling("spit_call", Severity.ALERT, message, None, seq)]
    return end_round(state, RoundEnd("blocked", None, seq))


def end_round(state: SpitState, end: RoundEnd) -> tuple[SpitState, list[Ruling]]:
    """The round is over: share the spit piles at once where the rules decide who takes which,
    otherwise wait for the slap."""
    state = replace(state, phase=Phase.SLAP, ended=end, called=())
    if end.first_out is not None:
        opening = f"{state.players[end.first_out]} has played every stock card: the round is over."
    else:
        opening = "Nobody can play and nobody has spit cards left: the round is over."
    takes = _automatic_takes(state, end)
    if takes is None:
        message = f"{opening} Slap the smaller spit pile!"
        return state, [Ruling("round_over", Severity.ALERT, message, None, end.seq)]
    state, rulings = share_piles(state, takes, end.seq)
    return state, [Ruling("round_over", Severity.ALERT, opening, None, end.seq), *rulings]


def _automatic_takes(state: SpitState, end: RoundEnd) -> tuple[int | None, ...] | None:
    """Who takes each spit pile when no slap is needed (``None`` in the tuple: nobody)."""
    sizes = [len(cards) for cards in state.piles]
    if state.short is not None:
        if end.first_out is not None:
            loser = 1 - end.first_out
        else:  # blocked: the player further behind (more stock left) takes the pile
            stock = [side.stock_cards for side in state.sides]
            loser = 1 - state.short if stock[0] == stock[1] else stock.index(max(stock))
        return (loser,)
    if state.rules.slap == "winner_takes_smaller" and end.first_out is not None:
        winner = end.first_out
        smaller = winner if sizes[0] == sizes[1] else sizes.index(min(sizes))
        return tuple(winner if pile == smaller else 1 - winner for pile in range(2))
    return None


def share_piles(
    state: SpitState, takes: tuple[int | None, ...], seq: int, note: str = "", first: int | None = None
) -> tuple[SpitState, list[Ruling]]:
    """Each player takes the spit piles given by ``takes`` (pile -> seat) and picks up; the
    message names ``first`` (the slapper) first."""
    took = [0, 0]
    gained: list[frozenset[Card]] = [frozenset(), frozenset()]
    for pile, seat in enumerate(takes):
        if seat is None:
            continue
        took[seat] += len(state.piles[pile])
        gained[seat] |= frozenset(placed.card for placed in state.piles[pile])
    held = tuple(side.stock_cards + side.spit for side in state.sides)
    sides = tuple(
        Side(hand=side.cards + took[seat], known=side.known | frozenset(side.tops) | gained[seat])
        for seat, side in enumerate(state.sides)
    )
    points = held if state.rules.scoring == "points" else None
    assert state.ended is not None
    record = RoundRecord(
        state.round,
        state.ended.reason,
        state.ended.first_out,
        state.single_pile,
        held,
        tuple(took),
        tuple(side.hand for side in sides),
        points,
    )
    totals = state.points if points is None else tuple(a + b for a, b in zip(state.points, points, strict=True))
    state = replace(state, sides=sides, piles=(), short=None, history=(*state.history, record), points=totals)
    rulings = [Ruling("round_result", Severity.INFO, note + _result_text(state, takes, took, first), None, seq)]
    state, more = _game_over_or_next(state, seq)
    return state, rulings + more


def _result_text(state: SpitState, takes: tuple[int | None, ...], took: list[int], first: int | None) -> str:
    order = sorted(range(len(takes)), key=lambda pile: takes[pile] != first)
    parts = []
    for pile in order:
        seat = takes[pile]
        if seat is not None:
            parts.append(f"{state.players[seat]} takes {pile_name(pile)} ({took[seat]} cards)")
    holding = ", ".join(f"{name} {side.hand}" for name, side in zip(state.players, state.sides, strict=True))
    return f"{'; '.join(parts)}. Cards for the next layout: {holding}."


def _game_over_or_next(state: SpitState, seq: int) -> tuple[SpitState, list[Ruling]]:
    hands = [side.hand for side in state.sides]
    if state.rules.scoring == "points":
        if max(state.points) >= POINTS_TARGET:
            low = min(state.points)
            winner = tuple(seat for seat, total in enumerate(state.points) if total == low)
            scores = ", ".join(f"{name} {total}" for name, total in zip(state.players, state.points, strict=True))
            names = " and ".join(state.players[seat] for seat in winner)
            message = f"{POINTS_TARGET} points reached ({scores}): {names} win{'s' if len(winner) == 1 else ''}."
            return _over(state, winner, message, seq)
        if 0 in hands:  # someone is out of cards: a fresh deal of 26 each
            sides = tuple(Side(hand=len(DECK) // 2) for _ in state.sides)
            state = replace(state, sides=sides, phase=Phase.LAYOUT, ended=None, round=state.round + 1)
            message = f"{state.players[hands.index(0)]} is out of cards: shuffle all 52 and deal 26 each."
            return state, [Ruling("fresh_deal", Severity.INFO, message, None, seq)]
    elif 0 in hands:
        seat = hands.index(0)
        return _over(state, (seat,), f"{state.players[seat]} has no cards left and wins the game!", seq)
    return replace(state, phase=Phase.LAYOUT, ended=None, round=state.round + 1), []


def _over(state: SpitState, winner: tuple[int, ...], message: str, seq: int) -> tuple[SpitState, list[Ruling]]:
    state = replace(state, phase=Phase.OVER, winner=winner, ended=None)
    player = state.players[winner[0]] if len(winner) == 1 else None
    return state, [Ruling("game_over", Severity.INFO, message, player, seq)]


def layout_slots(counts: tuple[int, ...]) -> tuple[Slot, ...]:
    """Five stock slots of face-down piles of the given sizes (the tops are turned up next)."""
    return tuple(Slot(count) for count in counts) + (Slot(),) * (SLOTS - len(counts))
