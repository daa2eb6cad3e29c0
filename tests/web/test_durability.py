"""Durability: a real ``tablecall serve`` killed with SIGKILL in the middle of a burst of events, then
restarted on the same database. Every acknowledged event must be there, unchanged; nothing half-written
(the log replays, sequence numbers have no gaps, SQLite's integrity check passes). Loopback only."""

from __future__ import annotations

import os
import signal
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from scorer.events import parse_log
from scorer.session import replay
from tests.web.server import call, start_server
from web.store import Store


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
