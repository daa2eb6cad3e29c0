"""Live games: one write path (referee, then commit, then broadcast), press times, several writers on
one database, the annotated log, and the demo table."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from scorer.events import EventError, Source
from web.demo import DemoTable, find_example
from web.hub import GATHER_S, LATE_MS, TS_FUTURE_MS, TS_PAST_MS, Hub, LiveGame
from web.store import Store


class Clock:
    def __init__(self, now: int = 1_000_000) -> None:
        self.now = now

    def __call__(self) -> int:
        return self.now


@pytest.fixture
def db(tmp_path: Path) -> Store:
    store = Store(tmp_path / "t.sqlite3")
    yield store
    store.close()


def test_event_time_is_the_game_clock(db: Store) -> None:
    clock = Clock()
    hub = Hub(db, clock)
    live = hub.create("tally", ["Ann", "Bo"], {})
    clock.now += 4321
    assert hub.append(live.record.id, {"type": "add", "player": "Ann", "points": 1}, "host").event.ts == 4321


@pytest.mark.parametrize(
    ("press", "ok"),
    [
        pytest.param(100_000, True, id="now"),
        pytest.param(100_000 - TS_PAST_MS, True, id="oldest_allowed"),
        pytest.param(100_000 - TS_PAST_MS - 1, False, id="too_old"),
        pytest.param(100_000 + TS_FUTURE_MS, True, id="latest_allowed"),
        pytest.param(100_000 + TS_FUTURE_MS + 1, False, id="from_the_future"),
    ],
)
def test_a_phone_press_time_must_be_near_the_game_clock(db: Store, press: int, ok: bool) -> None:
    clock = Clock()
    hub = Hub(db, clock)
    live = hub.create("tally", ["Ann", "Bo"], {})
    clock.now += 100_000
    body = {"type": "add", "player": "Ann", "points": 1}
    if ok:
        assert hub.append(live.record.id, body, "player", client_ts=press).event.ts == press
    else:
        said = "more than 30 s behind the game's clock" if press < 100_000 else "ahead of the game's clock"
        with pytest.raises(EventError, match=said) as refused:
            hub.append(live.record.id, body, "player", client_ts=press)
        assert str(refused.value).startswith("'ts'")  # what makes the phone measure its clock again (snap.js)
        assert db.events(live.record.id) == []


def test_a_press_just_before_the_game_began_counts_at_its_start(db: Store) -> None:
    """A phone whose clock runs a little behind presses in the game's first second. Its press time falls just before
    the game's 0 but within TS_PAST_MS, so it is taken at 0. Unclamped, the entry was refused as malformed (a
    negative 'ts')."""
    clock = Clock()
    hub = Hub(db, clock)
    gid = hub.create("tally", ["Ann", "Bo"], {}).record.id
    clock.now += 300
    result = hub.append(gid, {"type": "add", "player": "Ann", "points": 1}, "player", client_ts=-50)
    assert result.event.ts == 0
    assert [(e.seq, e.ts) for e in db.events(gid)] == [(1, 0)]


def test_six_phones_at_one_table_entering_at_once_are_all_stored(db: Store) -> None:
    """Every phone at a table enters at the same moment (a trick's cards, a Snap). Under the game's lock each entry is
    checked, numbered and stored in turn. Without the lock, a third of the entries were refused as "another event was
    written at the same moment", and the live score was not the stored one."""
    hub = Hub(db)
    gid = hub.create("tally", ["Ann", "Bo"], {"target": 100}).record.id
    phones, each = 6, 30
    start = threading.Barrier(phones)
    refused: list[BaseException] = []

    def enter(n: int) -> None:
        start.wait()
        for i in range(each):
            body = {"type": "add", "player": ("Ann", "Bo")[(n + i) % 2], "points": 1, "note": f"{n}-{i}"}
            try:
                hub.append(gid, body, "player")
            except Exception as exc:  # every refusal is the failure
                refused.append(exc)

    threads = [threading.Thread(target=enter, args=(n,)) for n in range(phones)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert refused == []
    stored = db.events(gid)
    assert [e.seq for e in stored] == list(range(1, phones * each + 1))
    assert sorted(e.data["note"] for e in stored) == sorted(f"{n}-{i}" for n in range(phones) for i in range(each))
    live, replayed = hub.live(gid), Hub(db).live(gid)  # the live game, and the stored one read afresh
    assert live is not None and replayed is not None
    assert live.session.score().totals == replayed.session.score().totals == {"Ann": 90, "Bo": 90}


SEATS = ["Alex", "Beth", "Charlie", "David"]
TRICK = [("Alex", "AC"), ("Beth", "7C"), ("Charlie", "4C"), ("David", "2C")]  # docs/examples/spades.jsonl's first


def spades_bid(db: Store) -> tuple[Hub, str, LiveGame]:
    """docs/examples/spades.jsonl's deal and bids entered, then a minute on the game's clock: the hub, the game's id
    and the live game."""
    clock = Clock()
    hub = Hub(db, clock)
    gid = hub.create("spades", SEATS, {}).record.id
    lines = (Path(__file__).resolve().parents[2] / "docs" / "examples" / "spades.jsonl").read_text().splitlines()
    for line in lines[1:6]:
        body = {k: v for k, v in json.loads(line).items() if k not in ("seq", "ts", "source")}
        hub.append(gid, body, "player")
    live = hub.live(gid)
    assert live is not None
    clock.now += 60_000
    return hub, gid, live


def enter_at_once(hub: Hub, gid: str, entries: list[tuple[dict[str, Any], int | None]]) -> None:
    """Each entry from its own thread, in the reverse of the order given, 30 ms apart: as waitress's threads may take
    requests that reached the server together."""

    def enter(body: dict[str, Any], made: int | None) -> None:
        hub.append(gid, body, "player", seen=5, made=made)

    threads = [threading.Thread(target=enter, args=entry) for entry in reversed(entries)]
    for thread in threads:
        thread.start()
        time.sleep(0.03)
    for thread in threads:
        thread.join(10)


def test_entries_held_on_their_way_go_in_in_the_order_they_were_made(db: Store) -> None:
    """The host's computer paused for 4 s while four phones entered a trick in turn, 0.4 s apart: the entries reached
    the hub together and were judged in whatever order its threads took them, cards played in turn ruled out of turn
    in 6 rounds of 6 (sleep audit, session 45, data/s45/sleep/t6_keepalive.py)."""
    hub, gid, live = spades_bid(db)
    paused = hub.game_time(live) - 4_000  # the phones' taps, during the pause
    bodies = [{"type": "play", "player": name, "card": card} for name, card in TRICK]
    enter_at_once(hub, gid, [(body, paused + 400 * n) for n, body in enumerate(bodies)])
    played = live.session.events[5:]
    assert [(e.data["player"], e.data["card"]) for e in played] == TRICK
    assert [r.code for r in live.session.rulings if r.seq > 5 and r.severity.value != "info"] == []


def test_entries_without_a_time_made_or_made_just_now_go_in_as_they_come(db: Store) -> None:
    """Only entries held on their way wait for others (GATHER_S): an entry made now goes in at once, and the
    camera's or an older screen's (no 'made') as they come (here, in the reverse order: out of turn)."""
    hub, gid, live = spades_bid(db)
    started = time.monotonic()
    hub.append(gid, {"type": "play", "player": "Alex", "card": "AC"}, "player", made=hub.game_time(live) - LATE_MS + 1)
    assert time.monotonic() - started < GATHER_S
    bodies = [{"type": "play", "player": name, "card": card} for name, card in TRICK[1:]]
    enter_at_once(hub, gid, [(body, None) for body in bodies])
    assert [e.data["player"] for e in live.session.events[6:]] == ["David", "Charlie", "Beth"]


def test_first_loads_of_a_game_at_once_make_one_live_game_from_one_replay(db: Store) -> None:
    """After a restart every phone reconnects at the same moment, so several requests load the same game at once.
    They must get one live game (with two, a stream opened on the one was sent nothing entered through the other),
    and from one replay: each replayed the whole game, 4 phones took 5 s of the server's time where one replay took
    1, and entries into other games waited (the scale audit, session 42)."""
    gid = Hub(db).create("tally", ["Ann", "Bo"], {}).record.id
    other = Hub(db).create("tally", ["Cy", "Di"], {}).record.id
    go, reads = threading.Event(), []

    class Held(Store):
        """The real store; reading the game's events waits until ``go`` (the first load still reading while the
        others ask), and counts the reads."""

        def events(self, game_id: str, after: int = 0) -> list[Any]:
            reads.append(game_id)
            if game_id == gid:
                assert go.wait(10)
            return super().events(game_id, after)

    restarted = Held(db.path)
    try:
        hub = Hub(restarted)
        loaded: list[Any] = []
        threads = [threading.Thread(target=lambda: loaded.append(hub.live(gid))) for _ in range(4)]
        for thread in threads:
            thread.start()
            time.sleep(0.05)
        assert hub.live(other) is not None  # another game loads meanwhile
        time.sleep(0.3)
        go.set()
        for thread in threads:
            thread.join(15)
        assert len(loaded) == 4 and all(live is loaded[0] for live in loaded)
        assert reads == [gid, other]
        subscriber, _ = hub.subscribe(loaded[0], None)
        hub.append(gid, {"type": "add", "player": "Ann", "points": 5}, "player")
        told = subscriber.queue.get_nowait()
        assert told is not None and told.startswith(b"id: 1\nevent: event\n")
    finally:
        restarted.close()


def test_two_servers_on_one_database_see_each_others_events(db: Store, tmp_path: Path) -> None:
    """A second writer (another process on the same file) is caught up with before the next write."""
    first = Hub(db)
    other_store = Store(db.path)
    second = Hub(other_store)
    gid = first.create("tally", ["Ann", "Bo"], {}).record.id
    first.append(gid, {"type": "add", "player": "Ann", "points": 1}, "host")
    assert second.append(gid, {"type": "add", "player": "Bo", "points": 2}, "host").event.seq == 2
    result = first.append(gid, {"type": "add", "player": "Ann", "points": 3}, "host")
    assert (result.event.seq, result.state["totals"]) == (3, {"Ann": 4, "Bo": 2})
    other_store.close()


def test_a_failed_commit_leaves_the_live_game_as_stored(db: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    hub = Hub(db)
    gid = hub.create("tally", ["Ann", "Bo"], {}).record.id

    def disk_full(*args: Any) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(db, "append", disk_full)
    with pytest.raises(OSError):
        hub.append(gid, {"type": "add", "player": "Ann", "points": 1}, "host")
    live = hub.live(gid)
    assert live is not None and live.session.events == [] and live.session.state.points == (0, 0)


def test_the_history_rows_each_event_completed(db: Store) -> None:
    hub = Hub(db)
    gid = hub.create("spades", ["A", "B", "C", "D"], {}).record.id
    hand = {"type": "hand", "bids": {"A": 4, "B": 3, "C": 2, "D": 2}, "tricks": {"A": 5, "B": 3, "C": 2, "D": 3}}
    hub.append(gid, hand, "host")
    hub.append(gid, {"type": "bid", "player": "B", "bid": 3}, "host")  # hand 2, card by card
    hub.append(gid, {"type": "undo", "target": 2}, "host")
    hub.append(gid, hand | {"tricks": {"A": 5, "B": 3, "C": 2, "D": 2}}, "host")  # 12 tricks: not scored
    hub.append(gid, hand, "host")
    live = hub.live(gid)
    assert live is not None
    rows = {e["event"]["seq"]: e.get("row") for e in hub.log_entries(live)}
    assert rows == {1: 1, 2: None, 3: None, 4: None, 5: 2}


def test_the_log_counts_history_rows_on_from_its_last_load(db: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each row count scores the game: counted from the start at every load, a Log of 2,000 events took 15 s a load.
    The rows counted on from the last load are the rows counted afresh, after an undo too."""
    hub = Hub(db)
    gid = hub.create("spades", ["A", "B", "C", "D"], {"target": 10_000}).record.id
    hand = {"type": "hand", "bids": {"A": 4, "B": 3, "C": 2, "D": 2}, "tricks": {"A": 5, "B": 3, "C": 2, "D": 3}}
    live = hub.live(gid)
    assert live is not None
    scored = 0
    score = live.session.game.score

    def counted(state: object) -> object:
        nonlocal scored
        scored += 1
        return score(state)

    monkeypatch.setattr(live.session.game, "score", counted)

    def rows() -> dict[int, int | None]:
        return {e["event"]["seq"]: e.get("row") for e in hub.log_entries(live)}

    for _ in range(3):
        hub.append(gid, hand, "host")
    rows()
    scored = 0
    hub.append(gid, hand, "host")
    assert rows() == {1: 1, 2: 2, 3: 3, 4: 4} and scored <= 2  # the append's snapshot, and the new event only
    hub.append(gid, {"type": "undo", "target": 2}, "host")
    live.rows = None  # counted afresh
    fresh = rows()
    hub.append(gid, {"type": "undo", "target": 5}, "host")  # hand 2 back
    assert rows() == {1: 1, 2: 2, 3: 3, 4: 4, 5: None, 6: None}
    assert fresh == {1: 1, 2: None, 3: 2, 4: 3, 5: None}


def write_log(path: Path, events: int) -> Path:
    lines = ['{"format": "tablecall-log", "version": 1, "game": "tally", "players": ["Ann", "Bo"], "options": {}}']
    for seq in range(1, events + 1):
        lines.append(
            f'{{"seq": {seq}, "ts": {seq * 100}, "source": "manual", "type": "add", '
            f'"player": "{"Ann" if seq % 2 else "Bo"}", "points": 1}}'
        )
    lines.append(f'{{"seq": {events + 2}, "ts": 0, "source": "manual", "type": "undo", "target": 1}}')
    path.write_text("\n".join(lines) + "\n")
    return path


def wait_for(predicate: Any, seconds: float = 5) -> None:
    ends = time.monotonic() + seconds
    while not predicate():
        assert time.monotonic() < ends, "timed out"
        time.sleep(0.01)


def two_demo_rounds(hub: Hub, tmp_path: Path) -> DemoTable:
    """A demo table of a three-event tally log, stopped once it has started its second round."""
    demo = DemoTable(hub, write_log(tmp_path / "tally.jsonl", 3), pace=0.01, pause=0.05)
    demo.start()
    try:
        wait_for(lambda: len(demo.game_ids) >= 2)
    finally:
        demo.stop()
        demo.join(5)
    return demo


def test_demo_table_plays_the_example_and_starts_over(db: Store, tmp_path: Path) -> None:
    demo = two_demo_rounds(Hub(db), tmp_path)
    first = db.events(demo.game_ids[0])
    assert [e.type for e in first] == ["add", "add", "add", "undo"]
    assert first[-1].data["target"] == 1  # the meta event points at the demo game's own numbering
    record = db.game(demo.game_ids[0])
    assert record is not None and record.origin == "demo"
    assert db.authors(demo.game_ids[0]) == {1: "demo", 2: "demo", 3: "demo", 4: "demo"}


def test_demo_table_waits_out_a_busy_database_and_goes_on(
    db: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another program holding the database for a while: the demo's thread died of it, and the demo table stayed
    frozen for the rest of the evening (error-handling audit, session 41)."""
    from web import demo as demo_module
    from web.store import StoreUnavailable

    monkeypatch.setattr(demo_module, "RETRY_S", 0.01)
    hub = Hub(db)
    real = hub.append
    busy = [1, 2, 3]

    def append(*args: Any, **kwargs: Any) -> Any:
        if len(db.events(args[0])) == 1 and busy:  # the second event, three times
            busy.pop()
            raise StoreUnavailable("the database could not be written (another program is writing it)")
        return real(*args, **kwargs)

    monkeypatch.setattr(hub, "append", append)
    demo = two_demo_rounds(hub, tmp_path)
    assert not busy and demo.game_ids[0] != demo.game_ids[1]
    assert [e.type for e in db.events(demo.game_ids[0])] == ["add", "add", "add", "undo"]


def test_demo_table_starts_a_new_game_when_an_entry_of_its_is_refused(
    db: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Someone entered events into the demo game and its next entry is refused: the demo starts afresh, it does not
    play the rest of the example into a game that lacks the refused entry (its undo then undid another one)."""
    hub = Hub(db)
    real = hub.append
    refused = [1]

    def append(*args: Any, **kwargs: Any) -> Any:
        if len(db.events(args[0])) == 1 and refused:  # the demo's second entry, once
            refused.pop()
            raise EventError("stand-in: refused, the game changed under the demo")
        return real(*args, **kwargs)

    monkeypatch.setattr(hub, "append", append)
    demo = two_demo_rounds(hub, tmp_path)
    assert not refused and [e.type for e in db.events(demo.game_ids[0])] == ["add"]
    assert demo.game_ids[1] != demo.game_ids[0]


def test_demo_table_resumes_its_unfinished_game(db: Store, tmp_path: Path) -> None:
    hub = Hub(db)
    example = write_log(tmp_path / "tally.jsonl", 6)
    demo = DemoTable(hub, example, pace=10)
    live, start = demo.game()
    assert start == 0
    hub.append(live.record.id, {"type": "add", "player": "Ann", "points": 1}, "demo", Source.MANUAL)
    again = DemoTable(Hub(db), example, pace=10)
    resumed, at = again.game()
    assert (resumed.record.id, at) == (live.record.id, 1)
    hub.append(live.record.id, {"type": "add", "player": "Ann", "points": 5}, "host")  # not the example's
    fresh, at = DemoTable(Hub(db), example, pace=10).game()
    assert fresh.record.id != live.record.id and at == 0


def test_demo_table_does_not_resume_a_game_it_played_to_the_end(db: Store, tmp_path: Path) -> None:
    """A demo game holding the whole example is finished: started again, the demo table begins a new game, not
    'resume' that one with nothing left to play."""
    hub = Hub(db)
    example = write_log(tmp_path / "tally.jsonl", 2)
    demo = DemoTable(hub, example, pace=10)
    live, start = demo.game()
    assert start == 0
    for event in demo.log.events:
        hub.append(live.record.id, {"type": event.type, **event.data}, "demo", Source.MANUAL)
    assert len(db.events(live.record.id)) == len(demo.log.events) == 3
    fresh, at = DemoTable(Hub(db), example, pace=10).game()
    assert fresh.record.id != live.record.id and at == 0


def test_demo_table_never_plays_into_a_game_the_host_made(db: Store, tmp_path: Path) -> None:
    """A game the host made with the example's game and players, its first entries not made yet, is not a demo
    game to resume: the example's events went into the group's real game."""
    hub = Hub(db)
    example = write_log(tmp_path / "tally.jsonl", 6)
    real = hub.create("tally", ["Ann", "Bo"], {}, title="Friday")
    live, at = DemoTable(hub, example, pace=10).game()
    assert live.record.id != real.record.id and at == 0 and live.record.origin == "demo"
    assert db.events(real.record.id) == []


def test_the_demo_table_plays_spades_before_any_example_named_ahead_of_it() -> None:
    """docs/examples holds push.jsonl, snap.jsonl and spades.jsonl: the first by name was Push, not the Spades table
    docs/web.md says `serve --demo` plays into the scripted demo table (without the vision extras)."""
    found = find_example()
    assert found is not None and found.name == "spades.jsonl"
    assert (found.parent / "push.jsonl").is_file()  # (named ahead of it)


def test_find_example_prefers_spades(tmp_path: Path) -> None:
    write_log(tmp_path / "tally.jsonl", 1)
    assert find_example([tmp_path]) == tmp_path / "tally.jsonl"
    (tmp_path / "spades.jsonl").write_text((tmp_path / "tally.jsonl").read_text().replace('"tally"', '"spades"'))
    assert find_example([tmp_path]) == tmp_path / "spades.jsonl"
    assert find_example([tmp_path / "nothing"]) is None
