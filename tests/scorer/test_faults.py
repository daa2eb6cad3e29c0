"""Faults and refusals this session's changes handle, pinned where a mutation audit (session 41) found no test would
notice them broken."""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest

from scorer.events import EventError, GameEvent, Source, parse_log
from scorer.session import Session
from tests.scorer.test_push import table


def test_the_wild_turned_again_is_another_wild_while_its_twin_can_be_in_the_stock() -> None:  # kills P2
    """The 2D upcard buried, and a 2D turned: the other 2D is unseen, so it is taken (another wild to bury)."""
    t = table(upcard=True)
    t.send(("deal", {"dealer": "Charlie", "upcard": "2D"}))
    assert t.codes(("upcard", {"card": "2D"})) == ["wild_upcard"]


def test_an_upcard_known_elsewhere_says_it_cannot_be_in_the_stock() -> None:  # kills P3
    """Only the wild being buried gets the 'bury it inside the stock' message; a card known elsewhere keeps
    '... cannot be in the stock: every 9C is somewhere else'."""
    t = table(upcard=True)
    t.send(("deal", {"dealer": "Charlie", "upcard": "2D", "hands": {"David": ["9C", "9C", "4S", "7C", "8S", "KD"]}}))
    with pytest.raises(EventError, match="9C cannot be in the stock: every 9C is somewhere else"):
        t.send(("upcard", {"card": "9C"}))


@pytest.mark.parametrize("game", ["spades", "snap", "spit", "ten", "push"])
def test_a_rewound_session_keeps_its_refusals_and_alert_bookkeeping(game: str) -> None:  # kills S4 S5 S6 S7
    """As test_a_session_rewound_to_a_checkpoint_is_the_session_it_was, with refused, reruled, faults_before."""
    path = sorted((Path(__file__).parents[1] / "golden" / game).glob("*.jsonl"))[0]
    log = parse_log(path.read_text(encoding="utf-8").splitlines())
    session = Session(log.header.game, log.header.players, log.header.options)

    def books(s: Session) -> tuple:
        return (
            dict(s.refused),
            dict(s.reruled),
            {k: {n: set(c) for n, c in v.items()} for k, v in s.faults_before.items()},
        )

    for event in log.events:
        undo_first = GameEvent(event.seq, event.ts, Source.MANUAL, "undo", {"target": 1})  # later events fouled
        for trial in (
            event,
            GameEvent(event.seq, event.ts, Source.MANUAL, "undo", {"target": event.seq - 1}),
            undo_first,
        ):
            if trial.type == "undo" and event.seq == 1:
                continue
            before = books(session)
            mark = session.checkpoint()
            with contextlib.suppress(EventError):
                session.append(trial)
            session.rewind(mark)
            assert books(session) == before
        session.append(event)


def test_a_checkpoint_can_be_rewound_to_twice() -> None:  # kills S8 (latent: the hub rewinds to a mark once)
    path = sorted((Path(__file__).parents[1] / "golden" / "snap").glob("*.jsonl"))[0]
    log = parse_log(path.read_text(encoding="utf-8").splitlines())
    session = Session(log.header.game, log.header.players, log.header.options)
    mark = session.checkpoint()
    for _ in range(2):
        session.append(log.events[0])
        session.rewind(mark)
    assert session.events == []
