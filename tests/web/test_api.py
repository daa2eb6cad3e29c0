"""The JSON API, route by route: what it answers, and that bad input and missing tokens get a clear 4xx
(never a 500, never a half-written event)."""

from __future__ import annotations

import csv
import io
import json
import sqlite3
import threading
import time
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from scorer.events import parse_log
from scorer.session import replay
from tests.web.conftest import new_game, phone, post_event
from web.app import hub, store
from web.commands import LanBases
from web.store import ConflictError

ROOT = Path(__file__).resolve().parents[2]


def events_of(app: Flask, game_id: str) -> list[dict[str, Any]]:
    return [e.to_json() for e in store(app).events(game_id)]


# -- specs and games ---------------------------------------------------------------------------
def test_specs_lists_installed_games_with_their_house_rules(host: FlaskClient) -> None:
    games = {g["name"]: g for g in host.get("/api/specs").get_json()["games"]}
    assert "spades" in games
    assert {o["name"] for o in games["spades"]["options"]} >= {"target", "bag_limit"}
    assert games["spades"]["teams"] is True


def test_host_creates_a_game_and_a_player_sees_it(app: Flask, host: FlaskClient, tally: dict[str, Any]) -> None:
    listed = host.get("/api/games").get_json()["games"]
    assert [g["id"] for g in listed] == [tally["id"]]
    assert listed[0]["role"] == "host"
    assert "player_token" not in listed[0]
    player = phone(app, tally["player_token"])
    assert [g["role"] for g in player.get("/api/games").get_json()["games"]] == ["player"]
    assert phone(app).get("/api/games").get_json()["games"] == []


def test_the_game_list_says_where_a_game_stands_after_each_entry(app: Flask, host: FlaskClient) -> None:
    """The game list's result (totals, over, who won) is kept between lists only while the game is as it was: a list
    read before an entry must not stand for the game after it (the home page said a game won was still going)."""
    gid = new_game(host, options={"target": 3})["id"]

    def result() -> dict[str, Any]:
        [listed] = host.get("/api/games").get_json()["games"]
        found: dict[str, Any] = listed["result"]
        return found

    assert (result()["totals"], result()["finished"]) == ({"Ann": 0, "Bo": 0}, False)
    assert post_event(host, gid, type="add", player="Ann", points=2).status_code == 201
    assert (result()["totals"], result()["finished"]) == ({"Ann": 2, "Bo": 0}, False)
    assert post_event(host, gid, type="add", player="Bo", points=1).status_code == 201
    assert post_event(host, gid, type="add", player="Ann", points=1).status_code == 201
    final = result()
    assert (final["totals"], final["finished"], final["winner_text"]) == ({"Ann": 3, "Bo": 1}, True, "Winner: Ann")


def test_create_keeps_only_the_house_rules_that_differ(app: Flask, host: FlaskClient) -> None:
    created = new_game(host, options={"target": 20}, title="Friday")
    record = store(app).game(created["id"])
    assert record is not None
    assert (record.options, record.title, record.players) == ({"target": 20}, "Friday", ("Ann", "Bo"))
    assert created["url"] == f"/g/{created['id']}"


BAD_GAMES = [
    pytest.param({"game": "chess", "players": ["A", "B"]}, "installed games", id="unknown_game"),
    pytest.param({"players": ["A", "B"]}, "installed games", id="missing_game"),
    pytest.param({"game": "tally"}, "list of names", id="missing_players"),
    pytest.param({"game": "tally", "players": "Ann"}, "list of names", id="players_not_a_list"),
    pytest.param({"game": "tally", "players": []}, "list of names", id="no_players"),
    pytest.param({"game": "tally", "players": ["Ann", "Ann"]}, "two players are called 'Ann'", id="duplicate_names"),
    pytest.param({"game": "tally", "players": ["Ann", "  "]}, "needs a name", id="blank_name"),
    pytest.param({"game": "tally", "players": ["Ann", 7]}, "player 2 must be a name (a text), not 7", id="not_text"),
    pytest.param({"game": "tally", "players": ["A" * 33]}, "too long", id="name_too_long"),
    pytest.param(  # it said "'player' is too long (400 characters; at most 320)" (the wording audit, session 40)
        {"game": "tally", "players": ["Ann", "B" * 400]},
        "player 2's name is too long: 400 characters, at most 32",
        id="name_far_too_long",
    ),
    pytest.param({"game": "tally", "players": ["Ann\x07"]}, "control characters", id="name_control_char"),
    pytest.param({"game": "tally", "players": ["1", "2", "3", "4", "5"]}, "1 to 4 players", id="too_many_players"),
    pytest.param(
        {"game": "tally", "players": ["Ann"], "options": {"target": 0}}, "from 1 to 100", id="option_out_of_range"
    ),
    pytest.param(
        {"game": "tally", "players": ["Ann"], "options": {"speed": 1}}, "no option 'speed'", id="unknown_option"
    ),
    pytest.param(
        {"game": "tally", "players": ["Ann"], "options": [1]}, "object of house rules", id="options_not_object"
    ),
    pytest.param({"game": "tally", "players": ["Ann"], "title": 5}, "'title' must be a text", id="title_not_text"),
    pytest.param(["tally"], "JSON object", id="body_not_object"),
    pytest.param({"game": "tally", "players": ["Alex", "alex"]}, "look like the same name", id="names_differ_by_case"),
    pytest.param(
        {"game": "tally", "players": ["Alex", "Al\u200bex"]}, "look like the same name", id="names_differ_invisibly"
    ),
    pytest.param(  # a zero-width space pasted from a chat: a blank name on every screen
        {"game": "tally", "players": ["Ann", "\u200b\u200c"]}, "every player needs a name", id="name_invisible"
    ),
    pytest.param(  # events naming "ကိုအောင်" were refused: "must be one of the players: ကိုအောင်, ..."
        {"game": "tally", "players": ["Ann", "ကိုအောင်\u200b"]}, "invisible character", id="name_ends_invisibly"
    ),
    pytest.param(  # the form cut a 33-code-point name mid-syllable without a word; the message named nobody
        {"game": "tally", "players": ["Ann", "ဒေါ်ခင်ခင်မြင့်မြင့်သန်းထွန်းရွှေ"]},
        "the name 'ဒေါ်ခင်ခင်မြင့်မြင့်...' is too long: 33 letters and marks, at most 32",
        id="name_too_long_in_myanmar_script",
    ),
    pytest.param({"game": "tally", "players": ["Ａlex", "Alex"]}, "look like the same name", id="names_full_width"),
    pytest.param(  # "Dan & Beth" read "naD & hteB", and everything after the name on its line turned round
        {"game": "tally", "players": ["Ann", "\u202eBeth"]}, "text-direction controls", id="name_right_to_left_override"
    ),
    pytest.param(
        {"game": "tally", "players": ["Ann"], "title": "Friday \u2067night"}, "text-direction", id="title_bidi_isolate"
    ),
    pytest.param(
        {"game": "spades", "players": ["a & b", "a", "c", "b & c"]}, "both teams would be called", id="team_names_clash"
    ),
    pytest.param(  # Play again after a game this server does not hold (it was a 500, "tablecall hit a bug")
        {"game": "tally", "players": ["Ann"], "again": "nosuchgame"},
        "'again' must be the id of a game on this server, not 'nosuchgame'",
        id="again_unknown_game",
    ),
    pytest.param(
        {"game": "tally", "players": ["Ann"], "again": 7}, "'again' must be the id of a game", id="again_not_text"
    ),
]


@pytest.mark.parametrize(("body", "message"), BAD_GAMES)
def test_create_refuses_bad_input_clearly(app: Flask, host: FlaskClient, body: Any, message: str) -> None:
    response = host.post("/api/games", json=body)
    assert response.status_code == 400
    assert message in response.get_json()["error"]
    assert store(app).games() == []


def test_create_needs_the_host(app: Flask, guest: FlaskClient, tally: dict[str, Any]) -> None:
    for client in (guest, phone(app, tally["player_token"])):
        response = client.post("/api/games", json={"game": "tally", "players": ["X"]})
        assert response.status_code == 403
        assert "only the host" in response.get_json()["error"]


def test_host_key_makes_another_device_a_host(app: Flask, guest: FlaskClient) -> None:
    guest.environ_base["HTTP_X_HOST_KEY"] = store(app).host_key
    assert guest.post("/api/games", json={"game": "tally", "players": ["X"]}).status_code == 201
    guest.environ_base["HTTP_X_HOST_KEY"] = "wrong"
    assert guest.post("/api/games", json={"game": "tally", "players": ["X"]}).status_code == 403


def test_loopback_by_a_domain_name_is_not_trusted(host: FlaskClient) -> None:
    """DNS rebinding: a page at evil.example resolving to 127.0.0.1 must not pose as the laptop."""
    response = host.post("/api/games", json={"game": "tally", "players": ["X"]}, base_url="http://evil.example:8000")
    assert response.status_code == 403
    assert (
        host.post("/api/games", json={"game": "tally", "players": ["X"]}, base_url="http://[::1]:8000").status_code
        == 201
    )


def test_a_caller_whose_address_is_not_an_ip_is_not_the_laptop(host: FlaskClient) -> None:
    """Only a loopback IP address is the laptop: an address that is no IP at all (a proxy's Unix socket) is not."""
    body = {"game": "tally", "players": ["X"]}
    assert host.post("/api/games", json=body, environ_base={"REMOTE_ADDR": "unix:/run/x.sock"}).status_code == 403
    assert host.post("/api/games", json=body, environ_base={"REMOTE_ADDR": "127.0.0.1"}).status_code == 201


def test_trust_loopback_can_be_switched_off(tmp_path: Any) -> None:
    from web.app import create_app

    app = create_app({"TESTING": True, "DATABASE": str(tmp_path / "x.db"), "TRUST_LOOPBACK": False})
    try:
        assert app.test_client().post("/api/games", json={"game": "tally", "players": ["X"]}).status_code == 403
    finally:
        store(app).close()


def test_game_snapshot_needs_a_token(app: Flask, guest: FlaskClient, tally: dict[str, Any]) -> None:
    response = guest.get(f"/api/games/{tally['id']}")
    assert response.status_code == 403
    assert "join link" in response.get_json()["error"]
    viewer = phone(app, tally["viewer_token"]).get(f"/api/games/{tally['id']}").get_json()
    assert viewer["role"] == "viewer"
    assert viewer["state"]["totals"] == {"Ann": 0, "Bo": 0}
    assert "player_token" not in viewer["game"]


def test_unknown_game_is_404(host: FlaskClient) -> None:
    for url in ("/api/games/nope", "/api/games/nope/log", "/api/games/nope/share", "/api/games/" + "x" * 40):
        response = host.get(url)
        assert response.status_code == 404
        assert "no game" in response.get_json()["error"]


def test_share_gives_the_join_links_to_the_host_only(app: Flask, host: FlaskClient, tally: dict[str, Any]) -> None:
    links = host.get(f"/api/games/{tally['id']}/share").get_json()
    assert links["player"] == [f"http://localhost/join/{tally['id']}?t={tally['player_token']}"]
    assert links["viewer"] == [f"http://localhost/join/{tally['id']}?t={tally['viewer_token']}"]
    app.config["PUBLIC_URLS"] = ["http://192.168.1.10:8000"]
    assert (
        host.get(f"/api/games/{tally['id']}/share").get_json()["player"][0].startswith("http://192.168.1.10:8000/join/")
    )
    assert phone(app, tally["player_token"]).get(f"/api/games/{tally['id']}/share").status_code == 403


def test_share_links_follow_the_laptop_s_address_when_the_wi_fi_gives_it_another(
    app: Flask, host: FlaskClient, tally: dict[str, Any]
) -> None:
    """`serve --lan` found the addresses once, at the start: a laptop given another address by the Wi-Fi (after a
    sleep, on another network) showed phones a QR code that led nowhere until tablecall started again. While the
    Wi-Fi is down for a moment (no address), the last ones found."""
    addresses = [["192.168.1.10"]]
    lan = LanBases(8000, find=lambda: addresses[0], every=0.0)
    app.config["PUBLIC_URLS"] = lan

    def bases() -> list[str]:
        links = host.get(f"/api/games/{tally['id']}/share").get_json()
        assert links["lan"] is True
        return [link.split("/join/")[0] for link in links["player"]]

    def settled() -> list[str]:  # (found again on a thread of its own: the answer after it)
        bases()
        ends = time.monotonic() + 5
        while lan._looking and time.monotonic() < ends:
            time.sleep(0.01)
        return bases()

    assert bases() == ["http://192.168.1.10:8000"]
    addresses[0] = ["10.0.0.7"]
    assert settled() == ["http://10.0.0.7:8000"]
    assert "http://10.0.0.7:8000" in host.get("/").get_data(as_text=True)
    addresses[0] = []
    assert settled() == ["http://10.0.0.7:8000"]


def test_the_laptop_s_addresses_are_looked_for_at_most_every_ten_seconds_and_no_page_waits_for_them() -> None:
    """Finding them may ask the name service: a slow one held every page asking meanwhile (the review, s43)."""
    calls: list[int] = []
    now = [100.0]
    slow = threading.Event()

    def find() -> list[str]:
        calls.append(1)
        if len(calls) > 1:
            slow.wait(10)
        return [f"192.168.1.{len(calls)}"]

    lan = LanBases(8000, find=find, clock=lambda: now[0])
    assert lan() == lan() == ["http://192.168.1.1:8000"] and len(calls) == 1
    now[0] += 10
    started = time.monotonic()
    assert lan() == lan() == ["http://192.168.1.1:8000"]  # the old ones at once, while the name service is slow
    assert time.monotonic() - started < 1 and len(calls) == 2
    slow.set()
    ends = time.monotonic() + 5
    while lan() != ["http://192.168.1.2:8000"] and time.monotonic() < ends:
        time.sleep(0.01)
    assert lan() == ["http://192.168.1.2:8000"] and len(calls) == 2


def test_a_look_for_the_laptop_s_addresses_that_fails_is_said_once_and_the_last_ones_kept(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """One raising something else than OSError (a host name IDNA cannot encode: UnicodeError) printed a thread's
    traceback every 10 s, and the first, the welcome's, stopped `serve --lan` (a review, session 43)."""
    raised: list[BaseException | None] = []
    monkeypatch.setattr(threading, "excepthook", lambda args: raised.append(args.exc_value))
    answers: list[Any] = [UnicodeError("label too long"), ["192.168.1.10"], ValueError("odd"), UnicodeError("again")]
    now = [100.0]

    def find() -> list[str]:
        answer = answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return list(answer)

    lan = LanBases(8000, find=find, clock=lambda: now[0])
    assert lan() == []  # (the welcome then says no address was found)
    seen = []
    for _ in range(3):
        now[0] += 10
        lan()
        ends = time.monotonic() + 5
        while lan._looking and time.monotonic() < ends:
            time.sleep(0.01)
        seen.append(lan())
    assert seen == [["http://192.168.1.10:8000"]] * 3 and not answers
    assert raised == []
    said = [r.getMessage() for r in caplog.records if "network addresses" in r.getMessage()]
    assert said == ["could not look up this computer's network addresses (UnicodeError: label too long); the ones "
                    "found before, if any, are kept"]  # fmt: skip


# -- events ------------------------------------------------------------------------------------
def test_player_enters_an_event_and_gets_rulings_and_state(app: Flask, tally: dict[str, Any]) -> None:
    player = phone(app, tally["player_token"])
    response = post_event(player, tally["id"], type="add", player="Bo", points=4)
    assert response.status_code == 201
    body = response.get_json()
    assert body["event"]["seq"] == 1 and body["event"]["source"] == "manual"
    assert body["rulings"][0]["code"] == "out_of_turn"
    assert body["state"]["totals"] == {"Ann": 0, "Bo": 4}
    assert events_of(app, tally["id"]) == [body["event"]]


def test_viewer_and_stranger_cannot_write(app: Flask, tally: dict[str, Any]) -> None:
    for client, message in ((phone(app, tally["viewer_token"]), "only players"), (phone(app), "join link")):
        response = post_event(client, tally["id"], type="add", player="Ann", points=1)
        assert response.status_code == 403
        assert message in response.get_json()["error"]
    assert phone(app, "forged-token").get(f"/api/games/{tally['id']}").status_code == 403
    assert events_of(app, tally["id"]) == []


def test_a_token_for_one_game_does_not_open_another(app: Flask, host: FlaskClient, tally: dict[str, Any]) -> None:
    other = new_game(host)
    assert (
        post_event(phone(app, tally["player_token"]), other["id"], type="add", player="Ann", points=1).status_code
        == 403
    )


BAD_EVENTS = [
    pytest.param({"type": "add", "player": "Zed", "points": 1}, "one of the players", id="unknown_player"),
    pytest.param({"type": "add", "player": "Ann"}, "'points' is missing", id="missing_field"),
    pytest.param({"type": "add", "player": "Ann", "points": 12}, "from 0 to 9", id="out_of_range"),
    pytest.param({"type": "add", "player": "Ann", "points": True}, "whole number", id="bool_for_number"),
    pytest.param({"type": "jump", "player": "Ann"}, "has no event 'jump'", id="unknown_type"),
    pytest.param({"player": "Ann", "points": 1}, "no 'type'", id="missing_type"),
    pytest.param({"type": "", "player": "Ann"}, "non-empty text", id="empty_type"),
    pytest.param({"type": "add", "seq": 9, "player": "Ann", "points": 1}, "leave out 'seq'", id="client_seq"),
    pytest.param(
        {"type": "add", "source": "vision", "player": "Ann", "points": 1}, "leave out 'source'", id="client_source"
    ),
    pytest.param({"type": "add", "player": "Ann", "points": 1, "ts": "soon"}, "'ts' must be", id="ts_not_number"),
    pytest.param(
        {"type": "add", "player": "Ann", "points": 1, "ts": 10**9}, "ahead of the game's clock", id="ts_future"
    ),
    pytest.param({"type": "undo", "target": 5}, "no earlier event 5", id="undo_missing_target"),
    pytest.param({"type": "undo"}, "'target' is missing", id="undo_without_target"),
    pytest.param({"type": "correct", "target": 1}, "must be the corrected event", id="correct_without_event"),
    pytest.param(
        {"type": "correct", "target": 1, "event": {"type": "undo", "target": 1}},
        "cannot hold another",
        id="correct_holding_undo",
    ),
    pytest.param(
        {"type": "correct", "target": 1, "event": {"type": "add", "player": "Zed", "points": 1}},
        "one of the players",
        id="correction_itself_malformed",
    ),
    pytest.param(
        {"type": "insert", "after": 7, "event": {"type": "add", "player": "Ann", "points": 1}},
        "no earlier event 7",
        id="insert_after_missing",
    ),
    pytest.param(
        {"type": "correct", "target": 1, "event": {"type": "add", "player": "Ann", "points": 1, "source": "vision"}},
        "leave out 'source' in the correct's event",
        id="correction_posing_as_the_camera",
    ),
    pytest.param(
        {"type": "insert", "after": 1, "event": {"type": "add", "player": "Bo", "points": 1, "seq": 9}},
        "leave out 'seq' in the insert's event",
        id="insert_with_its_own_number",
    ),
    pytest.param(
        {"type": "correct", "target": 1, "event": {"type": "add", "player": "Ann", "points": 1, "ts": 10**20}},
        "'ts' in the correct's event must be a time on the game's clock",
        id="correction_in_the_future",
    ),
    pytest.param(
        {"type": "correct", "target": 1, "event": {"type": "add", "player": "Ann", "points": 1, "ts": -5}},
        "'ts' in the correct's event must be a time on the game's clock",
        id="correction_before_the_game",
    ),
    pytest.param([1, 2], "JSON object", id="body_not_object"),
]


@pytest.mark.parametrize(("body", "message"), BAD_EVENTS)
def test_bad_events_are_refused_and_nothing_is_written(
    app: Flask, host: FlaskClient, tally: dict[str, Any], body: Any, message: str
) -> None:
    assert post_event(host, tally["id"], type="add", player="Ann", points=2).status_code == 201
    before = events_of(app, tally["id"])
    response = host.post(f"/api/games/{tally['id']}/events", json=body)
    assert response.status_code == 400, response.get_json()
    assert message in response.get_json()["error"]
    assert events_of(app, tally["id"]) == before
    after = host.get(f"/api/games/{tally['id']}").get_json()["state"]
    assert (after["seq"], after["totals"]) == (1, {"Ann": 2, "Bo": 0})


def test_a_refused_entry_is_not_named_by_the_number_the_next_event_takes(app: Flask, host: FlaskClient) -> None:
    """ "event 5 (play): 'JK' is a joker" named a #5 the Log then gave the next event logged; an undo that would leave a
    later event impossible was "event 6 (undo) would leave event 5 (reveal) impossible" (the wording audit, s40)."""
    gid = new_game(host, "spit", ["Alex", "Beth"])["id"]
    for body in (
        {"type": "layout", "player": "Alex", "counts": [1, 2, 3, 4, 5], "tops": ["3S", "4S", "5S", "6S", "7S"]},
        {"type": "layout", "player": "Beth", "counts": [1, 2, 3, 4, 5], "tops": ["3H", "4H", "5H", "6H", "7H"]},
        {"type": "spit", "cards": {"Alex": "2C", "Beth": "9D"}},
    ):
        assert post_event(host, gid, **body).status_code == 201
    refused = post_event(host, gid, type="play", player="Alex", card="JK", pile=0)
    assert refused.status_code == 400
    assert refused.get_json()["error"] == "'card': 'JK' is a joker; this game has no jokers"
    assert post_event(host, gid, type="play", player="Alex", card="4S", pile=0, **{"from": 1}).status_code == 201
    assert post_event(host, gid, type="reveal", player="Alex", stock=1, card="QC").status_code == 201
    refused = post_event(host, gid, type="undo", target=4)
    assert refused.status_code == 400
    assert refused.get_json()["error"].startswith(
        "this undo would leave event 5 (reveal) impossible: event 5 (reveal): "
    )
    # an insert's event is checked under the insert's number with its own type, and an undo's target before the
    # referee sees it: both still named event 6 (a review)
    inserted = {"type": "play", "player": "Alex", "card": "ZZ", "pile": 0}
    refused = post_event(host, gid, type="insert", after=3, event=inserted)
    assert refused.get_json()["error"] == "'card': 'ZZ' is not a card: 'Z' is not a rank (A, 2-10, J, Q, K)"
    assert post_event(host, gid, type="undo", target="x").get_json()["error"].startswith("'target' must be a whole")
    assert post_event(host, gid, type="flip(3)").get_json()["error"].startswith("Spit has no event 'flip(3)'")
    assert len(events_of(app, gid)) == 5


def test_a_long_input_is_not_echoed_whole(host: FlaskClient) -> None:
    """A 5,000-character card came back twice (10,000 characters on a phone's problem line), as did an unknown
    3,000-character event type, and a 5,000-character game id once (the wording audit, session 40)."""
    gid = new_game(host, "spades", ["Alex", "Beth", "Cara", "Dan"])["id"]
    for body in ({"type": "play", "player": "Beth", "card": "Q" * 5000}, {"type": "x" * 3000, "player": "Beth"}):
        response = post_event(host, gid, **body)
        assert response.status_code == 400 and len(response.get_json()["error"]) < 160, response.get_json()
    assert (
        "'QQQQQQQQQQQQQQQQQQQ…' is not a card"
        in post_event(host, gid, type="play", player="Beth", card="Q" * 5000).get_json()["error"]
    )
    response = host.get("/api/games/" + "it's" * 1250)
    assert response.status_code == 404 and response.get_json()["error"] == "there is no game 'it'sit'sit'sit'sit's…'"


def test_a_game_not_in_this_database_is_said_so_with_a_hint_of_another_file(
    app: Flask, host: FlaskClient, tally: dict[str, Any]
) -> None:
    """After a restore, a host who started without its --db saw last week's game answer "there is no game", as if its
    score were lost: it was in the other file (weeks audit, session 47, F6)."""
    response = host.get("/api/games/54af6fb2")
    assert response.status_code == 404
    assert response.get_json()["error"] == (
        "there is no game '54af6fb2' in this database: was tablecall started on another file, such as a restored "
        "backup (--db)?"
    )
    page = host.get("/g/54af6fb2")
    assert page.status_code == 404 and "such as a restored backup (--db)?" in page.get_data(as_text=True)
    assert phone(app, tally["player_token"]).get("/api/games/54af6fb2/log").status_code == 404


def test_writes_must_be_json(host: FlaskClient, tally: dict[str, Any]) -> None:
    url = f"/api/games/{tally['id']}/events"
    assert host.post(url, data="type=add").status_code == 415
    response = host.post(url, data="{not json", content_type="application/json")
    assert (response.status_code, response.get_json()["error"]) == (400, "the request body is not valid JSON")


RAW_BODIES = [  # each was a 500 ("tablecall hit a bug"), but null: "not valid JSON"
    pytest.param('{"type": "add", "x": ' + "[" * 3000 + "]" * 3000 + "}", "nested too deeply", id="deep_nesting"),
    pytest.param('{"type": "add", "player": "Ann", "points": 1, "note": "\\ud800"}', "lone surrogate", id="surrogate"),
    pytest.param("null", "must be a JSON object", id="null"),
    pytest.param(  # stored, it made the state, the Log and the page's data no JSON: every screen stopped following
        '{"type": "add", "player": "Ann", "points": 1, "note": NaN}', "holds NaN, which is not JSON", id="nan"
    ),
    pytest.param('{"type": "add", "player": "Ann", "points": 1, "x": -Infinity}', "-Infinity", id="infinity"),
    pytest.param('{"type": "add", "player": "Ann", "points": 1, "x": 1e999}', "1e999, a number too large", id="1e999"),
]


@pytest.mark.parametrize("route", ["events", "games", "import"])
@pytest.mark.parametrize(("raw", "message"), RAW_BODIES)
def test_bodies_json_cannot_hold_are_refused_with_the_reason(
    app: Flask, host: FlaskClient, tally: dict[str, Any], route: str, raw: str, message: str
) -> None:
    url = {"events": f"/api/games/{tally['id']}/events", "games": "/api/games", "import": "/api/import"}[route]
    if route != "events":
        raw = raw.replace('"type": "add"', '"game": "tally", "players": ["Ann"], "title": "t"')
    response = host.post(url, data=raw, content_type="application/json")
    assert (response.status_code, message in response.get_json()["error"]) == (400, True), response.get_json()
    assert events_of(app, tally["id"]) == [] and len(host.get("/api/games").get_json()["games"]) == 1


def test_cross_site_writes_are_refused(host: FlaskClient, tally: dict[str, Any]) -> None:
    url = f"/api/games/{tally['id']}/events"
    body = {"type": "add", "player": "Ann", "points": 1}
    assert host.post(url, json=body, headers={"Origin": "http://evil.example"}).status_code == 403
    assert host.post(url, json=body, headers={"Sec-Fetch-Site": "cross-site"}).status_code == 403
    assert host.post(url, json=body, headers={"Origin": "http://localhost"}).status_code == 201


def test_a_write_from_the_page_itself_on_a_port_is_taken(app: Flask, tally: dict[str, Any]) -> None:
    """A browser sends its page's origin with every write, port and all ("http://192.168.1.10:8000", as `serve --lan`
    listens): the same origin compared without its port refused every entry from every phone, and the host's own."""
    url = f"/api/games/{tally['id']}/events"
    body = {"type": "add", "player": "Ann", "points": 1}
    lan = "http://192.168.1.10:8000"
    client = phone(app, tally["player_token"])
    assert client.post(url, json=body, base_url=lan, headers={"Origin": lan}).status_code == 201
    other = "http://192.168.1.10:9000"  # another server on the laptop is another site
    assert client.post(url, json=body, base_url=lan, headers={"Origin": other}).status_code == 403
    laptop = app.test_client()
    assert (
        laptop.post(
            url, json=body, base_url="http://127.0.0.1:8000", headers={"Origin": "http://127.0.0.1:8000"}
        ).status_code
        == 201
    )


def test_an_oversized_event_is_refused(host: FlaskClient, tally: dict[str, Any]) -> None:
    response = post_event(host, tally["id"], type="add", player="Ann", points=1, note="x" * 20000)
    assert response.status_code == 413


def test_a_phone_press_time_is_kept(host: FlaskClient, tally: dict[str, Any]) -> None:
    response = post_event(host, tally["id"], type="add", player="Ann", points=1, ts=0)
    assert response.get_json()["event"]["ts"] == 0


def test_undo_and_corrections_are_events_never_rewrites(app: Flask, host: FlaskClient, tally: dict[str, Any]) -> None:
    gid = tally["id"]
    post_event(host, gid, type="add", player="Ann", points=3)
    post_event(host, gid, type="add", player="Bo", points=5)
    undo = post_event(host, gid, type="undo", target=2).get_json()
    assert undo["state"]["totals"] == {"Ann": 3, "Bo": 0}
    fix = post_event(host, gid, type="correct", target=1, event={"type": "add", "player": "Ann", "points": 7})
    assert fix.get_json()["state"]["totals"] == {"Ann": 7, "Bo": 0}
    insert = post_event(host, gid, type="insert", after=1, event={"type": "add", "player": "Bo", "points": 1})
    assert insert.get_json()["state"]["totals"] == {"Ann": 7, "Bo": 1}
    redo = post_event(host, gid, type="undo", target=3).get_json()  # undoing the undo restores event 2
    assert redo["state"]["totals"] == {"Ann": 7, "Bo": 6}
    stored = events_of(app, gid)
    assert [e["type"] for e in stored] == ["add", "add", "undo", "correct", "insert", "undo"]
    assert stored[0]["points"] == 3  # the original is still there, unchanged


def test_an_undo_or_edit_of_an_event_already_undone_is_refused(
    app: Flask, host: FlaskClient, tally: dict[str, Any]
) -> None:
    """Two phones tap Reject on the same card: the second undo would be logged and the card's Restore (which undoes
    the latest undo) would then change nothing. It is refused, as is an edit of an undone event."""
    gid = tally["id"]
    post_event(host, gid, type="add", player="Ann", points=3)
    assert post_event(host, gid, type="undo", target=1).status_code == 201
    again = post_event(host, gid, type="undo", target=1)
    assert (
        again.status_code == 409 and "event 1 is already undone (event 2): nothing to undo" in again.get_json()["error"]
    )
    edit = post_event(host, gid, type="correct", target=1, event={"type": "add", "player": "Ann", "points": 4})
    assert edit.status_code == 409 and "restore it first" in edit.get_json()["error"]
    assert len(events_of(app, gid)) == 2
    assert post_event(host, gid, type="undo", target=2).get_json()["state"]["totals"] == {"Ann": 3, "Bo": 0}  # Restore
    assert post_event(host, gid, type="undo", target=2).status_code == 409  # restored once is enough


def test_an_edit_made_on_an_old_view_does_not_overwrite_another_screen_s_edit(
    app: Flask, host: FlaskClient, tally: dict[str, Any]
) -> None:
    """Two phones open the same entry (both had seen event 1) and fix different things: the second is told."""
    gid = tally["id"]
    post_event(host, gid, type="add", player="Ann", points=3)
    first = post_event(host, gid, type="correct", target=1, event={"type": "add", "player": "Ann", "points": 4}, seen=1)
    assert first.status_code == 201
    later = post_event(host, gid, type="correct", target=1, event={"type": "add", "player": "Bo", "points": 3}, seen=1)
    assert later.status_code == 409
    assert "event 1 was changed on another screen meanwhile (event 2)" in later.get_json()["error"]
    undo_edit = post_event(host, gid, type="undo", target=2, seen=1)  # "Undo this edit" on the old view: the same
    assert undo_edit.status_code == 409
    assert post_event(host, gid, type="undo", target=2, seen=2).status_code == 201  # looked again: fine
    assert host.get(f"/api/games/{gid}").get_json()["state"]["totals"] == {"Ann": 3, "Bo": 0}


def test_entries_held_on_their_way_are_stored_in_the_order_they_were_made(app: Flask, tally: dict[str, Any]) -> None:
    """The API hands each entry's 'made' to the hub (web/hub.py, LATE_MS): two entries made 4 s ago, 0.4 s apart,
    arriving together in the reverse order, are stored as made (sleep audit, session 45; a review found that taking
    'made' out of the API's call failed no test)."""
    live = hub(app).live(tally["id"])
    assert live is not None
    made = hub(app).game_time(live) - 4_000

    def enter(player: str, when: int) -> None:
        post_event(app.test_client(), tally["id"], type="add", player=player, points=1, made=when)

    later = threading.Thread(target=enter, args=("Bo", made + 400))
    first = threading.Thread(target=enter, args=("Ann", made))
    later.start()
    time.sleep(0.05)
    first.start()
    later.join(10), first.join(10)
    assert [e["player"] for e in events_of(app, tally["id"])] == ["Ann", "Bo"]


def test_an_entry_sent_again_after_its_answer_was_lost_is_logged_once(
    app: Flask, host: FlaskClient, tally: dict[str, Any]
) -> None:
    """The phone sent, the server logged it, the answer was lost on the Wi-Fi, the player tapped again: the phone
    still says it had seen event 0, so the entry is recognised (200, duplicate) and not scored twice. The same for a
    second phone entering what the first one just did; an entry sent after seeing the first is a new one."""
    gid = tally["id"]
    sent = post_event(host, gid, type="add", player="Ann", points=3, seen=0)
    assert sent.status_code == 201
    again = post_event(host, gid, type="add", player="Ann", points=3, seen=0)
    assert again.status_code == 200 and again.get_json()["duplicate"] is True
    assert again.get_json()["event"]["seq"] == 1 and again.get_json()["state"]["totals"] == {"Ann": 3, "Bo": 0}
    assert len(events_of(app, gid)) == 1
    assert post_event(host, gid, type="add", player="Bo", points=3, seen=0).status_code == 201  # not the same entry
    assert post_event(host, gid, type="add", player="Ann", points=3, seen=2).status_code == 201  # seen: meant again
    assert len(events_of(app, gid)) == 3
    bad = post_event(host, gid, type="add", player="Ann", points=3, seen="2")
    assert bad.status_code == 400 and "'seen' must be" in bad.get_json()["error"]
    for made in ("12", True, 1.5):  # when it was made (web/hub.py, LATE_MS): a whole number of ms, or refused
        bad = post_event(host, gid, type="add", player="Ann", points=3, seen=3, made=made)
        assert bad.status_code == 400 and "'made' must be a time on the game's clock" in bad.get_json()["error"]
    assert len(events_of(app, gid)) == 3
    # an edit and an undo too: they were told another screen had changed the event (their own first copy did)
    edit = {"type": "correct", "target": 1, "event": {"type": "add", "player": "Ann", "points": 6}, "seen": 3}
    undo = {"type": "undo", "target": 2, "seen": 4}
    for body in (edit, undo):
        assert post_event(host, gid, **body).status_code == 201
        again = post_event(host, gid, **body)
        assert again.status_code == 200 and again.get_json()["duplicate"] is True, again.get_json()
    assert len(events_of(app, gid)) == 5


@pytest.mark.parametrize("seen", [True, False, -1, 1.5, None], ids=["true", "false", "negative", "fraction", "null"])
def test_an_entry_sent_again_with_a_seen_that_is_no_event_number_is_refused_not_logged_twice(
    app: Flask, host: FlaskClient, tally: dict[str, Any], seen: Any
) -> None:
    """'seen' is the number of the last event the screen had. A true (JSON's true is 1 to Python) read as "it had
    seen event 1" made the same entry, sent again after its answer was lost, a new one: logged and scored twice.
    Anything but a whole number of 0 or more is refused, and nothing is written (null: 'seen' left out)."""
    gid = tally["id"]
    assert post_event(host, gid, type="add", player="Ann", points=3, seen=0).status_code == 201
    again = post_event(host, gid, type="add", player="Ann", points=3, seen=seen)
    if seen is None:  # no 'seen': the server cannot tell it from a new entry, and takes it as one
        assert again.status_code == 201, again.get_json()
        assert len(events_of(app, gid)) == 2
        return
    assert again.status_code == 400, again.get_json()
    assert "'seen' must be the number of the last event the screen had" in again.get_json()["error"]
    assert len(events_of(app, gid)) == 1
    assert hub(app).snapshot(hub(app).live(gid))["totals"] == {"Ann": 3, "Bo": 0}


def test_a_game_read_while_an_entry_is_being_written_waits_and_never_shows_one_that_was_not_stored(
    app: Flask, host: FlaskClient, tally: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A phone opens the game while another's entry is being written (the disk slow, a write taking seconds),
    and that write then fails. The game the phone is sent is read under the game's lock, after the entry is settled:
    without the lock it was sent the game with the entry already counted (Ann 5), which the server then forgot,
    so that phone showed a score no other screen had until its next reload."""
    gid = tally["id"]
    writing, go = threading.Event(), threading.Event()
    real = store(app).append

    def held(*args: Any) -> None:
        writing.set()
        assert go.wait(10)
        raise ConflictError("another program wrote first")  # (the write fails: nothing is stored)

    monkeypatch.setattr(store(app), "append", held)
    live, waiting = hub(app).live(gid), threading.Event()
    assert live is not None

    class Watched:  # the game's lock, which says when a screen has to wait for it
        def __init__(self, lock: Any) -> None:
            self.lock = lock

        def __enter__(self) -> None:
            if not self.lock.acquire(blocking=False):
                waiting.set()
                self.lock.acquire()

        def __exit__(self, *exc: object) -> None:
            self.lock.release()

    monkeypatch.setattr(live, "lock", Watched(live.lock))
    entered: list[Any] = []
    entry = threading.Thread(
        target=lambda: entered.append(post_event(app.test_client(), gid, type="add", player="Ann", points=5))
    )
    entry.start()
    assert writing.wait(10)
    read: list[Any] = []
    opened = threading.Thread(target=lambda: read.append(host.get(f"/api/games/{gid}")))
    opened.start()
    deadline = time.monotonic() + 10  # it waits for the entry under way (or, read without the lock, has answered)
    while not (read or waiting.is_set()):  # (not a 0.5 s join: a read begun later, unlocked, passed as locked)
        assert time.monotonic() < deadline
        time.sleep(0.01)
    go.set()
    entry.join(10)
    opened.join(10)
    monkeypatch.setattr(store(app), "append", real)
    assert entered[0].status_code == 409, entered[0].get_json()
    state = read[0].get_json()["state"]
    assert (state["seq"], state["totals"]) == (0, {"Ann": 0, "Bo": 0})
    assert events_of(app, gid) == []


def test_a_deal_s_end_entered_on_an_old_view_is_refused_not_scored_twice(app: Flask, host: FlaskClient) -> None:
    """The camera (or another phone) ended a Push deal; a phone that had not seen it enters the same hands listed
    another way (every hand, in the order typed): 409, not a second deal. Entered after seeing it, it is a new
    score-only deal, as the screen's "Score deal 2 from the hands only" says."""
    gid = new_game(host, "push", ["Alex", "Beth", "Charlie", "David"])["id"]
    end = {"type": "deal_end", "out": "Alex", "hands": {"Beth": ["QH", "7C"], "David": ["4H"]}}
    assert post_event(host, gid, **end, seen=0).status_code == 201
    hands = {"Alex": [], "David": ["4H"], "Charlie": ["5C"], "Beth": ["7C", "QH"]}
    late = post_event(host, gid, type="deal_end", out="Alex", hands=hands, seen=0)
    assert late.status_code == 409
    assert "event 1 (a deal's end) was entered meanwhile, on another screen" in late.get_json()["error"]
    assert len(events_of(app, gid)) == 1
    assert post_event(host, gid, **end, seen=0).get_json()["duplicate"] is True  # the very same entry: taken once
    assert post_event(host, gid, type="deal_end", out="Alex", hands=hands, seen=1).status_code == 201
    assert len(events_of(app, gid)) == 2


def test_a_deal_s_end_entered_on_an_old_view_after_the_one_entered_meanwhile_was_undone_is_taken(
    app: Flask, host: FlaskClient
) -> None:
    """The camera ended a Push deal wrongly and a player undid it; a phone that had seen neither enters the deal's
    end: it is the only one that counts, so it is taken, not refused as "entered meanwhile, on another screen"."""
    gid = new_game(host, "push", ["Alex", "Beth", "Charlie", "David"])["id"]
    wrong = {"type": "deal_end", "out": "Beth", "hands": {"Alex": ["QH"], "Charlie": ["5C"], "David": ["4H"]}}
    assert post_event(host, gid, **wrong, seen=0).status_code == 201
    assert post_event(host, gid, type="undo", target=1, seen=1).status_code == 201
    end = {"type": "deal_end", "out": "Alex", "hands": {"Beth": ["QH", "7C"], "David": ["4H"]}}
    taken = post_event(host, gid, **end, seen=0)
    assert taken.status_code == 201, taken.get_json()
    assert taken.get_json()["event"]["seq"] == 3 and len(taken.get_json()["state"]["history"]) == 1


def test_an_entry_the_same_as_a_foul_that_did_not_count_is_entered_anew(app: Flask, host: FlaskClient) -> None:
    """The camera sent Beth's card out of turn (it missed Alex's lead): it does not count. Once the lead is entered, a
    phone that had not seen the camera's event enters Beth's card: it counts now, not 'already entered'."""
    gid = new_game(host, "spades", ["Alex", "Beth", "Cara", "Dana"])["id"]
    post_event(host, gid, type="deal", dealer="Dana")
    for name in ("Alex", "Beth", "Cara", "Dana"):
        post_event(host, gid, type="bid", player=name, bid=3)
    foul = post_event(host, gid, type="play", player="Beth", card="3H")
    assert [r["code"] for r in foul.get_json()["rulings"]] == ["play_out_of_turn"]
    # before the game moves on, the same entry from a screen that had not seen it is that foul, not a second one
    # (a renege the camera sent, entered again on a phone, was logged twice with two fouls: camera-phone fuzz, s41)
    twice = post_event(host, gid, type="play", player="Beth", card="3H", seen=5)
    assert twice.status_code == 200 and twice.get_json()["duplicate"] is True and twice.get_json()["event"]["seq"] == 6
    assert twice.get_json()["counts"] is False  # the phone says it was a foul, not "it counts once" (a review)
    assert len(events_of(app, gid)) == 6
    post_event(host, gid, type="play", player="Alex", card="KH")
    again = post_event(host, gid, type="play", player="Beth", card="3H", seen=5)
    assert again.status_code == 201 and again.get_json()["rulings"] == []
    trick = host.get(f"/api/games/{gid}").get_json()["state"]["view"]["trick"]
    assert [p["card"] for p in trick] == ["KH", "3H"]
    same = post_event(host, gid, type="play", player="Beth", card="3H", seen=5)  # sent again: now it counts once
    assert same.status_code == 200 and same.get_json()["duplicate"] is True and same.get_json()["event"]["seq"] == 8
    assert same.get_json()["counts"] is True


def test_two_servers_entering_at_the_same_moment_the_later_is_asked_to_send_again(
    app: Flask, host: FlaskClient, tally: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two tablecall servers on one database file, and each enters an event for the same game at the same moment. The
    one that loses the race is answered 409, "send it again", and nothing of its entry is written. It was a 500,
    "tablecall hit a bug". The race is made here: the other server writes just before this one commits."""
    from web.app import create_app

    gid = tally["id"]
    other = create_app({"TESTING": True, "DATABASE": app.config["DATABASE"]})
    this_store = store(app)
    commit = this_store.append

    def the_other_server_first(*args: Any) -> None:
        monkeypatch.undo()
        assert post_event(other.test_client(), gid, type="add", player="Bo", points=2).status_code == 201
        commit(*args)

    monkeypatch.setattr(this_store, "append", the_other_server_first)
    try:
        lost = post_event(host, gid, type="add", player="Ann", points=1)
        assert lost.status_code == 409
        assert lost.get_json()["error"] == "another event was written at the same moment; send it again"
        assert [(e["seq"], e["player"]) for e in events_of(app, gid)] == [(1, "Bo")]
        # and the game shows the other server's event before this one enters again (the catch-up after a failed
        # commit: a mutation audit, session 41)
        state = host.get(f"/api/games/{gid}").get_json()["state"]
        assert (state["seq"], state["totals"]) == (1, {"Ann": 0, "Bo": 2})
        again = post_event(host, gid, type="add", player="Ann", points=1)
        assert again.status_code == 201 and again.get_json()["event"]["seq"] == 2
        assert again.get_json()["state"]["totals"] == {"Ann": 1, "Bo": 2}
    finally:
        store(other).close()


def test_log_tells_what_each_event_means_now(host: FlaskClient, tally: dict[str, Any]) -> None:
    gid = tally["id"]
    post_event(host, gid, type="add", player="Ann", points=3)
    post_event(host, gid, type="add", player="Ann", points=5)  # out of turn: a ruling
    post_event(host, gid, type="undo", target=2)
    post_event(host, gid, type="correct", target=1, event={"type": "add", "player": "Ann", "points": 9})
    post_event(host, gid, type="insert", after=1, event={"type": "add", "player": "Bo", "points": 2})
    post_event(host, gid, type="undo", target=4)
    entries = host.get(f"/api/games/{gid}/log").get_json()["entries"]
    summary = [(e["event"]["seq"], e["status"], e.get("in_effect"), e["author"]) for e in entries]
    assert summary == [
        (1, "counts", None, "host"),
        (2, "undone", None, "host"),
        (3, "meta", True, "host"),
        (4, "meta", False, "host"),
        (5, "counts", None, "host"),
        (6, "meta", True, "host"),
    ]
    assert entries[4]["now"]["player"] == "Bo"


def test_log_marks_corrected_events_with_what_counts(host: FlaskClient, tally: dict[str, Any]) -> None:
    gid = tally["id"]
    post_event(host, gid, type="add", player="Ann", points=3)
    post_event(host, gid, type="correct", target=1, event={"type": "add", "player": "Ann", "points": 4})
    first = host.get(f"/api/games/{gid}/log").get_json()["entries"][0]
    assert (first["status"], first["now"]["points"], first["event"]["points"]) == ("corrected", 4, 3)


def test_log_says_which_undo_is_in_effect_after_a_restore_is_undone(host: FlaskClient, tally: dict[str, Any]) -> None:
    """Undo, Restore (an undo of that undo), then Undo of the Restore: the first undo is in effect again and the
    Restore is not. The Log marked the first undo as not in effect too (struck through), its event still undone."""
    gid = tally["id"]
    assert post_event(host, gid, type="add", player="Ann", points=3).status_code == 201
    for target in (1, 2, 3):
        assert post_event(host, gid, type="undo", target=target).status_code == 201
    entries = host.get(f"/api/games/{gid}/log").get_json()["entries"]
    assert [(e["event"]["seq"], e["status"], e.get("in_effect")) for e in entries] == [
        (1, "undone", None),
        (2, "meta", True),
        (3, "meta", False),
        (4, "meta", True),
    ]
    assert host.get(f"/api/games/{gid}").get_json()["state"]["totals"] == {"Ann": 0, "Bo": 0}


def test_a_foul_that_changed_the_game_can_be_corrected_to_another_such_foul(
    host: FlaskClient, tally: dict[str, Any]
) -> None:
    """A foul that changes the game (here Bo's points out of turn, which count; Snap's false call, its penalty; Spit's
    illegal play, its card on the pile) is corrected as any other event: the edit is not refused as making it "a foul
    that counts for nothing" (that is only for an event that counted and would stop changing the game)."""
    gid = tally["id"]
    first = post_event(host, gid, type="add", player="Bo", points=4)
    assert [r["code"] for r in first.get_json()["rulings"]] == ["out_of_turn"]
    edit = post_event(host, gid, type="correct", target=1, event={"type": "add", "player": "Bo", "points": 5})
    assert edit.status_code == 201, edit.get_json()
    assert edit.get_json()["state"]["totals"] == {"Ann": 0, "Bo": 5}


def test_a_stored_event_this_version_refuses_leaves_the_game_readable_and_mendable(
    host: FlaskClient, tally: dict[str, Any]
) -> None:
    """An earlier tablecall took an event that this one's referee refuses: the game still opens (on a
    fresh server, from the SQLite file), the event is marked refused and does not count, and a correction
    makes it count."""
    from scorer.events import GameEvent, Source
    from web.app import create_app, store

    gid = tally["id"]
    post_event(host, gid, type="add", player="Ann", points=3)
    older = GameEvent(2, 2000, Source.MANUAL, "add", {"player": "Bo", "points": 12})  # this referee: 0-9
    store(host.application).append(gid, older, received_ms=2000, author="host")
    database = host.application.config["DATABASE"]
    fresh = create_app({"TESTING": True, "DATABASE": database}).test_client()
    state = fresh.get(f"/api/games/{gid}").get_json()["state"]
    assert state["totals"] == {"Ann": 3, "Bo": 0} and state["counting"] == 1
    assert [a["code"] for a in state["alerts"]] == ["stored_event_refused"]
    entries = fresh.get(f"/api/games/{gid}/log").get_json()["entries"]
    assert [(e["event"]["seq"], e["status"]) for e in entries] == [(1, "counts"), (2, "refused")]
    assert "from 0 to 9" in entries[1]["rulings"][0]["message"]
    assert fresh.get(f"/api/games/{gid}/export.jsonl").status_code == 200
    fixed = post_event(fresh, gid, type="correct", target=2, event={"type": "add", "player": "Bo", "points": 2})
    assert fixed.status_code == 201
    state = fresh.get(f"/api/games/{gid}").get_json()["state"]
    assert state["totals"] == {"Ann": 3, "Bo": 2} and state["alerts"] == []
    assert fresh.get(f"/api/games/{gid}/log").get_json()["entries"][1]["status"] == "corrected"
    store(fresh.application).close()


def test_a_referee_bug_is_a_422_and_writes_nothing(
    app: Flask, host: FlaskClient, tally: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.scorer.toygame import TALLY

    def broken(state: Any, event: Any) -> Any:
        raise ZeroDivisionError("oops")

    monkeypatch.setattr(TALLY, "apply", broken)
    response = post_event(host, tally["id"], type="add", player="Ann", points=1)
    assert response.status_code == 422
    error = response.get_json()["error"]  # it was "(ZeroDivisionError('oops'))" on the phones
    assert error.startswith("the Tally referee could not handle this entry (a bug in tablecall): nothing was written")
    assert "oops" not in error
    assert events_of(app, tally["id"]) == []


# -- export and import -------------------------------------------------------------------------
def test_export_log_replays_to_the_same_game(app: Flask, host: FlaskClient, tally: dict[str, Any]) -> None:
    gid = tally["id"]
    post_event(host, gid, type="add", player="Ann", points=3)
    post_event(host, gid, type="undo", target=1)
    post_event(host, gid, type="add", player="Ann", points=9)
    response = phone(app, tally["viewer_token"]).get(f"/api/games/{gid}/export.jsonl")
    assert response.status_code == 200
    assert "attachment" in response.headers["Content-Disposition"]
    assert response.headers["Content-Type"] == "application/x-ndjson; charset=utf-8"
    log = parse_log(response.get_data(as_text=True).split("\n"))
    assert log.header.game == "tally" and len(log.events) == 3
    from scorer.session import replay

    assert replay(log).score().totals == {"Ann": 9, "Bo": 0}


def test_export_csv_has_the_totals_and_defuses_formulas(app: Flask, host: FlaskClient) -> None:
    created = new_game(host, players=["=HYPERLINK(1)", "Bo"], title="@SUM(1)")
    post_event(host, created["id"], type="add", player="=HYPERLINK(1)", points=3)
    response = host.get(f"/api/games/{created['id']}/export.csv")
    assert response.headers["Content-Type"] == "text/csv; charset=utf-8"
    text = response.get_data(as_text=True)
    assert text.startswith("\ufefffield,value\r\n") and text.count("\ufeff") == 1  # a byte-order mark, for Excel
    assert '\r\nplayers,"\'=HYPERLINK(1), Bo"\r\n' in text and "\r\ntitle,'@SUM(1)\r\n" in text  # (the game's block)
    assert "'=HYPERLINK(1),3" in text
    assert "\r\nBo,0\r\n" in text


@pytest.mark.parametrize(
    ("log", "finished", "result", "lower", "totals"),
    [
        ("spit/standard_win", "yes", "Winner: Alex", "yes", [["Alex", "0"], ["Beth", "52"]]),
        (
            "ten/three_players_two_busts_tie_break",
            "yes",
            "Winner: Alex",
            "no",
            [["Alex", "4"], ["Beth", "2"], ["Cara", "4"]],
        ),
        ("spades/worked_examples", "no", "", "no", None),
    ],
    ids=["spit_lower_wins", "ten_tie_broken", "spades_unfinished"],
)
def test_export_csv_starts_with_the_game_its_dates_and_who_won(
    app: Flask, host: FlaskClient, log: str, finished: str, result: str, lower: str, totals: Any
) -> None:
    """Spit's 'Alex,0 / Beth,52' read as Beth's win, a Ten tie broken did not say who won, a game left at midnight
    looked finished, and a month of downloads was a row of hex ids (weeks audit, session 47, F2). The game's block
    comes first; every block has its own first row of column names and an empty row after it."""
    text = (ROOT / "tests" / "golden" / f"{log}.jsonl").read_text()
    gid = host.post("/api/import", json={"log": text, "title": "Friday"}).get_json()["id"]
    friday = datetime(2026, 11, 6, 20, 0).astimezone()
    db = sqlite3.connect(store(app).path, isolation_level=None)
    db.execute("UPDATE games SET created_ms = ? WHERE id = ?", (int(friday.timestamp() * 1000), gid))
    db.close()
    response = host.get(f"/api/games/{gid}/export.csv")
    assert f'filename="tablecall-2026-11-06-{log.split("/")[0]}-{gid}.csv"' in response.headers["Content-Disposition"]
    blocks = [list(csv.reader(io.StringIO(b))) for b in response.get_data(as_text=True)[1:].split("\r\n\r\n")]
    about = dict(blocks[0][1:])
    record = store(app).game(gid)
    assert record is not None
    assert blocks[0][0] == ["field", "value"] and about["title"] == "Friday" and about["started"] == "2026-11-06 20:00"
    assert about["last played"] == datetime.fromtimestamp(record.last_ms / 1000).astimezone().strftime("%Y-%m-%d %H:%M")
    assert (about["finished"], about["result"], about["lower is better"]) == (finished, result, lower)
    assert about["game"] == log.split("/")[0].title() and about["players"] == ", ".join(
        parse_log(text.split("\n")).header.players
    )
    assert [b[0][:2] for b in blocks] == [
        ["field", "value"],
        ["row", blocks[1][0][1]],
        ["total", "score"],
        ["rule", "value"],
    ]
    assert totals is None or blocks[2][1:] == totals


def test_export_csv_flattens_the_history_rows(app: Flask) -> None:
    from web.api import history_csv

    text = history_csv(
        {
            "history": [{"bids": {"A": 4, "B": 2}, "made": True}, {"bids": {"A": 1, "B": 0}, "made": False}],
            "totals": {"A": 5},
        }
    )
    lines = text.split("\r\n")
    assert lines[:3] == ["row,bids A,bids B,made", "1,4,2,True", "2,1,0,False"]
    assert lines[4:6] == ["total,score", "A,5"]


def test_exports_need_a_token(guest: FlaskClient, tally: dict[str, Any]) -> None:
    for kind in ("csv", "jsonl"):
        assert guest.get(f"/api/games/{tally['id']}/export.{kind}").status_code == 403


LOG = (
    '{"format": "tablecall-log", "version": 1, "game": "tally", "players": ["Cy", "Di"], "options": {"target": 5}}\n'
    '{"seq": 1, "ts": 100, "source": "manual", "type": "add", "player": "Cy", "points": 2}\n'
    '{"seq": 4, "ts": 900, "source": "vision", "type": "add", "player": "Di", "points": 6}\n'
)


def test_import_makes_a_new_game_with_the_same_events(app: Flask, host: FlaskClient) -> None:
    response = host.post("/api/import", json={"log": LOG, "title": "Imported"})
    assert response.status_code == 201
    gid = response.get_json()["id"]
    assert [(e["seq"], e["ts"], e["source"]) for e in events_of(app, gid)] == [(1, 100, "manual"), (4, 900, "vision")]
    state = host.get(f"/api/games/{gid}").get_json()["state"]
    assert (state["totals"], state["winner"]) == ({"Cy": 2, "Di": 6}, ["Di"])
    following = post_event(host, gid, type="add", player="Cy", points=1).get_json()["event"]
    assert following["seq"] == 5 and following["ts"] > 900  # after the imported events


def test_an_import_says_how_many_of_its_events_are_ruled_fouls(app: Flask, host: FlaskClient) -> None:
    """Ten's example with two seats swapped imported as another game, 16 fouls, and nothing said so (the play-on
    audit, session 40): the answer counts them and names the first, for the Import page to show."""
    assert host.post("/api/import", json={"log": LOG}).get_json()["faults"] == 0
    text = (ROOT / "docs" / "examples" / "ten.jsonl").read_text()
    assert host.post("/api/import", json={"log": text}).get_json()["faults"] == 0
    header, rest = text.split("\n", 1)
    players = json.loads(header)["players"]
    swapped = json.dumps({**json.loads(header), "players": [players[1], players[0], *players[2:]]})
    answer = host.post("/api/import", json={"log": swapped + "\n" + rest}).get_json()
    assert answer["faults"] > 0 and answer["first_fault"].startswith("event ")
    rulings = replay(parse_log(swapped + "\n" + rest)).rulings
    assert answer["faults"] == sum(r.severity.value in ("foul", "error") for r in rulings)


def test_a_game_with_a_replacement_character_in_a_name_exports_and_imports_again(app: Flask, host: FlaskClient) -> None:
    """A header holding U+FFFD was refused for a while (session 40), so a game imported from an 'ANSI' file before
    then, or one with the character pasted into a name, exported a log its own Import refused (a review): the Import
    page now refuses the file that is not UTF-8 instead, and such a game round-trips."""
    gid = new_game(host, "tally", ["Bj\ufffdrn", "Bo"], title="Friday \ufffd night")["id"]
    assert post_event(host, gid, type="add", player="Bj\ufffdrn", points=3).status_code == 201
    text = host.get(f"/api/games/{gid}/export.jsonl").get_data(as_text=True)
    imported = host.post("/api/import", json={"log": text})
    assert imported.status_code == 201, imported.get_json()
    assert host.get(f"/api/games/{imported.get_json()['id']}").get_json()["state"]["totals"] == {
        "Bj\ufffdrn": 3,
        "Bo": 0,
    }


def test_an_import_refused_after_earlier_fouls_names_the_first_of_them(app: Flask, host: FlaskClient) -> None:
    header, rest = (ROOT / "docs" / "examples" / "spades.jsonl").read_text().split("\n", 1)
    edited = json.dumps({**json.loads(header), "options": {"first_lead": "two_of_clubs"}})
    response = host.post("/api/import", json={"log": edited + "\n" + rest})
    assert response.status_code == 400 and store(app).games() == []
    assert response.get_json()["error"].startswith("line 59: event 58 (hand): hand 1 is being played card by card; ")
    assert response.get_json()["error"].endswith(
        "(before it, event 6 is ruled a foul: Alex played AC out of turn: it "
        "is David's turn; take it back, and 44 more fouls or errors)"
    )


def test_an_imported_log_with_gaps_in_its_numbers_plays_on(app: Flask, host: FlaskClient) -> None:
    """LOG's events are numbered 1 and 4 (a log trimmed by hand). The screens send back the state's seq as 'seen', so
    it must be the last event's number, 4, not the count, 2. Otherwise Di's next 6 (the same as event 4) was taken for
    event 4 sent again: answered "duplicate" and not logged."""
    gid = host.post("/api/import", json={"log": LOG}).get_json()["id"]
    seen = host.get(f"/api/games/{gid}").get_json()["state"]["seq"]
    assert seen == 4
    entry = post_event(host, gid, type="add", player="Di", points=6, seen=seen)
    assert entry.status_code == 201 and entry.get_json()["event"]["seq"] == 5, entry.get_json()
    assert entry.get_json()["state"]["totals"] == {"Cy": 2, "Di": 12}
    assert [e["seq"] for e in events_of(app, gid)] == [1, 4, 5]


BAD_LOGS = [
    pytest.param({"log": ""}, "text of a game log", id="empty"),
    pytest.param({"log": 5}, "text of a game log", id="not_text"),
    pytest.param({}, "text of a game log", id="missing"),
    pytest.param({"log": "not json"}, "line 1: not valid JSON", id="not_json"),
    pytest.param({"log": '{"format": "x"}'}, "line 1: the first line must be the log header", id="no_header"),
    pytest.param(
        {"log": LOG.replace('"tally"', '"chess"')},
        "line 1: 'game' must be one of the installed games",
        id="unknown_game",
    ),
    pytest.param({"log": LOG.replace('"points": 6', '"points": 60')}, "line 3:", id="event_does_not_replay"),
    pytest.param({"log": LOG.replace('"seq": 4', '"seq": 1')}, "line 3: seq 1 is used twice", id="seq_not_rising"),
    pytest.param(
        {"log": LOG.replace('"Cy", "Di"', '"Cy", "Cy"')}, "two players are called 'Cy'", id="duplicate_players"
    ),
    pytest.param(  # a list as the target was a TypeError in replay (a 500; a differential audit, session 39)
        {"log": LOG + '{"seq": 5, "ts": 950, "source": "manual", "type": "undo", "target": [4]}\n'},
        "line 4: event 5 (undo): 'target' must be a whole number >= 1, not [4]",
        id="undo_target_a_list",
    ),
]


@pytest.mark.parametrize(
    "target", [[4], {}, None, "4", 4.0, True], ids=["list", "object", "null", "text", "float", "bool"]
)
def test_an_imported_undo_whose_target_is_no_number_mended_by_a_later_undo_opens(
    app: Flask, host: FlaskClient, target: object
) -> None:
    """The game imported (the refused undo mended by the next), then every view of it was a 500: the camera's list
    read each undo's target as a number (a review, session 39)."""
    bad = {"seq": 5, "ts": 950, "source": "manual", "type": "undo", "target": target}
    mend = {"seq": 6, "ts": 960, "source": "manual", "type": "undo", "target": 5}
    response = host.post("/api/import", json={"log": LOG + json.dumps(bad) + "\n" + json.dumps(mend) + "\n"})
    assert response.status_code == 201, response.get_json()
    gid = response.get_json()["id"]
    for path in (f"/api/games/{gid}", f"/api/games/{gid}/export.csv", f"/api/games/{gid}/log", f"/g/{gid}"):
        assert host.get(path).status_code == 200, path
    assert host.get(f"/api/games/{gid}").get_json()["state"]["totals"] == {"Cy": 2, "Di": 6}


@pytest.mark.parametrize(("body", "message"), BAD_LOGS)
def test_import_refuses_a_bad_log_and_writes_nothing(app: Flask, host: FlaskClient, body: Any, message: str) -> None:
    response = host.post("/api/import", json=body)
    assert response.status_code == 400
    assert message in response.get_json()["error"]
    assert store(app).games() == []


def test_an_exported_game_imported_again_keeps_its_title(app: Flask, host: FlaskClient) -> None:
    """Export then Import brought a game back as "Tally (imported): Ann, Bo": the log had no title (lifecycle audit,
    session 36). The header carries it now; a log without one, and replay, are as before."""
    gid = new_game(host, "tally", ["Ann", "Bo"], title="Friday, round two")["id"]
    assert post_event(host, gid, type="add", player="Ann", points=3).status_code == 201
    text = host.get(f"/api/games/{gid}/export.jsonl").get_data(as_text=True)
    assert parse_log(text).header.title == "Friday, round two"
    assert json.loads(text.split("\n")[0])["title"] == "Friday, round two"
    imported = host.post("/api/import", json={"log": text})
    assert imported.status_code == 201
    record = store(app).game(imported.get_json()["id"])
    assert record is not None and record.title == "Friday, round two"
    renamed = host.post("/api/import", json={"log": text, "title": "Friday, again"}).get_json()["id"]
    assert store(app).game(renamed).title == "Friday, again"  # type: ignore[union-attr]
    untitled = "\n".join([json.dumps({k: v for k, v in json.loads(text.split("\n")[0]).items() if k != "title"}),
                          *text.split("\n")[1:]])  # fmt: skip
    old = store(app).game(host.post("/api/import", json={"log": untitled}).get_json()["id"])
    assert old is not None and old.title == "Tally (imported): Ann, Bo"


def test_an_import_that_corrects_a_game_replaces_it_on_that_game_s_screens(app: Flask, host: FlaskClient) -> None:
    """A group fixes a misspelt name the documented way (export, edit, Import): the import made a new game, and the
    old game's phones were told nothing and went on entering into it (roster audit F2, session 46). An import given
    ``again`` is that game's next, as after Play again, said as a correction; a refused one links nothing."""
    old = new_game(host, "tally", ["Ann", "Bo"], title="Friday")["id"]
    assert post_event(host, old, type="add", player="Bo", points=3).status_code == 201
    text = host.get(f"/api/games/{old}/export.jsonl").get_data(as_text=True)
    the_hub = hub(app)
    live = the_hub.live(old)
    assert live is not None
    subscriber, _ = the_hub.subscribe(live, None)
    header_only = text.replace('"Bo"', '"Bob"', 1)  # renamed in the header only: its events name 'Bo'
    refused = host.post("/api/import", json={"log": header_only, "again": old})
    assert (
        refused.status_code == 400 and "must be one of the players: Ann, Bob, not 'Bo'" in refused.get_json()["error"]
    )
    assert host.post("/api/import", json={"log": text, "again": "nope"}).status_code == 400
    assert host.post("/api/import", json={"log": text, "again": ["nope"]}).status_code == 400
    assert [g.id for g in store(app).games()] == [old] and store(app).next_game(old) is None
    assert subscriber.queue.empty()
    fixed = host.post("/api/import", json={"log": text.replace('"Bo"', '"Bob"'), "title": "Fixed", "again": old})
    assert fixed.status_code == 201
    new = fixed.get_json()["id"]
    told = json.loads(subscriber.queue.get(timeout=1).decode().split("data: ", 1)[1])
    assert told["next"] == {"id": new, "title": "Fixed", "corrected": True, "started": told["next"]["started"]}
    state = host.get(f"/api/games/{old}").get_json()["state"]
    assert state["next"] == told["next"] and state["totals"] == {"Ann": 0, "Bo": 3}  # the old game as it was
    assert host.get(f"/api/games/{new}").get_json()["state"]["totals"] == {"Ann": 0, "Bob": 3}
    record = store(app).game(old)
    assert record is not None
    player = phone(app)
    assert player.get(f"/join/{old}?t={record.player_token}").status_code == 303
    assert "This game was corrected: go to Fixed · started " in player.get(f"/g/{old}").get_data(as_text=True)
    followed = player.get(f"/g/{old}/next")
    assert followed.status_code == 303 and f"/g/{new}" in followed.headers["Location"]
    assert player.get(f"/api/games/{new}").get_json()["role"] == "player"
    late = post_event(player, old, type="add", player="Ann", points=5)  # a phone still on the old game's Enter tab
    assert late.status_code == 409 and "this game was corrected as 'Fixed'" in late.get_json()["error"]
    assert host.get(f"/api/games/{old}").get_json()["state"]["totals"] == {"Ann": 0, "Bo": 3}
    assert post_event(player, new, type="add", player="Ann", points=5).status_code == 201


def test_an_export_s_title_is_one_its_reader_takes_however_long_the_game_s_title(app: Flask, host: FlaskClient) -> None:
    """A default title names every player, and twelve Snap players made one of 88 characters: its export wrote a
    header title its own reader refused, so Import and replay refused the game's copy (a session-36 review)."""
    names = ["Alice", "Bruno", "Carla", "Dmitri", "Elena", "Farid", "Greta", "Hugo", "Ines", "Jonas", "Kiri", "Laura"]
    gid = new_game(host, "snap", names)["id"]
    record = store(app).game(gid)
    assert record is not None and len(record.title) <= 80 and record.title.endswith("…")
    stored = store(app).create_game(  # a game stored before titles were capped
        "tally", ["Ann", "Bo"], {}, title="Friday " * 20, origin="new", epoch_ms=0, created_ms=0
    )
    for game_id in (gid, stored.id):
        text = host.get(f"/api/games/{game_id}/export.jsonl").get_data(as_text=True)
        title = parse_log(text).header.title
        assert 0 < len(title) <= 80
        imported = host.post("/api/import", json={"log": text})
        assert imported.status_code == 201, imported.get_json()
        assert store(app).game(imported.get_json()["id"]).title == title  # type: ignore[union-attr]


def test_import_needs_the_host(app: Flask, tally: dict[str, Any]) -> None:
    assert phone(app, tally["player_token"]).post("/api/import", json={"log": LOG}).status_code == 403


def test_too_large_a_request_is_413(app: Flask, host: FlaskClient) -> None:
    app.config["MAX_CONTENT_LENGTH"] = 1000
    response = host.post("/api/import", json={"log": LOG * 20})
    assert response.status_code == 413
    assert (
        response.get_json()["error"]
        == "the request is too large: at most 1000 bytes (a log to import may be that long)"
    )


def test_wrong_method_and_unknown_route_are_json_4xx(host: FlaskClient) -> None:
    assert host.get("/api/import").status_code == 405
    assert host.delete("/api/games").status_code == 405
    response = host.get("/api/nothing")
    assert (response.status_code, response.get_json()["error"]) == (404, "there is nothing at this address")


def test_a_body_that_is_not_utf8_says_so(host: FlaskClient, tally: dict[str, Any]) -> None:
    body = '{"type": "add", "player": "Ann", "points": 1, "note": "Zoë"}'.encode("latin-1")
    response = host.post(f"/api/games/{tally['id']}/events", data=body, content_type="application/json")
    assert (response.status_code, response.get_json()["error"]) == (400, "the request body is not UTF-8 text")


# -- words the mutation audit of session 40 found unpinned (data/s40/mut) --------------------------------------
SPADES = {"format": "tablecall-log", "version": 1, "game": "spades", "players": ["A", "B", "C", "D"]}


def test_a_far_too_long_name_says_the_real_limit(host: FlaskClient) -> None:  # "at most 32" is in "at most 320"
    response = host.post("/api/games", json={"game": "tally", "players": ["Ann", "B" * 400]})
    assert response.get_json()["error"] == "player 2's name is too long: 400 characters, at most 32"


def test_an_import_counts_errors_and_names_the_first_fault(host: FlaskClient) -> None:
    def hand(seq: int, tricks: int) -> str:
        t = {"A": 3, "B": 3, "C": 3, "D": tricks - 9}
        return json.dumps(
            {
                "seq": seq,
                "ts": 0,
                "source": "manual",
                "type": "hand",
                "bids": {"A": 3, "B": 3, "C": 3, "D": 3},
                "tricks": t,
            }
        )

    answer = host.post("/api/import", json={"log": "\n".join([json.dumps(SPADES), hand(1, 12), hand(2, 14)])})
    body = answer.get_json()
    assert answer.status_code == 201 and body["faults"] == 2, body
    assert body["first_fault"].startswith("event 1: The tricks add up to 12"), body


def test_a_refused_correction_still_names_the_event_it_corrects(host: FlaskClient, tally: dict[str, Any]) -> None:
    assert post_event(host, tally["id"], type="add", player="Ann", points=2).status_code == 201
    refused = post_event(
        host, tally["id"], type="correct", target=1, event={"type": "add", "player": "Zed", "points": 1}
    )
    assert refused.get_json()["error"].startswith("event 1 (add): 'player' must be one of the players")


def test_a_referee_bug_says_what_to_do(
    host: FlaskClient, tally: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.scorer.toygame import TALLY

    def broken(state: Any, event: Any) -> Any:
        raise ZeroDivisionError("oops")

    monkeypatch.setattr(TALLY, "apply", broken)
    error = post_event(host, tally["id"], type="add", player="Ann", points=1).get_json()["error"]
    assert error.endswith(
        "nothing was written; enter it another way, or tell the host (the server's log has the details)"
    )


def test_a_correction_to_a_long_unknown_type_is_not_echoed_whole(host: FlaskClient, tally: dict[str, Any]) -> None:
    assert post_event(host, tally["id"], type="add", player="Ann", points=2).status_code == 201
    refused = post_event(host, tally["id"], type="correct", target=1, event={"type": "x" * 3000, "player": "Ann"})
    assert refused.status_code == 400 and len(refused.get_json()["error"]) < 200, refused.get_json()["error"][:300]


def test_a_game_already_corrected_is_not_corrected_or_played_again_from_its_old_log(
    app: Flask, host: FlaskClient
) -> None:
    """Corrected as B, the game A was corrected again from A's own History tab: C replaced A, and B, where the phones
    had followed and went on entering, was told nothing and took entries, its score apart from C's; Play again from
    A's screen likewise took A's link from B and made A take entries again (a review, session 46)."""
    a = new_game(host, "tally", ["Ann", "Bo"], title="Fri")["id"]
    assert post_event(host, a, type="add", player="Bo", points=3).status_code == 201
    text = host.get(f"/api/games/{a}/export.jsonl").get_data(as_text=True)
    fixed = host.post("/api/import", json={"log": text.replace('"Bo"', '"Bob"'), "title": "B", "again": a})
    assert fixed.status_code == 201
    b = fixed.get_json()["id"]
    again = host.post("/api/import", json={"log": text.replace('"Ann"', '"Anne"'), "title": "C", "again": a})
    assert again.status_code == 409 and "this game was corrected as 'B'" in again.get_json()["error"]
    replay = host.post("/api/games", json={"game": "tally", "players": ["Ann", "Bo"], "again": a})
    assert replay.status_code == 409
    assert store(app).next_game(a) == b and len(store(app).games()) == 2
    assert post_event(host, a, type="add", player="Ann", points=1).status_code == 409


def test_a_game_played_again_still_takes_entries_and_a_corrected_one_not_even_the_camera_s(
    app: Flask, host: FlaskClient
) -> None:
    """Only a correction replaces a game: one played again still takes a late entry (its last round mended). The camera
    went on entering into a corrected game while its phones were refused (a review, session 46)."""
    from scorer.events import EventError
    from vision.links import HubLink, VisionEvent

    a = new_game(host, "tally", ["Ann", "Bo"], title="Fri")["id"]
    assert host.post("/api/games", json={"game": "tally", "players": ["Ann", "Bo"], "again": a}).status_code == 201
    assert post_event(host, a, type="add", player="Ann", points=1).status_code == 201
    snap = new_game(host, "snap", ["Alex", "Beth"], title="Snap")["id"]
    deal = {"type": "deal", "dealer": "Alex"}
    assert post_event(host, snap, **deal).status_code == 201
    text = host.get(f"/api/games/{snap}/export.jsonl").get_data(as_text=True)
    fixed = host.post("/api/import", json={"log": text.replace('"Beth"', '"Bett"'), "again": snap})
    assert fixed.status_code == 201
    camera = HubLink(hub(app), snap)
    with pytest.raises(EventError, match="this game was corrected as"):
        camera.append(VisionEvent({"type": "flip", "player": "Beth", "card": "5S"}, 0, 0, 1, "5S turned"))
    assert host.get(f"/api/games/{snap}/export.jsonl").get_data(as_text=True) == text  # nothing went in


SEATS = ["A", "B", "C", "D"]
HAND = {"type": "hand", "bids": {"A": 4, "B": 3, "C": 2, "D": 2}, "tricks": {"A": 5, "B": 3, "C": 2, "D": 3}}


def have(state: dict[str, Any]) -> dict[str, str]:
    return {"X-Have": ",".join(f"{key}={value}" for key, value in state["digests"].items())}


def test_an_entry_s_answer_leaves_out_what_the_screen_says_it_holds(app: Flask, host: FlaskClient) -> None:
    """The answer to a phone's own entry was the whole state, 15 KB late in a Spades game, half a second a tap on a
    weak Wi-Fi while the tap showed it was on its way. A screen says the digests of the history and alerts it holds
    (X-Have); the answer leaves out those that are the same, whatever the entry (undo and edits included), also when
    it is the same entry sent again; one without the header, with another form of it, or holding a history since
    changed (an edit, the same row count) gets them whole. The header enters no event, and a refusal has no state."""
    gid = new_game(host, "spades", SEATS)["id"]
    url = f"/api/games/{gid}/events"
    start = post_event(host, gid, **HAND).get_json()["state"]  # no header: whole
    assert len(start["history"]) == 1 and "alerts" in start
    bid = host.post(url, json={"type": "bid", "player": "C", "bid": 3, "seen": 1}, headers=have(start))
    assert bid.status_code == 201
    lean = bid.get_json()["state"]
    assert "history" not in lean and "alerts" not in lean and lean["digests"] == start["digests"]
    whole = host.get(f"/api/games/{gid}").get_json()["state"]
    assert {**lean, "now": 0} == {key: value for key, value in whole.items() if key not in ("history", "alerts")} | {
        "now": 0
    }
    again = host.post(url, json={"type": "bid", "player": "C", "bid": 3, "seen": 1}, headers=have(start))
    assert again.status_code == 200 and again.get_json()["duplicate"] is True  # sent again: the same entry
    assert "history" not in again.get_json()["state"]
    only = {"X-Have": f"history={start['digests']['history']}"}
    undo = host.post(url, json={"type": "undo", "target": 2, "seen": 2}, headers=only)
    assert undo.status_code == 201
    assert "history" not in undo.get_json()["state"] and "alerts" in undo.get_json()["state"]

    edited = HAND | {"tricks": {"A": 6, "B": 3, "C": 2, "D": 2}}  # the same row count, another row
    fix = host.post(url, json={"type": "correct", "target": 1, "event": edited, "seen": 3}, headers=have(start))
    assert fix.status_code == 201
    changed = fix.get_json()["state"]
    assert changed["history"] != start["history"] and changed["digests"]["history"] != start["digests"]["history"]
    assert "alerts" not in changed
    now = changed["digests"]
    for header in ("", "garbage", "alerts", f"{now['history']},{now['alerts']}", f"history=0{now['history']}"):
        plain = host.post(url, json={"type": "bid", "player": "C", "bid": 2}, headers={"X-Have": header})
        assert plain.status_code == 201 and {"history", "alerts"} <= set(plain.get_json()["state"]), header
        assert host.post(url, json={"type": "undo", "target": plain.get_json()["event"]["seq"]}).status_code == 201
    refused = [
        host.post(url, json={"type": "bid", "player": "C", "bid": 14}, headers=have(changed)),
        host.post(url, json={"type": "undo", "target": 2, "seen": 4}, headers=have(changed)),  # undone already
    ]
    assert [r.status_code for r in refused] == [400, 409]
    assert [set(r.get_json()) for r in refused] == [{"error", "status"}] * 2
    text = host.get(f"/api/games/{gid}/export.jsonl").get_data(as_text=True)
    assert start["digests"]["history"] not in text and "have" not in text.lower()
