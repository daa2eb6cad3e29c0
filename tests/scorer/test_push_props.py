"""Push invariants over random games played by simple bots (see :mod:`tests.scorer.push_play`).

* the 108 cards are conserved after every event, no face beyond its copies, and the unseen cards are
  exactly the hidden hand cards plus the hidden stock;
* the referee accepts every event of a legal game and finds no foul and no unaccounted card in it;
* replaying the log gives the live state and rulings; the log round-trips through JSON;
* the same seed gives the same game and the same scores.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from scorer.events import format_log, parse_log
from scorer.game import Severity
from scorer.push import PushState
from scorer.push_table import DECK, seen, unseen
from scorer.session import replay
from tests.scorer.push_play import Table, random_game


def assert_conserved(state: PushState) -> None:
    if state.phase not in ("play", "counting"):
        assert state.stock == 0 and not state.discard and not state.melds
        return
    on_table = sum(len(t.meld.cards) for t in state.melds)
    assert state.stock + len(state.discard) + sum(h.count for h in state.hands) + on_table == 108
    assert not seen(state) - DECK, "a card seen more often than Push has it"
    hidden = state.stock + sum(h.hidden for h in state.hands)
    assert sum(unseen(state).values()) == hidden
    assert all(h.hidden >= 0 for h in state.hands)


def play(seed: int, bury: bool) -> Table:
    t = Table({"upcard": bury})
    for item in random_game(seed, bury_wild_upcard=bury):
        t.send(item)
        assert_conserved(t.state)
    return t


@settings(max_examples=8, deadline=None)
@given(st.integers(0, 2**32), st.booleans())
def test_random_games_conserve_cards_and_replay(seed: int, bury: bool) -> None:
    t = play(seed, bury)
    session = t.session
    sheet = session.score()
    assert sheet.finished and len(sheet.history) == 5 and sheet.winner
    loud = [r for r in session.rulings if r.severity in (Severity.FOUL, Severity.ERROR)]
    assert not loud, loud[:3]
    assert sum(sheet.totals.values()) == sum(sum(row["points"].values()) for row in sheet.history)

    again = replay(session.log())
    assert again.state == session.state and again.rulings == session.rulings

    text = format_log(session.log())
    assert parse_log(text.splitlines()) == session.log()
    assert replay(parse_log(text.splitlines())).summary() == session.summary()


@settings(max_examples=2, deadline=None)
@given(st.integers(0, 2**32))
def test_same_seed_same_game(seed: int) -> None:
    assert random_game(seed) == random_game(seed)
    first = play(seed, True)
    assert replay(first.session.log()).summary() == first.session.summary()


def test_fixed_games_reach_both_endings() -> None:
    """The bots of these seeds go out, and run the stock down with a push of its last card."""
    endings: set[str] = set()
    for seed in (0, 1):
        t = play(seed, True)
        endings |= {r.code for r in t.session.rulings}
    assert {"went_out", "stock_empty"} <= endings
