"""Table coordinates and the default zones of each game: where the camera expects which pile.

**Table coordinates.** The play area is a plane of ``TABLE_MM`` = 1000 x 700 mm. The origin is its top-left
corner as the camera sees it: ``x`` runs to the right, ``y`` towards the camera-side player (seat 0, "south"),
both in millimetres. Seats go clockwise round the table as seen from above (the order of the log's
``players``): seat 0 south, then west, north, east for four players; N players sit at ``360/N``-degree steps.

**Angles** are degrees, clockwise as seen from above. A card at angle 0 stands upright for the south
player (its top towards north); a card at a seat's ``facing`` angle stands upright for that player.

**Zones** are convex polygons on the table plane. Each zone's corners run near-left, near-right, far-right,
far-left as its owner sees them (a shared zone: as seat 0 sees it), so :attr:`Zone.angle` is the way its
cards face. ``owner`` is a seat; for Spades' ``won`` zones it is the team (0: seats 0 & 2, 1: seats 1 & 3).
``slot`` numbers zones of one kind and owner (Spit's stock piles 0-4 from the owner's left; spit piles 0-1).

**Markers**: four ArUco markers (``ARUCO_DICT``, ids 0-3) may lie at the corners of the play area, so the
live pipeline can find the table plane (calibration); no zone overlaps them.

A :class:`Layout` is plain data and round-trips through JSON (:meth:`Layout.to_json`) and TOML
(:meth:`Layout.to_toml`), so a group can save and edit its own table. Only the standard library is used.
"""

from __future__ import annotations

import json
import math
import tomllib
from dataclasses import dataclass
from typing import Any

__all__ = [
    "ARUCO_DICT",
    "CARD_MM",
    "GAMES",
    "TABLE_MM",
    "Layout",
    "LayoutError",
    "Marker",
    "Point",
    "Seat",
    "Zone",
    "default_layout",
]

Point = tuple[float, float]

TABLE_MM: tuple[float, float] = (1000.0, 700.0)
CARD_MM: tuple[float, float] = (63.0, 88.0)  # a poker-size card, width x height
ARUCO_DICT = "DICT_4X4_50"
MARKER_MM = 60.0
MARKER_INSET_MM = 15.0  # from the play area's edges to the marker's edges

#: games with a default layout, and the player counts each allows.
GAMES: dict[str, range] = {
    "snap": range(2, 13),
    "spit": range(2, 3),
    "spades": range(4, 5),
    "push": range(4, 5),
    "ten": range(1, 6),
}


class LayoutError(ValueError):
    """A layout that cannot be made or read (unknown game, bad player count, malformed file)."""


@dataclass(frozen=True)
class Zone:
    """A region of the table plane where a game keeps cards (``kind``: pile, pot, stock, spit, trick, …)."""

    name: str
    polygon: tuple[Point, ...]
    kind: str
    owner: int | None = None
    slot: int | None = None

    @property
    def centre(self) -> Point:
        xs, ys = zip(*self.polygon, strict=True)
        return sum(xs) / len(xs), sum(ys) / len(ys)

    @property
    def angle(self) -> float:
        """The way the zone's cards face: the direction of its near edge, in degrees (0: upright for south)."""
        (x0, y0), (x1, y1) = self.polygon[0], self.polygon[1]
        return math.degrees(math.atan2(y1 - y0, x1 - x0)) % 360

    @property
    def size(self) -> tuple[float, float]:
        """Width (along the near edge) and depth of the zone's rectangle, in mm."""
        p = self.polygon
        return math.dist(p[0], p[1]), math.dist(p[1], p[2])

    def contains(self, point: Point) -> bool:
        """Whether ``point`` (table mm) lies inside the zone (or on its edge)."""
        x, y = point
        sign = 0.0
        for (x0, y0), (x1, y1) in zip(self.polygon, self.polygon[1:] + self.polygon[:1], strict=True):
            cross = (x1 - x0) * (y - y0) - (y1 - y0) * (x - x0)
            if cross and sign and (cross > 0) != (sign > 0):
                return False
            sign = sign or cross
        return True

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "kind": self.kind, "polygon": [[x, y] for x, y in self.polygon]}
        if self.owner is not None:
            out["owner"] = self.owner
        if self.slot is not None:
            out["slot"] = self.slot
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Zone:
        try:
            polygon = tuple((float(x), float(y)) for x, y in data["polygon"])
            owner, slot = data.get("owner"), data.get("slot")
            zone = cls(str(data["name"]), polygon, str(data["kind"]), _opt_int(owner), _opt_int(slot))
        except (KeyError, TypeError, ValueError) as exc:
            raise LayoutError(f"a zone needs name, kind and polygon [[x, y], ...]: {data!r} ({exc})") from None
        if len(polygon) < 3:
            raise LayoutError(f"zone {zone.name!r}: a polygon needs at least 3 corners")
        return zone


@dataclass(frozen=True)
class Seat:
    """Where a player sits: the point of the play area's edge in front of them, and the way they face."""

    index: int
    position: Point
    facing: float

    @property
    def inward(self) -> Point:
        """Unit vector from the seat into the table."""
        return _direction(self.facing)


@dataclass(frozen=True)
class Marker:
    """An ArUco marker (dictionary ``ARUCO_DICT``) lying on the table: id, centre and side length (mm)."""

    id: int
    centre: Point
    size: float = MARKER_MM

    @property
    def corners(self) -> tuple[Point, ...]:
        """Top-left, top-right, bottom-right, bottom-left: the order OpenCV's detector reports them in."""
        cx, cy, h = self.centre[0], self.centre[1], self.size / 2
        return (cx - h, cy - h), (cx + h, cy - h), (cx + h, cy + h), (cx - h, cy + h)


@dataclass(frozen=True)
class Layout:
    """A game's table: the play area's size, the seats, the zones and the corner markers."""

    game: str
    players: int
    zones: tuple[Zone, ...]
    seats: tuple[Seat, ...]
    table: tuple[float, float] = TABLE_MM
    markers: tuple[Marker, ...] = ()

    def zone(self, name: str) -> Zone:
        for zone in self.zones:
            if zone.name == name:
                return zone
        raise LayoutError(f"the {self.game} layout has no zone {name!r} (zones: {', '.join(self.names)})")

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(z.name for z in self.zones)

    def zone_at(self, point: Point) -> Zone | None:
        """The zone holding ``point`` (table mm), or None."""
        return next((z for z in self.zones if z.contains(point)), None)

    def to_json(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "players": self.players,
            "table": list(self.table),
            "seats": [{"index": s.index, "position": list(s.position), "facing": s.facing} for s in self.seats],
            "markers": [{"id": m.id, "centre": list(m.centre), "size": m.size} for m in self.markers],
            "zones": [z.to_json() for z in self.zones],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Layout:
        try:
            seats = tuple(
                Seat(int(s["index"]), (float(s["position"][0]), float(s["position"][1])), float(s["facing"]))
                for s in data["seats"]
            )
            markers = tuple(
                Marker(int(m["id"]), (float(m["centre"][0]), float(m["centre"][1])), float(m.get("size", MARKER_MM)))
                for m in data.get("markers", [])
            )
            table = (float(data["table"][0]), float(data["table"][1]))
            game, players, zones = str(data["game"]), int(data["players"]), data["zones"]
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            problem = f"{exc.__class__.__name__}: {exc}"
            raise LayoutError(f"a layout needs game, players, table, seats and zones ({problem})") from None
        if isinstance(data["players"], bool) or not isinstance(data["players"], int):
            raise LayoutError(f"'players' must be a whole number, not {data['players']!r}")
        if len(seats) != players:
            raise LayoutError(f"a layout for {players} players lists {len(seats)} seats")
        if min(table) <= 0:
            raise LayoutError(f"'table' must be the play area's width and depth in mm, not {list(table)}")
        ids = [m.id for m in markers]
        if len(set(ids)) != len(ids):
            raise LayoutError(f"marker ids repeat: {ids}")
        layout = cls(game, players, tuple(Zone.from_json(z) for z in zones), seats, table, markers)
        layout.check_zones()
        return layout

    def check_zones(self) -> None:
        """The zones are the game's own (:func:`default_layout`): each once, of its kind, seat and place. Only their
        outlines may move: a zone named twice (a block copied and not renamed) put one player's cards on another's
        pile, and a missing one lost a player's cards, without a word."""
        names = [zone.name for zone in self.zones]
        twice = sorted({name for name in names if names.count(name) > 1})
        if twice:
            raise LayoutError(f"zone {twice[0]!r} is listed twice: each zone once")
        expected = {zone.name: zone for zone in default_layout(self.game, self.players).zones}
        unknown = [name for name in names if name not in expected]
        if unknown:
            raise LayoutError(f"{self.game} has no zone {unknown[0]!r} (its zones: {', '.join(expected)})")
        missing = [name for name in expected if name not in names]
        if missing:
            raise LayoutError(f"zone {missing[0]!r} is missing: the camera needs every zone of {self.game}")
        for zone in self.zones:
            want = expected[zone.name]
            if (zone.kind, zone.owner, zone.slot) != (want.kind, want.owner, want.slot):
                raise LayoutError(
                    f"zone {zone.name!r} must keep kind = {want.kind!r}, owner = {want.owner}, slot = {want.slot} "
                    "(only its polygon may change)"
                )

    def to_toml(self) -> str:
        """The layout as TOML (read back by :meth:`from_toml`)."""
        lines = [f"game = {json.dumps(self.game)}", f"players = {self.players}", f"table = {_toml(self.table)}", ""]
        for seat in self.seats:
            lines += [
                "[[seats]]",
                f"index = {seat.index}",
                f"position = {_toml(seat.position)}",
                f"facing = {seat.facing}",
                "",
            ]
        for marker in self.markers:
            lines += [
                "[[markers]]",
                f"id = {marker.id}",
                f"centre = {_toml(marker.centre)}",
                f"size = {marker.size}",
                "",
            ]
        for zone in self.zones:
            lines += ["[[zones]]", f"name = {json.dumps(zone.name)}", f"kind = {json.dumps(zone.kind)}"]
            lines += [f"{k} = {v}" for k, v in (("owner", zone.owner), ("slot", zone.slot)) if v is not None]
            lines += [f"polygon = [{', '.join(_toml(p) for p in zone.polygon)}]", ""]
        return "\n".join(lines)

    @classmethod
    def from_toml(cls, text: str) -> Layout:
        try:
            return cls.from_json(tomllib.loads(text))
        except tomllib.TOMLDecodeError as exc:
            raise LayoutError(f"not a TOML layout: {exc}") from None

    @classmethod
    def from_text(cls, text: str) -> Layout:
        """A layout from JSON or TOML text."""
        try:
            data = json.loads(text)
        except json.JSONDecodeError:
            return cls.from_toml(text)
        if not isinstance(data, dict):
            raise LayoutError("a JSON layout must be an object")
        return cls.from_json(data)


def _opt_int(value: Any) -> int | None:
    return None if value is None else int(value)


def _toml(point: tuple[float, float]) -> str:
    return f"[{point[0]!r}, {point[1]!r}]"


# -- geometry -------------------------------------------------------------------------------------------
def _direction(angle: float) -> Point:
    """The unit vector a card at ``angle`` points its top to (angle 0: towards north, -y)."""
    r = math.radians(angle)
    return math.sin(r), -math.cos(r)


def _rect(centre: Point, width: float, depth: float, angle: float) -> tuple[Point, ...]:
    """A rectangle facing ``angle``: corners near-left, near-right, far-right, far-left (rounded to 0.1 mm)."""
    r = math.radians(angle)
    c, s = math.cos(r), math.sin(r)
    local = ((-width / 2, depth / 2), (width / 2, depth / 2), (width / 2, -depth / 2), (-width / 2, -depth / 2))
    return tuple((round(centre[0] + x * c - y * s, 1), round(centre[1] + x * s + y * c, 1)) for x, y in local)


def _ring(seat_angle: float, rx: float, ry: float, table: tuple[float, float] = TABLE_MM) -> Point:
    """The point at ``seat_angle`` on an ellipse round the table's centre (angle 0: south)."""
    r = math.radians(seat_angle)
    return table[0] / 2 - rx * math.sin(r), table[1] / 2 + ry * math.cos(r)


def _seat_angle(seat: int, players: int) -> float:
    return round(seat * 360 / players, 6) % 360


def _seats(players: int, table: tuple[float, float] = TABLE_MM) -> tuple[Seat, ...]:
    """Each seat's point on the play area's edge, on the ray from the centre (clockwise from south)."""
    seats = []
    w, h = table
    for seat in range(players):
        angle = _seat_angle(seat, players)
        dx, dy = -math.sin(math.radians(angle)), math.cos(math.radians(angle))
        reach = min(w / 2 / abs(dx) if abs(dx) > 1e-9 else math.inf, h / 2 / abs(dy) if abs(dy) > 1e-9 else math.inf)
        seats.append(Seat(seat, (round(w / 2 + dx * reach, 1), round(h / 2 + dy * reach, 1)), angle))
    return tuple(seats)


def _markers(table: tuple[float, float] = TABLE_MM) -> tuple[Marker, ...]:
    a = MARKER_INSET_MM + MARKER_MM / 2
    w, h = table
    return tuple(Marker(i, c) for i, c in enumerate(((a, a), (w - a, a), (w - a, h - a), (a, h - a))))


def _along(centre: Point, angle: float, offset: float) -> Point:
    """``centre`` moved ``offset`` mm to the right of a player facing ``angle``."""
    r = math.radians(angle)
    return centre[0] + offset * math.cos(r), centre[1] + offset * math.sin(r)


# -- the games' default layouts -------------------------------------------------------------------------
PILE = (110.0, 130.0)  # a card with room for the small turn and offset a card lands with


def _snap(players: int) -> list[Zone]:
    """Each player's face-up pile in front of them, the Snap Pot in the middle."""
    zones = [Zone("pot", _rect((500.0, 350.0), 130, 150, 0), "pot")]
    size = PILE if players <= 8 else (95.0, 115.0)  # a tighter ring of piles for many players
    for seat in range(players):
        angle = _seat_angle(seat, players)
        zones.append(Zone(f"face_up/{seat}", _rect(_ring(angle, 365, 250), *size, angle), "pile", seat))
    return zones


def _spit(players: int) -> list[Zone]:
    """Five stock piles in a row before each player (0 on the player's left), two spit piles between."""
    zones = [Zone(f"spit/{p}", _rect((420.0 + 160 * p, 350.0), *PILE, 0), "spit", None, p) for p in (0, 1)]
    for seat in range(players):
        angle = _seat_angle(seat, players)
        row = _ring(angle, 0, 230)
        for slot in range(5):
            centre = _along(row, angle, (slot - 2) * 125)
            zones.append(Zone(f"stock/{seat}/{slot}", _rect(centre, 115, 135, angle), "stock", seat, slot))
    return zones


def _spades(players: int) -> list[Zone]:
    """A trick spot before each player in the middle; each team's won tricks at its first player's right."""
    zones = []
    for seat in range(players):
        angle = _seat_angle(seat, players)
        zones.append(Zone(f"trick/{seat}", _rect(_ring(angle, 125, 100), 100, 120, angle), "trick", seat))
    zones.append(Zone("won/0", _rect((760.0, 580.0), 150, 150, 0), "won", 0))
    zones.append(Zone("won/1", _rect((145.0, 195.0), 150, 150, 90), "won", 1))
    return zones


def _push(players: int) -> list[Zone]:
    """Each player's melds in a strip before them; the stock and the discard pile in the middle."""
    zones = [
        Zone("stock", _rect((435.0, 350.0), *PILE, 0), "stock"),
        Zone("discard", _rect((565.0, 350.0), *PILE, 0), "discard"),
    ]
    for seat in range(players):
        angle = _seat_angle(seat, players)
        zones.append(Zone(f"melds/{seat}", _rect(_ring(angle, 385, 235), 540, 200, angle), "melds", seat))
    return zones


def _ten(players: int) -> list[Zone]:
    """The tableau (the active player's row of drawn cards) and the market in the middle; an area per player."""
    zones = [
        Zone("market", _rect((500.0, 265.0), 460, 110, 0), "market"),
        Zone("tableau", _rect((500.0, 395.0), 460, 120, 0), "tableau"),
    ]
    for seat in range(players):
        angle = _seat_angle(seat, players)
        zones.append(Zone(f"area/{seat}", _rect(_ring(angle, 395, 285), 240, 110, angle), "area", seat))
    return zones


_BUILDERS = {"snap": _snap, "spit": _spit, "spades": _spades, "push": _push, "ten": _ten}


def default_layout(game: str, players: int, markers: bool = True) -> Layout:
    """The default zones of ``game`` for ``players`` players (markers at the corners unless ``markers=False``)."""
    if game not in GAMES:
        raise LayoutError(f"no default layout for {game!r} (games: {', '.join(GAMES)})")
    allowed = GAMES[game]
    if players not in allowed:
        want = f"{allowed.start}" if len(allowed) == 1 else f"{allowed.start} to {allowed.stop - 1}"  # not "4 to 4"
        raise LayoutError(f"{game} is for {want} players, not {players}")
    zones = tuple(_BUILDERS[game](players))
    return Layout(game, players, zones, _seats(players), TABLE_MM, _markers() if markers else ())
