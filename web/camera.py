"""The camera on the dashboard: one live table per server, attached to one game at a time.

``tablecall serve --camera 0`` (or ``--video FILE``, or the ``--demo``) gives the server a video source; a
:class:`CameraDesk` holds it and the :class:`vision.live.LiveTable` that watches it for one game of the hub
(the host picks the game: ``serve --game ID``, or "Use the camera for this game" on its table screen). Camera
events reach the game through the hub's single write path (``HubLink``), so they are stored, broadcast and
undone like a phone's.

Nothing here imports OpenCV until a table is attached: without the vision extras the desk says so (on the
dashboard and in the log) and the games are entered by hand as before. A source that fails (an unplugged
camera, an unreadable video) or a game the camera cannot follow is reported the same way; manual entry goes on.

Table configs (zones, calibration): ``serve --table FILE`` uses that file for every game (it must be made for
the game's kind and player count); without it each kind of game gets its own file beside the database,
``tables/<game>-<players>.toml``, so a calibration is kept across restarts.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

from scorer.shown import cut

__all__ = ["AUTO", "BOUNDARY", "CameraDesk", "CameraError", "vision_problem"]

log = logging.getLogger(__name__)

AUTO = "auto"
BOUNDARY = "frame"
MAX_POINTS = 64


class CameraError(Exception):
    """A camera request that cannot be done: an HTTP status and a message for the person."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def vision_problem() -> str | None:
    """None when the live table can run here, else why not (the vision extras are missing)."""
    try:
        import cv2  # noqa: F401

        import vision.live  # noqa: F401
    except ImportError as exc:
        missing = exc.name or str(exc)
        return f"the camera needs the vision extras ({missing} is missing): pip install -e '.[vision]'"
    return None


def describe_source(source: str | None) -> str:
    if source is None:
        return "no source yet"
    text = source.strip()
    if text.isdecimal():
        return f"camera {text}"
    if "://" in text:
        from vision.urls import shown_url  # standard library only: no OpenCV for a server without a camera

        return f"stream {shown_url(text)}"
    return f"video {text}"


def missing_file(source: str | None) -> str | None:
    """Why a video file or folder source cannot be read (it is not there), else None; cameras and streams are
    only known once opened."""
    if source is None or not describe_source(source).startswith("video ") or Path(source.strip()).exists():
        return None
    return f"video file {source.strip()}: no such file"


def _number(value: Any, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or value != value or abs(value) > 1e6:
        raise CameraError(400, f"{what} must be numbers of pixels, not {value!r}")
    return float(value)


def _points(value: Any, what: str, count: int | None = None) -> list[list[float]]:
    """``[[x, y], ...]`` from JSON, checked."""
    if not isinstance(value, list) or not all(isinstance(p, list) and len(p) == 2 for p in value):
        raise CameraError(400, f"'{what}' must be a list of points [[x, y], ...]")
    if count is not None and len(value) != count:
        raise CameraError(400, f"'{what}' needs exactly {count} points, not {len(value)}")
    if not 3 <= len(value) <= MAX_POINTS and count is None:
        raise CameraError(400, f"'{what}' needs 3 to {MAX_POINTS} points, not {len(value)}")
    return [[_number(x, what), _number(y, what)] for x, y in value]


def _size(value: Any) -> tuple[int, int] | None:
    if value is None:
        return None
    if (
        not isinstance(value, list)
        or len(value) != 2
        or not all(isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= 20000 for v in value)
    ):
        raise CameraError(400, f"'size' must be the picture's [width, height] in pixels, not {value!r}")
    return int(value[0]), int(value[1])


class _Streaming:
    """An iterable response body whose ``close`` always runs (frees the stream's place)."""

    def __init__(self, inner: Iterator[bytes], on_close: Callable[[], None]) -> None:
        self.inner, self.on_close, self.closed = inner, on_close, False

    def __iter__(self) -> Iterator[bytes]:
        return self

    def __next__(self) -> bytes:
        return next(self.inner)

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        try:
            close = getattr(self.inner, "close", None)
            if close is not None:
                close()
        finally:
            self.on_close()


class CameraDesk:
    """The server's video source and the live table watching it for one game (see the module docstring)."""

    def __init__(
        self,
        hub: Any,
        source: str | None,
        *,
        table: Path | None = None,
        tables_dir: Path | None = None,
        models: str | None = None,
        detector: Any = AUTO,
        recheck_s: float = 2.0,
        max_streams: int = 3,
        demo: bool = False,
        lossless: bool = False,
        on_frame: Callable[[Any], None] | None = None,
    ) -> None:
        self.hub = hub
        self.source = source
        self.table_path = table
        self.tables_dir = tables_dir
        self.models = models
        self.recheck_s = recheck_s
        self.max_streams = max_streams
        self.demo = demo  # the demo owns the source: the host cannot move it to another game
        self.lossless = lossless  # every frame of a file, as fast as it is processed (tests, offline runs)
        self.on_frame = on_frame  # sees every frame first (a test's stand-in detector follows the video)
        self._detector_spec = detector
        self._detector: tuple[Any, str] | None = None
        self._lock = threading.RLock()
        self.table: Any = None  # vision.live.LiveTable
        self.game_id: str | None = None
        self.generation = 0  # changes with every attach / detach (a screen reloads its camera view)
        self.unavailable = vision_problem()  # no vision extras: nothing can be attached
        # the last reason there is no live table (a video file that is not there is known at once) ...
        self.problem: str | None = self.unavailable or missing_file(source)
        self.problem_game: str | None = None  # ... about this game only (None: about the camera itself)
        self.note: str | None = None  # e.g. the demo's "no card detector installed: demo events are scripted"
        self.scripted = False
        self.frame_size: tuple[int, int] | None = None
        self.streams = 0
        self._stopped = threading.Event()  # the server is shutting down (ends the probe's retries)
        hub.camera_resends = self.resends  # what the screens say of a camera event re-ruled on a phone (Hub._said)
        if self.unavailable:
            log.warning("camera: %s", self.unavailable)

    def probe(self, again_s: float | None = None, on_answer: Callable[[], None] | None = None) -> str | None:
        """Open a webcam or stream source once, at start, so that one that is not there is said before a game
        uses it (as a missing video file is): the reason is returned for the caller to say, or None when it
        answers.  Nothing is given up: attaching a game
        opens it again, and the capture keeps trying until it answers.  With ``again_s``, a source that does not
        answer is tried again every ``again_s`` seconds on a thread of its own (never on a request) until it
        answers, a game attaches or the server stops, so a webcam plugged in later clears the message; then
        ``on_answer()`` runs (the terminal says so)."""
        if self.unavailable or self.problem or self.source is None:
            return None
        from vision.capture import probe

        source = self.source
        reason = probe(source, timeout_ms=2000)
        if reason is not None:
            with self._lock:
                if self.table is None:  # not attached meanwhile
                    self.problem, self.problem_game = reason, None
            if again_s is not None:
                thread = threading.Thread(
                    target=self._probe_again,
                    args=(source, reason, again_s, on_answer),
                    name="camera-probe",
                    daemon=True,
                )
                thread.start()
        return reason

    def _probe_again(self, source: str, reason: str, every_s: float, on_answer: Callable[[], None] | None) -> None:
        from vision.capture import probe

        def still_absent() -> bool:  # not when a game attached (its capture keeps trying) or the message changed
            return self.table is None and self.problem == reason and self.source == source

        while not self._stopped.wait(every_s):
            with self._lock:
                if not still_absent():
                    return
            # the capture waits 4 s for a source to open: a phone slow to answer (3 s) was said absent for good,
            # while a game using it had its pictures (the phone-camera audit, session 44); the start's 2 s holds the
            # server's start, this thread holds nothing
            if probe(source, timeout_ms=4000) is None:
                with self._lock:
                    if not still_absent():
                        return
                    self.problem = self.problem_game = None
                log.info("camera: %s answers now", describe_source(source))
                if on_answer is not None:
                    on_answer()
                return

    # -- attaching ----------------------------------------------------------------------------------
    @property
    def label(self) -> str:
        return describe_source(self.source)

    def _config_path(self, game: str, players: int) -> Path | None:
        if self.table_path is not None:
            return self.table_path
        if self.tables_dir is not None:
            return self.tables_dir / f"{game}-{players}.toml"
        return None

    def _load_detector(self) -> tuple[Any, str]:
        """The card detector, loaded once per server (``models``: the weights' folder), and its status line."""
        if self._detector_spec != AUTO:
            spec = self._detector_spec
            return spec, ("card detector ready" if spec is not None else "no card detector given")
        if self._detector is None:
            from vision.detections import DetectorUnavailable, load_detector

            try:
                self._detector = (load_detector(self.models), "card detector ready")
            except DetectorUnavailable as exc:
                self._detector = (None, f"no card detector: {exc}")
                log.warning("camera: %s", self._detector[1])
        return self._detector

    def attach(
        self,
        game_id: str,
        *,
        source: str | None = None,
        config: Any = None,
        on_frame: Callable[[Any], None] | None = None,
        prepare: Callable[[Any], None] | None = None,
    ) -> Any:
        """Start a live table for ``game_id`` (stopping the one before); raises CameraError.

        ``config`` (a TableConfig) is used instead of the game's file (the demo keeps its calibration and zone
        edits across loops); ``prepare(table)`` runs before the table starts."""
        if self.unavailable:
            raise CameraError(409, self.unavailable)
        source = source or self.source
        if source is None:
            raise CameraError(409, "this server has no camera: start it with 'tablecall serve --camera 0'")
        live = self.hub.live(game_id)
        if live is None:
            raise CameraError(404, f"there is no game '{cut(game_id)}'")
        with self._lock:
            # built before the table before stops (building opens no camera): a game the camera cannot follow (Ten,
            # a damaged table file) left the game it followed without one, saying nothing (error-handling audit, s41)
            try:
                table = self._build(game_id, source, config, on_frame)
            except (ValueError, KeyError, OSError) as exc:  # ConfigError, SourceError, LayoutError: ValueErrors
                reason = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
                self.problem = f"the camera cannot follow this game: {reason}"
                self.problem_game = game_id
                log.warning("camera: %s", self.problem)
                raise CameraError(400, self.problem) from None
            self._stop_table()
            self.source = source
            if prepare is not None:
                prepare(table)
            self.table, self.game_id, self.frame_size = table, game_id, None
            self.problem = self.problem_game = None
            self.generation += 1
            table.start()
        log.info("camera: %s follows game %s (%s)", self.label, game_id, live.record.title)
        return table

    def _build(self, game_id: str, source: str, config: Any, on_frame: Callable[[Any], None] | None) -> Any:
        from vision.links import HubLink
        from vision.live import LiveTable

        record = self.hub.live(game_id).record
        path = self._config_path(record.game, len(record.players))
        detector, message = self._load_detector()

        def frame_hook(frame: Any) -> None:
            self.frame_size = frame.size
            if self.on_frame is not None:
                self.on_frame(frame)
            if on_frame is not None:
                on_frame(frame)

        options: dict[str, Any] = {
            "detector": detector,
            "on_frame": frame_hook,
            "recheck_s": self.recheck_s,
            "lossless": self.lossless,
        }
        if config is not None:
            table = LiveTable(source, HubLink(self.hub, game_id), config, config_path=path, **options)
        else:
            table = LiveTable.for_hub(self.hub, game_id, source, path, **options)
        if detector is None:
            table.detector_message = message
        return table

    def resends(self, game_id: str, seq: int, code: str) -> bool:
        """Whether the camera following ``game_id`` enters the card of its event ``seq`` again once it can count, that
        event re-ruled by a change on a phone into the foul ``code`` (:meth:`vision.live.LiveTable.resends`)."""
        table = self.table
        return table is not None and self.game_id == game_id and bool(table.resends(seq, code))

    def _stop_table(self) -> None:
        table, self.table, self.game_id = self.table, None, None
        if table is not None:
            self.generation += 1
            table.stop()

    def detach(self) -> None:
        with self._lock:
            self._stop_table()
            self.scripted, self.note = False, None

    def stop(self) -> None:
        """Server shutdown: the table stops (its camera view streams end), and so does trying an absent source."""
        self._stopped.set()
        self.detach()

    def table_for(self, game_id: str) -> Any:
        """The live table following ``game_id``; CameraError 404 when there is none."""
        with self._lock:
            if self.table is not None and self.game_id == game_id:
                return self.table
        if self.unavailable:
            raise CameraError(404, self.unavailable)
        raise CameraError(404, "the camera is not following this game")

    # -- reading ------------------------------------------------------------------------------------
    def status(self, game_id: str, host: bool) -> dict[str, Any]:
        """What a table screen shows about the camera (``live``: ``LiveTable.status()`` when it follows this game)."""
        with self._lock:
            table = self.table if self.game_id == game_id else None
            out: dict[str, Any] = {
                "configured": True,
                "source": self.label,
                "attached": table is not None,
                "generation": self.generation,
                "problem": self.problem if host and self.problem_game in (None, game_id) else None,
                "note": self.note if table is not None else None,
                "scripted": self.scripted and table is not None,
                "demo": self.demo,
                "elsewhere": self.game_id if host and table is None else None,
                "can_attach": host and not self.demo and not self.unavailable and self.source is not None,
            }
        if table is not None:
            out["live"] = table.status()
            out["image"] = self._image(table)
        return out

    def _image(self, table: Any) -> dict[str, Any]:
        """The zones and the play area's corners in the picture's pixels (what the screen draws and drags)."""
        calibration = table.config.calibration
        size = self.frame_size or (tuple(calibration.image_size) if calibration is not None else None)
        out: dict[str, Any] = {"size": list(size) if size else None, "zones": None, "corners": None}
        if calibration is None or size is None:
            return out
        scaled = calibration.scaled(size)
        layout = table.config.layout
        w, h = layout.table
        out["corners"] = [
            [round(float(x), 1), round(float(y), 1)] for x, y in scaled.to_image([(0, 0), (w, 0), (w, h), (0, h)])
        ]
        out["zones"] = [
            {
                "name": zone.name,
                "kind": zone.kind,
                "points": [[round(float(x), 1), round(float(y), 1)] for x, y in scaled.to_image(zone.polygon)],
            }
            for zone in layout.zones
        ]
        return out

    def snapshot(self, game_id: str) -> bytes:
        data: bytes = self.table_for(game_id).snapshot()
        return data

    def mjpeg(self, game_id: str, lifetime: float) -> _Streaming:
        """The camera view as an MJPEG body; ends after ``lifetime`` s, when the table changes, or on shutdown."""
        table = self.table_for(game_id)
        with self._lock:
            if self.streams >= self.max_streams:
                raise CameraError(503, "too many camera views are open on this server; this one shows snapshots")
            self.streams += 1
            generation = self.generation

        def chunks() -> Iterator[bytes]:
            ends = time.monotonic() + lifetime
            for chunk in table.mjpeg(boundary=BOUNDARY):
                yield chunk
                if chunk.startswith(b"\r\n\r\n") and (time.monotonic() > ends or self.generation != generation):
                    return

        def release() -> None:
            with self._lock:
                self.streams -= 1

        return _Streaming(chunks(), release)

    # -- editing (host) -----------------------------------------------------------------------------
    def _scale(self, points: list[list[float]], size: tuple[int, int] | None) -> list[list[float]]:
        """Points given on a picture of ``size`` -> the camera's frame size."""
        frame = self.frame_size
        if size is None or frame is None or tuple(size) == tuple(frame):
            return points
        sx, sy = frame[0] / size[0], frame[1] / size[1]
        return [[x * sx, y * sy] for x, y in points]

    def set_corners(self, game_id: str, body: Mapping[str, Any]) -> None:
        """``{"corners": [[x, y] * 4], "size": [w, h]?}``: far-left, far-right, near-right, near-left."""
        from vision.calibrate import CalibrationError

        table = self.table_for(game_id)
        points = self._scale(_points(body.get("corners"), "corners", 4), _size(body.get("size")))
        try:
            table.set_corners(points)
        except CalibrationError as exc:
            raise CameraError(400, str(exc)) from None
        log.info("camera: calibrated from corners clicked on the dashboard")

    def set_zones(self, game_id: str, body: Mapping[str, Any]) -> None:
        """``{"image": {zone: [[x, y], ...]}, "size": [w, h]?}`` (vertices dragged on the camera view: the named
        zones get new outlines) or ``{"zones": [{name, kind, polygon (mm), owner?, slot?}, ...]}`` (all zones)."""
        from vision.zones import LayoutError

        table = self.table_for(game_id)
        if ("image" in body) == ("zones" in body):
            raise CameraError(400, "send either 'image' (zone outlines in picture pixels) or 'zones' (table mm)")
        if "zones" in body:
            zones = body["zones"]
            if not isinstance(zones, list) or not all(isinstance(z, dict) for z in zones):
                raise CameraError(400, "'zones' must be a list of zones {name, kind, polygon: [[x, y], ...]}")
        else:
            zones = self._zones_from_image(table, body["image"], _size(body.get("size")))
        try:
            table.set_zones(zones)
        except (LayoutError, ValueError, TypeError) as exc:
            raise CameraError(400, str(exc)) from None
        log.info("camera: zones edited on the dashboard")

    def _zones_from_image(self, table: Any, image: Any, size: tuple[int, int] | None) -> list[dict[str, Any]]:
        if not isinstance(image, dict) or not image:
            raise CameraError(400, "'image' must map zone names to their corners [[x, y], ...] in the picture")
        calibration = table.config.calibration
        if calibration is None:
            raise CameraError(409, "calibrate the camera first: click the table's four corners")
        frame = size or self.frame_size or tuple(calibration.image_size)
        scaled = calibration.scaled(frame)
        zones = [zone.to_json() for zone in table.config.layout.zones]
        names = {zone["name"] for zone in zones}
        unknown = sorted(set(image) - names)
        if unknown:
            raise CameraError(400, f"no zone called {unknown[0]!r} on this table (zones: {', '.join(sorted(names))})")
        for zone in zones:
            if zone["name"] in image:
                points = _points(image[zone["name"]], f"zone {zone['name']}")
                zone["polygon"] = [[round(float(x), 1), round(float(y), 1)] for x, y in scaled.to_table(points)]
        return zones
