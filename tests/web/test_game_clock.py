"""The game's clock at a real game night: the laptop's wall clock stepped by NTP or by hand (after a sleep, at
boot) moves neither a running game's clock nor, across a restart, a game's clock back before its own events. A
step back stamped a later Snap call before an earlier one (the later press won), and a step back further than the
game's age held its clock at 0 (every phone's press refused, every race a tie); the clock audit, session 43."""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

import tests.scorer.toygame  # noqa: F401 (the toy game 'tally')
from tests.web.test_games_web import Clock, codes, ok, player_of, snap_match
from web.app import create_app, hub, store
from web.hub import RESUME_GAP_MS, Hub
from web.store import BUSY_S, ConflictError, Store, StoreUnavailable


def test_a_step_back_of_the_wall_clock_does_not_move_a_running_game_s_clock(
    app: Flask, host: FlaskClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The server's own clock (no clock put in by the test): Alex presses, NTP sets the laptop's clock back a minute,
    Beth presses after him. Her call was stamped a minute before his and won the Snap."""
    gid, player = snap_match(app, host)
    alex = ok(player, gid, type="call", player="Alex", kind="snap")["event"]["ts"]
    real = time.time
    monkeypatch.setattr(time, "time", lambda: real() - 60)
    time.sleep(0.3)  # (after the tie window of 150 ms)
    beth = ok(player, gid, type="call", player="Beth", kind="snap")["event"]["ts"]
    assert alex + 300 <= beth < alex + 5_000
    settled = ok(player, gid, type="resolve")
    assert codes(settled)[0] == "snap_won" and settled["rulings"][0]["player"] == "Alex"


def _started(db: Path, now: int) -> tuple[Flask, FlaskClient, Clock]:
    app = create_app({"TESTING": True, "DATABASE": str(db)})
    clock = Clock(now)
    hub(app).clock = clock
    return app, app.test_client(), clock


@pytest.mark.parametrize(
    "step", [0, -60_000, -3_600_000], ids=["no_step", "a_minute_back", "an_hour_back_more_than_the_game"]
)
def test_a_game_started_again_on_a_clock_set_back_goes_on_from_its_latest_event(tmp_path: Path, step: int) -> None:
    """Alex's call is pending when the server stops; it starts again 20 s later on a clock set back (by a minute, or
    by an hour, more than the game's ten minutes: its clock was 0). Beth's call, pressed after the start, is later
    than Alex's (it was stamped a minute before it and won); and the game's clock runs on, not held. With no step,
    the time the server was stopped counts, as before."""
    db = tmp_path / "t.sqlite3"
    app, host, clock = _started(db, 1_765_000_000_000)
    gid, player = snap_match(app, host)
    clock.now += 600_000
    alex = ok(player, gid, type="call", player="Alex", kind="snap")["event"]["ts"]
    stopped = clock.now
    store(app).close()

    app, host, clock = _started(db, stopped + 20_000 + step)
    player = player_of(app, gid)
    now: Any = player.get(f"/api/games/{gid}/clock").get_json()["now"]
    assert now == alex + (20_000 if step == 0 else RESUME_GAP_MS)
    clock.now += 500
    assert player.get(f"/api/games/{gid}/clock").get_json()["now"] == now + 500
    if step:  # (with none, Beth's call 20 s on settles Alex's first)
        beth = ok(player, gid, type="call", player="Beth", kind="snap")["event"]["ts"]
        assert beth == now + 500
        settled = ok(player, gid, type="resolve")
        assert codes(settled)[0] == "snap_won" and settled["rulings"][0]["player"] == "Alex"
        assert codes(settled)[-1] == "late_call"
    store(app).close()


def test_an_imported_log_whose_times_went_back_is_followed_by_later_times(app: Flask, host: FlaskClient) -> None:
    """A log whose last event is stamped before an earlier one (a clock set back while it was played): the game it
    is imported into went on from the last event's time, before the other one's."""
    clock = Clock()
    hub(app).clock = clock
    gid, player = snap_match(app, host)
    clock.now += 60_000
    latest = ok(player, gid, type="call", player="Alex", kind="snap")["event"]["ts"]
    clock.now -= 30_000  # (this test's clock can go back)
    ok(player, gid, type="call", player="Beth", kind="snap")
    text = host.get(f"/api/games/{gid}/export.jsonl").get_data(as_text=True)
    response = host.post("/api/import", json={"log": text})
    assert response.status_code == 201, response.get_json()
    imported = response.get_json()["id"]
    assert player_of(app, imported).get(f"/api/games/{imported}/clock").get_json()["now"] >= latest + 1000


ADD = {"type": "add", "player": "Ann", "points": 1}


def test_a_game_started_again_twice_goes_on_from_where_its_clock_was_not_back_to_its_latest_event(
    tmp_path: Path,
) -> None:
    """The clock set back before the first start; the players pause 40 s; the second start (no step) took the game's
    clock back 40 s, to its latest event (the review of the clock change, session 43): the moved epoch is stored."""
    db = tmp_path / "t.sqlite3"
    clock = Clock(1_000_000_000)
    store = Store(db)
    gid = Hub(store, clock).create("tally", ["Ann", "Bo"], {}).record.id
    clock.now += 600_000
    Hub(store, clock).append(gid, ADD, "host")
    store.close()
    clock.now += 20_000 - 60_000  # started again 20 s later, the clock set back a minute meanwhile
    store = Store(db)
    hub = Hub(store, clock)
    clock.now += 5_000
    hub.append(gid, ADD, "host")
    clock.now += 40_000
    live = hub.live(gid)
    assert live is not None
    before = hub.game_time(live)
    store.close()
    clock.now += 1_000  # started again a second later, no step
    store = Store(db)
    hub = Hub(store, clock)
    live = hub.live(gid)
    assert live is not None and hub.game_time(live) == before + 1_000
    store.close()


def test_a_start_that_moves_the_clock_waits_for_no_other_program_holding_the_database(tmp_path: Path) -> None:
    """Another program holding the write lock (a sqlite3 shell) as a start on a clock set back moves a game's
    epoch: the page opening the game waited BUSY_S (3 s), and every screen's reads with it (a review, session 43).
    It opens at once, its clock on from its latest event in memory, and a later start stores the move; an entry
    still waits for the other program's short write."""
    db = tmp_path / "t.sqlite3"
    clock = Clock(1_000_000_000)
    store = Store(db)
    gid = Hub(store, clock).create("tally", ["Ann", "Bo"], {}).record.id
    clock.now += 600_000
    Hub(store, clock).append(gid, ADD, "host")
    epoch = store.game(gid).epoch_ms  # type: ignore[union-attr]
    store.close()
    clock.now -= 60_000
    store = Store(db)
    hub = Hub(store, clock)
    shell = sqlite3.connect(db, isolation_level=None, check_same_thread=False)
    shell.execute("BEGIN IMMEDIATE")
    started = time.monotonic()
    live = hub.live(gid)
    waited = time.monotonic() - started
    done = threading.Timer(0.5, shell.execute, ("COMMIT",))
    done.start()
    started = time.monotonic()
    hub.append(gid, ADD, "host")
    entry_waited = time.monotonic() - started
    done.join()
    shell.close()
    assert waited < 1 and live is not None and hub.game_time(live) == 600_000 + RESUME_GAP_MS
    assert 0.4 < entry_waited < BUSY_S
    assert store.game(gid).epoch_ms == epoch  # type: ignore[union-attr]
    store.close()
    store = Store(db)
    assert Hub(store, clock).live(gid) is not None and store.game(gid).epoch_ms != epoch  # type: ignore[union-attr]
    store.close()


def test_two_processes_writing_one_game_keep_its_clock_with_the_time(tmp_path: Path) -> None:
    """Another process's entries (a tool on the same database): each time one came ahead of this process's clock
    (a phone's press is taken up to 2 s ahead), the clock was moved a second more, and two writers pushed each
    other's clocks on without end; and an entry after another process's whose clock was a minute ahead was
    stamped before it (the review of the clock change, session 43)."""
    db = tmp_path / "t.sqlite3"
    clock = Clock(2_000_000_000)
    first, second = Store(db), Store(db)
    a, b = Hub(first, clock), Hub(second, clock)
    gid = a.create("tally", ["Ann", "Bo"], {}).record.id
    clock.now += 10_000
    live = a.live(gid)
    assert live is not None
    a.append(gid, ADD, "player", client_ts=a.game_time(live) + 1_500)
    for _ in range(10):
        clock.now += 100
        for writer in (b, a):
            writer.append(gid, ADD, "host")
    for writer in (a, b):
        live = writer.live(gid)
        assert live is not None and writer.game_time(live) == 11_000
    ahead = Hub(Store(db), Clock(clock.now + 60_000))  # a process whose clock is a minute ahead
    late = ahead.append(gid, ADD, "host").event.ts
    record = first.game(gid)
    assert record is not None
    stored = record.epoch_ms
    assert a.append(gid, ADD, "host").event.ts >= late
    record = first.game(gid)
    assert record is not None and record.epoch_ms == stored  # (this process's clock only: stored, the other's went on)
    first.close()
    second.close()
    ahead.store.close()


def test_an_entry_that_meets_another_process_s_first_goes_on_after_it(tmp_path: Path) -> None:
    """Another process (its clock a minute ahead) stored its entry between this one's check and write: the entry was
    refused as already stored, and this process's next entry was stamped a minute before the other's."""
    db = tmp_path / "t.sqlite3"
    clock = Clock(3_000_000_000)
    first = Store(db)
    a = Hub(first, clock)
    gid = a.create("tally", ["Ann", "Bo"], {}).record.id
    ahead = Hub(Store(db), Clock(clock.now + 60_000))
    clock.now += 10_000
    ahead.live(gid)
    real_refresh = a._refresh

    def meanwhile(live: Any) -> None:  # the other's entry comes just after this process looked
        a._refresh = real_refresh  # type: ignore[method-assign]
        ahead.append(gid, ADD, "host")

    a._refresh = meanwhile  # type: ignore[method-assign]
    with pytest.raises(ConflictError):
        a.append(gid, ADD, "host")
    latest = max(e.ts for e in first.events(gid))
    assert a.append(gid, ADD, "host").event.ts >= latest
    first.close()
    ahead.store.close()


def test_a_game_opens_on_a_database_that_cannot_store_its_moved_clock(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another program holding the database (or a read-only one) when a game must go on from its latest event: it
    opens all the same, its clock moved in this run only."""
    db = tmp_path / "t.sqlite3"
    clock = Clock(1_000_000_000)
    store = Store(db)
    hub = Hub(store, clock)
    gid = hub.create("tally", ["Ann", "Bo"], {}).record.id
    clock.now += 600_000
    latest = hub.append(gid, ADD, "host").event.ts
    store.close()
    store = Store(db)
    hub = Hub(store, Clock(clock.now - 60_000))

    def busy(game_id: str, epoch_ms: int) -> None:
        raise StoreUnavailable("the database is busy: another program is writing it")

    monkeypatch.setattr(store, "move_epoch", busy)
    live = hub.live(gid)
    assert live is not None and hub.game_time(live) == latest + RESUME_GAP_MS
    store.close()
