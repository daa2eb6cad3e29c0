"""Helpers for the Push tests: a table that sends events, and a random game played by simple bots.

The bots know the real cards (the simulation deals a shuffled 108-card deck) and tell the referee
only what a camera might see: whether hands are shown at the deal, and whether a card drawn from the
stock is named, are decided at random.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from scorer.cards import Face, push_deck
from scorer.events import GameEvent, Source
from scorer.game import Ruling
from scorer.push_melds import DEAL_SIZES, Meld, check_layoff, check_swap, find_requirement, is_wild
from scorer.session import Session

PLAYERS = ("Alex", "Beth", "Charlie", "David")
Event = tuple[str, dict[str, Any]]


def draw(player: str, source: str = "discard", card: str | None = None) -> Event:
    data: dict[str, Any] = {"player": player, "from": source}
    if card is not None:
        data["card"] = card
    return ("draw", data)


def push(player: str, stock_card: str | None = None) -> Event:
    data: dict[str, Any] = {"player": player}
    if stock_card is not None:
        data["stock_card"] = stock_card
    return ("push", data)


def meld(player: str, *melds: tuple[str, str] | tuple[str, str, Mapping[str, str]]) -> Event:
    specs = []
    for item in melds:
        spec: dict[str, Any] = {"kind": item[0], "cards": item[1].split()}
        if len(item) == 3:
            spec["wilds"] = dict(item[2])
        specs.append(spec)
    return ("meld", {"player": player, "melds": specs})


def layoff(player: str, number: int, cards: str) -> Event:
    return ("layoff", {"player": player, "meld": number, "cards": cards.split()})


def swap(player: str, number: int, card: str, wild: str) -> Event:
    return ("swap", {"player": player, "meld": number, "card": card, "wild": wild})


def discard(player: str, card: str) -> Event:
    return ("discard", {"player": player, "card": card})


def deal_end(hands: Mapping[str, str], out: str | None = None) -> Event:
    data: dict[str, Any] = {"hands": {name: cards.split() for name, cards in hands.items()}}
    if out is not None:
        data["out"] = out
    return ("deal_end", data)


class Table:
    """A Push session fed with ``(type, data)`` events; ``ts`` and ``seq`` are filled in."""

    def __init__(self, options: Mapping[str, Any] | None = None, *events: Event) -> None:
        self.session = Session("push", PLAYERS, options)
        for item in events:
            self.send(item)

    def send(self, item: Event) -> list[Ruling]:
        kind, data = item
        seq = self.session.next_seq
        return self.session.append(GameEvent(seq, 1000 * seq, Source.MANUAL, kind, data))

    def codes(self, item: Event) -> list[str]:
        return [r.code for r in self.send(item)]

    @property
    def state(self) -> Any:
        return self.session.state

    @property
    def view(self) -> dict[str, Any]:
        return self.session.view()


# -- random play ---------------------------------------------------------------------------------
@dataclass
class _Deal:
    hands: list[list[Face]]
    stock: list[Face]
    discard: list[Face]
    melds: list[Meld] = field(default_factory=list)
    laid: list[bool] = field(default_factory=lambda: [False] * 4)
    push_rate: float = 0.4


def _text(faces: list[Face]) -> list[str]:
    return [str(f) for f in faces]


def random_game(seed: int, bury_wild_upcard: bool = True, max_turns: int = 100) -> list[Event]:
    """Five deals of simple bot play: the whole log as ``(type, data)`` events."""
    rng = random.Random(seed)
    events: list[Event] = []
    dealer = rng.randrange(4)
    for number in range(1, 6):
        events += _random_deal(rng, number, dealer, bury_wild_upcard, max_turns)
        dealer = (dealer + 1) % 4
    return events


def _random_deal(rng: random.Random, number: int, dealer: int, bury: bool, max_turns: int) -> list[Event]:
    cards = [c.face for c in push_deck()]
    rng.shuffle(cards)
    size = DEAL_SIZES[number]
    hands = [cards[i * size : (i + 1) * size] for i in range(4)]
    stock = cards[4 * size :]
    table = _Deal(hands, stock, [stock.pop()], push_rate=rng.choice([0.1, 0.4, 0.9]))
    shown = {PLAYERS[s]: _text(h) for s, h in enumerate(hands) if rng.random() < 0.5}
    data: dict[str, Any] = {"dealer": PLAYERS[dealer], "upcard": str(table.discard[0]), "hands": shown}
    events: list[Event] = [("deal", data)]
    while bury and is_wild(table.discard[-1]):
        table.stock.insert(rng.randrange(len(table.stock)), table.discard.pop())  # inside the stock, not on its top
        table.discard.append(table.stock.pop())
        events.append(("upcard", {"card": str(table.discard[-1])}))
    seat = (dealer + 1) % 4
    for _ in range(max_turns):
        turn, out = _random_turn(rng, table, seat, number)
        events += turn
        if out or not table.stock:
            break
        seat = (seat + 1) % 4
    hands_left = {PLAYERS[s]: " ".join(_text(h)) for s, h in enumerate(table.hands)}
    events.append(deal_end(hands_left))
    return events


def _random_turn(rng: random.Random, table: _Deal, seat: int, number: int) -> tuple[list[Event], bool]:
    name, hand, events = PLAYERS[seat], table.hands[seat], []
    named = rng.random() < 0.5
    if table.discard and (not table.stock or rng.random() >= table.push_rate):
        hand.append(table.discard.pop())
        events.append(draw(name))
    else:
        if table.discard:
            passed = [table.discard.pop(), table.stock.pop()]
            table.hands[(seat + 1) % 4] += passed
            events.append(push(name, str(passed[1]) if named else None))
            if not table.stock:  # the pusher cannot draw: the deal is over
                return events, True
        hand.append(table.stock.pop())
        events.append(draw(name, "stock", str(hand[-1]) if rng.random() < 0.5 else None))
    if not table.laid[seat]:
        plan = find_requirement(hand, number)
        if plan is not None:
            events.append(("meld", {"player": name, "melds": [_meld_spec(m) for m in plan]}))
            for m in plan:
                for f in m.cards:
                    hand.remove(f)
            table.melds += plan
            table.laid[seat] = True
    else:
        events += _random_swap(table, seat) + _random_layoffs(table, seat)
    if not hand:
        return events, True
    card = hand.pop(rng.randrange(len(hand)))
    table.discard.append(card)
    events.append(discard(name, str(card)))
    return events, not hand


def _meld_spec(m: Meld) -> dict[str, Any]:
    wilds = {}
    cards = []
    for index, (face, stand) in enumerate(zip(m.cards, m.stands, strict=True)):
        text = str(face)
        if not m.is_natural(index):
            text = f"{face}/{1 + sum(1 for f in m.cards[:index] if f == face)}"
            wilds[text] = str(stand)
        cards.append(text)
    return {"kind": m.kind, "cards": cards, "wilds": wilds}


def _random_swap(table: _Deal, seat: int) -> list[Event]:
    """Swap a natural for the wild standing for it, and lay the wild off on another meld at once."""
    name, hand = PLAYERS[seat], table.hands[seat]
    for card in [c for c in hand if not is_wild(c)]:
        for number, on in enumerate(table.melds, start=1):
            for wild in {f for f in on.cards if is_wild(f)}:
                swapped = check_swap(on, card, wild)
                if swapped.meld is None:
                    continue
                for other, target in enumerate(table.melds, start=1):
                    placed = check_layoff(target, [wild])
                    if other != number and placed.meld is not None:
                        table.melds[number - 1] = swapped.meld
                        table.melds[other - 1] = placed.meld
                        hand.remove(card)
                        return [swap(name, number, str(card), str(wild)), layoff(name, other, str(wild))]
    return []


def _random_layoffs(table: _Deal, seat: int) -> list[Event]:
    name, hand, events = PLAYERS[seat], table.hands[seat], []
    for card in list(hand):
        if len(hand) <= 1:
            break
        for number, on in enumerate(table.melds, start=1):
            check = check_layoff(on, [card])
            if check.meld is not None:
                table.melds[number - 1] = check.meld
                hand.remove(card)
                events.append(layoff(name, number, str(card)))
                break
    return events
