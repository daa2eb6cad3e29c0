"""Live updates: one server-sent-events stream per game.

On connect the stream sends the events the browser missed (``event: missed``, when it says where it
stopped, by the ``Last-Event-ID`` header the browser sends on reconnecting or ``?last=N``), then the
full state (``event: state``). Then one ``event: event`` message per new event, each with ``id:`` =
the event's ``seq`` and the new state, less the parts that are as this stream last sent them (``Hub._send_event``:
the screen keeps its own), and an ``event: ping`` with the game clock every
``HEARTBEAT_S`` seconds (a phone that hears nothing for 2.5 heartbeats reconnects). A stream ends
after ``STREAM_MAX_S``; the browser reconnects and resumes where it was.

A screen's stream may name its phone (``?phone=``, a random id it keeps) and the player it says it is (``?me=``): such
streams hear ``event: twins`` whenever the players that two phones or more say they are change (``Hub._tell_twins``),
and the phone says so beside its "I am". Kept only while the stream is open; not an event, never stored.
"""

from __future__ import annotations

import queue
import re
import time
from collections.abc import Callable, Generator, Iterator, Sequence
from typing import Any

from flask import Blueprint, Response, current_app, request

from web.access import AccessDenied, require
from web.api import _record
from web.app import hub

__all__ = ["bp"]

GONE_CHECK_S = 1.0  # how often a quiet stream asks whether its phone is still there
PHONE_ID = re.compile(r"[A-Za-z0-9_-]{8,64}")  # (anything else names no phone: the stream goes on uncounted)

bp = Blueprint("live", __name__, url_prefix="/api")


def _phone(players: Sequence[str]) -> tuple[str | None, str]:
    """The phone the stream's screen names, and the player it says it is ("": watching, or not one of the game's)."""
    phone, me = request.args.get("phone", ""), request.args.get("me", "")
    if not PHONE_ID.fullmatch(phone):
        return None, ""
    return phone, me if me in players else ""


def _last_id() -> int | None:
    raw = request.headers.get("Last-Event-ID") or request.args.get("last")
    if raw is None or raw == "":
        return None
    if not raw.isdecimal() or len(raw) > 12:
        raise AccessDenied(400, f"Last-Event-ID must be an event number, not {raw[:20]!r}")
    return int(raw)


@bp.get("/games/<game_id>/stream")
def stream(game_id: str) -> Any:
    record = _record(game_id)
    require(record, "viewer")
    last_id = _last_id()
    the_hub = hub(current_app)
    live = the_hub.live(game_id)
    assert live is not None
    # waitress (with channel_request_lookahead, as `tablecall serve` runs it) tells when the phone has closed the
    # connection: a page reloaded or closed, a phone gone to the next game. Otherwise that is found only when a
    # write fails, at the second ping after it: the stream's slot and thread were held 15-60 s, and a reloading
    # room of phones was refused live updates (a long-night audit, session 36).
    gone: Callable[[], bool] | None = request.environ.get("waitress.client_disconnected")
    if gone is not None and gone():  # gone before its turn: a server paused (asleep) with phones reconnecting served
        return Response(status=204)  # their abandoned streams first, and those took the slots (the clock audit, s43)
    try:
        subscriber, backlog = the_hub.subscribe(live, last_id, *_phone(record.players))
    except OverflowError as exc:
        raise AccessDenied(503, str(exc)) from None
    heartbeat = float(current_app.config["HEARTBEAT_S"])
    lifetime = float(current_app.config["STREAM_MAX_S"])

    def messages() -> Generator[bytes, None, None]:
        yield f"retry: {int(min(heartbeat, 3) * 1000)}\n\n".encode()
        yield from backlog
        ends = time.monotonic() + lifetime
        pinged = time.monotonic()
        while time.monotonic() < ends:
            now = time.monotonic()
            wait = min(pinged + heartbeat - now, ends - now)
            if gone is not None:
                wait = min(wait, GONE_CHECK_S)
            try:
                message = subscriber.queue.get(timeout=max(0.0, wait))
            except queue.Empty:
                if gone is not None and gone():
                    return
                if time.monotonic() >= pinged + heartbeat:
                    pinged = time.monotonic()
                    yield the_hub.ping(live)
                continue
            if message is None:  # the server is shutting down
                return
            yield message
            if subscriber.closed and subscriber.queue.empty():  # fell too far behind: reconnect
                return

    body = _Closing(messages(), lambda: the_hub.unsubscribe(live, subscriber))
    response = Response(body, mimetype="text/event-stream")
    response.headers["Cache-Control"] = "no-cache, no-transform"
    response.headers["X-Accel-Buffering"] = "no"
    return response


class _Closing:
    """An iterable whose ``close`` always runs (a generator never started would skip its ``finally``)."""

    def __init__(self, inner: Generator[bytes, None, None], on_close: Callable[[], None]) -> None:
        self.inner = inner
        self.on_close = on_close

    def __iter__(self) -> Iterator[bytes]:
        return self

    def __next__(self) -> bytes:
        return next(self.inner)

    def close(self) -> None:
        try:
            self.inner.close()
        finally:
            self.on_close()
