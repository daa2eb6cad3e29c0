"""How long the Log tab's request takes in a long game: ``Hub.log_entries`` of a game of N score-only Spades hands
(one event each, so one history row each: the worst case for counting which event completed which row), the first
time and again once one more event is in (what a phone on the Log tab asks after each event).

Not collected by pytest. Run from the repository root::

    .venv/bin/python tests/bench_log.py                 # 1,000 and 2,000 hands
    .venv/bin/python tests/bench_log.py 500 4000
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scorer.events import GameEvent, GameLog, LogHeader, Source
from web.hub import Hub
from web.store import Store

PLAYERS = ("Alex", "Beth", "Charlie", "David")


def hand(seq: int) -> GameEvent:
    bids, tricks = ((7, 1, 6, 1), (0, 7, 0, 6)) if seq % 2 else ((1, 7, 1, 6), (7, 0, 6, 0))
    data = {"bids": dict(zip(PLAYERS, bids, strict=True)), "tricks": dict(zip(PLAYERS, tricks, strict=True))}
    return GameEvent(seq, seq * 1000, Source.MANUAL, "hand", data)


def main(sizes: list[int]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        hub = Hub(Store(Path(folder) / "bench.sqlite3"))
        for size in sizes:
            header = LogHeader("spades", PLAYERS, {"target": 10_000, "bag_penalty": 0})
            live = hub.import_log(GameLog(header, tuple(hand(seq) for seq in range(1, size + 1))))
            started = time.perf_counter()
            hub.log_entries(live)
            first = time.perf_counter() - started
            hub.append(live.record.id, {"type": "hand", **hand(size + 1).data}, "bench")
            started = time.perf_counter()
            hub.log_entries(live)
            again = time.perf_counter() - started
            print(f"{size} events: the Log's first load {first:.2f} s, after one more event {again:.3f} s", flush=True)


if __name__ == "__main__":
    if not all(arg.isdigit() and int(arg) > 0 for arg in sys.argv[1:]):
        sys.exit(f"usage: {sys.argv[0]} [HANDS ...]  (numbers of score-only Spades hands; default 1000 2000)")
    main([int(arg) for arg in sys.argv[1:]] or [1000, 2000])
