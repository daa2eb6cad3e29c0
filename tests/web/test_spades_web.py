"""Spades through the dashboard's API: a score-only hand, editing it as a correction, the history
export. Expected points are worked out by hand from the rules (RULES.md, Spades)."""

from __future__ import annotations

import csv
import io
from typing import Any

from flask import Flask
from flask.testing import FlaskClient

from tests.web.conftest import new_game, phone, post_event
from web.app import store

PLAYERS = ["Alex", "Beth", "Charlie", "David"]
AC, BD = "Alex & Charlie", "Beth & David"


def hand(bids: list[int], tricks: list[int], blind: list[str] | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {
        "type": "hand",
        "bids": dict(zip(PLAYERS, bids, strict=True)),
        "tricks": dict(zip(PLAYERS, tricks, strict=True)),
    }
    if blind:
        body["blind"] = blind
    return body


def test_a_score_only_hand_then_its_correction(app: Flask, host: FlaskClient) -> None:
    gid = new_game(host, game="spades", players=PLAYERS)["id"]
    record = store(app).game(gid)
    assert record is not None
    player = phone(app, record.player_token)
    # bids 4/3/2/2: Alex+Charlie need 6, took 4+3 = 7: 60 + 1 bag; Beth+David need 5, took 6: 50 + 1
    first = post_event(player, gid, **hand([4, 3, 2, 2], [4, 3, 3, 3])).get_json()
    assert first["state"]["totals"] == {AC: 61, BD: 51}
    assert first["state"]["teams"] == {AC: ["Alex", "Charlie"], BD: ["Beth", "David"]}
    # the tricks were miscounted: Alex 2, Beth 4, Charlie 3, David 4 -> A+C set (5 < 6): -60; B+D 8: 50 + 3
    fixed = post_event(player, gid, type="correct", target=1, event=hand([4, 3, 2, 2], [2, 4, 3, 4])).get_json()
    assert fixed["state"]["totals"] == {AC: -60, BD: 53}
    row = fixed["state"]["history"][0]
    assert (row["hand"], row["tricks"]["Beth"], row["teams"][BD]["bags"]) == (1, 4, 3)
    entries = host.get(f"/api/games/{gid}/log").get_json()["entries"]
    assert [(e["status"], e.get("row")) for e in entries] == [("corrected", 1), ("meta", None)]


def test_a_correction_that_would_unscore_a_scored_hand_is_refused_and_nothing_changes(
    app: Flask, host: FlaskClient
) -> None:
    """Hand 1 corrected (the Log's raw edit) to a Blind Nil the house rule does not allow, or to tricks adding up to 12,
    was taken: the referee's foul or error left it unscored, hand 2 became hand 1 and the totals moved, said by a foul's
    banner alone (correctfix, session 48). Refused with the referee's words; nothing is written; a good edit still
    goes in."""
    gid = new_game(host, game="spades", players=PLAYERS, options={"blind_nil_requires_deficit": 100})["id"]
    post_event(host, gid, **hand([3, 3, 3, 3], [3, 4, 3, 3]))
    scored = post_event(host, gid, **hand([4, 0, 4, 4], [4, 0, 4, 5])).get_json()["state"]
    assert scored["totals"] == {AC: 140, BD: 202} and len(scored["history"]) == 2
    tail = "Nothing was changed: edit it again, or undo event 1 if it should not count."
    keep = " To keep the foul in the Log, undo event 1, then insert it after event 1."  # a foul only: review2 F2
    for fix, said, end in (
        (
            hand([3, 0, 3, 3], [3, 0, 4, 6], ["Beth"]),
            "a foul that counts for nothing, and change the score: Blind Nil "
            "needs a team behind by 100; hand not scored.",
            tail + keep,
        ),
        (
            hand([3, 3, 3, 3], [3, 3, 3, 3]),
            "an error that counts for nothing, and change the score: The tricks add up to 12, not 13; hand not scored.",
            tail,
        ),
    ):
        answer = post_event(host, gid, type="correct", target=1, event=fix)
        assert answer.status_code == 400, answer.get_json()
        error = answer.get_json()["error"]
        assert error.startswith("this edit would make event 1 (hand) " + said), error
        assert error.endswith(" " + end), error
        assert len(store(app).events(gid)) == 2
        state = host.get(f"/api/games/{gid}").get_json()["state"]
        assert state["totals"] == {AC: 140, BD: 202} and len(state["history"]) == 2
    fixed = post_event(host, gid, type="correct", target=1, event=hand([3, 3, 3, 3], [4, 3, 3, 3])).get_json()
    assert fixed["state"]["totals"] == {AC: 141, BD: 201} and len(fixed["state"]["history"]) == 2


def test_a_correction_of_an_accepted_bid_to_a_barred_blind_nil_is_refused(app: Flask, host: FlaskClient) -> None:
    """A bid entered card by card and taken, corrected (the Log's Edit, the History's bids editor) to a Blind Nil the
    house rule does not allow at 0-0: the referee rules it as it rules that bid entered live ("bid again"), a foul that
    counts for nothing. It was taken, no score moving: Beth's bid became the foul and the alert named Charlie's and
    David's bids out of turn; David's, the last, put the hand back to bidding, David's turn (spadesfix, session 49).
    Refused as a scored entry made a foul is (Hub._no_score_taken), without "change the score", which it does not;
    nothing is written, and a bid the rule allows still goes in."""
    gid = new_game(host, game="spades", players=PLAYERS, options={"blind_nil_requires_deficit": 100})["id"]
    post_event(host, gid, type="deal", dealer="David")
    for name in PLAYERS:
        assert post_event(host, gid, type="bid", player=name, bid=3).status_code == 201
    before = host.get(f"/api/games/{gid}").get_json()["state"]
    assert before["view"]["phase"] == "play" and not before["alerts"]
    for target, name in ((3, "Beth"), (5, "David")):
        blind = {"type": "bid", "player": name, "bid": 0, "blind": True}
        answer = post_event(host, gid, type="correct", target=target, event=blind)
        assert answer.status_code == 400, answer.get_json()
        said = (
            f"this edit would make event {target} (bid) a foul that counts for nothing: Blind Nil needs a team behind "
            f"by 100; bid again. Nothing was changed: edit it again, or undo event {target} if it should not count. "
            f"To keep the foul in the Log, undo event {target}, then insert it after event {target}."
        )
        assert answer.get_json()["error"] == said
        assert len(store(app).events(gid)) == 5
        state = host.get(f"/api/games/{gid}").get_json()["state"]
        assert {**state, "now": 0} == {**before, "now": 0}
    nil = post_event(host, gid, type="correct", target=5, event={"type": "bid", "player": "David", "bid": 0})
    assert nil.status_code == 201 and nil.get_json()["state"]["view"]["bids"]["David"] == 0


def test_undoing_an_edit_that_scored_a_hand_is_refused_where_the_hand_would_count_for_nothing(
    app: Flask, host: FlaskClient
) -> None:
    """Hand 1 entered with Beth's Blind Nil, which the house rule does not allow at 0-0 (a foul, not scored), then
    corrected to the hand played, and hand 2 scored: the Log's "Undo this edit" of that correction was taken, hand 1
    unscored again, hand 2 became hand 1 and the totals moved, said by a foul's banner alone (spadesfix, session 49).
    Refused with the referee's words, as the edit that would do the same is; nothing is written. Undoing an edit that
    leaves the hand scored goes in."""
    gid = new_game(host, game="spades", players=PLAYERS, options={"blind_nil_requires_deficit": 100})["id"]
    foul = post_event(host, gid, **hand([3, 0, 3, 3], [3, 0, 4, 6], ["Beth"])).get_json()
    assert [r["code"] for r in foul["rulings"]] == ["blind_nil_not_allowed"] and foul["state"]["history"] == []
    post_event(host, gid, type="correct", target=1, event=hand([3, 3, 3, 3], [3, 4, 3, 3]))
    scored = post_event(host, gid, **hand([4, 0, 4, 4], [4, 0, 4, 5])).get_json()["state"]
    assert scored["totals"] == {AC: 140, BD: 202} and len(scored["history"]) == 2
    answer = post_event(host, gid, type="undo", target=2)
    assert answer.status_code == 400, answer.get_json()
    assert answer.get_json()["error"] == (
        "this undo would make event 1 (hand) a foul that counts for nothing, and change the score: Blind Nil needs a "
        "team behind by 100; hand not scored. Nothing was changed: edit event 1 if it is wrong, or undo event 1 if it "
        "should not count."
    )
    assert len(store(app).events(gid)) == 3
    state = host.get(f"/api/games/{gid}").get_json()["state"]
    assert state["totals"] == {AC: 140, BD: 202} and len(state["history"]) == 2
    post_event(host, gid, type="correct", target=1, event=hand([3, 3, 3, 3], [4, 3, 3, 3]))
    undone = post_event(host, gid, type="undo", target=4)  # back to the first edit: hand 1 still scored
    assert undone.status_code == 201, undone.get_json()
    assert undone.get_json()["state"]["totals"] == {AC: 140, BD: 202}


def test_a_foul_that_counted_for_nothing_corrected_to_another_such_foul_is_taken(app: Flask, host: FlaskClient) -> None:
    """Only an event that counted and changed the game is kept from becoming a foul that counts for nothing
    (Hub._scored): hand 1 entered with Beth's Blind Nil the house rule bars at 0-0 (a foul, not scored), its tricks
    then put right on the Log, the Blind Nil kept as it was bid, is taken, a foul as before; with that condition dropped
    it was refused "this edit would make event 1 (hand) a foul that counts for nothing" and no test failed (review2,
    session 49: hand mutant H2). Likewise a card played out of turn and taken back, corrected to the card it was."""
    gid = new_game(host, game="spades", players=PLAYERS, options={"blind_nil_requires_deficit": 100})["id"]
    foul = post_event(host, gid, **hand([3, 0, 3, 3], [3, 0, 4, 6], ["Beth"])).get_json()
    assert [r["code"] for r in foul["rulings"]] == ["blind_nil_not_allowed"] and foul["state"]["history"] == []
    fixed = post_event(host, gid, type="correct", target=1, event=hand([3, 0, 3, 3], [3, 0, 5, 5], ["Beth"]))
    assert fixed.status_code == 201, fixed.get_json()
    assert fixed.get_json()["state"]["history"] == [] and len(store(app).events(gid)) == 2
    entries = host.get(f"/api/games/{gid}/log").get_json()["entries"]
    assert [r["code"] for r in entries[0]["rulings"]] == ["blind_nil_not_allowed"]
    assert (entries[0]["status"], entries[0]["now"]["tricks"]["Charlie"]) == ("corrected", 5)
    gid = new_game(host, game="spades", players=PLAYERS)["id"]
    post_event(host, gid, type="deal", dealer="David")
    for name in PLAYERS:
        post_event(host, gid, type="bid", player=name, bid=3)
    post_event(host, gid, type="play", player="Alex", card="KH")
    early = post_event(host, gid, type="play", player="Charlie", card="2H").get_json()  # Beth's turn: taken back
    assert [r["code"] for r in early["rulings"]] == ["play_out_of_turn"]
    card = {"type": "play", "player": "Charlie", "card": "3H"}
    again = post_event(host, gid, type="correct", target=7, event=card)
    assert again.status_code == 201, again.get_json()
    assert again.get_json()["state"]["view"]["turn"] == "Beth" and len(store(app).events(gid)) == 8


def test_restoring_an_edit_that_a_later_correction_made_a_barred_blind_nil_is_refused(
    app: Flask, host: FlaskClient
) -> None:
    """The Log's "Restore #3" (an undo of the undo of an edit) puts that edit back as "Undo this edit" does: hand 2
    edited to Beth's Blind Nil while her team was behind by 140, the edit undone, hand 1 then corrected (60-61: no team
    behind by 100); Restore #3 was taken, hand 2 a foul that counts for nothing, hand 1's row alone left and the totals
    moved 120-122 to 60-61, where the edit and "Undo this edit" doing the same are refused (Hub._subject followed one
    undo only: review2, session 49). Refused with the referee's words; nothing is written."""
    gid = new_game(host, game="spades", players=PLAYERS, options={"blind_nil_requires_deficit": 100})["id"]
    assert post_event(host, gid, **hand([4, 3, 4, 3], [4, 3, 4, 2])).get_json()["state"]["totals"] == {AC: 80, BD: -60}
    post_event(host, gid, **hand([3, 3, 3, 3], [3, 4, 3, 3]))
    blind = hand([3, 0, 3, 3], [3, 0, 4, 6], ["Beth"])
    assert post_event(host, gid, type="correct", target=2, event=blind).status_code == 201  # allowed: 140 behind
    post_event(host, gid, type="undo", target=3)
    fixed = post_event(host, gid, type="correct", target=1, event=hand([3, 3, 3, 3], [3, 4, 3, 3])).get_json()
    assert fixed["state"]["totals"] == {AC: 120, BD: 122} and len(fixed["state"]["history"]) == 2
    said = (
        "this undo would make event 2 (hand) a foul that counts for nothing, and change the score: Blind Nil needs a "
        "team behind by 100; hand not scored. Nothing was changed: edit event 2 if it is wrong, or undo event 2 if it "
        "should not count."
    )
    answer = post_event(host, gid, type="undo", target=4)  # the Log's "Restore #3" on event 4's row
    assert answer.status_code == 400, answer.get_json()
    assert answer.get_json()["error"] == said
    assert len(store(app).events(gid)) == 5
    state = host.get(f"/api/games/{gid}").get_json()["state"]
    assert state["totals"] == {AC: 120, BD: 122} and len(state["history"]) == 2
    edit = post_event(host, gid, type="correct", target=2, event=blind)  # the edit doing the same: refused as before
    assert edit.status_code == 400 and "this edit would make event 2 (hand) a foul" in edit.get_json()["error"]


def test_nil_and_a_refused_hand(app: Flask, host: FlaskClient) -> None:
    gid = new_game(host, game="spades", players=PLAYERS, options={"target": 200})["id"]
    # Beth Nil and takes none: +100; David bid 4 took 6: 40 + 2 bags; Alex 3 + Charlie 3 took 7: 60 + 1
    body = post_event(host, gid, **hand([3, 0, 3, 4], [3, 0, 4, 6])).get_json()
    assert body["state"]["totals"] == {AC: 61, BD: 142}
    refused = post_event(host, gid, **hand([3, 3, 3, 3], [3, 3, 3, 3])).get_json()
    assert [r["code"] for r in refused["rulings"]] == ["tricks_not_13"]
    assert refused["state"]["totals"] == {AC: 61, BD: 142}
    assert refused["state"]["alerts"][-1]["code"] == "tricks_not_13"


def test_malformed_spades_entries_are_400(host: FlaskClient) -> None:
    gid = new_game(host, game="spades", players=PLAYERS)["id"]
    bad = hand([4, 3, 2, 2], [4, 3, 3, 3]) | {"bids": {"Alex": 4}}
    assert post_event(host, gid, **bad).status_code == 400
    assert post_event(host, gid, type="bid", player="Alex", bid=14).status_code == 400
    assert post_event(host, gid, type="play", player="Alex", card="ZZ").status_code == 400
    assert host.get(f"/api/games/{gid}").get_json()["state"]["seq"] == 0


def test_spades_history_exports_as_csv(host: FlaskClient) -> None:
    gid = new_game(host, game="spades", players=PLAYERS)["id"]
    post_event(host, gid, **hand([4, 3, 2, 2], [4, 3, 3, 3]))
    text = host.get(f"/api/games/{gid}/export.csv").get_data(as_text=True).removeprefix("\ufeff")
    rows = list(csv.reader(io.StringIO(text)))
    top = next(i for i, row in enumerate(rows) if row[:1] == ["row"])  # after the game's block (field,value)
    assert rows[top].count("hand") == 1  # the row number is "row", the history's own field "hand"
    first = dict(zip(rows[top], rows[top + 1], strict=True))
    assert (first["row"], first["hand"], first["bids Alex"], first["dealer"]) == ("1", "1", "4", "Alex")
    assert (first[f"teams {AC} total"], first[f"teams {BD} bags"]) == ("61", "1")
    assert [AC, "61"] in rows and [BD, "51"] in rows
    assert ["rule", "value"] in rows and ["target", "500"] in rows and ["first_lead", "left_of_dealer"] in rows


def test_the_csv_says_which_house_rules_were_on(host: FlaskClient) -> None:
    """The sheet of a game to 100 with a −50 Nil looked like a default game's (an options audit, session 39)."""
    gid = new_game(host, game="spades", players=PLAYERS, options={"target": 100, "nil_value": 50})["id"]
    text = host.get(f"/api/games/{gid}/export.csv").get_data(as_text=True).removeprefix("\ufeff")
    rows = list(csv.reader(io.StringIO(text)))
    rules = dict(row for row in rows[rows.index(["rule", "value"]) + 1 :] if row)
    assert (rules["target"], rules["nil_value"], rules["bag_limit"], rules["mercy"]) == ("100", "50", "10", "0")


def test_spades_new_game_form_gets_the_spades_rules(host: FlaskClient) -> None:
    specs = {g["name"]: g for g in host.get("/api/specs").get_json()["games"]}
    target = next(o for o in specs["spades"]["options"] if o["name"] == "target")
    assert (target["default"], target["kind"]) == (500, "int")
    assert (specs["spades"]["min_players"], specs["spades"]["max_players"]) == (4, 4)


def test_an_undo_that_leaves_later_cards_out_of_turn_carries_its_alert_on_its_log_row(host: FlaskClient) -> None:
    """The alert that later plays now draw fouls is the undo's own: the Log showed no ruling on a meta event's row
    (a review, s38)."""
    gid = new_game(host, "spades", ["Alex", "Beth", "Charlie", "David"])["id"]
    assert post_event(host, gid, type="deal", dealer="Alex").status_code == 201
    for name in ("Beth", "Charlie", "David", "Alex"):
        assert post_event(host, gid, type="bid", player=name, bid=3).status_code == 201
    cards = ["AH", "2H", "3H", "4H", "KH", "5H", "6H", "7H"]
    for name, card in zip(["Beth", "Charlie", "David", "Alex"] * 2, cards, strict=True):
        assert post_event(host, gid, type="play", player=name, card=card).status_code == 201
    answer = post_event(host, gid, type="undo", target=11)  # Charlie's 5H: David's 6H, Alex's 7H now out of turn
    assert answer.status_code == 201
    assert answer.get_json()["rulings"][-1]["code"] == "later_events_reruled"
    row = host.get(f"/api/games/{gid}/log").get_json()["entries"][-1]
    assert (row["event"]["seq"], row["status"]) == (14, "meta")
    assert [(r["code"], r["data"]) for r in row["rulings"]] == [("later_events_reruled", {"events": [12, 13]})]
