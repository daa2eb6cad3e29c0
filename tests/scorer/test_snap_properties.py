"""Snap invariants over random games with random calls (valid, late, false, simultaneous).

After every event: all 52 cards are accounted for, exactly once; a ``match`` alert stands
exactly while its match is on the table (the matches are recomputed here from the face-up tops
alone); a player is out exactly when they hold no cards. After the game: replaying the log
gives the live state and rulings, and the log survives a JSON round trip.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from scorer.cards import standard_deck
from scorer.events import GameEvent, Source, format_log, parse_log
from scorer.session import replay
from scorer.snap import even_counts, possible_flips
from scorer.snap_calls import settle
from scorer.snap_table import SnapState
from tests.scorer.snap_support import Table, accounting_problems, alert_key, expected_matches

NAMES = ("Alex", "Beth", "Cara", "Dana", "Eli")
OPTIONS = st.fixed_dictionaries(
    {
        "match": st.sampled_from(["rank", "suit", "colour"]),
        "false_call_penalty": st.sampled_from(["card_to_turner", "card_to_each", "pile_to_pot"]),
        "callers": st.sampled_from(["anyone", "owners_only"]),
        "tie_window_ms": st.sampled_from([0, 150, 400]),
        "call_style": st.sampled_from(["voice", "voice", "slap"]),
    }
)
ACTIONS = ["flip"] * 6 + ["flip_anyone", "call", "call", "call", "call", "resolve", "turn_over"]
GAPS = [0, 0, 20, 100, 149, 150, 151, 400, 1000, -30]  # ms after the previous event (ties, late calls, …)


def _deal(data: st.DataObject, players: tuple[str, ...], dealer: int) -> dict[str, Any]:
    if not data.draw(st.booleans(), label="order known"):
        return {}
    deck = data.draw(st.permutations(standard_deck()), label="deck")
    order: dict[str, list[str]] = {}
    start = 0
    for seat, count in sorted(even_counts(len(players), dealer).items()):
        order[players[seat]] = [str(c) for c in deck[start : start + count]]
        start += count
    return {"order": order}


def _step(data: st.DataObject, table: Table) -> bool:
    """Send one random, physically possible event; ``False`` when there was nothing to send."""
    action = data.draw(st.sampled_from(ACTIONS), label="action")
    ts = max(0, table.ts + data.draw(st.sampled_from(GAPS), label="gap"))
    state = table.state
    if action not in ("call", "resolve"):  # a flip or turn-over settles pending calls first: see what it sees
        state, _ = settle(state, GameEvent(0, ts, Source.MANUAL, "resolve", {}))
        if state.phase == "over":
            action = "resolve"
    seats = range(len(state.players))
    live = [seat for seat in seats if seat not in state.out_seats]
    if action in ("flip", "flip_anyone"):
        seat = state.turn if action == "flip" else data.draw(st.sampled_from(live), label="flipper")
        card = data.draw(st.sampled_from(possible_flips(state, seat)), label="card")
        table.flip(state.players[seat], str(card), ts)
    elif action == "call":
        seat = data.draw(st.sampled_from(list(seats)), label="caller")  # out players too
        kind = "slap" if state.style == "slap" else data.draw(st.sampled_from(["snap", "snap_pot"]), label="kind")
        table.call(state.players[seat], kind, ts)
    elif action == "resolve":
        table.resolve(ts)
    else:
        empty = [seat for seat in live if not state.face_down[seat]]
        if not empty:
            return False
        table.send("turn_over", ts, player=state.players[data.draw(st.sampled_from(empty), label="turner")])
    return True


def _check_table(table: Table, alerts: set[Any]) -> None:
    state: SnapState = table.state
    assert accounting_problems(state) == []
    view = table.view
    assert sum(p["face_down"] + p["face_up"] for p in view["piles"]) + view["pot"]["cards"] == 52
    for ruling in table.last:
        if ruling.code == "match":
            assert alert_key(ruling) not in alerts
            alerts.add(alert_key(ruling))
        elif ruling.code == "match_gone":
            alerts.remove(alert_key(ruling))
    assert alerts == expected_matches(state)
    assert bool(view["matches"]) == bool(alerts)
    for pile in view["piles"]:
        assert pile["out"] == (pile["face_down"] + pile["face_up"] == 0)
    assert (view["winner"] is not None) == (state.phase == "over")


@settings(max_examples=100, deadline=None)
@given(data=st.data())
def test_random_games_keep_every_card_and_alert_exactly_on_matches(data: st.DataObject) -> None:
    count = data.draw(st.integers(2, 5), label="players")
    players = NAMES[:count]
    dealer = data.draw(st.integers(0, count - 1), label="dealer")
    options = data.draw(OPTIONS, label="options")
    table = Table(players, dealer=players[dealer], deal=_deal(data, players, dealer), **options)
    alerts: set[Any] = set()
    _check_table(table, alerts)
    for _ in range(data.draw(st.integers(0, 150), label="steps")):
        if table.state.phase == "over":
            break
        if _step(data, table):
            _check_table(table, alerts)

    log = table.session.log()
    again = replay(log)
    assert again.state == table.session.state
    assert again.rulings == table.session.rulings
    assert [r.to_json() for r in again.rulings] == [r.to_json() for r in table.session.rulings]
    parsed = parse_log(format_log(log).splitlines())
    assert parsed == log
    assert replay(parsed).state == table.session.state
    sheet = table.session.score()
    assert sum(sheet.totals.values()) + len(table.state.pot) == 52
    assert sheet.finished == (table.state.phase == "over")


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_undoing_the_last_event_restores_the_table(data: st.DataObject) -> None:
    players = NAMES[:3]
    table = Table(players, dealer="Cara", deal=_deal(data, players, 2), **data.draw(OPTIONS, label="options"))
    for _ in range(data.draw(st.integers(1, 40), label="steps")):
        if table.state.phase == "over":
            break
        before = table.state
        if _step(data, table):
            after = table.state
            table.send("undo", target=table.session.events[-1].seq)
            assert table.state == before
            table.send("undo", target=table.session.events[-1].seq)  # undo the undo: the event counts again
            assert table.state == after
