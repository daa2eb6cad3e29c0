"""Spades: the referee for four players in two partnerships (rules: RULES.md, pagat.com/auctionwhist/spades.html).

Rules. Seats 0 & 2 play against 1 & 3 (teams are named ``"Alex & Charlie"``). Each hand: 13 cards
each; one round of bids from the dealer's left, 0 (**Nil**) to 13, no passing; a **Blind Nil**
(bid 0 before looking) makes the bidder and partner exchange ``blind_nil_exchange`` cards (not
when both partners bid Blind Nil). The dealer's left leads the first trick; players follow suit
if able; the highest spade, else the highest card of the suit led, wins; the winner leads next.
Spades may not be led until **broken** (a spade played on another suit's lead), unless the leader
holds only spades. Scoring (contract, bags, Nil, Blind Nil, bag penalty) is in
:mod:`scorer.spades_scoring`; first to ``target`` wins, the higher score if both pass it in one
hand, and an exact tie plays another hand. The deal passes to the left after each hand.

Options (:data:`scorer.spades_scoring.OPTIONS`): ``target`` 500, ``bag_limit`` 10, ``bag_penalty``
100, ``nil_value`` 100, ``blind_nil_value`` 200, ``blind_nil_requires_deficit`` 0 (off; N: only when
behind by N), ``blind_nil_exchange`` 3 (0/2/3/4), ``failed_nil_tricks`` ``bags_only`` |
``help_contract`` | ``ignored``, ``first_lead`` ``left_of_dealer`` | ``two_of_clubs``, ``mercy`` 0 (off;
−N: a team at or below −N loses).

Events (``docs/games/spades.md``):

* ``deal`` ``{dealer?, hands?: {name: [13 cards]}}`` starts a hand; with ``hands`` every play is
  checked at once, without them a broken rule shows when the player later shows the suit
  (a ``revoke`` naming the trick). The first hand's dealer is the first player unless named.
* ``bid`` ``{player, bid: 0-13, blind?: true}`` (a first bid also starts a hand, hands unknown);
* ``exchange`` ``{player, cards}`` the cards a Blind Nil bidder or partner passes across;
* ``play`` ``{player, card}``; a trick completes after four cards;
* ``claim`` ``{player}`` or ``{tricks: {name: n}}`` the remaining tricks, ending the hand;
* ``hand`` ``{bids: {name: n}, tricks: {name: n}, blind?: [names]}`` a whole hand, score-only.

A play the referee refuses (out of turn, a card already played, not following suit or leading
spades unbroken when the hands are known) is a ruling and does not count: the table takes it
back. Plays that count but break a rule found out later (revokes) are rulings on the later play.
A bid out of turn is a ruling but stands (bids do not depend on their order); a second bid by
the same player is ignored. Queries: :func:`turn` (whose turn) and :func:`legal_plays`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from scorer.cards import Card
from scorer.events import EventError, GameEvent
from scorer.game import GameSpec, Ruling, ScoreSheet, Severity
from scorer.registry import register
from scorer.spades_play import SUIT_NAMES, claim, play
from scorer.spades_scoring import OPTIONS, Rules, blind_nil_allowed
from scorer.spades_state import (
    EXCHANGE,
    PLAY,
    Context,
    Hand,
    HandResult,
    SpadesState,
    exchange_pending,
    finish_hand,
    legal_plays,
    next_bidder,
    put,
    turn,
)

__all__ = ["GAME", "Spades", "SpadesState", "legal_plays", "turn"]

Json = Any


class Spades:
    spec = GameSpec(
        name="spades",
        title="Spades",
        min_players=4,
        max_players=4,
        simultaneous=False,
        event_types=("deal", "bid", "exchange", "play", "claim", "hand"),
        options=OPTIONS,
        teams=True,
        rules_summary="Partnership trick-taking: bid, take tricks, spades trump; first team to the target (500) wins.",
    )

    def initial_state(self, players: Sequence[str], options: Mapping[str, Json]) -> SpadesState:
        return SpadesState(tuple(players), Rules.from_options(options))

    def apply(self, state: SpadesState, event: GameEvent) -> tuple[SpadesState, list[Ruling]]:
        handlers = {
            "deal": _deal,
            "bid": _bid,
            "exchange": _exchange,
            "play": play,
            "claim": claim,
            "hand": _hand,
        }
        handler = handlers.get(event.type)
        if handler is None:
            raise EventError(f"{event.where()}: Spades has no event '{event.shown_type}' ({', '.join(handlers)})")
        if state.winner is not None:
            a, b = state.totals if state.winner == 0 else reversed(state.totals)  # the winner's total first
            raise EventError(
                f"{event.where()}: the game is over ({state.team_names[state.winner]} won, {a} to {b}); "
                "undo or correct an earlier event to change it"
            )
        ctx = Context(state, event)
        new_state = handler(ctx)
        return new_state, ctx.rulings

    def score(self, state: SpadesState) -> ScoreSheet:
        names = state.team_names
        history = tuple(_history_row(state, result) for result in state.results)
        winner = state.winner
        return ScoreSheet(
            totals=dict(zip(names, state.totals, strict=True)),
            history=history,
            winner=None if winner is None else (state.players[winner], state.players[winner + 2]),
            finished=winner is not None,
            teams={names[0]: (state.players[0], state.players[2]), names[1]: (state.players[1], state.players[3])},
        )

    def view(self, state: SpadesState) -> dict[str, Json]:
        return _view(state)


def _history_row(state: SpadesState, result: HandResult) -> dict[str, Json]:
    players = state.players
    return {
        "hand": result.number,
        "dealer": players[result.dealer],
        "entry": result.entry,
        "bids": dict(zip(players, result.bids, strict=True)),
        "blind_nil": [p for p, b in zip(players, result.blind, strict=True) if b],
        "tricks": dict(zip(players, result.tricks, strict=True)),
        "teams": {name: team.to_json() for name, team in zip(state.team_names, result.teams, strict=True)},
    }


def _view(state: SpadesState) -> dict[str, Json]:
    """What the referee's dashboard shows: phase, whose turn, bids, the trick on the table, totals."""
    players, hand, names = state.players, state.hand, state.team_names
    seat, legal, winner = turn(state), legal_plays(state), state.winner
    phase = "game_over" if winner is not None else "between_hands" if hand is None else hand.phase
    last = hand.tricks[-1] if hand and hand.tricks else None
    bids = hand.bids if hand else (None, None, None, None)
    return {
        "phase": phase,
        "hand": hand.number if hand else len(state.results) + 1,
        "dealer": players[hand.dealer if hand else state.dealer],
        "turn": None if seat is None else players[seat],
        "bids": dict(zip(players, bids, strict=True)),
        "blind_nil": [p for p, b in zip(players, hand.blind, strict=True) if b] if hand else [],
        "contracts": {n: sum(b or 0 for b in bids[t::2]) for t, n in enumerate(names)},
        "exchange_pending": [players[s] for s in exchange_pending(hand, state.rules)]
        if hand and hand.phase == EXCHANGE
        else [],
        "tricks": dict(zip(players, hand.taken() if hand else (0, 0, 0, 0), strict=True)),
        "trick": [{"player": players[s], "card": str(c)} for s, c in hand.trick.plays()] if hand and hand.trick else [],
        "last_trick": None
        if last is None
        else {"number": last.number, "cards": [str(c) for c in last.cards], "winner": players[last.winner()]},
        "spades_broken": bool(hand and hand.broken),
        "gathered": _cards(frozenset(c for t in hand.tricks for _, c in t.plays())) if hand else [],
        "hands": _hands(state),
        "legal": None if legal is None else _cards(legal),
        "watch": _watch(state),
        "totals": dict(zip(names, state.totals, strict=True)),
        "bags": dict(zip(names, state.bag_counts, strict=True)),
        "winner": None if winner is None else names[winner],
    }


def _hands(state: SpadesState) -> dict[str, list[str]] | None:
    hand = state.hand
    if hand is None or hand.holdings is None:
        return None
    return {p: _cards(h) for p, h in zip(state.players, hand.holdings, strict=True)}


def _cards(cards: frozenset[Card]) -> list[str]:
    """Cards sorted for display: spades, hearts, diamonds, clubs; high to low."""
    order = list(SUIT_NAMES)
    return [str(c) for c in sorted(cards, key=lambda c: (order.index(c.suit), -c.rank.high))]


def _watch(state: SpadesState) -> list[dict[str, Json]]:
    """Suspicions the referee is watching for (hands unknown): a suit not followed, spades led unbroken."""
    hand, out = state.hand, list[dict[str, Json]]()
    if hand is None:
        return out
    for seat, player in enumerate(state.players):
        for suit, number in hand.voids[seat]:
            out.append({"player": player, "trick": number, "suit": suit.value, "why": "did not follow suit"})
        if hand.spade_leads[seat] is not None:
            out.append({"player": player, "trick": hand.spade_leads[seat], "suit": "S", "why": "led spades unbroken"})
    return out


# -- starting a hand, bidding, the Blind Nil exchange -------------------------------------------------
def _new_hand(
    state: SpadesState, dealer: int | None = None, holdings: tuple[frozenset[Card], ...] | None = None
) -> Hand:
    return Hand(len(state.results) + 1, state.dealer if dealer is None else dealer, holdings=holdings)


def _current_hand(ctx: Context) -> Hand:
    return ctx.state.hand or _new_hand(ctx.state)


def _deal(ctx: Context) -> SpadesState:
    state, event = ctx.state, ctx.event
    if state.hand is not None and state.hand.started:
        raise EventError(f"{event.where()}: hand {state.hand.number} is under way; finish it (or undo) before a deal")
    dealer = ctx.seat("dealer") if event.has("dealer") else state.dealer
    due = (state.results[-1].dealer + 1) % 4 if state.results else dealer  # not a wrong re-deal's dealer
    if dealer != due:
        ctx.say("wrong_dealer", Severity.FOUL, f"It was {ctx.name(due)}'s turn to deal.", dealer)
    holdings = _parse_hands(ctx) if event.has("hands") else None
    return replace(state, dealer=dealer, hand=_new_hand(state, dealer, holdings))


def _parse_hands(ctx: Context) -> tuple[frozenset[Card], ...]:
    event, players = ctx.event, ctx.state.players
    value = event.data["hands"]
    if not isinstance(value, Mapping) or sorted(value) != sorted(players):
        raise EventError(f"{event.where()}: 'hands' must give the 13 cards of each of {', '.join(players)}")
    holder: dict[Card, str] = {}
    holdings = []
    for name in players:
        cards = GameEvent(event.seq, event.ts, event.source, "deal", {"cards": value[name]}).cards()
        if len(cards) != 13:
            raise EventError(f"{event.where()}: {name} is dealt {len(cards)} cards, not 13")
        for card in cards:
            if card in holder:
                raise EventError(f"{event.where()}: {card} is dealt twice (to {holder[card]} and {name})")
            holder[card] = name
        holdings.append(frozenset(cards))
    return tuple(holdings)


def _bid(ctx: Context) -> SpadesState:
    state, event = ctx.state, ctx.event
    seat, bid = ctx.seat(), event.integer("bid", 0, 13)
    blind = event.flag("blind", False)
    if blind and bid != 0:
        raise EventError(f"{event.where()}: a Blind Nil bid is 0, not {bid}")
    hand = _current_hand(ctx)
    name = ctx.name(seat)
    if hand.bids[seat] is not None:
        said = f"{name} already bid {_bid_text(hand, seat)}; ignored: to change that bid, edit it on the Log tab."
        ctx.say("already_bid", Severity.ERROR, said, seat)  # it said only "ignored." (the wording audit, session 40)
        return state
    if blind and not blind_nil_allowed(seat % 2, state.totals, state.rules):
        need = state.rules.blind_nil_requires_deficit
        ctx.say("blind_nil_not_allowed", Severity.FOUL, f"Blind Nil needs a team behind by {need}; bid again.", seat)
        return state
    expected = next_bidder(hand)
    if seat != expected and expected is not None:
        ctx.say("bid_out_of_turn", Severity.FOUL, f"{name} bid before {ctx.name(expected)}; the bid stands.", seat)
    hand = replace(hand, bids=put(hand.bids, seat, bid), blind=put(hand.blind, seat, blind))
    if next_bidder(hand) is None:
        hand = replace(hand, phase=EXCHANGE if exchange_pending(hand, state.rules) else PLAY)
    return replace(state, hand=hand)


def _bid_text(hand: Hand, seat: int) -> str:
    bid = hand.bids[seat]
    return "Blind Nil" if hand.blind[seat] else "Nil" if bid == 0 else str(bid)


def _exchange(ctx: Context) -> SpadesState:
    state, event = ctx.state, ctx.event
    seat, cards = ctx.seat(), event.cards()
    if len(set(cards)) != len(cards):
        raise EventError(f"{event.where()}: a card is named twice")
    hand, name, want = state.hand, ctx.name(seat), state.rules.blind_nil_exchange
    if hand is None or hand.phase != EXCHANGE or seat not in exchange_pending(hand, state.rules):
        ctx.say("exchange_not_allowed", Severity.ERROR, f"{name} has no Blind Nil exchange to make now.", seat)
        return state
    if len(cards) != want:
        ctx.say("exchange_wrong_count", Severity.FOUL, f"{name} must pass {want} cards, not {len(cards)}.", seat)
        return state
    holdings = hand.holdings
    if holdings is not None:
        missing = [c for c in cards if c not in holdings[seat]]
        if missing:
            raise EventError(f"{event.where()}: {name} does not hold {missing[0]}")
        partner = (seat + 2) % 4
        holdings = put(put(holdings, seat, holdings[seat] - set(cards)), partner, holdings[partner] | set(cards))
    hand = replace(hand, holdings=holdings, exchanged=put(hand.exchanged, seat, tuple(cards)))
    if not exchange_pending(hand, state.rules):
        hand = replace(hand, phase=PLAY)
    return replace(state, hand=hand)


# -- score-only entry ----------------------------------------------------------------------------------
def _hand(ctx: Context) -> SpadesState:
    """A whole hand in score-only mode: bids, tricks and the Blind Nil bidders."""
    state, event = ctx.state, ctx.event
    if state.hand is not None and state.hand.started:
        raise EventError(f"{event.where()}: hand {state.hand.number} is being played card by card; finish it first")
    bids, tricks = ctx.per_player("bids", 0, 13), ctx.per_player("tricks", 0, 13)
    blind_names = event.items("blind") if event.has("blind") else []
    for index, name in enumerate(blind_names):
        if name not in state.players:
            raise EventError(f"{event.where()}: 'blind': {name!r} is not one of the players")
        if name in blind_names[:index]:
            raise EventError(f"{event.where()}: 'blind' names {name} twice")
        if bids[state.players.index(name)] != 0:
            raise EventError(f"{event.where()}: {name} is listed as Blind Nil but bid more than 0")
    blind = tuple(p in blind_names for p in state.players)
    if sum(tricks) != 13:
        ctx.say("tricks_not_13", Severity.ERROR, f"The tricks add up to {sum(tricks)}, not 13; hand not scored.")
        return state
    for seat in range(4):
        if blind[seat] and not blind_nil_allowed(seat % 2, state.totals, state.rules):
            need = state.rules.blind_nil_requires_deficit
            msg = f"Blind Nil needs a team behind by {need}; hand not scored."
            ctx.say("blind_nil_not_allowed", Severity.FOUL, msg, seat)
            return state
    hand = replace(_current_hand(ctx), bids=bids, blind=blind)
    return finish_hand(ctx, hand, tricks, "score")


GAME = register(Spades())
