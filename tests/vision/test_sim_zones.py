"""The default zone layouts: every game's zones fit the table, do not overlap, face their owners, round-trip."""

from __future__ import annotations

import json
import math
from itertools import combinations
from typing import Any

import pytest

from vision.zones import CARD_MM, GAMES, TABLE_MM, Layout, LayoutError, Zone, default_layout

LAYOUTS = [(game, players) for game, allowed in GAMES.items() for players in allowed]
EXPECTED_NAMES = {
    "snap": lambda n: {"pot", *(f"face_up/{s}" for s in range(n))},
    "spit": lambda n: {"spit/0", "spit/1", *(f"stock/{s}/{k}" for s in range(n) for k in range(5))},
    "spades": lambda n: {"won/0", "won/1", *(f"trick/{s}" for s in range(n))},
    "push": lambda n: {"stock", "discard", *(f"melds/{s}" for s in range(n))},
    "ten": lambda n: {"market", "tableau", *(f"area/{s}" for s in range(n))},
}


def _separated(a: tuple[tuple[float, float], ...], b: tuple[tuple[float, float], ...]) -> bool:
    """Separating-axis test for two convex polygons (touching counts as separated)."""
    for poly in (a, b):
        for (x0, y0), (x1, y1) in zip(poly, poly[1:] + poly[:1], strict=True):
            nx, ny = y0 - y1, x1 - x0
            pa = [nx * x + ny * y for x, y in a]
            pb = [nx * x + ny * y for x, y in b]
            if max(pa) <= min(pb) + 1e-6 or max(pb) <= min(pa) + 1e-6:
                return True
    return False


@pytest.mark.parametrize(("game", "players"), LAYOUTS, ids=[f"{g}-{n}" for g, n in LAYOUTS])
def test_zones_lie_on_the_table_apart_from_each_other_and_the_markers(game: str, players: int) -> None:
    layout = default_layout(game, players)
    assert {z.name for z in layout.zones} == EXPECTED_NAMES[game](players)
    assert len(layout.names) == len(set(layout.names))
    for zone in layout.zones:
        assert all(0 <= x <= TABLE_MM[0] and 0 <= y <= TABLE_MM[1] for x, y in zone.polygon), zone.name
    for a, b in combinations(layout.zones, 2):
        assert _separated(a.polygon, b.polygon), f"{a.name} overlaps {b.name}"
    assert len(layout.markers) == 4
    for zone in layout.zones:
        for marker in layout.markers:
            assert _separated(zone.polygon, marker.corners), f"{zone.name} covers marker {marker.id}"


@pytest.mark.parametrize(("game", "players"), LAYOUTS, ids=[f"{g}-{n}" for g, n in LAYOUTS])
def test_owned_zones_face_their_owner_and_hold_a_card(game: str, players: int) -> None:
    layout = default_layout(game, players)
    for zone in layout.zones:
        width, depth = zone.size
        assert (width >= CARD_MM[0] + 20 and depth >= CARD_MM[1] + 20) or zone.kind in ("tableau", "market", "area")
        if zone.owner is not None and zone.kind != "won":
            seat = layout.seats[zone.owner]
            assert zone.angle == pytest.approx(seat.facing, abs=0.1), zone.name  # corners are rounded to 0.1 mm
            # the zone lies on its owner's side of the table: closer to them than to the seat opposite
            opposite = layout.seats[(zone.owner + players // 2) % players] if players > 1 else None
            if opposite is not None and opposite.index != seat.index:
                assert math.dist(zone.centre, seat.position) < math.dist(zone.centre, opposite.position), zone.name


def test_seats_go_clockwise_from_the_camera_side() -> None:
    layout = default_layout("spades", 4)
    south, west, north, east = (s.position for s in layout.seats)
    assert south == (500.0, 700.0) and west == (0.0, 350.0) and north == (500.0, 0.0) and east == (1000.0, 350.0)
    for seat in layout.seats:  # each player faces into the table
        ix, iy = seat.inward
        inside = (seat.position[0] + 100 * ix, seat.position[1] + 100 * iy)
        assert 0 < inside[0] < TABLE_MM[0] and 0 < inside[1] < TABLE_MM[1]


def test_spit_stock_piles_count_from_each_players_left() -> None:
    layout = default_layout("spit", 2)
    south = [layout.zone(f"stock/0/{k}").centre[0] for k in range(5)]
    north = [layout.zone(f"stock/1/{k}").centre[0] for k in range(5)]
    assert south == sorted(south) and north == sorted(north, reverse=True)
    assert layout.zone("stock/1/2").slot == 2 and layout.zone("spit/1").slot == 1


def test_spades_won_zones_belong_to_teams() -> None:
    layout = default_layout("spades", 4)
    assert (layout.zone("won/0").owner, layout.zone("won/1").owner) == (0, 1)
    assert {layout.zone(f"trick/{s}").owner for s in range(4)} == {0, 1, 2, 3}


def test_contains_and_zone_at() -> None:
    layout = default_layout("snap", 3)
    pot = layout.zone("pot")
    assert pot.contains(pot.centre) and pot.contains(pot.polygon[0])
    assert not pot.contains((pot.centre[0] + 200, pot.centre[1]))
    assert layout.zone_at(layout.zone("face_up/2").centre) == layout.zone("face_up/2")
    assert layout.zone_at((5.0, 5.0)) is None


@pytest.mark.parametrize(("game", "players"), LAYOUTS, ids=[f"{g}-{n}" for g, n in LAYOUTS])
def test_a_card_just_outside_each_edge_of_a_zone_is_not_in_it(game: str, players: int) -> None:
    """Every edge bounds its zone, the closing one (far-left to near-left) too: with it unchecked, a card lying left of
    Snap's pot as the camera sees it was taken for a card on the pot, and so was every card on the pile of the player
    on the camera's left (face_up/1 of 4)."""
    layout = default_layout(game, players)
    for zone in layout.zones:
        assert layout.zone_at(zone.centre) == zone, zone.name
        cx, cy = zone.centre
        for (x0, y0), (x1, y1) in zip(zone.polygon, zone.polygon[1:] + zone.polygon[:1], strict=True):
            mx, my = (x0 + x1) / 2, (y0 + y1) / 2
            out = math.dist((mx, my), (cx, cy))
            within, beyond = ((cx + (mx - cx) * (out + d) / out, cy + (my - cy) * (out + d) / out) for d in (-5, 5))
            assert zone.contains(within), f"{zone.name}: {within} lies 5 mm inside the edge {(x0, y0)}-{(x1, y1)}"
            assert not zone.contains(beyond), f"{zone.name}: {beyond} lies outside the edge {(x0, y0)}-{(x1, y1)}"


def test_a_zone_listed_the_other_way_round_still_holds_its_edges() -> None:
    """A hand-drawn zone whose corners go round the other way (only the polygon may change) holds the same points."""
    pot = default_layout("snap", 4).zone("pot")
    turned = Zone(pot.name, pot.polygon[::-1], pot.kind)
    for (x0, y0), (x1, y1) in zip(pot.polygon, pot.polygon[1:] + pot.polygon[:1], strict=True):
        edge = ((x0 + x1) / 2, (y0 + y1) / 2)
        assert pot.contains(edge) and turned.contains(edge), edge
    assert turned.contains(pot.centre) and not turned.contains((pot.centre[0] - 200, pot.centre[1]))


@pytest.mark.parametrize(("game", "players"), [("snap", 5), ("spit", 2), ("spades", 4), ("push", 4), ("ten", 3)])
def test_layouts_round_trip_through_json_and_toml(game: str, players: int) -> None:
    layout = default_layout(game, players)
    assert Layout.from_json(json.loads(json.dumps(layout.to_json()))) == layout
    assert Layout.from_toml(layout.to_toml()) == layout
    assert Layout.from_text(layout.to_toml()) == layout
    assert Layout.from_text(json.dumps(layout.to_json())) == layout
    bare = default_layout(game, players, markers=False)
    assert bare.markers == () and Layout.from_toml(bare.to_toml()) == bare


@pytest.mark.parametrize(
    ("game", "players", "message"),
    [
        pytest.param("poker", 4, "no default layout for 'poker'", id="unknown_game"),
        pytest.param("spades", 3, "spades is for 4 players, not 3", id="spades_needs_four"),
        pytest.param("snap", 13, "snap is for 2 to 12 players, not 13", id="snap_at_most_twelve"),
        pytest.param("ten", 0, "ten is for 1 to 5 players, not 0", id="ten_at_least_one"),
    ],
)
def test_no_layout_for_unknown_games_or_player_counts(game: str, players: int, message: str) -> None:
    with pytest.raises(LayoutError, match=message):
        default_layout(game, players)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        pytest.param('{"game": "snap"}', "a layout needs game, players, table, seats and zones", id="missing_keys"),
        pytest.param("[1, 2]", "a JSON layout must be an object", id="not_an_object"),
        pytest.param("game = ", "not a TOML layout", id="bad_toml"),
    ],
)
def test_malformed_layout_files_are_refused(text: str, message: str) -> None:
    with pytest.raises(LayoutError, match=message):
        Layout.from_text(text)


def test_a_zone_needs_a_polygon_and_the_seats_must_match_the_players() -> None:
    with pytest.raises(LayoutError, match="needs at least 3 corners"):
        Zone.from_json({"name": "x", "kind": "pile", "polygon": [[0, 0], [1, 1]]})
    data = default_layout("snap", 3).to_json()
    data["players"] = 4
    with pytest.raises(LayoutError, match="a layout for 4 players lists 3 seats"):
        Layout.from_json(data)
    with pytest.raises(LayoutError, match="has no zone 'moon'"):
        default_layout("snap", 3).zone("moon")


def _snap3() -> dict:
    return default_layout("snap", 3).to_json()


def _renamed(data: dict, old: str, new: str) -> dict:
    data["zones"] = [{**z, "name": new} if z["name"] == old else z for z in data["zones"]]
    return data


def _spit_slots_swapped() -> dict:
    """Alex's first two stock piles with their ``slot`` numbers swapped (a hand edit): accepted, the camera took the
    cards lying on them for moves between the two piles, two illegal moves that never happened in the log."""
    data = default_layout("spit", 2).to_json()
    slots = {"stock/0/0": 1, "stock/0/1": 0}
    data["zones"] = [{**z, "slot": slots[z["name"]]} if z["name"] in slots else z for z in data["zones"]]
    return data


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        pytest.param(lambda d: _renamed(d, "face_up/2", "face_up/1"), "'face_up/1' is listed twice", id="copied_block"),
        pytest.param(
            lambda d: {**d, "zones": [z for z in d["zones"] if z["name"] != "face_up/2"]},
            "zone 'face_up/2' is missing",
            id="deleted_zone",
        ),
        pytest.param(
            lambda d: {**d, "zones": [{**z, "owner": 7} if z["name"] == "face_up/2" else z for z in d["zones"]]},
            "zone 'face_up/2' must keep kind = 'pile', owner = 2",
            id="other_owner",
        ),
        pytest.param(lambda d: _renamed(d, "face_up/2", "face_up/9"), "snap has no zone 'face_up/9'", id="unknown"),
        pytest.param(
            lambda d: _spit_slots_swapped(),
            "zone 'stock/0/0' must keep kind = 'stock', owner = 0, slot = 0",
            id="spit_stock_slots_swapped",
        ),
        pytest.param(lambda d: {**d, "players": 3.7}, "'players' must be a whole number", id="players_float"),
        pytest.param(lambda d: {**d, "table": [0, 0]}, "'table' must be the play area's width", id="table_zero"),
        pytest.param(
            lambda d: {**d, "markers": [{**m, "id": 2} for m in d["markers"]]}, "marker ids repeat", id="marker_ids"
        ),
    ],
)
def test_a_hand_edited_layout_that_would_mislead_the_camera_is_refused(edit: Any, message: str) -> None:
    """A zone block copied and not renamed put Cara's flips on Beth's pile (three fouls and a match that never
    happened); a deleted zone lost her cards without a word (log audit, session 34)."""
    with pytest.raises(LayoutError, match=message):
        Layout.from_json(edit(_snap3()))
