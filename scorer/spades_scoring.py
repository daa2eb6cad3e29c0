"""Spades scoring as pure functions: the house rules, one hand's points per team, and the winner.

Both ways of feeding a hand to :mod:`scorer.spades` (card by card, or score-only bids and
tricks) end in :func:`score_hand`, so they cannot disagree. Per team and hand:

* **contract** = the sum of the partners' bids (a Nil bidder adds 0); made: +10 per trick bid
  and +1 per extra trick (a **bag**); failed: −10 per trick bid;
* **Nil** (bid 0): ``+nil_value`` if the bidder took no trick, ``−nil_value`` otherwise;
  **Blind Nil** the same with ``blind_nil_value``; both partners' Nil results add;
* a failed Nil bidder's tricks, by ``failed_nil_tricks``: ``bags_only`` (default) they do
  not help the partner's contract but count as bags; ``help_contract`` they count toward the
  partner's contract; ``ignored`` they count for nothing;
* **bags** accumulate; each time they reach ``bag_limit`` the team loses ``bag_penalty`` and
  the count drops by ``bag_limit`` (21 bags in one hand from 0: −200, 1 carried).

The game ends after a hand in which a team has reached ``target`` (or, with ``mercy`` set, a
team has fallen to ``mercy`` or below); the higher total wins; an exact tie plays another hand.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any

from scorer.game import Option

__all__ = [
    "OPTIONS",
    "Rules",
    "TeamScore",
    "blind_nil_allowed",
    "game_winner",
    "is_game_end",
    "score_hand",
    "score_team",
]

Json = Any

OPTIONS: tuple[Option, ...] = (
    Option("target", 500, "points a team needs to win", kind="int", low=10, high=10000),
    Option("bag_limit", 10, "bags that cost a penalty (then drop by this many)", kind="int", low=1, high=100),
    Option("bag_penalty", 100, "points lost each time a team's bags reach the bag limit", kind="int", low=0, high=1000),
    Option("nil_value", 100, "points won (or lost) by a Nil bid", kind="int", low=0, high=1000),
    Option("blind_nil_value", 200, "points won (or lost) by a Blind Nil bid", kind="int", low=0, high=1000),
    Option(
        "blind_nil_requires_deficit",
        0,
        "0: Blind Nil is always allowed; N: only for a team behind by at least N points (pagat: 100)",
        kind="int",
        low=0,
        high=10000,
    ),
    Option(
        "blind_nil_exchange",
        3,
        "cards the Blind Nil bidder and partner exchange (0: no exchange)",
        choices=(0, 2, 3, 4),
    ),
    Option(
        "failed_nil_tricks",
        "bags_only",
        "tricks of a failed Nil bidder: bags only, also help the partner's contract, or ignored",
        choices=("bags_only", "help_contract", "ignored"),
    ),
    Option(
        "first_lead",
        "left_of_dealer",
        "who leads the first trick: left of the dealer, or the holder of the 2 of clubs (leading it)",
        choices=("left_of_dealer", "two_of_clubs"),
    ),
    Option(
        "mercy",
        0,
        "0: off; a negative N: a team whose score falls to N or lower loses",
        kind="int",
        low=-10000,
        high=0,
    ),
)


@dataclass(frozen=True)
class Rules:
    """The resolved house rules (see :data:`OPTIONS` for their meaning)."""

    target: int = 500
    bag_limit: int = 10
    bag_penalty: int = 100
    nil_value: int = 100
    blind_nil_value: int = 200
    blind_nil_requires_deficit: int = 0
    blind_nil_exchange: int = 3
    failed_nil_tricks: str = "bags_only"
    first_lead: str = "left_of_dealer"
    mercy: int = 0

    @classmethod
    def from_options(cls, options: Mapping[str, Json]) -> Rules:
        """From options already checked by ``GameSpec.resolve`` (missing ones take the default)."""
        return cls(**{f.name: options[f.name] for f in fields(cls) if f.name in options})


@dataclass(frozen=True)
class TeamScore:
    """One team's result for one hand, and its standing after it."""

    contract: int  # sum of the partners' bids (Nil adds 0)
    tricks: int  # tricks the partners took, all of them
    counted: int  # tricks that count toward the contract
    made: bool
    contract_points: int  # +10 or −10 per trick bid
    nil_points: int  # Nil and Blind Nil bonuses and penalties
    bags: int  # bags this hand (+1 point each)
    bag_penalty: int  # bag penalties this hand (0 or negative)
    points: int  # the hand's points: contract + nil + bags + bag penalty
    total: int  # running total after the hand
    bag_count: int  # bags carried after the hand

    def to_json(self) -> dict[str, Json]:
        return {
            "contract": self.contract,
            "tricks": self.tricks,
            "counted": self.counted,
            "made": self.made,
            "contract_points": self.contract_points,
            "nil_points": self.nil_points,
            "bags": self.bags,
            "bag_penalty": self.bag_penalty,
            "points": self.points,
            "total": self.total,
            "bag_count": self.bag_count,
        }


def score_team(
    bids: Sequence[int],
    blind: Sequence[bool],
    tricks: Sequence[int],
    total_before: int,
    bags_before: int,
    rules: Rules,
) -> TeamScore:
    """Score one partnership's hand: each partner's bid (0 = Nil), Blind flag and tricks taken."""
    contract = counted = nil_points = nil_bags = 0
    for bid, is_blind, taken in zip(bids, blind, tricks, strict=True):
        if bid > 0:
            contract += bid
            counted += taken
            continue
        value = rules.blind_nil_value if is_blind else rules.nil_value
        nil_points += value if taken == 0 else -value
        if rules.failed_nil_tricks == "help_contract":
            counted += taken
        elif rules.failed_nil_tricks == "bags_only":
            nil_bags += taken
    made = counted >= contract
    contract_points = 10 * contract if made else -10 * contract
    bags = nil_bags + (counted - contract if made else 0)
    penalties, bag_count = divmod(bags_before + bags, rules.bag_limit)
    bag_penalty = -penalties * rules.bag_penalty
    points = contract_points + nil_points + bags + bag_penalty
    return TeamScore(
        contract=contract,
        tricks=sum(tricks),
        counted=counted,
        made=made,
        contract_points=contract_points,
        nil_points=nil_points,
        bags=bags,
        bag_penalty=bag_penalty,
        points=points,
        total=total_before + points,
        bag_count=bag_count,
    )


def score_hand(
    bids: Sequence[int],
    blind: Sequence[bool],
    tricks: Sequence[int],
    totals: Sequence[int],
    bag_counts: Sequence[int],
    rules: Rules,
) -> tuple[TeamScore, TeamScore]:
    """Score a hand for both teams (seats 0 & 2, then 1 & 3), given the standings before it."""
    if len(bids) != 4 or len(blind) != 4 or len(tricks) != 4:
        raise ValueError("a Spades hand has four bids, four Blind flags and four trick counts")
    first = score_team(bids[0::2], blind[0::2], tricks[0::2], totals[0], bag_counts[0], rules)
    second = score_team(bids[1::2], blind[1::2], tricks[1::2], totals[1], bag_counts[1], rules)
    return first, second


def is_game_end(totals: Sequence[int], rules: Rules) -> bool:
    """Whether a team has reached ``target`` (or fallen to ``mercy``): the game ends unless tied."""
    if any(total >= rules.target for total in totals):
        return True
    return bool(rules.mercy) and any(total <= rules.mercy for total in totals)


def game_winner(totals: Sequence[int], rules: Rules) -> int | None:
    """The winning team (0 or 1) after a hand with these totals, or ``None`` while play goes on
    (an exact tie at the end plays another hand)."""
    if not is_game_end(totals, rules) or totals[0] == totals[1]:
        return None
    return 0 if totals[0] > totals[1] else 1


def blind_nil_allowed(team: int, totals: Sequence[int], rules: Rules) -> bool:
    """Whether ``team`` may bid Blind Nil (``blind_nil_requires_deficit``: behind by that much)."""
    if not rules.blind_nil_requires_deficit:
        return True
    return totals[1 - team] - totals[team] >= rules.blind_nil_requires_deficit
