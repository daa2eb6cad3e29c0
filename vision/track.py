"""Stable table state: per-frame card sightings in, cards that really lie in each zone out.

Small single-purpose steps, as in supervision's tools:

1. :func:`vision.sightings.sightings`: detections projected onto the table plane (mm), each in the layout zone
   that holds it, one card's indices merged, and a reading the game rules out read again among the cards it allows
   there (see that module).
2. :class:`Tracker`: N-frame hysteresis against flicker. A card **appears** in a zone after it was seen there
   in ``appear_frames`` frames in a row (a one-frame gap is forgiven) at ``min_confidence`` or more, or, a faint
   card (seen at ``weak_confidence`` or more), ``weak_frames`` in a row; the last ``still_frames`` of them with
   nothing moving over the zone (below 15 fps, one such frame as long as they take at 15 fps: ``Tracker._still``),
   and **leaves** after ``leave_frames`` frames without being seen. A card covered by a later card of the same pile
   is *buried*: it need not be seen (it leaves with the pile); not so in ``spread`` zones (melds), whose cards lie
   side by side. A card seen arriving in a new zone while it is
   missing from its old one has **moved** (one leave and one appear in the same update).
3. **Occlusion freeze**: zones covered by a hand or arm (given per frame as ``frozen``, see
   :mod:`vision.occlusion`) are frozen: nothing in them appears or leaves, and a card missing there is not
   counted missing. Cards seen in a frozen zone (one sliding in) count towards ``appear_frames`` but a card
   appears only once ``still_frames`` frames without motion followed: a card held in a moving hand never does.
4. **Re-reads**: a card that appears where a stable card of another name lies, at the same spot, with nothing
   having moved over the zone since that one appeared, is the same physical card read anew (a doubtful index
   read differently as the light changes), not a new card laid on it, even if the old reading has faded and
   left (nothing can be taken away unseen either): it takes the old card's place (``TableCard.replaces``), and
   observers do not send it as a second event. A faint card (one only the weak tier would let appear) first seen
   before a pile's top card settled, while that top lies there (seen, or missed for less than ``leave_frames``),
   lies under it: a buried card's corner at the pile's edge read as another name; it does not appear
   (``Tracker._under_top``); one read plainly appears, but, seen there before the top was, not while that top is
   missing: a top taken away leaves first, else it would count as buried under the card that lay under it. A card
   read plainly that a card
   arriving over it covered before it could settle (a hand over the pile all along) is *glimpsed* under that card
   (``Update.glimpsed``): it does not appear, but an observer may name it as the card under a top.
5. **Impossible table** (python-chess's ``Status``): a card the game's deck does not have, or more copies of a
   card than the deck holds (the same card in two places in a one-deck game), raises a :class:`Flag` and is
   not acted on: the table keeps its last good state until the picture makes sense again. A card the game does
   not use is flagged as a card would appear (sure for ``flag_frames``, faint for ``weak_frames``), but a faint
   one only where no settled pile top lies: in a pile with a top it is a buried card's edge.

An :class:`Update` (the new :class:`TableState`, its :class:`Change` s, the active flags) is frozen data;
:class:`Tracker` holds the only mutable state, like a tracker object in supervision.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from scorer.cards import push_deck, standard_deck
from vision.zones import Layout, Point

__all__ = [
    "FACE_DOWN_KINDS",
    "SPREAD_KINDS",
    "Change",
    "Flag",
    "Sighting",
    "TableCard",
    "TableState",
    "TrackSettings",
    "Tracker",
    "Update",
    "deck_for",
    "face_down_zones",
    "spread_zones",
]


@dataclass(frozen=True)
class TrackSettings:
    """Tuning of the stable state (all in frames, millimetres or fractions); stored in ``[tracking]``."""

    appear_frames: int = 3  # seen this many frames in a row before a card counts as there ...
    still_frames: int = 2  # ... the last ones with nothing moving in its zone
    leave_frames: int = 6  # missing this many (unfrozen) frames before a card counts as gone
    flag_frames: int = 3  # an impossible table must persist this long to be flagged
    min_confidence: float = 0.5  # weaker detections are ignored ...
    weak_confidence: float = 0.3  # ... unless at least this sure and seen weak_frames in a row (equal: no weak tier)
    weak_frames: int = 10
    match_mm: float = 40.0  # a sighting this close to a tracked copy of the same card is that copy
    merge_mm: float = 100.0  # indices of the same card this close together are one card
    bury_mm: float = 95.0  # a card this close under a later card of the same zone is covered by it
    occlusion: float = 0.04  # a zone with this fraction of its area in motion is frozen
    motion_hold: int = 0  # frames a zone stays frozen after the motion stopped
    motion_level: float = 22.0  # grey-level change (0-255, light-normalised) that counts as motion
    reread_floor: float = 0.05  # read among the allowed cards only if they got this much of the probability
    foul_prior: float = 0.1  # where the game says what is legal, a foul counts this much as likely as a legal card
    read_margin_mm: float = 80.0  # the detector reads only the frame around the zones, this far out (0: all of it)

    def __post_init__(self) -> None:
        for name in ("appear_frames", "still_frames", "leave_frames", "flag_frames", "weak_frames"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 300:
                raise ValueError(f"{name} must be a whole number of frames from 1 to 300, not {value!r}")
        if (
            isinstance(self.motion_hold, bool)
            or not isinstance(self.motion_hold, int)
            or not 0 <= self.motion_hold <= 300
        ):
            raise ValueError(f"motion_hold must be a whole number of frames from 0 to 300, not {self.motion_hold!r}")
        for name, low, high in (
            ("min_confidence", 0, 1),
            ("weak_confidence", 0, 1),
            ("occlusion", 0, 1),
            ("motion_level", 1, 255),
            ("match_mm", 1, 1000),
            ("merge_mm", 0, 1000),
            ("bury_mm", 0, 1000),
            ("reread_floor", 0, 1),
            ("foul_prior", 0, 1),
            ("read_margin_mm", 0, 1000),
        ):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high:
                raise ValueError(f"{name} must be a number from {low} to {high}, not {value!r}")


#: the webcam rate the frame-counted settings were chosen at (the bench's videos): ``still_frames`` frames without
#: motion at this rate is the time a zone must have been still for a card there to appear at a lower rate too
SETTINGS_FPS = 15.0

#: a card first seen this soon after the camera came back (``Tracker.update``'s ``moved``) was laid while it was away
AWAY_SEEN_MS = 1000

#: zone kinds whose cards lie side by side, each in view (the others are piles: the top hides the cards below)
SPREAD_KINDS = frozenset({"melds", "tableau", "market", "area"})
#: kinds of zones whose cards lie face down: the trained detector read the white-edged corner of a Spades team's won
#: pile as JK (0.33-0.53, tens of frames in a row), flagged "JK is not a card of this game" in 3 of 7 trained runs of
#: the spadescam audit (session 49; data/s50/spadesleft/scripts/jk_frames.py)
FACE_DOWN_KINDS = frozenset({"won"})


def spread_zones(layout: Layout) -> frozenset[str]:
    return frozenset(z.name for z in layout.zones if z.kind in SPREAD_KINDS)


def face_down_zones(layout: Layout) -> frozenset[str]:
    """The zones whose cards lie face down (Spades' ``won`` piles): a reading there of a card the game does not use is
    a card back's edge, not a card, and is not flagged."""
    return frozenset(z.name for z in layout.zones if z.kind in FACE_DOWN_KINDS)


def deck_for(game: str) -> Mapping[str, int] | None:
    """How many copies of each card the game uses (None: no check, e.g. Ten's own deck)."""
    if game in ("snap", "spit", "spades"):
        return {str(c): 1 for c in standard_deck()}
    if game == "push":
        return dict(Counter(str(p.face) for p in push_deck()))
    return None


# -- 1. sightings ------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Sighting:
    """A card seen in one frame at ``point`` (table mm), inside ``zone`` (None: outside every zone)."""

    card: str
    point: Point
    confidence: float
    zone: str | None


# -- 2. the stable state ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class TableCard:
    """A card that lies in a zone: ``since`` is the time (ms) of the first frame it was seen there."""

    card: str
    zone: str
    point: Point
    since: int
    id: int
    replaces: int | None = None  # the id of the card it was read as before (a re-read, see the module docstring)


@dataclass(frozen=True)
class TableState:
    """The stable table: every card, grouped by zone in the order they arrived (a pile's top is last)."""

    cards: tuple[TableCard, ...] = ()

    def in_zone(self, zone: str) -> tuple[TableCard, ...]:
        return tuple(c for c in self.cards if c.zone == zone)

    def top(self, zone: str) -> TableCard | None:
        found = self.in_zone(zone)
        return found[-1] if found else None

    def where(self, card: str) -> tuple[TableCard, ...]:
        return tuple(c for c in self.cards if c.card == card)

    def names(self, zone: str) -> tuple[str, ...]:
        return tuple(c.card for c in self.in_zone(zone))

    def to_json(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for c in self.cards:
            out.setdefault(c.zone, []).append(c.card)
        return out


@dataclass(frozen=True)
class Change:
    """A card that appeared in or left a zone; ``ts`` is when it happened (first frame seen / first missed).
    A move is a leave (``to`` the new zone) and an appear (``moved_from`` the old zone) in one update."""

    kind: str  # "appear" | "leave"
    card: TableCard
    ts: int
    moved_from: str | None = None
    to: str | None = None
    reread_of: str | None = None  # an appear: the same card, read before as this name


@dataclass(frozen=True)
class Flag:
    """An impossible table, not acted on: ``code`` is ``duplicate_card`` or ``unknown_card``."""

    code: str
    message: str
    card: str
    zones: tuple[str, ...] = ()

    def to_json(self) -> dict[str, object]:
        return {"code": self.code, "message": self.message, "card": self.card, "zones": list(self.zones)}


@dataclass(frozen=True)
class Update:
    ts: int
    state: TableState
    changes: tuple[Change, ...] = ()
    flags: tuple[Flag, ...] = ()
    frozen: tuple[str, ...] = ()
    unsettled: tuple[str, ...] = ()  # zones where a card was seen this frame that has not appeared (yet)
    glimpsed: tuple[TableCard, ...] = ()  # cards read plainly but covered before they settled (``Tracker._glimpse``)
    missing: tuple[TableCard, ...] = ()  # settled cards not seen in their zone's last unfrozen frame (not yet left)


@dataclass
class _Track:
    id: int
    card: str
    zone: str
    point: Point
    first_ts: int
    seen: int = 1
    strong: int = 1  # of those frames, the ones seen at min_confidence or more
    still: int = 0  # frames seen in a row in an unfrozen zone (nothing moving over it)
    still_from: int = 0  # the time of the picture the first of them was compared with (motion: ``Tracker.update``)
    still_to: int = 0  # the time of the last of them (a frame it is not seen in shows nothing still)
    missed: int = 0
    missed_ts: int = 0
    stable: bool = False
    order: int = 0
    blocked: int = 0
    stable_ts: int = 0
    replaces: int | None = None

    def as_card(self) -> TableCard:
        point = (round(self.point[0], 1), round(self.point[1], 1))
        return TableCard(self.card, self.zone, point, self.first_ts, self.id, self.replaces)


@dataclass
class Tracker:
    """Turns a stream of per-frame sightings into the stable table (see the module docstring)."""

    settings: TrackSettings = field(default_factory=TrackSettings)
    deck: Mapping[str, int] | None = None
    spread: frozenset[str] = frozenset()  # zones whose cards lie side by side (melds): nothing is buried there
    backs: frozenset[str] = frozenset()  # zones whose cards lie face down (:func:`face_down_zones`)
    _tracks: dict[int, _Track] = field(default_factory=dict)
    _next: int = 1
    _order: int = 0
    _unknown: Counter[str] = field(default_factory=Counter)  # card -> frames in a row seen, though not in the deck
    _unknown_sure: Counter[str] = field(default_factory=Counter)  # ... of them the last in a row at min_confidence
    state: TableState = field(default_factory=TableState)
    _unknown_now: dict[str, str | None] = field(default_factory=dict)
    _unknown_sure_now: set[str] = field(default_factory=set)
    _moved: dict[str, int] = field(default_factory=dict)  # zone -> the last frame something moved over it
    _away: dict[str, int] = field(default_factory=dict)  # zone -> the frame the camera came back in (``update``)
    _gone: dict[str, _Track] = field(default_factory=dict)  # zone -> the last stable card that left it
    _glimpsed: dict[str, tuple[TableCard, int]] = field(default_factory=dict)  # zone -> (a card glimpsed under a
    # card that covered it before it settled, that card's track id): :meth:`_glimpse`
    _last_ts: int | None = None  # the time of the frame before (what the motion meter compared this one with)

    def update(
        self, seen: Iterable[Sighting], frozen: Collection[str] = (), ts: int = 0, moved: Collection[str] = ()
    ) -> Update:
        """One frame: ``seen`` in it, ``frozen`` the zones a hand covers now; ``moved`` the zones something may have
        moved over unseen (the camera was away until this frame): a card first seen there now (within
        ``AWAY_SEEN_MS``) was laid meanwhile, not the pile's top read anew; unlike ``frozen`` nothing in them waits
        for it, and a card first seen there later is judged as ever (the mark held for good, so a faint misreading
        minutes after one stall was sent as a card laid: the review of session 44)."""
        frozen = frozenset(frozen)
        self._moved.update(dict.fromkeys(frozen, ts))
        self._away.update(dict.fromkeys(moved, ts))
        self._unknown_now, self._unknown_sure_now = {}, set()
        usable = [s for s in seen if self._usable(s) and s.zone is not None]
        before = {z: ts if self._last_ts is None or z in moved else self._last_ts for z in {s.zone for s in usable}}
        self._last_ts = ts
        matched = self._associate(usable, frozen, ts, before)
        for track in list(self._tracks.values()):
            if track.id not in matched and track.zone not in frozen:
                self._miss(track, ts)
        changes = self._promote(frozen, ts) + self._bury_and_leave()
        ordered = sorted(self._stable(), key=lambda t: (t.zone, t.order))  # once a frame: state and missing
        self.state = TableState(tuple(t.as_card() for t in ordered))
        unsettled = tuple(sorted({t.zone for t in self._tracks.values() if not t.stable and not t.missed}))
        placed = {c.card for c in self.state.cards}
        self._glimpsed = {
            zone: (card, cover)
            for zone, (card, cover) in self._glimpsed.items()
            if cover in self._tracks and card.card not in placed
        }
        glimpsed = tuple(card for card, _ in self._glimpsed.values())
        missing = tuple(t.as_card() for t in ordered if t.missed)
        flags = self._flags()
        return Update(ts, self.state, tuple(changes), flags, tuple(sorted(frozen)), unsettled, glimpsed, missing)

    def unmeasured(self) -> None:
        """The next frame's motion was measured against no picture (a new motion meter: the corners clicked again
        mid-game): a still frame there counts no time (:meth:`_still`), as the first frame ever."""
        self._last_ts = None

    # -- steps -------------------------------------------------------------------------------------------
    def _usable(self, s: Sighting) -> bool:
        if self.deck is None or s.card in self.deck:
            return True
        if s.zone in self.backs:  # a card back's edge read as a card outside the game: nothing to flag
            return False
        if s.card not in self._unknown_now:
            self._unknown[s.card] += 1
            self._unknown_now[s.card] = s.zone
        if s.confidence >= self.settings.min_confidence and s.card not in self._unknown_sure_now:
            self._unknown_sure[s.card] += 1
            self._unknown_sure_now.add(s.card)
        return False

    def _copies(self, card: str) -> int:
        return 10**6 if self.deck is None else self.deck.get(card, 0)

    def _associate(
        self, seen: Sequence[Sighting], frozen: frozenset[str], ts: int, before: Mapping[str | None, int]
    ) -> set[int]:
        """Sightings to tracks (new ones for the rest); ``before``: by zone, when the picture this frame's motion was
        measured against was taken (this frame's own time where there was none: the camera was away)."""
        pairs = []
        for i, s in enumerate(seen):
            for t in self._tracks.values():
                if t.card == s.card and t.zone == s.zone:
                    d = math.dist(t.point, s.point)
                    if d <= self.settings.match_mm or self._copies(s.card) == 1:
                        pairs.append((not t.stable, d, i, t.id))
        matched: set[int] = set()
        used: set[int] = set()
        for _, _, i, tid in sorted(pairs):
            if i in used or tid in matched:
                continue
            used.add(i)
            matched.add(tid)
            t, s = self._tracks[tid], seen[i]
            t.point = ((t.point[0] + s.point[0]) / 2, (t.point[1] + s.point[1]) / 2)
            strong = self._strong(s)
            if t.missed and t.stable:
                t.seen, t.strong = 1, strong
            else:  # (a one-frame gap is forgiven while appearing)
                t.seen, t.strong = t.seen + 1, t.strong + strong
            if t.zone in frozen:
                t.still = 0
            else:
                t.still_from = before[t.zone] if t.still == 0 else t.still_from
                t.still, t.still_to = t.still + 1, ts
            t.missed = 0
        for i, s in enumerate(seen):
            if i not in used and s.zone is not None:
                strong = self._strong(s)
                still = int(s.zone not in frozen)
                track = _Track(self._next, s.card, s.zone, s.point, ts, strong=strong, still=still)
                track.still_from, track.still_to = (before[s.zone] if still else ts), ts
                self._tracks[track.id] = track
                matched.add(track.id)
                self._next += 1
        return matched

    def _strong(self, s: Sighting) -> int:
        """1 for a sighting at ``min_confidence`` or more, 0 for a faint one."""
        return int(s.confidence >= self.settings.min_confidence)

    def _miss(self, track: _Track, ts: int) -> None:
        if track.missed == 0:
            track.missed_ts = ts
        track.missed += 1
        if not track.stable and track.missed >= 2:
            del self._tracks[track.id]
            self._glimpse(track)

    def _glimpse(self, track: _Track) -> None:
        """``track`` left before it settled: when it was read plainly (``appear_frames`` at ``min_confidence``), only
        a hand or a card sliding over its pile kept it from settling, and a card that came while it was in view is
        seen there now, it lies under that card: glimpsed (:attr:`Update.glimpsed`, while that card stays and it is
        seen nowhere). It does not appear (nothing of it is in view to follow); an observer may use it where the
        game needs the card under a top (Spit's opening card covered by a play 100 ms after it landed: seen plainly
        in three frames while the 4C slid in over it, never still; spitpace audit F1, session 48). A card that had
        settled there before it was first read lay there already: it came over that card (a card in a hand held over a
        pile's top), not under it (Beth's JD held over the 2C went as her play under the next card laid there)."""
        if track.zone in self.spread or min(track.seen, track.strong) < self.settings.appear_frames:
            return
        cover = [
            t
            for t in self._tracks.values()
            if t.zone == track.zone
            and not t.missed
            and t.first_ts <= track.missed_ts
            and t.card != track.card
            and not (t.stable and t.stable_ts < track.first_ts)
        ]
        if cover and not any(t.card == track.card for t in self._stable()):
            self._glimpsed[track.zone] = (track.as_card(), max(cover, key=lambda t: (t.first_ts, t.id)).id)

    def _stable(self) -> list[_Track]:
        return [t for t in self._tracks.values() if t.stable]

    def _promote(self, frozen: frozenset[str], ts: int) -> list[Change]:
        changes: list[Change] = []
        ready = [
            t
            for t in self._tracks.values()
            if not t.stable
            and not t.missed
            and t.seen >= self.settings.appear_frames
            and (t.strong >= self.settings.appear_frames or t.seen >= self.settings.weak_frames)
            and self._still(t)
        ]
        for track in sorted(ready, key=lambda t: (t.first_ts, t.id)):
            if self._under_top(track):
                continue
            others = [t for t in self._stable() if t.card == track.card]
            moved_from = None
            if len(others) >= self._copies(track.card):
                gone = [o for o in others if o.missed and o.zone != track.zone]
                if not gone:
                    if not any(o.zone in frozen for o in others):  # a covered copy may be on its way here
                        track.blocked += 1
                    continue
                old = max(gone, key=lambda o: o.missed)
                del self._tracks[old.id]
                moved_from = old.zone
                changes.append(Change("leave", old.as_card(), old.missed_ts, to=track.zone))
            old = self._reread_of(track) if moved_from is None else None
            if old is not None:  # the same card read anew: it takes the old reading's place in the pile
                if old.id in self._tracks:
                    del self._tracks[old.id]
                    changes.append(Change("leave", old.as_card(), old.missed_ts, to=track.zone))
                self._gone.pop(track.zone, None)
                track.order, track.replaces = old.order, old.id
            else:
                self._order += 1
                track.order = self._order
            track.stable, track.blocked, track.stable_ts = True, 0, ts
            reread = None if old is None else old.card
            changes.append(Change("appear", track.as_card(), track.first_ts, moved_from=moved_from, reread_of=reread))
        return changes

    def _still(self, track: _Track) -> bool:
        """Whether ``track``'s zone has been still long enough for it to appear: ``still_frames`` frames in a row
        without motion, or, at a lower frame rate than the settings were chosen at (``SETTINGS_FPS``: a slower laptop
        reads 5-8 of a webcam's 15 frames a second), at least one such frame and as long as ``still_frames`` frames
        take at that rate. Each frame's motion is measured against the frame before, so at 5 fps one still frame
        spans 200 ms of stillness, more than two at 15 fps (133 ms); counted in frames, a pile with hands passing
        near it every few hundred ms never settled (Alex's last KC in the seed-31 Spit video at every 3rd frame:
        seen on the pile in 8 frames, never two still frames in a row, lost). The time runs to the last frame it was
        seen still in, not to now: a frame it is not seen in, a hand moving over the zone, shows nothing lying still
        (a card in a hand carried over a pile, still there for one frame, appeared under the hand two frames later,
        at 15 fps too: review4, session 51)."""
        needed = self.settings.still_frames
        span = track.still_to - track.still_from
        return track.still >= needed or (track.still >= 1 and span >= needed * 1000 / SETTINGS_FPS)

    def _under_top(self, track: _Track) -> bool:
        """Whether ``track``, a faint card (one that would appear by the weak tier alone), lies under the pile's top
        card: first seen before that card settled, and the top still there. Nothing new can be under a settled top
        card that still lies there: a card laid with it and covered by it does not show, and one seen at the
        pile's edge under it is a buried card read as another name (the corner of Cara's 3H under her 8C, its
        suit half covered, read 3D at 0.3-0.4 in two frames of three), not a new card. A card read plainly (at
        ``min_confidence`` for ``appear_frames``) still appears: it may have been laid just before the top; but one
        seen there before the top was first seen does not while that top is missing and has not left: it lay under the
        top, and a top taken away (a Spit race's loser taking back the card on top) leaves first. Appearing at once,
        it went over the top, which then counted as buried under it and never left (the Spit observer sent it as a
        play under the card: review3, session 52). One first seen after the top came over it (a card held over the
        pile while the top settled, then laid on it, hiding it) buries it as ever."""
        top = self._settled_top(track.zone)
        if top is None:
            return False
        if track.strong < self.settings.appear_frames:
            return track.first_ts <= top.stable_ts
        return top.missed > 0 and track.first_ts <= top.first_ts

    def _settled_top(self, zone: str | None) -> _Track | None:
        """The settled top card of pile ``zone`` (None for a spread zone: no pile), seen now or not yet left: a top
        the detector misses in a frame or two, nothing moving, still lies there and hides what is under it (a top
        that had to be seen now let a faint reading at its edge appear on top of it in the first frame it was
        missed: muttrack, session 52, ``data/s52/muttrack/scripts/top_flicker.py``)."""
        if zone is None or zone in self.spread:
            return None
        tops = [t for t in self._stable() if t.zone == zone]
        return max(tops, key=lambda t: t.order) if tops else None

    def _reread_of(self, track: _Track) -> _Track | None:
        """The stable card ``track`` is a re-read of: same pile zone and card (its other index may be the one read),
        another name, and nothing moved over the zone since it appeared (a new card laid on a pile arrives with a
        hand or slides in). The old name may still be seen now and then (the two indices of a doubtful card read
        differently), or have left already (a card taken away leaves with a hand over the zone; one that left
        without any is a reading that faded): it is the same card."""
        if track.zone in self.spread:  # melds: different cards lie side by side
            return None
        away = self._away.get(track.zone)
        if away is not None and away <= track.first_ts <= away + AWAY_SEEN_MS:  # laid while the camera was away
            return None
        moved = self._moved.get(track.zone)
        gone = self._gone.get(track.zone)
        old = [
            t
            for t in [*self._stable(), *([gone] if gone else [])]
            if t.zone == track.zone
            and t.card != track.card
            and (moved is None or moved < t.stable_ts)
            and track.first_ts > t.stable_ts  # first seen once that card had settled: not one arriving with it
            and math.dist(t.point, track.point) <= self.settings.merge_mm  # one card's two indices may disagree
        ]
        return min(old, key=lambda t: math.dist(t.point, track.point)) if old else None

    def _bury_and_leave(self) -> list[Change]:
        stable = self._stable()
        changes = []
        for t in stable:
            if t.missed and self._is_buried(t, stable):
                t.missed = 0
        for t in sorted(stable, key=lambda t: t.order):
            if t.missed >= self.settings.leave_frames:
                del self._tracks[t.id]
                self._gone[t.zone] = t
                changes.append(Change("leave", t.as_card(), t.missed_ts))
        return changes

    def _is_buried(self, t: _Track, stable: Sequence[_Track]) -> bool:
        if t.zone in self.spread:
            return False
        return any(
            u.zone == t.zone
            and u.order > t.order
            and not u.missed
            and math.dist(u.point, t.point) <= self.settings.bury_mm
            for u in stable
        )

    def _flags(self) -> tuple[Flag, ...]:
        flags = []
        for t in sorted(self._tracks.values(), key=lambda t: t.id):
            if not t.stable and t.blocked >= self.settings.flag_frames:
                where = sorted({o.zone for o in self._stable() if o.card == t.card} | {t.zone})
                copies = self._copies(t.card)
                has = "only one" if copies == 1 else f"only {copies}"
                message = f"{t.card} is seen in {' and '.join(where)}: the game has {has}; ignored until cleared up"
                flags.append(Flag("duplicate_card", message, t.card, tuple(where)))
        self._unknown = Counter({c: n for c, n in self._unknown.items() if c in self._unknown_now})
        self._unknown_sure = Counter({c: n for c, n in self._unknown_sure.items() if c in self._unknown_sure_now})
        for card, count in sorted(self._unknown.items()):
            # as a card appears: sure for flag_frames frames in a row, or faint (weak_confidence) for weak_frames
            # where no settled pile top lies (``_settled_top``): there a faint reading is taken for a buried card's
            # edge read as another name (in the bench's Spit game at seed 6 a sliver under a stock pile's JS was read
            # JK at 0.99, 0.35-0.46 with the detector's score, in runs of 10 frames or more, with hands passing over the
            # pile: 13 false flags), and a card laid on the top either hides it or is read plainly
            zone = self._unknown_now[card]
            faint = count >= self.settings.weak_frames and self._settled_top(zone) is None
            if self._unknown_sure[card] >= self.settings.flag_frames or faint:
                message = f"{card} is not a card of this game: ignored"
                flags.append(Flag("unknown_card", message, card, (zone,) if zone else ()))
        return tuple(flags)
