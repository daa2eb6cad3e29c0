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
from vision.observers import fingerprint

__all__ = ["CameraEvents", "GameLink", "HubLink", "SessionLink", "VisionEvent"]

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

    def rejected(self) -> list[dict[str, Json]]:
        """The camera's events (source ``vision``) among the log's last :data:`RECENT` that a player has undone or
        corrected, as the game stands now: ``{type, ...payload}`` as the camera sent them."""
        ...

    def counted(self) -> list[dict[str, Json]]:
        """The last :data:`RECENT` events that count, whoever entered them, as they count now: ``{type, ...}``."""
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

    def rejected(self) -> list[dict[str, Json]]:
        with self._lock:
            return _rejected(self.session)

    def counted(self) -> list[dict[str, Json]]:
        with self._lock:
            return _counted(self.session)


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
        key = (id(session), len(session.events))
        if self._cache is None or self._cache[:2] != key:
            with live.lock:
                self._cache = (*key, session.view())
        return self._cache[2]

    def append(self, event: VisionEvent) -> tuple[int, list[Ruling]]:
        live = self._live()
        now = int(self.hub.game_time(live))
        ts = min(max(event.wall_ms - int(live.record.epoch_ms), now - self.MAX_AGE_MS, 0), now)
        result = self.hub.append(self.game_id, dict(event.body), self.author, Source.VISION, ts)
        return int(result.event.seq), list(result.rulings)

    def undone(self, seqs: Collection[int]) -> set[int]:
        live = self._live()
        with live.lock:
            return self._undone.among(live.session, seqs)

    def rejected(self) -> list[dict[str, Json]]:
        live = self._live()
        with live.lock:
            return _rejected(live.session)

    def counted(self) -> list[dict[str, Json]]:
        live = self._live()
        with live.lock:
            return _counted(live.session)


RECENT = 32  # how far back in the log :meth:`GameLink.rejected` looks


def _rejected(session: Session) -> list[dict[str, Json]]:
    """Undone, or corrected: a reading a phone put right is as wrong as one it rejected."""
    undone = session.undone()
    now = {e.seq: e for e in session.counting()}
    recent = [e for e in session.events[-RECENT:] if e.source is Source.VISION]
    return [{"type": e.type, **e.data} for e in recent if e.seq in undone or (e.seq in now and now[e.seq] != e)]


def _counted(session: Session) -> list[dict[str, Json]]:
    return [{"type": e.type, **e.data} for e in session.counting()[-RECENT:]]


class _Undone:
    """The events undone in a session, found again only when its log has changed: the camera asks every frame."""

    def __init__(self) -> None:
        self._key: tuple[int, int, int] | None = None
        self._undone: dict[int, int] = {}

    def among(self, session: Session, seqs: Collection[int]) -> set[int]:
        events = session.events
        key = (id(session), len(events), events[-1].seq if events else 0)
        if key != self._key:
            self._key, self._undone = key, session.undone()
        return {seq for seq in seqs if seq in self._undone}


class CameraEvents:
    """The camera's own recent events, to tell its observer which of them the players have rejected (undone) since
    it last looked, or restored (:meth:`vision.observers.Observer.rejected`)."""

    def __init__(self, keep: int = 64) -> None:
        self.keep = keep
        self.proposals: dict[int, Any] = {}  # seq -> the observer's Proposal
        self.undone: set[int] = set()
        self.before: list[dict[str, Json]] = []  # the camera's events rejected before this observer started
        self.counted: list[dict[str, Json]] = []  # and the events that counted then
        self.before_view = ""

    def start(self, link: GameLink) -> None:
        """A new observer starts on a game that may have a log (the server restarted, the camera attached again):
        remember the camera's events the players had rejected, those that count, and the game as it stands."""
        self.before, self.counted = link.rejected(), link.counted()
        self.before_view = fingerprint(link.view())

    def held_back(self, proposal: Any, view: Mapping[str, Json], observer: Any) -> bool:
        """Whether ``proposal``, made before the game moved on from where it stood when this observer started
        (``view``: a restart of the server, the camera attached again), repeats a recent event of the log:
        - one of the camera's that the players rejected: a misreading still lying there, sent again to be
          rejected again; the observer hears of it as of a Reject;
        - one that counts: cards of an earlier trick or deal still lying there (a Spades trick left on the table
          after its hand was claimed and the next one bid was played again, card by card).
        It is not sent, and a note says so. Once the game moves on, nothing is held back this way."""
        if not (self.before or self.counted):
            return False
        if fingerprint(view) != self.before_view:
            self.before, self.counted = [], []
            return False
        body = dict(proposal.body())
        what = f"the camera's {proposal.type} " + " ".join(
            str(v) for v in proposal.data.values() if isinstance(v, (str, int))
        )
        if body in self.before:
            observer.rejected(proposal, True)
            observer.note(f"{what} was rejected before it started again: not sent again")
            return True
        if body in self.counted:
            observer.rejected(proposal, True)  # as the referee would rule it: impossible (a new reading is news)
            observer.note(f"{what} is in the game already (cards of an earlier trick or deal still lying?): not sent")
            return True
        return False

    def add(self, seq: int, proposal: Any) -> None:
        self.proposals[seq] = proposal
        for old in sorted(self.proposals)[: -self.keep]:
            del self.proposals[old]
            self.undone.discard(old)

    def follow(self, link: GameLink, observer: Any) -> None:
        """Tell ``observer`` of each event of its rejected or restored since the last call."""
        if not self.proposals:
            return
        undone = link.undone(list(self.proposals))
        for seq in sorted(undone ^ self.undone):
            observer.rejected(self.proposals[seq], seq in undone)
        self.undone = undone
