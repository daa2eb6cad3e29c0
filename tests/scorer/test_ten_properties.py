"""Ten's invariants on random games (1-5 players, every option value): cards and tokens are
conserved, a foul changes nothing, every game ends with a winner, replay equals the live game,
logs round-trip through JSON, the same seed gives the same game."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from scorer.events import GameEvent, Source, format_log, parse_log
from scorer.game import Severity
from scorer.session import Session, replay
from scorer.ten import GAME
from scorer.ten_state import Phase
from tests.scorer.ten_support import check_bookkeeping, random_game, start

NAMES = ("Alex", "Beth", "Cara", "Dana", "Eli")
OPTIONS = st.fixed_dictionaries(
    {
        "complete_run_bonus": st.sampled_from([9, 10, 15]),
        "token_cap": st.sampled_from([5, 10, 12]),
        "currency_subtracts": st.booleans(),
    }
)


@settings(max_examples=12, deadline=None)
@given(st.integers(0, 2**32), st.integers(1, 5), OPTIONS)
def test_cards_and_tokens_are_conserved_and_fouls_change_nothing(seed: int, count: int, options: dict) -> None:
    players = NAMES[:count]
    state = start(players, **options)
    check_bookkeeping(state)
    for item in random_game(seed, players, **options):
        before = state
        state, rulings = GAME.apply(state, item)
        if any(r.severity is Severity.FOUL for r in rulings):
            assert state == before and len(rulings) == 1
        check_bookkeeping(state)
    assert state.phase is Phase.OVER
    sheet = GAME.score(state)
    assert sheet.finished and sheet.winner and set(sheet.winner) <= set(players)
    assert sheet.history[-1]["count"] == "final"


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 2**32), st.integers(1, 5), OPTIONS)
def test_replay_equals_the_live_game_and_logs_round_trip(seed: int, count: int, options: dict) -> None:
    players = NAMES[:count]
    live = Session("ten", players, options)
    for item in random_game(seed, players, limit=150, **options):
        live.append(item)
    again = replay(live.log())
    assert again.state == live.state and again.rulings == live.rulings
    text = format_log(live.log())
    assert parse_log(text.splitlines()) == live.log()
    from_text = replay(parse_log(text.splitlines()))
    assert from_text.state == live.state and from_text.summary() == live.summary()


@settings(max_examples=5, deadline=None)
@given(st.integers(0, 2**32))
def test_the_same_seed_gives_the_same_game(seed: int) -> None:
    assert random_game(seed, NAMES[:3], limit=120) == random_game(seed, NAMES[:3], limit=120)


def test_undo_of_the_last_event_restores_the_state() -> None:
    session = Session("ten", NAMES[:2])
    states = [session.state]
    for item in random_game(7, NAMES[:2], limit=40):
        session.append(item)
        states.append(session.state)
    session.append(GameEvent(session.next_seq, 0, Source.MANUAL, "undo", {"target": session.events[-1].seq}))
    assert session.state == states[-2]
