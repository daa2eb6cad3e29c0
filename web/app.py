"""The Flask dashboard: ``create_app(test_config=None)`` builds it (Flask's app-factory pattern).

Areas, one blueprint each: :mod:`web.pages` (the HTML screens), :mod:`web.api` (JSON: games,
events, import/export), :mod:`web.live` (the server-sent-events stream), :mod:`web.camera_api` (the
camera view, its status, calibration and zones). The store (:class:`web.store.Store`), the live games
(:class:`web.hub.Hub`) and the camera (:class:`web.camera.CameraDesk`, None without one: see
:func:`install_camera`) hang off ``app.extensions``.
"""

from __future__ import annotations

import gzip
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from flask import Flask, Response, jsonify, render_template, request
from werkzeug.exceptions import HTTPException

from web.access import AccessDenied, is_host
from web.hub import Hub
from web.store import Store, StoreError, StoreUnavailable

if TYPE_CHECKING:
    from web.camera import CameraDesk

__all__ = ["camera", "create_app", "default_db_path", "hub", "install_camera", "public_urls", "store"]

DEFAULTS: dict[str, Any] = {
    "DATABASE": None,  # None: $TABLECALL_DB, else the user's data directory
    "SYNCHRONOUS": "FULL",  # see web.store for why
    "TRUST_LOOPBACK": True,  # a browser on this machine is the host
    "HEARTBEAT_S": 15.0,  # a ping on every live stream this often
    "STREAM_MAX_S": 900.0,  # a stream then ends; the browser reconnects and resumes
    "MAX_STREAMS": 24,  # live streams at once (each holds a server thread)
    "PUBLIC_URLS": [],  # base URLs phones can reach (``serve --lan``: read again each time), the QR code's first
    "MAX_CONTENT_LENGTH": 4 * 1024 * 1024,  # the largest request (a log import)
    "DEMO": False,
    "CAMERA_STREAMS": 3,  # camera views (MJPEG) at once; each holds a server thread, the rest poll snapshots
}


def default_db_path() -> Path:
    """``$TABLECALL_DB``, else ``$XDG_DATA_HOME/tablecall/tablecall.sqlite3`` (``~/.local/share``)."""
    if os.environ.get("TABLECALL_DB"):
        return Path(os.environ["TABLECALL_DB"]).expanduser()
    base = Path(os.environ.get("XDG_DATA_HOME") or "").expanduser()
    if not base.is_absolute():  # unset, or relative: ignored, as the XDG specification says (a relative one gave each
        base = Path.home() / ".local" / "share"  # working folder a database of its own; the environment audit, s43)
    return base / "tablecall" / "tablecall.sqlite3"


def create_app(test_config: dict[str, Any] | None = None) -> Flask:
    app = Flask(__name__)
    app.config.update(DEFAULTS)
    if test_config:
        app.config.update(test_config)
    if not app.config["DATABASE"]:
        app.config["DATABASE"] = str(default_db_path())
    app.json.ensure_ascii = False  # type: ignore[attr-defined]
    app.json.sort_keys = False  # type: ignore[attr-defined]
    # and the pages' boot data (`|tojson`) alike: Jinja's own default sorted its keys, so a table loaded afresh drew
    # totals and team columns alphabetically until the next event put them in seating order (monkey audit, s41)
    app.jinja_env.policies["json.dumps_kwargs"] = {"sort_keys": False}

    the_store = Store(app.config["DATABASE"], synchronous=app.config["SYNCHRONOUS"])
    app.extensions["tablecall.store"] = the_store
    app.extensions["tablecall.host_key"] = the_store.host_key
    app.extensions["tablecall.hub"] = Hub(the_store, max_streams=app.config["MAX_STREAMS"])
    app.extensions["tablecall.camera"] = None

    from web import api, camera_api, live, pages

    app.register_blueprint(pages.bp)
    app.register_blueprint(api.bp)
    app.register_blueprint(live.bp)
    app.register_blueprint(camera_api.bp)
    _errors(app)

    @app.after_request
    def _headers(response: Response) -> Response:
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        if response.mimetype == "text/html":  # a page holds the game as it was: Back or a restored tab showed that
            response.headers.setdefault("Cache-Control", "no-store")  # from the cache, old totals (sleep audit, s45)
        response.headers.setdefault("Referrer-Policy", "no-referrer")  # join tokens stay out of Referer
        response.headers.setdefault(
            "Content-Security-Policy",
            "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
            "connect-src 'self'; frame-ancestors 'none'",
        )
        return _compressed(response)

    return app


GZIP_MIN_BYTES = 2048  # smaller answers are not worth it
GZIPPED = ("application/json", "text/html", "text/javascript", "text/css")


def _compressed(response: Response) -> Response:
    """A page, a JSON answer, a script or the style sheet gzipped for a browser that takes it: the Log of a 1,500-event
    game was 293 KB, reloaded every 1.5 s while the game went on, filling a crowded Wi-Fi's 1 Mbit/s (22 KB gzipped);
    a page's scripts 240 KB (80 KB) (slow-phone audit, session 45). Never a stream (the live updates, the camera)."""
    if (
        response.status_code not in (200, 201)  # (201: an entry's answer, the whole state to a page that holds nothing)
        or response.mimetype not in GZIPPED
        or request.accept_encodings.quality("gzip") <= 0  # (not "gzip;q=0")
        or "Content-Encoding" in response.headers
        or (response.is_streamed and not request.path.startswith("/static/"))
    ):
        return response
    response.direct_passthrough = False  # (a static file's wrapper: read into the body here)
    body = response.get_data()
    if len(body) < GZIP_MIN_BYTES:
        return response
    response.set_data(gzip.compress(body, compresslevel=5))
    response.headers["Content-Encoding"] = "gzip"
    response.headers.add("Vary", "Accept-Encoding")
    return response


def _wants_json() -> bool:
    return request.path.startswith("/api/") or request.path.endswith((".csv", ".jsonl", ".svg"))


def _errors(app: Flask) -> None:
    def page(status: int, message: str) -> Any:
        # a path that is not UTF-8 (a folder named on an old USB stick, a C locale) keeps its bytes as surrogates, which
        # no page can be written with: every 503 naming the database became a bare 500 (the environment audit, s43)
        message = message.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
        if _wants_json():
            return jsonify(error=message, status=status), status
        return render_template("error.html", status=status, message=message), status

    @app.errorhandler(AccessDenied)
    def _denied(exc: AccessDenied) -> Any:
        return page(exc.status, exc.message)

    @app.get("/favicon.ico")
    def _favicon() -> Any:  # browsers ask on every page: a 404 was the one console error on the phones
        return "", 204

    @app.errorhandler(StoreUnavailable)
    def _unwritable(exc: StoreUnavailable) -> Any:  # busy, read-only, disk full, file gone: nothing was recorded
        app.logger.warning("%s", exc)
        return page(503, str(exc) if is_host() else exc.public)

    @app.errorhandler(StoreError)
    def _damaged(exc: StoreError) -> Any:  # a game damaged in the database (edited by hand): say which and how
        app.logger.error("%s", exc)
        return page(500, f"{exc}; the other games are unharmed")

    @app.errorhandler(HTTPException)
    def _http(exc: HTTPException) -> Any:
        limit = app.config["MAX_CONTENT_LENGTH"]  # (a log to import is the largest request; docs audit, s41)
        largest = f"{limit // 2**20} MB" if limit % 2**20 == 0 else f"{limit} bytes"
        messages = {
            404: "there is nothing at this address",
            405: f"{request.method} is not allowed here",
            413: f"the request is too large: at most {largest} (a log to import may be that long)",
        }
        return page(exc.code or 500, messages.get(exc.code or 500, exc.description or exc.name))

    @app.errorhandler(Exception)
    def _crash(exc: Exception) -> Any:  # pragma: no cover - a bug; the message says so
        app.logger.exception("unexpected error on %s %s", request.method, request.path)
        return page(500, f"tablecall hit a bug ({exc.__class__.__name__}); the server log has the details")


def public_urls(app: Flask) -> list[str]:
    """The base URLs phones can reach this server at (none: only this computer can). ``PUBLIC_URLS`` is a list, or
    with ``serve --lan`` a function that finds this computer's addresses now: one taken at the start was shown
    for good, so a laptop given another address by the Wi-Fi (after a sleep, on another network) went on showing
    phones a QR code that led nowhere (the clock audit's follow-up, session 43)."""
    urls = app.config["PUBLIC_URLS"]
    return list(urls() if callable(urls) else urls)


def store(app: Flask) -> Store:
    result: Store = app.extensions["tablecall.store"]
    return result


def hub(app: Flask) -> Hub:
    result: Hub = app.extensions["tablecall.hub"]
    return result


def camera(app: Flask) -> CameraDesk | None:
    result: CameraDesk | None = app.extensions.get("tablecall.camera")
    return result


def install_camera(app: Flask, source: str | None, **options: Any) -> CameraDesk:
    """Give the server a camera (``serve --camera/--video``, the demo): a :class:`CameraDesk` on ``source``.

    ``options`` go to the desk (``table``, ``models``, ``detector``, ``demo`` ...); table configs default to
    ``tables/`` beside the database. Nothing is attached yet: see :meth:`CameraDesk.attach`."""
    from web.camera import CameraDesk

    options.setdefault("tables_dir", Path(app.config["DATABASE"]).expanduser().parent / "tables")
    options.setdefault("max_streams", app.config["CAMERA_STREAMS"])
    desk = CameraDesk(hub(app), source, **options)
    app.extensions["tablecall.camera"] = desk
    return desk
