"""Benchmark of the live table: pipeline frames per second, and the delay from the first frame in which a flipped
card is fully visible to the referee's alert on a phone's live stream.

Not collected by pytest. Run from the repository root::

    .venv/bin/python tests/bench_live.py                          # Snap demo, 1280x720 at 15 fps, real time
    .venv/bin/python tests/bench_live.py --detector-ms 40         # the same with 40 ms of detector time a frame
    .venv/bin/python tests/bench_live.py --json out.json

What it does: renders the Snap demo (``vision/sim/demos/snap.jsonl``) with the simulator at 1280x720, 15 fps,
with the corner markers (a held-out card design when one is installed); starts the dashboard (``web.app``
under waitress, a temporary database) on a free loopback port and creates the game; opens the game's live
stream over HTTP like a phone; then plays the video **in real time** into ``LiveTable`` (the newest frame
each time; frames the pipeline is too slow for are skipped), linked to the game with ``HubLink``. The "phones"
enter the deal and the calls at the times the video shows them (``tests/vision/simsupport.py``).

The detector is the trained one when ``models/`` holds weights, else the simulator's stand-in (which knows
which corner indices are in full view); ``--detector-ms N`` adds N ms a frame to stand in for the trained
detector's time. Delay = the time the stream delivers the flip (with its ``match`` alert when it makes one)
minus the wall-clock time of the first frame in which the card lies fully visible (the ground truth).
Also measured, separately: throughput (every frame of the video through the pipeline as fast as it goes).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from scorer.events import parse_log  # noqa: E402
from tests.vision.simsupport import SimOracle, is_camera, phone_times  # noqa: E402
from vision.capture import Capture, Frame  # noqa: E402
from vision.detections import DetectorUnavailable, load_detector  # noqa: E402
from vision.live import HubLink, LiveTable, SessionLink  # noqa: E402
from vision.sim import Options, SimError, Simulation, demo_log, simulate  # noqa: E402
from vision.sim.render import pick_design  # noqa: E402
from vision.tableconfig import default_config  # noqa: E402


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    k = (len(ordered) - 1) * q
    low, high = int(k), min(int(k) + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (k - low)


class Slow:
    """A detector that takes ``ms`` milliseconds longer (to stand in for the trained detector's time)."""

    def __init__(self, inner: Any, ms: float) -> None:
        self.inner, self.ms = inner, ms

    def __call__(self, image: Any) -> Any:
        ends = time.perf_counter() + self.ms / 1000
        out = self.inner(image)
        while time.perf_counter() < ends:
            time.sleep(0.001)
        return out


def stream_reader(url: str, arrivals: list[tuple[float, dict[str, Any]]], ready: threading.Event) -> None:
    """A phone's live stream: every ``event: event`` message, with the wall time it arrived."""
    with urllib.request.urlopen(url, timeout=600) as response:
        kind = None
        for raw in response:
            line = raw.decode("utf-8").rstrip("\n")
            if line.startswith("event:"):
                kind = line.split(":", 1)[1].strip()
                if kind == "state":
                    ready.set()
            elif line.startswith("data:") and kind == "event":
                arrivals.append((time.time(), json.loads(line[5:])))
            elif not line:
                kind = None


def detector_for(sim: Simulation, extra_ms: float) -> tuple[Any, SimOracle | None, str]:
    try:
        return load_detector(), None, "trained"
    except DetectorUnavailable:
        oracle = SimOracle(sim)
        return (Slow(oracle, extra_ms) if extra_ms else oracle), oracle, f"stand-in (+{extra_ms:g} ms)"


WINDOW_MS = 3000  # a flip that reaches the phone later than this after its card showed is not counted as its flip


def latency(args: argparse.Namespace, video: Path, truth: dict[str, Any], sim: Simulation) -> dict[str, Any]:
    import waitress  # type: ignore[import-untyped]

    from web.app import create_app, hub, store

    log = parse_log(demo_log(args.game).read_text(encoding="utf-8"))
    folder = Path(tempfile.mkdtemp())
    app = create_app({"DATABASE": str(folder / "bench.sqlite3"), "HEARTBEAT_S": 5.0})
    server = waitress.create_server(app, host="127.0.0.1", port=0, threads=8)
    threading.Thread(target=server.run, daemon=True).start()
    the_hub = hub(app)
    live = the_hub.create(log.header.game, log.header.players, dict(log.header.options), title="bench")
    arrivals: list[tuple[float, dict[str, Any]]] = []
    ready = threading.Event()
    url = f"http://127.0.0.1:{server.effective_port}/api/games/{live.record.id}/stream"
    threading.Thread(target=stream_reader, args=(url, arrivals, ready), daemon=True).start()
    assert ready.wait(10), "the live stream did not start"

    detect, oracle, name = detector_for(sim, args.detector_ms)
    times = phone_times(log, truth)
    phones = [e for e in log.events if not is_camera(e, args.game)]
    origin: list[int] = []

    def on_frame(frame: Frame) -> None:
        if oracle is not None:
            oracle.at(frame)
        if not origin:
            origin.append(frame.wall_ms - frame.pos_ms)
        while phones and times[phones[0].seq] <= frame.pos_ms:
            event = phones.pop(0)
            body = {"type": event.type, **dict(event.data)}
            ts = origin[0] + times[event.seq] - live.record.epoch_ms
            the_hub.append(live.record.id, body, author="phone", client_ts=max(0, ts))

    table = LiveTable(
        Capture(str(video)),
        HubLink(the_hub, live.record.id),
        default_config(args.game, len(log.header.players)),
        detector=detect,
        on_frame=on_frame,
    )
    table.start()
    table.wait(truth["duration_ms"] / 1000 + 30)
    busy = table.status()
    table.stop()
    time.sleep(0.5)
    server.close()
    store(app).close()

    flipped = [(c["card"], c["t_ms"]) for e in truth["events"] if e["type"] == "flip" for c in e["cards"]]
    delays, alerts, wrong = [], [], []
    for arrived, message in arrivals:
        event = message["event"]
        if event.get("source") != "vision" or event.get("type") != "flip":
            continue
        # its flip in the ground truth: that card, shown at most WINDOW_MS before the phone had it; a flip with no
        # such card (a misreading) counts as wrong, not as a delay
        match = next(
            (
                f
                for f in flipped
                if f[0] == event.get("card")
                and f[1] is not None
                and 0 <= arrived * 1000 - (origin[0] + f[1]) <= WINDOW_MS
            ),
            None,
        )
        if match is None:
            wrong.append(event.get("card"))
            continue
        flipped.remove(match)
        delay = arrived * 1000 - (origin[0] + match[1])
        delays.append(delay)
        if any(r["code"] == "match" for r in message["rulings"]):
            alerts.append(delay)
    flips = [e for e in log.events if e.type == "flip"]
    return {
        "detector": name,
        "flips_in_log": len(flips),
        "flips_on_phone": len(delays),
        "match_alerts_on_phone": len(alerts),
        "wrong_flips_on_phone": wrong,
        "delay_ms_p50": round(percentile(delays, 0.5)),
        "delay_ms_p95": round(percentile(delays, 0.95)),
        "alert_delay_ms_p50": round(percentile(alerts, 0.5)),
        "alert_delay_ms_p95": round(percentile(alerts, 0.95)),
        "delays_ms": [round(d) for d in delays],
        "realtime_fps": busy["fps"],
    }


def throughput(args: argparse.Namespace, video: Path, sim: Simulation) -> dict[str, Any]:
    """Every frame through the pipeline as fast as it goes (no real-time pacing)."""
    from scorer.session import Session

    log = parse_log(demo_log(args.game).read_text(encoding="utf-8"))
    detect, oracle, name = detector_for(sim, args.detector_ms)
    session = Session(log.header.game, log.header.players, log.header.options)
    busy: list[float] = []
    table: LiveTable | None = None

    def on_frame(frame: Frame) -> None:
        if oracle is not None:
            oracle.at(frame)
        if table is not None and frame.index:
            busy.append(table.status()["busy_ms"])

    table = LiveTable(
        str(video),
        SessionLink(session),
        default_config(args.game, len(log.header.players)),
        detector=detect,
        lossless=True,
        on_frame=on_frame,
    )
    started = time.perf_counter()
    table.start()
    table.wait(600)
    elapsed = time.perf_counter() - started
    frames = table.status()["frame"] + 1
    return {
        "detector": name,
        "frames": frames,
        "seconds": round(elapsed, 2),
        "fps": round(frames / elapsed, 1),
        "busy_ms_p50": round(statistics.median(busy), 1),
        "busy_ms_p95": round(percentile(busy, 0.95), 1),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="snap", help="the demo game (default snap)")
    parser.add_argument("--size", default="1280x720")
    parser.add_argument("--fps", type=float, default=15.0)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--detector-ms", type=float, default=0.0, help="extra detector time a frame (stand-in only)")
    parser.add_argument("--json", type=Path, help="also write the results here")
    args = parser.parse_args()
    w, h = (int(v) for v in args.size.split("x"))
    log = parse_log(demo_log(args.game).read_text(encoding="utf-8"))
    try:
        design = pick_design(args.seed, "heldout")
    except SimError:
        design = None
    options = Options(size=(w, h), fps=args.fps, seed=args.seed, design=design, markers=True)
    video = Path(tempfile.mkdtemp()) / f"{args.game}.mp4"
    print(f"rendering {args.game} at {w}x{h}, {args.fps:g} fps ...", file=sys.stderr)
    truth = simulate(log, video, options)
    sim = Simulation.prepare(log, options)
    result = {
        "game": args.game,
        "size": [w, h],
        "video_fps": args.fps,
        "design": truth["design"],
        "video_s": truth["duration_ms"] / 1000,
        "latency": latency(args, video, truth, sim),
        "throughput": throughput(args, video, Simulation.prepare(log, options)),
    }
    print(json.dumps(result, indent=1))
    if args.json:
        args.json.write_text(json.dumps(result, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
