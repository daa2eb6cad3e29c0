"""The camera routes: the live table's view and status for a game's screens, calibration and zones for the host.

| route | role | what |
|---|---|---|
| ``GET /api/games/<id>/camera`` | viewer | the camera's status for this game (``CameraDesk.status``) |
| ``GET /api/games/<id>/camera.mjpg`` | viewer | the annotated camera view, MJPEG (``multipart/x-mixed-replace``) |
| ``GET /api/games/<id>/camera.jpg`` | viewer | one JPEG of it (the fallback: screens poll it) |
| ``POST /api/games/<id>/camera`` ``{}`` | host | the camera follows this game (the one it followed before stops) |
| ``POST /api/games/<id>/camera/detach`` ``{}`` | host | the camera stops following this game |
| ``POST /api/games/<id>/camera/corners`` ``{corners, size?}`` | host | calibrate from four clicked corners |
| ``POST /api/games/<id>/camera/zones`` ``{image, size?}`` or ``{zones}`` | host | zones dragged on the view |

A game the camera does not follow (or a server without a camera) answers the view routes with 404 and a
message; the status route always answers, ``{"configured": false}`` on a server without a camera.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, current_app, jsonify

from web.access import AccessDenied, check_write, require
from web.api import _object, _record
from web.camera import BOUNDARY, CameraDesk, CameraError

__all__ = ["bp", "camera_status", "desk"]

bp = Blueprint("camera", __name__, url_prefix="/api")


def desk() -> CameraDesk | None:
    result: CameraDesk | None = current_app.extensions.get("tablecall.camera")
    return result


def _desk() -> CameraDesk:
    found = desk()
    if found is None:
        raise AccessDenied(404, "this server has no camera: start it with 'tablecall serve --camera 0' (or --video)")
    return found


def camera_status(game_id: str, role: str) -> dict[str, Any]:
    found = desk()
    if found is None:
        return {"configured": False, "attached": False}
    return found.status(game_id, host=role == "host")


def _no_store(response: Response) -> Response:
    response.headers["Cache-Control"] = "no-store"
    return response


def _run(call: Any, *args: Any) -> Any:
    try:
        return call(*args)
    except CameraError as exc:
        raise AccessDenied(exc.status, exc.message) from None


@bp.get("/games/<game_id>/camera")
def status(game_id: str) -> Any:
    record = _record(game_id)
    role = require(record, "viewer")
    return _no_store(jsonify(camera_status(record.id, role)))


@bp.get("/games/<game_id>/camera.jpg")
def snapshot(game_id: str) -> Response:
    record = _record(game_id)
    require(record, "viewer")
    data = _run(_desk().snapshot, record.id)
    return _no_store(Response(data, mimetype="image/jpeg"))


@bp.get("/games/<game_id>/camera.mjpg")
def mjpeg(game_id: str) -> Response:
    record = _record(game_id)
    require(record, "viewer")
    body = _run(_desk().mjpeg, record.id, float(current_app.config["STREAM_MAX_S"]))
    response = Response(body, content_type=f"multipart/x-mixed-replace; boundary={BOUNDARY}")
    response.headers["X-Accel-Buffering"] = "no"
    return _no_store(response)


def _host_request(game_id: str, what: str) -> tuple[str, dict[str, Any]]:
    """A host's camera request: the game's id and the JSON object sent (AccessDenied otherwise)."""
    record = _record(game_id)
    require(record, "host")
    return record.id, _object(check_write(), what)


def _host_status(game_id: str) -> Any:
    return _no_store(jsonify(camera_status(game_id, "host")))


@bp.post("/games/<game_id>/camera")
def attach(game_id: str) -> Any:
    game, _ = _host_request(game_id, "the request")
    the_desk = _desk()
    if the_desk.demo:
        raise AccessDenied(
            409, "the demo's video plays into the demo table; start 'tablecall serve --camera 0' instead"
        )
    _run(lambda: the_desk.attach(game))
    return _host_status(game)


@bp.post("/games/<game_id>/camera/detach")
def detach(game_id: str) -> Any:
    game, _ = _host_request(game_id, "the request")
    the_desk = _desk()
    _run(the_desk.table_for, game)
    if the_desk.demo:
        raise AccessDenied(409, "the demo's camera cannot be switched off; restart without --demo")
    the_desk.detach()
    return _host_status(game)


@bp.post("/games/<game_id>/camera/corners")
def corners(game_id: str) -> Any:
    game, body = _host_request(game_id, "the corners")
    _run(_desk().set_corners, game, body)
    return _host_status(game)


@bp.post("/games/<game_id>/camera/zones")
def zones(game_id: str) -> Any:
    game, body = _host_request(game_id, "the zones")
    _run(_desk().set_zones, game, body)
    return _host_status(game)
