"""Ten (AEG, 2021): the referee and the exact end count, for 1 to 5 players.

Rules (``shared/RULES.md``, Ten; card notation in :mod:`scorer.tencards`; events and rulings in
``docs/games/ten.md``):

* The 129-card deck (fewer with 1-3 players) is drawn one card at a time into the active player's
  **tableau**. Number cards add their value to the running total, currency cards subtract theirs.
  **Bust** when the total reaches 11 (a number card did it) or when the currency cards alone reach
  11 (a currency card did it).
* A **wild** (``R#``, ``*7``, ``*#``) is not laid in the tableau: it goes to **auction**. Starting
  left of the active player each player bids once (more than the best bid so far) or passes; the
  active player bids last; the best bid pays and takes the wild; then the turn goes on.
* **Stop** with a prize: ``numbers`` (take the number cards; every other player gains the
  tableau's currency in tokens; then one **buy** from the market) or ``currency`` (take the
  currency in tokens; the number cards go to the market; no buy).
* **Bust**: the number cards go to the market and the player takes a bust token. A number bust
  pays the others the tableau's currency; a currency bust pays nobody.
* Nobody holds more than ``token_cap`` (10) currency tokens; the excess is not collected (bust
  tokens do not count).
* **Buy** a market card for its number: currency tokens, bust tokens (worth 3, never split;
  overpayment is lost) and collected cards (1 each). Not a colour and number already held.
* **End**: the turn that draws the last card is the last; then, starting left of that player,
  everyone gets one last buy.
* **Score** (:mod:`scorer.ten_scoring`): per colour the longest run of consecutive numbers, 1 point
  a card, a complete 1-9 scores ``complete_run`` (10); wilds placed for the best total. Ties: most
  currency tokens, then fewest collected cards, then shared.

Options: ``complete_run_bonus`` (10: what a complete 1-9 run scores), ``token_cap`` (10),
``currency_subtracts`` (true: currency cards lower the running total).

Events (``player`` is a name; seats are the order of the players, the first one starts):

* ``draw`` ``{card, player?}`` — the active player draws ``card`` (checked against what is left);
  a ``draw`` during a buy phase means the buyer passed;
* ``stop`` ``{prize: "numbers" | "currency", player?}``;
* ``auction_bid`` ``{player, bid, pay?}`` and ``auction_pass`` ``{player}``;
* ``buy`` ``{player, card, pay?}`` and ``pass_buy`` ``{player}`` — ``pay`` is
  ``{tokens, bust_tokens, cards}``; without it the price is paid in currency tokens;
* ``end`` ``{}`` — the table declares the draw pile finished: this turn (or, between turns, the
  last one) was the last, and the last buys follow;
* ``final`` ``{players: {name: {cards, tokens, bust_tokens?}}}`` — score-only mode: the table
  played on its own and gives each player's collection; standings out.

Readings where the rules are silent (``docs/games/ten.md`` has them all): a bid may be 0; a wild
nobody bids on is discarded; spent cards, currency cards and unsold wilds go to a discard pile; a
wild drawn as the last card with nothing else drawn ends the turn with nothing to take.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from scorer.events import EventError, GameEvent
from scorer.game import GameSpec, Option, Ruling, ScoreSheet, Severity
from scorer.registry import register
from scorer.ten_sheet import score_sheet, table_view
from scorer.ten_state import (
    BUST_TOKENS,
    CURRENCY_TOKENS,
    START_TOKENS,
    Auction,
    Holding,
    Payment,
    Phase,
    TenRules,
    TenState,
    TurnRow,
    count_field,
    deck_counts,
    gain,
    read_card,
    read_cards,
    read_payment,
    seats_after,
    sorted_cards,
)
from scorer.tencards import TenCard, TenKind

__all__ = ["GAME", "Ten", "TenState"]

Json = Any
Result = tuple[TenState, list[Ruling]]
BUST_AT = 11

SPEC = GameSpec(
    name="ten",
    title="Ten",
    min_players=1,
    max_players=5,
    simultaneous=False,
    event_types=("draw", "stop", "auction_bid", "auction_pass", "buy", "pass_buy", "end", "final"),
    options=(
        Option("complete_run_bonus", 10, "points for a complete 1-9 run in one colour", "int", low=9, high=30),
        Option("token_cap", 10, "the most currency tokens a player may hold", "int", low=5, high=CURRENCY_TOKENS),
        Option("currency_subtracts", True, "currency cards lower the running total", "bool"),
    ),
    rules_summary="Draw until you stop or bust; take the numbers or the currency; buy; auction wilds; longest runs.",
)


def _ruling(code: str, severity: Severity, message: str, player: str | None, event: GameEvent, **data: Json) -> Ruling:
    return Ruling(code, severity, message, player, event.seq, data)


class Ten:
    """The referee. Each handler returns the new state and its rulings; a foul leaves the state as it was."""

    spec = SPEC

    def initial_state(self, players: Sequence[str], options: Mapping[str, Json]) -> TenState:
        names = tuple(players)
        rules = TenRules(options["complete_run_bonus"], options["token_cap"], options["currency_subtracts"])
        return TenState(
            players=names,
            rules=rules,
            deck=deck_counts(len(names)),
            holdings=tuple(Holding() for _ in names),
            supply_tokens=CURRENCY_TOKENS - START_TOKENS * len(names),
            supply_bust=BUST_TOKENS,
        )

    def apply(self, state: TenState, event: GameEvent) -> Result:
        if event.type not in SPEC.event_types:
            raise EventError(f"{event.where()}: Ten has no event '{event.shown_type}'")
        handler: Callable[[TenState, GameEvent], Result] = getattr(self, "_on_" + event.type)
        if state.phase is Phase.OVER and event.type != "draw":
            return state, [_ruling("game_over", Severity.FOUL, "The game is over.", None, event)]
        return handler(state, event)

    # -- drawing --------------------------------------------------------------------------
    def _on_draw(self, state: TenState, event: GameEvent) -> Result:
        card = read_card(event)
        if state.count_in_deck(card) == 0:
            if state.deck_left == 0:
                raise EventError(f"{event.where()}: the draw pile is empty, so {card} cannot be drawn")
            raise EventError(f"{event.where()}: no {card} is left to draw (every copy is already out)")
        if state.phase is Phase.OVER:
            return state, [_ruling("game_over", Severity.FOUL, "The game is over.", None, event)]
        before, rulings = state, list[Ruling]()
        if state.phase is Phase.BUY and self._named(state, event) != state.active:
            buyer = state.players[state.active]
            state = self._end_turn(state, event, rulings)
            rulings.insert(0, _ruling("buy_passed", Severity.INFO, f"{buyer} did not buy.", buyer, event))
        foul = self._cannot_draw(state, event)
        if foul:
            return before, [foul]
        state = replace(state.without(card), drawn=(*state.drawn, card))
        name = state.players[state.active]
        if card.is_wild:
            state = self._open_auction(state, card, event, rulings)
        else:
            state = replace(state, tableau=(*state.tableau, card))
            message = f"{name}: {state.total} (numbers {state.numbers}, currency {state.currency})."
            data = {"total": state.total, "numbers": state.numbers, "currency": state.currency}
            rulings.append(_ruling("running_total", Severity.INFO, message, name, event, **data))
        if state.deck_left == 0:
            state = replace(state, ending=True)
            rulings.append(
                _ruling("last_card", Severity.ALERT, f"That was the last card: {name}'s turn is the last.", name, event)
            )
        if not card.is_wild:
            state = self._check_bust(state, card, event, rulings)
        return state, rulings

    def _named(self, state: TenState, event: GameEvent) -> int | None:
        return event.player(state.players) if event.has("player") else None

    def _cannot_draw(self, state: TenState, event: GameEvent) -> Ruling | None:
        seat = self._named(state, event)
        name = state.players[state.active]
        if state.phase is Phase.AUCTION:
            return _ruling("auction_pending", Severity.FOUL, "Finish the auction first.", name, event)
        if state.phase is Phase.BUY:
            return _ruling("buy_pending", Severity.FOUL, f"{name}: buy a card or pass first.", name, event)
        if state.phase is Phase.FINAL_BUY or state.ending:
            return _ruling("no_more_draws", Severity.FOUL, "The game is ending: no more cards are drawn.", name, event)
        if seat is not None and seat != state.active:
            who = state.players[seat]
            return _ruling("out_of_turn", Severity.FOUL, _not_your_turn(name, who), who, event)
        return None

    def _check_bust(self, state: TenState, card: TenCard, event: GameEvent, rulings: list[Ruling]) -> TenState:
        name = state.players[state.active]
        if card.is_currency and state.currency >= BUST_AT:
            message = f"Bust! {name}'s currency cards reach {state.currency}: the currency is discarded, nobody gains."
            rulings.append(_ruling("bust_currency", Severity.ALERT, message, name, event, currency=state.currency))
            return self._bust(state, event, rulings, "bust_currency", pays=False)
        if card.kind is TenKind.NUMBER and state.total >= BUST_AT:
            gains = f": the others gain {state.currency}" if state.currency else ""
            message = f"Bust! {name}'s total reaches {state.total}{gains}."
            rulings.append(_ruling("bust_numbers", Severity.ALERT, message, name, event, total=state.total))
            return self._bust(state, event, rulings, "bust_numbers", pays=True)
        return state

    def _bust(self, state: TenState, event: GameEvent, rulings: list[Ruling], outcome: str, pays: bool) -> TenState:
        numbers, currency = self._split(state.tableau)
        amount = state.currency
        state = replace(
            state,
            tableau=(),
            market=sorted_cards((*state.market, *numbers)),
            discard=sorted_cards((*state.discard, *currency)),
        )
        if pays:
            state = self._pay_others(state, amount, event, rulings)
        holding = state.holdings[state.active]
        if state.supply_bust:
            state = state.with_holding(state.active, replace(holding, bust_tokens=holding.bust_tokens + 1))
            state = replace(state, supply_bust=state.supply_bust - 1)
        else:
            name = state.players[state.active]
            rulings.append(_ruling("no_bust_token", Severity.INFO, "No bust token is left to take.", name, event))
        return self._end_turn(replace(state, outcome=outcome), event, rulings)

    @staticmethod
    def _split(cards: Sequence[TenCard]) -> tuple[list[TenCard], list[TenCard]]:
        return [c for c in cards if c.kind is TenKind.NUMBER], [c for c in cards if c.is_currency]

    # -- prizes and tokens ------------------------------------------------------------------
    def _on_stop(self, state: TenState, event: GameEvent) -> Result:
        prize = event.choice("prize", ("numbers", "currency"))
        name = state.players[state.active]
        foul = self._cannot_stop(state, event)
        if foul:
            return state, [foul]
        numbers, currency = self._split(state.tableau)
        amount = state.currency
        rulings: list[Ruling] = []
        state = replace(state, tableau=(), discard=sorted_cards((*state.discard, *currency)))
        if prize == "numbers":
            state = state.with_holding(state.active, state.holdings[state.active].take(numbers))
            message = f"{name} takes {', '.join(map(str, numbers)) or 'no number cards'} and may buy one card."
            rulings.append(_ruling("took_numbers", Severity.INFO, message, name, event))
            state = self._pay_others(state, amount, event, rulings)
            return replace(state, phase=Phase.BUY, outcome="numbers"), rulings
        rulings.append(_ruling("took_currency", Severity.INFO, f"{name} takes {amount} in tokens.", name, event))
        state = replace(state, market=sorted_cards((*state.market, *numbers)))
        state = self._gain(state, state.active, amount, event, rulings)
        return self._end_turn(replace(state, outcome="currency"), event, rulings), rulings

    def _cannot_stop(self, state: TenState, event: GameEvent) -> Ruling | None:
        name = state.players[state.active]
        seat = self._named(state, event)
        if state.phase is Phase.AUCTION:
            return _ruling("auction_pending", Severity.FOUL, "Finish the auction first.", name, event)
        if state.phase is not Phase.DRAW:
            return _ruling("no_stop_now", Severity.FOUL, "Nobody is drawing: there is nothing to stop.", name, event)
        if seat is not None and seat != state.active:
            who = state.players[seat]
            return _ruling("out_of_turn", Severity.FOUL, _not_your_turn(name, who), who, event)
        if not state.tableau:
            message = f"{name}'s row holds no card to take (a wild drawn goes to auction); draw before stopping."
            return _ruling("nothing_to_take", Severity.FOUL, message, name, event)
        return None

    def _pay_others(self, state: TenState, amount: int, event: GameEvent, rulings: list[Ruling]) -> TenState:
        for seat in seats_after(state.active, len(state.players))[:-1]:
            state = self._gain(state, seat, amount, event, rulings)
        return state

    def _gain(self, state: TenState, seat: int, amount: int, event: GameEvent, rulings: list[Ruling]) -> TenState:
        if amount <= 0:
            return state
        state, taken, over_cap = gain(state, seat, amount)
        name, cap = state.players[seat], state.rules.token_cap
        if over_cap:
            at = f"reaches the {cap}-token cap" if taken else f"is at the {cap}-token cap"
            message = f"{name} {at}: takes {taken} of {amount}, {over_cap} not collected."
            rulings.append(_ruling("token_cap", Severity.ALERT, message, name, event, taken=taken, lost=over_cap))
        elif taken < amount:
            message = f"The supply has run out: {name} takes {taken} of {amount}."
            rulings.append(_ruling("supply_empty", Severity.INFO, message, name, event, taken=taken))
        return state

    def _end_turn(
        self, state: TenState, event: GameEvent, rulings: list[Ruling], bought: TenCard | None = None
    ) -> TenState:
        row = TurnRow(state.active, state.drawn, state.outcome, bought, state.auctions)
        state = replace(state, tableau=(), drawn=(), auctions=(), outcome="", rows=(*state.rows, row))
        if not state.ending:
            return replace(state, active=(state.active + 1) % len(state.players), phase=Phase.DRAW)
        return self._last_buys(state, state.active, event, rulings)

    def _last_buys(self, state: TenState, last: int, event: GameEvent, rulings: list[Ruling]) -> TenState:
        """The final round: one buy each, starting left of ``last`` (who played the last turn)."""
        order = seats_after(last, len(state.players))
        first = state.players[order[0]]
        message = f"The game has ended: one last buy each, {first} first."
        rulings.append(_ruling("last_buys", Severity.ALERT, message, first, event))
        return replace(state, phase=Phase.FINAL_BUY, final_order=order)

    # -- auctions ---------------------------------------------------------------------------
    def _open_auction(self, state: TenState, wild: TenCard, event: GameEvent, rulings: list[Ruling]) -> TenState:
        order = seats_after(state.active, len(state.players))
        name, first = state.players[state.active], state.players[order[0]]
        message = f"Auction! {name} drew {wild}: {first} bids first, {name} last."
        rulings.append(_ruling("auction", Severity.ALERT, message, name, event, card=str(wild)))
        return replace(state, phase=Phase.AUCTION, auction=Auction(wild, order))

    def _on_auction_bid(self, state: TenState, event: GameEvent) -> Result:
        bid = event.integer("bid", 0)
        return self._auction_turn(state, event, bid)

    def _on_auction_pass(self, state: TenState, event: GameEvent) -> Result:
        return self._auction_turn(state, event, None)

    def _auction_turn(self, state: TenState, event: GameEvent, bid: int | None) -> Result:
        seat = event.player(state.players)
        name = state.players[seat]
        auction = state.auction
        if state.phase is not Phase.AUCTION or auction is None:
            return state, [_ruling("no_auction", Severity.FOUL, "No wild is up for auction.", name, event)]
        if seat != auction.bidders[0]:
            due = state.players[auction.bidders[0]]
            return state, [
                _ruling("out_of_turn", Severity.FOUL, f"It is {due}'s turn to bid, not {name}'s.", name, event)
            ]
        rulings: list[Ruling] = []
        if bid is None:
            rulings.append(_ruling("auction_pass", Severity.INFO, f"{name} passes.", name, event))
            auction = replace(auction, bidders=auction.bidders[1:])
        else:
            if auction.high_bid is not None and bid <= auction.high_bid:
                message = f"{name} must bid more than {auction.high_bid} or pass."
                return state, [_ruling("bid_too_low", Severity.FOUL, message, name, event, bid=bid)]
            payment = self._payment(state, seat, bid, event)
            if isinstance(payment, Ruling):
                return state, [payment]
            rulings.append(_ruling("auction_bid", Severity.INFO, f"{name} bids {bid}.", name, event, bid=bid))
            auction = Auction(auction.wild, auction.bidders[1:], bid, seat, payment)
        state = replace(state, auction=auction)
        if not auction.bidders:
            state = self._close_auction(state, auction, event, rulings)
        return state, rulings

    def _close_auction(self, state: TenState, auction: Auction, event: GameEvent, rulings: list[Ruling]) -> TenState:
        wild, winner, price = auction.wild, auction.high_bidder, auction.high_bid or 0
        if winner is None or auction.payment is None:
            rulings.append(_ruling("auction_unsold", Severity.INFO, f"Nobody bid: {wild} is discarded.", None, event))
            state = replace(state, discard=sorted_cards((*state.discard, wild)))
        else:
            name = state.players[winner]
            state = self._settle(state, winner, auction.payment, price, event, rulings)
            state = state.with_holding(winner, state.holdings[winner].take([wild]))
            rulings.append(_ruling("auction_won", Severity.INFO, f"{name} takes {wild} for {price}.", name, event))
        state = replace(state, phase=Phase.DRAW, auction=None, auctions=(*state.auctions, (wild, winner, price)))
        if state.ending and not state.tableau:  # the deck is finished and only wilds were drawn: nothing to take
            state = self._end_turn(replace(state, outcome="none"), event, rulings)
        return state

    # -- buying -----------------------------------------------------------------------------
    def _payment(self, state: TenState, seat: int, price: int, event: GameEvent) -> Payment | Ruling:
        """How ``seat`` pays ``price`` (the event's ``pay``, else currency tokens), or the foul."""
        name, holding = state.players[seat], state.holdings[seat]
        payment = read_payment(event, name, holding)
        if payment is None and holding.tokens >= price:
            return Payment(tokens=price)
        if payment is not None and payment.value >= price:
            return payment
        if payment is not None:
            message = f"{name} offers {payment.value} for a price of {price}."
        elif holding.means >= price:
            message = f"{name} has {holding.tokens} currency tokens for {price}: say how to pay (bust tokens, cards)."
        else:
            means = f"{holding.tokens} tokens, {holding.bust_tokens} bust tokens and {len(holding.cards)} cards"
            message = f"{name} cannot pay {price}: {name} holds {means}."
        return _ruling("too_little_currency", Severity.FOUL, message, name, event, price=price)

    def _settle(
        self, state: TenState, seat: int, payment: Payment, price: int, event: GameEvent, rulings: list[Ruling]
    ) -> TenState:
        state = state.with_holding(seat, state.holdings[seat].pay(payment))
        state = replace(
            state,
            supply_tokens=state.supply_tokens + payment.tokens,
            supply_bust=state.supply_bust + payment.bust_tokens,
            discard=sorted_cards((*state.discard, *payment.cards)),
        )
        if payment.value > price:
            name = state.players[seat]
            message = f"{name} pays {payment.value} for {price}: {payment.value - price} is lost."
            rulings.append(_ruling("overpaid", Severity.INFO, message, name, event, lost=payment.value - price))
        return state

    def _on_buy(self, state: TenState, event: GameEvent) -> Result:
        return self._buy_turn(state, event, read_card(event))

    def _on_pass_buy(self, state: TenState, event: GameEvent) -> Result:
        return self._buy_turn(state, event, None)

    def _buy_turn(self, state: TenState, event: GameEvent, card: TenCard | None) -> Result:
        seat = event.player(state.players)
        name = state.players[seat]
        if state.phase not in (Phase.BUY, Phase.FINAL_BUY):
            return state, [_ruling("no_buy_now", Severity.FOUL, "Nobody may buy now.", name, event)]
        buyer = state.active if state.phase is Phase.BUY else state.final_order[0]
        if seat != buyer:
            due = state.players[buyer]
            return state, [_ruling("out_of_turn", Severity.FOUL, f"It is {due}'s buy, not {name}'s.", name, event)]
        rulings: list[Ruling] = []
        if card is not None:
            if card not in state.market:
                market = ", ".join(map(str, state.market)) or "empty"
                raise EventError(f"{event.where()}: {card} is not in the market (market: {market})")
            assert card.value is not None
            if state.holdings[seat].holds_number(card):
                message = f"{name} already holds a {card}: the same colour and number cannot be bought."
                return state, [_ruling("duplicate_card", Severity.FOUL, message, name, event, card=str(card))]
            payment = self._payment(state, seat, card.value, event)
            if isinstance(payment, Ruling):
                return state, [payment]
            state = self._settle(state, seat, payment, card.value, event, rulings)
            rest = list(state.market)
            rest.remove(card)
            state = replace(state, market=tuple(rest)).with_holding(seat, state.holdings[seat].take([card]))
            rulings.insert(0, _ruling("bought", Severity.INFO, f"{name} buys {card}.", name, event, card=str(card)))
        else:
            rulings.append(_ruling("buy_passed", Severity.INFO, f"{name} does not buy.", name, event))
        if state.phase is Phase.BUY:
            return self._end_turn(state, event, rulings, card), rulings
        order = state.final_order[1:]
        state = replace(state, final_order=order, rows=(*state.rows, TurnRow(seat, bought=card, last_buy=True)))
        if not order:
            state = replace(state, phase=Phase.OVER)
            rulings.append(
                _ruling("game_over", Severity.ALERT, "The last buys are done: the final count.", None, event)
            )
        return state, rulings

    # -- the end ----------------------------------------------------------------------------
    def _on_end(self, state: TenState, event: GameEvent) -> Result:
        if state.phase is Phase.FINAL_BUY or state.ending:
            return state, [_ruling("game_ending", Severity.FOUL, "The game is already ending.", None, event)]
        rulings: list[Ruling] = []
        state = replace(state, ending=True)
        if state.phase is Phase.DRAW and not state.drawn:  # between turns: the previous turn was the last
            return self._last_buys(state, (state.active - 1) % len(state.players), event, rulings), rulings
        name = state.players[state.active]
        message = f"The draw pile is finished: {name}'s turn is the last."
        rulings.append(_ruling("last_card", Severity.ALERT, message, name, event))
        if state.phase is Phase.DRAW and not state.tableau:  # only wilds drawn: nothing to take
            state = self._end_turn(replace(state, outcome="none"), event, rulings)
        return state, rulings

    def _on_final(self, state: TenState, event: GameEvent) -> Result:
        if state.rows or state.drawn or state.ending or state.phase is not Phase.DRAW:
            raise EventError(f"{event.where()}: 'final' is for score-only games; this game is refereed card by card")
        given = event.data.get("players")
        if not isinstance(given, Mapping) or set(given) != set(state.players):
            names = ", ".join(state.players)
            raise EventError(f"{event.where()}: 'players' must give every player ({names}) their cards and tokens")
        holdings, rulings = [], []
        for name in state.players:
            entry = given[name]
            shape = '{"cards": [...], "tokens": n, "bust_tokens": n}'
            if not isinstance(entry, Mapping):
                raise EventError(f"{event.where()}: {name}: give {shape}")
            unknown = sorted(str(key) for key in entry if key not in ("cards", "tokens", "bust_tokens"))
            if unknown or "tokens" not in entry:  # a misspelt key would count as 0 tokens and break a tie
                what = f"has no field {unknown[0]!r}" if unknown else "'tokens' is missing"
                raise EventError(f"{event.where()}: {name}: {what}; give {shape}")
            cards = read_cards(event, entry.get("cards"), f"{name}'s 'cards'")
            if any(card.is_currency for card in cards):
                raise EventError(f"{event.where()}: {name}: currency cards are never collected")
            tokens = count_field(event, entry, "tokens", name, CURRENCY_TOKENS)
            bust = count_field(event, entry, "bust_tokens", name, BUST_TOKENS)
            if tokens > state.rules.token_cap:
                message = f"{name} has {tokens} currency tokens, over the cap of {state.rules.token_cap}."
                rulings.append(_ruling("token_cap", Severity.ALERT, message, name, event, tokens=tokens))
            holdings.append(Holding(tokens, bust, sorted_cards(cards)))
        return self._count_only(state, tuple(holdings), event), rulings

    def _count_only(self, state: TenState, holdings: tuple[Holding, ...], event: GameEvent) -> TenState:
        tokens, bust = sum(h.tokens for h in holdings), sum(h.bust_tokens for h in holdings)
        if tokens > CURRENCY_TOKENS or bust > BUST_TOKENS:
            raise EventError(
                f"{event.where()}: the box holds {CURRENCY_TOKENS} currency and {BUST_TOKENS} bust tokens, "
                f"not {tokens} and {bust}"
            )
        for card, count in Counter(c for h in holdings for c in h.cards).items():
            if count > state.count_in_deck(card):
                raise EventError(f"{event.where()}: the deck has {state.count_in_deck(card)} {card}, not {count}")
            for _ in range(count):
                state = state.without(card)
        return replace(
            state,
            holdings=holdings,
            supply_tokens=CURRENCY_TOKENS - tokens,
            supply_bust=BUST_TOKENS - bust,
            phase=Phase.OVER,
            score_only=True,
        )

    # -- scores and the dashboard (scorer.ten_sheet) ----------------------------------------------
    def score(self, state: TenState) -> ScoreSheet:
        return score_sheet(state)

    def view(self, state: TenState) -> dict[str, Json]:
        return table_view(state)


GAME = register(Ten())


def _not_your_turn(name: str, who: str) -> str:
    """Said of a draw or a stop out of turn, which changes nothing (not said before: the wording audit, session 40)."""
    return f"It is {name}'s turn, not {who}'s: this counts for nothing."
