"""Durability: a real ``tablecall serve`` killed with SIGKILL in the middle of a burst of events, then
restarted on the same database. Every acknowledged event must be there, unchanged; nothing half-written
(the log replays, sequence numbers have no gaps, SQLite's integrity check passes). Loopback only."""

from __future__ import annotations

import gzip
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time
import urllib.request
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from scorer.events import parse_log
from scorer.session import replay
from tests.web.conftest import new_game, with_token
from tests.web.server import ROOT, call, start_server
from web.app import create_app
from web.app import store as store_of
from web.cli import main
from web.store import BUSY_S, Store, StoreError, backup


def burst(base: str, game_id: str, worker: int, acked: list[dict[str, Any]], stop: threading.Event) -> None:
    n = 0
    while not stop.is_set():
        n += 1
        body = {"type": "add", "player": "Ann" if n % 2 else "Bo", "points": n % 10, "id": f"{worker}-{n}"}
        try:
            status, answer = call(base, "POST", f"/api/games/{game_id}/events", body)
        except Exception:  # the server is gone (reset, refused, cut-off answer): never acknowledged
            return
        if status == 201:
            acked.append(answer["event"])


def test_sigkill_in_a_burst_loses_no_acknowledged_event(tmp_path: Path) -> None:
    db = tmp_path / "durable.sqlite3"
    process, base = start_server(db)
    try:
        status, created = call(
            base, "POST", "/api/games", {"game": "tally", "players": ["Ann", "Bo"], "options": {"target": 100}}
        )
        assert status == 201
        game_id = created["id"]
        acked: list[dict[str, Any]] = []
        for round_ in range(2):
            stop = threading.Event()
            workers = [threading.Thread(target=burst, args=(base, game_id, w, acked, stop)) for w in range(4)]
            for worker in workers:
                worker.start()
            wanted = 40 * (round_ + 1)
            ends = time.monotonic() + 30
            while len(acked) < wanted and time.monotonic() < ends:
                time.sleep(0.005)
            os.kill(process.pid, signal.SIGKILL)  # mid-burst: the workers are still posting
            process.wait(10)
            stop.set()
            for worker in workers:
                worker.join(15)
            assert len(acked) >= wanted
            process, base = start_server(db)
            status, text = call(base, "GET", f"/api/games/{game_id}/export.jsonl")
            assert status == 200
            log = parse_log(text.split("\n"))
            stored = {e.seq: e.to_json() for e in log.events}
            missing = [e for e in acked if stored.get(e["seq"]) != e]
            assert not missing, f"acknowledged but lost or changed: {missing[:3]}"
            assert sorted(stored) == list(range(1, len(stored) + 1))  # no gap, no half-written event
            session = replay(log)
            status, snapshot = call(base, "GET", f"/api/games/{game_id}")
            assert snapshot["state"]["totals"] == dict(session.score().totals)
    finally:
        process.kill()
        process.wait(10)
    check = Store(db)
    assert check.integrity() == "ok"
    check.close()


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT], ids=["sigterm", "ctrl_c"])
def test_sigterm_stops_the_server_as_ctrl_c_does(tmp_path: Path, stop: signal.Signals) -> None:
    """``kill`` (SIGTERM: a service manager, a laptop shutting down) or Ctrl-C with phones' live streams open: the
    server ends the streams, closes the database and frees its lock, so a new server starts on the same file at
    once; and it says nothing more (it waited 5 s for the streams' threads, then closed under them: "1 thread(s)
    still running" and a traceback per stream)."""
    db = tmp_path / "games.sqlite3"
    process, base = start_server(db)
    try:
        status, created = call(base, "POST", "/api/games", {"game": "tally", "players": ["Ann", "Bo"]})
        assert status == 201
        streams = [urllib.request.urlopen(f"{base}/api/games/{created['id']}/stream", timeout=10) for _ in range(3)]
        for stream in streams:
            assert stream.readline()  # the stream is open and talking
        os.kill(process.pid, stop)
        started = time.monotonic()
        assert process.wait(10) == 0  # not killed by the signal (-15): its `finally` ran
        assert time.monotonic() - started < 4
        for stream in streams:
            stream.close()
    finally:
        process.kill()
        process.wait(10)
    said = "".join(out.read_text(errors="replace") for out in tmp_path.glob("*.out"))
    assert "Traceback" not in said and "still running" not in said, said
    again, base = start_server(db)  # the lock was freed: not "in use by another tablecall server"
    try:
        assert call(base, "GET", f"/api/games/{created['id']}")[0] == 200
    finally:
        again.kill()
        again.wait(10)


# Signals sent to a process of its own: a real Ctrl-C or kill to this one (pytest, with the threads that earlier tests
# left: OpenVINO's, waitress's) ended a whole CI run by SIGSEGV in it, with nothing said (session 43).
PRESSES = """
import os, signal, sys, time
import web.commands

wound = []
stopping, undo = web.commands._stop_on_signals(lambda: wound.append(1))
try:
    os.kill(os.getpid(), signal.SIGINT)
    time.sleep(5)  # (the handler runs here)
    sys.exit("the first press did not stop it")
except KeyboardInterrupt:
    print("first: KeyboardInterrupt, wound down", wound, flush=True)
stopping()
os.kill(os.getpid(), getattr(signal, sys.argv[2]))  # pressed again while it stops: said, nothing else
time.sleep(0.2)
print("second: still running", flush=True)
if sys.argv[1] == "third":
    os.kill(os.getpid(), signal.SIGINT)
    time.sleep(5)
    sys.exit("the third press did not stop it")
undo()
print("undone:", signal.getsignal(signal.SIGINT) == signal.getsignal(signal.SIGTERM) == signal.SIG_IGN, flush=True)
os.kill(os.getpid(), signal.SIGINT)  # a press on the way out: not heard
time.sleep(0.2)
print("ended", flush=True)
"""


@pytest.mark.parametrize("then", ["third", "done"])
@pytest.mark.parametrize("again", ["SIGINT", "SIGTERM"])
def test_ctrl_c_pressed_again_while_the_server_stops_says_so_and_a_third_stops_it_at_once(
    then: str, again: str
) -> None:
    """A second Ctrl-C cut short waitress's wait for the entries under way and the database was closed under them ("a
    bug" answers, tracebacks), or ended the process by SIGINT inside the camera's thread (SIGABRT); the kill audit,
    session 42. Now it says the server is still stopping, and a third press stops it at once, as a kill would; once
    stopped, a press on the way out is not heard (Python's own handler raised in its finalization: a traceback)."""
    done = subprocess.run(
        [sys.executable, "-c", PRESSES, then, again], cwd=ROOT, capture_output=True, text=True, timeout=60, check=False
    )
    said = done.stdout.splitlines()
    assert said[:2] == ["first: KeyboardInterrupt, wound down [1]", "second: still running"], done
    assert done.stderr.count("tablecall: still stopping") == 1 and "Traceback" not in done.stderr, done.stderr
    said_again = "Ctrl-C again" if again == "SIGINT" else "another kill"  # (a SIGTERM was told "Ctrl-C again")
    assert f"{said_again} stops it at once" in done.stderr
    if then == "third":
        assert (done.returncode, said[2:]) == (130, []), done  # at once, as a kill: nothing after it ran
    else:
        assert (done.returncode, said[2:]) == (0, ["undone: True", "ended"]), done


# -- a database that cannot be written now: a 503 saying so, nothing recorded (they were 500s, "a bug") ------------
def _tally(app: Any) -> tuple[Any, str]:
    client = app.test_client()
    return client, new_game(client, "tally", ["Ann", "Bo"])["id"]


def _add(client: Any, game_id: str) -> Any:
    return client.post(f"/api/games/{game_id}/events", json={"type": "add", "player": "Ann", "points": 1})


def test_after_a_restart_the_game_list_says_where_each_game_stands_without_opening_it(tmp_path: Path) -> None:
    """GET /api/games after a restart: a game nobody has opened since is replayed for the list (for at most
    REPLAY_S, docs/web.md), so a screen built on the API is told who won last night's game and the totals of the one
    left going, not a null result for each until it is opened. (Here no `serve` reads the results at its start.)"""
    first = create_app({"TESTING": True, "DATABASE": str(tmp_path / "t.sqlite3")})
    client = first.test_client()
    won = new_game(client, "tally", ["Ann", "Bo"], options={"target": 2})["id"]
    going = new_game(client, "tally", ["Cy", "Di"])["id"]
    for game_id, player in ((won, "Ann"), (won, "Ann"), (going, "Di")):
        body = {"type": "add", "player": player, "points": 1}
        assert client.post(f"/api/games/{game_id}/events", json=body).status_code == 201
    store_of(first).close()
    again = create_app({"TESTING": True, "DATABASE": str(tmp_path / "t.sqlite3")})  # the server started again
    try:
        listed = {g["id"]: g["result"] for g in again.test_client().get("/api/games").get_json()["games"]}
        assert listed[won] is not None and listed[going] is not None, listed
        assert (listed[won]["finished"], listed[won]["winner_text"]) == (True, "Winner: Ann")
        assert (listed[going]["finished"], listed[going]["totals"]) == (False, {"Cy": 0, "Di": 1})
    finally:
        store_of(again).close()


def test_an_entry_that_comes_as_the_server_stops_is_refused_as_such(tmp_path: Path) -> None:
    """The database closed by a stopping server: an entry still under way was a 500, "tablecall hit a bug
    (ProgrammingError)", or, through the state's reads, blamed on the referee (the kill audit, session 42)."""
    app = create_app({"TESTING": True, "DATABASE": str(tmp_path / "t.sqlite3")})
    client, game_id = _tally(app)
    assert _add(client, game_id).status_code == 201
    store_of(app).close()
    for response in (_add(client, game_id), client.get(f"/api/games/{game_id}/log")):
        assert response.status_code == 503, response.get_data(as_text=True)
        assert response.get_json()["error"].startswith("tablecall is stopping: nothing was recorded")
    store_of(app).close()  # (closing again is harmless)


def test_a_database_another_program_holds_is_busy_not_a_bug(tmp_path: Path) -> None:
    """A sqlite3 shell or a backup holding the write lock: the entry waited 10 s, then "tablecall hit a bug"."""
    app = create_app({"TESTING": True, "DATABASE": str(tmp_path / "t.sqlite3")})
    client, game_id = _tally(app)
    other = sqlite3.connect(tmp_path / "t.sqlite3", isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    started = time.monotonic()
    response = _add(client, game_id)
    waited = time.monotonic() - started
    other.execute("ROLLBACK")
    other.close()
    assert response.status_code == 503 and "another program is writing it" in response.get_json()["error"]
    assert "nothing was recorded" in response.get_json()["error"] and waited < BUSY_S + 2
    assert client.get(f"/api/games/{game_id}").get_json()["state"]["seq"] == 0
    assert _add(client, game_id).status_code == 201  # the other program is done: it is taken
    store_of(app).close()


def test_an_entry_waits_for_another_program_s_short_write(tmp_path: Path) -> None:
    """A sqlite3 shell or a backup holding the write lock for half a second: the entry waits for it (up to BUSY_S) and
    is stored; without the wait every such moment refused the phones' entries (503, "send it again")."""
    app = create_app({"TESTING": True, "DATABASE": str(tmp_path / "t.sqlite3")})
    client, game_id = _tally(app)
    other = sqlite3.connect(tmp_path / "t.sqlite3", isolation_level=None, check_same_thread=False)
    other.execute("BEGIN IMMEDIATE")
    done = threading.Timer(0.5, other.execute, ("COMMIT",))
    done.start()
    started = time.monotonic()
    response = _add(client, game_id)
    waited = time.monotonic() - started
    done.join()
    other.close()
    assert response.status_code == 201, response.get_json()
    assert 0.4 < waited < BUSY_S
    assert client.get(f"/api/games/{game_id}").get_json()["state"]["seq"] == 1
    store_of(app).close()


def test_a_game_s_seats_are_as_made_after_a_restart(tmp_path: Path) -> None:
    """The players come back from the database in their seats, not in another order (by name): turns, partners
    (Spades: seats 1 and 3) and who dealt hang on the seats, so a game restarted with its players reordered ruled its
    stored turns out of turn and scored them anew."""
    path = str(tmp_path / "t.sqlite3")
    app = create_app({"TESTING": True, "DATABASE": path})
    client = app.test_client()
    game_id = new_game(client, "tally", ["Cy", "Ann", "Bo"])["id"]
    for name, points in (("Cy", 3), ("Ann", 1), ("Bo", 2)):
        body = {"type": "add", "player": name, "points": points}
        assert client.post(f"/api/games/{game_id}/events", json=body).status_code == 201
    before = client.get(f"/api/games/{game_id}").get_json()["state"]
    assert before["alerts"] == [] and before["view"]["turn"] == "Cy"
    store_of(app).close()
    restarted = create_app({"TESTING": True, "DATABASE": path})
    state = restarted.test_client().get(f"/api/games/{game_id}").get_json()["state"]
    assert state["players"] == ["Cy", "Ann", "Bo"]
    assert (state["alerts"], state["view"], state["totals"]) == ([], before["view"], {"Cy": 3, "Ann": 1, "Bo": 2})
    store_of(restarted).close()


def test_a_new_game_waits_for_another_program_s_short_write(tmp_path: Path) -> None:
    """Another program (a second server, a tool) writes to the file while the host makes a game: the game's write
    waits for it as an entry does, and the game is made. A write that read the file first and then waited (a
    transaction begun deferred) found the file changed meanwhile and was refused at once (503, "another program is
    writing it"), though the other program was done in half a second."""
    path = tmp_path / "t.sqlite3"
    app = create_app({"TESTING": True, "DATABASE": str(path)})
    client, game_id = _tally(app)
    other = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    other.execute("BEGIN IMMEDIATE")
    other.execute("INSERT INTO meta VALUES ('another program', 'was here')")  # a write the game's write waits out
    done = threading.Timer(0.5, other.execute, ("COMMIT",))
    done.start()
    started = time.monotonic()
    response = client.post("/api/games", json={"game": "tally", "players": ["Ann", "Bo"]})
    waited = time.monotonic() - started
    done.join()
    other.close()
    assert response.status_code == 201, response.get_json()
    assert 0.4 < waited < BUSY_S
    assert [g["id"] for g in client.get("/api/games").get_json()["games"]] == [response.get_json()["id"], game_id]
    store_of(app).close()


def test_a_busy_database_names_its_file_to_the_host_only(tmp_path: Path) -> None:
    """The 503 showed every player the server's full path, its home folder first, 180 px of a phone's screen
    before the useful part (accessibility audit, session 36): the host and the server's log keep it."""
    db = tmp_path / "t.sqlite3"
    app = create_app({"TESTING": True, "DATABASE": str(db)})
    client, game_id = _tally(app)
    record = store_of(app).game(game_id)
    assert record is not None
    phone = with_token(app.test_client(), record.player_token)
    phone.environ_base["REMOTE_ADDR"] = "192.168.1.20"
    other = sqlite3.connect(db, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    try:
        said_to_phone = _add(phone, game_id).get_json()["error"]
        said_to_host = _add(client, game_id).get_json()["error"]
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert said_to_phone == (
        "the database could not be written (another program is writing it); nothing was recorded: send it again in "
        "a moment"
    )
    assert said_to_host == said_to_phone.replace("the database ", f"the database {db} ")
    store_of(app).close()


@pytest.mark.parametrize("folder", ["games", os.fsdecode(b"Caf\xe9")], ids=["utf8", "not_utf8"])
def test_a_database_file_gone_while_serving_refuses_entries(tmp_path: Path, folder: str) -> None:
    """Its folder deleted while the server ran: entries were answered 201 and went into a file that was gone. A
    folder whose name is not UTF-8 (an old USB stick's): the 503 naming it could not be written, a bare 500 (the
    environment audit, session 43)."""

    db = tmp_path / folder / "t.sqlite3"
    app = create_app({"TESTING": True, "DATABASE": str(db)})
    client, game_id = _tally(app)
    assert _add(client, game_id).status_code == 201
    for path in db.parent.iterdir():
        path.unlink()
    response = _add(client, game_id)
    assert response.status_code == 503 and "is gone" in response.get_json()["error"]
    assert client.get(f"/api/games/{game_id}").get_json()["state"]["seq"] == 1
    store_of(app).close()


def test_a_database_file_replaced_while_serving_refuses_entries_and_keeps_its_games(tmp_path: Path) -> None:
    """An older copy moved over the file while the server ran (a backup put back, a sync tool writing by rename):
    entries were answered 201 into the file no longer there, and its write-ahead log, which SQLite finds by the path,
    was played into the other file at the stop: "database disk image is malformed", tonight's game gone (error
    handling audit, session 41)."""
    db = tmp_path / "games.sqlite3"
    Store(db).close()
    older = tmp_path / "older.sqlite3"
    older.write_bytes(db.read_bytes())  # last week's copy: no game
    app = create_app({"TESTING": True, "DATABASE": str(db)})
    client, game_id = _tally(app)
    for _ in range(3):
        assert _add(client, game_id).status_code == 201
    os.replace(older, db)
    response = _add(client, game_id)
    assert response.status_code == 503
    assert response.get_json()["error"] == (
        f"the database file {db} was replaced by another file while tablecall ran: nothing was recorded; the games "
        "it held "
        "are kept in games-kept-1.sqlite3, beside it: stop tablecall and start it with that file (--db) to go on with "
        "them"
    )
    assert _add(client, game_id).status_code == 503  # and so on, not just once
    store_of(app).close()
    with sqlite3.connect(db) as there:  # the file put there is whole, and its own
        assert there.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        assert there.execute("SELECT count(*) FROM games").fetchone() == (0,)
    kept = Store(tmp_path / "games-kept-1.sqlite3")
    assert [e.type for e in kept.events(game_id)] == ["add"] * 3
    kept.close()


def test_a_backup_copied_over_the_database_while_serving_refuses_entries_and_keeps_its_games(tmp_path: Path) -> None:
    """`cp backup.sqlite3 games.sqlite3` while the server ran (a backup restored the wrong way: the same file,
    rewritten): entries were answered 201, and its write-ahead log was played into the copy at the stop, "database disk
    image is malformed", 20 games gone (data/s47/store/scripts/repro_cp.py big). A checkpoint of its own changes the
    file too, and is not taken for one."""
    db, copy = tmp_path / "games.sqlite3", tmp_path / "backup.sqlite3"
    _games(db, 20)
    backup(db, copy)
    _games(db, 20)
    app = create_app({"TESTING": True, "DATABASE": str(db)})
    client, game_id = _tally(app)
    assert _add(client, game_id).status_code == 201
    with closing(sqlite3.connect(db)) as other:  # (SQLite does it itself every 1000 pages)
        assert other.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0] == 0
    assert _add(client, game_id).status_code == 201
    assert _add(client, game_id).status_code == 201
    shutil.copyfile(copy, db)
    response = _add(client, game_id)
    assert response.status_code == 503
    assert response.get_json()["error"] == (
        f"the database file {db} was overwritten by another database while tablecall ran (a backup copied over it?): "
        "nothing was recorded; the games it held are kept in games-kept-1.sqlite3, beside it: stop tablecall and "
        "start it with that file (--db) to go on with them, or copy the backup in again once it is stopped "
        "(docs/web.md, Restoring a backup)"
    )
    assert _add(client, game_id).status_code == 503  # and so on, not just once
    assert client.get(f"/api/games/{game_id}").get_json()["state"]["seq"] == 3
    store_of(app).close()
    kept = Store(tmp_path / "games-kept-1.sqlite3")
    assert len(kept.games()) == 41 and [e.type for e in kept.events(game_id)] == ["add"] * 3
    kept.close()


def test_a_copied_backup_s_kept_copy_that_came_out_damaged_is_not_offered(tmp_path: Path) -> None:
    """The copy of the games kept when a backup is copied over the database is read through the server's connection:
    pages not in its cache or write-ahead log came from the backup, and the copy mixed the two ("database disk image
    is malformed") while the refusal told the host to start on it (a review, session 47: 3,000 games past SQLite's
    2 MB cache; here the cache is made small). It is left named as damaged, and the refusal says to export instead."""
    db, copy = tmp_path / "games.sqlite3", tmp_path / "backup.sqlite3"
    _games(db, 300)
    backup(db, copy)
    store = Store(db)
    store._db.execute("PRAGMA cache_size = 2")  # (pages, not the 2 MB's 500)
    for n in range(300):
        store.create_game("tally", ["Ann", "Bo"], {}, title=f"n{n} " + "x" * 60, origin="new", epoch_ms=0, created_ms=0)
    with closing(sqlite3.connect(db)) as other:  # (in the file now: not in the connection's write-ahead log)
        assert other.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0] == 0
    for n in range(10):  # (in its write-ahead log: the pages it reads with them from the file are the backup's)
        store.create_game("tally", ["Ann", "Bo"], {}, title=f"late{n}", origin="new", epoch_ms=0, created_ms=0)
    shutil.copyfile(copy, db)
    with pytest.raises(StoreError) as refused:
        store.create_game("tally", ["Ann", "Bo"], {}, title="late", origin="new", epoch_ms=0, created_ms=0)
    store.close()
    assert "export the games you need now (History tab)" in str(refused.value)
    assert "kept in" not in str(refused.value)
    assert sorted(p.name for p in tmp_path.glob("games-kept-*")) == ["games-kept-1-damaged.sqlite3"]


class _NoWal(sqlite3.Connection):
    """A connection on a file system where SQLite cannot keep a write-ahead log: the file stays in its old mode."""

    def execute(self, sql: str, *args: Any) -> sqlite3.Cursor:
        return super().execute("PRAGMA journal_mode=DELETE" if sql == "PRAGMA journal_mode=WAL" else sql, *args)


def test_a_database_that_could_not_take_a_write_ahead_log_is_not_taken_for_a_copied_backup(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file not in WAL mode is a sign of a backup copied over the database only where tablecall opened it in WAL
    mode: where the file system would not have it, every entry after the first was refused as a copy's (503)."""
    connect = sqlite3.connect
    monkeypatch.setattr(sqlite3, "connect", lambda *args, **kwargs: connect(*args, factory=_NoWal, **kwargs))
    db = tmp_path / "games.sqlite3"
    app = create_app({"TESTING": True, "DATABASE": str(db)})
    client, game_id = _tally(app)
    assert [_add(client, game_id).status_code for _ in range(3)] == [201] * 3
    assert client.get(f"/api/games/{game_id}").get_json()["state"]["seq"] == 3
    store_of(app).close()
    assert db.read_bytes()[18:20] == b"\1\1"  # (it stayed out of WAL mode: what the test is about)


def test_a_backup_copied_over_the_database_is_noticed_at_the_next_read_and_its_games_kept(tmp_path: Path) -> None:
    """A backup copied over the database while the host only looks at the pages (no entry comes) and then stops the
    server: noticed at the next read, not only at a write, so the games as the server had them are kept beside it
    before the stop plays its write-ahead log into the copy (docs/web.md: "noticed at the next read or write")."""
    db, copy = tmp_path / "games.sqlite3", tmp_path / "backup.sqlite3"
    _games(db, 3)
    backup(db, copy)
    app = create_app({"TESTING": True, "DATABASE": str(db)})
    client, game_id = _tally(app)
    assert [_add(client, game_id).status_code for _ in range(2)] == [201] * 2
    shutil.copyfile(copy, db)
    assert client.get("/").status_code == 200  # (reads go on)
    assert (tmp_path / "games-kept-1.sqlite3").exists()  # kept at the read, before any entry or the stop
    store_of(app).close()
    kept = Store(tmp_path / "games-kept-1.sqlite3")
    assert len(kept.games()) == 4 and [e.type for e in kept.events(game_id)] == ["add"] * 2
    kept.close()


def test_a_file_that_is_no_database_copied_over_one_without_a_write_ahead_log_is_logged_as_overwritten(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """On a file system where SQLite keeps no write-ahead log (a network share) the header's journal mode tells
    nothing; a file that is no SQLite database copied over the served one (a compressed backup, `cp games.sqlite3.gz
    games.sqlite3`) is noticed by the header's first 16 bytes, and the server's log says the file was overwritten while
    it ran, where the screens can only say it is damaged (nothing of it can be read)."""
    connect = sqlite3.connect
    monkeypatch.setattr(sqlite3, "connect", lambda *args, **kwargs: connect(*args, factory=_NoWal, **kwargs))
    db = tmp_path / "games.sqlite3"
    app = create_app({"TESTING": True, "DATABASE": str(db)})
    client, game_id = _tally(app)
    assert _add(client, game_id).status_code == 201
    db.write_bytes(gzip.compress(db.read_bytes(), mtime=0))  # (its backup, compressed)
    response = _add(client, game_id)
    assert response.status_code == 503 and "is damaged (file is not a database)" in response.get_json()["error"]
    assert f"the database file {db} was overwritten by another database while tablecall ran" in caplog.messages
    store_of(app).close()


def _games(db: Path, count: int) -> None:
    """A database of ``count`` tally games, closed."""
    store = Store(db)
    for n in range(count):
        store.create_game("tally", ["Ann", "Bo"], {}, title=f"g{n}", origin="new", epoch_ms=0, created_ms=0)
    store.close()


def test_a_damaged_database_file_says_what_to_do(tmp_path: Path) -> None:
    db = tmp_path / "t.sqlite3"
    _games(db, 50)
    data = bytearray(db.read_bytes())
    data[4096 : 4096 * 3] = bytes(4096 * 2)  # pages 2 and 3 zeroed
    db.write_bytes(bytes(data))
    for suffix in ("-wal", "-shm"):
        db.with_name(db.name + suffix).unlink(missing_ok=True)
    with pytest.raises(StoreError, match="damaged or not a tablecall database; keep a copy of it, and give another"):
        Store(db)


def _swap_two_rows(db: Path, table: str) -> None:
    """A bad sector: two rows of ``table``'s page swapped in its list of cells (SQLite's check finds them out of
    order), the rest of the file readable."""
    raw = sqlite3.connect(db)
    page_size = raw.execute("PRAGMA page_size").fetchone()[0]
    (root,) = raw.execute("SELECT rootpage FROM sqlite_master WHERE name = ?", (table,)).fetchone()
    raw.close()
    data = bytearray(db.read_bytes())
    start = (root - 1) * page_size
    assert data[start] == 0x0D and int.from_bytes(data[start + 3 : start + 5], "big") >= 2  # a leaf of 2 rows or more
    cells = start + 8
    data[cells : cells + 4] = data[cells + 2 : cells + 4] + data[cells : cells + 2]
    db.write_bytes(bytes(data))


def test_a_database_damaged_inside_is_refused_at_the_start(tmp_path: Path) -> None:
    """The file opened, and was served: every screen, the home page too, then said it was damaged (a 503)."""
    db = tmp_path / "t.sqlite3"
    _games(db, 3)
    _swap_two_rows(db, "games")
    with pytest.raises(StoreError) as info:
        Store(db)
    said = str(info.value)
    assert said.startswith(f"cannot open the database {db}: it is damaged (SQLite's check: ")
    assert "out of order" in said and said.endswith("start tablecall on a backup (docs/web.md, Restoring a backup), "
                                                     "or give another --db")  # fmt: skip
    assert "\n" not in said and "***" not in said


@pytest.mark.skipif(not hasattr(signal, "SIGXFSZ"), reason="no file-size limit to stand in for a full disk")
def test_a_full_disk_is_said_and_nothing_half_written(tmp_path: Path) -> None:
    """A file-size limit stands in for a full disk: the write fails as SQLite's "disk I/O error"; that is said (it was
    "tablecall hit a bug") and the log holds every event before it, whole."""
    import subprocess
    import sys

    code = f"""
import resource, signal
from scorer.events import GameEvent, Source
from web.store import Store, StoreUnavailable
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
store = Store({str(tmp_path / "t.sqlite3")!r})
game = store.create_game("tally", ["Ann", "Bo"], {{}}, title="t", origin="new", epoch_ms=0, created_ms=0).id
resource.setrlimit(resource.RLIMIT_FSIZE, (256 * 1024, resource.RLIM_INFINITY))
for seq in range(1, 10_000):
    data = {{"player": "Ann", "points": 1, "pad": "x" * 500}}
    try:
        store.append(game, GameEvent(seq, seq, Source.MANUAL, "add", data), 0, "t")
    except StoreUnavailable as exc:
        print(seq, exc)
        break
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT)
    failed, message = done.stdout.split(" ", 1)
    assert "is the disk full?" in message and "nothing was recorded" in message, done.stderr
    store = Store(tmp_path / "t.sqlite3")
    (record,) = store.games()
    assert [e.seq for e in store.events(record.id)] == list(range(1, int(failed)))
    assert store.integrity() == "ok"
    store.close()


@pytest.mark.parametrize(
    ("damage", "detail"),
    [
        pytest.param("UPDATE games SET options = '{oops' WHERE id = ?", "its house rules", id="house_rules_not_json"),
        # JSON, but no house rules of the game: "tablecall hit a bug", and a list took every game list down (s41)
        pytest.param(
            "UPDATE games SET options = '[300]' WHERE id = ?",
            "its house rules: [300] is not a set of house rules",
            id="house_rules_not_an_object",
        ),
        pytest.param(
            """UPDATE games SET options = '{"no such rule": 1}' WHERE id = ?""",
            "Tally has no option 'no such rule'",
            id="house_rules_the_game_has_not",
        ),
        pytest.param("UPDATE games SET game = 'tallyy' WHERE id = ?", "unknown game 'tallyy'", id="no_such_game"),
        pytest.param("UPDATE events SET line = 'oops' WHERE game_id = ?", "event 1: ", id="event_line_not_json"),
        pytest.param(  # the row of event 1 holding event 7's line: "tablecall hit a bug (EventError)"
            """UPDATE events SET line = replace(line, '"seq": 1,', '"seq": 7,') WHERE game_id = ?""",
            "event 1 says it is 7",
            id="event_line_of_another_number",
        ),
    ],
)
def test_a_game_damaged_by_hand_in_the_database_leaves_the_others_listed(
    tmp_path: Path, damage: str, detail: str
) -> None:
    """A row edited by hand (the triggers dropped): its house rules not JSON took the home page and every game list
    down with it (500s); an event line not JSON answered "tablecall hit a bug (JSONDecodeError)"."""
    db = tmp_path / "t.sqlite3"
    app = create_app({"TESTING": True, "DATABASE": str(db)})
    client, damaged = _tally(app)
    _, fine = _tally(app)
    assert _add(client, damaged).status_code == 201
    store_of(app).close()
    raw = sqlite3.connect(db)
    raw.execute("DROP TRIGGER events_append_only_update")
    raw.execute(damage, (damaged,))
    raw.commit()
    raw.close()
    app = create_app({"TESTING": True, "DATABASE": str(db)})
    client = app.test_client()
    listed = [g["id"] for g in client.get("/api/games").get_json()["games"]]
    assert fine in listed and client.get("/").status_code == 200
    response = client.get(f"/api/games/{damaged}")
    assert response.status_code == 500, response.get_json()
    said = response.get_json()["error"]
    assert f"game {damaged} is damaged in the database (" in said and detail in said
    assert client.get(f"/api/games/{fine}").status_code == 200
    store_of(app).close()


def test_backup_copies_every_game_while_the_server_writes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A copy of the file made by hand while the server ran held no games at all (WAL mode: the recent commits are
    in the -wal file until a checkpoint; lifecycle audit, session 36); `tablecall backup` copies them all."""
    db = tmp_path / "t.sqlite3"
    app = create_app({"TESTING": True, "DATABASE": str(db)})
    client, game_id = _tally(app)
    for _ in range(30):
        assert _add(client, game_id).status_code == 201
    copy = tmp_path / "copy.sqlite3"
    other = tmp_path / "copy.sqlite3.partial"  # another backup to the same name, under way (the backup audit, s42)
    other.write_bytes(b"another backup's half")
    assert main(["backup", str(copy), "--db", str(db)]) == 0
    assert capsys.readouterr().out.strip() == f"1 game (30 events) copied from {db} to {copy}"
    assert _add(client, game_id).status_code == 201  # the server goes on writing
    store_of(app).close()
    assert other.read_bytes() == b"another backup's half"
    other.unlink()
    with closing(sqlite3.connect(copy)) as raw:  # one file on its own: opens where no -shm can be made (backup audit)
        assert raw.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    kept = Store(copy)
    try:
        assert [e.seq for e in kept.events(game_id)] == list(range(1, 31))
    finally:
        kept.close()
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("copy")) == ["copy.sqlite3"]


@pytest.mark.parametrize(
    ("given", "message"),
    [
        pytest.param("missing", "there is no database at", id="no_database"),
        pytest.param("text", "file is not a database", id="not_a_database"),
        pytest.param("exists", "exists already: name a new file", id="never_overwrites"),
        pytest.param("nodir", "there is no folder ", id="no_such_folder"),  # "nodir is not a folder" (wording audit)
        pytest.param("link", "is a link (to nowhere/x.sqlite3): name the file itself", id="link_to_nowhere"),
        pytest.param(  # the copy's folder, not the database, was blamed ("could not copy t.sqlite3": a review)
            "unwritable",
            "could not write /proc/copy.sqlite3",
            id="folder_not_writable",
            marks=pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs /proc: a folder no one writes"),
        ),
    ],
)
def test_backup_refuses_what_it_cannot_copy(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], given: str, message: str
) -> None:
    db, copy = tmp_path / "t.sqlite3", tmp_path / "copy.sqlite3"
    if given == "text":
        db.write_text("not a database\n" * 100)
    elif given == "exists":
        Store(db).close()
        copy.write_text("last week's copy")
    elif given == "unwritable":
        Store(db).close()
        copy = Path("/proc/copy.sqlite3")
    elif given == "nodir":
        Store(db).close()
        copy = tmp_path / "nodir" / "copy.sqlite3"
    elif given == "link":  # a USB stick not mounted: replaced by a local file, "copied" (the backup audit, s42)
        Store(db).close()
        copy.symlink_to("nowhere/x.sqlite3")
    assert main(["backup", str(copy), "--db", str(db)]) == 2
    assert message in capsys.readouterr().err
    assert not [p for p in copy.parent.glob("copy.sqlite3.*")]
    assert given != "link" or copy.is_symlink()
    assert given != "exists" or copy.read_text() == "last week's copy"


def test_an_export_whose_title_holds_a_line_separator_imports_again(tmp_path: Path) -> None:
    """A title pasted from a chat app may hold U+2028 (not a control character: the dashboard takes it), written as it
    is into the export; the import split the text at it as at a line end, and refused the game's own export (400,
    "not valid JSON")."""
    app = create_app({"TESTING": True, "DATABASE": str(tmp_path / "t.sqlite3")})
    client = app.test_client()
    game_id = new_game(client, "tally", ["Ann", "Bo"], title="Friday\u2028night")["id"]
    assert _add(client, game_id).status_code == 201
    text = client.get(f"/api/games/{game_id}/export.jsonl").get_data(as_text=True)
    assert "Friday\u2028night" in text
    response = client.post("/api/import", json={"log": text})
    assert response.status_code == 201, response.get_json()
    record = store_of(app).game(response.get_json()["id"])
    assert record is not None and record.title == "Friday\u2028night" and record.origin == "import"
    assert store_of(app).events(record.id) == store_of(app).events(game_id)
    store_of(app).close()


def test_backup_of_a_database_with_a_damaged_page_keeps_no_copy(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A bad sector: one page of the file damaged, the rest readable, so the copy itself works. It was kept and
    reported as "N games copied": a backup that looks good and is not. The damage: two rows of a table page swapped
    in its list of cells (SQLite's check finds them out of order)."""
    db, copy = tmp_path / "t.sqlite3", tmp_path / "copy.sqlite3"
    store = Store(db)
    store.create_game("tally", ["Ann", "Bo"], {}, title="g", origin="new", epoch_ms=0, created_ms=0)
    store.close()
    assert not db.with_name(db.name + "-wal").exists()
    _swap_two_rows(db, "meta")
    assert main(["backup", str(copy), "--db", str(db)]) == 2
    said = capsys.readouterr()
    assert said.out == "" and f"tablecall: {db} is damaged (" in said.err and "the copy was not kept" in said.err
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("copy")) == []


# -- faults on the write path (fault fuzz, session 41) ----------------------------------------------------------------
SPADES = ["Alex", "Beth", "Charlie", "David"]
HAND = {"type": "hand", "bids": dict.fromkeys(SPADES, 3), "tricks": {"Alex": 3, "Beth": 3, "Charlie": 3, "David": 4}}


def test_a_referee_bug_drawing_the_new_state_writes_nothing_and_the_game_still_opens(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bug in the referee's view() of the state after an entry: the entry was stored, answered 500, and the game
    could not be opened on any screen, even after a restart. Now it is the referee bug the docs describe (422,
    nothing written)."""
    from scorer.session import Session

    app = create_app({"TESTING": True, "DATABASE": str(tmp_path / "t.sqlite3")})
    client = app.test_client()
    game_id = new_game(client, "spades", SPADES)["id"]
    assert client.post(f"/api/games/{game_id}/events", json=HAND).status_code == 201
    real = Session.view

    def view(self: Session) -> Any:
        if len(self.events) >= 2:
            raise KeyError("pile")  # a stand-in for a bug
        return real(self)

    monkeypatch.setattr(Session, "view", view)
    response = client.post(f"/api/games/{game_id}/events", json={**HAND, "seen": 1})
    assert response.status_code == 422
    assert "could not handle this entry (a bug in tablecall): nothing was written" in response.get_json()["error"]
    assert [e.seq for e in store_of(app).events(game_id)] == [1]
    assert client.get(f"/api/games/{game_id}").get_json()["state"]["seq"] == 1
    store_of(app).close()


def test_an_entry_the_store_refused_is_not_counted_even_when_the_log_cannot_be_read_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The write failed (a disk failing), and so did the read that was to forget it: the entry stayed counted on every
    screen, in the Log and the export, though it was never stored, and the next entry dropped it without a word."""
    from web.app import hub
    from web.store import StoreUnavailable

    app = create_app({"TESTING": True, "DATABASE": str(tmp_path / "t.sqlite3")})
    client = app.test_client()
    game_id = new_game(client, "spades", SPADES)["id"]
    the_hub = hub(app)

    def fail(*args: Any, **kwargs: Any) -> None:
        raise StoreUnavailable("the database could not be written (disk I/O error); nothing was recorded")

    def unreadable(*args: Any, **kwargs: Any) -> None:
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(the_hub.store, "append", fail)
    monkeypatch.setattr(the_hub, "_replay", unreadable)
    assert client.post(f"/api/games/{game_id}/events", json=HAND).status_code == 503
    monkeypatch.undo()
    state = client.get(f"/api/games/{game_id}").get_json()["state"]
    assert (state["seq"], state["history"]) == (0, [])
    assert client.get(f"/api/games/{game_id}/export.jsonl").get_data(as_text=True).count("\n") == 1  # the header
    store_of(app).close()


@pytest.mark.parametrize(
    ("error", "said"),
    [
        (sqlite3.OperationalError("disk I/O error"), "could not be read (disk I/O error); nothing was recorded: try "
         "again in a moment"),
        # a backup copied over the file with its old -wal beside it: 500, "a bug (DatabaseError)" (backup audit, s42)
        (sqlite3.DatabaseError("database disk image is malformed"), "is damaged (database disk image is malformed); "
         "nothing was recorded: stop tablecall, keep a copy of the file, and start it on a backup (docs/web.md, "
         "Restoring a backup)"),
    ],
    ids=["unreadable", "damaged"],
)  # fmt: skip
def test_a_database_that_cannot_be_read_says_so_not_a_bug(tmp_path: Path, error: Exception, said: str) -> None:
    """A failed read answered 500, "tablecall hit a bug (OperationalError)", where a failed write said what it was."""
    app = create_app({"TESTING": True, "DATABASE": str(tmp_path / "t.sqlite3")})
    client = app.test_client()
    new_game(client, "spades", SPADES)
    the_store = store_of(app)

    class Failing:
        def __init__(self, inner: sqlite3.Connection) -> None:
            self.inner = inner

        def execute(self, sql: str, *args: Any) -> Any:
            if sql.lstrip().startswith("SELECT"):
                raise error
            return self.inner.execute(sql, *args)

        def __getattr__(self, name: str) -> Any:
            return getattr(self.inner, name)

    real = the_store._db
    the_store._db = Failing(real)  # type: ignore[assignment]
    try:
        response = client.get("/api/games")
    finally:
        the_store._db = real
    assert response.status_code == 503
    assert response.get_json()["error"] == f"the database {tmp_path / 't.sqlite3'} {said}"
    the_store.close()


def test_a_new_game_made_is_answered_as_made(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The game was stored, then reading it back failed: 500, and Create pressed again made a second game."""
    from web.store import Store as TheStore

    app = create_app({"TESTING": True, "DATABASE": str(tmp_path / "t.sqlite3")})
    client = app.test_client()

    def unreadable(*args: Any, **kwargs: Any) -> None:
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(TheStore, "game", unreadable)
    response = client.post("/api/games", json={"game": "spades", "players": SPADES, "title": "Friday"})
    monkeypatch.undo()
    assert response.status_code == 201, response.get_json()
    made = store_of(app).game(response.get_json()["id"])
    assert made is not None and made.title == "Friday" and made.players == tuple(SPADES)
    store_of(app).close()


def test_a_referee_bug_replaying_an_import_is_said_as_for_an_entry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bug met replaying an imported log answered 500, "tablecall hit a bug (KeyError)"; a phone's entry meeting
    the same bug is told it is a referee bug and that nothing was written."""
    from scorer.registry import get_game

    app = create_app({"TESTING": True, "DATABASE": str(tmp_path / "t.sqlite3")})
    client = app.test_client()
    game_id = new_game(client, "spades", SPADES)["id"]
    client.post(f"/api/games/{game_id}/events", json=HAND)
    log = client.get(f"/api/games/{game_id}/export.jsonl").get_data(as_text=True)
    spades = get_game("spades")

    def apply(state: Any, event: Any) -> Any:
        raise KeyError("pile")  # a stand-in for a bug

    monkeypatch.setattr(spades, "apply", apply)
    response = client.post("/api/import", json={"log": log})
    assert response.status_code == 422
    assert response.get_json()["error"] == (
        "the Spades referee could not replay this log (a bug in tablecall): nothing was imported; tell the host "
        "(the server's log has the details)"
    )
    assert len(store_of(app).games()) == 1
    store_of(app).close()


def test_a_game_whose_row_cannot_be_read_now_is_not_left_out_of_the_lists(tmp_path: Path) -> None:
    """A read failing for one game's players (a disk I/O error) was taken for damage, and the game was left out of the
    home page and the game lists for that moment, without a word (a review, session 41): a 503 says it."""
    app = create_app({"TESTING": True, "DATABASE": str(tmp_path / "t.sqlite3")})
    client = app.test_client()
    new_game(client, "spades", SPADES)
    other = new_game(client, "snap", ["Ann", "Bo"])["id"]
    the_store = store_of(app)
    real = the_store._db

    class Flaky:
        armed = True

        def execute(self, sql: str, args: Any = ()) -> Any:
            if Flaky.armed and "FROM players" in sql and args and args[0] == other:
                Flaky.armed = False
                raise sqlite3.OperationalError("disk I/O error")
            return real.execute(sql, args)

        def __getattr__(self, name: str) -> Any:
            return getattr(real, name)

    the_store._db = Flaky()  # type: ignore[assignment]
    try:
        response = client.get("/api/games")
    finally:
        the_store._db = real
    assert response.status_code == 503 and "could not be read (disk I/O error)" in response.get_json()["error"]
    assert len(client.get("/api/games").get_json()["games"]) == 2
    the_store.close()


def test_play_again_made_is_answered_as_made_when_the_old_game_cannot_be_drawn(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bug drawing the finished game (to tell its screens of the new one) answered 500 after the new game was made,
    and Start pressed again made another (a review, session 41)."""
    from web.app import hub

    app = create_app({"TESTING": True, "DATABASE": str(tmp_path / "t.sqlite3")})
    client = app.test_client()
    old = new_game(client, "snap", ["Alex", "Beth"])["id"]
    real = type(hub(app)).snapshot

    def snapshot(self: Any, live: Any) -> Any:
        if live.record.id == old:
            raise KeyError("pile")  # a stand-in for a bug in the old game's view
        return real(self, live)

    monkeypatch.setattr(type(hub(app)), "snapshot", snapshot)
    response = client.post("/api/games", json={"game": "snap", "players": ["Alex", "Beth"], "again": old})
    assert response.status_code == 201, response.get_json()
    assert len(store_of(app).games()) == 2
    store_of(app).close()


STOPPED_BACKUP = """
import os, signal, sys, time
import web.store
from web.cli import main

def copying(source, target):
    os.kill(os.getpid(), getattr(signal, sys.argv[1]))
    time.sleep(5)
    return 0, 0

web.store.backup = copying
sys.exit(main(["backup", sys.argv[2], "--db", sys.argv[3]]))
"""


@pytest.mark.parametrize("stop", ["SIGTERM", "SIGHUP"])
def test_backup_stopped_by_sigterm_or_the_terminal_closing_stops_as_ctrl_c_does(tmp_path: Path, stop: str) -> None:
    """SIGTERM, or SIGHUP (the terminal closed), ended a backup by the signal, its half-made copy (151 MB, which opened
    as an empty dashboard) left behind; as Ctrl-C, the copy's clean-up runs (the backup audit, session 42). In a
    process of its own, as the signals of the test before."""
    args = [stop, str(tmp_path / "copy.sqlite3"), str(tmp_path / "t.sqlite3")]
    done = subprocess.run(
        [sys.executable, "-c", STOPPED_BACKUP, *args], cwd=ROOT, capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 130 and "Traceback" not in done.stderr, done  # (by the signal itself: -15, -1)
