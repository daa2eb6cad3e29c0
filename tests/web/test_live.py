"""The live stream (server-sent events): full state on connect, ``id:`` on every event, resume after a
reconnect, heartbeats, limits, and that a stream always gives its slot back."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from tests.web.conftest import phone, post_event
from web.app import hub
from web.hub import Subscriber, sse


def parse(chunk: bytes) -> dict[str, Any]:
    """One SSE message as {"id", "event", "data"} (data parsed as JSON)."""
    out: dict[str, Any] = {}
    for line in chunk.decode("utf-8").strip("\n").split("\n"):
        key, _, value = line.partition(": ")
        out[key] = json.loads(value) if key == "data" else value
    return out


class Stream:
    """A stream opened through the test client, read message by message."""

    def __init__(self, client: FlaskClient, url: str, **headers: str) -> None:
        self.response = client.get(url, buffered=False, headers=headers)
        self.status = self.response.status_code
        self.chunks = iter(self.response.response) if self.status == 200 else iter(())

    def next(self) -> dict[str, Any]:
        chunk = next(self.chunks)
        return {"retry": chunk.decode().split(": ")[1].strip()} if chunk.startswith(b"retry:") else parse(chunk)

    def rest(self) -> list[dict[str, Any]]:
        return [parse(c) for c in self.chunks]

    def close(self) -> None:
        self.response.close()


def stream_url(game_id: str, last: int | None = None) -> str:
    return f"/api/games/{game_id}/stream" + ("" if last is None else f"?last={last}")


def test_stream_starts_with_the_full_state(host: FlaskClient, tally: dict[str, Any]) -> None:
    post_event(host, tally["id"], type="add", player="Ann", points=3)
    stream = Stream(host, stream_url(tally["id"]))
    assert stream.response.mimetype == "text/event-stream"
    assert stream.response.headers["Cache-Control"].startswith("no-cache")
    assert stream.next() == {"retry": "50"}
    state = stream.next()
    assert (state["event"], state["id"]) == ("state", "1")
    assert state["data"]["totals"] == {"Ann": 3, "Bo": 0}
    assert state["data"]["recent"][-1]["points"] == 3
    stream.close()


def test_each_event_reaches_the_stream_with_its_id(app: Flask, host: FlaskClient, tally: dict[str, Any]) -> None:
    stream = Stream(phone(app, tally["viewer_token"]), stream_url(tally["id"]))
    stream.next(), stream.next()
    post_event(host, tally["id"], type="add", player="Ann", points=3)
    post_event(host, tally["id"], type="add", player="Ann", points=2)  # out of turn
    first, second = stream.next(), stream.next()
    assert (first["event"], first["id"], second["id"]) == ("event", "1", "2")
    assert first["data"]["event"]["points"] == 3
    assert second["data"]["rulings"][0]["code"] == "out_of_turn"
    assert second["data"]["state"]["totals"] == {"Ann": 5, "Bo": 0}
    assert second["data"]["state"]["alerts"][-1]["player"] == "Ann"
    stream.close()


@pytest.mark.parametrize(
    ("headers", "url_last", "missed"),
    [
        pytest.param({"Last-Event-ID": "1"}, None, ["2", "3"], id="last_event_id_header"),
        pytest.param({}, 2, ["3"], id="last_query"),
        pytest.param({"Last-Event-ID": "2"}, 0, ["3"], id="header_wins_over_query"),
        pytest.param({"Last-Event-ID": "3"}, None, [], id="up_to_date"),
        pytest.param({"Last-Event-ID": "99"}, None, [], id="ahead_of_the_server"),
    ],
)
def test_a_reconnecting_phone_resumes(
    host: FlaskClient, tally: dict[str, Any], headers: dict[str, str], url_last: int | None, missed: list[str]
) -> None:
    for points in (1, 2, 3):
        post_event(host, tally["id"], type="add", player="Ann", points=points)
    stream = Stream(host, stream_url(tally["id"], url_last), **headers)
    stream.next()
    got = []
    while (message := stream.next())["event"] == "missed":
        got.append(message["id"])
        assert message["data"]["event"]["seq"] == int(message["id"])
    assert got == missed
    assert (message["event"], message["id"], message["data"]["totals"]["Ann"]) == ("state", "3", 6)
    stream.close()


def test_missed_events_carry_their_rulings(host: FlaskClient, tally: dict[str, Any]) -> None:
    post_event(host, tally["id"], type="add", player="Bo", points=1)  # out of turn
    stream = Stream(host, stream_url(tally["id"], 0))
    stream.next()
    missed = stream.next()
    assert [r["code"] for r in missed["data"]["rulings"]] == ["out_of_turn"]
    stream.close()


def test_heartbeats_carry_the_game_clock_and_the_stream_ends_in_time(
    app: Flask, host: FlaskClient, tally: dict[str, Any]
) -> None:
    started = time.monotonic()
    stream = Stream(host, stream_url(tally["id"]))
    rest = [stream.next(), stream.next(), *stream.rest()]
    elapsed = time.monotonic() - started
    pings = [m for m in rest if m.get("event") == "ping"]
    assert len(pings) >= 3
    assert all(isinstance(p["data"]["now"], int) for p in pings)
    assert 0.35 <= elapsed < 3
    stream.close()
    assert hub(app).streams == 0


@pytest.mark.parametrize("value", ["abc", "\u00b2"], ids=["letters", "superscript_two"])
def test_bad_last_event_id_is_a_400(host: FlaskClient, tally: dict[str, Any], value: str) -> None:
    stream = Stream(host, stream_url(tally["id"]), **{"Last-Event-ID": value})
    assert stream.status == 400
    assert "Last-Event-ID" in stream.response.get_json()["error"]
    assert hub(host.application).streams == 0


def test_stream_needs_a_token(app: Flask, guest: FlaskClient, tally: dict[str, Any]) -> None:
    assert Stream(guest, stream_url(tally["id"])).status == 403
    viewer = Stream(phone(app, tally["viewer_token"]), stream_url(tally["id"]))
    assert viewer.status == 200
    viewer.close()
    assert Stream(guest, stream_url("missing")).status == 404


def test_too_many_streams_is_a_503_and_closing_frees_the_slot(
    app: Flask, host: FlaskClient, tally: dict[str, Any]
) -> None:
    hub(app).max_streams = 1
    first = Stream(host, stream_url(tally["id"]))  # never read: closing must still free the slot
    second = Stream(host, stream_url(tally["id"]))
    assert second.status == 503
    assert "too many live screens" in second.response.get_json()["error"]
    first.close()
    assert hub(app).streams == 0
    third = Stream(host, stream_url(tally["id"]))
    assert third.status == 200
    third.close()


def test_a_stream_that_falls_behind_is_closed_so_the_phone_resumes() -> None:
    subscriber = Subscriber("g")
    for n in range(subscriber.queue.maxsize + 1):
        subscriber.put(sse({"n": n}, id=n))
    assert subscriber.closed
    assert subscriber.queue.qsize() == subscriber.queue.maxsize


def test_server_shutdown_ends_the_streams(app: Flask, host: FlaskClient, tally: dict[str, Any]) -> None:
    app.config["STREAM_MAX_S"] = 30
    app.config["HEARTBEAT_S"] = 10
    stream = Stream(host, stream_url(tally["id"]))
    stream.next(), stream.next()
    hub(app).close_streams()
    started = time.monotonic()
    assert stream.rest() == []
    assert time.monotonic() - started < 2
    stream.close()


def test_sse_message_format() -> None:
    assert sse({"a": "é"}, event="state", id=4) == 'id: 4\nevent: state\ndata: {"a":"é"}\n\n'.encode()
    assert sse({"now": 1}) == b'data: {"now":1}\n\n'
