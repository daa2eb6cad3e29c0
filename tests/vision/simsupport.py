"""Support for running the live pipeline on the simulator's videos (``test_e2e.py``, ``tests/bench_live.py``):
a stand-in detector that knows what the simulator drew, and when the "phones" enter what a camera cannot see."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import numpy as np

from scorer.events import GameEvent, Source
from vision import synth
from vision.capture import Capture, Frame
from vision.detections import Detection, Detections
from vision.sim import Simulation

CAMERA = {
    "snap": {"flip"},
    "spades": {"play"},
    "spit": {"play", "reveal", "move", "spit"},
    "push": {"meld", "layoff", "deal_end"},
}


class SimOracle:
    """The cards whose corner index the simulator drew in full view in the current frame."""

    def __init__(self, sim: Simulation) -> None:
        self.sim, self.index = sim, 0
        self.cards = {t.obj: t.card for t in sim.timeline.tracks}

    def at(self, frame: Frame) -> None:
        self.index = frame.index

    def __call__(self, image: np.ndarray) -> Detections:
        _, owner, poses = self.sim.clean(self.index)
        rows = []
        for obj, pose in poses.items():
            card = self.cards.get(obj)
            if not pose.up or card is None:
                continue
            _, boxes = self.sim.scene.quads(card, pose)
            shown = [b for b in boxes if synth._visible(owner, b, obj) >= 0.95]
            if shown:
                points = np.concatenate(shown)
                (x1, y1), (x2, y2) = points.min(axis=0), points.max(axis=0)
                rows.append(Detection(card.split("/")[0], 0.95, (float(x1), float(y1), float(x2), float(y2))))
        return Detections.from_records(rows)


class Thinned(Capture):
    """A video file read as a slower laptop's pipeline reads a webcam: only the frames ``keep`` passes reach the
    pipeline, each with its own time (``pos_ms``) and number; the others are skipped as the newest-frame capture skips
    them while the pipeline is busy (``vision.capture``)."""

    def __init__(self, source: str, keep: Callable[[Frame], bool]) -> None:
        super().__init__(source, lossless=True, realtime=False)
        self.keep = keep

    def _publish(self, frame: Frame) -> None:
        if self.keep(frame):
            super()._publish(frame)


def keep_every(n: int) -> Callable[[Frame], bool]:
    """Every ``n``-th frame, from the first."""
    return lambda frame: frame.index % n == 0


def keep_busy(low_ms: float, high_ms: float, fps: float, seed: int) -> Callable[[Frame], bool]:
    """The frames a pipeline takes that spends ``low_ms``-``high_ms`` on each (uniform, by ``seed``) on a ``fps``
    camera, taking the newest frame once it is free: a frame is taken when the next one would come after the pipeline
    is done with the one before."""
    draw, period, free = random.Random(seed), 1000.0 / fps, [float("-inf")]

    def keep(frame: Frame) -> bool:
        if frame.pos_ms + period <= free[0]:
            return False  # a newer frame comes before the pipeline is free
        free[0] = max(float(frame.pos_ms), free[0]) + draw.uniform(low_ms, high_ms)
        return True

    return keep


def is_camera(event: GameEvent, game: str) -> bool:
    """An event the camera sends: one of its observer's kinds, seen on the table (``source: vision`` in the log)."""
    return event.type in CAMERA[game] and event.source is Source.VISION


def phone_times(log: Any, truth: dict[str, Any]) -> dict[int, int]:
    """When each event happens in the video. A phone event (a call, a bid ...) is entered as long after the cards
    of the event before it lie in view as the log has it after that event: people react to what they see. (The
    simulator starts a card's slide at the event's time, so the log's short call delays would otherwise fall
    before the card has even landed.)"""
    times = {int(e["seq"]): int(e["t_ms"]) for e in truth["events"]}
    shown = {
        int(e["seq"]): max((c["t_ms"] for c in e["cards"] if c["t_ms"] is not None), default=None)
        for e in truth["events"]
    }
    ts = {e.seq: e.ts for e in log.events}
    anchor = None
    for event in log.events:
        if is_camera(event, log.header.game) and shown.get(event.seq) is not None:
            anchor = event.seq
        elif anchor is not None:
            times[event.seq] = max(times[event.seq], shown[anchor] + ts[event.seq] - ts[anchor])  # type: ignore[operator]
    return times
