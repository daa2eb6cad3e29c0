"""A game in progress: its log, the events that count, the referee's state and rulings.

Replay is ``fold(apply, effective_events(log), initial_state)``. The log only grows; the
meta events ``undo``, ``correct`` and ``insert`` (see :mod:`scorer.events`) change which
events count, and the state is then recomputed from the first event that changed (:class:`_Memo`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from scorer.events import META_TYPES, EventError, GameEvent, GameLog, LogError, LogHeader, parse_event
from scorer.game import Game, Ruling, ScoreSheet, Severity
from scorer.registry import get_game

__all__ = ["RefereeFault", "Session", "effective_events", "meta_target", "replay"]

Json = Any


def _inner(meta: GameEvent, anchor_ts: int) -> GameEvent:
    """The game event carried by a ``correct`` or ``insert`` meta event."""
    body = meta.data.get("event")
    if not isinstance(body, Mapping):
        raise EventError(f"{meta.where()}: 'event' must be the corrected event, like {{\"type\": ...}}")
    obj = dict(body)
    obj.setdefault("ts", anchor_ts)
    obj.setdefault("source", meta.source.value)
    obj["seq"] = meta.seq
    event = parse_event(obj)
    if event.type in META_TYPES:  # an insert was called "a correction" (a second review, session 40)
        what = "an insert" if meta.type == "insert" else "a correction"
        raise EventError(f"{meta.where()}: {what} cannot hold another '{event.shown_type}'")
    return event


def _check_target(meta: GameEvent, key: str, by_seq: Mapping[int, GameEvent], allow_zero: bool) -> int:
    target = meta.integer(key, 0 if allow_zero else 1)
    if target >= meta.seq or (target and target not in by_seq):
        raise EventError(f"{meta.where()}: there is no earlier event {target} to refer to")
    return target


def meta_target(meta: GameEvent) -> int | None:
    """An ``undo``'s or ``correct``'s target where it is a number (a list there was a TypeError in a set: a 500 on
    Import; a differential audit, session 39); None otherwise, which :func:`_check_target` refuses."""
    target = meta.data.get("target")
    return target if isinstance(target, int) and not isinstance(target, bool) else None


def _anchor(after: int, by_seq: Mapping[int, GameEvent], order: Sequence[int]) -> int:
    """Where an insert ``after`` an event goes: after that event, or, where it is an ``undo`` or ``correct``
    (which have no place in the game's order), after the last game event logged before it (``0``: none)."""
    if after == 0 or by_seq[after].type not in ("undo", "correct"):
        return after
    return max((seq for seq in order if seq < after), default=0)


def effective_events(events: Sequence[GameEvent]) -> list[GameEvent]:
    """The game events that count, in order, after undos, corrections and insertions."""
    by_seq = {event.seq: event for event in events}
    for event in events:
        if event.type == "undo":
            _check_target(event, "target", by_seq, allow_zero=False)
        elif event.type == "correct":
            target = _check_target(event, "target", by_seq, allow_zero=False)
            kind = by_seq[target].type
            if kind in ("undo", "correct"):
                what = "an undo" if kind == "undo" else "a correction"
                raise EventError(f"{event.where()}: event {target} is {what}; undo it instead")
        elif event.type == "insert":
            _check_target(event, "after", by_seq, allow_zero=True)
    undone: set[int] = set()
    for event in reversed(events):  # an undo counts unless a later undo that counts undid it
        if event.type == "undo" and event.seq not in undone:
            undone.add(event.integer("target"))
    order: list[int] = []
    inserted_after: dict[int, list[int]] = {}
    anchors: dict[int, int] = {}  # insert -> the event it goes after
    for event in events:
        if event.type == "insert":
            anchors[event.seq] = _anchor(event.integer("after"), by_seq, order)
            inserted_after.setdefault(anchors[event.seq], []).append(event.seq)
        elif event.type not in META_TYPES:
            order.append(event.seq)

    def place(seq: int, out: list[int]) -> None:  # depth first, children in log order; a stack, not recursion (a
        stack = [seq]  # chain of ~1,000 inserts, each after the one before, ended in a RecursionError: a 500)
        while stack:
            here = stack.pop()
            out.append(here)
            stack.extend(reversed(inserted_after.get(here, [])))

    placed: list[int] = []
    for child in inserted_after.get(0, []):
        place(child, placed)
    for seq in order:
        place(seq, placed)
    content: dict[int, GameEvent] = {}
    for seq in placed:
        event = by_seq[seq]
        if event.type == "insert":  # without a ts of its own: the time of the event it goes after (after an undo or
            anchor = by_seq.get(anchors[seq])  # correct row: the game event before it, not the row's own time)
            content[seq] = _inner(event, anchor.ts if anchor else 0)
        else:
            content[seq] = event
    for event in events:
        if event.type == "correct" and event.seq not in undone:
            target = event.integer("target")
            content[target] = _inner(event, content[target].ts).with_seq(target)
    return [content[seq] for seq in placed if seq not in undone]


#: the replay memo keeps the referee's state after every this many events that count (:class:`_Memo`)
MEMO_EVERY = 16


def _same_event(a: GameEvent, b: GameEvent) -> bool:
    """``a`` and ``b`` are the same event to the referee: as their log lines, not by Python's ``==``, which has
    ``1 == 1.0 == True`` (a correction of a bid of 1 to ``true`` was taken as no change and never ruled on: the
    review, session 42)."""
    return a is b or a.to_line() == b.to_line()


@dataclass
class _Memo:
    """What a fold of the events that count gave, so that a meta event refolds only from the first event it changes
    (plus at most :data:`MEMO_EVERY`), not from the start: an undo of the last entry cost a whole replay, and loading a
    game replayed it whole once per stored undo, so an evening of 1,875 Spades events with 83 undos took 16.7 s to
    open after a restart and 28 s to import (the scale audit, session 42). A pure function of its own ``walk`` (the
    referee's states are values), so it stays right whatever happens to the session; ``current`` says it is the
    session's walk as it is, so that an appended game event can extend it."""

    walk: list[tuple[GameEvent, bool]]  # (event, counts), as Session._walk gives them
    rulings: list[Ruling]  # the fold's rulings, without meta events' refusals and alerts
    ruled: list[int]  # len(rulings) after each prefix of the walk: ruled[i] after walk[:i]
    idle: list[bool]  # whether each event of the walk left the state as it was
    marks: dict[int, Any]  # the state after walk[:i], for i a multiple of MEMO_EVERY (0 always)
    current: bool = True

    def same_start(self, walk: Sequence[tuple[GameEvent, bool]]) -> int:
        """How many first events ``walk`` has in common with this memo's (a correction's events are made anew on each
        walk: equal, not the same object)."""
        limit, n = min(len(walk), len(self.walk)), 0
        while n < limit:
            (a, counts), (b, was) = walk[n], self.walk[n]
            if counts != was or not _same_event(a, b):
                break
            n += 1
        return n

    def add(self, event: GameEvent, counts: bool, state: Any, rulings: Sequence[Ruling], idle: bool) -> None:
        self.walk.append((event, counts))
        self.rulings.extend(rulings)
        self.ruled.append(len(self.rulings))
        self.idle.append(idle)
        if len(self.walk) % MEMO_EVERY == 0:
            self.marks[len(self.walk)] = state


#: a refusal names at most this many of the later events a meta event leaves impossible, with their reasons
NAMED_BLOCKED = 3


def _knock_on(meta: GameEvent, blocked: Sequence[tuple[GameEvent, EventError]]) -> EventError:
    """The error for a meta event that leaves later events impossible (say, undoing a play whose next card was
    turned up since, or a Push meld that two later lay-offs went onto): which events, and what to do, rather than
    the first one's own complaint alone."""
    if len(blocked) == 1:
        ((event, exc),) = blocked
        return EventError(
            f"{meta.where()} would leave event {event.seq} ({event.type}) impossible: {exc}. "
            f"Undo or correct event {event.seq} first, then this."
        )
    # past NAMED_BLOCKED the later ones mostly follow from the first (skipped, the game went astray): a refusal
    # naming 78 events was 7,000 characters (a second review); the first two are named and the rest counted
    more = len(blocked) > NAMED_BLOCKED
    shown = blocked[: NAMED_BLOCKED - 1] if more else blocked
    names = [f"{event.seq} ({event.type})" for event, _ in shown]
    last = f"{len(blocked) - len(shown)} more after them" if more else names.pop()
    reasons = "; ".join(str(exc) for _, exc in shown)
    them = "these" if more else "them"
    return EventError(
        f"{meta.where()} would leave events {', '.join(names)} and {last} impossible: {reasons}. "
        f"Undo or correct {them} first, then this."
    )


def _faults(rulings: Sequence[Ruling]) -> dict[int, list[Ruling]]:
    """The fouls and errors of each event."""
    found: dict[int, list[Ruling]] = {}
    for ruling in rulings:
        if ruling.seq is not None and ruling.severity in (Severity.FOUL, Severity.ERROR):
            found.setdefault(ruling.seq, []).append(ruling)
    return found


def _fault_codes(rulings: Sequence[Ruling]) -> dict[int, set[str]]:
    return {seq: {r.code for r in found} for seq, found in _faults(rulings).items()}


def _reruled(
    meta: GameEvent, exempt: set[int], known: Mapping[int, set[str]], after: Sequence[Ruling]
) -> Ruling | None:
    """An alert on a meta event after which later events draw fouls or errors (by code) they did not draw before
    (``known``): undoing a Spades card three tricks back regrouped the later cards into other tricks, and seven plays
    stopped counting as out of turn, with nothing said but the last two fouls' banners (spades phones audit, s38).
    The events ``exempt`` are the meta event's own (the event corrected or inserted)."""
    changed = []
    for seq, rulings in sorted(_faults(after).items()):
        fresh = [r for r in rulings if seq not in exempt and r.code not in known.get(seq, set())]
        if fresh:
            changed.append((seq, fresh[0]))
    if not changed:
        return None
    more = len(changed) > NAMED_BLOCKED
    shown = changed[: NAMED_BLOCKED - 1] if more else changed
    named = "; ".join(f"event {seq}: {ruling.message.rstrip('.')}" for seq, ruling in shown)
    count = f"{len(changed)} later events" if len(changed) > 1 else "a later event"
    rest = f"; and {len(changed) - len(shown)} more after them" if more else ""
    message = (
        f"After {meta.where()}, {count} now {'draw' if len(changed) > 1 else 'draws'} a foul or error "
        f"{'they' if len(changed) > 1 else 'it'} did not before ({named}{rest}). "
        f"Look at them in the Log: correct or undo them, or undo event {meta.seq}."
    )
    return Ruling("later_events_reruled", Severity.ALERT, message, None, meta.seq, {"events": [s for s, _ in changed]})


def _with_alerts(rulings: list[Ruling], alerts: Mapping[int, Ruling], undone: set[int]) -> list[Ruling]:
    """``rulings`` with the alerts of meta events still in effect, each after the last ruling of an event logged
    before it: in log order (the Alerts list shows the last few: appended, an old alert stayed among them for good;
    put before the first later one, an insert's rulings early in the game took it to the front: a second review)."""
    out = list(rulings)
    for seq in sorted(alerts):
        if seq in undone:
            continue
        earlier = [i for i, r in enumerate(out) if r.seq is not None and r.seq < seq]
        out.insert(earlier[-1] + 1 if earlier else 0, alerts[seq])
    return out


class RefereeFault(RuntimeError):
    """The referee raised something other than EventError: a bug, reported without writing anything (raised by the
    dashboard's write path; the camera tries that event again every few seconds, vision.live.REFEREE_RETRY_MS)."""


@dataclass(frozen=True)
class Checkpoint:
    """A :class:`Session` as it was (:meth:`Session.checkpoint`)."""

    events: list[GameEvent]
    state: Any
    rulings: list[Ruling]
    idle: set[int]
    refused: dict[int, tuple[GameEvent, str]]
    reruled: dict[int, Ruling]
    faults_before: dict[int, dict[int, set[str]]]


class Session:
    """One game: append events as they happen; read its state, rulings and scores."""

    def __init__(self, game: Game[Any] | str, players: Sequence[str], options: Mapping[str, Json] | None = None):
        self.game: Game[Any] = get_game(game) if isinstance(game, str) else game
        self.players = self.game.spec.check_players(players)
        self.options = self.game.spec.resolve(options)
        self.events: list[GameEvent] = []
        self.refused: dict[int, tuple[GameEvent, str]] = {}  # stored events this referee refuses: kept, not counted
        self.reruled: dict[int, Ruling] = {}  # meta events' alerts of later events they left fouled (_reruled)
        self.faults_before: dict[int, dict[int, set[str]]] = {}  # each meta event's: the fouls just before it
        self.version = 0  # one more with every change (an event taken, refused when stored, or rewound): for caches
        self._reset()
        self._memo = _Memo([], [], [0], [], {0: self.state})

    def _reset(self) -> None:
        self.state: Any = self.game.initial_state(self.players, self.options)
        self.rulings: list[Ruling] = []
        self.idle: set[int] = set()  # game events that count but left the game as it was (a foul taken back)

    @property
    def header(self) -> LogHeader:
        given = {k: v for k, v in self.options.items() if self.game.spec.option(k).default != v}
        return LogHeader(self.game.spec.name, self.players, given)

    @property
    def next_seq(self) -> int:
        return self.events[-1].seq + 1 if self.events else 1

    def checkpoint(self) -> Checkpoint:
        """The session as it is now, for :meth:`rewind` (an entry the store could not write, or a referee bug met
        after the referee took it, is forgotten without reading the log again: a read that failed too left the entry
        counted on every screen, though it was never stored; fault fuzz, session 41)."""
        return Checkpoint(
            list(self.events),
            self.state,
            list(self.rulings),
            set(self.idle),
            dict(self.refused),
            dict(self.reruled),
            dict(self.faults_before),
        )

    def rewind(self, mark: Checkpoint) -> None:
        """Back to ``mark`` (:meth:`checkpoint`); the referee's states are values, never changed in place."""
        self.version += 1
        self._memo.current = False  # (still right for its own walk)
        self.events, self.state, self.rulings, self.idle = (
            list(mark.events),
            mark.state,
            list(mark.rulings),
            set(mark.idle),
        )
        self.refused, self.reruled, self.faults_before = (
            dict(mark.refused),
            dict(mark.reruled),
            dict(mark.faults_before),
        )

    def append(self, event: GameEvent) -> list[Ruling]:
        """Apply one event; returns its rulings. A malformed event raises and changes nothing."""
        self.version += 1
        if event.seq < self.next_seq:
            raise EventError(f"event {event.seq} is out of order: the next event is {self.next_seq}")
        if event.type not in META_TYPES and event.type not in self.game.spec.event_types:
            known = ", ".join(self.game.spec.event_types + tuple(sorted(META_TYPES)))
            raise EventError(f"{event.where()}: {self.game.spec.title} has no event '{event.shown_type}' ({known})")
        if event.type in META_TYPES:
            return self._rebuild([*self.events, event])
        state, rulings = self.game.apply(self.state, event)
        self.events.append(event)
        if self._memo.current:  # a new game event is the last of the events that count
            self._memo.add(event, True, state, rulings, state == self.state)
        if state == self.state:
            self.idle.add(event.seq)
        self.state = state
        self.rulings += rulings
        return rulings

    def restore(self, event: GameEvent) -> list[Ruling]:
        """Load a stored event. One this referee refuses (stored by an earlier version of it) is kept in the
        log but does not count, with an ``error`` ruling saying so, until it is corrected or undone: a stored
        game always loads."""
        try:
            return self.append(event)
        except EventError as exc:
            if event.seq < self.next_seq:
                raise
            self.refused[event.seq] = (event, str(exc))
            self.events.append(event)
            self._memo.current = False
            ruling = self._refusal(event)
            self.rulings.append(ruling)
            return [ruling]

    def _refusal(self, event: GameEvent) -> Ruling:
        why = self.refused[event.seq][1]
        message = f"Event {event.seq} ({event.type}) was logged by an earlier tablecall but is refused now: {why}. "
        return Ruling("stored_event_refused", Severity.ERROR, message + "It does not count: correct or undo it.",
                      None, event.seq)  # fmt: skip

    def _walk(self, events: Sequence[GameEvent]) -> list[tuple[GameEvent, bool]]:
        """The effective events, each with whether it counts (a refused stored event, uncorrected, does not)."""
        dropped = {e.seq for e in events if e.type in META_TYPES and e.seq in self.refused}
        # an undo of such a refused meta event mends it (it never counted): out of the replay with it, where its target
        # was no earlier event to refer to, and the refused one could be neither undone nor corrected (a review)
        kept = [e for e in events if e.seq not in dropped and not (e.type == "undo" and meta_target(e) in dropped)]
        return [(e, not self._is_refused(e)) for e in effective_events(kept)]

    def _is_refused(self, event: GameEvent) -> bool:
        """``event`` is a refused stored event as it was stored (a correction of it is another event)."""
        held = self.refused.get(event.seq)
        return held is not None and held[0] is event

    def undone_by(self, seq: int) -> int | None:
        """The ``undo`` in effect that takes event ``seq`` out (None: it is not undone), as
        :func:`effective_events` decides: an undo counts unless an undo that counts undid it."""
        return self.undone().get(seq)

    def undone(self, events: Sequence[GameEvent] | None = None) -> dict[int, int]:
        """Every event undone now (or with ``events`` logged), with the ``undo`` in effect that takes it out (see
        :meth:`undone_by`)."""
        undone: dict[int, int] = {}
        for event in reversed(self.events if events is None else events):
            if event.type == "undo" and event.seq not in undone and event.seq not in self.refused:
                target = meta_target(event)
                if target is not None:
                    undone.setdefault(target, event.seq)
        return undone

    def touches(self, event: GameEvent) -> int | None:
        """The game event an ``undo`` or ``correct`` changes (an undo of an undo or of a correction changes
        what that one changed); None for any other event, or a target not in the log."""
        by_seq = {e.seq: e for e in self.events}
        seen: set[int] = set()
        while event.type in ("undo", "correct") and event.seq not in seen:
            seen.add(event.seq)
            target = meta_target(event)
            found = by_seq.get(target) if target is not None else None
            if found is None:
                return None
            if found.type not in ("undo", "correct"):
                return found.seq
            event = found
        return None

    def unmended(self) -> list[int]:
        """The stored events this referee refuses (:meth:`restore`) that no ``correct`` or ``undo`` in effect mends."""
        undone = self.undone()
        waiting = [event.seq for event, counts in self._walk(self.events) if not counts]
        metas = [seq for seq, (event, _) in self.refused.items() if event.type in META_TYPES and seq not in undone]
        return sorted(waiting + metas)

    def view_after(self, seq: int) -> dict[str, Json] | None:
        """The referee's view just after event ``seq`` among the events that count now (None: it does not count),
        folded from the replay memo's last mark before it (at most ``MEMO_EVERY`` events), not from the start: the
        camera asks it, under the game's lock, when a phone's change re-rules one of its events."""
        walk = self._walk(self.events)
        at = next((i for i, (event, counts) in enumerate(walk) if counts and event.seq == seq), None)
        if at is None:
            return None
        memo = self._memo
        start = max(mark for mark in memo.marks if mark <= min(at, memo.same_start(walk)))
        state = memo.marks[start]
        for event, counts in walk[start : at + 1]:
            if counts:
                state, _ = self.game.apply(state, event)
        return self.game.view(state)

    def counting(self) -> list[GameEvent]:
        """The game events that count now, in order (:func:`effective_events`, less refused stored events)."""
        return [event for event, counts in self._walk(self.events) if counts]

    def _fold(
        self, walk: list[tuple[GameEvent, bool]], own: tuple[Json, ...]
    ) -> tuple[_Memo, Any, list[tuple[GameEvent, EventError]]]:
        """Fold ``walk`` (:meth:`_walk`) from the last memo mark it shares: the new memo, the state, and the events
        the fold found impossible (then neither is to be kept). An event of ``own`` (the correction or insertion
        itself) that is wrong raises."""
        memo = self._memo
        same = memo.same_start(walk)
        start = max(at for at in memo.marks if at <= same)
        state = memo.marks[start]
        new = _Memo(
            walk[:start],
            memo.rulings[: memo.ruled[start]],
            memo.ruled[: start + 1],
            memo.idle[:start],
            {at: kept for at, kept in memo.marks.items() if at <= start},
        )
        blocked: list[tuple[GameEvent, EventError]] = []  # later events it leaves impossible: all are named
        for event, counts in walk[start:]:
            if not counts:
                new.add(event, False, state, [self._refusal(event)], False)
                continue
            if event.type not in self.game.spec.event_types:
                raise EventError(f"{event.where()}: {self.game.spec.title} has no event '{event.shown_type}'")
            try:
                after, rulings = self.game.apply(state, event)
            except EventError as exc:
                if event.seq in own:
                    raise  # the correction or insertion itself is wrong
                blocked.append((event, exc))
                continue
            new.add(event, True, after, rulings, after == state)
            state = after
        return new, state, blocked

    def _rebuild(self, events: list[GameEvent]) -> list[Ruling]:
        meta = events[-1]
        own = (meta.seq, {"correct": meta.data.get("target"), "insert": meta.seq}.get(meta.type))
        memo, state, blocked = self._fold(self._walk(events), own)
        if blocked:
            raise _knock_on(meta, blocked)
        idle = {event.seq for (event, _), same in zip(memo.walk, memo.idle, strict=True) if same}
        rulings = memo.rulings + [self._refusal(e) for e in events if e.type in META_TYPES and e.seq in self.refused]
        reruled = dict(self.reruled)
        self.faults_before.setdefault(meta.seq, _fault_codes(self.rulings))
        if alert := self._reruled(meta, events, rulings):
            reruled[meta.seq] = alert
        rulings = _with_alerts(rulings, reruled, set(self.undone(events)))
        before = {(r.seq, r.code, r.message) for r in self.rulings}
        self.events, self.state, self.rulings, self.idle = events, state, rulings, idle
        self.reruled, self._memo = reruled, memo
        return [r for r in rulings if (r.seq, r.code, r.message) not in before]

    def _reruled(self, meta: GameEvent, events: Sequence[GameEvent], rulings: Sequence[Ruling]) -> Ruling | None:
        """The alert for ``meta`` (:func:`_reruled`), None when it says nothing new; the event a correction or an undo
        changes is its own. An undo of an undo, a correction or an insert puts back the game as it was before that one
        was logged: fouls it had then are not new either (a review: Restore and "Undo this edit" named fouls the game
        already had), but those of events logged since are (skipped altogether, a Restore after play went on
        regrouped a trick silently: a second review)."""
        by_seq = {e.seq: e for e in events}
        aim = meta.data.get("target")
        target = by_seq.get(aim) if meta.type in ("undo", "correct") and isinstance(aim, int) else None
        known = self.faults_before[meta.seq]
        if meta.type == "undo" and target is not None and target.type in META_TYPES:
            # (kept when that one was logged: a second replay made a Restore cost twice an undo: a third review)
            then = self.faults_before.get(target.seq, {})
            known = {seq: known.get(seq, set()) | then.get(seq, set()) for seq in {*known, *then}}
        exempt = {meta.seq} | ({target.seq} if target is not None else set())
        return _reruled(meta, exempt, known, rulings)

    def score(self) -> ScoreSheet:
        return self.game.score(self.state)

    def view(self) -> dict[str, Json]:
        return self.game.view(self.state)

    def log(self) -> GameLog:
        return GameLog(self.header, tuple(self.events))

    def summary(self) -> dict[str, Json]:
        """The final (or current) state as plain JSON: what ``tablecall replay`` prints."""
        sheet = self.score().to_json()
        return {
            "game": self.game.spec.name,
            "players": list(self.players),
            "teams": sheet["teams"],
            "options": dict(self.options),
            "history": sheet["history"],
            "totals": sheet["totals"],
            "winner": sheet["winner"],
            "finished": sheet["finished"],
            "lower_wins": sheet["lower_wins"],
            "rulings": [r.to_json() for r in self.rulings],
            "state": self.view(),
        }

    @classmethod
    def from_log(cls, log: GameLog) -> Session:
        session = cls(log.header.game, log.header.players, log.header.options)
        for event in log.events:
            session.append(event)
        return session


def faults_before(log: GameLog, line: int, reason: str) -> str:
    """What to add to ``reason``, the refusal of ``log``'s line ``line``: the first event before it the referee rules a
    foul or an error, and how many there are, or ``""``. A header edited to play on (seats swapped, a rule changed)
    made the refusal name a late symptom, "the game is over" or "deal 1 is over", while the cause was 45 plays before
    it that had become fouls (the play-on audit, session 40). Not for a refusal of the event's own text (a field, a
    card, its type: "event 5 (play): 'card': ..."), which no header or earlier foul causes: a game's ordinary fouls
    added to a typo's refusal led away from it (a review); a share of fouls instead hid two that caused a refusal."""
    if re.match(r"event \d+ \(.*?\): '", reason) or " has no event '" in reason:
        return ""
    kept = [(e, n) for i, e in enumerate(log.events) if (n := log.lines[i] if i < len(log.lines) else i + 2) < line]
    try:
        session = replay(GameLog(log.header, tuple(e for e, _ in kept), tuple(n for _, n in kept)))
    except EventError:
        return ""
    faults = [r for r in session.rulings if r.severity in (Severity.FOUL, Severity.ERROR)]
    if not faults:
        return ""
    first, more = faults[0], len(faults) - 1
    also = f", and {more} more foul{'s' if more > 1 else ''} or error{'s' if more > 1 else ''}" if more else ""
    article = "an" if first.severity is Severity.ERROR else "a"  # "ruled a error" (a review)
    said = f"event {first.seq} is ruled {article} {first.severity.value}: {first.message.rstrip('.')}{also}"
    return f" (before it, {said})"


def replay(log: GameLog) -> Session:
    """Replay a whole log; a malformed event raises :class:`LogError` naming its line. One the referee refuses that a
    later ``correct`` or ``undo`` mends is kept, as the dashboard keeps a stored event an earlier version took (the
    export of such a game, once it is corrected, replays and imports)."""
    try:
        session = Session(log.header.game, log.header.players, log.header.options)
    except EventError as exc:
        raise LogError(1, str(exc)) from None
    mended = {meta_target(e) for e in log.events if e.type in ("undo", "correct")}  # None: its append says why
    lines = {event.seq: log.lines[i] if i < len(log.lines) else i + 2 for i, event in enumerate(log.events)}
    for event in log.events:
        try:
            session.append(event)
        except EventError as exc:
            if event.seq not in mended or event.seq < session.next_seq:
                raise LogError(lines[event.seq], str(exc)) from None
            session.restore(event)
    pending = session.unmended()  # a mending undo itself undone later
    if pending:
        raise LogError(lines[pending[0]], session.refused[pending[0]][1])
    return session
