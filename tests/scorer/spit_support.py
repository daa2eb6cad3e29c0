"""Test kit for the Spit referee: event and table builders, and a simulated table.

:class:`World` is the physical table the property tests drive: it knows every card, face down
included, decides what the players do, and says what the referee must answer. It follows the
rules as written in ``/work/shared/RULES.md`` without using the referee's own code (rank
arithmetic, stall test and pile sharing are written again here, differently), so that the
two can be compared event by event.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from scorer.cards import Card, Rank, parse_card, standard_deck
from scorer.events import GameEvent, Source
from scorer.game import Ruling
from scorer.session import Session
from scorer.spit import GAME
from scorer.spit_table import Phase, Placed, Rules, Side, Slot, SpitState

PLAYERS = ("Alex", "Beth")
ORDER = "A23456789TJQK"  # rank letters in the order a person counts them


def card(text: str) -> Card:
    return parse_card(text)


def event(seq: int, kind: str, ts: int | None = None, **data: Any) -> GameEvent:
    return GameEvent(seq, seq * 100 if ts is None else ts, Source.MANUAL, kind, data)


def add(session: Session, kind: str, ts: int | None = None, **data: Any) -> list[Ruling]:
    """Append the next event to ``session``; returns its rulings."""
    return session.append(event(session.next_seq, kind, ts, **data))


def codes(rulings: list[Ruling]) -> list[str]:
    return [ruling.code for ruling in rulings]


ALEX_TOPS = ["3S", "4S", "5S", "6S", "7S"]
BETH_TOPS = ["10H", "JD", "AD", "5C", "6D"]


def started(
    options: Mapping[str, Any] | None = None,
    alex: list[str | None] | None = None,
    beth: list[str | None] | None = None,
    opening: tuple[str, str] = ("2C", "9D"),
) -> Session:
    """A session just after the opening Spit! of round 1 (both with full layouts)."""
    session = Session("spit", PLAYERS, options)
    add(session, "layout", player="Alex", counts=[1, 2, 3, 4, 5], tops=alex or ALEX_TOPS)
    add(session, "layout", player="Beth", counts=[1, 2, 3, 4, 5], tops=beth or BETH_TOPS)
    add(session, "spit", cards={"Alex": opening[0], "Beth": opening[1]})
    return session


def slot(text: str | None) -> Slot:
    """``"7H"`` a lone face-up card, ``"7H+2"`` over two face-down cards, ``"?+3"`` three face
    down (top not turned yet), ``None`` an empty space."""
    if not text:
        return Slot()
    top, _, down = text.partition("+")
    return Slot(int(down or 0), None if top == "?" else card(top))


def table(
    alex: list[str | None],
    beth: list[str | None],
    piles: list[list[str]],
    spit: tuple[int, int] = (0, 0),
    options: Mapping[str, Any] | None = None,
) -> SpitState:
    """A state in play: each player's five stock spaces (see :func:`slot`), the spit piles'
    cards (bottom first, all placed by Alex's spit cards) and the spit cards each holds."""
    state = GAME.initial_state(PLAYERS, options or {})
    sides = tuple(
        Side(stock=tuple(slot(text) for text in spaces), spit=count, laid_out=True)
        for spaces, count in zip((alex, beth), spit, strict=True)
    )
    placed = tuple(tuple(Placed(card(text), 0, 0, False) for text in cards) for cards in piles)
    short = None if len(piles) == 2 else (0 if spit[0] == 0 else 1)
    return SpitState(state.players, state.rules, sides, Phase.PLAY, piles=placed, short=short)


# -- the simulated table --------------------------------------------------------------------------
def neighbours(a: Card, b: Card, rules: Rules) -> bool:
    """Ranks next to each other, counted on a clock of 13 (Ace after King, and before 2 when it wraps)."""
    i, j = (ORDER.index("T" if c.rank is Rank.TEN else c.rank.value) for c in (a, b))
    if i == j:
        return rules.same_rank_allowed
    step = (i - j) % 13
    if step not in (1, 12):
        return False
    return rules.ace_wraps or {i, j} != {0, 1}  # Ace (0) next to 2 (1) only when it wraps


@dataclass
class Pile:
    cards: list[Card] = field(default_factory=list)  # bottom first
    up: bool = False  # the top card is face up


@dataclass
class World:
    """Every card's true place; ``step`` plays one event and records what the referee must say."""

    rng: random.Random
    rules: Rules = field(default_factory=Rules)
    foul_rate: float = 0.03
    seq: int = 0
    ts: int = 0
    phase: str = "layout"
    hands: list[list[Card]] = field(default_factory=list)
    stock: list[list[Pile]] = field(default_factory=lambda: [[], []])
    spit: list[list[Card]] = field(default_factory=lambda: [[], []])
    piles: list[list[Card]] = field(default_factory=list)
    short: int | None = None
    points: list[int] = field(default_factory=lambda: [0, 0])
    winner: tuple[int, ...] = ()
    expect: set[str] = field(default_factory=set)  # ruling codes the last event must produce
    skip_compare: bool = False  # the last event left a foul card on the table (an undo follows)
    _undo: int | None = None
    _late_slapper: int | None = None

    def __post_init__(self) -> None:
        if not self.hands:
            self.deal()

    def deal(self) -> None:
        deck = list(standard_deck())
        self.rng.shuffle(deck)
        self.hands = [deck[:26], deck[26:]]

    # -- what the referee must agree on ----------------------------------------------------
    def cards_of(self, seat: int) -> int:
        stock = sum(len(pile.cards) for pile in self.stock[seat])
        return len(self.hands[seat]) + stock + len(self.spit[seat])

    def face_down(self, seat: int) -> set[Card]:
        down = set(self.hands[seat]) | set(self.spit[seat])
        for pile in self.stock[seat]:
            down |= set(pile.cards[:-1] if pile.up else pile.cards)
        return down

    def can_play(self) -> bool:
        return any(self.fitting(seat) for seat in (0, 1))

    def fitting(self, seat: int) -> list[tuple[int, int]]:
        return [
            (index, target)
            for index, pile in enumerate(self.stock[seat])
            if pile.up and pile.cards
            for target, cards in enumerate(self.piles)
            if neighbours(pile.cards[-1], cards[-1], self.rules)
        ]

    def reveals(self, seat: int) -> list[int]:
        return [index for index, pile in enumerate(self.stock[seat]) if pile.cards and not pile.up]

    def blind_plays(self, seat: int) -> list[tuple[int, int]]:
        """Face-down stock tops that would fit a pile, to turn and play in one move."""
        return [
            (index, target)
            for index in self.reveals(seat)
            for target, cards in enumerate(self.piles)
            if neighbours(self.stock[seat][index].cards[-1], cards[-1], self.rules)
        ]

    def moves(self, seat: int, useful: bool = True) -> list[tuple[int, int]]:
        spaces = [index for index, pile in enumerate(self.stock[seat]) if not pile.cards]
        tops = [i for i, p in enumerate(self.stock[seat]) if p.up and (len(p.cards) > 1 or not useful)]
        return [(source, target) for source in tops for target in spaces]

    def stalled(self) -> bool:
        stuck = not any(self.reveals(seat) or self.moves(seat) for seat in (0, 1))
        return self.phase == "play" and stuck and not self.can_play()

    # -- one event ---------------------------------------------------------------------------
    def step(self) -> GameEvent | None:
        self.expect, self.skip_compare = set(), False
        if self._undo is not None:
            target, self._undo = self._undo, None
            return self._emit("undo", target=target)
        if self._late_slapper is not None:
            seat, self._late_slapper = self._late_slapper, None
            self.expect = {"late_slap"}
            return self._emit("slap", player=PLAYERS[seat], pile=0)
        return {
            "layout": self._layout,
            "start": self._opening,
            "play": self._play_step,
            "slap": self._slap,
            "over": lambda: None,
        }[self.phase]()

    def _emit(self, kind: str, **data: Any) -> GameEvent:
        self.seq += 1
        self.ts += self.rng.randint(0, 1500)
        return GameEvent(self.seq, self.ts, Source.VISION, kind, data)

    def _layout(self) -> GameEvent:
        seat = 0 if not self.stock[0] else 1
        hand = self.hands[seat]
        self.rng.shuffle(hand)
        sizes = self._layout_sizes(len(hand))
        piles = []
        for size in sizes:
            piles.append(Pile(hand[:size], up=bool(size) and self.rng.random() < 0.8))
            del hand[:size]
        self.stock[seat], self.spit[seat], self.hands[seat] = piles, hand[:], []
        tops = [str(p.cards[-1]) if p.up else None for p in piles]
        data: dict[str, Any] = {"player": PLAYERS[seat], "counts": list(sizes), "tops": tops}
        if self.stock[0] and self.stock[1]:
            self.phase = "start"
            short = [s for s in (0, 1) if not self.spit[s]]
            self.short = short[0] if short else None
            self.expect = {"round_ready"}
        return self._emit("layout", **data)

    def _layout_sizes(self, holding: int) -> list[int]:
        if holding >= 15:
            sizes = [1, 2, 3, 4, 5]
            if self.rng.random() < 0.3:
                self.rng.shuffle(sizes)
            return sizes
        if self.rng.random() < 0.5:  # pile by pile: 1, 2, 3 ... as far as the cards go
            sizes, left = [], holding
            for want in (1, 2, 3, 4, 5):
                sizes.append(min(want, left))
                left -= sizes[-1]
            return sizes
        sizes = [0] * 5  # row by row, as in patience: the first row across all five, then four ...
        left = holding
        for row in range(5):
            for index in range(row, 5):
                if left:
                    sizes[index] += 1
                    left -= 1
        return sizes

    def _opening(self) -> GameEvent:
        for seat in (0, 1):
            if self.reveals(seat):
                return self._reveal(seat, self.reveals(seat)[0])
        self.piles = [[] for _ in range(1 if self.short is not None else 2)]
        cards = {}
        for seat in (0, 1):
            if self.spit[seat]:
                turned = self.spit[seat].pop()
                self.piles[0 if self.short is not None else seat].append(turned)
                cards[PLAYERS[seat]] = str(turned)
        self.phase = "play"
        self._after_change()
        return self._emit("spit", cards=cards)

    def _reveal(self, seat: int, index: int) -> GameEvent:
        pile = self.stock[seat][index]
        pile.up = True
        if self.phase == "play":
            self._after_change()
        return self._emit("reveal", player=PLAYERS[seat], stock=index, card=str(pile.cards[-1]))

    def _play_step(self) -> GameEvent:
        if self.stalled():
            return self._spit()
        choices: list[tuple[str, int, Any]] = []
        for seat in (0, 1):
            choices += [("play", seat, option) for option in self.fitting(seat)] * 3
            choices += [("reveal", seat, index) for index in self.reveals(seat)]
            choices += [("blind", seat, option) for option in self.blind_plays(seat)]
            choices += [("move", seat, option) for option in self.moves(seat, useful=self.rng.random() < 0.9)]
        kind, seat, option = self.rng.choice(choices)
        if self.rng.random() < self.foul_rate:
            foul = self._foul()
            if foul is not None:
                return foul
        if self.rng.random() < self.foul_rate / 2 and (self.spit[0] or self.spit[1]):
            return self._spit()  # a false "Spit!": the cards are really turned
        if kind == "reveal":
            return self._reveal(seat, option)
        if kind == "move":
            source, target = option
            self.stock[seat][target] = Pile([self.stock[seat][source].cards.pop()], up=True)
            self.stock[seat][source].up = False
            self._after_change()
            return self._emit("move", player=PLAYERS[seat], **{"from": source, "to": target})
        index, target = option
        played = self.stock[seat][index].cards.pop()
        self.stock[seat][index].up = False
        self.piles[target].append(played)
        if not any(pile.cards for pile in self.stock[seat]):
            self._round_over("cleared", seat)
        else:
            self._after_change()
        data = {"player": PLAYERS[seat], "card": str(played), "pile": target}
        if kind == "blind" or self.rng.random() < 0.5:  # turned and played in one move: 'from' says where
            data["from"] = index
        return self._emit("play", **data)

    def _foul(self) -> GameEvent | None:
        """A card that does not fit, played anyway; an undo takes it back next."""
        for seat in self.rng.sample((0, 1), 2):
            for pile in self.stock[seat]:
                if not pile.up:
                    continue
                for target, cards in enumerate(self.piles):
                    if not neighbours(pile.cards[-1], cards[-1], self.rules):
                        self.skip_compare = True
                        event = self._emit("play", player=PLAYERS[seat], card=str(pile.cards[-1]), pile=target)
                        self._undo = event.seq
                        self.expect = {"illegal_play|lost_race"}
                        return event
        return None

    def _spit(self) -> GameEvent:
        false_call = not self.stalled()
        cards, piles = {}, {}
        for seat in (0, 1):
            if self.spit[seat]:
                turned = self.spit[seat].pop()
                target = 0 if self.short is not None else seat
                if self.short is None and self.rng.random() < 0.2:
                    target = 1 - seat
                    piles[PLAYERS[seat]] = target
                self.piles[target].append(turned)
                cards[PLAYERS[seat]] = str(turned)
        self._after_change()
        if false_call:
            self.expect.add("false_spit")
        data: dict[str, Any] = {"cards": cards}
        if piles:
            data["piles"] = piles
        return self._emit("spit", **data)

    def _after_change(self) -> None:
        if not self.stalled():
            return
        if self.spit[0] or self.spit[1]:
            self.expect.add("spit_call")
        else:
            self._round_over("blocked", None)

    # -- the end of a round ------------------------------------------------------------------
    def _round_over(self, reason: str, first_out: int | None) -> None:
        self.expect.add("round_over")
        self.phase = "slap"
        sizes = [len(cards) for cards in self.piles]
        if self.short is not None:
            if first_out is not None:
                self._share([1 - first_out])
            else:
                left = [sum(len(p.cards) for p in self.stock[s]) for s in (0, 1)]
                self._share([1 - self.short if left[0] == left[1] else (0 if left[0] > left[1] else 1)])
        elif self.rules.slap == "winner_takes_smaller" and first_out is not None:
            smaller = first_out if sizes[0] == sizes[1] else (0 if sizes[0] < sizes[1] else 1)
            self._share([first_out if pile == smaller else 1 - first_out for pile in (0, 1)])

    def _slap(self) -> GameEvent:
        seat = self.rng.choice((0, 1))
        sizes = [len(cards) for cards in self.piles]
        pile = sizes.index(min(sizes)) if self.rng.random() < 0.7 else self.rng.choice((0, 1))
        self._share([seat if index == pile else 1 - seat for index in (0, 1)])
        if self.rng.random() < 0.5:
            self._late_slapper = 1 - seat
        return self._emit("slap", player=PLAYERS[seat], pile=pile)

    def _share(self, takes: list[int]) -> None:
        self.expect.add("round_result")
        held = [len(self.spit[s]) + sum(len(p.cards) for p in self.stock[s]) for s in (0, 1)]
        for seat in (0, 1):
            self.hands[seat] = self.spit[seat] + [c for p in self.stock[seat] for c in p.cards]
        for pile, seat in enumerate(takes):
            self.hands[seat] += self.piles[pile]
        self.stock, self.spit, self.piles, self.short = [[], []], [[], []], [], None
        self.phase = "layout"
        if self.rules.scoring == "points":
            self.points = [a + b for a, b in zip(self.points, held, strict=True)]
            if max(self.points) >= 100:
                self.phase = "over"
                self.winner = tuple(s for s in (0, 1) if self.points[s] == min(self.points))
            elif not all(self.hands):
                self.expect.add("fresh_deal")
                self.deal()
        elif not all(self.hands):
            self.phase = "over"
            self.winner = (0 if not self.hands[0] else 1,)
        if self.phase == "over":
            self.expect.add("game_over")

    # -- comparing with the referee ----------------------------------------------------------
    def mismatch(self, state: SpitState) -> str | None:
        """The first difference between this table and the referee's state, or ``None``."""
        want_phase = {"layout": Phase.LAYOUT, "start": Phase.START, "play": Phase.PLAY, "slap": Phase.SLAP}
        if state.phase is not want_phase.get(self.phase, Phase.OVER):
            return f"phase {state.phase} != {self.phase}"
        for seat, side in enumerate(state.sides):
            if side.hand != len(self.hands[seat]) or side.spit != len(self.spit[seat]):
                return f"seat {seat}: hand/spit {side.hand}/{side.spit}"
            real = [(len(p.cards) - p.up, p.cards[-1] if p.up else None) for p in self.stock[seat]]
            if [(s.down, s.top) for s in side.stock] != real:
                return f"seat {seat}: stock {side.stock} != {real}"
            if not side.known <= self.face_down(seat):
                return f"seat {seat}: known cards {side.known - self.face_down(seat)} are not face down there"
        if [[p.card for p in cards] for cards in state.piles] != self.piles:
            return f"piles {state.piles} != {self.piles}"
        if state.winner != self.winner or list(state.points) != self.points:
            return f"winner/points {state.winner}/{state.points}"
        return None
