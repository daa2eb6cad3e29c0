"""Who may do what: the host (the laptop on loopback, or a browser holding the host key), players
(holding a game's join token: they enter events) and viewers (holding its watch token: they watch).

Tokens arrive in the join URL (``/join/<game>?t=TOKEN``, the QR code), and are kept afterwards in a
cookie per game; scripts may send them as the ``X-Join-Token`` / ``X-Host-Key`` headers instead.
Writes must be JSON sent by the page itself: a cross-site form or fetch is refused (CSRF), and the
loopback host is trusted only when the browser addressed the server by an IP literal or
``localhost`` (so a DNS-rebinding page cannot pose as the laptop).
"""

from __future__ import annotations

import hmac
import ipaddress
from typing import Any
from urllib.parse import urlsplit

from flask import Request, current_app, request

from scorer.events import JsonProblem, read_json
from web.store import GameRecord

__all__ = [
    "HOST_COOKIE",
    "ROLES",
    "AccessDenied",
    "check_write",
    "game_cookie",
    "is_host",
    "rank",
    "require",
    "role_for",
    "same_secret",
    "token_role",
]

ROLES = ("none", "viewer", "player", "host")
HOST_COOKIE = "tc_host"


class AccessDenied(Exception):
    """A refused request: an HTTP status and a message for the person."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def rank(role: str) -> int:
    return ROLES.index(role)


def game_cookie(game_id: str) -> str:
    return f"tc_{game_id}"


def same_secret(given: str | None, secret: str) -> bool:
    return bool(given) and hmac.compare_digest(str(given).encode(), secret.encode())


def _hostname(req: Request) -> str:
    return urlsplit("//" + req.host).hostname or ""


def _is_loopback(address: str | None) -> bool:
    try:
        return address is not None and ipaddress.ip_address(address).is_loopback
    except ValueError:
        return False


def _is_literal(hostname: str) -> bool:
    if hostname == "localhost":
        return True
    try:
        ipaddress.ip_address(hostname)
    except ValueError:
        return False
    return True


def is_host(req: Request | None = None) -> bool:
    req = req or request
    if current_app.config["TRUST_LOOPBACK"] and _is_loopback(req.remote_addr) and _is_literal(_hostname(req)):
        return True
    key = req.headers.get("X-Host-Key") or req.cookies.get(HOST_COOKIE)
    return same_secret(key, current_app.extensions["tablecall.host_key"])


def role_for(record: GameRecord) -> str:
    if is_host():
        return "host"
    return token_role(record, request.headers.get("X-Join-Token") or request.cookies.get(game_cookie(record.id)))


def token_role(record: GameRecord, token: str | None) -> str:
    if same_secret(token, record.player_token):
        return "player"
    if same_secret(token, record.viewer_token):
        return "viewer"
    return "none"


WANTS = {
    "viewer": "this game needs its join link: scan the QR code on the host's screen",
    "player": "only players may enter events: join with the player link (a watch-only link cannot)",
    "host": "only the host (the laptop running tablecall) may do this",
}


def require(record: GameRecord | None, role: str) -> str:
    """The caller's role in ``record`` (or on the server), refused unless it is at least ``role``."""
    have = role_for(record) if record is not None else ("host" if is_host() else "none")
    if rank(have) < rank(role):
        raise AccessDenied(403, WANTS["viewer" if have == "none" and role != "host" else role])
    return have


def check_write(req: Request | None = None) -> Any:
    """A write must be same-origin JSON; returns the parsed JSON body."""
    req = req or request
    if req.headers.get("Sec-Fetch-Site") == "cross-site":
        raise AccessDenied(403, "a request from another site may not change anything here")
    origin = req.headers.get("Origin")
    if origin and origin != "null" and urlsplit(origin).netloc != req.host:
        raise AccessDenied(403, f"a request from {origin} may not change anything here")
    if not req.is_json:
        raise AccessDenied(415, "send the request as JSON (Content-Type: application/json)")
    try:  # parsed here, not by get_json: its RecursionError and a stored lone surrogate were 500s
        body = read_json(req.get_data(cache=True))
    except JsonProblem as exc:
        raise AccessDenied(400, _BODY_JSON[exc.kind].format(exc.detail)) from None
    if body is None:
        raise AccessDenied(400, "the request body must be a JSON object like {...}, not null")
    return body


_BODY_JSON = {  # scorer.events.JsonProblem's kinds, as a write's refusal says them
    "syntax": "the request body is not valid JSON",
    "number": "the request holds {}, which is not JSON: send a number",  # NaN stored had stopped every screen
    "too_large": "the request holds {}, a number too large for JSON: send a smaller one",
    "deep": "the request body is nested too deeply",
    "encoding": "the request body is not UTF-8 text",
    "surrogate": "the request holds text that is not valid Unicode (a lone surrogate)",
}
