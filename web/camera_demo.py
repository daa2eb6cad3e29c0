"""The camera demo: ``tablecall serve --demo`` with the vision extras installed.

The simulator's Snap demo (``vision/sim/demos/snap.jsonl``) is rendered once as a webcam video with corner
markers (``vision.sim.demo_video("snap")``, cached in ``data/sim/``) and played in a loop through the real
pipeline (:class:`web.camera.CameraDesk`, the ``--video`` path) into a new demo game each time round, so a
newcomer sees the camera view, its zones, the calibration found from the markers and the referee's alerts.

What the camera cannot see (the deal, the Snap calls, the resolves) is entered by a script at the moments the
video shows them, as phones would. The flips come from the pipeline alone when a card detector is installed;
without one the script enters them too (at the moment each card lies in view) and the page says "no card
detector installed: demo events are scripted", so the table is never empty.

If the video cannot be made (no card art, no OpenCV), ``fallback()`` starts the scripted Spades demo instead.
"""

from __future__ import annotations

import json
import logging
import math
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from scorer.events import META_TYPES, EventError, GameEvent, GameLog, Source, parse_log
from web.camera import CameraDesk, CameraError
from web.demo import _body
from web.hub import Hub
from web.store import StoreUnavailable

__all__ = ["SCRIPTED_NOTE", "CameraDemo", "DemoScript", "schedule"]

log = logging.getLogger(__name__)

SCRIPTED_NOTE = "no card detector installed: demo events are scripted"
#: scripted events this close (ms of video) after the one before keep their gap in the game's clock: two calls 70 ms
#: apart tie (a Snap Pot) however slowly the video plays on this computer (it waits for a slow pipeline) ...
RACE_MS = 1000
#: ... unless that would put the event this far (ms) behind the game's clock: then it is now (the hub takes 30 s)
LAG_MS = 10_000


def schedule(events: tuple[GameEvent, ...] | list[GameEvent], truth: Mapping[str, Any]) -> list[tuple[int, GameEvent]]:
    """When each event of the demo log happens in its video (ms), in order.

    A camera event (``source: vision`` with a card in the simulator's ground truth) happens when its card first
    lies still and in view. Any other event happens at its own time in the video, but never sooner after the
    card before it lay in view than the log has it after that card's event: people react to what they see (the
    simulator starts a card's slide at the event's time, so a quick call would otherwise come before the card)."""
    times = {int(e["seq"]): int(e["t_ms"]) for e in truth["events"]}
    shown = {
        int(e["seq"]): max((int(c["t_ms"]) for c in e["cards"] if c.get("t_ms") is not None), default=None)
        for e in truth["events"]
    }
    out: list[tuple[int, GameEvent]] = []
    anchor: GameEvent | None = None
    for event in events:
        at = times.get(event.seq, event.ts)
        seen = shown.get(event.seq)
        if event.source is Source.VISION and seen is not None:
            at, anchor = seen, event
        elif anchor is not None:
            anchor_seen = shown[anchor.seq]
            assert anchor_seen is not None
            at = max(at, anchor_seen + event.ts - anchor.ts)
        out.append((at, event))
    return out


class DemoScript:
    """Enters the demo log's events into one game as the video plays (``at(frame)`` on the pipeline thread).

    ``camera``: the script enters the camera's events too (no card detector); else it leaves them to the
    pipeline and enters only what phones would."""

    def __init__(self, hub: Hub, game_id: str, log: GameLog, truth: Mapping[str, Any], camera: bool = True) -> None:
        self.hub, self.game_id, self.camera = hub, game_id, camera
        self.plan = schedule(log.events, truth)
        self.next = 0
        self.seqs: dict[int, int] = {}
        self.entered: list[int] = []  # the demo game's seqs the script wrote
        self._last: tuple[int, int] | None = None  # (video ms, game ts) of the event the script entered last
        self._lock = threading.Lock()

    def at(self, frame: Any) -> None:
        self.play_until(int(frame.pos_ms))

    def finish(self) -> None:
        self.play_until(math.inf)

    def play_until(self, pos_ms: float) -> None:
        with self._lock:
            while self.next < len(self.plan) and self.plan[self.next][0] <= pos_ms:
                at, event = self.plan[self.next]
                self.next += 1
                if event.source is Source.VISION and not self.camera:
                    continue  # the pipeline sends it
                if (
                    event.type in META_TYPES
                    and int(event.data.get("target", event.data.get("after", 0))) not in self.seqs
                ):
                    continue  # its target was the pipeline's: nothing to point at
                if not self._enter(event, at):  # the database busy: this event again with the next frame (it was
                    self.next -= 1  # skipped, and the rest of the round refused after it: error-handling audit, s41)
                    break

    def _client_ts(self, at: int) -> int | None:
        """The game time for an event at ``at`` ms of the video: now (None), but right after the script's event
        before (within ``RACE_MS`` of video) that one's time plus their gap in the video, unless that is over
        ``LAG_MS`` ago: the video may play slower than real time, and the races in it must come out the same."""
        if self._last is None or not 0 <= at - self._last[0] < RACE_MS:
            return None
        live = self.hub.live(self.game_id)
        if live is None:
            return None
        now = self.hub.game_time(live)
        ts = self._last[1] + at - self._last[0]
        return min(ts, now) if ts > now - LAG_MS else None

    def _enter(self, event: GameEvent, at: int) -> bool:
        """Enter ``event``; False when the database cannot be written now (try again later)."""
        try:
            result = self.hub.append(
                self.game_id, _body(event, self.seqs), author="demo", source=event.source, client_ts=self._client_ts(at)
            )
        except EventError as exc:  # someone entered or undid events in the demo game: go on with the rest
            log.info("camera demo: the script's %s was refused (%s)", event.type, exc)
            return True
        except StoreUnavailable as exc:
            log.warning("camera demo: %s", exc)
            return False
        except KeyError:
            return True
        self.seqs[event.seq] = result.event.seq
        self.entered.append(result.event.seq)
        self._last = (at, result.event.ts)
        return True


class CameraDemo(threading.Thread):
    """Plays the demo video into a new demo game, again and again, until :meth:`stop`."""

    def __init__(
        self,
        desk: CameraDesk,
        hub: Hub,
        name: str = "snap",
        *,
        pause: float = 5.0,
        video: Path | None = None,
        fallback: Callable[[], None] | None = None,
    ) -> None:
        super().__init__(name="tablecall-camera-demo", daemon=True)
        self.desk, self.hub, self.name, self.pause = desk, hub, name, pause
        self.video = video
        self.fallback = fallback
        self.stopped = threading.Event()
        self.ready = threading.Event()  # the first demo game exists (or the demo gave up)
        self.game_ids: list[str] = []
        self.failed: str | None = None
        self.scripts: list[DemoScript] = []

    def stop(self) -> None:
        self.stopped.set()

    def _prepare(self) -> tuple[Path, GameLog, dict[str, Any]]:
        from vision.sim import demo_log, demo_video, truth_path

        self.desk.note = "preparing the demo video (rendered once into data/sim/)"
        video = self.video or demo_video(self.name, stop=self.stopped)
        game_log = parse_log(demo_log(self.name).read_text(encoding="utf-8").split("\n"))
        truth: dict[str, Any] = json.loads(truth_path(video).read_text(encoding="utf-8"))
        return video, game_log, truth

    def run(self) -> None:
        try:
            video, game_log, truth = self._prepare()
        except Exception as exc:  # no card art, a simulator bug ...: the scripted demo instead
            if self.stopped.is_set():  # the server is stopping (Ctrl-C while the video was rendered)
                self.ready.set()
                return
            self._give_up(f"the camera demo could not make its video ({exc.__class__.__name__}: {exc})")
            return
        config = None
        # rounds go on from the last night's (or the last start's): after each restart they were numbered from 1
        # again, and the folded list of rounds repeated its titles (a long-night audit, session 36)
        before = sum(1 for r in self.hub.store.games() if r.origin == "demo" and r.title.startswith("Camera demo"))
        while not self.stopped.is_set():
            header = game_log.header
            live = self.hub.create(
                header.game,
                header.players,
                dict(header.options),
                origin="demo",
                title=f"Camera demo, round {before + len(self.game_ids) + 1}: {', '.join(header.players)}",
            )
            script = DemoScript(self.hub, live.record.id, game_log, truth)
            self.scripts.append(script)

            def prepare(table: Any, script: DemoScript = script) -> None:
                script.camera = table.detector is None
                self.desk.scripted = script.camera
                self.desk.note = SCRIPTED_NOTE if script.camera else None

            try:
                table = self.desk.attach(
                    live.record.id, source=str(video), config=config, on_frame=script.at, prepare=prepare
                )
            except CameraError as exc:
                self._give_up(exc.message)
                return
            self.game_ids.append(live.record.id)
            self.ready.set()
            while not table.wait(0.5):
                if self.stopped.is_set():
                    return
            if self.desk.table is not table:  # the desk was stopped or given to another game
                return
            script.finish()
            config = table.config  # the calibration and any zone edits carry over to the next round
            if self.stopped.wait(self.pause):
                return

    def _give_up(self, message: str) -> None:
        self.failed = message
        self.desk.problem, self.desk.problem_game = message, None
        self.desk.note = None
        log.warning("camera demo: %s; playing the scripted demo instead", message)
        try:
            if self.fallback is not None and not self.stopped.is_set():
                self.fallback()
        finally:
            self.ready.set()
