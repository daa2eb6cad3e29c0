"""The event store: games, their players and their append-only event logs in one SQLite file.

Durability: the database runs in WAL mode with ``synchronous=FULL``, so a commit returns only after
the write-ahead log has been fsynced. An event is acknowledged to a phone only after its commit
returned, so neither a killed server (SIGKILL) nor a power cut loses an acknowledged event; an event
whose transaction had not committed is simply not there (SQLite never leaves half a row). ``NORMAL``
would already survive a killed process, but could roll back the last commits on a power cut; at the
pace of a card table (a few events a second) the fsync per event costs nothing anyone notices.

Nothing is ever overwritten: triggers refuse ``UPDATE`` and ``DELETE`` on the event log. Undo and
corrections are events too (see :mod:`scorer.events`).
"""

from __future__ import annotations

import errno
import json
import logging
import os
import secrets
import sqlite3
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import closing, contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scorer.events import EventError, GameEvent, parse_event
from scorer.shown import cut

__all__ = ["ConflictError", "GameRecord", "Store", "StoreError", "StoreUnavailable", "backup"]

log = logging.getLogger(__name__)

SCHEMA_VERSION = 1

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS games (
    id           TEXT PRIMARY KEY,
    game         TEXT NOT NULL,
    options      TEXT NOT NULL,            -- JSON object: the house rules that differ from the defaults
    title        TEXT NOT NULL DEFAULT '',
    origin       TEXT NOT NULL,            -- new | import | demo
    player_token TEXT NOT NULL,
    viewer_token TEXT NOT NULL,
    epoch_ms     INTEGER NOT NULL,         -- the wall-clock time (ms) at which this game's ts is 0
    created_ms   INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS players (
    game_id TEXT NOT NULL REFERENCES games(id),
    seat    INTEGER NOT NULL,
    name    TEXT NOT NULL,
    PRIMARY KEY (game_id, seat)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS events (
    game_id     TEXT NOT NULL REFERENCES games(id),
    seq         INTEGER NOT NULL,
    ts          INTEGER NOT NULL,
    type        TEXT NOT NULL,
    line        TEXT NOT NULL,             -- the event's flat JSON form, as in a log file
    received_ms INTEGER NOT NULL,
    author      TEXT NOT NULL,             -- host | player | demo | import | vision
    PRIMARY KEY (game_id, seq)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS next_games (  -- "Play again": the game that follows one (phones follow the link)
    game_id TEXT PRIMARY KEY REFERENCES games(id),
    next_id TEXT NOT NULL REFERENCES games(id)
) WITHOUT ROWID;
CREATE TRIGGER IF NOT EXISTS events_append_only_update BEFORE UPDATE ON events
BEGIN SELECT RAISE(ABORT, 'the event log is append-only'); END;
CREATE TRIGGER IF NOT EXISTS events_append_only_delete BEFORE DELETE ON events
BEGIN SELECT RAISE(ABORT, 'the event log is append-only'); END;
"""


BUSY_S = 3.0  # seconds a write waits for another program's write to the same file


def _identity(path: Path) -> tuple[int, int] | None:
    """The device and inode of the file at ``path`` (None: there is none)."""
    try:
        stat = path.stat()
    except OSError:
        return None
    return stat.st_dev, stat.st_ino


def _why(text: str) -> str:
    """What went wrong opening a database, and what to do."""
    if "readonly" in text:
        return (
            f"{text}: this user may not write it (a file made by `sudo tablecall serve` belongs to root); fix its "
            "owner, or give another --db"
        )
    if "malformed" in text or "not a database" in text:
        return f"{text}: it is damaged or not a tablecall database; keep a copy of it, and give another --db"
    return text


def _unreachable(exc: OSError) -> str:
    """Why a path cannot be looked at (EACCES, ENAMETOOLONG: Path.exists raises them)."""
    if exc.errno == errno.EACCES:
        return (
            f"{exc.strerror}: this user may not enter a folder on its way (see its permissions: ls -ld each folder; "
            "chmod u+rwx gives them back), or give another --db"
        )
    return f"{exc.strerror or exc}"


def _unwritable(exc: sqlite3.OperationalError) -> str:
    text = str(exc)
    if "locked" in text or "busy" in text:
        why = "another program is writing it"
    elif "readonly" in text:
        why = "it is read-only: check who owns it"
    elif "full" in text or "I/O" in text:
        why = f"{text}: is the disk full?"
    else:
        why = text
    return f"the database{{where}} could not be written ({why}); nothing was recorded: send it again in a moment"


def _damaged(exc: sqlite3.DatabaseError, path: Path) -> StoreUnavailable:
    """A database found damaged while serving: said as such, not "tablecall hit a bug (DatabaseError)" (a 500 on
    every screen; the backup audit, session 42)."""
    return StoreUnavailable(
        f"the database{{where}} is damaged ({exc}); nothing was recorded: stop tablecall, keep a copy of the file, "
        "and start it on a backup (docs/web.md, Restoring a backup)",
        str(exc),
        path,
    )


class StoreError(RuntimeError):
    """The database cannot be opened or used (a message for the person running the server)."""


class ConflictError(StoreError):
    """Another writer stored an event with the same sequence number first."""


class StoreUnavailable(StoreError):
    """The database cannot be written now (another program holds it, read-only, the disk full, the file gone):
    nothing was recorded. ``reason``: SQLite's words."""

    def __init__(self, message: str, reason: str = "", path: Path | None = None) -> None:
        """``message`` names the file where it says ``{where}``: the host and the server's log read the path, the
        players' phones do not (it filled a phone's screen, its home folder first; accessibility audit, session 36)."""
        super().__init__(message.replace("{where}", f" {path}" if path else ""))  # (not format(): SQLite's words
        self.public = message.replace("{where}", "")  # and file names may hold braces of their own)
        self.reason = reason or str(self)


@dataclass(frozen=True)
class GameRecord:
    """One stored game (its events are read separately)."""

    id: str
    game: str
    players: tuple[str, ...]
    options: dict[str, Any]
    title: str
    origin: str
    player_token: str
    viewer_token: str
    epoch_ms: int
    created_ms: int
    events: int = 0
    last_ms: int = 0

    def public(self) -> dict[str, Any]:
        """What anyone allowed to see the game may read (no tokens)."""
        return {
            "id": self.id,
            "game": self.game,
            "players": list(self.players),
            "options": dict(self.options),
            "title": self.title,
            "origin": self.origin,
            "created_ms": self.created_ms,
            "events": self.events,
            "last_ms": self.last_ms,
        }


def new_token() -> str:
    return secrets.token_urlsafe(12)


def new_game_id() -> str:
    return secrets.token_hex(4)


class Store:
    """A SQLite file shared by every thread of the server (one connection, one lock)."""

    def __init__(self, path: str | Path, synchronous: str = "FULL") -> None:
        self.path = Path(path)
        self._closed = False  # (close: what comes after is refused as "stopping")
        try:  # a folder on the way this user may not enter, a name too long: a traceback (the environment audit, s43)
            self.created = not self.path.exists()  # a new file (a mistyped --db starts an empty dashboard: say so)
            folder = self.path.is_dir()
        except OSError as exc:
            raise StoreError(f"cannot open the database {self.path}: {_unreachable(exc)}") from None
        if synchronous not in ("FULL", "NORMAL", "EXTRA"):
            raise StoreError(f"synchronous must be FULL, NORMAL or EXTRA, not {synchronous!r}")
        if folder:
            raise StoreError(
                f"cannot open the database {self.path}: it is a folder; give a file, like {self.path}/games.sqlite3"
            )
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            # how long a write waits for another program's (a tool, a backup) before it is refused as busy; every
            # game's reads wait behind it meanwhile (at 10 s a held database froze every screen for 10 s)
            self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False, timeout=BUSY_S)
            # (a file system where SQLite cannot keep a write-ahead log leaves it in its old mode: then a file not
            # in WAL mode is no sign of a copy, :meth:`_overwritten`)
            self._wal = str(self._db.execute("PRAGMA journal_mode=WAL").fetchone()[0]).lower() == "wal"
            self._db.execute(f"PRAGMA synchronous={synchronous}")
            self._db.execute("PRAGMA foreign_keys=ON")
            if not self.created:
                self._check()
            self._db.executescript(SCHEMA)
            self._lock = threading.RLock()
            self._file = _identity(self.path)  # the file opened: one put in its place is another file
            # and read as it is on disk, for another database copied over it (:meth:`_overwritten`); kept open until
            # the close, after SQLite's: closing a handle of the file drops this process's locks on it, SQLite's too
            self._raw = os.open(self.path, os.O_RDONLY)
            self._seen = self._shape()
            self._copied = False
            self._emptied = False  # whether its write-ahead log was emptied, once another file lay at the path
            self._kept: Path | None = None  # and where its games were then copied
            self._init_meta()
        except (OSError, sqlite3.Error, StoreUnavailable) as exc:  # _init_meta writes: a read-only file fails there
            if hasattr(self, "_raw"):
                os.close(self._raw)
            reason = exc.reason if isinstance(exc, StoreUnavailable) else str(exc)
            raise StoreError(f"cannot open the database {self.path}: {_why(reason)}") from None

    def _check(self) -> None:
        """A file damaged inside (a bad sector, a copy cut short) is refused at the start, with what to do. Only its
        first pages were read at the start, so it was served, and every screen said it was damaged (a 503, on the
        home page too). SQLite's quick check reads the whole file (docs/web.md: under a second for 3,000 games)."""
        found = [str(row[0]) for row in self._db.execute("PRAGMA quick_check(3)")]
        if found != ["ok"]:
            self._db.close()
            said = "; ".join(line for text in found for line in text.splitlines() if not line.startswith("***"))
            raise StoreError(
                f"cannot open the database {self.path}: it is damaged (SQLite's check: {cut(said, 160)}); keep a "
                "copy of it with its -wal file, and start tablecall on a backup (docs/web.md, Restoring a backup), "
                "or give another --db"
            )

    # -- plumbing -------------------------------------------------------------------------
    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        """One write, all or nothing. A database that cannot be written now raises :class:`StoreUnavailable`
        (a 503 saying why and that nothing was recorded; they were 500s, "tablecall hit a bug")."""
        with self._lock:
            self._open()
            if not self.path.exists():  # its folder deleted while serving: the writes went on into a lost file
                raise StoreUnavailable(
                    "the database file{where} is gone (deleted or moved while tablecall ran): nothing was "
                    "recorded; put it back, or stop tablecall and start it again",
                    path=self.path,
                )
            if self._overwritten():
                raise StoreUnavailable(
                    "the database file{where} was overwritten by another database while tablecall ran (a backup "
                    f"copied over it?): nothing was recorded; {self._kept_said()}, or copy the backup in again once it "
                    "is stopped (docs/web.md, Restoring a backup)",
                    path=self.path,
                )
            if self._replaced():  # another file put in its place (an older copy moved back, a sync tool writing
                # by rename): the writes went on into the file no longer there (answered 201)
                raise StoreUnavailable(
                    f"the database file{{where}} was replaced by another file while tablecall ran: nothing was "
                    f"recorded; {self._kept_said()}",
                    path=self.path,
                )
            try:
                self._db.execute("BEGIN IMMEDIATE")
            except sqlite3.OperationalError as exc:
                raise StoreUnavailable(_unwritable(exc), str(exc), self.path) from None
            except sqlite3.DatabaseError as exc:
                raise _damaged(exc, self.path) from None
            try:
                yield self._db
                self._db.execute("COMMIT")
            except BaseException as exc:
                with suppress(sqlite3.Error):  # a failed COMMIT may have ended the transaction itself
                    self._db.execute("ROLLBACK")
                if isinstance(exc, sqlite3.OperationalError):
                    raise StoreUnavailable(_unwritable(exc), str(exc), self.path) from None
                if type(exc) is sqlite3.DatabaseError:  # (not its kinds: an IntegrityError is the caller's)
                    raise _damaged(exc, self.path) from None
                raise

    def _replaced(self) -> bool:
        """Whether another file lies at the path now. Then this file's write-ahead log, which SQLite finds by the
        path, is emptied into this file at once: left there, the next program to open the path (a restart,
        ``tablecall backup``) played it into the other file and broke it ("database disk image is malformed")."""
        if _identity(self.path) in (self._file, None):  # (None: gone, which the caller says)
            return False
        if not self._emptied:
            log.error("the database file %s was replaced by another file while tablecall ran", self.path)
            with suppress(sqlite3.Error):
                self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            self._emptied = True
            self._kept = self._keep()
        return True

    def _kept_said(self) -> str:
        if self._kept is not None:
            return (
                f"the games it held are kept in {self._kept.name}, beside it: stop tablecall and start it with that "
                "file (--db) to go on with them"
            )
        return "export the games you need now (History tab), before you stop tablecall: the file no longer holds them"

    def _shape(self) -> tuple[int, int]:
        stat = os.fstat(self._raw)
        return stat.st_size, stat.st_mtime_ns

    def _overwritten(self) -> bool:
        """Whether another database was copied over this file (``cp backup.sqlite3 games.sqlite3``: the same file,
        rewritten, so not :meth:`_replaced`): its header says it is not in WAL mode, as a backup is not. The server
        went on answering 201, and its write-ahead log was played into the copy at the stop: "database disk image is
        malformed", 20 games gone (data/s47/store/scripts/repro_cp.py). Said once in the log, and the games as this
        connection sees them copied beside it. Only a changed file is read (its size or time)."""
        if self._copied:
            return True
        with suppress(OSError):
            if (shape := self._shape()) != self._seen:
                self._seen = shape
                header = os.pread(self._raw, 100, 0)
                self._copied = len(header) == 100 and (
                    header[:16] != b"SQLite format 3\0" or (self._wal and header[18:20] != b"\2\2")
                )
        if self._copied:
            log.error("the database file %s was overwritten by another database while tablecall ran", self.path)
            self._kept = self._keep()
        return self._copied

    def _keep(self) -> Path | None:
        """A copy of the file opened, beside the path (``games-kept-1.sqlite3``): the games it held would be lost
        when tablecall stops (None: it could not be written)."""
        n = 1
        while (kept := self.path.with_name(f"{self.path.stem}-kept-{n}{self.path.suffix}")).exists():
            n += 1
        try:
            with closing(sqlite3.connect(kept)) as copy:
                self._db.backup(copy)
                check = copy.execute("PRAGMA quick_check").fetchone()[0]
        except (OSError, sqlite3.Error) as exc:
            check = str(exc)  # (the copy read as malformed while it was made: as damaged as one quick_check finds)
            log.exception("could not keep a copy of the replaced database file in %s", kept)
            if not kept.exists():
                return None
        if check != "ok":  # (a backup copied over a database larger than SQLite's cache: the pages this connection
            # did not hold came from the backup, and the copy mixed the two; the host was told to start on it: a review,
            # session 47) it is left, named as damaged, and not offered
            damaged = kept.with_name(f"{kept.stem}-damaged{kept.suffix}")
            with suppress(OSError):
                kept.replace(damaged)
            log.error("the copy of the database file as tablecall had it is damaged (%s), left in %s", check, damaged)
            return None
        log.error("the games of the database file as tablecall had them are kept in %s", kept)
        return kept

    def _open(self) -> None:
        """Raise :class:`StoreUnavailable` once the server has closed the database (stopping): an entry still under
        way then was a 500, "tablecall hit a bug (ProgrammingError)", or blamed on the referee (the kill audit, s42)."""
        if self._closed:
            raise StoreUnavailable("tablecall is stopping: nothing was recorded; enter it again once it runs again")

    def _query(self, sql: str, args: Sequence[Any] = ()) -> list[sqlite3.Row]:
        with self._lock:
            self._open()
            if not self._replaced():  # (said and kept at once; reads go on)
                self._overwritten()
            try:
                cursor = self._db.execute(sql, tuple(args))
                cursor.row_factory = sqlite3.Row
                return list(cursor.fetchall())
            except sqlite3.OperationalError as exc:  # a disk failing, a file gone: said as such, not as a bug (a
                # 500, "tablecall hit a bug (OperationalError)", where a failed write said what it was; fault fuzz, s41)
                raise StoreUnavailable(
                    f"the database{{where}} could not be read ({exc}); nothing was recorded: try again in a moment",
                    str(exc),
                    self.path,
                ) from None
            except sqlite3.DatabaseError as exc:  # "database disk image is malformed": a backup copied over the file
                raise _damaged(exc, self.path) from None  # with its old -wal beside it (the backup audit, s42)

    def _init_meta(self) -> None:
        with self._transaction() as db:
            db.execute("INSERT OR IGNORE INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
            db.execute("INSERT OR IGNORE INTO meta VALUES ('host_key', ?)", (secrets.token_urlsafe(18),))
        version = int(self._query("SELECT value FROM meta WHERE key = 'schema'")[0]["value"])
        if version != SCHEMA_VERSION:
            raise StoreError(f"{self.path} has database version {version}; this tablecall reads {SCHEMA_VERSION}")

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._replaced()
            self._db.close()
            os.close(self._raw)
            self._closed = True

    # -- reading ----------------------------------------------------------------------------
    @property
    def host_key(self) -> str:
        """A secret that makes any browser the host (the laptop is the host without it)."""
        return str(self._query("SELECT value FROM meta WHERE key = 'host_key'")[0]["value"])

    def _record(self, row: sqlite3.Row) -> GameRecord:
        players = self._query("SELECT name FROM players WHERE game_id = ? ORDER BY seat", (row["id"],))
        try:
            options = json.loads(row["options"])
            if not isinstance(options, dict):  # (a list took every game list down: docs audit, session 41)
                raise ValueError(f"{cut(str(row['options']))} is not a set of house rules")
        except (TypeError, ValueError) as exc:  # a row edited by hand: this game cannot open, the others can
            raise StoreError(f"game {row['id']} is damaged in the database (its house rules: {exc})") from None
        return GameRecord(
            id=row["id"],
            game=row["game"],
            players=tuple(p["name"] for p in players),
            options=options,
            title=row["title"],
            origin=row["origin"],
            player_token=row["player_token"],
            viewer_token=row["viewer_token"],
            epoch_ms=row["epoch_ms"],
            created_ms=row["created_ms"],
            events=row["n"],
            last_ms=row["last_ms"] or row["created_ms"],
        )

    _GAMES = """
        SELECT g.*, (SELECT COUNT(*) FROM events e WHERE e.game_id = g.id) AS n,
               (SELECT MAX(received_ms) FROM events e WHERE e.game_id = g.id) AS last_ms
        FROM games g
    """

    def game(self, game_id: str) -> GameRecord | None:
        rows = self._query(self._GAMES + " WHERE g.id = ?", (game_id,))
        return self._record(rows[0]) if rows else None

    def games(self) -> list[GameRecord]:
        """Every game, the most recently active first; one damaged in the database is left out (and logged): it took
        the home page and every game list down with it."""
        records = []
        for row in self._query(self._GAMES):
            try:
                records.append(self._record(row))
            except StoreUnavailable:  # the file could not be read now: said, not taken for damage (the game was left
                raise  # out of the lists for a moment; a review, session 41)
            except StoreError as exc:
                log.warning("%s", exc)
        return sorted(records, key=lambda r: (r.last_ms, r.created_ms), reverse=True)

    def events(self, game_id: str, after: int = 0) -> list[GameEvent]:
        rows = self._query("SELECT seq, line FROM events WHERE game_id = ? AND seq > ? ORDER BY seq", (game_id, after))
        events = []
        for row in rows:
            try:
                event = parse_event(json.loads(row["line"]))
            except (ValueError, EventError) as exc:  # JSONDecodeError is a ValueError
                raise StoreError(f"game {game_id} is damaged in the database (event {row['seq']}: {exc})") from None
            if event.seq != row["seq"]:
                raise StoreError(
                    f"game {game_id} is damaged in the database (event {row['seq']} says it is {event.seq})"
                )
            events.append(event)
        return events

    def authors(self, game_id: str) -> dict[int, str]:
        rows = self._query("SELECT seq, author FROM events WHERE game_id = ?", (game_id,))
        return {row["seq"]: row["author"] for row in rows}

    def next_game(self, game_id: str) -> str | None:
        """The game played again after ``game_id`` ("Play again"), if any."""
        rows = self._query("SELECT next_id FROM next_games WHERE game_id = ?", (game_id,))
        return str(rows[0]["next_id"]) if rows else None

    def last_seq(self, game_id: str) -> int:
        rows = self._query("SELECT MAX(seq) AS seq FROM events WHERE game_id = ?", (game_id,))
        return int(rows[0]["seq"] or 0)

    def integrity(self) -> str:
        return str(self._query("PRAGMA integrity_check")[0][0])

    # -- writing ----------------------------------------------------------------------------
    def create_game(
        self,
        game: str,
        players: Sequence[str],
        options: dict[str, Any],
        *,
        title: str,
        origin: str,
        epoch_ms: int,
        created_ms: int,
        events: Iterable[GameEvent] = (),
        author: str = "import",
        follows: str | None = None,
    ) -> GameRecord:
        """Store a new game (and, for an import, its whole log) in one transaction; ``follows``: the game it is
        played again after (the latest such game is that game's :meth:`next_game`)."""
        game_id = new_game_id()
        tokens = new_token(), new_token()
        events = list(events)
        with self._transaction() as db:
            while db.execute("SELECT 1 FROM games WHERE id = ?", (game_id,)).fetchone():
                game_id = new_game_id()
            db.execute(
                "INSERT INTO games VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (game_id, game, json.dumps(options), title, origin, *tokens, epoch_ms, created_ms),
            )
            if follows is not None:
                db.execute("INSERT OR REPLACE INTO next_games VALUES (?, ?)", (follows, game_id))
            db.executemany("INSERT INTO players VALUES (?, ?, ?)", [(game_id, i, n) for i, n in enumerate(players)])
            db.executemany(
                "INSERT INTO events VALUES (?, ?, ?, ?, ?, ?, ?)",
                [(game_id, e.seq, e.ts, e.type, e.to_line(), created_ms, author) for e in events],
            )
        # the record as written (read back, a failed read was a 500 after the game was made, and Create pressed again
        # made a second game; fault fuzz, session 41)
        return GameRecord(
            id=game_id,
            game=game,
            players=tuple(players),
            options=json.loads(json.dumps(options)),
            title=title,
            origin=origin,
            player_token=tokens[0],
            viewer_token=tokens[1],
            epoch_ms=epoch_ms,
            created_ms=created_ms,
            events=len(events),
            last_ms=created_ms,
        )

    def move_epoch(self, game_id: str, epoch_ms: int) -> None:
        """A game's clock goes on from ``epoch_ms`` (web.hub.Hub._resume: a computer whose clock was set back). It
        waits for no other program's write, raising StoreUnavailable at once: a page opening the game asks it, and
        waited BUSY_S (3 s) with every screen's reads of the database behind it (a review, session 43); the caller goes
        on with the epoch moved in memory, and a later start stores it."""
        with self._lock:
            self._open()
            self._db.execute("PRAGMA busy_timeout = 0")
            try:
                with self._transaction() as db:
                    db.execute("UPDATE games SET epoch_ms = ? WHERE id = ?", (epoch_ms, game_id))
            finally:
                self._db.execute(f"PRAGMA busy_timeout = {int(BUSY_S * 1000)}")

    def append(self, game_id: str, event: GameEvent, received_ms: int, author: str) -> None:
        """Store one event durably; returns only once it is committed."""
        try:
            with self._transaction() as db:
                db.execute(
                    "INSERT INTO events VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (game_id, event.seq, event.ts, event.type, event.to_line(), received_ms, author),
                )
        except sqlite3.IntegrityError as exc:
            raise ConflictError(f"event {event.seq} of game {game_id} is already stored ({exc})") from None


def _backup_checks(source: Path, target: Path) -> None:
    if not source.is_file():
        raise StoreError(f"there is no database at {source}")
    if target.is_symlink():  # one pointing nowhere (a USB stick not mounted) was replaced by a local file and reported
        # as copied (the backup audit, session 42)
        raise StoreError(f"{target} is a link (to {os.readlink(target)}): name the file itself")
    if target.exists():
        raise StoreError(f"{target} exists already: name a new file (a backup never overwrites one)")
    if not target.parent.exists():  # it said "nodir is not a folder" (the wording audit, session 40)
        raise StoreError(f"there is no folder {target.parent}: make it first, or name a file in a folder that exists")
    if not target.parent.is_dir():
        raise StoreError(f"{target.parent} is not a folder")


def backup(source: Path, target: Path) -> tuple[int, int]:
    """Copy the database ``source`` to the new file ``target`` as it stands now, also while a server writes to it;
    returns (games, events) in the copy. Copying the file by hand while a server runs gives a copy without the
    recent games (they are still in its ``-wal`` file: a copy after 30 events had no tables at all). The copy is
    written beside ``target`` and renamed into place once complete and checked, so a failed backup leaves
    nothing that looks like one. Raises StoreError with a message for the person."""
    try:
        _backup_checks(source, target)
    except OSError as exc:  # a folder this user may not enter, a name too long: it was a traceback (environment audit)
        raise StoreError(f"cannot copy {source} to {target}: {_unreachable(exc)}") from None
    # its own name: two backups to one new name at once shared it, and the one emptied it under the other ("database
    # disk image is malformed", the source blamed; the backup audit, session 42)
    partial = target.with_name(f"{target.name}.{os.getpid()}.partial")
    try:  # the copy's folder first: one it may not write is the copy's problem, not the database's
        partial.open("xb").close()
    except OSError as exc:
        raise StoreError(f"could not write {target}: {exc.strerror or exc}") from None
    try:
        with closing(sqlite3.connect(source, timeout=BUSY_S)) as db, closing(sqlite3.connect(partial)) as copy:
            db.backup(copy)
            # one file on its own, as a copy should be: in WAL mode (the source's) it could not even be opened where no
            # -shm file can be made beside it (a read-only USB stick: "unable to open database file"; backup audit)
            copy.execute("PRAGMA journal_mode=DELETE")
            check = copy.execute("PRAGMA quick_check").fetchone()[0]
            if check != "ok":
                raise StoreError(f"{source} is damaged ({check}): the copy was not kept")
            tables = {row[0] for row in copy.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            if not {"games", "events"} <= tables:
                raise StoreError(f"{source} is not a tablecall database (it has no games table)")
            games = copy.execute("SELECT COUNT(*) FROM games").fetchone()[0]
            events = copy.execute("SELECT COUNT(*) FROM events").fetchone()[0]
        partial.replace(target)
    except sqlite3.DatabaseError as exc:
        raise StoreError(f"could not copy {source} to {target}: {exc}") from None
    except OSError as exc:
        raise StoreError(f"could not write {target}: {exc.strerror or exc}") from None
    finally:  # (its rollback journal too: a copy stopped half-way left one beside it; backup audit)
        for leftover in ("", "-journal", "-wal", "-shm"):
            partial.with_name(partial.name + leftover).unlink(missing_ok=True)
    return int(games), int(events)
