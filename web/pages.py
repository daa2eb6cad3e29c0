"""The HTML screens: home (games), new game, import, the live table, join by QR link, host login.

Pages are Jinja templates (autoescaped); data reaches the scripts as ``tojson`` in a
``<script type="application/json">`` block, and the scripts draw text with ``textContent`` only.
"""

from __future__ import annotations

import re
import time
from collections.abc import Mapping
from datetime import datetime
from functools import cache
from pathlib import Path
from typing import Any

from flask import Blueprint, Response, current_app, make_response, redirect, render_template, request, url_for
from werkzeug.wrappers import Response as WerkzeugResponse

from scorer.events import MAX_TITLE, header_title
from scorer.game import GameSpec, OptionError
from scorer.registry import UnknownGame, get_game
from web.access import HOST_COOKIE, AccessDenied, game_cookie, is_host, require, role_for, same_secret, token_role
from web.api import REPLAY_S, _record, installed_games, log_text, open_game, share_links
from web.app import camera, hub, public_urls, store
from web.camera_api import camera_status
from web.qr import qr_svg
from web.store import GameRecord

__all__ = ["bp"]

bp = Blueprint("pages", __name__)

COOKIE_DAYS = 30


@bp.get("/")
def home() -> str:
    host = is_host()
    records = store(current_app).games()
    games = [(r, role_for(r)) for r in records]
    if not host:
        games = [(r, role) for r, role in games if role != "none"]
    games, old_demos = _fold_demos(games)
    until = time.monotonic() + REPLAY_S
    results = {r.id: hub(current_app).result(r, until) for r, _ in games}
    return render_template(
        "home.html",
        host=host,
        games=games,
        results=results,
        old_demos=old_demos,
        public_urls=public_urls(current_app),
        demo=current_app.config["DEMO"],
        camera=_camera_line() if host else None,
        when=when_played,
        standing=standing,
        started=_started,
    )


def standing(result: Mapping[str, Any] | None) -> str:
    """A listed game's state: "finished · Winner: Alex & Charlie · 503–222" or "in play · 241–180" (the totals in
    seating order, up to four sides; "in play · 12–30 · lower is better" where the lowest total wins, Spit and Push:
    it read as the other player leading), "" where it is not known yet (Hub.result)."""
    if result is None:
        return ""
    said = ["finished", result["winner_text"] or ""] if result["finished"] else ["in play"]
    totals = [f"{t:g}" if isinstance(t, float) else str(t) for t in result["totals"].values()]
    if 0 < len(totals) <= 4:  # (a side below zero, Spades' missed bids: "130–-20" read as a range; a review, s47)
        negative = any(t.startswith("-") for t in totals)
        said.append((" – " if negative else "–").join(t.replace("-", "\N{MINUS SIGN}") for t in totals))
        if not result["finished"] and result.get("lower_wins"):
            said.append("lower is better")
    return " · ".join(x for x in said if x)


def when_played(record: GameRecord) -> tuple[str, str]:
    """When a game was last played (its last event, else its creation), in this computer's time zone, as the
    list shows it and as an ISO time: rows that all read "Spades: Alex, Beth, Cara, Dan" week after week could
    only be told apart by their number of events (lifecycle audit, session 36)."""
    moment = datetime.fromtimestamp(record.last_ms / 1000).astimezone()  # the store gives created_ms if none
    return f"{moment:%a} {moment.day} {moment:%b %Y, %H:%M}", moment.isoformat(timespec="minutes")


def _started(record: GameRecord) -> str:
    """The day a game started where it was last played on another ("started Fri 13 Nov"), else ""."""
    start = datetime.fromtimestamp(record.created_ms / 1000).astimezone()
    last = datetime.fromtimestamp(record.last_ms / 1000).astimezone()
    return "" if start.date() == last.date() else f"started {start:%a} {start.day} {start:%b}"


def _fold_demos(games: list[tuple[Any, str]]) -> tuple[list[tuple[Any, str]], list[tuple[Any, str]]]:
    """The games to list, and the demo rounds folded away: the demo starts a round a minute, so after an
    evening of ``serve --demo`` they would bury the real games; only the most recently active one is listed."""
    folded = [entry for entry in games if entry[0].origin == "demo"][1:]
    hidden = {id(entry) for entry in folded}
    return [entry for entry in games if id(entry) not in hidden], folded


def _camera_line() -> dict[str, Any] | None:
    """The host's home page: which game the camera follows, or that it waits for one, or why it cannot run."""
    desk = camera(current_app)
    if desk is None:
        return None
    record = store(current_app).game(desk.game_id) if desk.game_id else None
    problem = desk.problem if desk.problem_game is None else None
    return {"source": desk.label, "game": record, "problem": problem, "demo": desk.demo}


def _played_with(game: str, options: Mapping[str, Any]) -> dict[str, Any]:
    """Every house rule as the game was played: a stored game keeps only the rules that differ from their
    ``default``, and the form starts a rule left out at its ``fresh`` value, which would change a rule the group
    played with (Snap's ``call_grace_ms`` 0 came back as 1500)."""
    try:
        return get_game(game).spec.resolve(options)
    except (UnknownGame, OptionError):  # a game no longer installed, or rules this version refuses: what was stored
        return dict(options)


@bp.get("/new")
def new_game() -> str:
    require(None, "host")
    specs = [{**get_game(n).spec.to_json(), "rules_summary": get_game(n).spec.rules_summary} for n in installed_games()]
    boot: dict[str, Any] = {"games": specs, "chosen": request.args.get("game", "")}
    again = store(current_app).game(request.args.get("again", "")) if request.args.get("again") else None
    if request.args.get("again") and again is None:  # a bookmarked Play again, another --db: said, not a blank form
        boot["problem"] = "The game to play again is not on this server: fill in the new game here."
    if again is not None:  # "Play again": the same game, players (in their seats) and house rules, as a start
        boot.update(
            chosen=again.game,
            players=list(again.players),
            options=_played_with(again.game, again.options),
            again=again.id,
        )
    return render_template("new.html", boot=boot)


CORRECTED = re.compile(r" \(corrected(?: (\d+))?\)$")


def corrected_title(title: str) -> str:
    """The title a correction of a game titled ``title`` is offered: "Fri (corrected)", then "Fri (corrected 2)" for a
    correction of that one, and so on. The home page listed the two games alike, and a second correction got the
    first's title: the home page listed those alike, and the first's refusal of a late entry named its own title as
    the game that replaced it (a review, session 46)."""
    found = CORRECTED.search(title)
    stem, count = (title[: found.start()], int(found.group(1) or 1)) if found else (title, 0)
    suffix = f" (corrected {count + 1})" if count else " (corrected)"
    return stem[: MAX_TITLE - len(suffix)].rstrip() + suffix


@bp.get("/import")
def import_page() -> str:
    """Import a log; ``?again=<id>`` (the game's "Fix players or seats…"): that game's export to correct, and the
    game the import replaces (its screens are offered the new one, as after Play again)."""
    require(None, "host")
    wanted = request.args.get("again", "")
    again = store(current_app).game(wanted) if wanted and len(wanted) <= 32 else None
    boot: dict[str, Any] = {"again": again.id} if again is not None else {}
    if wanted and again is None:  # a bookmarked link, another --db: said, not a blank form taken for the game
        boot["problem"] = "The game to correct is not on this server: import its exported log here."
    text, title = "", ""
    if again is not None:
        live = hub(current_app).live(again.id)
        if live is None:  # (deleted meanwhile)
            raise AccessDenied(404, "no such game")
        text = log_text(again, live)
        title = corrected_title(header_title(again.title))
    return render_template("import.html", boot=boot, again=again, text=text, title=title)


@bp.get("/g/<game_id>")
def table(game_id: str) -> WerkzeugResponse:
    if request.args.get("joined") == "1" and role_for(_record(game_id)) == "none":  # just joined, no cookie came back
        raise AccessDenied(
            403,
            "this browser did not keep the game's join cookie (cookies are blocked for this site, or a private "
            "window refuses them): allow cookies for this address, then scan the QR code again",
        )
    record, role, live = open_game(game_id, "viewer")
    with live.lock:
        state = hub(current_app).snapshot(live)
    spec = live.session.game.spec
    boot: dict[str, Any] = {
        "id": record.id,
        "role": role,
        "state": state,
        "spec": {**spec.to_json(), "rules_summary": spec.rules_summary},
        "share": share_links(record) if role == "host" else None,
        "heartbeat_s": current_app.config["HEARTBEAT_S"],
        "camera": camera_status(record.id, role),
    }
    rules = _rules_in_force(spec, live.session.options)
    response = make_response(
        render_template(
            "table.html", record=record, role=role, boot=boot, state=state, rules=rules, preload=modules("js/table.js")
        )
    )
    # the join cookie's 30 days run again from each load of the game: a game taken up again on the sixth Friday
    # asked a phone that had played it every week for its join link (weeks audit, session 47)
    kept = request.cookies.get(game_cookie(record.id))
    if token_role(record, kept) != "none":
        _keep(response, game_cookie(record.id), str(kept))
    return response


IMPORTED = re.compile(r"""^\s*(?:import|export)\b[^'"]*?(?:\bfrom\s*)?['"](\.{1,2}/[^'"]+)['"]""", re.M)


STATIC = Path(__file__).resolve().parent / "static"


@cache
def modules(start: str, root: Path = STATIC) -> tuple[str, ...]:
    """``start`` (a path under static/) and every module it imports, at any depth: the table page names them all
    (modulepreload), and a phone fetches them at once; they came level by level, a round trip each, and a slow phone
    on a crowded Wi-Fi drew its buttons 2-3 s after a load (slow-phone audit, session 45)."""
    found: list[str] = []
    todo = [start]
    while todo:
        name = todo.pop(0)
        if name in found:
            continue
        found.append(name)
        text = (root / name).read_text(encoding="utf-8")
        folder = (root / name).parent
        for target in IMPORTED.findall(text):
            path = (folder / target).resolve()
            if path.is_file():  # (an import-like line in a comment naming no file: not a 500 on every game page)
                todo.append(path.relative_to(root).as_posix())
    return tuple(found)


def _said(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value).replace("_", " ")


def _rules_in_force(spec: GameSpec, options: Mapping[str, Any]) -> dict[str, Any]:
    """The house rules this game is played with, for the Table tab: at the table nobody could check what a game
    is played to, or whether a rule was switched on (lifecycle audit, session 36)."""
    rows = [
        {
            "name": o.name.replace("_", " "),
            "value": _said(options[o.name]),
            "help": o.help,
            "changed": options[o.name] != (o.default if o.fresh is None else o.fresh),  # as the new-game form has it
        }
        for o in spec.options
        if o.name in options
    ]
    return {"rows": rows, "changed": [f"{r['name']} {r['value']}" for r in rows if r["changed"]]}


@bp.get("/g/<game_id>/next")
def next_game(game_id: str) -> WerkzeugResponse:
    """The way from a finished game into the one played again after it (or imported to replace it): a phone that
    had joined the first joins the next with the same role (a new game has new join links, and its phones were left
    on the old winner with nothing to say a next game had begun: lifecycle audit, session 36)."""
    record = _record(game_id)
    role = role_for(record)
    if role == "none":
        raise AccessDenied(403, "this game needs its join link: scan the QR code on the host's screen")
    following = hub(current_app).latest_after(record.id)  # the latest of a chain, not the next one, over already
    if following is None:
        raise AccessDenied(404, "no game has been started after this one yet")
    # ?from: the phone's "I am" in the old game is carried over where that player is in the new one (table.js)
    response = redirect(url_for("pages.table", game_id=following.id, **{"from": record.id}), code=303)
    token = {"player": following.player_token, "viewer": following.viewer_token}.get(role)
    if token is not None:  # the host needs no cookie
        _keep(response, game_cookie(following.id), token)
    return response


@bp.get("/join/<game_id>")
def join(game_id: str) -> WerkzeugResponse:
    """The URL in the QR code: keep the token in a cookie, then show the game (without the token)."""
    record = _record(game_id)
    token = request.args.get("t", "")
    if token_role(record, token) == "none":
        raise AccessDenied(
            403, "this join link is not valid for this game: scan the QR code on the host's screen again"
        )
    # ?joined=1: the table page can tell a cookie the browser refused from a link never followed (the screen drops it)
    response = redirect(url_for("pages.table", game_id=game_id, joined=1), code=303)
    _keep(response, game_cookie(game_id), token)
    return response


@bp.get("/host")
def host_login() -> WerkzeugResponse:
    """``/host?k=KEY`` (printed by ``tablecall serve``) makes this browser a host too."""
    key = request.args.get("k", "")
    response = redirect(url_for("pages.home"), code=303)
    if not key:
        raise AccessDenied(400, "this address needs the host key that 'tablecall serve' printed")
    if not same_secret(key, current_app.extensions["tablecall.host_key"]):
        raise AccessDenied(403, "this host key is not valid for this server")
    _keep(response, HOST_COOKIE, key)
    return response


def _keep(response: WerkzeugResponse, name: str, token: str) -> None:
    """The browser keeps ``token`` (a join link's, the host key) for COOKIE_DAYS, out of the page's scripts' reach."""
    response.set_cookie(name, token, max_age=COOKIE_DAYS * 86400, httponly=True, samesite="Lax", path="/")


@bp.get("/g/<game_id>/qr.svg")
def qr(game_id: str) -> Response:
    """The QR code of the player join link (``?watch=1``: the watch-only link; ``?at=N``: address N)."""
    record = _record(game_id)
    require(record, "host")
    links = share_links(record)["viewer" if request.args.get("watch") else "player"]
    at = request.args.get("at", "0")
    if not at.isdecimal() or len(at) > 12 or int(at) >= len(links):  # (int() refuses over 4300 digits: a 500)
        raise AccessDenied(400, f"'at' must be an address number from 0 to {len(links) - 1}")
    response = Response(qr_svg(links[int(at)], f"Join {record.title}"), mimetype="image/svg+xml")
    response.headers["Cache-Control"] = "private, no-store"
    return response
