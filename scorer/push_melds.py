"""Push melds: validation with wilds, lay-offs, wild swaps, and the requirement finder.

Pure functions over card faces (which physical copy a card is does not matter here), reusable by
the dashboard to explain a wrong meld. Rules (see :mod:`scorer.push` for the whole game):

* Jokers and 2s are **wild**. A meld is a **set** (3+ cards of one rank) or a **run** (3+
  consecutive cards of one suit); it needs at least one natural card.
* Ace is high (Q-K-A) or low (A-2-3) in a run, never both and never round the corner (K-A-2);
  so a run has at most 13 cards.
* A 2 **stands for itself** when it takes its own place: the 2 of the run's suit in the 2's place
  (2H in AH-2H-3H), or any 2 in a set of 2s. It is then natural: it counts as the meld's natural
  card and cannot be swapped out. Any other 2, and every joker, is a wild standing for a card.
* The maker declares the kind and what each wild stands for; what is left undeclared is worked out
  here: a 2 takes its own place when it can, otherwise the highest run that fits is taken (5H 6H JK
  is 5-6-7), and wilds fill the free places in the order they were given. In a set a wild stands
  for the set's rank (with option ``set_suits_distinct``: for a missing suit, first of S H D C).
* Deal requirements (:data:`REQUIREMENTS`): 1) two sets of 3; 2) a set of 3 and a run of 4;
  3) two runs of 4; 4) three sets of 3; 5) two runs of 5. A longer meld meets a shorter need.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations

from scorer.cards import Card, Face, Joker, Rank, Suit

__all__ = [
    "DEAL_SIZES",
    "KINDS",
    "REQUIREMENTS",
    "Check",
    "Meld",
    "Stand",
    "card_value",
    "check_layoff",
    "check_meld",
    "check_swap",
    "describe_requirement",
    "face_key",
    "find_requirement",
    "is_wild",
    "meets_requirement",
    "requirement_shortfall",
]

#: What a card in a meld stands for: a card (naturals, wilds in runs and in distinct-suit sets)
#: or just a rank (a wild in an ordinary set).
Stand = Card | Rank

KINDS = ("set", "run")
DEAL_SIZES: Mapping[int, int] = {1: 6, 2: 7, 3: 8, 4: 9, 5: 10}
REQUIREMENTS: Mapping[int, tuple[tuple[str, int], ...]] = {
    1: (("set", 3), ("set", 3)),
    2: (("set", 3), ("run", 4)),
    3: (("run", 4), ("run", 4)),
    4: (("set", 3), ("set", 3), ("set", 3)),
    5: (("run", 5), ("run", 5)),
}
_WORDS = {1: "a", 2: "two", 3: "three"}
_SUITS = tuple(Suit)


def is_wild(face: Face) -> bool:
    """Jokers and 2s are wild (a 2 may still stand for itself in a meld)."""
    return isinstance(face, Joker) or face.rank is Rank.TWO


def card_value(face: Face) -> int:
    """Penalty points of a card left in hand: K-10 10, 9-3 5, A 15, jokers and 2s 20."""
    if is_wild(face):
        return 20
    assert isinstance(face, Card)
    if face.rank is Rank.ACE:
        return 15
    return 10 if face.rank.number >= 10 else 5


def face_key(face: Face) -> tuple[int, int]:
    """Sort order for display: by suit (S H D C), Ace to King, jokers last."""
    if isinstance(face, Joker):
        return (4, 0)
    return (_SUITS.index(face.suit), face.rank.number)


def _rank_at(position: int) -> Rank:
    return Rank.from_number(position)  # 1 and 14 are both the Ace


def _stand_text(stand: Stand) -> str:
    return str(stand)


@dataclass(frozen=True)
class Meld:
    """A meld on the table: its kind, its cards (runs low to high) and what each stands for."""

    kind: str
    cards: tuple[Face, ...]
    stands: tuple[Stand, ...]

    def is_natural(self, index: int) -> bool:
        """Whether card ``index`` stands for itself (a natural card, or a 2 in its own place)."""
        face, stand = self.cards[index], self.stands[index]
        if not is_wild(face):
            return True
        if isinstance(face, Joker):
            return False
        return stand == face or (self.kind == "set" and stand is Rank.TWO)

    def to_json(self) -> dict[str, object]:
        return {
            "kind": self.kind,
            "cards": [str(c) for c in self.cards],
            "stands_for": [_stand_text(s) for s in self.stands],
        }

    def __str__(self) -> str:
        parts = [
            str(c) if self.is_natural(i) else f"{c}={s}"
            for i, (c, s) in enumerate(zip(self.cards, self.stands, strict=True))
        ]
        return f"{self.kind} " + " ".join(parts)


@dataclass(frozen=True)
class Check:
    """The answer to "is this a meld?": the meld (with every wild's place) or why not."""

    meld: Meld | None
    reason: str = ""
    ambiguous: bool = False  # undeclared wilds could stand for other cards too

    @property
    def ok(self) -> bool:
        return self.meld is not None


def _cards_text(cards: Iterable[Face]) -> str:
    return " ".join(str(c) for c in cards)


# -- validation ----------------------------------------------------------------------------------
def check_meld(
    kind: str,
    cards: Sequence[Face],
    declared: Mapping[int, Stand] | None = None,
    *,
    distinct_suits: bool = False,
) -> Check:
    """Is ``cards`` a valid meld of ``kind``? ``declared`` maps a card's index to what it stands for."""
    declared = dict(declared or {})
    if kind not in KINDS:
        return Check(None, f"a meld is a set or a run, not {kind!r}")
    if len(cards) < 3:
        return Check(None, f"a meld needs at least 3 cards ({_cards_text(cards) or 'none'} given)")
    for index, stand in declared.items():
        face = cards[index]
        if not is_wild(face) and stand != face:
            return Check(None, f"{face} is not wild: only jokers and 2s can stand for another card")
    if kind == "set":
        return _check_set(cards, declared, distinct_suits)
    return _check_run(cards, declared)


def _check_set(cards: Sequence[Face], declared: Mapping[int, Stand], distinct: bool) -> Check:
    naturals = [c for c in cards if isinstance(c, Card) and c.rank is not Rank.TWO]
    ranks = sorted({c.rank for c in naturals}, key=lambda r: r.number)
    if len(ranks) > 1:
        return Check(None, "a set's natural cards must all have one rank (" + ", ".join(r.value for r in ranks) + ")")
    if ranks:
        rank = ranks[0]
    elif any(isinstance(c, Card) for c in cards):
        rank = Rank.TWO  # a set of 2s: every 2 stands for itself
        naturals = [c for c in cards if isinstance(c, Card)]
    else:
        return Check(None, "a meld needs at least one natural card (jokers and 2s are wild)")
    suits = [c.suit for c in naturals]
    if distinct:
        if len(cards) > 4:
            return Check(None, "with set_suits_distinct a set has at most 4 cards, one of each suit")
        doubled = [s for s in _SUITS if suits.count(s) > 1]
        if doubled:
            return Check(None, f"with set_suits_distinct each suit appears once: two {rank.value}{doubled[0].value}")
    stands: list[Stand | None] = [c if c in naturals else None for c in cards]
    for index, stand in declared.items():
        if stands[index] is not None:
            if stand != cards[index] and stand is not Rank.TWO:
                return Check(None, f"in a set of 2s, {cards[index]} stands for itself")
            continue
        want = stand if isinstance(stand, Rank) else stand.rank
        if want is not rank:
            return Check(None, f"{cards[index]} stands for {stand} but the set is of {rank.value}s")
        if distinct and isinstance(stand, Card):
            if stand.suit in suits:
                return Check(None, f"{cards[index]} stands for {stand}, a suit the set already has")
            suits.append(stand.suit)
            stands[index] = stand
        elif not distinct:
            stands[index] = rank
    open_wilds = [i for i, s in enumerate(stands) if s is None]
    if distinct:
        missing = [s for s in _SUITS if s not in suits]
        for index, suit in zip(open_wilds, missing, strict=False):
            stands[index] = Card(rank, suit)
        ambiguous = bool(open_wilds) and len(missing) > len(open_wilds)
    else:
        for index in open_wilds:
            stands[index] = rank
        ambiguous = False
    done = tuple(s for s in stands if s is not None)
    return Check(Meld("set", tuple(cards), done), ambiguous=ambiguous)


def _position(rank: Rank, window: range) -> int | None:
    if rank is Rank.ACE:
        return 1 if 1 in window else (14 if 14 in window else None)
    return rank.number if rank.number in window else None


def _fit_run(cards: Sequence[Face], declared: Mapping[int, Stand], suit: Suit, window: range) -> Meld | None:
    """The run of ``suit`` over ``window`` that ``cards`` make, if any (2s take their own place first)."""
    placed: dict[int, int] = {}  # position -> card index
    loose: list[int] = []
    for index, face in enumerate(cards):
        target = face if isinstance(face, Card) and face.rank is not Rank.TWO else declared.get(index)
        if target is None:
            loose.append(index)
            continue
        if isinstance(target, Card) and target.suit is not suit:
            return None
        position = _position(target if isinstance(target, Rank) else target.rank, window)
        if position is None or position in placed:
            return None
        placed[position] = index
    two = Card(Rank.TWO, suit)
    if 2 in window and 2 not in placed:
        for index in loose:
            if cards[index] == two:
                placed[2] = index
                loose.remove(index)
                break
    free = [p for p in window if p not in placed]
    placed.update(zip(free, loose, strict=True))
    order = sorted(placed)
    stands = tuple(Card(_rank_at(p), suit) for p in order)
    faces = tuple(cards[placed[p]] for p in order)
    if not any(face == stand for face, stand in zip(faces, stands, strict=True)):
        return None  # no natural card
    return Meld("run", faces, stands)


def _check_run(cards: Sequence[Face], declared: Mapping[int, Stand]) -> Check:
    size = len(cards)
    if size > 13:
        return Check(None, f"a run has at most 13 cards (Ace high or low, not both), not {size}")
    found: list[Meld] = []
    for suit in _SUITS:
        for low in range(15 - size, 0, -1):  # highest run first
            meld = _fit_run(cards, declared, suit, range(low, low + size))
            if meld is not None:
                found.append(meld)
    if not found:
        return Check(None, _run_reason(cards, declared))
    most = max(sum(m.is_natural(i) for i in range(size)) for m in found)
    best = [m for m in found if sum(m.is_natural(i) for i in range(size)) == most]
    shapes = {frozenset(m.stands) for m in found}
    return Check(best[0], ambiguous=len(shapes) > 1)


def _run_reason(cards: Sequence[Face], declared: Mapping[int, Stand]) -> str:
    """Why ``cards`` make no run, in words."""
    if all(isinstance(c, Joker) for c in cards):
        return "a meld needs at least one natural card (jokers and 2s are wild)"
    fixed = [c for c in cards if isinstance(c, Card) and c.rank is not Rank.TWO]
    targets: list[Stand] = [*fixed, *(s for i, s in declared.items() if is_wild(cards[i]))]
    suits = sorted({s.suit for s in targets if isinstance(s, Card)}, key=_SUITS.index)
    if len(suits) > 1:
        return "a run's cards must all be one suit (" + ", ".join(s.value for s in suits) + ")"
    doubled = [c for c in fixed if fixed.count(c) > 1]
    if doubled:
        return f"a run cannot hold two {doubled[0]}"
    ranks = [s if isinstance(s, Rank) else s.rank for s in targets]
    clash = [r for r in ranks if ranks.count(r) > 1]
    if clash:
        return f"two cards stand for the {clash[0]} in one run"
    if not fixed:
        return "a meld needs at least one natural card: a 2 is natural only in its own place (AH 2H 3H)"
    size = len(cards)
    numbers = sorted(r.number for r in ranks)
    others = [n for n in numbers if n != 1]
    if others and len(others) < len(numbers):  # an Ace and other cards
        lows, highs = [n for n in others if n <= 7], [n for n in others if n > 7]
        straight = min(max(others), 15 - min(others))  # places needed with the Ace low, or high
        if lows and highs and max(lows) + 13 - min(highs) + 1 < straight:
            return f"{_cards_text(cards)}: an Ace is high (Q-K-A) or low (A-2-3), never round the corner (K-A-2)"
        return f"{_cards_text(cards)}: the cards are too far apart for a run of {size}"
    if numbers[-1] - numbers[0] + 1 > size:
        low, high = _rank_at(numbers[0]), _rank_at(numbers[-1])
        return f"{_cards_text(cards)}: {low} to {high} needs more places than the {size} cards"
    return f"{_cards_text(cards)} do not make a run"


# -- lay-offs and swaps --------------------------------------------------------------------------
def _fixed(meld: Meld) -> dict[int, Stand]:
    """What the wilds of a meld on the table stand for (kept when cards are added)."""
    return {i: meld.stands[i] for i, c in enumerate(meld.cards) if is_wild(c)}


def check_layoff(
    meld: Meld,
    cards: Sequence[Face],
    declared: Mapping[int, Stand] | None = None,
    *,
    distinct_suits: bool = False,
) -> Check:
    """Can ``cards`` go onto ``meld``? Wilds already there keep their places; ``declared`` indexes ``cards``."""
    if not cards:
        return Check(None, "a lay-off needs at least one card")
    combined = list(meld.cards) + list(cards)
    fixed = _fixed(meld)
    fixed.update({len(meld.cards) + i: s for i, s in (declared or {}).items()})
    check = check_meld(meld.kind, combined, fixed, distinct_suits=distinct_suits)
    if check.ok:
        return check
    reason = f"{_cards_text(cards)} cannot go on {meld}: {check.reason}"
    own = {len(meld.cards) + i: s for i, s in (declared or {}).items()}
    other = check_meld(meld.kind, list(meld.cards), distinct_suits=distinct_suits).ambiguous  # laid, read otherwise?
    if fixed != own and other and check_meld(meld.kind, combined, own, distinct_suits=distinct_suits).ok:
        # the wilds there were read so when laid ("is declared as", though nobody had: a differential audit, session 39)
        reason += "; the wilds on the table keep what they stand for (to read them otherwise, correct the event that "
        reason += "laid them)"
    return Check(None, reason)


def check_swap(meld: Meld, natural: Face, wild: Face) -> Check:
    """Can ``natural`` replace the ``wild`` in ``meld`` (the wild standing for exactly that card)?"""
    if isinstance(natural, Joker):
        return Check(None, "a joker is wild: only a natural card can replace a wild")
    assert isinstance(natural, Card)
    if not is_wild(wild):
        return Check(None, f"{wild} is not wild: only a joker or a 2 standing for another card can be replaced")
    spots = [i for i, c in enumerate(meld.cards) if c == wild]
    if not spots:
        return Check(None, f"there is no {wild} in {meld}")
    replaceable = [i for i in spots if not meld.is_natural(i)]
    if not replaceable:
        return Check(None, f"the {wild} in {meld} stands for itself and cannot be replaced")
    for index in replaceable:
        stand = meld.stands[index]
        if stand == natural or (isinstance(stand, Rank) and natural.rank is stand):
            cards, stands = list(meld.cards), list(meld.stands)
            cards[index] = stands[index] = natural  # a natural stands for itself, as every other one does
            return Check(Meld(meld.kind, tuple(cards), tuple(stands)))
    wanted = " or ".join(_stand_text(meld.stands[i]) for i in replaceable)
    return Check(None, f"the {wild} in {meld} stands for {wanted}, not {natural}")


# -- requirements --------------------------------------------------------------------------------
def describe_requirement(deal: int) -> str:
    """``two sets of 3``, ``a set of 3 and a run of 4`` …"""
    parts = [
        f"{_WORDS[n]} {kind}{'s' if n > 1 else ''} of {size}" for (kind, size), n in Counter(REQUIREMENTS[deal]).items()
    ]
    return " and ".join(parts)


def _assign(melds: Sequence[Meld], need: Sequence[tuple[str, int]], used: frozenset[int] = frozenset()) -> bool:
    if not need:
        return True
    kind, size = need[0]
    return any(
        _assign(melds, need[1:], used | {i})
        for i, m in enumerate(melds)
        if i not in used and m.kind == kind and len(m.cards) >= size
    )


def meets_requirement(melds: Sequence[Meld], deal: int) -> bool:
    """Whether some of ``melds`` (distinct ones) make deal ``deal``'s required first meld."""
    return _assign(melds, REQUIREMENTS[deal])


def requirement_shortfall(melds: Sequence[Meld], deal: int) -> str:
    """What the melds shown lack, in words (empty if they meet the requirement)."""
    if meets_requirement(melds, deal):
        return ""
    shown = ", ".join(f"a {m.kind} of {len(m.cards)}" for m in melds) or "no valid meld"
    return f"deal {deal} needs {describe_requirement(deal)} first; shown: {shown}"


def _multisets(counts: Mapping[Face, int], size: int) -> Iterator[tuple[Face, ...]]:
    """Every distinct multiset of ``size`` faces drawn from ``counts``."""
    pool = [face for face, n in sorted(counts.items(), key=lambda kv: face_key(kv[0])) for _ in range(n)]
    seen: set[tuple[Face, ...]] = set()
    for combo in combinations(pool, size):
        if combo not in seen:
            seen.add(combo)
            yield combo


def _set_candidates(size: int, pool: Counter[Face], distinct: bool) -> Iterator[Meld]:
    for rank in Rank:
        natural: dict[Face, int] = {f: n for f, n in pool.items() if isinstance(f, Card) and f.rank is rank and n > 0}
        if distinct:
            natural = dict.fromkeys(natural, 1)
        wilds = {f: n for f, n in pool.items() if n > 0 and is_wild(f) and f not in natural}
        for count in range(min(size, sum(natural.values())), 0, -1):
            for chosen in _multisets(natural, count):
                for extra in _multisets(wilds, size - count):
                    check = _check_set(chosen + extra, {}, distinct)
                    if check.meld is not None:
                        yield check.meld


def _run_candidates(size: int, pool: Counter[Face]) -> Iterator[Meld]:
    wild_counts = {f: n for f, n in pool.items() if n > 0 and is_wild(f)}
    total_wild = sum(wild_counts.values())
    for suit in _SUITS:
        for low in range(15 - size, 0, -1):
            places = [(p, Card(_rank_at(p), suit)) for p in range(low, low + size)]
            have = [(p, c) for p, c in places if pool[c] > 0]
            for count in range(len(have), 0, -1):
                if size - count > total_wild:
                    break
                for chosen in combinations(have, count):
                    spare = Counter(wild_counts)
                    spare.subtract(c for _, c in chosen)
                    taken = dict(chosen)
                    gaps = [p for p, _ in places if p not in taken]
                    for extra in _multisets(+spare, len(gaps)):
                        by_place = {**taken, **dict(zip(gaps, extra, strict=True))}
                        yield Meld(
                            "run",
                            tuple(by_place[p] for p, _ in places),
                            tuple(c for _, c in places),
                        )


def find_requirement(hand: Iterable[Face], deal: int, *, distinct_suits: bool = False) -> tuple[Meld, ...] | None:
    """Melds from ``hand`` that make deal ``deal``'s requirement (each of the minimum size), or ``None``."""
    need = sorted(REQUIREMENTS[deal], key=lambda item: item[0] != "run")  # runs are scarcer: try them first
    failed: set[tuple[int, frozenset[tuple[Face, int]]]] = set()

    def search(step: int, pool: Counter[Face]) -> list[Meld] | None:
        if step == len(need):
            return []
        key = (step, frozenset((+pool).items()))
        if key in failed:
            return None
        kind, size = need[step]
        candidates = _run_candidates(size, pool) if kind == "run" else _set_candidates(size, pool, distinct_suits)
        for meld in candidates:
            rest = pool.copy()
            rest.subtract(meld.cards)
            found = search(step + 1, +rest)
            if found is not None:
                return [meld, *found]
        failed.add(key)
        return None

    found = search(0, Counter(hand))
    return None if found is None else tuple(found)
