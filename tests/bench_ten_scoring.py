"""Benchmark of Ten's exact scorer (:func:`scorer.ten_scoring.best_score`) on random collections.

Run: ``.venv/bin/python tests/bench_ten_scoring.py`` (options: ``--hands N``, ``--seed S``).
Not a test (pytest collects only ``test_*.py``): it prints a table of times per collection, the
figure quoted in ``docs/games/ten.md``.

Each collection is drawn without replacement from the real 129-card deck, so it is one a player
could hold: number cards (duplicates of a colour and number are possible, as in play) and wilds
(at most 2 colour wilds per colour, one rainbow wild per number, one full wild). Each hand is timed
as the best of 3 runs, so that a busy machine inflates the figures less.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from scorer.ten_scoring import best_score
from scorer.tencards import TenCard, TenKind, parse_ten_card, ten_deck

DECK = ten_deck(5)
NUMBERS = [card for card in DECK if card.kind is TenKind.NUMBER]
WILDS = [card for card in DECK if card.is_wild]

#: The hardest collections found so far: a hill climb over real collections (adding and removing
#: cards, keeping the change when the search had to check more runs) from random starts.
HARDEST = [
    "*# *1 *2 *3 *4 *5 *6 *7 *8 *9 B4 B4 B6 G1 G6 G9 O4 O4 O6 O6 O6 R# R1 R6",
    "*# *1 *2 *4 *5 *6 *7 *8 *9 B# B2 B6 G3 G6 G6 O# O# O4 O4 O5 O6 O6 R# R# R5 R5 R6 R6",
    "*# *1 *3 *4 *5 *6 *7 *8 *9 B# B3 B6 G1 O3 O6 O9 R# R3 R3 R3 R6 R9",
    "*# *1 *2 *3 *4 *5 *6 *7 *8 *9 B1 B1 B1 B3 B3 B8 G# G1 G1 G6 G6 G8 O3 O6 O6 O6 R3 R3 R6 R8",
    "*# *1 *2 *3 *4 *6 *7 *8 *9 B# B2 B6 G3 G3 G3 G6 O# O# O5 O5 O6 O6 R3 R3 R3 R6",
]

#: (label, number cards (low, high), wilds (low, high))
SCENARIOS = [
    ("realistic: 10-40 numbers, 0-6 wilds", (10, 40), (0, 6)),
    ("many wilds: 0-40 numbers, 8-18 wilds", (0, 40), (8, 18)),
    ("every wild (18), 0-15 numbers", (0, 15), (18, 18)),
]


def _hand(rng: random.Random, numbers: tuple[int, int], wilds: tuple[int, int]) -> list[TenCard]:
    return rng.sample(NUMBERS, rng.randint(*numbers)) + rng.sample(WILDS, rng.randint(*wilds))


def _time_ms(hand: list[TenCard]) -> float:
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        best_score(hand)
        best = min(best, time.perf_counter() - start)
    return best * 1000


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=1000, help="collections per scenario (default 1000)")
    parser.add_argument("--seed", type=int, default=2021, help="random seed (default 2021)")
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    print(f"best_score on {args.hands} random collections per scenario (seed {args.seed}), ms per collection")
    print(f"{'scenario':40} {'median':>7} {'p99':>7} {'max':>7}")
    for label, numbers, wilds in SCENARIOS:
        times = sorted(_time_ms(_hand(rng, numbers, wilds)) for _ in range(args.hands))
        p99 = times[min(len(times) - 1, int(0.99 * len(times)))]
        print(f"{label:40} {statistics.median(times):7.2f} {p99:7.2f} {times[-1]:7.2f}")
    hardest = sorted(_time_ms([parse_ten_card(text) for text in hand.split()]) for hand in HARDEST)
    label = f"hardest found ({len(HARDEST)}, see HARDEST)"
    print(f"{label:40} {statistics.median(hardest):7.2f} {'':>7} {hardest[-1]:7.2f}")


if __name__ == "__main__":
    main()
