"""Helpers for Ten's tests: a short event notation, a table set up by hand, a random (mostly legal)
player, and the card/token bookkeeping every state must satisfy."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Any

from scorer.events import GameEvent, Source
from scorer.game import Ruling
from scorer.ten import GAME, TenState
from scorer.ten_state import BUST_TOKENS, CURRENCY_TOKENS, FACES, Holding, Phase
from scorer.tencards import TenCard, TenKind, parse_ten_card, ten_deck

PLAYERS = ("Alex", "Beth", "Cara")
Event = str | tuple[str, dict[str, Any]]


def cards(text: str) -> list[TenCard]:
    return [parse_ten_card(word) for word in text.split()]


def event(item: Event, seq: int) -> GameEvent:
    """``"R5"`` draws R5; ``"stop numbers"``; ``"Beth bids 3"``; ``"Beth passes"`` (auction);
    ``"Alex buys R5"``; ``"Alex skips"`` (pass_buy); ``"end"``; or ``(type, payload)``."""
    if isinstance(item, tuple):
        return GameEvent(seq, 1000 * seq, Source.MANUAL, item[0], item[1])
    words = item.split()
    if len(words) == 1 and words[0] != "end":
        kind, data = "draw", {"card": words[0]}
    elif words[0] == "stop":
        kind, data = "stop", {"prize": words[1]}
    elif words[0] == "end":
        kind, data = "end", {}
    elif words[1] == "bids":
        kind, data = "auction_bid", {"player": words[0], "bid": int(words[2])}
    elif words[1] == "passes":
        kind, data = "auction_pass", {"player": words[0]}
    elif words[1] == "buys":
        kind, data = "buy", {"player": words[0], "card": words[2]}
    elif words[1] == "skips":
        kind, data = "pass_buy", {"player": words[0]}
    else:
        raise ValueError(f"unknown test event {item!r}")
    return GameEvent(seq, 1000 * seq, Source.MANUAL, kind, data)


def start(players: Sequence[str] = PLAYERS, **options: Any) -> TenState:
    return GAME.initial_state(players, GAME.spec.resolve(options))


def play(events: Iterable[Event], state: TenState | None = None, **options: Any) -> tuple[TenState, list[Ruling]]:
    """Apply ``events`` from ``state`` (a fresh 3-player table by default); all rulings."""
    state = start(**options) if state is None else state
    rulings: list[Ruling] = []
    for seq, item in enumerate(events, start=1):
        state, new = GAME.apply(state, event(item, seq))
        rulings += new
    return state, rulings


def last_codes(events: Sequence[Event], state: TenState | None = None, **options: Any) -> list[str]:
    """The codes of the rulings the last of ``events`` caused."""
    state, _ = play(events[:-1], state, **options)
    _, rulings = GAME.apply(state, event(events[-1], len(events)))
    return [r.code for r in rulings]


def holding(state: TenState, seat: int, **changes: Any) -> TenState:
    """``state`` with player ``seat``'s holding changed (tokens, bust_tokens, cards as text)."""
    if "cards" in changes:
        changes["cards"] = tuple(cards(changes["cards"]))
    return state.with_holding(seat, replace(state.holdings[seat], **changes))


# -- bookkeeping -----------------------------------------------------------------------------------
def cards_on_table(state: TenState) -> Counter[TenCard]:
    """Every card somewhere: undrawn, in the tableau, up for auction, in the market, discarded, held."""
    where: Counter[TenCard] = Counter()
    for face, count in zip(FACES, state.deck, strict=True):
        where[face] += count
    where.update(state.tableau)
    if state.auction is not None:
        where[state.auction.wild] += 1
    where.update(state.market)
    where.update(state.discard)
    for h in state.holdings:
        where.update(h.cards)
    return where


def check_bookkeeping(state: TenState) -> None:
    """Cards and tokens are conserved; nobody is over the cap; piles hold what they may hold."""
    assert cards_on_table(state) == Counter(ten_deck(len(state.players)))
    assert sum(h.tokens for h in state.holdings) + state.supply_tokens == CURRENCY_TOKENS
    assert sum(h.bust_tokens for h in state.holdings) + state.supply_bust == BUST_TOKENS
    assert all(0 <= h.tokens <= state.rules.token_cap for h in state.holdings)
    assert all(h.bust_tokens >= 0 for h in state.holdings) and state.supply_tokens >= 0 and state.supply_bust >= 0
    assert all(c.kind is TenKind.NUMBER for c in state.market)
    assert all(not c.is_currency for h in state.holdings for c in h.cards)
    assert all(not c.is_wild for c in state.tableau)


# -- a random table --------------------------------------------------------------------------------
def _undrawn(state: TenState) -> list[TenCard]:
    return [face for face, count in zip(FACES, state.deck, strict=True) for _ in range(count)]


def _buy_choice(rng: random.Random, state: TenState, seat: int) -> dict[str, Any] | None:
    h = state.holdings[seat]
    buyable = [c for c in state.market if not h.holds_number(c) and (c.value or 0) <= h.means]
    if not buyable or rng.random() < 0.3:
        return None
    card = rng.choice(buyable)
    return {"player": state.players[seat], "card": str(card), "pay": _pay(rng, h, card.value or 0)}


def _pay(rng: random.Random, h: Holding, price: int) -> dict[str, Any]:
    """A payment covering ``price``: tokens first or bust tokens first, then cards."""
    bust = min(h.bust_tokens, -(-price // 3)) if rng.random() < 0.5 else 0
    tokens = min(h.tokens, max(0, price - 3 * bust))
    owed = max(0, price - 3 * bust - tokens)
    if owed > len(h.cards):  # not enough without more bust tokens
        bust = h.bust_tokens
        tokens = min(h.tokens, max(0, price - 3 * bust))
        owed = max(0, price - 3 * bust - tokens)
    spent = [str(c) for c in rng.sample(list(h.cards), owed)]
    return {"tokens": tokens, "bust_tokens": bust, "cards": spent}


def random_event(rng: random.Random, state: TenState) -> tuple[str, dict[str, Any]]:
    """A next event for ``state``: mostly what a real table would do, now and then a foul."""
    names = state.players
    if rng.random() < 0.05:  # a foul or a stray: someone acts out of turn
        who = rng.choice(names)
        return rng.choice(
            [("pass_buy", {"player": who}), ("auction_pass", {"player": who}), ("stop", {"prize": "numbers"})]
        )
    if state.phase is Phase.AUCTION and state.auction is not None:
        seat = state.auction.bidders[0]
        high = -1 if state.auction.high_bid is None else state.auction.high_bid
        means = state.holdings[seat].means
        if high + 1 <= means and rng.random() < 0.6:
            bid = rng.randint(high + 1, min(means, high + 4))
            pay = _pay(rng, state.holdings[seat], bid)
            return "auction_bid", {"player": names[seat], "bid": bid, "pay": pay}
        return "auction_pass", {"player": names[seat]}
    if state.phase in (Phase.BUY, Phase.FINAL_BUY):
        seat = state.active if state.phase is Phase.BUY else state.final_order[0]
        choice = _buy_choice(rng, state, seat)
        return ("buy", choice) if choice else ("pass_buy", {"player": names[seat]})
    undrawn = _undrawn(state)
    if state.tableau and (not undrawn or state.ending or rng.random() < 0.3):
        return "stop", {"prize": rng.choice(["numbers", "currency"])}
    if not undrawn:
        return "end", {}
    return "draw", {"card": str(rng.choice(undrawn))}


def random_game(seed: int, players: Sequence[str], limit: int = 400, **options: Any) -> list[GameEvent]:
    """The events of a random game (to its end, or ``limit`` events)."""
    rng = random.Random(seed)
    state = start(players, **options)
    events = []
    for seq in range(1, limit + 1):
        if state.phase is Phase.OVER:
            break
        kind, data = random_event(rng, state)
        item = GameEvent(seq, 1000 * seq, Source.MANUAL, kind, data)
        state, _ = GAME.apply(state, item)
        events.append(item)
    return events
