"""The live table: camera -> calibration -> detections -> stable table -> observer -> events, on its own thread.

``LiveTable(source, link, config)`` is what the dashboard starts (see ``docs/live.md``)::

    table = LiveTable.for_hub(hub, game_id, "0", "table.toml")   # = LiveTable(source, HubLink(hub, game_id), config)
    table.start()                 # returns at once; capture and processing run on daemon threads
    table.status()                # plain JSON for the dashboard: camera, calibration, detector, flags, events
    table.mjpeg()                 # the annotated camera view as multipart JPEG chunks (an MJPEG response body)
    table.snapshot()              # one JPEG of it (the fallback)
    table.set_corners(points)     # the four corners clicked on the camera view (saved to the config)
    table.set_zones(zones)        # zones edited on the dashboard (saved)
    table.stop()

``on_event(event, seq, rulings)`` is called after each camera event the game accepted, ``on_frame(frame)``
before each frame is processed (both on the pipeline thread; keep them short).

Nothing here blocks the web server: the pipeline thread only calls ``link.append`` (a short write under the
game's lock). Each frame: the newest frame of a camera or stream is taken (older ones are skipped: the table is
followed as it is now); a video file or folder gives every frame, paced to real time, and waits while the pipeline
is behind (``lossless=True``: every frame as fast as it goes, for tests and offline runs); without a
calibration the corner markers are looked for (every ``recheck_s``), with one the calibration is re-checked that
often (a first reading that finds it off stops the tracking until the next frame's reading: a bump, confirmed twice,
is recalibrated from the markers, and what changed meanwhile is then taken as laid down, not read anew); then
the detector, :func:`vision.sightings.sightings`, :class:`vision.occlusion.MotionMeter` (zones a hand covers),
:class:`vision.track.Tracker`, and the game's observer, whose proposals are appended as ``vision`` events.
A lost camera, a failed video, a missing calibration or detector are shown in the status and the camera view
and logged; no frame means no change, so nothing is lost or invented while the camera is away.
"""

from __future__ import annotations

import inspect
import json
import logging
import os
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from scorer.events import EventError
from scorer.session import RefereeFault
from scorer.shown import cut
from vision import annotate, clock
from vision.calibrate import Calibration, CalibrationError, DriftWatch, from_corners, from_markers
from vision.capture import Capture, Frame, Source, blank
from vision.detections import DetectionError, Detections, Detector, DetectorUnavailable, adapt, load_detector
from vision.links import CameraEvents, GameLink, HubLink, SessionLink, VisionEvent
from vision.liveview import CameraView
from vision.observers import Observer, observer_for
from vision.occlusion import MotionMeter
from vision.sightings import sightings
from vision.tableconfig import ConfigError, TableConfig, default_config, load_config, save_config
from vision.track import Tracker, Update, deck_for, face_down_zones, spread_zones
from vision.zones import Layout, LayoutError, Zone

__all__ = ["GameLink", "HubLink", "LiveTable", "SessionLink", "VisionEvent"]

log = logging.getLogger(__name__)

Json = Any
Cards = dict[str, frozenset[str]]  # zone -> card names
AUTO = "auto"
#: the camera view says so when the pipeline reads fewer of a camera's pictures than this share, or a video plays
#: slower than this share of real time (a paced file waits for the pipeline)
SKIP_WARNING = 0.9
#: a poker card's corner index (rank over suit) is about this tall, mm; the camera view warns when it is fewer than
#: MIN_INDEX_PX pixels tall in the camera's picture (a pipeline audit on the Snap demo video: at 320x240, 4 px, it
#: sent a card nobody played; at 640x360, 6.8 px, it read 7 of 8 flips; at 1280x720 the indices are 13.6 px)
INDEX_MM = 15.0
MIN_INDEX_PX = 6
#: frames in a row that go wrong (a bug, a detector failing at run time) before the dashboard says so (one alone, say
#: a hand's odd shape, is only logged)
FAULT_FRAMES = 3
# A camera or stream that gave no picture for this long was away (a phone's stream stalled or reconnected): what
# changed meanwhile was laid then, not read anew. A camera sending a picture every 0.5-1 s (a phone on weak Wi-Fi) is
# slow, not away: the motion meter compares its pictures as they come (the phone-camera audit, session 44: every card
# laid on a pile in a gap, or under such a camera, was taken for its top read anew, and a right Snap call ruled false).
AWAY_MS = 1500
SAY_AWAY_MS = 3000  # away this long: the camera view asks the players to check the cards played meanwhile
#: a camera silent since the machine slept, for no longer than this once it woke, is said to be waiting for the
#: machine (a webcam or a phone's stream takes seconds to come back after a suspend), not to have stopped
WAKE_MS = 10_000
SLOW_CAMERA_FPS = 4.0  # a camera or stream sending fewer pictures a second than this is said to (cards can be missed)
#: a camera event the referee failed on (a bug, scorer.session.RefereeFault) is tried again this long after, ms
REFEREE_RETRY_MS = 2000.0
#: a step that keeps failing (a hook on every camera event, the store) is logged with its traceback once; how often it
#: failed again since is logged at most this often, s, and its recovery once (visfault F7, session 41: a traceback per
#: event for the whole evening)
TROUBLE_REPORT_S = 60.0


@dataclass
class _Trouble:
    """A failing step logged with its traceback: when its count was last said, and the failures since."""

    said: float
    since: int = 0
    total: int = 1


def read_region(calibration: Calibration, layout: Layout, margin_mm: float) -> tuple[float, float, float, float] | None:
    """The part of the frame (x1, y1, x2, y2 px) the detector needs to read: the box around every zone, ``margin_mm``
    wider on each side, as the camera sees it. None (read it all) when the margin is 0 or there are no zones.
    Cards outside it count nowhere (a card belongs to the zone its centre lies in); what it saves is the
    detector's time, which grows with the pixels read (the Snap demo's zones at 80 mm: 62 % of its 1280x720 frame)."""
    if margin_mm <= 0 or not layout.zones:
        return None
    corners = np.array([point for zone in layout.zones for point in zone.polygon], np.float64)
    (x1, y1), (x2, y2) = corners.min(axis=0) - margin_mm, corners.max(axis=0) + margin_mm
    seen = calibration.to_image(np.array([[x1, y1], [x2, y1], [x2, y2], [x1, y2]]))
    (left, top), (right, bottom) = seen.min(axis=0), seen.max(axis=0)
    return float(left), float(top), float(right), float(bottom)


def _takes_region(detector: Detector | None) -> bool:
    """Whether the detector can read a part of a frame (a ``region`` keyword, as ``CardReader.read`` has)."""
    if detector is None:
        return False
    try:
        return "region" in inspect.signature(detector).parameters
    except (TypeError, ValueError):
        return False


class LiveTable:
    """The pipeline for one table and one game (see the module docstring)."""

    def __init__(
        self,
        source: Source | str | int | Capture,
        link: GameLink,
        config: TableConfig,
        *,
        detector: Detector | str | None = AUTO,
        config_path: str | os.PathLike[str] | None = None,
        lossless: bool = False,
        recheck_s: float = 0.5,
        on_event: Callable[[VisionEvent, int, list[Any]], None] | None = None,
        on_frame: Callable[[Frame], None] | None = None,
    ) -> None:
        if not isinstance(source, Capture):
            spec = source if isinstance(source, Source) else Source.parse(source)
            source = Capture(spec, lossless=lossless or not spec.live, realtime=not lossless)
        self.capture = source
        self.link, self.config, self.config_path = link, config, config_path
        self.recheck_s, self.on_event, self.on_frame = recheck_s, on_event, on_frame
        if config.layout.game != link.game or config.layout.players != len(link.players):
            raise ValueError(
                f"the table config is for {config.layout.game} with {config.layout.players} players; "
                f"the game is {link.game} with {len(link.players)}"
            )
        self.detector: Detector | None = None
        self.detector_message = "no card detector given"
        if detector == AUTO:
            try:
                self.detector = load_detector()
                self.detector_message = "card detector ready"
            except DetectorUnavailable as exc:
                self.detector_message = f"no card detector: {exc}"
                log.warning("%s", self.detector_message)
        elif detector is not None and not isinstance(detector, str):
            self.detector, self.detector_message = detector, "card detector ready"
        self._reads_regions = _takes_region(self.detector)
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self.view = CameraView(self.annotated, lambda: self.capture.status.ok, self._stop)
        self._thread: threading.Thread | None = None
        self._ended = threading.Event()  # _run has returned (what wait() waits on: see there)
        self._events: deque[dict[str, Json]] = deque(maxlen=12)
        self._alerts: deque[str] = deque(maxlen=4)
        self._fps = 0.0
        self._read_share = 1.0  # of the source's pictures, those the pipeline reads (a slow one skips the rest)
        self._speed = 1.0  # of real time, how fast the video plays (a paced file waits for a slow pipeline)
        self._busy_ms = 0.0
        self._next_check = 0.0
        self._moved = 0  # re-checks in a row that found the calibration off (a hand over a marker, or a bump)
        self._recalibrated = False  # the calibration was found again after a move: the next frame starts afresh
        self._recheck_note: str | None = None  # why the calibration cannot be re-checked now (no marker in view)
        self._small: tuple[tuple[int, int], float] | None = None  # (frame size, px per corner index) last measured
        self._flagged: set[str] = set()
        self._trouble: str | None = None  # what went wrong in this frame (a bug: :meth:`_failed`)
        self._troubled = 0  # frames in a row that went wrong
        # the failing steps logged with their traceback, by (step, kind of error), until the step goes right again
        self._logged_trouble: dict[tuple[str, str], _Trouble] = {}
        self.fault: str | None = None  # what the dashboard says once frames keep going wrong
        self.unsaved: str | None = None  # why the calibration and zones could not be saved in config_path
        # a proposal the referee failed on (a bug) -> when to try it again, and what the dashboard says meanwhile
        self._referee_waits: dict[str, tuple[float, str]] = {}
        self._asleep_ms = clock.asleep_ms()  # the machine's time asleep as of the last frame (vision.clock)
        self.sent: list[VisionEvent] = []
        self._install(config)

    @classmethod
    def for_hub(
        cls,
        hub: Any,
        game_id: str,
        source: Source | str | int | Capture,
        config_path: str | os.PathLike[str] | None = None,
        **options: Any,
    ) -> LiveTable:
        """A live table for game ``game_id`` of the dashboard's hub: the config at ``config_path`` (a new one from
        the game's default zones when there is no file yet; it is written once calibrated). Raises ConfigError
        (a bad file, or one made for another game) and KeyError (no such game)."""
        link = HubLink(hub, game_id)
        path = None if config_path is None else Path(config_path)
        if path is not None and path.exists():
            config = load_config(path)
            if config.layout.game != link.game or config.layout.players != len(link.players):
                raise ConfigError(
                    f"{path} is a table for {config.layout.game} with {config.layout.players} players; this game is "
                    f"{link.game} with {len(link.players)}: use another --table file"
                )
        else:
            config = default_config(link.game, len(link.players))
        return cls(source, link, config, config_path=path, **options)

    # -- set-up --------------------------------------------------------------------------------------------
    def _install(self, config: TableConfig, fresh: bool = True) -> None:
        """(Re)build what depends on the config: tracker and observer (when ``fresh``: new zones), the motion
        meter and the drift watch (a new calibration keeps the stable table: it is in table coordinates)."""
        self.config = config
        if fresh:
            layout = config.layout
            self.tracker = Tracker(
                config.tracking, deck_for(layout.game), spread_zones(layout), face_down_zones(layout)
            )
            self.observer: Observer = observer_for(
                config.layout.game, config.layout, self.link.players, self.link.options
            )
            self._mine = CameraEvents()  # the new observer's events (a Reject tells it the reading was wrong)
            self._mine.start(self.link, self.observer)  # and the log: the cards lying there at its start (a restart)
        self._calibration_state = "ok" if config.calibration else "missing"
        self._calibration_message = (
            f"calibrated ({config.calibration.method})"
            if config.calibration
            else "not calibrated: show the four corner markers to the camera, or click the table's corners"
        )
        self.motion = MotionMeter(config.calibration, config.layout, config.tracking) if config.calibration else None
        self.drift = DriftWatch(config.calibration, config.layout) if config.calibration else None
        self._small = None  # the index size is measured again for the new calibration

    def _calibrated(self, calibration: Calibration, message: str) -> None:
        config = self.config.with_calibration(calibration)
        with self._lock:
            self._recalibrated = self._calibration_state == "moved"
            self._install(config, fresh=False)
            self._calibration_message = message
            self._moved = 0
        log.info("%s", message)
        self._save(config)

    def _save(self, config: TableConfig) -> None:
        """Keep the calibration and zones in the table's file for next time. One that cannot be written (a read-only
        folder, a full disk) is said, and what was set holds until the camera stops: clicking the corners answered
        "tablecall hit a bug" while the calibration had been taken (error-handling audit, session 41)."""
        if self.config_path is None:
            return
        try:
            save_config(self.config_path, config)
        except OSError as exc:
            self.unsaved = (
                f"the table's calibration and zones could not be saved in {self.config_path} "
                f"({exc.strerror or exc}): they hold until the camera stops"
            )
            log.error("%s", self.unsaved)
        else:
            self.unsaved = None

    def set_corners(self, points: Sequence[Sequence[float]]) -> Calibration:
        """Calibrate from the four corners clicked on the camera view; raises CalibrationError."""
        last = self.view.last
        size = last[0].size if last else (self.config.calibration.image_size if self.config.calibration else None)
        if size is None:
            raise CalibrationError("no camera picture yet: wait for the camera view, then click the corners")
        calibration = from_corners(points, self.config.layout, size)
        self._calibrated(calibration, "calibrated from the clicked corners")
        return calibration

    def set_zones(self, zones: Sequence[Mapping[str, Json]]) -> Layout:
        """Replace the zones (edited on the dashboard): the game's own, each once, only their outlines moved
        (:meth:`vision.zones.Layout.check_zones`, as for a table config file: a renamed or missing pile zone stopped
        the camera reading that player's cards without a word); raises LayoutError. The stable table starts afresh."""
        new = tuple(Zone.from_json(dict(z)) for z in zones)
        if not new:
            raise LayoutError("a table needs at least one zone")
        layout = replace(self.config.layout, zones=new)
        layout.check_zones()
        config = replace(self.config, layout=layout)
        with self._lock:
            self._install(config)
        self._save(config)
        return layout

    # -- running -------------------------------------------------------------------------------------------
    def start(self) -> LiveTable:
        if self._thread is None:
            self.capture.start()
            self._thread = threading.Thread(target=self._run, name="tablecall live table", daemon=True)
            self._thread.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        self.capture.stop(timeout)
        if self._thread is not None:
            self._thread.join(timeout)
        self.view.wake()

    def wait(self, timeout: float | None = None) -> bool:
        """Wait until the source has ended (a file) or the table is stopped; True if it has. It waits on an
        event, not on ``Thread.join``: a Ctrl-C landing in a join (Python 3.11) can leave the thread taken for
        finished while it still reads a frame, so that ``stop`` no longer waits for it and the process aborts
        at exit ("terminate called without an active exception") with the thread inside OpenVINO."""
        if self._thread is None:
            return True
        return self._ended.wait(timeout)

    def _run(self) -> None:
        try:
            self._loop()
        finally:
            self._ended.set()

    def _loop(self) -> None:
        previous: Frame | None = None
        while not self._stop.is_set():
            frame = self.capture.next(timeout=0.5)
            if frame is None:
                if self.capture.status.state in ("failed", "ended", "stopped"):
                    break
                self.view.wake()
                continue
            started = time.perf_counter()
            try:
                self._process(frame)
                self._fine("read the table")
            except Exception as exc:  # a bug must not kill the camera for the rest of the evening
                self._failed("read the table", exc)
            self._account()
            self._busy_ms = (time.perf_counter() - started) * 1000
            if previous is not None:
                self._keep_pace(previous, frame)
            previous = frame
        self.view.wake()

    def _slept(self) -> int:
        """How long the machine slept since the last frame, ms; under AWAY_MS it did not (the two clocks' readings are
        apart by however long this thread waited between them: on a busy machine a stalled camera was "waiting for its
        pictures (this computer was asleep for 0 s)")."""
        asleep = clock.asleep_ms() - self._asleep_ms
        return asleep if asleep >= AWAY_MS else 0

    def _said_away(self, away_ms: int, asleep_ms: int = 0) -> None:
        """A camera or stream back after a gap: logged; a long one is said on the camera view, since cards played
        meanwhile on different piles show up together, in an order one picture cannot tell. A gap the machine spent
        asleep (``asleep_ms`` of it) is said as such: "the camera sent no picture" blamed the camera for a laptop's
        suspend (a carried item, session 47)."""
        if asleep_ms and away_ms - asleep_ms < WAKE_MS:
            log.info("%s: no picture for %.1f s, the machine asleep", self.capture.source.describe(), away_ms / 1000)
            if away_ms >= SAY_AWAY_MS:
                said = f"this computer was asleep for {asleep_ms / 1000:.0f} s: check the cards played meanwhile"
                self._alerts.append(said)
            return
        log.info("%s: no picture for %.1f s", self.capture.source.describe(), away_ms / 1000)
        if away_ms >= SAY_AWAY_MS:
            said = f"the camera sent no picture for {away_ms / 1000:.0f} s: check the cards played meanwhile"
            self._alerts.append(said)

    def _failed(self, what: str, exc: Exception) -> None:
        """Something went wrong in this frame (a bug, a detector failing at run time): logged with its traceback once,
        not every frame (15 tracebacks in 3 s), and said on the dashboard once it keeps happening (the status said
        "running" with a frozen picture and no event sent: error-handling audit, session 41). The same step failing
        the same way again, until it goes right (:meth:`_fine`), is counted, the count logged every TROUBLE_REPORT_S:
        a good frame between is no mending (an ``on_event`` hook failing on every event, the frames between good,
        logged a traceback per event: visfault F7, session 41)."""
        said = f"the camera cannot {what} ({type(exc).__name__}: {cut(str(exc), 80)})"
        self._trouble = self._trouble or said
        key, now = (what, type(exc).__name__), time.monotonic()
        trouble = self._logged_trouble.get(key)
        if trouble is None:
            log.exception("%s", said)
            self._logged_trouble[key] = _Trouble(now)
            return
        trouble.since, trouble.total = trouble.since + 1, trouble.total + 1
        if now - trouble.said >= TROUBLE_REPORT_S:
            times = "once" if trouble.since == 1 else f"{trouble.since} times"
            log.warning(
                "%s: again, %s in the last %.0f s (its traceback was logged the first time)",
                said,
                times,
                now - trouble.said,
            )
            trouble.said, trouble.since = now, 0

    def _fine(self, what: str) -> None:
        """Step ``what`` went right: a failure of it logged before is over, and the log says so once."""
        if not self._logged_trouble:
            return
        for key in [key for key in self._logged_trouble if key[0] == what]:
            total = self._logged_trouble.pop(key).total
            times = "once" if total == 1 else f"{total} times"
            log.info("the camera can %s again (it failed %s with %s)", what, times, key[1])

    def fault_now(self) -> str | None:
        """What keeps going wrong: frames failing (:attr:`fault`), or a camera event the referee fails on (a bug),
        tried again every REFEREE_RETRY_MS, the frames between counting as good (it was never said: a review)."""
        return self.fault or next((said for _, said in self._referee_waits.values()), None)

    def _account(self) -> None:
        """After each frame: a fault said once ``FAULT_FRAMES`` frames in a row went wrong, taken back at a good one."""
        if self._trouble is None:
            self._troubled, self.fault = 0, None
            return
        self._troubled += 1
        if self._troubled >= FAULT_FRAMES:
            self.fault = f"{self._trouble}; the server log has the details"
        self._trouble = None

    def _keep_pace(self, previous: Frame, frame: Frame) -> None:
        """The rates the camera view shows (moving averages): frames read a second, the share of a camera's
        pictures read (a slow pipeline skips the rest), and how fast a paced video plays (it waits for one)."""
        if frame.wall_ms > previous.wall_ms:
            rate = 1000 / (frame.wall_ms - previous.wall_ms)
            self._fps = 0.8 * self._fps + 0.2 * rate if self._fps else rate
            speed = min(1.0, (frame.pos_ms - previous.pos_ms) / (frame.wall_ms - previous.wall_ms))
            self._speed = 0.8 * self._speed + 0.2 * speed
        if frame.index > previous.index:
            self._read_share = 0.8 * self._read_share + 0.2 / (frame.index - previous.index)

    def _process(self, frame: Frame) -> None:
        if self.on_frame is not None:
            self.on_frame(frame)
        with self._lock:
            config, tracker, observer, motion, mine = self.config, self.tracker, self.observer, self.motion, self._mine
        now = time.monotonic()
        if now >= self._next_check:
            self._next_check = now + self.recheck_s
            self._check_calibration(frame)
            with self._lock:
                config, tracker, observer, motion, mine = (
                    self.config,
                    self.tracker,
                    self.observer,
                    self.motion,
                    self._mine,
                )
        if config.calibration is None or self._calibration_state != "ok" or motion is None or self._moved:
            self._show(frame, None, None)  # not calibrated, or the camera seems to have moved: nothing is tracked
            return
        calibration = config.calibration.scaled(frame.size)
        self._measure_index(calibration, frame.size)
        detections = self._detect(frame, self._region(config, frame.size))
        motion_before = motion.saved()
        away = frame.away_ms >= AWAY_MS
        asleep, self._asleep_ms = self._slept(), clock.asleep_ms()
        if away:  # the picture before is seconds old: no evidence of motion (and the light may have changed)
            motion.reset()
            self._said_away(frame.away_ms, asleep)
        if not motion.compares:  # a new meter (the corners clicked again), or reset: no motion measured
            tracker.unmeasured()
        frozen = motion.update(frame.image)
        if self._recalibrated:  # what changed while the camera was off was laid down then, not read anew
            frozen, self._recalibrated = tuple(z.name for z in config.layout.zones), False
        moved = tuple(z.name for z in config.layout.zones) if away else ()  # laid while it was away
        view, possible, likely = self._view(observer) if detections else (None, None, None)
        seen = (
            sightings(
                detections, calibration.homography, config.layout, config.tracking, possible, likely, tracker.deck
            )
            if detections
            else []
        )
        try:
            update = tracker.update(seen, frozen, frame.wall_ms, moved)
        except Exception:  # a frame the tracker did not take: the motion meter forgets it too
            motion.restore(motion_before)
            raise
        for flag in update.flags:
            if flag.message not in self._flagged:
                log.warning("impossible table: %s", flag.message)
        self._flagged = {f.message for f in update.flags}
        if detections is not None:
            self._observe(observer, mine, update, frame, view)
        self._show(frame, detections, update)

    def _view(self, observer: Observer) -> tuple[Mapping[str, Json] | None, Cards | None, Cards | None]:
        """The referee's view, the cards each zone can hold by it and those it would hold by the rules (all None
        when it cannot be had)."""
        try:
            view = self.link.view()
            seen = view, observer.possible(view), observer.likely(view)
        except Exception as exc:  # (a traceback every frame: fault fuzz, session 41)
            self._failed("read the referee's view", exc)
            return None, None, None
        self._fine("read the referee's view")
        return seen

    def _region(self, config: TableConfig, size: tuple[int, int]) -> tuple[float, float, float, float] | None:
        """The part of a frame of ``size`` the detector reads (:func:`read_region`); None: all of it (no
        calibration, a margin of 0, or a detector that reads whole frames only)."""
        if config.calibration is None or not self._reads_regions:
            return None
        return read_region(config.calibration.scaled(size), config.layout, config.tracking.read_margin_mm)

    def _detect(self, frame: Frame, region: tuple[float, float, float, float] | None = None) -> Detections | None:
        """The detector's cards in ``frame`` (around ``region`` of it, when given: :meth:`_region`), validated;
        None (and a message) when its output is unusable."""
        if self.detector is None:
            return None
        try:
            if region is not None:
                detections = adapt(self.detector(frame.image, region=region))  # type: ignore[call-arg]
            else:
                detections = adapt(self.detector(frame.image))
        except DetectionError as exc:
            message = f"the card detector gave unusable output: {exc}"
            if message != self.detector_message:
                log.error("%s", message)
            self.detector_message = message
            return None
        self.detector_message = "card detector ready"
        return detections

    def _check_calibration(self, frame: Frame) -> None:
        calibration = self.config.calibration
        if calibration is None or self._calibration_state == "moved":
            try:
                found = from_markers(frame.image, self.config.layout)
            except CalibrationError as exc:
                note = str(exc) if calibration is None else f"the camera has moved: {exc}"
                if note != self._calibration_message:
                    log.warning("calibration: %s", note)
                self._calibration_message = note
                return
            self._calibrated(found, f"calibrated from {len(found.markers)} markers ({found.error_mm:.1f} mm)")
            return
        assert self.drift is not None
        drift = self.drift.check(frame.image)
        note = drift.message if drift.moved is None else None
        if note != self._recheck_note and note is not None:
            log.warning("calibration: %s", note)
        self._recheck_note = note
        self._moved = self._moved + 1 if drift.moved else 0
        if self._moved == 1:  # the first reading off: nothing is tracked until the next frame says which it is
            self._next_check = 0.0
        if self._moved >= 2:  # twice in a row: not a hand over a marker
            self._calibration_state, self._calibration_message = "moved", drift.message
            log.warning("calibration: %s", drift.message)
            self._check_calibration(frame)

    def _observe(
        self, observer: Observer, mine: CameraEvents, update: Update, frame: Frame, view: Mapping[str, Json] | None
    ) -> None:
        """``observer`` and ``mine`` as taken with the tracker that made ``update`` (a zone edit meanwhile installs
        new ones: this frame is the old tracker's)."""
        try:
            mine.follow(self.link, observer)
            view = self.link.view() if view is None else view
            mine.settle(update, view, observer, mine.starting and blank(frame.image))
            observer.recall(update, view)
        except Exception as exc:
            self._failed("turn the table into events", exc)
            return
        done = set(observer.done)
        try:
            proposals = observer.observe(update, view)
        except Exception as exc:
            # the cards it marked as sent in this frame were not: news again in the next (a flip was lost for good
            # when the observer failed after looking at the table: fault fuzz, session 41); those the start's
            # settling marked stay marked (a review: an old trick was sent again)
            observer.done.intersection_update(done)
            self._failed("turn the table into events", exc)
            return
        self._fine("turn the table into events")
        for key, (until, _) in list(self._referee_waits.items()):  # no longer proposed (entered by hand, taken back)
            if frame.wall_ms > until + REFEREE_RETRY_MS:
                del self._referee_waits[key]
        offset = frame.wall_ms - frame.pos_ms
        before: Mapping[str, Json] | None = view  # the referee's view before the next proposal
        for proposal in proposals:
            event = VisionEvent(proposal.body(), proposal.ts, proposal.ts - offset, frame.index, proposal.reason)
            key = json.dumps(proposal.body(), sort_keys=True)
            if self._referee_waits.get(key, (-1.0, ""))[0] > frame.wall_ms:
                observer.refused(proposal, None)  # a referee bug on it a moment ago: not yet again
                continue
            try:
                seq, rulings = self.link.append(event)
            except EventError as exc:  # held until the view changes from the one it was refused in (with the view
                # before the frame's first proposal, one refused after another went in was tried again at once and
                # refused again: review5 F5, session 51)
                observer.refused(proposal, before)
                log.warning("the referee refused the camera's %s: %s", proposal.type, exc)
                self._events.append({"type": proposal.type, "reason": proposal.reason, "refused": str(exc)})
                continue
            except RefereeFault as exc:  # a referee bug: tried again every REFEREE_RETRY_MS, not every frame (each try
                # logged a traceback and replayed the game under its lock: error-handling audit, s41), and not only
                # once the game changes (a Spades play waited for ever while the next ones were out of turn)
                observer.refused(proposal, None)
                said = (
                    f"the camera cannot enter its {proposal.type} ({cut(str(exc), 80)}); the server log has the details"
                )
                self._referee_waits[key] = (frame.wall_ms + REFEREE_RETRY_MS, said)  # (said as the fault until it goes
                self._failed(f"enter its {proposal.type}", exc)  # in, or is no longer proposed: a review)
                self._events.append({"type": proposal.type, "reason": proposal.reason, "refused": str(exc)})
                continue
            except Exception as exc:  # the store failed: say so, try again with the next frame
                observer.refused(proposal, None)
                self._failed(f"enter its {proposal.type}", exc)
                # a store's failure (a RuntimeError) by its message, as the phones get it; anything else with its
                # kind, which says more than "'ab12'" (a second review)
                said = str(exc) if isinstance(exc, RuntimeError) and str(exc) else f"{type(exc).__name__}: {exc}"
                self._events.append({"type": proposal.type, "reason": proposal.reason, "refused": said})
                continue
            self._referee_waits.pop(key, None)
            self._fine(f"enter its {proposal.type}")
            self.sent.append(event)
            try:  # the event is in the game: what follows must not lose this frame's other events (they were marked
                # sent, and a failure here, such as `tablecall live`'s print into a closed pipe, dropped them for good)
                mine.add(seq, proposal)
                self._events.append({"seq": seq, "type": proposal.type, "reason": proposal.reason, "ts": event.pos_ms})
                after = self._view_now()
                observer.judged(proposal, rulings, before, after)  # an impossible one, or a foul that did not count
                before = after
                for ruling in rulings:
                    if getattr(ruling.severity, "value", "info") != "info":
                        self._alerts.append(ruling.message)
                if self.on_event is not None:
                    self.on_event(event, seq, rulings)
            except Exception as exc:
                self._failed("follow the events it sent", exc)
                before = self._view_now()
                continue
            self._fine("follow the events it sent")

    def _measure_index(self, calibration: Calibration, size: tuple[int, int]) -> None:
        """How many pixels tall a card's corner index is at the middle of the table in frames of ``size``; said
        once (and on the status band) when it is too few for the reader (a 320x240 camera sent cards nobody
        played)."""
        if self._small is not None and self._small[0] == size:
            return
        middle = np.array([[w / 2 for w in self.config.layout.table]], np.float64)
        step = np.array([[INDEX_MM, 0.0], [0.0, INDEX_MM]])
        points = calibration.to_image(np.vstack([middle, middle + step]))
        pixels = float(np.mean(np.linalg.norm(points[1:] - points[0], axis=1)))
        self._small = (size, pixels)
        if (small := self._too_small()) is not None:
            log.warning("%s", small)

    def _too_small(self) -> str | None:
        if self._small is None or self._small[1] >= MIN_INDEX_PX:
            return None
        (w, h), pixels = self._small
        return (
            f"the picture is too small to read the cards: a corner index is about {pixels:.0f} px tall in "
            f"{w}x{h} pictures, the reader needs {MIN_INDEX_PX} or more (use 1280x720, or bring the camera closer)"
        )

    def _view_now(self) -> Mapping[str, Json] | None:
        """The referee's view after an event the camera sent (None if it cannot be read)."""
        try:
            view = self.link.view()
        except Exception as exc:
            self._failed("read the referee's view", exc)
            return None
        self._fine("read the referee's view")
        return view

    # -- the camera view -----------------------------------------------------------------------------------
    def _status_lines(self) -> list[str]:
        camera = self.capture.status
        lines = [f"camera: {camera.message}" if not camera.ok else f"{camera.source}: {self._fps:.1f} fps"]
        silent = self.capture.silent_s()
        asleep = self._slept()
        if silent * 1000 >= AWAY_MS and asleep > 0 and silent * 1000 - asleep < WAKE_MS:
            slept = f"this computer was asleep for {asleep / 1000:.0f} s"
            lines[0] = f"{camera.source}: waiting for its pictures ({slept})"
        elif silent * 1000 >= AWAY_MS:  # a stalled stream: not a live picture any more
            lines[0] = f"{camera.source}: no new picture for {silent:.0f} s"
        elif self._slow_camera():
            lines.append(f"the camera sends {self._fps:.1f} pictures a second: cards turned quickly can be missed")
        if camera.ok and self._read_share < SKIP_WARNING:
            lines.append(f"too slow for every picture: reads {self._read_share:.0%} of them")
        if camera.ok and self._speed < SKIP_WARNING:
            lines.append(f"too slow for real time: the video plays at {self._speed:.0%} speed")
        if self._calibration_state != "ok" or self.config.calibration is None:
            lines.append(self._calibration_message)
        elif self._recheck_note:
            lines.append(self._recheck_note)
        if (small := self._too_small()) is not None:
            lines.append(small)
        if self.detector is None or self.detector_message != "card detector ready":
            lines.append(self.detector_message)
        lines += [said for said in (self.fault_now(), self.unsaved) if said is not None]
        return lines

    def _slow_camera(self) -> bool:
        """A camera or stream giving fewer than ``SLOW_CAMERA_FPS`` pictures a second, all of them read (a phone on
        weak Wi-Fi; where the pipeline is what is slow, "too slow for every picture" says so)."""
        live = self.capture.source.live and self.capture.status.ok
        return live and 0 < self._fps < SLOW_CAMERA_FPS and self._read_share >= SKIP_WARNING

    def _show(self, frame: Frame, detections: Detections | None, update: Update | None) -> None:
        if detections is not None:  # the view shows what the tracker could use, not every faint guess
            detections = detections.with_confidence(self.config.tracking.min_confidence)
        self.view.show((frame, detections, update))

    def annotated(self) -> np.ndarray:
        """The current camera view with everything drawn over it (or a picture saying why there is none)."""
        last = self.view.last
        if last is None or not self.capture.status.ok:
            return annotate.placeholder(["no camera picture", *self._status_lines()])
        frame, detections, update = last
        flags = update.flags if update else ()
        alerts = [*self._alerts, *self.observer.notes[-2:]]
        config = self.config
        lines = self._status_lines()
        region = self._region(config, frame.size)
        return annotate.draw(
            frame.image, config.calibration, config.layout, detections, update, flags, alerts, lines, region
        )

    def snapshot(self, quality: int = 80) -> bytes:
        """The camera view as one JPEG (cached per frame)."""
        return self.view.snapshot(quality)

    def mjpeg(self, boundary: str = "frame", max_fps: float = 10.0, timeout: float = 2.0) -> Iterator[bytes]:
        """Multipart JPEG chunks for ``multipart/x-mixed-replace; boundary=<boundary>``, until :meth:`stop`."""
        return self.view.mjpeg(boundary, max_fps, timeout)

    # -- status --------------------------------------------------------------------------------------------
    def resends(self, seq: int, code: str) -> bool:
        """Whether the card of event ``seq``, re-ruled by a change on a phone into the foul ``code``, goes again once it
        can count if it still lies there (:meth:`vision.links.CameraEvents.follow`, :meth:`Observer.reruled`): an
        event the running observer sent, ``code`` one of its ``retry_fouls``, its reading not rejected on a phone nor
        ruled impossible; never once the camera reads no more frames (stopped, or its video ended or could not be read:
        the phones said "leave it" for a camera that had stopped; review1, session 50). (Read without the lock: a
        phone's entry asks it under the game's lock, which the pipeline takes to enter its events.)"""
        if self._stop.is_set() or self._ended.is_set():
            return False
        observer, mine = self.observer, self._mine
        proposal = mine.proposals.get(seq)
        if proposal is None or code not in observer.retry_fouls:
            return False
        return not any(card in observer.voided for card in proposal.cards)

    def status(self) -> dict[str, Json]:
        """Everything the dashboard shows about the camera, as plain JSON."""
        last = self.view.last
        update = last[2] if last else None
        calibration = self.config.calibration
        return {
            "camera": self.capture.status.to_json(),
            "calibration": {
                "state": self._calibration_state,
                "message": self._calibration_message,
                "method": calibration.method if calibration else None,
                "error_mm": calibration.error_mm if calibration else None,
            },
            "detector": {"ready": self.detector_message == "card detector ready", "message": self.detector_message},
            "fps": round(self._fps, 2),
            "read_share": round(self._read_share, 2),
            "speed": round(self._speed, 2),
            "busy_ms": round(self._busy_ms, 1),
            "silent_s": round(self.capture.silent_s(), 1),
            "slow_camera": self._slow_camera(),
            "frame": last[0].index if last else None,
            "frozen": list(update.frozen) if update else [],
            "flags": [f.to_json() for f in update.flags] if update else [],
            "table": update.state.to_json() if update else {},
            "notes": list(self.observer.notes[-5:]),
            "alerts": list(self._alerts),
            "fault": self.fault_now(),
            "unsaved": self.unsaved,
            "events": list(self._events),
            "layout": self.config.layout.to_json(),
            "corners_image": self._corners_image(),
        }

    def _corners_image(self) -> list[list[float]] | None:
        """Where the play area's corners lie in the camera image (for the dashboard to draw and drag)."""
        calibration = self.config.calibration
        if calibration is None:
            return None
        w, h = self.config.layout.table
        return [[float(x), float(y)] for x, y in calibration.to_image([(0, 0), (w, 0), (w, h), (0, h)])]
