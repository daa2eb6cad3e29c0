"""Live games: one referee session per game in memory, the single path by which events are written,
and the fan-out of every written event to the live streams (server-sent events) watching that game.

Writing an event: under the game's lock, the referee checks it (a malformed event raises
:class:`~scorer.events.EventError` and nothing changes), then the store commits it, then every
subscriber's queue gets one pre-rendered SSE message (``id:`` = the event's ``seq``). A phone is
told "done" only after the commit, so an acknowledged event is always on disk.
"""

from __future__ import annotations

import hashlib
import json
import logging
import queue
import re
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from scorer.events import EventError, GameEvent, GameLog, Source, header_title, parse_event
from scorer.game import Ruling, ScoreSheet, Severity, winner_text
from scorer.registry import get_game
from scorer.session import RefereeFault, Session, meta_target, replay
from scorer.shown import cut
from vision.clock import wall_ms
from web.store import ConflictError, GameRecord, Store, StoreError

__all__ = [
    "KEPT",
    "AppendResult",
    "ConflictError",
    "Hub",
    "LiveGame",
    "RefereeFault",
    "StaleEntry",
    "Subscriber",
    "digest",
    "have",
    "lean",
    "sse",
    "twins",
]

log = logging.getLogger(__name__)

#: how far (ms) a phone's own press time may lie behind / ahead of the server's clock
TS_PAST_MS = 30_000
TS_FUTURE_MS = 2_000
RECENT = 12
CAMERA_SAW = 4  # the camera's latest events a screen lists, with Reject (or Restore once rejected)
ALERTS = 8
CHAIN = 100  # the most games followed from one to the latest played again after it (Hub.latest_after)
#: what a live message leaves out when it is as this stream last sent it (the screen keeps its own): late in a Spades
#: game the history was 12.6 of a message's 14.7 KB and changed once a hand, Snap's alerts 1.4 of 3.6 KB, changing
#: in 1 event of 10 (data/s46/lean/keysizes.py). ``digests`` in every state says which each is.
KEPT = ("history", "alerts")
# Entries held on their way (the host's computer paused or hung, a Wi-Fi stall) reached the hub together and were
# judged in whatever order its threads took them: cards entered in turn, 0.4 s apart, were ruled out of turn, and a Push
# discard taken before its draw changed the score (sleep audit, session 45). A screen says when each entry was made
# ('made', on the game's clock); one made LATE_MS or more before it arrives waits GATHER_S for the others held with it,
# and an entry waits (at most ORDER_WAIT_S) for any made before it that is on its way through the hub.
LATE_MS = 1_000
GATHER_S = 0.3
ORDER_WAIT_S = 2.0
RESUME_GAP_MS = 1000  # the least time a game's clock counts across a start on a clock set back (Hub._resume)
#: entries that end a deal, hand or game at once: one logged since the entering screen looked is that entry, made on
#: an old view (the camera's deal end and a phone's, with the hands listed another way, scored a Push deal twice)
_WHOLE = {"deal_end": "a deal's end", "hand": "a whole hand", "final": "the game's end"}
ENDINGS = frozenset(_WHOLE)


def unnumbered(exc: EventError, seq: int, kind: Any) -> EventError:
    """A refused entry's message without the number the event would have had: "event 5 (play): 'JK' is a joker" named
    a #5 that the Log then gave the next event logged (the wording audit, session 40). Whatever type the prefix names
    (an insert's event is checked under the insert's number with its own type; a long type is cut): the entry's."""
    if type(exc) is not EventError:  # StaleEntry and the like keep their own type and words
        return exc
    shown = cut(kind) if isinstance(kind, str) else kind  # as GameEvent.where() cuts it
    exact = re.escape(f"event {seq} ({shown})")  # a type holding parentheses, "bid(3)", kept its number (a review)
    found = re.match(rf"(?:{exact}|event {seq} \([^()]*\))(: | )", str(exc))
    if found is None:
        return exc
    rest = str(exc)[found.end() :]
    if found.group(1) == ": ":
        return EventError(rest)
    return EventError(f"this {kind if isinstance(kind, str) and len(kind) <= 24 else 'entry'} {rest}")  # "would leave"


class StaleEntry(EventError):
    """An entry made on an old view of the game: an undo or edit of an event that another screen has undone or
    changed since the entering screen looked (nothing is written)."""


def sse(data: Mapping[str, Any], event: str | None = None, id: int | None = None) -> bytes:
    """One server-sent-events message."""
    lines = []
    if id is not None:
        lines.append(f"id: {id}")
    if event:
        lines.append(f"event: {event}")
    lines.append("data: " + json.dumps(data, ensure_ascii=False, separators=(",", ":")))
    return ("\n".join(lines) + "\n\n").encode("utf-8")


def digest(value: Any) -> str:
    """A short fingerprint of a part of the state (:data:`KEPT`), by which a screen knows the one it has is the same."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    return hashlib.blake2b(text.encode("utf-8"), digest_size=8).hexdigest()


def have(header: str | None) -> dict[str, str]:
    """The digests a screen says it holds, from an entry's ``X-Have: history=<digest>,alerts=<digest>``: none where it
    is absent or not of that form (an old cached page, a script, curl), whose answer is whole as before."""
    pairs = (part.strip().partition("=") for part in (header or "").split(","))
    return {key: value for key, _, value in pairs if value}


def lean(state: Mapping[str, Any], held: Mapping[str, str]) -> dict[str, Any]:
    """``state`` without the parts (:data:`KEPT`) whose digest is one ``held`` names: the screen keeps its own."""
    kept = {key for key in KEPT if held.get(key) == state["digests"][key]}
    return {key: value for key, value in state.items() if key not in kept}


@dataclass(eq=False)
class Subscriber:
    """One live stream's mailbox. A stream too slow to keep up is closed; its phone reconnects. ``digests``: those of
    the parts of the state (:data:`KEPT`) this stream last sent in whole."""

    game_id: str
    queue: queue.Queue[bytes | None] = field(default_factory=lambda: queue.Queue(maxsize=500))
    closed: bool = False
    digests: dict[str, str] = field(default_factory=dict)
    phone: str | None = None  # the random id its phone keeps, and the player it says it is ("I am"; "": watching)
    me: str = ""
    opened: int = 0  # the order streams were opened in: a phone counts as its newest says (:func:`twins`)

    def put(self, message: bytes | None) -> None:
        if self.closed:
            return
        try:
            self.queue.put_nowait(message)
        except queue.Full:
            self.closed = True


@dataclass
class LiveGame:
    record: GameRecord
    session: Session
    lock: threading.Lock = field(default_factory=threading.Lock)
    subscribers: set[Subscriber] = field(default_factory=set)
    arriving: set[tuple[int, int]] = field(default_factory=set)  # (made, order) of the entries on their way in
    turns: threading.Condition = field(default_factory=threading.Condition)  # guards arriving, and tells when one is in
    tickets: int = 0
    rows: _Rows | None = None  # how far the Log's history rows were counted (:meth:`Hub._completions`)
    twins: dict[str, int] = field(default_factory=dict)  # as its screens were last told (:meth:`Hub._tell_twins`)


@dataclass(frozen=True)
class _Rows:
    """The counting events the Log last numbered its history rows over, the game after them, and the rows."""

    ordered: tuple[GameEvent, ...]
    state: Any
    count: int
    completed: Mapping[int, int]


@dataclass(frozen=True)
class AppendResult:
    event: GameEvent
    rulings: list[Ruling]
    state: dict[str, Any]
    duplicate: bool = False  # the same entry was already logged after what the screen had seen: not written again
    counts: bool = True  # (a duplicate's) whether that entry counts: not a foul that left the game as it was
    said: list[dict[str, Any]] | None = None  # the rulings as the screens show them (Hub._said); None: as they are


def twins(subscribers: Iterable[Subscriber]) -> dict[str, int]:
    """The players that two phones or more say they are ("I am"), and how many, among a game's open streams. A phone
    (its id) counts once, as its newest stream says: a page reloaded, or "I am" changed, opens a new stream before the
    old one is found closed. A stream that names no phone (an older page, a script) is not counted."""
    newest: dict[str, Subscriber] = {}
    for subscriber in subscribers:
        if subscriber.phone is not None and subscriber.opened >= newest.get(subscriber.phone, subscriber).opened:
            newest[subscriber.phone] = subscriber
    counts = Counter(subscriber.me for subscriber in newest.values() if subscriber.me)
    return {name: phones for name, phones in sorted(counts.items()) if phones > 1}


def _twins_message(found: Mapping[str, int]) -> bytes:
    """What the screens hear of :func:`twins` (no ``id``: not an event, nor where a stream resumes)."""
    return sse({"twins": [{"player": name, "phones": phones} for name, phones in found.items()]}, event="twins")


def _now_ms() -> int:
    return wall_ms()  # (a clock the wall clock's steps do not move: vision/clock.py)


class Hub:
    """Every live game of one server."""

    def __init__(self, store: Store, clock: Callable[[], int] = _now_ms, max_streams: int = 24) -> None:
        self.store = store
        self.clock = clock
        self.max_streams = max_streams
        self._games: dict[str, LiveGame] = {}
        self._loading: dict[str, threading.Lock] = {}  # games being read from the store (:meth:`live`)
        self._lock = threading.Lock()
        self._streams = 0
        self._opened = 0
        self._results: dict[str, tuple[tuple[int, int], dict[str, Any] | None]] = {}  # (:meth:`result`)
        # (game id, event seq, foul code) -> whether the camera enters that event's card again (:meth:`_said`)
        self.camera_resends: Callable[[str, int, str], bool] | None = None

    # -- loading --------------------------------------------------------------------------
    def live(self, game_id: str) -> LiveGame | None:
        with self._lock:
            if game_id in self._games:
                return self._games[game_id]
            loading = self._loading.setdefault(game_id, threading.Lock())
        # One replay serves every screen opening the game at once: after a restart every phone's stream, page and the
        # camera asked together, each replayed the whole game, and entries into other games waited (4 phones: 5 s of
        # the server's time where one replay took 1; the scale audit, session 42). Other games load meanwhile.
        with loading:
            try:
                with self._lock:
                    if game_id in self._games:
                        return self._games[game_id]
                record = self.store.game(game_id)
                if record is None:
                    return None
                live = LiveGame(record, self._replay(record))
                self._resume(live, start=True)
                with self._lock:
                    return self._games.setdefault(game_id, live)
            finally:
                with self._lock:
                    self._loading.pop(game_id, None)

    def _replay(self, record: GameRecord) -> Session:
        try:
            session = Session(record.game, record.players, record.options)
        except EventError as exc:  # a row edited by hand (a game or house rules the referee does not know): this game
            # cannot open, the others can; it was a 500, "tablecall hit a bug" (docs audit, session 41)
            raise StoreError(f"game {record.id} is damaged in the database ({exc})") from None
        for event in self.store.events(record.id):
            session.restore(event)  # one an earlier version took but this one refuses is kept, not counted
        return session

    def _refresh(self, live: LiveGame) -> None:
        """Catch up with events another process wrote to the same database (``tablecall`` tools)."""
        if self.store.last_seq(live.record.id) != (live.session.events[-1].seq if live.session.events else 0):
            self._catch_up(live)

    def _catch_up(self, live: LiveGame) -> None:
        """The game as another process left it: its events, and this process's clock on from them (:meth:`_resume`)."""
        live.session = self._replay(live.record)
        self._resume(live, start=False)

    def _resume(self, live: LiveGame, start: bool) -> None:
        """The game's clock goes on from its latest event where the clock is behind it (by more than a phone's press
        may be stamped ahead, TS_FUTURE_MS). Started again on a computer whose clock was set back since (by NTP, by
        hand), the game's time was earlier than its events' (a call pressed later was taken as pressed first), or 0
        for as long as the step was longer than the game (the clock audit, session 43). At a ``start`` the clock goes
        on RESUME_GAP_MS after the latest event, and the game's new epoch is stored, so that a later start goes on
        from where this one's clock was, not back to the latest event; after another process's entries (another
        clock) it goes on from them in this process only (stored, and with the gap, two processes pushed each
        other's clocks on without end: the review of that change)."""
        latest = max((e.ts for e in live.session.events), default=0)
        behind = latest - (self.clock() - live.record.epoch_ms)
        if behind <= TS_FUTURE_MS:
            return
        epoch = live.record.epoch_ms - behind - (RESUME_GAP_MS if start else 0)
        if start:
            try:
                self.store.move_epoch(live.record.id, epoch)
            except StoreError:  # (a database that cannot be written now: this run goes on from its latest event)
                log.warning("could not store the new epoch of game %s", live.record.id)
        live.record = replace(live.record, epoch_ms=epoch)

    # -- creating -------------------------------------------------------------------------
    def create(
        self,
        game: str,
        players: Sequence[str],
        options: Mapping[str, Any],
        title: str = "",
        origin: str = "new",
        follows: str | None = None,
    ) -> LiveGame:
        """A new game; raises EventError (unknown game, wrong players, bad options). A rule's ``fresh`` value is
        what a new game starts with where not given (scorer.game.Option.fresh). ``follows``: the game it is played
        again after ("Play again"): that game's screens are told, and offer its phones the way in."""
        session = Session(get_game(game), players, get_game(game).spec.fresh(options))
        now = self.clock()
        title = title or header_title(f"{session.game.spec.title}: {', '.join(session.players)}")
        record = self.store.create_game(
            game,
            session.players,
            dict(session.header.options),
            title=title,
            origin=origin,
            epoch_ms=now,
            created_ms=now,
            follows=follows,
        )
        live = self._install(record, session)
        self._tell_followed(follows, record.id)
        return live

    def _tell_followed(self, follows: str | None, game_id: str) -> None:
        """The screens of ``follows``, played again or imported corrected as ``game_id``, are told (their state's
        ``next``), and offer its phones the way in."""
        try:
            before = self.live(follows) if follows is not None else None
        except StoreError as exc:  # that game damaged in the database: the new one is made all the same
            log.error("game %s, played again as %s, cannot be read: %s", follows, game_id, exc)
            before = None
        if before is not None:
            try:  # the new game is made: telling the old one's screens must not make it a 500 (pressed again, it made
                with before.lock:  # another game; a review, session 41)
                    state = self.snapshot(before)
                    self._broadcast(before, sse(state, event="state", id=state["seq"]), state)
            except Exception:
                log.exception("game %s, played again as %s, could not tell its screens", follows, game_id)

    @staticmethod
    def _broadcast(live: LiveGame, message: bytes | None, state: Mapping[str, Any] | None = None) -> None:
        """``message`` to every live stream of ``live`` (None: the stream ends); ``state``: the whole state it holds."""
        for subscriber in list(live.subscribers):
            subscriber.put(message)
            if state is not None:
                subscriber.digests = dict(state["digests"])

    @staticmethod
    def _send_event(live: LiveGame, body: Mapping[str, Any], state: Mapping[str, Any], seq: int) -> None:
        """An event's message to every live stream of ``live``, its state without the parts (:data:`KEPT`) that are as
        that stream last sent them: every stream starts with the whole state (Hub.subscribe), and its messages reach
        the phone in the order put, or the stream ends (Subscriber.put). One rendering per set left out."""
        rendered: dict[tuple[str, ...], bytes] = {}
        for subscriber in list(live.subscribers):
            kept = tuple(key for key in KEPT if subscriber.digests.get(key) == state["digests"][key])
            if kept not in rendered:
                rendered[kept] = sse({**body, "state": lean(state, subscriber.digests)}, event="event", id=seq)
            subscriber.put(rendered[kept])
            subscriber.digests = dict(state["digests"])

    def import_log(self, game_log: GameLog, title: str = "", follows: str | None = None) -> LiveGame:
        """A new game holding a whole imported log (checked by replaying it first; one refused makes nothing and
        links nothing). ``follows``: the game it replaces (its players or seats corrected in an export of it), whose
        screens are told as after "Play again"."""
        try:
            session = replay(game_log)  # raises LogError naming the line that does not replay
        except EventError:
            raise
        except Exception as exc:  # a referee bug: said as for a phone's entry (it was a 500; fault fuzz, s41)
            log.exception("the %s referee failed replaying an imported log", game_log.header.game)
            referee = get_game(game_log.header.game).spec.title
            raise RefereeFault(
                f"the {referee} referee could not replay this log (a bug in tablecall): nothing was imported; tell the "
                "host (the server's log has the details)"
            ) from exc
        now = self.clock()
        last_ts = max((e.ts for e in game_log.events), default=0)  # (not the last's: a log whose times went back)
        title = title or header_title(f"{session.game.spec.title} (imported): {', '.join(session.players)}")
        record = self.store.create_game(
            game_log.header.game,
            session.players,
            dict(session.header.options),
            title=title,
            origin="import",
            epoch_ms=now - last_ts - 1000,  # events entered from now on come after the imported ones
            created_ms=now,
            events=game_log.events,
            follows=follows,
        )
        live = self._install(record, session)
        self._tell_followed(follows, record.id)
        return live

    def _install(self, record: GameRecord, session: Session) -> LiveGame:
        live = LiveGame(record, session)
        with self._lock:
            self._games[record.id] = live
        return live

    # -- writing --------------------------------------------------------------------------
    def game_time(self, live: LiveGame) -> int:
        return self.game_time_at(live, self.clock())

    def game_time_at(self, live: LiveGame, clock_ms: int) -> int:
        """The game's time when :attr:`clock` said ``clock_ms`` (the camera's frames are stamped by that clock)."""
        return max(0, clock_ms - live.record.epoch_ms)

    def append(
        self,
        game_id: str,
        body: Mapping[str, Any],
        author: str,
        source: Source = Source.MANUAL,
        client_ts: int | None = None,
        seen: int | None = None,
        made: int | None = None,
    ) -> AppendResult:
        """Check, store and broadcast one event given as ``{"type": ..., payload...}``. ``seen``: the last event
        the entering screen had when the entry was made (:meth:`_fresh`); ``made``: when, on the game's clock
        (:meth:`_in_order`).

        Raises EventError for a malformed event (nothing is written), StaleEntry for an entry made on an old view or
        into a game replaced by a corrected import (:meth:`not_replaced`),
        KeyError for an unknown game, ConflictError if another writer got there first, RefereeFault for a
        referee bug.
        """
        live = self.live(game_id)
        if live is None:
            raise KeyError(game_id)
        self.not_replaced(game_id)  # a phone's entry or the camera's
        with self._in_order(live, made), live.lock:
            self._refresh(live)
            now = self.game_time(live)
            ts = now if client_ts is None else self._check_ts(client_ts, now)
            seq = live.session.next_seq
            try:
                event = parse_event({**body, "seq": seq, "ts": ts, "source": source.value})
                self._check_inner(event, now)
                same = self._fresh(live.session, event, seen)  # an undo's bad 'target' is refused here
            except EventError as exc:
                raise unnumbered(exc, seq, body.get("type")) from None
            if same is not None:
                counts = same.seq not in live.session.idle
                return AppendResult(same, [], self.snapshot(live), duplicate=True, counts=counts)
            # Everything that can fail comes before the commit, and what was taken is forgotten without reading the
            # log again (fault fuzz, session 41): the screens' state was drawn after it, so a referee bug in view() or
            # score() was stored, answered 500 and left the game unopenable, and an entry whose forgetting read
            # failed too stayed counted on every screen though it was never stored.
            mark = live.session.checkpoint()
            scored = self._scored(live.session, event)
            try:
                rulings = live.session.append(event)
                self._no_score_taken(live.session, event, scored)
                state = self.snapshot(live)
            except EventError as exc:
                live.session.rewind(mark)
                raise unnumbered(exc, seq, event.type) from None
            except StoreError:  # the state's reads (the game played after this one)
                live.session.rewind(mark)
                raise
            except Exception as exc:  # a referee bug: report it, write nothing
                live.session.rewind(mark)
                log.exception("the %s referee failed on %s", live.record.game, event.to_line())
                title = live.session.game.spec.title
                raise RefereeFault(  # it showed the phones a Python repr, "(KeyError('pile'))"
                    f"the {title} referee could not handle this entry (a bug in tablecall): nothing was written; "
                    "enter it another way, or tell the host (the server's log has the details)"
                ) from exc
            try:
                self.store.append(game_id, event, self.clock(), author)
            except BaseException:
                live.session.rewind(mark)
                with suppress(Exception):  # the store is the truth (another writer's events): catch up if it reads
                    self._catch_up(live)
                raise
            said = self._said(live, rulings)
            body = {"event": event.to_json(), "rulings": said}
            try:  # stored: it is answered as such whatever happens here
                self._send_event(live, body, state, event.seq)
            except Exception:
                log.exception("event %s of game %s is stored, but could not be sent to its screens", seq, game_id)
            return AppendResult(event, rulings, state, said=said)

    def _said(
        self,
        live: LiveGame,
        rulings: Sequence[Ruling],
        events: Sequence[GameEvent] | None = None,
        everything: Sequence[Ruling] | None = None,
    ) -> list[dict[str, Any]]:
        """``rulings`` as the screens show them: the referee's, but for a camera event that a change on a phone re-ruled
        into a foul after which the camera enters its card again once it can count (Spades: Beth's 4C out of turn once
        Alex's QC is undone, :meth:`vision.live.LiveTable.resends`), where the referee says "take it back" (a card
        entered on a phone plays again that way) the camera's word is said instead, in the foul and in the alert that
        names it: the players were told to take up a card the camera was about to enter (its note said to leave it:
        spadesleft, session 50). ``events`` and ``everything``: the game's events and rulings (the session's by
        default; the caller's copy where it took them under the lock)."""
        out = [r.to_json() for r in rulings]
        resends = self.camera_resends
        alerts = [said for said in out if said["code"] == "later_events_reruled"]
        if resends is None or not (alerts or any(said["severity"] == "foul" for said in out)):
            return out
        session = live.session
        events = session.events if events is None else events
        everything = session.rulings if everything is None else everything
        rerules = {s for r in everything if r.code == "later_events_reruled" for s in (r.data or {}).get("events", ())}
        if not rerules:  # nothing re-ruled in this game (most): the referee's words stand
            return out
        camera = {e.seq for e in events if e.source is Source.VISION}
        shown = {said["seq"] for said in out if said["severity"] == "foul"}
        shown |= {s for said in alerts for s in (said.get("data") or {}).get("events", ())}
        words: dict[tuple[int, str], tuple[str, str]] = {}  # (seq, code) -> (the referee's words, the camera's)
        for ruling in everything:
            if ruling.seq is None or ruling.severity is not Severity.FOUL or (ruling.seq, ruling.code) in words:
                continue
            if ruling.seq not in shown or ruling.seq not in rerules or ruling.seq not in camera:
                continue
            try:
                resent = resends(live.record.id, ruling.seq, ruling.code)
            except Exception:  # the camera's answer is a courtesy: the referee's words stand without it
                log.exception("the camera could not say whether it enters event %s again", ruling.seq)
                resent = False
            if resent:
                base = ruling.message.rstrip(".").removesuffix("; take it back")
                again = "if it still lies there, leave it: the camera enters it again once it can count."
                words[(ruling.seq, ruling.code)] = (ruling.message, f"{base}; {again}")
        if not words:
            return out
        by_seq: dict[int, list[tuple[str, str]]] = {}
        for (seq, _), pair in words.items():
            by_seq.setdefault(seq, []).append(pair)
        for said in out:
            new = words.get((said["seq"], said["code"]))
            if new is not None:
                said["message"] = new[1]
            elif said["code"] == "later_events_reruled":  # only the events it names (each alert against every change
                for seq in (said.get("data") or {}).get("events", ()):  # made the Log's cost grow with their square)
                    for old, camera_says in by_seq.get(seq, ()):
                        said["message"] = said["message"].replace(
                            f"event {seq}: {old.rstrip('.')}", f"event {seq}: {camera_says.rstrip('.')}"
                        )
        return out

    @staticmethod
    def _subject(session: Session, event: GameEvent) -> int | None:
        """The game event whose standing a meta event changes (Session.touches): a ``correct``'s target, the target of
        the ``correct`` an ``undo`` takes back (the Log's "Undo this edit"), or puts back (its "Restore #N", an undo of
        that undo: followed one undo deep, a Restore made hand 2 a barred Blind Nil that the edit and "Undo this edit"
        doing the same were refused: review2, session 49), an undone event; None otherwise."""
        return session.touches(event)

    def _scored(self, session: Session, event: GameEvent) -> ScoreSheet | None:
        """The score sheet before ``event`` where it is a ``correct``, or an undo of one, whose subject
        (:meth:`_subject`) counts and changes the game (:meth:`_no_score_taken`), None otherwise."""
        target = self._subject(session, event)
        if target is None or target in session.idle or all(e.seq != target for e in session.counting()):
            return None
        return session.score()

    def _no_score_taken(self, session: Session, event: GameEvent, scored: ScoreSheet | None) -> None:
        """Refuse a correction, or an undo of one (EventError: the caller rewinds, nothing is written), that makes the
        event it corrects, which counted and changed the game, one the referee rules a foul or error that changes
        nothing. With the house rule blind_nil_requires_deficit, hand 1 corrected (the Log's raw edit) to a Blind Nil
        it does not allow was taken: the hand was no longer scored, hand 2 became hand 1 and the totals moved, said only
        by the foul's banner (correctfix, session 48); a Ten stop corrected to another player's went the same way; the
        Log's "Undo this edit" of the correction that had scored such a hand, and a bid played card by card corrected to
        such a Blind Nil (no score moved: the bid became a foul, the later bids out of turn), likewise (spadesfix,
        session 49). A foul that changes the game (Snap's false call: its penalty; Spit's illegal play: its card lies
        on the pile) is a correction as any other, as are fouls of later events (said by the alert
        later_events_reruled)."""
        target = self._subject(session, event)
        if scored is None or target is None or target not in session.idle:
            return
        faults = [r for r in session.rulings if r.seq == target and r.severity in (Severity.FOUL, Severity.ERROR)]
        if not faults:
            return
        kind = next((e.type for e in session.counting() if e.seq == target), "event")
        words = " ".join(r.message for r in faults)
        what = "a foul" if faults[0].severity is Severity.FOUL else "an error"
        moved = "" if session.score() == scored else ", and change the score"
        keep = ""
        if event.type == "undo":
            verb, fix = "undo", f"edit event {target} if it is wrong"
        else:
            verb, fix = "edit", "edit it again"
            if what == "a foul":  # one that did happen: an undo and an insert after it, the same game (review2 F2)
                keep = f" To keep the foul in the Log, undo event {target}, then insert it after event {target}."
        raise EventError(
            f"this {verb} would make event {target} ({kind}) {what} that counts for nothing{moved}: {words} "
            f"Nothing was changed: {fix}, or undo event {target} if it should not count.{keep}"
        )

    @staticmethod
    def _check_inner(event: GameEvent, now: int) -> None:
        """The event a ``correct`` or ``insert`` carries: its number and source are the server's (the meta event's),
        and a press time it gives lies on the game's clock, not in its future."""
        inner = event.data.get("event") if event.type in ("correct", "insert") else None
        if not isinstance(inner, Mapping):
            return
        for key in ("seq", "source"):
            if key in inner:
                raise EventError(
                    f"leave out '{key}' in the {event.type}'s event: "
                    "the server numbers the events and records their source"
                )
        when = inner.get("ts")
        if when is not None and (
            isinstance(when, bool) or not isinstance(when, int) or not 0 <= when <= now + TS_FUTURE_MS
        ):
            raise EventError(
                f"'ts' in the {event.type}'s event must be a time on the game's clock (0 to {now} ms), not {when!r}"
            )

    @staticmethod
    def _fresh(session: Session, event: GameEvent, seen: int | None) -> GameEvent | None:
        """Refuse an undo or edit of an event already undone, or changed by another screen after ``seen``, and a
        deal's end (:data:`ENDINGS`) when one was entered after ``seen`` (StaleEntry); return the event logged after
        ``seen`` that is this very entry and counts (a phone that sent again because the answer was lost, or a
        second phone entering the same thing), None if it is new."""
        if event.type in ("undo", "correct") and seen is not None:  # the same undo or edit, logged after seen and in
            undone = session.undone()  # effect: sent again (it was told "changed on another screen", of its own)
            for earlier in session.events:
                same = earlier.type == event.type and earlier.data == event.data
                if same and earlier.seq > seen and earlier.seq not in undone and earlier.seq not in session.refused:
                    return earlier
        if event.type in ("undo", "correct"):
            target = event.integer("target", 1)
            undo = session.undone_by(target)
            if undo is not None:
                verb = "undo" if event.type == "undo" else "edit"
                raise StaleEntry(
                    f"event {target} is already undone (event {undo}): nothing to {verb}"
                    + ("" if event.type == "undo" else "; restore it first if it should count")
                )
        if seen is None:
            return None
        since = [e for e in session.events if e.seq > seen]
        if not since:
            return None
        counting = {e.seq for e in session.counting()}
        counts = counting - session.idle
        for earlier in since:  # the same entry, where it counts (a foul taken back, an undone event: enter it anew)
            if earlier.type != event.type or earlier.data != event.data or earlier.seq not in counting:
                continue
            if earlier.seq in counts:
                return earlier
            # or a foul that left the game as it was, and nothing logged since has changed the game: the same entry
            # would be judged the same (a card the camera sent as a renege, entered again on a phone that had not
            # seen it, was logged twice with two fouls; once the game moves on, it is entered anew)
            if all(e.seq in session.idle for e in session.events if e.seq > earlier.seq):
                return earlier
        changed = session.touches(event)
        for earlier in since:
            if changed is not None and session.touches(earlier) == changed:
                raise StaleEntry(
                    f"event {changed} was changed on another screen meanwhile (event {earlier.seq}): "
                    "look at it again, then make your change"
                )
            if event.type in ENDINGS and earlier.type == event.type and earlier.seq in counts:
                raise StaleEntry(
                    f"event {earlier.seq} ({_WHOLE[event.type]}) was entered meanwhile, on another screen or by the "
                    "camera: look at it, and edit it if it is wrong"
                )
        return None

    @contextmanager
    def _in_order(self, live: LiveGame, made: int | None) -> Iterator[None]:
        """Entries taken in the order they were made when they arrive together (see LATE_MS). An entry without
        ``made`` (the camera's, an older screen's), or with one the game's clock cannot have said (a phone's clock
        off), goes in as it comes."""
        now = self.game_time(live)
        if made is None or not now - TS_PAST_MS <= made <= now + TS_FUTURE_MS:
            yield
            return
        with live.turns:
            live.tickets += 1
            key = (made, live.tickets)
            live.arriving.add(key)
        try:
            if now - made >= LATE_MS:  # held on its way: others held with it are arriving now
                time.sleep(GATHER_S)
            deadline = time.monotonic() + ORDER_WAIT_S
            with live.turns:
                while any(other < key for other in live.arriving) and (left := deadline - time.monotonic()) > 0:
                    live.turns.wait(left)
            yield
        finally:
            with live.turns:
                live.arriving.discard(key)
                live.turns.notify_all()

    @staticmethod
    def _check_ts(client_ts: int, now: int) -> int:
        if isinstance(client_ts, bool) or not isinstance(client_ts, int):
            raise EventError(f"'ts' must be a whole number of milliseconds, not {client_ts!r}")
        if client_ts < now - TS_PAST_MS:  # a press held on its way (the laptop asleep, a Wi-Fi dropping out) was
            raise EventError(  # told to reload the page, as though its clock were wrong (the clock audit, s43)
                f"'ts' {client_ts} is more than {TS_PAST_MS // 1000} s behind the game's clock ({now} ms): it reached "
                "tablecall late (the host's computer paused, or the Wi-Fi held it), or this phone's clock is off; "
                "nothing was recorded"
            )
        if client_ts > now + TS_FUTURE_MS:
            raise EventError(
                f"'ts' {client_ts} is ahead of the game's clock ({now} ms): reload the page so that the phone's clock "
                "is synchronised again"
            )
        return max(0, client_ts)

    # -- reading --------------------------------------------------------------------------
    def snapshot(self, live: LiveGame) -> dict[str, Any]:
        """Everything a screen needs to draw the game now (plain JSON)."""
        session = live.session
        sheet = session.score().to_json()
        counting = session.counting()
        alerts = self._said(live, [r for r in session.rulings if r.severity.value != "info"][-ALERTS:])
        kept = {"history": sheet["history"], "alerts": alerts}
        return {
            "id": live.record.id,
            "game": live.record.game,
            "title": live.record.title,
            "game_title": session.game.spec.title,
            "players": list(session.players),
            "options": dict(session.options),
            "seq": session.events[-1].seq if session.events else 0,
            "now": self.game_time(live),
            "totals": sheet["totals"],
            "history": sheet["history"],
            "winner": sheet["winner"],
            "winner_text": winner_text(sheet["winner"], sheet["teams"]),
            "finished": sheet["finished"],
            "teams": sheet["teams"],
            "lower_wins": sheet["lower_wins"],
            "view": session.view(),
            "alerts": alerts,
            "recent": [e.to_json() for e in counting[-RECENT:]],
            "counting": len(counting),
            "camera_saw": _camera_saw(session.events, counting, session.undone()),
            "next": self._next(live.record.id),
            "digests": {key: digest(kept[key]) for key in KEPT},
        }

    def result(self, record: GameRecord, replay_until: float = 0.0) -> dict[str, Any] | None:
        """Where a listed game stands: ``finished``, ``winner_text``, ``totals`` and ``lower_wins``, for the home page
        and /api/games (21 rows alike after a month, and none said which game was over or who won: weeks audit, session
        47, F1).
        From the live game where it is loaded; else replayed, but only before ``replay_until`` (time.monotonic(): a
        game not loaded costs its replay, 3-12 s for 1,000 short games, and is not kept loaded); None past it, or where
        its replay failed. Kept until the game changes."""
        key = (record.events, record.last_ms)
        with self._lock:
            known = self._results.get(record.id)
            live = self._games.get(record.id)
        if known is not None and known[0] == key:
            return known[1]
        if live is not None:
            with live.lock:
                sheet = live.session.score()
        elif time.monotonic() < replay_until:
            try:
                sheet = self._replay(record).score()
            except Exception:  # (a game damaged in the database, a referee's bug: the row is listed without it, and
                # not replayed again until it changes: it was, with a traceback, at every list; a review, session 47)
                log.exception("game %s could not be replayed for the game list", record.id)
                with self._lock:
                    self._results[record.id] = (key, None)
                return None
        else:
            return None
        found = {
            "finished": sheet.finished,
            "winner_text": winner_text(sheet.winner, sheet.teams),
            "totals": dict(sheet.totals),
            "lower_wins": sheet.lower_wins,
        }
        with self._lock:
            self._results[record.id] = (key, found)
        return found

    def read_results(self) -> None:
        """Every game's :meth:`result`, the most recently played first (demo rounds left out), on a thread of its own at
        the start of ``serve``: a game list then replays none of them (1,000 short games: 3-9 s at the start, once)."""
        try:
            for record in self.store.games():
                if record.origin != "demo":
                    self.result(record, float("inf"))
        except Exception as exc:  # (the server stopping meanwhile, the database unreadable: the lists replay instead)
            log.info("the game list's results were not all read at the start: %s", exc)

    def following(self, game_id: str) -> GameRecord | None:
        """The game played again after this one ("Play again") or imported to replace it (``origin`` "import": its
        players or seats corrected); None where there is none, or it cannot be read (damaged in the database: this
        game's screens and entries go on)."""
        try:
            next_id = self.store.next_game(game_id)
            return self.store.game(next_id) if next_id is not None else None
        except StoreError as exc:
            log.error("the game after %s cannot be read: %s", game_id, exc)
            return None

    def latest_after(self, game_id: str) -> GameRecord | None:
        """The last game of the chain played again (or corrected) after this one: a phone bookmarked on game 1 of three
        went through game 2, over already, with the same title on each step (weeks audit, session 47, F3). A chain that
        comes back to a game it passed (a database edited by hand) ends there."""
        seen, found = {game_id}, None
        while len(seen) <= CHAIN and (record := self.following(found.id if found else game_id)) is not None:
            if record.id in seen:
                break
            seen.add(record.id)
            found = record
        return found

    def replaced_by(self, game_id: str) -> GameRecord | None:
        """The corrected import that replaced this game, which then takes no more entries (phones' or the camera's)."""
        record = self.following(game_id)
        return record if record is not None and record.origin == "import" else None

    def not_replaced(self, game_id: str, what: str = "enter") -> None:
        """Raises StaleEntry where a corrected import replaced the game: it takes no more entries, a phone's (one on
        the Enter tab, which does not show the Table tab's "This game was corrected", went on entering into it, and the
        evening's score split over the two games: roster audit, session 46) nor the camera's (a review), and is not
        corrected or played again itself (made from its old log, that took the first correction's link)."""
        replaced = self.replaced_by(game_id)
        if replaced is not None:
            raise StaleEntry(
                f"this game was corrected as {replaced.title!r} (its players or seats fixed), and takes no more "
                f'entries: {what} it there (the Table tab\'s "This game was corrected" goes to it); nothing was '
                "recorded"
            )

    def _next(self, game_id: str) -> dict[str, Any] | None:
        """The game played again after this one ("Play again") or imported to replace it, or the last one of such a
        chain (where ``/g/<id>/next`` leads): its id, title and start (in this computer's time, "Fri 27 Nov, 20:00":
        the button read the title of the page it was on), and whether this game was corrected, for the phones to
        follow."""
        record = self.following(game_id)
        if record is None:
            return None
        # an import that replaces this game (players or seats corrected) is said as such, not as a rematch
        corrected = record.origin == "import"
        record = self.latest_after(game_id) or record
        moment = datetime.fromtimestamp(record.created_ms / 1000).astimezone()
        started = f"{moment:%a} {moment.day} {moment:%b}, {moment:%H:%M}"
        return {"id": record.id, "title": record.title, "corrected": corrected, "started": started}

    def log_entries(self, live: LiveGame) -> list[dict[str, Any]]:
        """Every logged event with what it means now: counts, undone, corrected, or a meta event."""
        with live.lock:
            events = list(live.session.events)
            rulings = list(live.session.rulings)
            ordered = live.session.counting()
            refused = set(live.session.refused)
        counting = {e.seq: e for e in ordered}
        rows = self._completions(live, ordered)
        authors = self.store.authors(live.record.id)
        by_seq: dict[int, list[dict[str, Any]]] = {}
        for said in self._said(live, rulings, events, rulings):
            if said["seq"] is not None:
                by_seq.setdefault(said["seq"], []).append(said)
        undone: set[int] = set()
        for event in reversed(events):  # as scorer.session decides: an undo counts unless undone itself
            target = meta_target(event) if event.type == "undo" else None
            if target is not None and event.seq not in undone and event.seq not in refused:
                undone.add(target)
        entries = []
        for event in events:
            entry: dict[str, Any] = {"event": event.to_json(), "author": authors.get(event.seq), "rulings": []}
            now = counting.get(event.seq)
            if event.type in ("undo", "correct"):
                entry["status"] = "meta"
                entry["in_effect"] = event.seq not in undone and event.seq not in refused
            elif now is None and event.seq in refused and event.seq not in undone:
                entry["status"] = "refused"  # stored by an earlier version; correct or undo it
            elif now is None:
                entry["status"] = "undone"
            elif event.type == "insert" or now != event:
                entry["status"] = "counts" if event.type == "insert" else "corrected"
                entry["now"] = now.to_json()
            else:
                entry["status"] = "counts"
            if now is not None or event.seq in refused or entry["status"] == "meta":  # a meta event's own alert
                entry["rulings"] = by_seq.get(event.seq, [])
            if now is not None:
                entry["row"] = rows.get(event.seq)
            entries.append(entry)
        return entries

    @staticmethod
    def _completions(live: LiveGame, ordered: Sequence[GameEvent]) -> dict[int, int]:
        """For each counting event after which the history grew: the number of history rows then
        (so a screen can find the events that made a past hand, to edit them). Counted on from where the last Log
        load left off while the game only grew (each row count scores the game: from the start every time, a Log
        of 2,000 events took 10 s a load: tests/bench_log.py)."""
        session, game, done = live.session, live.session.game, live.rows
        if (
            done is not None
            and len(done.ordered) <= len(ordered)
            and done.ordered == tuple(ordered[: len(done.ordered)])
        ):
            start, state, rows, out = len(done.ordered), done.state, done.count, dict(done.completed)
        else:
            start, state, rows, out = 0, game.initial_state(session.players, session.options), 0, {}
        for event in ordered[start:]:
            state, _ = game.apply(state, event)
            count = len(game.score(state).history)
            if count != rows:
                out[event.seq] = rows = count
        live.rows = _Rows(tuple(ordered), state, rows, dict(out))
        return out

    # -- live streams ---------------------------------------------------------------------
    def subscribe(
        self, live: LiveGame, last_id: int | None, phone: str | None = None, me: str = ""
    ) -> tuple[Subscriber, list[bytes]]:
        """A new subscriber and the messages that bring it up to date (resuming after ``last_id``). ``phone``: the
        random id the screen keeps, ``me``: the player it says it is (:func:`twins`); such a stream also hears whether
        other phones say they are the same player."""
        with self._lock:
            if self._streams >= self.max_streams:
                raise OverflowError("too many live screens are open on this server; close one and retry")
            self._streams += 1
            self._opened += 1
            opened = self._opened
        subscriber = Subscriber(live.record.id, phone=phone, me=me if phone is not None else "", opened=opened)
        with live.lock:
            live.subscribers.add(subscriber)
            backlog: list[bytes] = []
            session = live.session
            last = session.events[-1].seq if session.events else 0
            try:
                if last_id is not None and 0 <= last_id <= last:
                    for event in session.events:
                        if event.seq > last_id:
                            rulings = self._said(live, [r for r in session.rulings if r.seq == event.seq])
                            backlog.append(
                                sse({"event": event.to_json(), "rulings": rulings}, event="missed", id=event.seq)
                            )
                state = self.snapshot(live)
                backlog.append(sse(state, event="state", id=last))
                subscriber.digests = dict(state["digests"])
                if phone is not None:
                    self._tell_twins(live, but=subscriber)
                    backlog.append(_twins_message(live.twins))
            except BaseException:  # a referee bug in this game's view: its place is given back (each phone's retry
                live.subscribers.discard(subscriber)  # took one for good, and in a minute every game's screens had
                with self._lock:  # "too many live screens are open on this server"; error-handling audit, s41)
                    self._streams -= 1
                raise
        return subscriber, backlog

    def unsubscribe(self, live: LiveGame, subscriber: Subscriber) -> None:
        with live.lock:
            if subscriber in live.subscribers:
                live.subscribers.discard(subscriber)
                with self._lock:
                    self._streams -= 1
                if subscriber.phone is not None:
                    self._tell_twins(live)
        subscriber.closed = True

    @staticmethod
    def _tell_twins(live: LiveGame, but: Subscriber | None = None) -> None:
        """The screens that can hear it (their stream names a phone) are told when the players two phones say they
        are change (under ``live.lock``); ``but``: a new stream, told in its backlog. Nothing is stored."""
        found = twins(live.subscribers)
        if found == live.twins:
            return
        live.twins = found
        message = _twins_message(found)
        for subscriber in list(live.subscribers):
            if subscriber.phone is not None and subscriber is not but:
                subscriber.put(message)

    @property
    def streams(self) -> int:
        return self._streams

    def ping(self, live: LiveGame) -> bytes:
        return sse({"now": self.game_time(live)}, event="ping")

    def close_streams(self) -> None:
        """Tell every stream to end (server shutdown)."""
        with self._lock:
            games = list(self._games.values())
        for live in games:
            self._broadcast(live, None)


def _camera_saw(
    events: Sequence[GameEvent], counting: Sequence[GameEvent], undone: Mapping[int, int]
) -> list[dict[str, Any]]:
    """The camera's latest events, newest first, each as it counts now, or ``rejected`` with the seq of the
    undo that rejected it: a rejected one keeps its place on every screen (so the next tap meant for it does
    not reject the one below) and can be restored. ``undone``: :meth:`Session.undone`, the undo in effect (the
    latest undo of an event is not it once an older one is brought back by undoing its undo from the Log: Restore
    then undid an undo already undone, refused every time; the camera-and-phones audit, session 42). ``read``: the
    event as the camera sent it, where a correction changed it since (the list said "The camera saw: 9H" for the
    9S it read once 9S was corrected to 9H)."""
    now = {e.seq: e for e in counting}
    seen = [e for e in events if e.source is Source.VISION and e.type not in ("undo", "correct", "insert")]
    out = []
    for event in reversed(seen[-CAMERA_SAW:]):
        shown = now.get(event.seq, event)
        rejected = None if event.seq in now else undone.get(event.seq)
        read = event.to_json() if (shown.type, shown.data) != (event.type, event.data) else None  # (not its source)
        out.append({"event": shown.to_json(), "rejected": rejected, "read": read})
    return out
