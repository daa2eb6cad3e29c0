"""Drive a game's observer from what lies on the table, without pictures.

:class:`Driver` holds a live :class:`Session` (what the camera and the phones build), a :class:`Tracker` and
the game's observer. :meth:`Driver.show` puts a table (zone -> cards) in front of the "camera" for some frames
as sightings; the observer's proposals go into the session through a :class:`SessionLink`, like the live
pipeline does. :func:`play_through_camera` replays a whole log: the events a camera can see are *not* sent;
instead the table the referee describes after them (:mod:`vision.sim.tables`, the simulator's own answer to
"what lies where") is shown, and the observer must produce them. The other events come from the "phones".
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from scorer.events import EventError, GameEvent, GameLog, Source
from scorer.game import Ruling
from scorer.session import Session
from vision.links import CameraEvents, SessionLink, VisionEvent
from vision.observers import observer_for
from vision.track import SPREAD_KINDS, Sighting, Tracker, TrackSettings, Update, deck_for, spread_zones
from vision.zones import Layout, Zone, default_layout

CAMERA = {
    "snap": {"flip"},
    "spades": {"play"},
    "spit": {"play", "reveal", "move", "spit"},
    "push": {"meld", "layoff", "deal_end"},
}
SPREAD = SPREAD_KINDS
Table = Mapping[str, Sequence[str | tuple[str, float]]]


def along(zone: Zone, offset: float) -> tuple[float, float]:
    """The point ``offset`` mm from the zone's centre along its near edge."""
    (x0, y0), (x1, y1) = zone.polygon[0], zone.polygon[1]
    length = math.hypot(x1 - x0, y1 - y0)
    cx, cy = zone.centre
    return cx + (x1 - x0) / length * offset, cy + (y1 - y0) / length * offset


class Driver:
    def __init__(
        self,
        game: str,
        players: Sequence[str],
        options: Mapping[str, Any] | None = None,
        settings: TrackSettings | None = None,
    ) -> None:
        self.session = Session(game, players, options)
        self.layout: Layout = default_layout(game, len(players))
        self.tracker = Tracker(settings or TrackSettings(), deck_for(game), spread_zones(self.layout))
        self.observer = observer_for(game, self.layout, players, self.session.options)
        self.link = SessionLink(self.session)
        self.mine = CameraEvents()  # what a Reject on a phone tells the observer, as in LiveTable
        self.mine.start(self.link, self.observer)
        self.ts = 0
        self.step = 10  # ms between frames
        self.sent: list[tuple[int, dict[str, Any], list[Ruling]]] = []
        self.updates: list[Update] = []
        self.seqmap: dict[int, int] = {}
        self.shown: dict[str, list[Any]] = {}
        self.refused: list[tuple[dict[str, Any], str]] = []  # proposals the referee refused, with its reason
        self.faint: dict[str, float] = {}  # card -> the confidence it is read at (0.9 otherwise): a faint reading

    def restart(self) -> None:
        """The server restarted (or the camera attached again): a new tracker and observer on the same game."""
        self.tracker = Tracker(self.tracker.settings, deck_for(self.session.game.spec.name), spread_zones(self.layout))
        self.observer = observer_for(
            self.session.game.spec.name, self.layout, self.session.players, self.session.options
        )
        self.mine = CameraEvents()
        self.mine.start(self.link, self.observer)
        self.shown = {}

    def manual(self, type: str, ts: int | None = None, **data: Any) -> list[Ruling]:
        event = GameEvent(self.session.next_seq, self.ts if ts is None else ts, Source.MANUAL, type, data)
        return self.session.append(event)

    def sightings(self, table: Table) -> list[Sighting]:
        out = []
        for name, cards in table.items():
            zone = self.layout.zone(name)
            for i, item in enumerate(cards):
                card, offset = (item, 0.0) if isinstance(item, str) else item
                if zone.kind not in SPREAD and isinstance(item, str):
                    offset = 4.0 * i  # a pile: each card a little off the one below
                out.append(Sighting(card, along(zone, offset), self.faint.get(card, 0.9), name))
        return out

    def show(
        self,
        table: Table,
        frames: int = 8,
        frozen: Sequence[str] = (),
        step: int | None = None,
        moved: bool = True,
        blank: bool = False,
    ) -> list[tuple[int, dict[str, Any], list[Ruling]]]:
        """Show ``table`` for ``frames`` frames (``step`` ms apart); the events the camera sent meanwhile.
        ``moved=False``: nothing moved, only the reading changed (the same card read anew); ``blank``: the pictures
        were blank (:func:`vision.capture.blank`), as LiveTable tells the start's settling."""
        sent = []
        step = self.step if step is None else step
        seen = self.sightings(table)
        # a card does not appear out of nowhere: a hand or the card itself moves over its zone as it lands (what
        # the motion meter sees), so a zone whose cards changed is in motion for the first frame
        changed = {z for z in set(table) | set(self.shown) if list(table.get(z, ())) != self.shown.get(z, [])}
        changed = changed if moved else set()
        self.shown = {z: list(v) for z, v in table.items()}
        for k in range(frames):
            update = self.tracker.update(seen, set(frozen) | (changed if k == 0 else set()), self.ts)
            self.updates.append(update)
            self.mine.follow(self.link, self.observer)
            view = self.link.view()
            self.mine.settle(update, view, self.observer, self.mine.starting and blank)
            self.observer.recall(update, view)
            before = view
            for proposal in self.observer.observe(update, view):  # handled as vision.live.LiveTable._observe does
                event = VisionEvent(proposal.body(), proposal.ts, proposal.ts, 0, proposal.reason)
                try:
                    seq, rulings = self.link.append(event)
                except EventError as exc:
                    self.observer.refused(proposal, before)
                    self.refused.append((proposal.body(), str(exc)))
                    continue
                after = self.link.view()
                self.observer.judged(proposal, rulings, before, after)
                self.mine.add(seq, proposal)
                before = after
                sent.append((seq, proposal.body(), rulings))
            self.ts += step
        self.sent += sent
        return sent


# -- shared set-ups ---------------------------------------------------------------------------------
def spades() -> Driver:
    """A Spades hand dealt by David and bid 3 each: Alex leads."""
    d = Driver("spades", ["Alex", "Beth", "Charlie", "David"])
    d.manual("deal", dealer="David")
    for name, bid in (("Alex", 3), ("Beth", 3), ("Charlie", 3), ("David", 3)):
        d.manual("bid", player=name, bid=bid)
    return d


def spades_trick_claimed() -> tuple[Driver, dict[str, list[str]]]:
    """Trick 1 (AC 7C 4C 2C) lies on the spots; Alex claims the rest of the hand and the next deal is entered."""
    d = spades()
    table: dict[str, list[str]] = {}
    for seat, card in enumerate(["AC", "7C", "4C", "2C"]):
        table[f"trick/{seat}"] = [card]
        d.show(table)
    d.manual("claim", player="Alex")
    d.manual("deal")
    return d, table


def visible(game: str, places: Mapping[tuple[str, int], Sequence[Any]], layout: Layout) -> dict[str, list[Any]]:
    """The face-up cards a camera sees in the simulator's table: a pile's top, every card of a spread zone."""
    out: dict[str, list[Any]] = {}
    for (zone, group), items in places.items():
        kind = layout.zone(zone).kind
        up = [item.card for item in items if item.up and item.card]
        if kind in SPREAD:
            out.setdefault(zone, []).extend((c, -230.0 + 130 * group + 22 * i) for i, c in enumerate(up))
        elif items and items[-1].up and items[-1].card:
            out.setdefault(zone, []).append(items[-1].card)
    return out


def play_through_camera(
    log: GameLog, frames: int = 8, restart: int | None = None, down: bool = False
) -> tuple[Driver, Session]:
    """Replay ``log``: camera events from the table the simulator shows, the others (undo and corrections
    included) from the phones. Returns the driver (its session is the live game; ``driver.seqmap`` maps the
    log's seqs to the live game's) and the original game replayed for comparison. ``restart``: the server
    restarts (a new tracker and observer, :meth:`Driver.restart`) after the event of that index, and the new camera
    looks at the table as it was for 2 s; ``down``: before that event instead, so that its card lands while the
    server is down."""
    from vision.sim.tables import table_for

    game, players = log.header.game, log.header.players
    truth = Session(game, players, log.header.options)
    driver = Driver(game, players, log.header.options)
    shown = table_for(game)
    rendered: dict[Any, Any] = {}
    for index, event in enumerate(log.events):
        driver.ts = max(driver.ts, event.ts)
        if down and index == restart:
            driver.restart()
        if not down and index - 1 == restart and index:
            driver.restart()
            driver.show(visible(game, rendered, driver.layout), 200)
        if event.type in CAMERA[game]:
            landing = shown.intents(event, truth) or _lands(event)
            if landing:  # the card lies there a moment before the referee's consequences (a trick, a round end)
                before = {
                    k: [i for i in v if i not in {item for _, item in landing}]
                    for k, v in shown.places(truth, rendered).items()
                }
                for place, item in landing:
                    before.setdefault(place, []).append(item)
                driver.show(visible(game, before, driver.layout), frames)
            truth.append(event)
            rendered = shown.places(truth, rendered)
            sent = driver.show(visible(game, rendered, driver.layout), frames)
            if not landing and sent:
                driver.seqmap[event.seq] = sent[-1][0]
            elif landing and driver.sent:
                driver.seqmap[event.seq] = driver.sent[-1][0]
            continue
        truth.append(event)
        data = dict(event.data)
        for key in ("target", "after"):
            if key in data:
                data[key] = driver.seqmap.get(int(data[key]), 0)
        driver.manual(event.type, event.ts, **data)
        driver.seqmap[event.seq] = driver.session.events[-1].seq
        rendered = shown.places(truth, rendered)
        driver.show(visible(game, rendered, driver.layout), frames)
    return driver, truth


def _lands(event: GameEvent) -> list[tuple[tuple[str, int], Any]]:
    """Spit: a played card lands on its spit pile (the simulator's table already shows the round's end)."""
    from vision.sim.tables import Item

    if event.type == "play" and "pile" in event.data and "card" in event.data:
        return [((f"spit/{int(event.data['pile'])}", 0), Item(str(event.data["card"]), True))]
    return []
