"""Brute-force references for Push melds, written from the rules' definitions, not from the referee.

* A run of ``n`` cards is ``n`` consecutive places of one suit, Ace at place 1 or 14 but not both;
  the cards fit if some one-to-one matching puts each card on a place it can fill: the very card
  (natural; a 2 on its own place counts as natural), or any place for a joker or a 2.
* A set of rank ``r``: every card is of rank ``r`` (natural) or a joker or, when ``r`` is not 2,
  a 2; with distinct suits the naturals' suits differ and there are at most 4 cards.
* Each needs a natural card. A hand meets a requirement when disjoint groups of its cards, each of
  exactly the needed size, are melds of the needed kinds.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from itertools import combinations, permutations

from scorer.cards import Card, Face, Joker, Rank, Suit
from scorer.push_melds import REQUIREMENTS


def _wild(face: Face) -> bool:
    return isinstance(face, Joker) or face.rank is Rank.TWO


def _targets(suit: Suit, low: int, size: int) -> list[Card] | None:
    places = range(low, low + size)
    if 1 in places and 14 in places:
        return None
    return [Card(Rank.ACE if p in (1, 14) else Rank.from_number(p), suit) for p in places]


def _windows(size: int) -> list[list[Card]]:
    found = []
    for suit in Suit:
        for low in range(1, 16 - size):
            targets = _targets(suit, low, size)
            if targets is not None:
                found.append(targets)
    return found


def run_by_permutation(faces: Sequence[Face]) -> bool:
    """Try every ordering of the cards over every run of their length (small melds only)."""
    if len(faces) < 3:
        return False
    for targets in _windows(len(faces)):
        for order in permutations(faces):
            if all(f == t or _wild(f) for f, t in zip(order, targets, strict=True)) and any(
                f == t for f, t in zip(order, targets, strict=True)
            ):
                return True
    return False


def run_by_counting(faces: Sequence[Face]) -> bool:
    """The same question answered by counting: naturals on distinct places of one window, wilds fill the rest."""
    if len(faces) < 3:
        return False
    naturals = [f for f in faces if not _wild(f)]
    if len(set(naturals)) < len(naturals):
        return False
    for targets in _windows(len(faces)):
        if all(f in targets for f in naturals) and (naturals or any(f in targets for f in faces)):
            return True
    return False


def set_by_definition(faces: Sequence[Face], distinct: bool = False) -> bool:
    if len(faces) < 3:
        return False
    for rank in Rank:
        naturals = [f for f in faces if isinstance(f, Card) and f.rank is rank]
        wilds = [f for f in faces if f not in naturals and (isinstance(f, Joker) or f.rank is Rank.TWO)]
        if len(naturals) + len(wilds) != len(faces) or not naturals:
            continue
        if distinct and (len(faces) > 4 or len({f.suit for f in naturals}) < len(naturals)):
            continue
        return True
    return False


def brute_valid(kind: str, faces: Sequence[Face], distinct: bool = False) -> bool:
    return set_by_definition(faces, distinct) if kind == "set" else run_by_counting(faces)


@lru_cache(maxsize=200_000)
def _valid_cached(kind: str, faces: tuple[Face, ...], distinct: bool) -> bool:
    return brute_valid(kind, faces, distinct)


def _key(face: Face) -> tuple[int, int]:
    return (5, 0) if isinstance(face, Joker) else (list(Suit).index(face.suit), face.rank.number)


def brute_meets(hand: Sequence[Face], deal: int, distinct: bool = False) -> bool:
    """Every choice of disjoint card groups, one per needed meld."""
    need = REQUIREMENTS[deal]

    def search(step: int, left: tuple[int, ...]) -> bool:
        if step == len(need):
            return True
        kind, size = need[step]
        for group in combinations(left, size):
            faces = tuple(sorted((hand[i] for i in group), key=_key))
            if _valid_cached(kind, faces, distinct):
                rest = tuple(i for i in left if i not in group)
                if search(step + 1, rest):
                    return True
        return False

    return search(0, tuple(range(len(hand))))
