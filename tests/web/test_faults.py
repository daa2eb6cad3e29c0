"""Faults and refusals this session's changes handle, pinned where a mutation audit (session 41) found no test would
notice them broken."""

from __future__ import annotations

import logging
import os
import time
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from tests.web.conftest import new_game, post_event
from web.app import create_app, hub, store
from web.store import Store, StoreUnavailable


def test_a_new_game_whose_state_cannot_be_drawn_is_answered_as_made(
    app: Flask, host: FlaskClient, monkeypatch: pytest.MonkeyPatch
) -> None:  # kills A1
    def unreadable(live: Any) -> Any:
        raise StoreUnavailable("the database could not be read (disk I/O error); nothing was recorded")

    monkeypatch.setattr(hub(app), "snapshot", unreadable)
    response = host.post("/api/games", json={"game": "tally", "players": ["Ann", "Bo"]})
    assert response.status_code == 201 and response.get_json()["state"] is None
    assert [g.id for g in store(app).games()] == [response.get_json()["id"]]


def test_too_large_a_request_says_its_limit_in_mb(app: Flask, host: FlaskClient) -> None:  # kills AP2
    app.config["MAX_CONTENT_LENGTH"] = 2 * 2**20
    response = host.post("/api/import", json={"log": "x" * (2 * 2**20)})
    assert response.status_code == 413
    assert response.get_json()["error"] == "the request is too large: at most 2 MB (a log to import may be that long)"


def test_an_entry_whose_new_state_cannot_be_read_is_a_503_and_not_counted(
    app: Flask, host: FlaskClient, tally: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:  # kills H6 H11
    """snapshot() reads the store (the game played after this one): that read failing is the database's fault (503),
    not a referee bug (422), and the entry is not left counted in memory."""

    def unreadable(game_id: str) -> Any:
        raise StoreUnavailable("the database could not be read (disk I/O error); nothing was recorded")

    monkeypatch.setattr(hub(app), "_next", unreadable)
    response = post_event(host, tally["id"], type="add", player="Ann", points=1)
    monkeypatch.undo()
    assert response.status_code == 503, response.get_json()
    assert store(app).events(tally["id"]) == []
    state = host.get(f"/api/games/{tally['id']}").get_json()["state"]
    assert (state["seq"], state["totals"]) == (0, {"Ann": 0, "Bo": 0})


def test_an_entry_stored_but_not_sent_to_the_screens_is_answered_as_stored(
    app: Flask, host: FlaskClient, tally: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:  # kills H12
    def broken(live: Any, message: bytes) -> None:
        raise RuntimeError("stand-in: a screen's queue broke")

    monkeypatch.setattr(hub(app), "_broadcast", broken)
    app.config["PROPAGATE_EXCEPTIONS"] = False
    response = post_event(host, tally["id"], type="add", player="Ann", points=1)
    assert response.status_code == 201, response.get_json()
    assert [e.seq for e in store(app).events(tally["id"])] == [1]


def _replace_while_serving(tmp_path: Path) -> tuple[Any, Any, str, Path]:
    db = tmp_path / "games.sqlite3"
    Store(db).close()
    older = tmp_path / "older.sqlite3"
    older.write_bytes(db.read_bytes())
    app = create_app({"TESTING": True, "DATABASE": str(db)})
    client = app.test_client()
    game_id = new_game(client, "tally", ["Ann", "Bo"])["id"]
    for _ in range(3):
        assert (
            client.post(f"/api/games/{game_id}/events", json={"type": "add", "player": "Ann", "points": 1}).status_code
            == 201
        )
    os.replace(older, db)
    return app, client, game_id, db


def test_a_second_replacement_does_not_overwrite_the_first_kept_file(tmp_path: Path) -> None:  # kills ST4
    earlier = Store(tmp_path / "games-kept-1.sqlite3")  # kept the last time the file was replaced
    earlier_game = earlier.create_game(
        "tally", ["Cy", "Di"], {}, title="last week", origin="new", epoch_ms=0, created_ms=0
    ).id
    earlier.close()
    app, client, game_id, _db = _replace_while_serving(tmp_path)
    response = client.post(f"/api/games/{game_id}/events", json={"type": "add", "player": "Ann", "points": 1})
    assert response.status_code == 503 and "games-kept-2.sqlite3" in response.get_json()["error"]
    store(app).close()
    first = Store(tmp_path / "games-kept-1.sqlite3")
    assert [g.id for g in first.games()] == [earlier_game]
    first.close()


def test_a_replaced_file_met_by_a_read_keeps_its_games_at_once(tmp_path: Path) -> None:  # kills ST7
    """A read after the replacement (a screen reloading) empties the write-ahead log and keeps the games there and
    then: a server killed before its next write or its stop would have left the log to break the other file."""
    app, client, _game_id, _db = _replace_while_serving(tmp_path)
    assert client.get("/api/games").status_code in (200, 503)
    assert (tmp_path / "games-kept-1.sqlite3").exists()
    store(app).close()


def test_a_file_replaced_and_never_touched_again_is_kept_at_the_stop(tmp_path: Path) -> None:  # kills ST9
    app, _client, game_id, _db = _replace_while_serving(tmp_path)
    store(app).close()
    assert (tmp_path / "games-kept-1.sqlite3").exists()
    kept = Store(tmp_path / "games-kept-1.sqlite3")
    assert [e.type for e in kept.events(game_id)] == ["add"] * 3
    kept.close()


def test_a_database_file_deleted_is_not_called_replaced(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    # kills ST1
    db = tmp_path / "t.sqlite3"
    app = create_app({"TESTING": True, "DATABASE": str(db)})
    client = app.test_client()
    game_id = new_game(client, "tally", ["Ann", "Bo"])["id"]
    for path in tmp_path.glob("t.sqlite3*"):
        path.unlink()
    with caplog.at_level(logging.ERROR):
        response = client.post(f"/api/games/{game_id}/events", json={"type": "add", "player": "Ann", "points": 1})
        client.get("/api/games")
    assert response.status_code == 503 and "is gone" in response.get_json()["error"]
    assert not [r for r in caplog.records if "replaced" in r.getMessage()]
    assert not list(tmp_path.glob("*-kept-*"))
    store(app).close()


def test_demo_table_waits_between_tries_of_a_busy_database(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:  # kills D2
    from tests.web.test_hub import write_log
    from web import demo as demo_module
    from web.demo import DemoTable
    from web.hub import Hub

    monkeypatch.setattr(demo_module, "RETRY_S", 0.2)
    db = Store(tmp_path / "d.sqlite3")
    the_hub = Hub(db)
    tries: list[float] = []
    until = time.monotonic() + 1.0
    real = the_hub.append

    def append(*args: Any, **kwargs: Any) -> Any:
        if time.monotonic() < until:
            tries.append(time.monotonic())
            raise StoreUnavailable("the database could not be written (another program is writing it)")
        return real(*args, **kwargs)

    monkeypatch.setattr(the_hub, "append", append)
    demo = DemoTable(the_hub, write_log(tmp_path / "tally.jsonl", 3), pace=0.01, pause=0.05)
    demo.start()
    time.sleep(1.2)
    demo.stop()
    demo.join(5)
    db.close()
    assert 2 <= len(tries) <= 1 + 1.0 / 0.2 + 1, len(tries)


def test_a_new_game_s_record_is_the_one_stored(tmp_path: Path) -> None:  # kills ST11 ST12 ST13 ST15 ST19
    """create_game no longer reads the record back: what it answers (the hub keeps it as the game's record, tokens
    and all) must be what is stored. Events given as an iterator, as its type allows."""
    from scorer.events import GameEvent, Source

    db = Store(tmp_path / "s.sqlite3")
    events = [GameEvent(1, 5, Source.MANUAL, "add", {"player": "Ann", "points": 1})]
    made = db.create_game(
        "tally",
        ["Ann", "Bo"],
        {"target": 20},
        title="Friday",
        origin="import",
        epoch_ms=1000,
        created_ms=9000,
        events=iter(events),
    )
    assert made == db.game(made.id)
    fresh = db.create_game("tally", ["Ann", "Bo"], {}, title="Sat", origin="new", epoch_ms=7000, created_ms=7000)
    assert fresh == db.game(fresh.id)
    db.close()


def test_the_hub_s_record_of_a_new_game_holds_its_tokens(app: Flask, host: FlaskClient) -> None:  # kills ST13
    game_id = new_game(host)["id"]
    live = hub(app).live(game_id)
    stored = store(app).game(game_id)
    assert live is not None and stored is not None
    assert (live.record.player_token, live.record.viewer_token) == (stored.player_token, stored.viewer_token)


def test_a_refusal_met_drawing_the_new_state_writes_nothing_and_counts_nothing(
    app: Flask, host: FlaskClient, tally: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:  # kills H5
    """snapshot() is inside the try: an EventError from the referee's view() after it took the entry must rewind too."""
    from scorer.events import EventError
    from scorer.session import Session

    assert post_event(host, tally["id"], type="add", player="Ann", points=1).status_code == 201
    real = Session.view

    def view(self: Session) -> Any:
        if len(self.events) >= 2:
            raise EventError("stand-in: the view refuses")
        return real(self)

    monkeypatch.setattr(Session, "view", view)
    assert post_event(host, tally["id"], type="add", player="Ann", points=1, seen=1).status_code in (400, 409, 422)
    monkeypatch.undo()
    assert [e.seq for e in store(app).events(tally["id"])] == [1]
    state = host.get(f"/api/games/{tally['id']}").get_json()["state"]
    assert (state["seq"], state["totals"]["Ann"]) == (1, 1)


def test_a_stream_that_fails_to_start_leaves_no_subscriber_behind(
    app: Flask, host: FlaskClient, tally: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:  # kills H17
    """Its place is given back, and so is its queue: left in the game's subscribers, every later event was queued
    for a screen that was never there (up to its 500-event limit, for each failed try)."""
    from tests.web.test_live import stream_url

    live = hub(app).live(tally["id"])
    assert live is not None

    def broken(live: Any) -> Any:
        raise KeyError("pile")  # a stand-in for a bug in this game's view

    monkeypatch.setattr(hub(app), "snapshot", broken)
    app.config["PROPAGATE_EXCEPTIONS"] = False
    assert host.get(stream_url(tally["id"])).status_code == 500
    assert hub(app).streams == 0 and not live.subscribers
