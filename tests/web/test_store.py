"""The SQLite store: durable settings, append-only log, atomic writes, reopening, the data directory."""

from __future__ import annotations

import errno
import sqlite3
import threading
from pathlib import Path

import pytest

from scorer.events import GameEvent, Source
from web.app import default_db_path
from web.store import ConflictError, Store, StoreError, backup


def event(seq: int, points: int = 1) -> GameEvent:
    return GameEvent(seq, seq * 10, Source.MANUAL, "add", {"player": "Ann", "points": points})


@pytest.fixture
def db(tmp_path: Path) -> Store:
    store = Store(tmp_path / "data" / "t.sqlite3")
    yield store
    store.close()


def make(store: Store, events: tuple[GameEvent, ...] = ()) -> str:
    record = store.create_game(
        "tally", ["Ann", "Bo"], {"target": 5}, title="T", origin="new", epoch_ms=1000, created_ms=1000, events=events
    )
    return record.id


def test_wal_and_full_sync(db: Store) -> None:
    raw = sqlite3.connect(db.path)
    assert raw.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    raw.close()
    assert db._db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL


def test_everything_is_back_after_reopening(tmp_path: Path) -> None:
    path = tmp_path / "t.sqlite3"
    first = Store(path)
    gid = make(first)
    first.append(gid, event(1, 3), received_ms=2000, author="player")
    first.append(gid, event(2, 4), received_ms=2001, author="host")
    key = first.host_key
    first.close()
    again = Store(path)
    record = again.game(gid)
    assert record is not None
    assert (record.players, record.options, record.title, record.events, record.last_ms) == (
        ("Ann", "Bo"),
        {"target": 5},
        "T",
        2,
        2001,
    )
    assert again.events(gid) == [event(1, 3), event(2, 4)]
    assert again.events(gid, after=1) == [event(2, 4)]
    assert again.authors(gid) == {1: "player", 2: "host"}
    assert again.host_key == key
    assert again.integrity() == "ok"
    again.close()


def test_the_event_log_is_append_only(db: Store) -> None:
    gid = make(db)
    db.append(gid, event(1), 1, "host")
    for sql in ("UPDATE events SET line = '{}'", "DELETE FROM events"):
        with pytest.raises(sqlite3.DatabaseError, match="append-only"):
            db._db.execute(sql)
    assert db.events(gid) == [event(1)]


def test_a_sequence_number_is_stored_once(db: Store) -> None:
    gid = make(db)
    db.append(gid, event(1), 1, "host")
    with pytest.raises(ConflictError):
        db.append(gid, event(1, 9), 2, "host")
    assert db.events(gid) == [event(1)]
    assert db.last_seq(gid) == 1


def test_a_game_and_its_imported_events_are_written_whole_or_not_at_all(db: Store) -> None:
    with pytest.raises(sqlite3.IntegrityError):
        make(db, events=(event(1), event(1)))
    assert db.games() == []


def test_games_are_listed_most_recent_first(db: Store) -> None:
    old, new = make(db), make(db)
    db.append(old, event(1), 5000, "host")
    assert [g.id for g in db.games()] == [old, new]
    assert db.game("missing") is None


def test_a_database_that_cannot_be_opened_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "dir.sqlite3").mkdir()
    with pytest.raises(StoreError, match="cannot open the database"):
        Store(tmp_path / "dir.sqlite3")
    with pytest.raises(StoreError, match="synchronous"):
        Store(tmp_path / "x.sqlite3", synchronous="OFF")


def test_a_path_that_cannot_be_looked_at_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A name too long, a folder on the way this user may not enter: Path.exists raises, and serve and backup ended
    in a traceback (the environment audit, session 43)."""
    long = tmp_path / ("a" * 256 + ".sqlite3")
    with pytest.raises(StoreError, match=r"cannot open the database .*: File name too long"):
        Store(long)
    Store(tmp_path / "t.sqlite3").close()
    with pytest.raises(StoreError, match=r"cannot copy .*: File name too long"):
        backup(tmp_path / "t.sqlite3", long)

    def closed(self: Path, *args: object, **kwargs: object) -> bool:
        raise PermissionError(errno.EACCES, "Permission denied", str(self))

    monkeypatch.setattr(Path, "exists", closed)
    with pytest.raises(StoreError, match="Permission denied: this user may not enter a folder on its way"):
        Store(tmp_path / "closed" / "t.sqlite3")


def test_a_newer_database_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "t.sqlite3"
    Store(path).close()
    raw = sqlite3.connect(path)
    raw.execute("UPDATE meta SET value = '99' WHERE key = 'schema'")
    raw.commit()
    raw.close()
    with pytest.raises(StoreError, match="version 99"):
        Store(path)


def test_default_database_path(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("TABLECALL_DB", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert default_db_path() == tmp_path / "xdg" / "tablecall" / "tablecall.sqlite3"
    monkeypatch.delenv("XDG_DATA_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert default_db_path() == tmp_path / "home" / ".local" / "share" / "tablecall" / "tablecall.sqlite3"
    monkeypatch.setenv("TABLECALL_DB", str(tmp_path / "mine.db"))
    assert default_db_path() == tmp_path / "mine.db"
    monkeypatch.delenv("TABLECALL_DB")
    monkeypatch.setenv("XDG_DATA_HOME", "data")  # relative: ignored, as the XDG specification says (each working
    assert default_db_path() == tmp_path / "home" / ".local" / "share" / "tablecall" / "tablecall.sqlite3"  # folder)


def test_play_again_twice_links_the_latest_game(db: Store) -> None:
    """Play again pressed twice after game A (the first new game abandoned: a wrong player list): A's phones follow
    the latest new game, not the abandoned one."""
    first = make(db)
    abandoned = db.create_game(
        "tally", ["Ann", "Bo"], {}, title="", origin="new", epoch_ms=0, created_ms=2000, follows=first
    ).id
    assert db.next_game(first) == abandoned
    latest = db.create_game(
        "tally", ["Ann", "Cy"], {}, title="", origin="new", epoch_ms=0, created_ms=3000, follows=first
    ).id
    assert db.next_game(first) == latest and db.next_game(abandoned) is None


def test_two_tables_writing_at_once_each_store_every_event(db: Store) -> None:
    """Two games on one server, their phones entering at the same moment, share one SQLite connection: without the
    store's lock one table's BEGIN met the other's open transaction ("cannot start a transaction within a
    transaction": a 503 and the entry lost until sent again)."""
    games = [make(db), make(db)]
    start = threading.Barrier(2)
    failed: list[BaseException] = []

    def table(game_id: str) -> None:
        start.wait()
        for seq in range(1, 201):
            try:
                db.append(game_id, event(seq), seq, "player")
            except StoreError as exc:
                failed.append(exc)

    threads = [threading.Thread(target=table, args=(game_id,)) for game_id in games]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert failed == []
    assert [[e.seq for e in db.events(game_id)] for game_id in games] == [list(range(1, 201))] * 2
    assert db.integrity() == "ok"
