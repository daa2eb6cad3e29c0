"""Spades card play: the ``play`` and ``claim`` events of :mod:`scorer.spades`.

With the deal known, a play is checked at once (turn, follow suit, spades broken, the 2 of
clubs lead) and an illegal card does not count. Without it, plays count as the camera reports
them, and what a player failed to do shows later: a player who did not follow a suit and later
plays that suit revoked (the ruling names the trick); a player who led spades before they were
broken and later plays another suit held that suit when leading. A card already played this hand
is refused with an ``error`` ruling (the same physical card cannot be played twice; counting it
would break the 52-card accounting).
"""

from __future__ import annotations

from dataclasses import replace

from scorer.cards import Card, Suit
from scorer.events import EventError
from scorer.game import Severity
from scorer.spades_state import (
    BIDDING,
    EXCHANGE,
    PLAY,
    Context,
    Hand,
    SpadesState,
    exchange_pending,
    finish_hand,
    leader,
    put,
)
from scorer.spades_tricks import TWO_OF_CLUBS, Trick, legal_cards

__all__ = ["SUIT_NAMES", "claim", "play"]

SUIT_NAMES = {Suit.SPADES: "spades", Suit.HEARTS: "hearts", Suit.DIAMONDS: "diamonds", Suit.CLUBS: "clubs"}


def play(ctx: Context) -> SpadesState:
    """A card played by a player: checked, added to the trick; the fourth card completes it."""
    state, seat, card = ctx.state, ctx.seat(), ctx.event.card()
    name, hand = ctx.name(seat), state.hand
    if hand is None or hand.phase == BIDDING:
        ctx.say(
            "play_before_bidding", Severity.FOUL, f"{name} played {card} before the bidding ended; take it back.", seat
        )
        return state
    unexchanged = hand.phase == EXCHANGE
    checked = _check(ctx, _without_exchange(hand) if unexchanged else hand, seat, card)
    if checked is None:
        return state  # a play that does not count changes nothing, not even a pending exchange
    if unexchanged:
        _say_exchange_skipped(ctx, hand)
    hand = checked
    number = len(hand.tricks) + 1
    trick = (hand.trick or Trick(number, seat)).add(card)
    hand = replace(hand, trick=trick, broken=hand.broken or card.suit is Suit.SPADES)
    if not trick.complete:
        return replace(state, hand=hand)
    winner = trick.winner()
    best = trick.cards[(winner - trick.leader) % 4]
    ctx.say("trick_won", Severity.INFO, f"{ctx.name(winner)} wins trick {number} with {best}.", winner, trick=number)
    hand = replace(hand, tricks=(*hand.tricks, trick), trick=None)
    if len(hand.tricks) == 13:
        return finish_hand(ctx, hand, hand.taken(), "cards")
    return replace(state, hand=hand)


def _check(ctx: Context, hand: Hand, seat: int, card: Card) -> Hand | None:
    """The hand ready to take ``card`` from ``seat``, or ``None`` (with a ruling) if it does not count."""
    name, rules = ctx.name(seat), ctx.state.rules
    where = hand.played().get(card)
    if where is not None:
        number, by = where
        msg = f"{card} was already played by {ctx.name(by)} in trick {number}; this play does not count."
        ctx.say("card_already_played", Severity.ERROR, msg, seat, trick=number)
        return None
    if hand.holdings is not None and card not in hand.holdings[seat]:
        holder = next(s for s in range(4) if card in hand.holdings[s])
        raise EventError(f"{ctx.event.where()}: {name} cannot play {card}: {ctx.name(holder)} holds it")
    expected = hand.trick.next_seat if hand.trick else leader(hand, rules)
    if expected is not None and seat != expected:
        msg = f"{name} played {card} out of turn: it is {ctx.name(expected)}'s turn; take it back."
        ctx.say("play_out_of_turn", Severity.FOUL, msg, seat)
        return None
    first = rules.first_lead == "two_of_clubs" and not hand.tricks and hand.trick is None
    if first and card != TWO_OF_CLUBS:
        msg = f"The first trick is led with the 2 of clubs, not {card}; take it back."
        ctx.say("first_lead_two_of_clubs", Severity.FOUL, msg, seat)
        return None
    if hand.holdings is None:
        return _detect(ctx, hand, seat, card)
    led = hand.trick.led if hand.trick else None
    if card not in legal_cards(hand.holdings[seat], led, hand.broken, first):
        if led is None:
            msg = f"{name} may not lead spades before they are broken while holding another suit; take {card} back."
            ctx.say("spades_not_broken", Severity.FOUL, msg, seat)
        else:
            msg = f"{name} holds {SUIT_NAMES[led]} and must follow suit; take {card} back."
            ctx.say("must_follow_suit", Severity.FOUL, msg, seat, suit=led.value)
        return None
    return replace(hand, holdings=put(hand.holdings, seat, hand.holdings[seat] - {card}))


def _detect(ctx: Context, hand: Hand, seat: int, card: Card) -> Hand:
    """Hands unknown: find earlier broken rules that this card proves, and note what it may hide."""
    name, number = ctx.name(seat), len(hand.tricks) + 1
    voids = list(hand.voids[seat])
    for suit, trick in hand.voids[seat]:
        if suit is card.suit:
            msg = f"Revoke in trick {trick}: {name} did not follow {SUIT_NAMES[suit]} there but now plays {card}."
            ctx.say("revoke", Severity.FOUL, msg, seat, trick=trick, suit=suit.value)
            voids.remove((suit, trick))
    spade_leads = hand.spade_leads
    led_at = spade_leads[seat]
    if led_at is not None and card.suit is not Suit.SPADES:
        msg = f"{name} led spades in trick {led_at} before they were broken while holding {card}."
        ctx.say("spades_led_before_broken", Severity.FOUL, msg, seat, trick=led_at)
        spade_leads = put(spade_leads, seat, None)
    led = hand.trick.led if hand.trick else None
    if led is not None and card.suit is not led:  # each trick not followed is a revoke of its own, if proved
        voids.append((led, number))
    if led is None and card.suit is Suit.SPADES and not hand.broken:
        spade_leads = put(spade_leads, seat, number)
    return replace(hand, voids=put(hand.voids, seat, tuple(voids)), spade_leads=spade_leads)


def _without_exchange(hand: Hand) -> Hand:
    """Play began with the Blind Nil exchange unrecorded (the camera cannot see it): the dealt hands are unknown."""
    return replace(hand, phase=PLAY, holdings=None)


def _say_exchange_skipped(ctx: Context, hand: Hand) -> None:
    names = " and ".join(ctx.name(s) for s in exchange_pending(hand, ctx.state.rules))
    if hand.holdings is not None:
        msg = f"Play began before the Blind Nil exchange of {names} was recorded; the dealt hands no longer apply."
        ctx.say("exchange_missing", Severity.ERROR, msg)
    else:
        ctx.say("exchange_not_recorded", Severity.INFO, f"The Blind Nil exchange of {names} was not recorded.")


def claim(ctx: Context) -> SpadesState:
    """The remaining tricks claimed (``player`` takes them all, or ``tricks`` per player); ends the hand."""
    state, event, hand = ctx.state, ctx.event, ctx.state.hand
    if hand is None or hand.phase == BIDDING:
        raise EventError(f"{event.where()}: no hand is being played, so there is nothing to claim")
    remaining = 13 - len(hand.tricks)
    if event.has("tricks"):
        claimed = ctx.per_player("tricks", 0, 13, complete=False)
    else:
        claimed = put((0, 0, 0, 0), ctx.seat(), remaining)
    if sum(claimed) != remaining:
        msg = f"The claim gives {sum(claimed)} tricks but {remaining} remain; it is ignored."
        ctx.say("claim_does_not_add_up", Severity.ERROR, msg)
        return state
    tricks = tuple(a + b for a, b in zip(hand.taken(), claimed, strict=True))
    return finish_hand(ctx, replace(hand, trick=None), tricks, "cards")
