"""How the live table reaches a game: a :class:`GameLink` gives the referee's view and appends camera events.

* :class:`SessionLink`: a :class:`scorer.session.Session` in this process (tests, ``tablecall live``).
* :class:`HubLink`: a game of the dashboard's hub (``web.hub.Hub``, used duck-typed: this module imports
  nothing from ``web``). Events go through ``hub.append(..., source=Source.VISION, client_ts=...)``, the same
  single write path as the phones' events, so they are stored, broadcast and can be undone from a phone.
"""

from __future__ import annotations

import threading
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from scorer.events import GameEvent, Source
from scorer.game import Ruling
from scorer.session import Session
from vision.observers import DECK, Proposal

__all__ = ["CameraEvents", "GameLink", "HubLink", "Logged", "SessionLink", "VisionEvent", "card_names"]

Json = Any


@dataclass(frozen=True)
class VisionEvent:
    """An event the camera sends: ``body`` is ``{"type": ..., payload}``; ``wall_ms`` the wall-clock time of the
    frame that showed it, ``pos_ms`` the same moment in the video (or since the stream opened)."""

    body: Mapping[str, Json]
    wall_ms: int
    pos_ms: int
    frame: int
    reason: str


class GameLink(Protocol):
    """What the live table needs from a game."""

    @property
    def game(self) -> str: ...

    @property
    def players(self) -> tuple[str, ...]: ...

    @property
    def options(self) -> Mapping[str, Json]:
        """The game's house rules, every one resolved (defaults included)."""
        ...

    def view(self) -> Mapping[str, Json]:
        """The referee's current view (``Game.view(state)``)."""
        ...

    def append(self, event: VisionEvent) -> tuple[int, list[Ruling]]:
        """Append the event (source ``vision``); its ``seq`` and rulings. Raises EventError if refused."""
        ...

    def undone(self, seqs: Collection[int]) -> set[int]:
        """Those of ``seqs`` a player has undone (a Reject on a phone), as the game stands now."""
        ...

    def corrected(self, seqs: Collection[int]) -> dict[int, Mapping[str, Json]]:
        """Those of ``seqs`` a phone has corrected, as the game stands now, each as it stands (``{"type": ...,
        payload}``)."""
        ...

    def logged(self) -> list[Logged]:
        """Every event of the log, as a camera starting on the game needs them (:meth:`CameraEvents.start`)."""
        ...

    def idle(self, seqs: Collection[int]) -> dict[int, frozenset[str]]:
        """Those of ``seqs`` that count but leave the game as it was (a foul that changes nothing), as the game stands
        now, each with its rulings' codes."""
        ...

    def view_after(self, seq: int) -> Mapping[str, Json] | None:
        """The referee's view just after event ``seq`` as the game stands now (None: it does not count)."""
        ...


class SessionLink:
    """A local :class:`Session`; event times are ``pos_ms + offset_ms`` (video time by default)."""

    def __init__(self, session: Session, offset_ms: int = 0) -> None:
        self.session = session
        self.offset_ms = offset_ms
        self._lock = threading.Lock()
        self._undone = _Undone()

    @property
    def game(self) -> str:
        return self.session.game.spec.name

    @property
    def players(self) -> tuple[str, ...]:
        return tuple(self.session.players)

    @property
    def options(self) -> Mapping[str, Json]:
        return dict(self.session.options)

    def view(self) -> Mapping[str, Json]:
        with self._lock:
            return self.session.view()

    def append(self, event: VisionEvent) -> tuple[int, list[Ruling]]:
        body = dict(event.body)
        with self._lock:
            seq = self.session.next_seq
            ts = max(0, event.pos_ms + self.offset_ms)
            game_event = GameEvent(seq, ts, Source.VISION, str(body.pop("type")), body)
            return seq, self.session.append(game_event)

    def undone(self, seqs: Collection[int]) -> set[int]:
        with self._lock:
            return self._undone.among(self.session, seqs)

    def corrected(self, seqs: Collection[int]) -> dict[int, Mapping[str, Json]]:
        with self._lock:
            return self._undone.corrected(self.session, seqs)

    def logged(self) -> list[Logged]:
        with self._lock:
            return _logged(self.session)

    def idle(self, seqs: Collection[int]) -> dict[int, frozenset[str]]:
        with self._lock:
            return self._undone.idle(self.session, seqs)

    def view_after(self, seq: int) -> Mapping[str, Json] | None:
        with self._lock:
            return self.session.view_after(seq)


class HubLink:
    """A live game of the dashboard: ``HubLink(hub, game_id)`` (see :mod:`web.hub`)."""

    #: the hub refuses press times more than 30 s old; a card the observer held back longer is sent as "now - this"
    MAX_AGE_MS = 20_000

    def __init__(self, hub: Any, game_id: str, author: str = "camera") -> None:
        self.hub, self.game_id, self.author = hub, game_id, author
        self._cache: tuple[int, int, Mapping[str, Json]] | None = None
        self._undone = _Undone()
        live = self._live()
        self._game, self._players = str(live.record.game), tuple(live.record.players)

    def _live(self) -> Any:
        live = self.hub.live(self.game_id)
        if live is None:
            raise KeyError(f"no game {self.game_id!r} on this server")
        return live

    @property
    def game(self) -> str:
        return self._game

    @property
    def players(self) -> tuple[str, ...]:
        return self._players

    @property
    def options(self) -> Mapping[str, Json]:
        return dict(self._live().session.options)

    def view(self) -> Mapping[str, Json]:
        live = self._live()
        session = live.session
        cache = self._cache
        if cache is not None and cache[:2] == (id(session), session.version):
            return cache[2]
        with live.lock:  # the key read with the view: an entry taken and then rewound (refused by the store) kept the
            session = live.session  # same length when the next came, and the camera saw the old view (a review, s41)
            self._cache = (id(session), session.version, session.view())
        return self._cache[2]

    def append(self, event: VisionEvent) -> tuple[int, list[Ruling]]:
        live = self._live()
        now = int(self.hub.game_time(live))
        ts = min(max(self.hub.game_time_at(live, event.wall_ms), now - self.MAX_AGE_MS, 0), now)
        result = self.hub.append(self.game_id, dict(event.body), self.author, Source.VISION, ts)
        return int(result.event.seq), list(result.rulings)

    def undone(self, seqs: Collection[int]) -> set[int]:
        live = self._live()
        with live.lock:
            return self._undone.among(live.session, seqs)

    def corrected(self, seqs: Collection[int]) -> dict[int, Mapping[str, Json]]:
        live = self._live()
        with live.lock:
            return self._undone.corrected(live.session, seqs)

    def logged(self) -> list[Logged]:
        live = self._live()
        with live.lock:
            return _logged(live.session)

    def idle(self, seqs: Collection[int]) -> dict[int, frozenset[str]]:
        live = self._live()
        with live.lock:
            return self._undone.idle(live.session, seqs)

    def view_after(self, seq: int) -> Mapping[str, Json] | None:
        live = self._live()
        with live.lock:
            return live.session.view_after(seq)


RECENT = 32  # a rejected camera reading older than this many events of the log is not taken to be still lying there


@dataclass(frozen=True)
class Logged:
    """An event of a game's log as a camera starting on the game needs it: its payload as entered, whether the
    camera sent it, and, for an event that counts but left the game as it was (a foul), its rulings' codes."""

    seq: int
    type: str
    data: Mapping[str, Json]
    camera: bool
    rejected: bool = False  # the camera's, undone or corrected on a phone since: a reading as wrong as a rejected one
    idle_codes: frozenset[str] = frozenset()
    impossible: bool = False  # counts, left the game as it was, with an error ruling: a reading the referee ruled out
    now: Mapping[str, Json] | None = None  # the camera's, corrected on a phone: as it stands now ({"type": ...})


def _logged(session: Session) -> list[Logged]:
    codes: dict[int, set[str]] = {}
    errors: set[int] = set()
    for ruling in session.rulings:
        if ruling.seq in session.idle:
            codes.setdefault(ruling.seq, set()).add(ruling.code)
            if ruling.severity.value == "error":
                errors.add(ruling.seq)
    undone = session.undone()
    now = {e.seq: e for e in session.counting()}
    out = []
    for e in session.events:
        camera = e.source is Source.VISION
        fixed = _body(now[e.seq]) if camera and e.seq in now and now[e.seq] != e else None
        rejected = camera and (e.seq in undone or fixed is not None)
        idle = frozenset(codes.get(e.seq, ()))
        out.append(Logged(e.seq, e.type, dict(e.data), camera, rejected, idle, camera and e.seq in errors, fixed))
    return out


def _body(event: GameEvent) -> dict[str, Json]:
    return {"type": event.type, **dict(event.data)}


def _corrected(session: Session) -> dict[int, dict[str, Json]]:
    """The events a phone has corrected, each as it stands now (a correction's event, with the seq of the event it
    corrects: :func:`scorer.session.effective_events`)."""
    targets = {e.data.get("target") for e in session.events if e.type == "correct"}
    if not targets:  # most games: no fold to look through (asked under the game's lock at every new event)
        return {}
    logged = {e.seq: e for e in session.events if e.seq in targets}
    return {e.seq: _body(e) for e in session.counting() if e.seq in logged and logged[e.seq] != e}


def _idle_codes(session: Session) -> dict[int, frozenset[str]]:
    """The events that count but left the game as it was, with their rulings' codes."""
    codes: dict[int, set[str]] = {seq: set() for seq in session.idle}
    for ruling in session.rulings:
        if ruling.seq in codes:
            codes[ruling.seq].add(ruling.code)
    return {seq: frozenset(found) for seq, found in codes.items()}


#: the payload fields that hold cards (a Push hand or a Spit! call's ``cards`` map players to theirs; a correction's or
#: insert's ``event`` is an event); a player's name is never read as a card (one called "KD" took the K♦ as played)
CARD_FIELDS = frozenset({"card", "cards", "hands", "melds", "wild", "upcard", "event"})


def card_names(value: Json) -> set[str]:
    """The card names in an event's payload (its :data:`CARD_FIELDS`, however deep), without a copy's mark (``AS/2``
    is ``AS``)."""
    if isinstance(value, str):
        name = value.split("/")[0]
        return {name} if name in DECK or name == "JK" else set()
    if isinstance(value, (list, tuple)):
        return set().union(*(card_names(v) for v in value)) if value else set()
    if not isinstance(value, Mapping):
        return set()
    out: set[str] = set()
    for key in CARD_FIELDS & set(value):
        held = value[key]
        if key in ("hands", "cards") and isinstance(held, Mapping):  # player -> cards
            held = list(held.values())
        out |= card_names(held)
    return out


class _Undone:
    """The events undone in a session, and those that count but changed nothing (:func:`_idle_codes`), found again
    only when its log has changed: the camera asks every frame."""

    def __init__(self) -> None:
        self._key: tuple[int, int, int] | None = None
        self._undone: dict[int, int] = {}
        self._idle_key: tuple[int, int] | None = None
        self._idle: dict[int, frozenset[str]] = {}
        self._fixed_key: tuple[int, int] | None = None
        self._fixed: dict[int, dict[str, Json]] = {}

    def among(self, session: Session, seqs: Collection[int]) -> set[int]:
        events = session.events
        key = (id(session), len(events), events[-1].seq if events else 0)
        if key != self._key:
            self._key, self._undone = key, session.undone()
        return {seq for seq in seqs if seq in self._undone}

    def idle(self, session: Session, seqs: Collection[int]) -> dict[int, frozenset[str]]:
        key = (id(session), session.version)  # (a rewind keeps the log's length: the version says it changed)
        if key != self._idle_key:
            self._idle_key, self._idle = key, _idle_codes(session)
        return {seq: self._idle[seq] for seq in seqs if seq in self._idle}

    def corrected(self, session: Session, seqs: Collection[int]) -> dict[int, Mapping[str, Json]]:
        key = (id(session), session.version)
        if key != self._fixed_key:
            self._fixed_key, self._fixed = key, _corrected(session)
        return {seq: self._fixed[seq] for seq in seqs if seq in self._fixed}


class CameraEvents:
    """The camera's own recent events, to tell its observer which of them the players have rejected (undone) since
    it last looked, or restored (:meth:`vision.observers.Observer.rejected`); and, when the observer starts on a game
    that has a log (the server restarted, the camera attached again, its zones edited), the cards already lying
    there (:meth:`settle`)."""

    #: the first frames after a start, and at least the first START_MS of them (a webcam just opened gives dark
    #: pictures while its exposure settles): the cards first seen in them were lying there when the camera started.
    #: Blank pictures (:func:`vision.capture.blank`: black, or one flat colour) do not count and the START_MS count
    #: from the first picture that is not, but the start ends START_CAP_MS after the first frame whatever they show
    #: (a camera in a dark room)
    START_FRAMES = 5
    START_MS = 700
    START_CAP_MS = 5000

    def __init__(self, keep: int = 64) -> None:
        self.keep = keep
        self.proposals: dict[int, Any] = {}  # seq -> the observer's Proposal
        self.undone: set[int] = set()
        self.placed: dict[str, Logged] = {}  # card name -> the last event of the log that names it
        self.frames = 0  # pictures of the start that were not blank
        self.zero: int | None = None  # the time of the first frame
        self.first: int | None = None  # the time of the first frame whose picture was not blank
        self.cutoff: int | None = None  # the time of the last frame of the start (START_FRAMES, START_MS)
        self.over = False  # the start is over
        self.looked: set[int] = set()  # cards settle has decided on
        self.idled: set[int] = set()  # its events that were fouls of the observer's retry_fouls at the last look
        self.looked_at: set[int] = set()  # its events follow has looked at
        self.fixed: dict[int, Mapping[str, Json]] = {}  # its events a phone has corrected, as they stand (follow)

    def start(self, link: GameLink, observer: Any) -> None:
        """A new ``observer`` starts on a game that may have a log: remember, for each card, the last event of it that
        the camera sent naming the card, or that laid the card on the table in a game whose referee forgets cards
        once their trick or deal is over (:attr:`Observer.table_events`, or a correction or insert of one; a hand
        entered at the deal names cards still held). A phone's correction of the camera's event names its cards for
        that event, as corrected (:attr:`Logged.now`)."""
        self.placed = {}
        kinds = observer.table_events
        logged = link.logged()
        at = {event.seq: k for k, event in enumerate(logged)}
        for k, event in enumerate(logged):
            if event.rejected and k < len(logged) - RECENT:
                continue  # a misreading put right long ago is not what lies there now (the card read right may be)
            inner = event.data.get("event") if event.type in ("correct", "insert") else None
            aim = event.data.get("target") if event.type == "correct" else None
            target = logged[at[aim]] if isinstance(aim, int) and aim in at else None
            if target is not None and target.now is not None and at[target.seq] >= len(logged) - RECENT:
                event = target  # (put right long ago: the correction as any other, not the camera's misreading)
            if event.camera or event.type in kinds or (isinstance(inner, Mapping) and inner.get("type") in kinds):
                for name in card_names(event.data) | card_names(event.now or {}):
                    self.placed[name] = event

    @property
    def starting(self) -> bool:
        """Whether the next frame may still be one of the start (whether :meth:`settle` needs to know if it is
        blank)."""
        return bool(self.placed) and not self.over

    def settle(self, update: Any, view: Mapping[str, Json], observer: Any, blank: bool = False) -> None:
        """Before the observer looks at ``update`` (``blank``: its picture was blank): what it would know of a card
        lying on the table when the camera started (first seen in its first :data:`START_FRAMES` pictures that were
        not blank and :data:`START_MS` from the first of them, within :data:`START_CAP_MS`) had it been watching all
        along, by the last event of the log that names the card (:meth:`start`):
        - one of :attr:`Observer.table_events` (a Spades trick left lying after its hand was claimed, the deal and
          the bids entered since; a Push deal's melds after the next deal was entered): the card was played, and is
          not played again whatever the referee's view says now;
        - the camera's own event that the players rejected or corrected (a misreading still lying there): not sent
          again;
        - the camera's own event that the referee ruled impossible (a card already played): a misreading, so the
          card read anew under another name is news;
        - the camera's own event, ruled a foul that did not count (a Spades play out of turn,
          :attr:`Observer.retry_fouls`): tried once more when the game moves on, as it would have been; corrected on a
          phone and still such a foul, tried as corrected (:meth:`Observer.corrected`), read under the camera's name
          or the phone's, unless a later event named the card as corrected.
        The camera's own event is followed as if the observer had sent it: a Reject of it (before or after the
        start) makes the card news again under another reading, and a reading of a card taken as played under
        another name is a re-read it notes, not a new play. Any other card (first seen later, or named by no such
        event: laid while the server was down) is the observer's to judge, by the referee's view, as usual."""
        if not self.placed:
            return
        ts = update.ts
        if self.zero is None:
            self.zero = ts
        if self.first is None and not blank:
            self.first = ts
        within = self.first is None or self.frames < self.START_FRAMES or ts - self.first <= self.START_MS
        if within and ts - self.zero <= self.START_CAP_MS and not self.over:
            self.frames += not blank
            self.cutoff = ts
        else:
            self.over = True
        assert self.cutoff is not None
        for card in update.state.cards:
            if card.id in self.looked or card.id in observer.done:
                continue
            self.looked.add(card.id)
            event = self.placed.get(card.card.split("/")[0])
            if card.since > self.cutoff or event is None:
                continue
            observer.names[card.id] = card.card  # for a re-read's note ("the camera now reads the 7C on ... as 7S")
            reason = f"{card.card} lay on {card.zone} when the camera started"
            proposal = Proposal(event.type, event.data, card.since, reason, (card.id,))
            fixed = event.now if event.camera else None  # its own event, corrected on a phone since (:meth:`start`)
            if fixed is not None and any(self.placed.get(name) is not event for name in card_names(fixed)):
                observer.use(card)  # the card as corrected was named again since (played in turn): not sent again
            elif event.camera and (not event.rejected or fixed is not None) and event.idle_codes & observer.retry_fouls:
                observer.idle(proposal, view)  # (follow tells the observer of a correction: Observer.corrected)
            elif event.impossible and not event.rejected:  # a misreading the referee ruled out (a card played
                observer.use(card)  # before): as the observer that sent it judged it, the card read anew is news
                observer.void(proposal)
            elif event.rejected or not event.camera or event.type in observer.table_events:
                observer.use(card)
            if event.camera:
                known = self.proposals.get(event.seq)
                cards = (*known.cards, card.id) if known is not None else (card.id,)
                self.add(event.seq, Proposal(event.type, event.data, card.since, reason, cards))

    def add(self, seq: int, proposal: Any) -> None:
        self.proposals[seq] = proposal
        for old in sorted(self.proposals)[: -self.keep]:
            del self.proposals[old]
            self.undone.discard(old)
            self.idled.discard(old)
            self.looked_at.discard(old)
            self.fixed.pop(old, None)

    def follow(self, link: GameLink, observer: Any) -> None:
        """Tell ``observer`` of each event of its rejected or restored since the last call, and of each corrected on a
        phone since, or whose correction is gone (:meth:`vision.observers.Observer.corrected`); and of each that a
        change made since on a phone re-ruled into a foul of :attr:`Observer.retry_fouls` that changes nothing (Alex's
        QC undone after Beth's 4C went in: the 4C is now out of turn), with the referee's view just after it
        (:meth:`vision.observers.Observer.reruled`): its card, still lying there, goes again once that view has
        changed, as a refused one does (it waited for ever, and the hand went wrong: spadescam, session 49)."""
        if not self.proposals:
            return
        undone = link.undone(list(self.proposals))
        for seq in sorted(undone ^ self.undone):
            observer.rejected(self.proposals[seq], seq in undone)
        self.undone = undone
        fixed = link.corrected(list(self.proposals))
        for seq in sorted(set(fixed) | set(self.fixed)):
            if fixed.get(seq) != self.fixed.get(seq):
                observer.corrected(self.proposals[seq], fixed.get(seq))
        self.fixed = fixed
        retry = getattr(observer, "retry_fouls", frozenset())
        if not retry:
            return
        idle = {seq for seq, codes in link.idle(list(self.proposals)).items() if codes & retry}
        for seq in sorted(idle - self.idled - undone):
            proposal = self.proposals[seq]
            # the first look at an event taken just now: a foul when it went in was judged then (Observer.judged)
            judged = seq not in self.looked_at and set(proposal.cards) <= observer.retried
            view = None if judged else link.view_after(seq)
            if view is not None:
                observer.reruled(proposal, view)
        self.looked_at.update(self.proposals)
        self.idled = idle
