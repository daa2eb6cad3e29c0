"""The JSON API: games, events (undo and corrections are events too), the annotated log, export, import.

Every refusal is a 4xx with ``{"error": "...", "status": N}``; a refused event writes nothing.
"""

from __future__ import annotations

import csv
import io
import json
import time
from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any

from flask import Blueprint, Response, current_app, jsonify, request, url_for

from scorer.events import (
    BIDI_CONTROLS,
    MAX_NAME,
    MAX_TITLE,
    EventError,
    LogError,
    header_title,
    is_control,
    name_problem,
    parse_log,
)
from scorer.game import Severity
from scorer.registry import GAME_MODULES, UnknownGame, get_game
from scorer.session import faults_before
from scorer.shown import cut
from web.access import AccessDenied, check_write, is_host, require, role_for
from web.app import hub, public_urls, store
from web.hub import LiveGame, RefereeFault, StaleEntry, have, lean
from web.store import ConflictError, GameRecord

__all__ = ["bp"]

bp = Blueprint("api", __name__, url_prefix="/api")

MAX_EVENT_BYTES = 16 * 1024
REPLAY_S = 0.5  # the most a game list spends replaying games not read yet (Hub.result, Hub.read_results)


def _record(game_id: str) -> GameRecord:
    record = store(current_app).game(game_id) if len(game_id) <= 32 else None
    if record is None and len(game_id) <= 32:  # (a phone's bookmark after a restore started without its --db: the
        raise AccessDenied(  # game looked deleted, its score lost; weeks audit, session 47, F6)
            404,
            f"there is no game '{game_id}' in this database: was tablecall started on another file, such as a "
            "restored backup (--db)?",
        )
    if record is None:
        raise AccessDenied(404, f"there is no game '{cut(game_id)}'")  # a 5,000-character id was echoed whole
    return record


def open_game(game_id: str, role: str = "viewer") -> tuple[GameRecord, str, LiveGame]:
    """The game ``game_id``, the caller's role (at least ``role``, else :class:`AccessDenied`) and its live state."""
    record = _record(game_id)
    granted = require(record, role)
    live = hub(current_app).live(game_id)
    assert live is not None
    return record, granted, live


def _object(body: Any, what: str) -> dict[str, Any]:
    if not isinstance(body, dict):
        raise AccessDenied(400, f"{what} must be a JSON object like {{...}}")
    return body


def _text(body: Mapping[str, Any], key: str, limit: int, default: str | None = None) -> str:
    value = body.get(key, default)
    if not isinstance(value, str):
        raise AccessDenied(400, f"'{key}' must be a text")
    value = value.strip()
    if len(value) > limit:
        raise AccessDenied(400, f"'{key}' is too long ({len(value)} characters; at most {limit})")
    if any(is_control(c) for c in value):
        raise AccessDenied(400, f"'{key}' may not hold control characters")
    if any(c in BIDI_CONTROLS for c in value):
        raise AccessDenied(400, f"'{key}' may not hold text-direction controls")
    return value


def clean_players(value: Any) -> list[str]:
    if not isinstance(value, list) or not value:
        raise AccessDenied(400, "'players' must be a list of names, in seating order")
    for seat, v in enumerate(value, start=1):  # which one (lifecycle audit, session 36: "'player' must be a text")
        if not isinstance(v, str):
            raise AccessDenied(400, f"player {seat} must be a name (a text), not {json.dumps(v)[:20]}")
        if len(v.strip()) > 10 * MAX_NAME:  # name_problem says which is too long; past this, said here ("at most 320")
            raise AccessDenied(
                400, f"player {seat}'s name is too long: {len(v.strip())} characters, at most {MAX_NAME}"
            )
    names = [_text({"player": v}, "player", 10 * MAX_NAME) for v in value]  # name_problem says which is too long
    if problem := name_problem(names):  # the rule a log file's names are held to (scorer.events)
        raise AccessDenied(400, problem)
    return names


def installed_games() -> list[str]:
    """The games whose referee imports; one that fails to import is logged and left out, so one
    broken referee cannot take the whole dashboard down."""
    names = []
    for name in GAME_MODULES:
        try:
            get_game(name)
        except UnknownGame:
            continue
        except Exception:
            current_app.logger.exception("the %s referee does not load; it is left out", name)
            continue
        names.append(name)
    return names


def _game_name(value: Any) -> str:
    """A registered game's name (the installed ones, and any a plugin or test registered)."""
    try:
        if isinstance(value, str):
            get_game(value)
            return value
    except UnknownGame:
        pass
    known = ", ".join(installed_games()) or "none installed"
    raise AccessDenied(400, f"'game' must be one of the installed games ({known}), not {value!r}")


# -- games ------------------------------------------------------------------------------------
@bp.get("/specs")
def specs() -> Any:
    """The installed games and their house rules (for the new-game form)."""
    out = []
    for name in installed_games():
        spec = get_game(name).spec
        out.append({**spec.to_json(), "rules_summary": spec.rules_summary})
    return jsonify(games=out)


@bp.get("/games")
def games() -> Any:
    """The games this browser may see: all for the host, those it holds a token for otherwise."""
    records = store(current_app).games()
    if not is_host():
        records = [r for r in records if role_for(r) != "none"]
    until = time.monotonic() + REPLAY_S  # ``result``: finished, winner_text, totals; null where not read in time
    return jsonify(
        games=[{**r.public(), "role": role_for(r), "result": hub(current_app).result(r, until)} for r in records]
    )


@bp.post("/games")
def create_game() -> Any:
    require(None, "host")
    body = _object(check_write(), "the new game")
    game = _game_name(body.get("game"))
    players = clean_players(body.get("players"))
    options = body.get("options", {})
    if not isinstance(options, dict):
        raise AccessDenied(400, "'options' must be an object of house rules, like {\"target\": 300}")
    title = _text(body, "title", MAX_TITLE, "")
    again = _again(body)  # "Play again" after this game: its phones are offered the way into the new one
    try:
        live = hub(current_app).create(game, players, options, title, follows=again)
    except EventError as exc:
        raise AccessDenied(400, str(exc)) from None
    try:  # made: it is answered as such (a failed read here was a 500, and Create pressed again made a second game)
        state: dict[str, Any] | None = hub(current_app).snapshot(live)
    except Exception:
        current_app.logger.exception("game %s is made, but its state could not be drawn", live.record.id)
        state = None
    return jsonify(id=live.record.id, url=url_for("pages.table", game_id=live.record.id), state=state), 201


def _again(body: Mapping[str, Any]) -> str | None:
    """``again``: the game a new or imported one is played again after, or replaces; its screens then offer theirs
    the way into the new one."""
    again = body.get("again")
    if again is None:
        return None
    record = store(current_app).game(again) if isinstance(again, str) else None
    if record is None:
        raise AccessDenied(400, f"'again' must be the id of a game on this server, not {str(again)[:20]!r}")
    try:  # a game already corrected: a second correction from its old log, or a Play again of it, took its link from
        hub(current_app).not_replaced(record.id, "correct or play again")  # the first correction, and that game went
    except StaleEntry as exc:  # on taking entries, told nothing (a review, session 46)
        raise AccessDenied(409, str(exc)) from None
    return record.id


@bp.get("/games/<game_id>")
def game(game_id: str) -> Any:
    record, role, live = open_game(game_id, "viewer")
    with live.lock:
        state = hub(current_app).snapshot(live)
    return jsonify(game=record.public(), role=role, state=state)


@bp.get("/games/<game_id>/share")
def share(game_id: str) -> Any:
    """The join links (host only): one for players, one watch-only, on every address phones may use."""
    record = _record(game_id)
    require(record, "host")
    return jsonify(**share_links(record))


def share_links(record: GameRecord) -> dict[str, Any]:
    lan = public_urls(current_app)
    bases = lan or [request.host_url.rstrip("/")]
    path = url_for("pages.join", game_id=record.id)
    return {
        "player": [f"{b}{path}?t={record.player_token}" for b in bases],
        "viewer": [f"{b}{path}?t={record.viewer_token}" for b in bases],
        "lan": bool(lan),
    }


# -- events -----------------------------------------------------------------------------------
@bp.post("/games/<game_id>/events")
def post_event(game_id: str) -> Any:
    """One event: ``{"type": "bid", "player": "Beth", "bid": 4}`` (``ts`` optional: the press time).

    ``undo`` ``{"target": N}``, ``correct`` ``{"target": N, "event": {...}}`` and ``insert``
    ``{"after": N, "event": {...}}`` are how undo and edits of past hands are written.

    The answer's state leaves out the history and the alerts where the screen says it holds them already, by their
    digests in an ``X-Have`` header (a header, not a field: it is no part of the entry, and an entry sent again with
    another copy is the same entry): late in a Spades game 15 KB to a tapping phone, on a weak Wi-Fi half a second.
    """
    record = _record(game_id)
    role = require(record, "player")
    if (request.content_length or 0) > MAX_EVENT_BYTES:
        raise AccessDenied(413, f"an event may hold at most {MAX_EVENT_BYTES} bytes")
    body = _object(check_write(), "an event")
    for key in ("seq", "source"):
        if key in body:
            raise AccessDenied(400, f"leave out '{key}': the server numbers the events and records their source")
    client_ts = body.pop("ts", None)
    seen = body.pop("seen", None)
    if seen is not None and (isinstance(seen, bool) or not isinstance(seen, int) or seen < 0):
        raise AccessDenied(400, f"'seen' must be the number of the last event the screen had, not {seen!r}")
    made = body.pop("made", None)  # when the entry was made, on the game's clock: entries held on their way go in order
    if made is not None and (isinstance(made, bool) or not isinstance(made, int)):
        raise AccessDenied(400, f"'made' must be a time on the game's clock in milliseconds, not {cut(repr(made), 24)}")
    try:
        result = hub(current_app).append(game_id, body, author=role, client_ts=client_ts, seen=seen, made=made)
    except StaleEntry as exc:
        raise AccessDenied(409, str(exc)) from None
    except EventError as exc:
        raise AccessDenied(400, str(exc)) from None
    except ConflictError:
        raise AccessDenied(409, "another event was written at the same moment; send it again") from None
    except RefereeFault as exc:
        raise AccessDenied(422, str(exc)) from None
    rulings = [r.to_json() for r in result.rulings] if result.said is None else result.said
    state = lean(result.state, have(request.headers.get("X-Have")))  # (hub.KEPT: the screen keeps its own)
    if result.duplicate:  # already logged: the answer to the first sending, which was lost
        # ``counts``: false for a foul that left the game as it was (the phone said "it counts once"; a review, s41)
        return jsonify(
            event=result.event.to_json(), rulings=rulings, state=state, duplicate=True, counts=result.counts
        ), 200
    return jsonify(event=result.event.to_json(), rulings=rulings, state=state), 201


@bp.get("/games/<game_id>/clock")
def clock(game_id: str) -> Any:
    """The game clock now (ms), for a phone measuring its offset at join: ``{"now": N}``.

    The phone times the round trip with its own clock and keeps the sample with the shortest one
    (``web/static/js/clock.js``); press times it sends as ``ts`` are its clock plus that offset.
    """
    _, _, live = open_game(game_id, "viewer")
    response = jsonify(now=hub(current_app).game_time(live))
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.get("/games/<game_id>/log")
def game_log(game_id: str) -> Any:
    """Every logged event and what it means now (counts / undone / corrected / meta), with its rulings."""
    _, _, live = open_game(game_id, "viewer")
    return jsonify(entries=hub(current_app).log_entries(live))


# -- export / import --------------------------------------------------------------------------
def _download(text: str, content_type: str, name: str) -> Response:
    response = Response(text, content_type=content_type)  # (mimetype= would add a second charset)
    response.headers["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


@bp.get("/games/<game_id>/export.jsonl")
def export_log(game_id: str) -> Response:
    """The game's event log, exactly as ``tablecall replay`` reads it."""
    record, _, live = open_game(game_id, "viewer")
    text = log_text(record, live)
    return _download(text, "application/x-ndjson; charset=utf-8", f"tablecall-{record.game}-{record.id}.jsonl")


def log_text(record: GameRecord, live: LiveGame) -> str:
    """The game's export (its log, titled as the game): also what the Import page starts from to correct it."""
    from scorer.events import format_log

    with live.lock:
        log = live.session.log()
    titled = replace(log.header, title=header_title(record.title))  # an import keeps the title
    return format_log(replace(log, header=titled))


def _cell(value: Any) -> Any:
    if isinstance(value, dict):
        return "; ".join(f"{k}: {_cell(v)}" for k, v in value.items())
    if isinstance(value, list):
        return ", ".join(str(_cell(v)) for v in value)
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + value  # a spreadsheet must not run a player's name as a formula
    return value


def _flatten(row: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """Nested objects become columns named by their path: ``{"teams": {"A": {"total": 5}}}`` -> ``teams A total``."""
    out: dict[str, Any] = {}
    for key, value in row.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict) and value:
            out.update(_flatten(value, name + " "))
        else:
            out[name] = value
    return out


def history_csv(
    state: Mapping[str, Any], rules: Mapping[str, Any] | None = None, about: Sequence[tuple[str, Any]] = ()
) -> str:
    """Blocks, each with its own first row of column names and an empty row after it: where given, the game
    (``about``: ``field,value`` rows), then the history rows, the totals and, where given, the game's rules (every
    option and its value: a sheet of a Spades game to 100 with a −50 Nil looked like a default game's; an options
    audit, session 39)."""
    rows = [_flatten(row) for row in state["history"]]
    columns: list[str] = []
    for row in rows:
        columns += [key for key in row if key not in columns]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    if about:
        writer.writerow(["field", "value"])
        writer.writerows([name, _cell(value)] for name, value in about)
        writer.writerow([])
    writer.writerow(["row", *(_cell(c) for c in columns)])  # not "hand": Spades' own rows have a "hand" column
    for number, row in enumerate(rows, start=1):
        writer.writerow([number, *(_cell(row.get(c, "")) for c in columns)])
    writer.writerow([])
    writer.writerow(["total", "score"])
    for name, total in state["totals"].items():
        writer.writerow([_cell(name), total])
    if rules:
        writer.writerow([])
        writer.writerow(["rule", "value"])
        for name, value in rules.items():
            writer.writerow([name, _cell(value)])
    return out.getvalue()


@bp.get("/games/<game_id>/export.csv")
def export_csv(game_id: str) -> Response:
    """The game (its title, dates, whether it is over and who won), the per-hand history table, the totals and the
    rules, for a spreadsheet; named by the day it started."""
    record, _, live = open_game(game_id, "viewer")
    with live.lock:
        state = hub(current_app).snapshot(live)
        rules = live.session.game.spec.resolve(live.session.options)
    # with a byte-order mark: Excel on Windows reads a CSV without one in the local code page ('BjÃ¶rn')
    name = f"tablecall-{_local(record.created_ms):%Y-%m-%d}-{record.game}-{record.id}.csv"
    return _download("\ufeff" + history_csv(state, rules, _about(record, state)), "text/csv; charset=utf-8", name)


def _local(ms: int) -> datetime:
    return datetime.fromtimestamp(ms / 1000).astimezone()


def _about(record: GameRecord, state: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """The CSV's first block: Spit's totals 'Alex,0 / Beth,52' read as Beth's win (lower is better there), a Ten tie
    broken did not say who won, and a game left at midnight looked finished (weeks audit, session 47, F2)."""
    return [
        ("title", record.title),
        ("game", state["game_title"]),
        ("players", ", ".join(state["players"])),
        ("started", f"{_local(record.created_ms):%Y-%m-%d %H:%M}"),
        ("last played", f"{_local(record.last_ms):%Y-%m-%d %H:%M}"),
        ("finished", "yes" if state["finished"] else "no"),
        ("result", state["winner_text"] or ""),
        ("lower is better", "yes" if state["lower_wins"] else "no"),
    ]


@bp.post("/import")
def import_log() -> Any:
    """A new game from a whole log: ``{"log": "<JSON Lines text>", "title": "...", "again": "<id>"}``; ``again``: the
    game it replaces (exported, its players or seats corrected), whose screens are told as after "Play again"."""
    require(None, "host")
    body = _object(check_write(), "the import")
    text = body.get("log")
    if not isinstance(text, str) or not text.strip():
        raise AccessDenied(400, "'log' must be the text of a game log (JSON Lines: a header, then events)")
    title = _text(body, "title", MAX_TITLE, "")
    again = _again(body)
    try:
        log = parse_log(text.split("\n"))
        try:  # the header's line, as `tablecall replay` names it (the play-on audit, session 40)
            _game_name(log.header.game)
            clean_players(list(log.header.players))
        except AccessDenied as exc:
            raise AccessDenied(exc.status, f"line 1: {exc.message}") from None
    except LogError as exc:
        raise AccessDenied(400, f"line {exc.line}: {exc.reason}") from None
    except EventError as exc:
        raise AccessDenied(400, str(exc)) from None
    try:
        live = hub(current_app).import_log(log, title or log.header.title, follows=again)
    except LogError as exc:
        raise AccessDenied(400, f"line {exc.line}: {exc.reason}{faults_before(log, exc.line, exc.reason)}") from None
    except EventError as exc:
        raise AccessDenied(400, str(exc)) from None
    except RefereeFault as exc:
        raise AccessDenied(422, str(exc)) from None
    # a header edited to play on (seats swapped, a player added, a rule changed) can make another game of the same
    # events, fouls and all, and nothing said so (the play-on audit, session 40): the page says how many there are
    faults = [r for r in live.session.rulings if r.severity in (Severity.FOUL, Severity.ERROR)]
    first = f"event {faults[0].seq}: {faults[0].message}" if faults else None
    url = url_for("pages.table", game_id=live.record.id)
    return jsonify(id=live.record.id, url=url, events=len(log.events), faults=len(faults), first_fault=first), 201
