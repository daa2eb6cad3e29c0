"""From a game log to a timeline of table actions: which card moves where and when, and what hands do.

:func:`build` replays the log through the referee event by event (:mod:`vision.sim.tables` says what lies in
which zone after each one), compares that with the table so far, and schedules the difference as motions:

* a new card slides in from its player's side (their hand carries it, or hovers over the spot while several
  cards go down one after another) and lands with a small turn, a little off the pile's centre, so the card
  below shows at the edge;
* a face-down card is turned over in place; cards move from pile to pile (a trick gathered, a pile won) or
  leave the table towards the hand that takes them; a hand slaps a pile;
* now and then, when nothing else happens, a player reaches across the table and covers cards for a moment.

Times come from the log's ``ts`` (long pauses shortened to ``Timing.max_gap``), pushed later where needed: a
hand does one thing at a time, and a card that lands lies uncovered for ``Timing.dwell`` before anything
covers it, so every card the game puts down can be seen. ``duration`` fits the game into a given length. With
``Timing.pile_gap`` set (a real pace) a card carried onto a pile, a hand free, may land as soon as ``pile_gap`` after
the last card landed there, where the log's ``ts`` put them closer than the dwell: a card covered before it was ever
seen alone, as at a real game of Spit.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from scorer.events import GameEvent, GameLog
from scorer.game import Ruling
from scorer.session import Session
from vision.sim.tables import GameTable, Item, Place, Table, table_for
from vision.sim.timeline import Expect, HandPath, Pose, Segment, SimError, Timeline, Timing, Track
from vision.track import SPREAD_KINDS
from vision.zones import CARD_MM, Layout, Point, Zone

__all__ = ["build"]


# -- building ---------------------------------------------------------------------------------------------
class _Builder:
    def __init__(self, log: GameLog, layout: Layout, timing: Timing, seed: int, scale: float) -> None:
        self.log, self.layout, self.timing, self.scale = log, layout, timing, scale
        self.rng = np.random.default_rng([seed, 5])
        self.table: GameTable = table_for(log.header.game)
        self.session = Session(log.header.game, log.header.players, log.header.options)
        self.stacks: dict[Place, list[int]] = {}
        self.items: dict[int, Item] = {}
        self.tracks: list[Track] = []
        self.hands = [self._hand(seat.index) for seat in layout.seats]
        self.free: dict[Place, float] = {}
        self.landed: dict[Place, float] = {}  # a pile -> when its last card carried in landed (``Timing.pile_gap``)
        self.expects: list[Expect] = []
        self.events: list[dict[str, object]] = []
        self.cells: dict[Place, int] = {}
        self.jitter: dict[tuple[int, Place], tuple[float, float, float]] = {}
        self.seq = 0

    # geometry ------------------------------------------------------------------------------------------
    def _hand(self, seat: int) -> HandPath:
        s = self.layout.seats[seat]
        ix, iy = s.inward
        rx, ry = -iy, ix  # the player's right
        home = (s.position[0] - ix * 650 + rx * 150, s.position[1] - iy * 650 + ry * 150)
        shoulder = (s.position[0] - ix * 900 + rx * 200, s.position[1] - iy * 900 + ry * 200)
        return HandPath(seat, home, shoulder)

    def zone(self, place: Place) -> Zone:
        return self.layout.zone(place[0])

    def offtable(self, seat: int, up: bool) -> Pose:
        s = self.layout.seats[seat]
        ix, iy = s.inward
        return Pose(s.position[0] - ix * 130, s.position[1] - iy * 130, s.facing + float(self.rng.normal(0, 12)), up)

    def grip(self, pose: Pose, seat: int) -> Point:
        """Where fingertips hold a card: its edge towards the player."""
        ix, iy = self.layout.seats[seat].inward
        return pose.x - ix * CARD_MM[1] * 0.42, pose.y - iy * CARD_MM[1] * 0.42

    def pose(self, place: Place, index: int, obj: int, up: bool) -> Pose:
        zone = self.zone(place)
        key = (obj, place)
        if key not in self.jitter:
            dx, dy = np.clip(self.rng.normal(0, 2.6, 2), -6, 6)
            self.jitter[key] = (float(dx), float(dy), float(np.clip(self.rng.normal(0, 4.5), -11, 11)))
        dx, dy, da = self.jitter[key]
        (cx, cy), a = zone.centre, zone.angle
        r = math.radians(a)
        right, far = (math.cos(r), math.sin(r)), (math.sin(r), -math.cos(r))
        if zone.kind in SPREAD_KINDS:
            cell = self.cells.setdefault(place, sum(1 for p in self.cells if p[0] == place[0]))
            width, depth = zone.size
            u = -width / 2 + (cell % 3) * width / 3 + CARD_MM[0] / 2 + 6 + index * 17
            v = (depth / 4) * (1 if (cell // 3) % 2 else -1)
            return Pose(
                cx + u * right[0] + v * far[0] + dx / 3, cy + u * right[1] + v * far[1] + dy / 3, a + da / 4, up
            )
        if zone.kind == "won":  # tricks crosswise, one on another
            turn = 90.0 if (index // 4) % 2 else 0.0
            return Pose(cx + dx, cy + dy, a + turn + da / 2, up)
        return Pose(cx + dx, cy + dy, a + da, up)

    # bookkeeping ---------------------------------------------------------------------------------------
    def new_track(self, item: Item) -> int:
        obj = len(self.tracks)
        self.tracks.append(Track(obj, item.card))
        self.items[obj] = item
        return obj

    def current(self, obj: int) -> Pose:
        return self.tracks[obj].segments[-1].dst

    def resting_z(self, obj: int) -> float:
        return self.tracks[obj].segments[-1].z

    def land(self, obj: int, start: float, end: float, src: Pose, place: Place | None, up: bool) -> Pose:
        """Add the segment that takes ``obj`` from ``src`` to its spot in ``place`` (already in its stack)."""
        if place is None:
            dst, z, depth = src, end, 0
        else:
            stack = self.stacks[place]
            index = stack.index(obj)
            dst = self.pose(place, index, obj, up)
            depth = len(stack) - 1 - index
            above = [self.resting_z(o) for o in stack[index + 1 :] if self.tracks[o].segments]
            z = min([end + 1e-3 * index, *(a - 1e-3 for a in above)])
        self.tracks[obj].segments.append(Segment(start, end, src, dst, place, z, depth))
        card = self.items[obj].card
        if card is not None and self.tracks[obj].card is None:
            self.tracks[obj].card = card
        return dst

    def expect(self, event: GameEvent, obj: int, place: Place, landed: float) -> None:
        item = self.items[obj]
        if item.up and item.card:
            self.expects.append(Expect(event.seq, obj, item.card, place[0], landed))

    def owner(self, place: Place) -> int | None:
        owner = self.zone(place).owner
        return owner if owner is not None and owner < len(self.layout.seats) else None

    def lying(self, place: Place, item: Item) -> int | None:
        """The card of ``place`` that is ``item`` (the top face-down card if the card was turned as it went)."""
        stack = self.stacks.get(place, [])
        same = [o for o in stack if self.items[o].card == item.card]
        if same:
            return same[-1]
        return stack[-1] if stack and self.items[stack[-1]].card is None else None

    def place_of(self, obj: int) -> Place:
        return next(p for p, stack in self.stacks.items() if obj in stack)

    def is_shown(self, obj: int, place: Place) -> bool:
        """Whether a card landing in ``place`` shows whole (the top of a pile, any card of a meld row)."""
        return self.zone(place).kind in SPREAD_KINDS or self.stacks[place][-1] == obj

    def rendered(self) -> Table:
        return {p: [self.items[o] for o in objs] for p, objs in self.stacks.items()}

    # actions (each returns when it starts and when its cards have landed) -----------------------------------
    def deliver(self, seat: int, objs: list[int], t: float, event: GameEvent) -> tuple[float, float]:
        """New cards (already in their stacks) come from ``seat``'s hand, one after another."""
        tm, hand = self.timing, self.hands[seat]
        places = {self.place_of(o) for o in objs}
        start = max([t, hand.free, *(self._free_for(p, tm.reach + tm.slide) for p in places)])
        batches = self._batches(objs)
        land = start + tm.reach
        spots = []
        for k, batch in enumerate(batches):
            begin = start + tm.reach + k * tm.stagger
            land = begin + tm.slide
            for obj in batch:
                src = self.offtable(seat, self.items[obj].up)
                place = self.place_of(obj)
                dst = self.land(obj, begin, land, src, place, self.items[obj].up)
                spots.append((src, dst))
                self.expect(event, obj, place, land)
        if len(batches) == 1:  # the hand carries the card (or the block)
            src, dst = spots[-1]
            hand.go(start, start + tm.reach, self.grip(src, seat))
            hand.go(start + tm.reach, land, self.grip(dst, seat))
        else:  # the hand hovers over the spots while the cards go down
            x, y = np.mean([dst.centre for _, dst in spots], axis=0)
            hand.go(start, start + tm.reach, (float(x), float(y)))
        hand.go(land, land + tm.reach, hand.home)
        for place in places:
            self.free[place] = land + tm.reach + tm.dwell
            self.landed[place] = land
        return start, land

    def _free_for(self, place: Place, lead: float) -> float:
        """The earliest start of a delivery onto ``place`` whose card lands ``lead`` after it starts: once the place
        is free, or (``Timing.pile_gap``, a pile whose last action was a card carried in) ``pile_gap`` after that card
        landed."""
        free = self.free.get(place, 0.0)
        gap, landed = self.timing.pile_gap, self.landed.get(place)
        if gap is None or landed is None or self.zone(place).kind in SPREAD_KINDS:
            return free
        return min(free, landed + gap - lead)

    def _taken(self, place: Place, until: float) -> None:
        """``place`` is busy with something other than a card carried in until ``until``."""
        self.free[place] = until
        self.landed.pop(place, None)

    def _batches(self, objs: list[int]) -> list[list[int]]:
        """One card at a time, except a block of many face-down cards for one place, which goes down at once."""
        batches: list[list[int]] = []
        by_place: dict[Place, list[int]] = {}
        for obj in objs:
            by_place.setdefault(self.place_of(obj), []).append(obj)
        for group in by_place.values():
            downs = [o for o in group if not self.items[o].up]
            if len(downs) >= self.timing.bulk:
                batches.append(downs)
                batches += [[o] for o in group if self.items[o].up]
            else:
                batches += [[o] for o in group]
        return batches

    def sweep(
        self, seat: int | None, moves: list[tuple[int, Pose, Place, Place | None]], t: float, event: GameEvent
    ) -> tuple[float, float]:
        """Cards go from place to place (or off the table towards ``seat``), carried by ``seat``'s hand.

        ``moves``: (card, where it lies, the place it left, the place it goes to or None)."""
        tm = self.timing
        places = {p for _, _, old, new in moves for p in (old, new) if p is not None}
        targets = {new for _, _, _, new in moves if new is not None} - {old for _, _, old, _ in moves}
        hand = self.hands[seat] if seat is not None else None
        lead = (tm.reach if hand else 0) + tm.sweep
        free = [self._free_for(p, lead) if p in targets else self.free.get(p, 0.0) for p in places]
        start = max([t, *free, hand.free if hand else 0.0])
        begin = start + (tm.reach if hand else 0)
        end = begin + tm.sweep
        first = None
        for obj, src, old, new in moves:
            if new is None:
                dst = self.offtable(seat if seat is not None else 0, src.up)
                self.land(obj, begin, end, src, None, src.up)
                self.tracks[obj].segments[-1] = replace(
                    self.tracks[obj].segments[-1], dst=replace(dst, angle=src.angle)
                )
            else:
                dst = self.land(obj, begin, end, src, new, self.items[obj].up)
                if new[0] != old[0] and self.is_shown(obj, new):
                    self.expect(event, obj, new, end)
            first = first or (src, self.tracks[obj].segments[-1].dst)
        if hand and first:
            hand.go(start, begin, self.grip(first[0], hand.seat))
            hand.go(begin, end, self.grip(first[1], hand.seat))
            hand.go(end, end + tm.reach, hand.home)
        for place in places:
            self._taken(place, end + (tm.reach if hand else 0) + tm.dwell)
            if place in targets:  # cards carried in: the next may land ``Timing.pile_gap`` after them
                self.landed[place] = end
        return start, end

    def reveal(self, seat: int | None, obj: int, item: Item, t: float, event: GameEvent) -> tuple[float, float]:
        """``seat`` turns a face-down card face up where it lies."""
        tm = self.timing
        place = self.place_of(obj)
        hand = self.hands[seat] if seat is not None else None
        start = max(t, self.free.get(place, 0.0), hand.free if hand else 0.0)
        begin = start + (tm.reach if hand else 0)
        end = begin + tm.reveal
        src = self.current(obj)
        self.items[obj] = item
        self.land(obj, begin, end, src, place, True)
        if hand:
            hand.go(start, begin, self.grip(src, hand.seat))
            hand.go(end, end + tm.reach, hand.home)
        self._taken(place, end + (tm.reach if hand else 0) + tm.dwell)
        self.expect(event, obj, place, end)
        return start, end

    def slap(self, seat: int, place: Place, t: float) -> tuple[float, float]:
        """``seat`` slaps a hand flat on ``place`` and takes it back."""
        tm, hand = self.timing, self.hands[seat]
        start = max(t, hand.free)
        down = start + tm.reach * 0.7
        hand.go(start, down, self.zone(place).centre)
        hand.go(down + tm.slap, down + tm.slap + tm.reach, hand.home)
        self._taken(place, max(self.free.get(place, 0.0), down + tm.slap + tm.reach))
        return start, down + tm.slap

    # events --------------------------------------------------------------------------------------------
    def run(self) -> Timeline:
        clock, last_ts, last_start = self.timing.lead_in, None, 0.0
        for event in self.log.events:
            gap = 0.0 if last_ts is None else min(max(event.ts - last_ts, 0), self.timing.max_gap) * self.scale
            last_ts = event.ts
            clock = max(clock + gap, last_start)
            last_start = self.event(event, clock)
        hands_end = max(h.free for h in self.hands)
        ends = [s.end for track in self.tracks for s in track.segments]
        end = max([clock, hands_end, *ends]) + self.timing.tail
        self.passes(end)
        return Timeline(
            self.log.header.game, tuple(self.log.header.players), self.layout, self.tracks, self.hands,
            self.expects, self.events, end,
        )  # fmt: skip

    def event(self, event: GameEvent, t: float) -> float:
        """Schedule one event's actions from ``t``; returns when the first of them starts."""
        session, tm = self.session, self.timing
        intents, carries = self.table.intents(event, session), self.table.carries(event, session)
        rulings = session.append(event)
        self.events.append({"seq": event.seq, "type": event.type, "player": event.data.get("player"), "t_ms": round(t)})
        spans = [self.slap(seat, place, t) for seat, place in self.table.slaps(event, session)]
        for place, item in intents:
            seat = self.table.source(event, session, place, item)
            obj = self.new_track(item)
            self.stacks.setdefault(place, []).append(obj)
            spans.append(self.deliver(seat if seat is not None else 0, [obj], t, event))
        for old, new, item in carries:
            obj = self.lying(old, item)
            if obj is not None:
                src = self.current(obj)
                self.stacks[old].remove(obj)
                self.stacks.setdefault(new, []).append(obj)
                self.items[obj] = item
                spans.append(self.sweep(self.table.player(event, session), [(obj, src, old, new)], t, event))
        judged = intents or carries
        after = max([t, *(end + (tm.reach + tm.look if judged else 0) for _, end in spans)])
        spans += self.reconcile(event, rulings, after)
        return min([start for start, _ in spans], default=t)

    def reconcile(self, event: GameEvent, rulings: list[Ruling], t: float) -> list[tuple[float, float]]:
        """Make the table look like the referee's state from ``t`` on."""
        target = self.table.places(self.session, self.rendered())
        removed: list[int] = []
        added: list[tuple[Place, int, Item]] = []
        reveals: list[tuple[int, Item]] = []
        for place in sorted(set(self.stacks) | set(target)):
            if place[0] not in self.layout.names:
                raise SimError(f"the {self.layout.game} layout has no zone {place[0]!r} for the referee's cards")
            have, want = self.stacks.get(place, []), target.get(place, [])
            keep = 0
            while keep < min(len(have), len(want)) and self.items[have[keep]].same(want[keep]):
                if self.items[have[keep]].card is None:
                    self.items[have[keep]] = want[keep]
                keep += 1
            top = self.items[have[-1]] if have else None
            turned = top is not None and not top.up and want and want[-1].up and top.card in (None, want[-1].card)
            if turned and len(have) == len(want) and keep == len(have) - 1:
                reveals.append((have[-1], want[-1]))
                continue
            removed += have[keep:]
            added += [(place, i, want[i]) for i in range(keep, len(want))]
        moves, news = self._match(removed, added)
        # bookkeeping first: every card leaves its old spot, then arrivals go in by their final position
        origin = {obj: (self.place_of(obj), self.current(obj)) for obj in removed}
        for obj in removed:
            self.stacks[origin[obj][0]].remove(obj)
        arrivals = [(place, index, obj, item) for obj, place, index, item in moves]
        arrivals += [(place, index, self.new_track(item), item) for place, index, item in news]
        for place, index, obj, item in sorted(arrivals, key=lambda a: (a[0], a[1])):
            self.items[obj] = item
            self.stacks.setdefault(place, []).insert(index, obj)
        spans = []
        player = self.table.player(event, self.session)
        for obj, item in reveals:
            seat = self.owner(self.place_of(obj))
            spans.append(self.reveal(seat if seat is not None else player, obj, item, t, event))
        groups: dict[int | None, list[tuple[int, Pose, Place, Place | None]]] = {}
        actor = self.table.actor(event, self.session, rulings)
        for obj, place, _, _ in moves:
            mover = actor if actor is not None else self.owner(place)
            mover = mover if mover is not None else self.owner(origin[obj][0])
            groups.setdefault(mover, []).append((obj, origin[obj][1], origin[obj][0], place))
        moved = {m[0] for m in moves}
        for obj in removed:
            if obj not in moved:
                old = origin[obj][0]
                sink = self.table.sink(event, self.session, rulings, old)
                sink = sink if sink is not None else (self.owner(old) or 0)
                groups.setdefault(sink, []).append((obj, origin[obj][1], old, None))
        for seat, group in groups.items():
            spans.append(self.sweep(seat, group, t, event))
        after = max([t, *(end for _, end in spans)])
        by_seat: dict[int, list[int]] = {}
        for place, _, obj, item in arrivals:
            if obj not in moved:
                seat = self.table.source(event, self.session, place, item)
                by_seat.setdefault(seat if seat is not None else (self.owner(place) or 0), []).append(obj)
        for seat, objs in by_seat.items():
            spans.append(self.deliver(seat, objs, after, event))
        return spans

    def _match(
        self, removed: list[int], added: list[tuple[Place, int, Item]]
    ) -> tuple[list[tuple[int, Place, int, Item]], list[tuple[Place, int, Item]]]:
        """Pair cards that left a place with cards that arrived elsewhere: those moved across the table."""
        pool = list(removed)
        moves, news = [], []
        for place, index, item in added:
            found = None
            if item.card is not None:
                found = next((o for o in pool if self.items[o].card == item.card), None)
            if found is None and item.card is None:
                found = next((o for o in pool if not self.items[o].up), next(iter(pool), None))
            if found is None and item.card is not None:
                found = next((o for o in pool if self.items[o].card is None), None)
            if found is None:
                news.append((place, index, item))
            else:
                pool.remove(found)
                moves.append((found, place, index, item))
        return moves, news

    def passes(self, end: float) -> None:
        """Hands reaching across the table in quiet moments, covering cards for a moment."""
        tm = self.timing
        busy = sorted(
            [(s.start, s.end) for track in self.tracks for s in track.segments]
            + [span for hand in self.hands for span in hand.busy()]
            + [(end - tm.tail / 2, end)]
        )
        out = tm.reach * 1.6
        longest = 2 * out + 500
        quiet_from = tm.lead_in + 600
        for a, b in busy:
            while True:
                start = quiet_from + tm.dwell + float(self.rng.exponential(tm.pass_every))
                if start + longest + tm.dwell > a:
                    break
                seat = int(self.rng.integers(len(self.hands)))
                centre = self.layout.zones[int(self.rng.integers(len(self.layout.zones)))].centre
                target = (centre[0] + float(self.rng.normal(0, 40)), centre[1] + float(self.rng.normal(0, 40)))
                hold = float(self.rng.uniform(150, 500))
                self.hands[seat].trip(start, out, hold, target)
                quiet_from = start + 2 * out + hold
            quiet_from = max(quiet_from, b)


def build(
    log: GameLog, layout: Layout, seed: int = 0, timing: Timing | None = None, duration: float | None = None
) -> Timeline:
    """The timeline of ``log`` on ``layout``; with ``duration`` (ms) the pauses shrink so that it fits."""
    timing = timing or Timing()
    if log.header.game != layout.game or len(log.header.players) != layout.players:
        raise SimError(
            f"the layout is for {layout.game} with {layout.players} players, the log is "
            f"{log.header.game} with {len(log.header.players)}"
        )
    timeline = _Builder(log, layout, timing, seed, 1.0).run()
    if duration is None or timeline.duration <= duration:
        return timeline
    fastest = _Builder(log, layout, timing, seed, 0.0).run()
    if fastest.duration > duration:
        need = math.ceil(fastest.duration / 1000)
        raise SimError(f"this game needs at least {need} s of video; ask for more, or use a shorter log")
    low, high = 0.0, 1.0
    for _ in range(14):
        mid = (low + high) / 2
        if _Builder(log, layout, timing, seed, mid).run().duration <= duration:
            low = mid
        else:
            high = mid
    return _Builder(log, layout, timing, seed, low).run()
