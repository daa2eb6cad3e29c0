"""Ten's end-of-game count: per colour the longest run, with the wilds placed for the best total.

A player's collection is number cards (``R5``), colour wilds (``R#``: any number in red), rainbow
numbered wilds (``*7``: a 7 in any colour) and full wilds (``*#``: anything). Per colour only the
**longest run of consecutive numbers** counts, 1 point per card; a complete 1-9 run scores
``complete_run`` (10 by default). Each wild is used at most once, in one place.

The placement is an exact search (:func:`best_score`), not a greedy guess:

* a run in colour ``c`` is an interval ``[low, high]`` of 1-9 (or nothing); its **gaps** are the
  numbers of the interval the player does not hold in that colour;
* a choice of one interval per colour can be filled if and only if the gaps can be matched to
  distinct wilds. By Hall's theorem (gaps on one side, wilds on the other; a gap ``(c, n)`` takes a
  ``c`` colour wild, the ``*n`` rainbow wild or a full wild) that holds exactly when, for every
  set ``C`` of colours, ``sum over n of max(0, gaps of C at n - rainbow n) <= colour wilds of C +
  full wilds`` (15 sets of colours to check, see :func:`_all_fit`);
* branch and bound over the colours (the colour with the fewest candidate runs first; each
  colour's runs best first). The upper bound for the colours still open is the smaller of a
  knapsack that shares the rainbow and full wilds among them by count, and, for the last colour,
  its best run that fits beside those already chosen. Colours holding the same numbers and colour
  wilds are interchangeable, so only one order of their runs is tried.

Candidate runs that another run of the same colour beats (as many points, and gaps no harder to
fill: see :func:`_no_harder`) are dropped first. :func:`best_score` also returns one placement of
the wilds that reaches the total, found by bipartite matching. ``tests/bench_ten_scoring.py``
times it (figures in ``docs/games/ten.md``); the tests compare it with two brute-force counts.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from scorer.tencards import Colour, TenCard, TenKind

__all__ = ["COLOURS", "Run", "TenScore", "best_score", "rank_players", "run_points"]

COLOURS: tuple[Colour, ...] = tuple(Colour)
_NUMBERS = range(1, 10)
_ALL = (1 << 9) - 1  # bit n-1 stands for the number n


def _bit(number: int) -> int:
    return 1 << (number - 1)


def run_points(low: int, high: int, complete_run: int = 10) -> int:
    """Points for a run from ``low`` to ``high``: its length, or ``complete_run`` for 1-9."""
    return complete_run if (low, high) == (1, 9) else high - low + 1


@dataclass(frozen=True)
class Run:
    """The run that counts in one colour, and the wilds placed in it (wild, number it stands for)."""

    colour: Colour
    low: int
    high: int
    points: int
    wilds: tuple[tuple[TenCard, int], ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "run": [self.low, self.high],
            "points": self.points,
            "wilds": [[str(card), number] for card, number in self.wilds],
        }


@dataclass(frozen=True)
class TenScore:
    """A player's best count: total ``points``, the run in each colour, and wilds left unused."""

    points: int
    runs: tuple[Run, ...]
    unused: tuple[TenCard, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "points": self.points,
            "runs": {str(run.colour): run.to_json() for run in self.runs},
            "unused_wilds": [str(card) for card in self.unused],
        }


@dataclass(frozen=True)
class _Hand:
    held: tuple[int, ...]  # per colour: bit mask of the numbers held
    colour_wilds: tuple[int, ...]  # per colour
    rainbow: tuple[int, ...]  # per number 1-9 (index n-1): how many *n
    full: int

    @classmethod
    def of(cls, cards: Iterable[TenCard]) -> _Hand:
        held = dict.fromkeys(COLOURS, 0)
        colour_wilds: Counter[Colour] = Counter()
        rainbow = [0] * 9
        full = 0
        for card in cards:
            if card.kind is TenKind.NUMBER:
                assert card.colour is not None and card.value is not None
                held[card.colour] |= _bit(card.value)
            elif card.kind is TenKind.COLOUR_WILD:
                assert card.colour is not None
                colour_wilds[card.colour] += 1
            elif card.kind is TenKind.RAINBOW_WILD:
                assert card.value is not None
                rainbow[card.value - 1] += 1
            elif card.kind is TenKind.FULL_WILD:
                full += 1
            else:
                raise ValueError(f"{card} is a currency card: it is never collected, so it cannot score")
        wilds = tuple(colour_wilds[c] for c in COLOURS)
        return cls(tuple(held[c] for c in COLOURS), wilds, tuple(rainbow), full)

    @property
    def rainbow_mask(self) -> int:
        return sum(_bit(n) for n in _NUMBERS if self.rainbow[n - 1])

    @property
    def shared(self) -> int:
        return sum(self.rainbow) + self.full


@dataclass(frozen=True)
class _Option:
    """One candidate run in one colour: its points, its gaps (bit mask), the shared wilds it needs."""

    points: int
    gaps: int
    shared: int
    low: int
    high: int


def _options(hand: _Hand, index: int, complete_run: int) -> list[_Option]:
    """The candidate runs of one colour that can be filled on their own and that no other beats."""
    own, held, rainbow = hand.colour_wilds[index], hand.held[index], hand.rainbow_mask
    fillable_alone = own + hand.full
    found = [_Option(0, 0, 0, 0, 0)]
    for low in _NUMBERS:
        for high in range(low, 10):
            span = (_ALL >> (9 - (high - low + 1))) << (low - 1)
            gaps = span & ~held
            if (gaps & ~rainbow).bit_count() > fillable_alone:
                continue
            shared = max(0, gaps.bit_count() - own)
            found.append(_Option(run_points(low, high, complete_run), gaps, shared, low, high))
    found.sort(key=lambda o: (-o.points, o.shared, o.gaps.bit_count(), o.low))
    kept: list[_Option] = []
    for option in found:
        if not any(k.points >= option.points and _no_harder(k.gaps, option.gaps, rainbow) for k in kept):
            kept.append(option)
    return kept


def _no_harder(mine: int, theirs: int, rainbow: int) -> bool:
    """Whether gaps ``mine`` can be filled whenever gaps ``theirs`` (same colour) can, with the same
    or fewer rainbow and full wilds: ``mine`` is a subset of ``theirs``, or it only trades gaps of
    ``theirs`` that no rainbow wild fits (so a colour or full wild fills them) for as many others."""
    if mine & theirs == mine:
        return True
    only_theirs = theirs & ~mine
    return not only_theirs & rainbow and (mine & ~theirs).bit_count() <= only_theirs.bit_count()


# A set of colours whose runs are chosen, as a plain tuple (the search builds many of them):
# (their colour wilds minus their gaps, layer 0, layer 1, layer 2, layer 3), where layer j holds
# the numbers that are a gap in more than j of the colours.
_Group = tuple[int, int, int, int, int]
_EMPTY_GROUP: _Group = (0, 0, 0, 0, 0)
_Layers = tuple[int, int, int, int]


def _grow(group: _Group, wilds: int, gaps: int) -> _Group:
    """The group with one more colour, holding ``wilds`` colour wilds and the gaps ``gaps``."""
    base, l0, l1, l2, l3 = group
    return (base + wilds - gaps.bit_count(), l0 | gaps, l1 | (l0 & gaps), l2 | (l1 & gaps), l3 | (l2 & gaps))


def _all_fit(groups: Sequence[_Group], wilds: int, gaps: int, rainbow: _Layers, full: int) -> bool:
    """Hall's condition for each group plus one colour (``wilds``, ``gaps``): the gaps no rainbow
    wild can take, sum over n of max(0, gaps at n - rainbow n), fit in the colour and full wilds.
    The sum is the gaps less those the rainbow layers fill: layer j of the gaps against the
    numbers with more than j rainbow wilds."""
    r0, r1, r2, r3 = rainbow
    extra = wilds - gaps.bit_count() + full
    for base, l0, l1, l2, l3 in groups:
        filled = ((l0 | gaps) & r0).bit_count()
        if r1:
            filled += ((l1 | (l0 & gaps)) & r1).bit_count() + ((l2 | (l1 & gaps)) & r2).bit_count()
            filled += ((l3 | (l2 & gaps)) & r3).bit_count()
        if base + extra + filled < 0:
            return False
    return True


def _knapsack_bounds(options: Sequence[Sequence[_Option]], budget: int) -> list[list[int]]:
    """``bounds[i][k]``: the most points colours ``i..`` can score sharing ``k`` shared wilds (relaxed)."""
    bounds = [[0] * (budget + 1) for _ in range(len(options) + 1)]
    for i in range(len(options) - 1, -1, -1):
        best_with = [max(o.points for o in options[i] if o.shared <= k) for k in range(budget + 1)]
        for k in range(budget + 1):
            bounds[i][k] = max(best_with[j] + bounds[i + 1][k - j] for j in range(k + 1))
    return bounds


class _Search:
    """Branch and bound over the colours, fewest candidate runs first (a narrow top of the tree).

    Two colours with the same numbers held and the same colour wilds are twins: any best choice
    can swap their runs, so the second twin only tries runs from the first twin's on."""

    def __init__(self, hand: _Hand, complete_run: int) -> None:
        self.hand = hand
        order = sorted(range(len(COLOURS)), key=lambda i: (hand.held[i], hand.colour_wilds[i]))
        per_colour = sorted(((_options(hand, i, complete_run), i) for i in order), key=lambda p: len(p[0]))
        self.options = [opts for opts, _ in per_colour]
        self.wilds = [hand.colour_wilds[i] for _, i in per_colour]
        self.colours = [i for _, i in per_colour]
        twins = [(hand.held[i], hand.colour_wilds[i]) for i in self.colours]
        self.twin = [j > 0 and twins[j] == twins[j - 1] for j in range(len(twins))]
        self.bounds = _knapsack_bounds(self.options, hand.shared)
        self.layers: _Layers = (
            sum(_bit(n) for n in _NUMBERS if hand.rainbow[n - 1] > 0),
            sum(_bit(n) for n in _NUMBERS if hand.rainbow[n - 1] > 1),
            sum(_bit(n) for n in _NUMBERS if hand.rainbow[n - 1] > 2),
            sum(_bit(n) for n in _NUMBERS if hand.rainbow[n - 1] > 3),
        )
        self.best = -1
        self.best_choice: list[_Option] = []
        self.chosen: list[_Option] = []
        self.picked: list[int] = []  # the index of each chosen option in its colour's list
        self.last_from = 0  # where the last colour's options may start to fit (see run)

    def run(
        self, depth: int = 0, points: int = 0, shared: int = 0, groups: tuple[_Group, ...] = (_EMPTY_GROUP,)
    ) -> None:
        """Try each option of colour ``depth``; ``groups`` holds one group per subset of the colours
        already chosen, so that a new option checks Hall's condition on the new subsets only."""
        checks = groups[::-1]  # the largest set of colours first: it fails most often
        last = len(self.options) - 1
        first = self.picked[-1] if self.twin[depth] else 0
        if depth == last:
            found = self._best_fitting(depth, checks, self.best - points, max(first, self.last_from))
            if found is not None:
                self.best, self.best_choice = points + self.options[depth][found].points, [*self.chosen]
                self.best_choice.append(self.options[depth][found])
            return
        left = self.hand.shared - shared
        wilds, layers, full = self.wilds[depth], self.layers, self.hand.full
        cap = 99  # what the last colour can add beside the colours chosen so far, once that is one
        if depth + 1 == last:
            self.last_from = self._best_fitting(last, checks, -1) or 0  # no better option fits lower down
            cap = self.options[last][self.last_from].points
        for index in range(first, len(self.options[depth])):
            option = self.options[depth][index]
            if option.shared > left:
                continue
            if points + option.points + min(cap, self.bounds[depth + 1][left - option.shared]) <= self.best:
                continue
            if option.gaps and not _all_fit(checks, wilds, option.gaps, layers, full):
                continue
            self.chosen.append(option)
            self.picked.append(index)
            grown = tuple(_grow(group, wilds, option.gaps) for group in groups)
            self.run(depth + 1, points + option.points, shared + option.shared, groups + grown)
            self.chosen.pop()
            self.picked.pop()

    def _best_fitting(self, depth: int, groups: Sequence[_Group], floor: int, start: int = 0) -> int | None:
        """The index of the best option of colour ``depth`` from ``start`` on that scores more than
        ``floor`` and fits beside the colours behind ``groups``, or ``None``."""
        wilds, layers, full = self.wilds[depth], self.layers, self.hand.full
        for index in range(start, len(self.options[depth])):
            option = self.options[depth][index]
            if option.points <= floor:
                return None
            if not option.gaps or _all_fit(groups, wilds, option.gaps, layers, full):
                return index
        return None


def _place(hand: _Hand, gaps: dict[int, int]) -> dict[tuple[int, int], TenCard]:
    """One matching of every gap (colour index, number) to a distinct wild (Kuhn's algorithm)."""
    wilds = _wild_cards(hand)

    def fits(wild: TenCard, slot: tuple[int, int]) -> bool:
        if wild.kind is TenKind.COLOUR_WILD:
            return wild.colour is COLOURS[slot[0]]
        if wild.kind is TenKind.RAINBOW_WILD:
            return wild.value == slot[1]
        return True

    owner: dict[int, tuple[int, int]] = {}

    def augment(slot: tuple[int, int], seen: set[int]) -> bool:
        for w, wild in enumerate(wilds):
            if w in seen or not fits(wild, slot):
                continue
            seen.add(w)
            if w not in owner or augment(owner[w], seen):
                owner[w] = slot
                return True
        return False

    slots = [(i, n) for i, mask in sorted(gaps.items()) for n in _NUMBERS if mask & _bit(n)]
    for slot in slots:
        if not augment(slot, set()):
            raise AssertionError(f"no wild for gap {slot}: the search accepted an unfillable choice")
    return {slot: wilds[w] for w, slot in owner.items()}


def best_score(cards: Iterable[TenCard], complete_run: int = 10) -> TenScore:
    """The best total the collection ``cards`` can score, with the runs and wild placement giving it.

    >>> from scorer.tencards import parse_ten_card as c
    >>> best_score([c(t) for t in ["B1", "B2", "B3", "B5", "B7"]]).points
    3
    >>> best_score([c(t) for t in ["B1", "B2", "B3", "B5", "B7", "*4"]]).points
    5
    """
    return _best_score(tuple(cards), complete_run)


# Each screen's state scores every player's collection (the score sheet, then the view), and the Log counted the
# history rows by scoring the game after every event (3 ms a collection: a whole game's first Log load took 1.3 s;
# the scale audit, session 42), while a collection changes for one player at a time: each is searched once.
@functools.lru_cache(maxsize=1024)
def _best_score(cards: tuple[TenCard, ...], complete_run: int) -> TenScore:
    hand = _Hand.of(cards)
    search = _Search(hand, complete_run)
    search.run()
    choice = {search.colours[i]: option for i, option in enumerate(search.best_choice) if option.points}
    placed = _place(hand, {i: option.gaps for i, option in choice.items() if option.gaps})
    runs = []
    for i, colour in enumerate(COLOURS):
        if i in choice:
            option = choice[i]
            wilds = tuple((card, n) for (c, n), card in sorted(placed.items()) if c == i)
            runs.append(Run(colour, option.low, option.high, option.points, wilds))
    used = Counter(placed.values())
    every = Counter(_wild_cards(hand))
    unused = tuple(sorted((every - used).elements(), key=str))
    return TenScore(sum(run.points for run in runs), tuple(runs), unused)


def _wild_cards(hand: _Hand) -> list[TenCard]:
    out: list[TenCard] = []
    for i, colour in enumerate(COLOURS):
        out += [TenCard(TenKind.COLOUR_WILD, colour)] * hand.colour_wilds[i]
    for n in _NUMBERS:
        out += [TenCard(TenKind.RAINBOW_WILD, value=n)] * hand.rainbow[n - 1]
    return out + [TenCard(TenKind.FULL_WILD)] * hand.full


def rank_players(points: Sequence[int], tokens: Sequence[int], cards: Sequence[int]) -> list[int]:
    """Each player's place (1 = first): most points, then most currency tokens, then fewest cards;
    players still level share the place."""
    keys = [(-p, -t, c) for p, t, c in zip(points, tokens, cards, strict=True)]
    return [1 + sum(other < key for other in keys) for key in keys]
