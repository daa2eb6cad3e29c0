"""The game screens' routes and the events they send (Flask test client): the clock a phone measures
its offset against, Snap press times (an earlier press that arrives later wins), and the bodies the
Spit, Ten and Push entry screens post, with bad input refused as a 4xx that writes nothing.

Expected scores are worked out by hand from the rules (RULES.md; docs/games/<game>.md).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from tests.web.conftest import new_game, phone, post_event, with_token
from web.app import hub, store

ROOT = Path(__file__).resolve().parents[2]
SCREENS = ["snap", "spit", "ten", "push"]


class Clock:
    """The server's clock, moved by hand (ms)."""

    def __init__(self, now: int = 5_000_000) -> None:
        self.now = now

    def __call__(self) -> int:
        return self.now


@pytest.fixture
def clock(app: Flask) -> Clock:
    fake = Clock()
    hub(app).clock = fake
    return fake


def player_of(app: Flask, game_id: str) -> FlaskClient:
    record = store(app).game(game_id)
    assert record is not None
    return phone(app, record.player_token)


def ok(client: FlaskClient, game_id: str, **body: Any) -> dict[str, Any]:
    response = post_event(client, game_id, **body)
    assert response.status_code == 201, response.get_json()
    result: dict[str, Any] = response.get_json()
    return result


def codes(result: dict[str, Any]) -> list[str]:
    return [r["code"] for r in result["rulings"]]


def refused(client: FlaskClient, game_id: str, app: Flask, status: int, message: str, **body: Any) -> None:
    before = len(store(app).events(game_id))
    response = post_event(client, game_id, **body)
    assert response.status_code == status, response.get_json()
    assert message in response.get_json()["error"]
    assert len(store(app).events(game_id)) == before


# -- the clock a phone measures its offset against ------------------------------------------------
def test_the_clock_route_gives_the_game_clock(app: Flask, host: FlaskClient, clock: Clock) -> None:
    gid = new_game(host)["id"]  # the game clock starts at 0 when the game is created
    clock.now += 4321
    response = player_of(app, gid).get(f"/api/games/{gid}/clock")
    assert response.status_code == 200
    assert response.get_json() == {"now": 4321}
    assert response.headers["Cache-Control"] == "no-store"  # never a cached (stale) time


def test_the_clock_route_needs_a_token_and_a_game(app: Flask, host: FlaskClient, guest: FlaskClient) -> None:
    gid = new_game(host)["id"]
    record = store(app).game(gid)
    assert record is not None
    assert guest.get(f"/api/games/{gid}/clock").status_code == 403
    assert "join link" in guest.get(f"/api/games/{gid}/clock").get_json()["error"]
    assert with_token(phone(app), record.viewer_token).get(f"/api/games/{gid}/clock").status_code == 200
    missing = host.get("/api/games/nosuchgame/clock")
    assert missing.status_code == 404 and "no game" in missing.get_json()["error"]
    assert host.post(f"/api/games/{gid}/clock", json={}).status_code == 405


# -- Snap: press times decide who called first ---------------------------------------------------
def snap_match(app: Flask, host: FlaskClient, **options: Any) -> tuple[str, FlaskClient]:
    """A Snap game (Alex deals, Beth turns first) with a match on the table: Beth 8S, Alex 8H."""
    gid = new_game(host, game="snap", players=["Alex", "Beth"], options=options)["id"]
    player = player_of(app, gid)
    ok(player, gid, type="deal", dealer="Alex")
    ok(player, gid, type="flip", player="Beth", card="8S")
    assert codes(ok(player, gid, type="flip", player="Alex", card="8H")) == ["match"]
    return gid, player


def test_snap_an_earlier_press_that_arrives_later_wins(app: Flask, host: FlaskClient, clock: Clock) -> None:
    gid, beth_phone = snap_match(app, host)
    alex_phone = player_of(app, gid)
    clock.now += 10_000  # game time 10 000 ms
    first_to_arrive = ok(beth_phone, gid, type="call", player="Beth", kind="snap", ts=9_900)
    assert codes(first_to_arrive) == ["call_heard"]
    clock.now += 300  # Alex's message took longer on the Wi-Fi
    second = ok(alex_phone, gid, type="call", player="Alex", kind="snap", ts=9_500)
    assert codes(second) == ["call_heard"]
    assert [c["player"] for c in second["state"]["view"]["pending_calls"]] == ["Beth", "Alex"]
    settled = ok(beth_phone, gid, type="resolve")
    assert codes(settled)[0] == "snap_won" and settled["rulings"][0]["player"] == "Alex"
    assert codes(settled)[-1] == "late_call"  # Beth's call, 400 ms later, finds the match gone
    # each held 26; Alex takes Beth's face-up pile (one card) under his own
    assert settled["state"]["totals"] == {"Alex": 27, "Beth": 25}
    calls = [e for e in store(app).events(gid) if e.type == "call"]
    assert [(e.seq, e.data["player"], e.ts) for e in calls] == [(4, "Beth", 9_900), (5, "Alex", 9_500)]


def test_a_new_snap_game_waits_for_slower_phones_and_a_log_without_the_rule_does_not(
    app: Flask, host: FlaskClient
) -> None:
    """call_grace_ms came in session 35: a new game starts with 1500 (its export says so); a log without it replays
    as it was played (0), so a stored game's score does not change under it."""
    spec = next(s for s in host.get("/api/specs").get_json()["games"] if s["name"] == "snap")
    grace = next(o for o in spec["options"] if o["name"] == "call_grace_ms")
    assert (grace["default"], grace["fresh"]) == (0, 1500)
    gid = new_game(host, "snap", ["Alex", "Beth"])["id"]
    assert store(app).game(gid).options == {"call_grace_ms": 1500}
    assert '"options": {"call_grace_ms": 1500}' in host.get(f"/api/games/{gid}/export.jsonl").get_data(as_text=True)
    chosen = new_game(host, "snap", ["Alex", "Beth"], options={"call_grace_ms": 0})["id"]
    assert store(app).game(chosen).options == {}  # 0 is the default: not written, and replays as 0


def test_snap_without_press_times_arrival_decides(app: Flask, host: FlaskClient, clock: Clock) -> None:
    gid, player = snap_match(app, host)
    clock.now += 10_000
    ok(player, gid, type="call", player="Beth", kind="snap")  # ts: the server's clock on arrival, 10 000
    clock.now += 300
    ok(player, gid, type="call", player="Alex", kind="snap")  # 10 300: after Beth's window closed; it waits
    result = ok(player, gid, type="resolve")  # for slower phones' presses (LATE_GRACE_MS), then the phones settle
    assert codes(result)[0] == "snap_won" and result["rulings"][0]["player"] == "Beth"
    assert [e.ts for e in store(app).events(gid) if e.type == "call"] == [10_000, 10_300]
    assert result["state"]["totals"] == {"Alex": 25, "Beth": 27}


def test_snap_presses_within_the_tie_window_make_a_snap_pot(app: Flask, host: FlaskClient, clock: Clock) -> None:
    gid, player = snap_match(app, host)  # tie_window_ms 150 by default
    clock.now += 10_000
    ok(player, gid, type="call", player="Alex", kind="snap", ts=9_600)
    ok(player, gid, type="call", player="Beth", kind="snap", ts=9_700)
    result = ok(player, gid, type="resolve")
    assert codes(result)[0] == "snap_pot_formed"
    assert result["state"]["view"]["pot"]["cards"] == 2
    assert result["state"]["totals"] == {"Alex": 25, "Beth": 25}  # the two face-up cards went to the pot


def test_a_second_resolve_from_another_phone_changes_nothing(app: Flask, host: FlaskClient, clock: Clock) -> None:
    gid, player = snap_match(app, host)
    clock.now += 10_000
    ok(player, gid, type="call", player="Alex", kind="snap", ts=9_000)
    first = ok(player, gid, type="resolve")
    again = ok(phone(app, store(app).game(gid).player_token), gid, type="resolve")  # type: ignore[union-attr]
    assert codes(again) == [] and again["state"]["totals"] == first["state"]["totals"] == {"Alex": 27, "Beth": 25}


def test_snap_slap_tables_send_slaps(app: Flask, host: FlaskClient, clock: Clock) -> None:
    gid, player = snap_match(app, host, call_style="slap")
    clock.now += 10_000
    assert codes(ok(player, gid, type="call", player="Beth", kind="slap", ts=9_800)) == ["call_heard"]
    refused(player, gid, app, 400, "this table slaps", type="call", player="Alex", kind="snap", ts=9_900)


@pytest.mark.parametrize(
    ("ts", "status", "message"),
    [
        pytest.param("9500", 400, "'ts' must be a whole number of milliseconds", id="ts_as_text"),
        pytest.param(9500.5, 400, "'ts' must be a whole number of milliseconds", id="ts_with_a_fraction"),
        pytest.param(True, 400, "'ts' must be a whole number of milliseconds", id="ts_as_true"),
        pytest.param(
            10_000 - 30_001,
            400,
            "more than 30 s behind the game's clock (10000 ms): it reached tablecall late",
            id="ts_older_than_30_s",
        ),
        pytest.param(
            10_000 + 2_001, 400, "ahead of the game's clock (10000 ms): reload the page", id="ts_more_than_2_s_ahead"
        ),
    ],
)
def test_snap_bad_press_times_are_refused(
    app: Flask, host: FlaskClient, clock: Clock, ts: Any, status: int, message: str
) -> None:
    gid, player = snap_match(app, host)
    clock.now += 10_000
    refused(player, gid, app, status, message, type="call", player="Alex", kind="snap", ts=ts)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        pytest.param({"type": "call", "player": "Zed", "kind": "snap"}, "Zed", id="call_by_a_stranger"),
        pytest.param({"type": "call", "player": "Alex", "kind": "bingo"}, "kind", id="call_of_an_unknown_kind"),
        pytest.param({"type": "flip", "player": "Beth", "card": "8S"}, "8S", id="flip_of_a_card_already_up"),
        pytest.param({"type": "flip", "player": "Beth", "card": "1Z"}, "1Z", id="flip_of_no_card"),
        pytest.param({"type": "deal", "dealer": "Alex"}, "dealt already", id="a_second_deal"),
        pytest.param({"type": "turn_over", "player": "Alex"}, "face-down", id="turn_over_too_early"),
    ],
)
def test_snap_bad_entries_are_400(app: Flask, host: FlaskClient, body: dict[str, Any], message: str) -> None:
    gid, player = snap_match(app, host)
    refused(player, gid, app, 400, message, **body)


# -- Spit: what the entry screen sends ------------------------------------------------------------
def spit_playing(app: Flask, host: FlaskClient) -> tuple[str, FlaskClient]:
    gid = new_game(host, game="spit", players=["Alex", "Beth"])["id"]
    player = player_of(app, gid)
    ok(player, gid, type="layout", player="Alex", counts=[1, 2, 3, 4, 5], tops=["3S", "4S", "5S", "6S", "7S"])
    ok(player, gid, type="layout", player="Beth", counts=[1, 2, 3, 4, 5], tops=["10H", "JD", "AD", "5C", "6D"])
    opening = ok(player, gid, type="spit", cards={"Alex": "2C", "Beth": "9D"})
    assert opening["state"]["view"]["phase"] == "play"
    return gid, player


def test_spit_entry_bodies(app: Flask, host: FlaskClient) -> None:
    gid, player = spit_playing(app, host)
    view = ok(player, gid, type="play", player="Alex", card="3S", pile=0, **{"from": 0})["state"]["view"]
    assert view["spit_piles"][0] == {"top": "3S", "size": 2}
    ok(player, gid, type="play", player="Alex", card="4S", pile=0, **{"from": 1})
    revealed = ok(player, gid, type="reveal", player="Alex", stock=1, card="JS")["state"]["view"]
    assert revealed["players"]["Alex"]["stock"][1] == {"down": 0, "top": "JS"}
    moved = ok(player, gid, type="move", player="Alex", **{"from": 2, "to": 0})["state"]["view"]
    assert moved["players"]["Alex"]["stock"][0] == {"down": 0, "top": "5S"}
    assert moved["players"]["Alex"]["stock"][2] == {"down": 2, "top": None}  # to turn up next
    foul = ok(player, gid, type="play", player="Beth", card="6D", pile=0, **{"from": 4})
    assert codes(foul) == ["illegal_play"] and foul["rulings"][0]["severity"] == "foul"
    # Alex: 26 - 1 spit card - 3S - 4S = 23; Beth: 26 - 1 spit card - 6D = 24 (the card lies on the pile)
    assert foul["state"]["totals"] == {"Alex": 23, "Beth": 24}
    assert codes(ok(player, gid, type="slap", player="Beth", pile=1)) == ["early_slap"]
    assert codes(ok(player, gid, type="round_end", player="Beth")) == ["false_round_end"]
    assert codes(ok(player, gid, type="spit", cards={"Alex": "KH", "Beth": "QC"})) == ["false_spit"]


def test_spit_layout_with_fewer_piles_and_tops_left_to_turn(app: Flask, host: FlaskClient) -> None:
    gid = new_game(host, game="spit", players=["Alex", "Beth"])["id"]
    player = player_of(app, gid)
    # the screen sends null for a top not typed; a 0-count pile has no top
    result = ok(player, gid, type="layout", player="Alex", counts=[1, 2, 3, 4, 5], tops=["3S", None, None, None, None])
    stock = result["state"]["view"]["players"]["Alex"]["stock"]
    assert stock[0] == {"down": 0, "top": "3S"} and stock[1] == {"down": 2, "top": None}
    assert result["state"]["view"]["players"]["Alex"]["spit_cards"] == 11


@pytest.mark.parametrize(
    ("body", "message"),
    [
        pytest.param(
            {"type": "play", "player": "Alex", "card": "3S", "pile": 2, "from": 0}, "pile", id="no_third_pile"
        ),
        pytest.param({"type": "play", "player": "Alex", "card": "KD", "pile": 0}, "KD", id="card_not_on_the_stock"),
        pytest.param(
            {"type": "reveal", "player": "Alex", "stock": 0, "card": "9C"},
            "already shows 3S",
            id="reveal_a_face_up_top",
        ),
        pytest.param({"type": "move", "player": "Alex", "from": 7, "to": 0}, "from", id="move_from_no_pile"),
        pytest.param({"type": "slap", "player": "Alex", "pile": 5}, "pile", id="slap_no_pile"),
        pytest.param({"type": "spit", "cards": {"Zed": "2H"}}, "Zed", id="spit_by_a_stranger"),
        pytest.param(
            {"type": "layout", "player": "Alex", "counts": [1, 2, 3, 4, 5]}, "cannot lay out now", id="layout_in_play"
        ),
    ],
)
def test_spit_bad_entries_are_400(app: Flask, host: FlaskClient, body: dict[str, Any], message: str) -> None:
    gid, player = spit_playing(app, host)
    refused(player, gid, app, 400, message, **body)


# -- Ten: what the entry screen sends -------------------------------------------------------------
def test_ten_draws_prizes_auction_and_a_buy_paid_with_a_bust_token(app: Flask, host: FlaskClient) -> None:
    gid = new_game(host, game="ten", players=["Alex", "Beth"])["id"]
    player = player_of(app, gid)
    for card in ("G1", "G2", "$1", "G3"):
        last = ok(player, gid, type="draw", card=card)
    assert last["state"]["view"]["running_total"] == {"total": 5, "numbers": 6, "currency": 1}
    ok(player, gid, type="stop", prize="numbers")  # Alex takes G1 G2 G3; Beth gains the $1: 6 tokens
    ok(player, gid, type="pass_buy", player="Alex")
    ok(player, gid, type="draw", card="B7")
    auction = ok(player, gid, type="draw", card="*#")
    assert codes(auction)[-1] == "auction" and auction["state"]["view"]["auction"]["next"] == "Alex"
    ok(player, gid, type="auction_bid", player="Alex", bid=1)
    won = ok(player, gid, type="auction_bid", player="Beth", bid=2)  # the active player bids last
    assert "auction_won" in codes(won)
    bust = ok(player, gid, type="draw", card="B6")  # 7 + 6 = 13
    assert "bust_numbers" in codes(bust) and bust["state"]["view"]["market"] == ["B6", "B7"]
    for card in ("$2", "G4"):
        ok(player, gid, type="draw", card=card)
    ok(player, gid, type="stop", prize="numbers")  # Alex takes G4; Beth gains 2
    ok(player, gid, type="pass_buy", player="Alex")
    ok(player, gid, type="draw", card="B8")
    ok(player, gid, type="stop", prize="numbers")
    bought = ok(player, gid, type="buy", player="Beth", card="B7", pay={"tokens": 4, "bust_tokens": 1})
    beth = bought["state"]["view"]["players"]["Beth"]
    # Beth: 5 + 1 - 2 + 2 - 4 = 2 tokens, the bust token spent; B7 B8 + the full wild: a run of 3
    assert (beth["tokens"], beth["bust_tokens"], beth["points"]) == (2, 0, 3)
    assert bought["state"]["totals"] == {"Alex": 4, "Beth": 3}  # Alex: G1-G4
    ended = ok(player, gid, type="end")
    assert ended["state"]["view"]["ending"] is True


def test_a_correction_the_referee_rules_a_foul_is_refused_only_where_it_takes_a_score_back(
    app: Flask, host: FlaskClient
) -> None:
    """Alex's stop (R5 B3 taken) corrected to Beth's, out of turn, was taken: the stop counted for nothing, Alex's
    cards and points went, said by the foul's banner alone (correctfix, session 48). Refused with the referee's words,
    nothing written. A correction to a foul that changes the game is taken as before: Spit's illegal play (its card
    lies on the pile), Snap's false call (its penalty)."""
    gid = new_game(host, game="ten", players=["Alex", "Beth", "Cara"])["id"]
    player = player_of(app, gid)
    for body in ({"type": "draw", "card": "R5"}, {"type": "draw", "card": "B3"}, {"type": "stop", "prize": "numbers"}):
        ok(player, gid, player="Alex", **body)
    before = ok(player, gid, type="pass_buy", player="Alex")["state"]
    assert before["totals"]["Alex"] == 2 and before["view"]["players"]["Alex"]["cards"] == ["R5", "B3"]
    said = "this edit would make event 3 (stop) a foul that counts for nothing, and change the score: It is Alex's"
    event = {"type": "stop", "prize": "numbers", "player": "Beth"}
    refused(player, gid, app, 400, said, type="correct", target=3, event=event)
    after = host.get(f"/api/games/{gid}").get_json()["state"]
    assert (after["totals"], after["view"]["players"]) == (before["totals"], before["view"]["players"])

    gid, player = spit_playing(app, host)
    ok(player, gid, type="play", player="Alex", card="3S", pile=0, **{"from": 0})
    foul = ok(
        player,
        gid,
        type="correct",
        target=4,
        event={"type": "play", "player": "Alex", "card": "5S", "pile": 0, "from": 2},
    )
    assert codes(foul) == ["illegal_play"] and len(store(app).events(gid)) == 5

    gid = new_game(host, game="snap", players=["Alex", "Beth", "Cara"])["id"]
    player = player_of(app, gid)
    ok(player, gid, type="deal", dealer="Cara")
    for name, card in (("Alex", "KH"), ("Beth", "4H"), ("Cara", "5H"), ("Alex", "KD")):
        ok(player, gid, type="flip", player=name, card=card)
    assert codes(ok(player, gid, type="call", player="Alex", kind="snap")) == ["false_call"]
    false_call = ok(player, gid, type="correct", target=6, event={"type": "call", "player": "Beth", "kind": "snap"})
    assert codes(false_call) == ["false_call"] and false_call["state"]["totals"] == {"Alex": 19, "Beth": 16, "Cara": 17}


def test_a_foul_that_did_happen_is_kept_in_the_log_as_the_refusal_says(app: Flask, host: FlaskClient) -> None:
    """Alex's draw corrected to Beth's (she drew out of turn and put it back) is refused: it would be a foul that counts
    for nothing. The refusal says how to keep such a foul in the Log (review2 F2, session 49: it said only "edit it
    again, or undo"); doing what it says is taken, the foul is in the Log where the draw was, and the game is the one
    the undo alone gives."""
    gid = new_game(host, game="ten", players=["Alex", "Beth", "Cara"])["id"]
    player = player_of(app, gid)
    ok(player, gid, type="draw", player="Alex", card="R5")
    ok(player, gid, type="draw", player="Alex", card="B3")
    foul = {"type": "draw", "player": "Beth", "card": "B3"}
    keep = "To keep the foul in the Log, undo event 2, then insert it after event 2."
    said = "this edit would make event 2 (draw) a foul that counts for nothing"
    refused(player, gid, app, 400, said, type="correct", target=2, event=foul)
    response = post_event(player, gid, type="correct", target=2, event=foul)
    assert response.get_json()["error"].endswith(keep)
    undone = ok(player, gid, type="undo", target=2)["state"]
    kept = ok(player, gid, type="insert", after=2, event=foul)
    assert codes(kept) == ["out_of_turn"]
    assert (kept["state"]["totals"], kept["state"]["view"]) == (undone["totals"], undone["view"])
    last = store(app).events(gid)[-1]
    assert (last.type, last.data["after"], last.data["event"]) == ("insert", 2, foul)


def test_ten_an_auction_nobody_bids_on(app: Flask, host: FlaskClient) -> None:
    gid = new_game(host, game="ten", players=["Alex", "Beth"])["id"]
    player = player_of(app, gid)
    ok(player, gid, type="draw", card="R#")
    ok(player, gid, type="auction_pass", player="Beth")
    result = ok(player, gid, type="auction_pass", player="Alex")
    assert "auction_unsold" in codes(result) and result["state"]["view"]["phase"] == "draw"


def test_ten_score_only_final_collections(app: Flask, host: FlaskClient) -> None:
    gid = new_game(host, game="ten", players=["Alex", "Beth"])["id"]
    player = player_of(app, gid)
    result = ok(
        player,
        gid,
        type="final",
        players={
            "Alex": {"cards": ["R7", "R8", "R9", "G7"], "tokens": 3, "bust_tokens": 0},
            "Beth": {"cards": ["B7", "B8", "O7", "O8", "O9"], "tokens": 7, "bust_tokens": 1},
        },
    )
    # Alex: red 7-9 = 3, green 7 = 1 -> 4. Beth: blue 7-8 = 2, orange 7-9 = 3 -> 5
    assert result["state"]["totals"] == {"Alex": 4, "Beth": 5}
    assert result["state"]["winner"] == ["Beth"] and result["state"]["finished"] is True


@pytest.mark.parametrize(
    ("body", "message"),
    [
        pytest.param({"type": "draw", "card": "X9"}, "X9", id="draw_no_such_card"),
        pytest.param({"type": "stop", "prize": "everything"}, "prize", id="stop_unknown_prize"),
        pytest.param({"type": "buy", "player": "Alex", "card": "B7"}, "not in the market", id="buy_not_in_market"),
        pytest.param(
            {"type": "auction_bid", "player": "Alex", "bid": 2, "pay": {"tokens": 9}}, "tokens", id="pay_more_than_held"
        ),
        pytest.param({"type": "auction_bid", "player": "Alex", "bid": 2, "pay": [2]}, "'pay'", id="pay_not_an_object"),
        pytest.param(
            {"type": "final", "players": {"Alex": {"cards": []}}}, "every player", id="final_missing_a_player"
        ),
    ],
)
def test_ten_bad_entries_are_400(app: Flask, host: FlaskClient, body: dict[str, Any], message: str) -> None:
    gid = new_game(host, game="ten", players=["Alex", "Beth"])["id"]
    player = player_of(app, gid)
    if body["type"] == "final":  # a score-only game: nothing before it
        refused(player, gid, app, 400, message, **body)
        return
    ok(player, gid, type="draw", card="G1")
    ok(player, gid, type="stop", prize="numbers")  # Alex may buy: the market is empty
    if body["type"] == "auction_bid":
        ok(player, gid, type="pass_buy", player="Alex")
        ok(player, gid, type="draw", card="*#")  # Beth draws a wild: Alex bids first
    refused(player, gid, app, 400, message, **body)


# -- Push: what the entry screen sends, and editing a deal's hands ---------------------------------
PUSH = ["Alex", "Beth", "Charlie", "David"]
AC, BD = "Alex & Charlie", "Beth & David"


def push_melded(app: Flask, host: FlaskClient) -> tuple[str, FlaskClient]:
    gid = new_game(host, game="push", players=PUSH)["id"]
    player = player_of(app, gid)
    ok(player, gid, type="deal", dealer="Alex", upcard="6D")
    ok(player, gid, type="push", player="Beth")
    ok(player, gid, type="draw", player="Beth", **{"from": "stock"})
    ok(player, gid, type="discard", player="Beth", card="10S")
    ok(player, gid, type="draw", player="Charlie", **{"from": "discard"})
    melds = [
        {"kind": "set", "cards": ["10S", "10H", "JK"], "wilds": {"JK": "10C"}},
        {"kind": "set", "cards": ["6D", "6S", "6C"]},
    ]
    result = ok(player, gid, type="meld", player="Charlie", melds=melds)
    assert codes(result) == []
    table = result["state"]["view"]["melds"]
    assert [(m["number"], m["owner"], m["stands_for"]) for m in table] == [
        (1, "Charlie", ["10S", "10H", "10"]),  # in a set a wild stands for the rank
        (2, "Charlie", ["6D", "6S", "6C"]),
    ]
    ok(player, gid, type="discard", player="Charlie", card="4H")
    return gid, player


HANDS = {
    "Alex": ["KC", "KS", "KD", "3C", "3D", "9H"],  # 30 + 10 + 5 = 45
    "Beth": ["QH", "QD", "7C", "7S", "AH", "5D"],  # 20 + 10 + 15 + 5 = 50
    "Charlie": ["5C", "9S"],  # 10
    "David": ["4D", "8S", "8C", "JH", "2H", "AS"],  # 5 + 10 + 10 + 20 + 15 = 60
}


def test_push_a_deal_its_hands_and_its_correction(app: Flask, host: FlaskClient) -> None:
    gid, player = push_melded(app, host)
    ended = ok(player, gid, type="deal_end", hands=HANDS)
    assert codes(ended) == ["deal_end_early", "deal_scored"]  # stopped while in play: said, and scored
    assert ended["state"]["totals"] == {AC: 55, BD: 110}  # nobody went out: both teams score their hands
    # the History's Edit: Alex held the AH, not the 9H (a correction of that deal_end)
    seq = store(app).events(gid)[-1].seq
    fixed = ok(
        player,
        gid,
        type="correct",
        target=seq,
        event={"type": "deal_end", "hands": {**HANDS, "Alex": ["KC", "KS", "KD", "3C", "3D", "AH"]}},
    )
    assert fixed["state"]["totals"] == {AC: 65, BD: 110}
    entries = player.get(f"/api/games/{gid}/log").get_json()["entries"]
    assert [(e["status"], e.get("row")) for e in entries[-2:]] == [("corrected", 1), ("meta", None)]


def test_push_score_only_deal_with_a_player_out(app: Flask, host: FlaskClient) -> None:
    gid = new_game(host, game="push", players=PUSH)["id"]
    player = player_of(app, gid)
    hands = {"Alex": [], "Beth": ["JK", "2C"], "Charlie": ["AH"], "David": ["KS", "3H"]}
    result = ok(player, gid, type="deal_end", hands=hands, out="Alex")
    # Alex out: Alex & Charlie score 0; Beth & David: 20 + 20 + 10 + 5 = 55
    assert result["state"]["totals"] == {AC: 0, BD: 55}
    assert result["state"]["history"][0]["out"] == "Alex"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        pytest.param(
            {
                "type": "meld",
                "player": "David",
                "melds": [{"kind": "set", "cards": ["KS", "KH", "JK"], "wilds": {"2C": "KD"}}],
            },
            "not among the cards",
            id="wilds_name_a_card_not_in_the_meld",
        ),
        pytest.param(
            {"type": "meld", "player": "David", "melds": [{"kind": "row", "cards": ["KS"]}]}, "kind", id="meld_kind"
        ),
        pytest.param(
            {"type": "layoff", "player": "David", "meld": 9, "cards": ["10D"]}, "meld", id="layoff_on_no_meld"
        ),
        pytest.param(
            {"type": "draw", "player": "David", "from": "discard", "card": "KS"}, "not KS", id="draw_wrong_discard"
        ),
        pytest.param(
            {"type": "deal_end", "hands": {**HANDS, "Alex": ["KC"]}, "out": "Alex"},
            "holds no cards",
            id="out_with_cards",
        ),
        pytest.param(
            {"type": "deal", "dealer": "Alex", "upcard": "5H"}, "has not been scored", id="deal_during_a_deal"
        ),
    ],
)
def test_push_bad_entries_are_400(app: Flask, host: FlaskClient, body: dict[str, Any], message: str) -> None:
    gid, player = push_melded(app, host)
    refused(player, gid, app, 400, message, **body)


# -- the screens themselves ---------------------------------------------------------------------------
@pytest.mark.parametrize("game", SCREENS)
def test_each_game_screen_is_served_and_loads_nothing_from_outside(host: FlaskClient, game: str) -> None:
    with host.get(f"/static/js/games/{game}.js") as response:
        assert response.status_code == 200 and "javascript" in response.mimetype
        source = response.get_data(as_text=True)
    for module in re.findall(r"^import .* from '([^']+)';", source, flags=re.M):
        assert module.startswith("./") or module.startswith("../"), module
    assert "innerHTML" not in source and "http" not in source  # text only; no CDN
    assert f"import {game} from './{game}.js';" in (ROOT / "web/static/js/games/index.js").read_text()


@pytest.mark.parametrize(
    ("game", "players"),
    [("snap", ["Alex", "<b>Bo</b>"]), ("spit", ["Alex", "<b>Bo</b>"]), ("ten", ["Alex", "<b>Bo</b>"]),
     ("push", ["Alex", "<b>Bo</b>", "Cy", "Di"])],
)  # fmt: skip
def test_each_game_page_escapes_names(app: Flask, host: FlaskClient, game: str, players: list[str]) -> None:
    gid = new_game(host, game=game, players=players)["id"]
    page = player_of(app, gid).get(f"/g/{gid}").get_data(as_text=True)
    assert "<b>Bo</b>" not in page and "&lt;b&gt;Bo&lt;/b&gt;" in page
    assert 'id="entry"' in page  # a player gets the Enter tab, which the game's screen fills
