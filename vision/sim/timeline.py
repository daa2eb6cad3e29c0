"""The timeline the script builds and the renderer draws: cards' motions, hands' paths, what to time.

Times are milliseconds of video; places on the table are millimetres (see :mod:`vision.zones`).
"""

from __future__ import annotations

import bisect
import itertools
from dataclasses import dataclass, field

from vision.sim.tables import Place, SimError
from vision.zones import Layout, Point

__all__ = ["Expect", "HandPath", "Pose", "Segment", "SimError", "Timeline", "Timing", "Track", "ease"]


@dataclass(frozen=True)
class Timing:
    """How long things take at the table, in milliseconds of video."""

    lead_in: float = 1200  # an empty table first (the pipeline calibrates on it)
    tail: float = 1500
    slide: float = 520  # a card carried in from a hand
    sweep: float = 620  # cards moved from pile to pile or taken away
    reveal: float = 300  # a card turned over in place
    reach: float = 280  # a hand reaching out or back
    dwell: float = 500  # a card that landed lies uncovered at least this long
    look: float = 700  # a card the referee judges (a trick's last card) lies this long before it is gathered
    stagger: float = 170  # between cards put down one after another
    slap: float = 420  # a hand held down on a pile
    max_gap: float = 2500  # longer pauses between events are shortened to this
    bulk: int = 8  # this many face-down cards or more go down as one block
    pass_every: float = 9000  # on average, a hand passes over the table this often (in quiet moments)
    # None: a card carried onto a pile waits until the last card there lay uncovered ``dwell``; a number: it may land
    # that soon after the last card landed there, when the log's ``ts`` put it so close (a real pace: two plays on
    # one spit pile 150 ms apart in the log land 150 ms apart)
    pile_gap: float | None = None


@dataclass(frozen=True)
class Pose:
    """A card on the table plane: centre (mm), angle (degrees, clockwise; 0 upright for seat 0), face up or not."""

    x: float
    y: float
    angle: float
    up: bool

    @property
    def centre(self) -> Point:
        return self.x, self.y


@dataclass(frozen=True)
class Segment:
    """A card moving from ``src`` (at ``start``) to ``dst`` (at ``end``), then resting in ``place`` (None: gone)."""

    start: float
    end: float
    src: Pose
    dst: Pose
    place: Place | None
    z: float  # drawing order once landed: later landings lie on top
    depth: int = 0  # cards above it in its place when it lands (deep cards are not drawn)


@dataclass
class Track:
    """One physical card's life on the table."""

    obj: int
    card: str | None  # the face it shows when face up (None: never seen face up)
    segments: list[Segment] = field(default_factory=list)

    def state(self, t: float) -> tuple[Segment, float] | None:
        """The segment in force at ``t`` and how far along it is (1: landed), or None before it appears."""
        current = None
        for seg in self.segments:
            if seg.start > t:
                break
            current = seg
        if current is None:
            return None
        span = current.end - current.start
        return current, 1.0 if t >= current.end or span <= 0 else (t - current.start) / span


def ease(u: float) -> float:
    """Smooth start and stop."""
    u = min(1.0, max(0.0, u))
    return u * u * (3 - 2 * u)


class HandPath:
    """Where one player's (right) hand is over time: keys (time, fingertip point in table mm), eased between."""

    def __init__(self, seat: int, home: Point, shoulder: Point) -> None:
        self.seat, self.home, self.shoulder = seat, home, shoulder
        self.keys: list[tuple[float, Point]] = [(-1.0, home)]
        self._times: list[float] | None = None
        self._spans: list[tuple[float, float]] | None = None

    @property
    def free(self) -> float:
        """When the hand has done everything planned so far."""
        return self.keys[-1][0]

    def _changed(self) -> None:
        self._times = self._spans = None

    def at(self, t: float) -> Point:
        if self._times is None:
            self._times = [k[0] for k in self.keys]
        i = bisect.bisect_right(self._times, t)
        if i == 0:
            return self.keys[0][1]
        if i == len(self.keys):
            return self.keys[-1][1]
        (t0, p0), (t1, p1) = self.keys[i - 1], self.keys[i]
        u = ease((t - t0) / (t1 - t0))
        return p0[0] + (p1[0] - p0[0]) * u, p0[1] + (p1[1] - p0[1]) * u

    def go(self, t0: float, t1: float, point: Point) -> None:
        """Move from wherever the hand is at ``t0`` to ``point`` by ``t1`` (``t0`` not before the last key)."""
        if t0 < self.free - 1e-6:
            raise SimError(f"hand {self.seat} is busy until {self.free:.0f} ms, cannot move at {t0:.0f} ms")
        if t0 > self.free:
            self.keys.append((t0, self.at(t0)))
        self.keys.append((max(t1, t0 + 1e-3), point))
        self._changed()

    def trip(self, start: float, out: float, hold: float, target: Point) -> bool:
        """Reach to ``target`` and back while the hand rests at home; False (nothing changes) if it does not."""
        end = start + 2 * out + hold
        before = [k for k in self.keys if k[0] <= start]
        after = [k for k in self.keys if k[0] > start]
        if before[-1][1] != self.home or (after and after[0][0] < end):
            return False
        trip = [(start, self.home), (start + out, target), (start + out + hold, target), (end, self.home)]
        self.keys = before + trip + after
        self._changed()
        return True

    def busy(self) -> list[tuple[float, float]]:
        """The intervals when the hand is away from home (or on its way)."""
        if self._spans is None:
            spans: list[tuple[float, float]] = []
            for (t0, p0), (t1, p1) in itertools.pairwise(self.keys):
                if p0 == self.home and p1 == self.home:
                    continue
                if spans and spans[-1][1] >= t0:
                    spans[-1] = (spans[-1][0], t1)
                else:
                    spans.append((t0, t1))
            self._spans = spans
        return self._spans

    def shown(self, t: float) -> bool:
        """Whether the arm is over (or coming over) the table at ``t``."""
        return any(a <= t <= b for a, b in self.busy())


@dataclass(frozen=True)
class Expect:
    """A card the ground truth must time: it lands in ``zone`` at ``landed`` (ms) as a result of event ``seq``."""

    seq: int
    obj: int
    card: str
    zone: str
    landed: float


@dataclass
class Timeline:
    """Everything the renderer needs, and the events' times in the video."""

    game: str
    players: tuple[str, ...]
    layout: Layout
    tracks: list[Track]
    hands: list[HandPath]
    expects: list[Expect]
    events: list[dict[str, object]]  # seq, type, player, t_ms
    duration: float  # ms
