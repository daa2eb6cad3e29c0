"""Benchmark of the table simulator: CPU time to render a minute of webcam video, stage by stage.

Not collected by pytest (the file name does not start with ``test_``). Run from the repository root::

    .venv/bin/python tests/bench_sim.py                       # 60 s of the Spades demo, 1280x720 and 640x360
    .venv/bin/python tests/bench_sim.py --game snap --seconds 30 --figure /tmp/bench.svg

It renders the first ``--seconds`` of a demo game at 15 fps into an ``.mp4`` in a temporary folder and
measures CPU time (``time.process_time``: every thread of the process, so OpenCV's threads count too) for:
preparing (timeline, camera, table texture), drawing the clean frames, the camera (light, lens blur, noise,
JPEG) and encoding. It prints a table, writes the numbers as JSON (``--json``) and draws the figure
(``--figure``, default ``docs/simulator_bench.svg``).
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import tempfile
import time
from pathlib import Path

import cv2

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from scorer.events import parse_log  # noqa: E402
from vision.sim import Options, Simulation, demo_log  # noqa: E402

STAGES = ("prepare", "draw", "camera", "encode")
COLOURS = {"prepare": "#8c8c8c", "draw": "#4c78a8", "camera": "#f58518", "encode": "#54a24b"}


def bench(game: str, size: tuple[int, int], seconds: float, fps: float, seed: int) -> dict[str, float]:
    log = parse_log(demo_log(game).read_text(encoding="utf-8"))
    cpu, wall = time.process_time(), time.perf_counter()
    sim = Simulation.prepare(log, Options(size=size, fps=fps, seed=seed))
    spent = {"prepare": time.process_time() - cpu}
    frames = min(sim.frames, round(seconds * fps))
    spent.update(draw=0.0, camera=0.0, encode=0.0)
    with tempfile.TemporaryDirectory() as folder:
        writer = cv2.VideoWriter(str(Path(folder) / "bench.mp4"), cv2.VideoWriter.fourcc(*"mp4v"), fps, size)
        for index in range(frames):
            t0 = time.process_time()
            clean, owner, poses = sim.clean(index)
            sim._measure(index, owner, poses)
            t1 = time.process_time()
            frame = sim.sensor.expose(clean, index)
            t2 = time.process_time()
            writer.write(frame)
            t3 = time.process_time()
            spent["draw"] += t1 - t0
            spent["camera"] += t2 - t1
            spent["encode"] += t3 - t2
        writer.release()
    total = sum(spent.values())
    return {
        **spent,
        "frames": frames,
        "video_s": frames / fps,
        "cpu_s": total,
        "wall_s": time.perf_counter() - wall,
        "cpu_s_per_video_minute": total / (frames / fps) * 60,
        "ms_per_frame": total / frames * 1000,
    }


def figure(results: dict[str, dict[str, float]], title: str) -> str:
    """A horizontal stacked bar per frame size: CPU seconds per minute of video, by stage (SVG text)."""
    width, left, bar, gap, top = 760, 110, 34, 22, 56
    scale = (width - left - 40) / 60.0  # the axis runs to 60 s: a minute of CPU for a minute of video
    height = top + len(results) * (bar + gap) + 70
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" '
        'font-size="13">',
        f'<rect width="{width}" height="{height}" fill="white"/>',
        f'<text x="{left}" y="24" font-size="15" font-weight="bold">{title}</text>',
        f'<text x="{left}" y="42" fill="#555">CPU seconds to render one minute of video at 15 fps, by stage</text>',
    ]
    for tick in range(0, 61, 10):
        x = left + tick * scale
        out.append(f'<line x1="{x:.1f}" y1="{top - 6}" x2="{x:.1f}" y2="{height - 52}" stroke="#ddd"/>')
        out.append(f'<text x="{x:.1f}" y="{height - 36}" text-anchor="middle" fill="#555">{tick} s</text>')
    x60 = left + 60 * scale
    out.append(f'<line x1="{x60:.1f}" y1="{top - 6}" x2="{x60:.1f}" y2="{height - 52}" stroke="#d62728" '
               'stroke-dasharray="5,4"/>')  # fmt: skip
    out.append(f'<text x="{x60 - 4:.1f}" y="{top - 10}" text-anchor="end" fill="#d62728">real time</text>')
    for row, (label, r) in enumerate(results.items()):
        y = top + row * (bar + gap)
        x = float(left)
        out.append(f'<text x="{left - 10}" y="{y + bar / 2 + 5:.1f}" text-anchor="end">{label}</text>')
        per_minute = 60 / r["video_s"]
        for stage in STAGES:
            w = r[stage] * per_minute * scale
            out.append(f'<rect x="{x:.1f}" y="{y}" width="{max(w, 0.5):.1f}" height="{bar}" fill="{COLOURS[stage]}"/>')
            x += w
        out.append(
            f'<text x="{x + 6:.1f}" y="{y + bar / 2 + 5:.1f}">{r["cpu_s_per_video_minute"]:.1f} s '
            f"({r['ms_per_frame']:.1f} ms/frame)</text>"
        )
    legend_y = height - 16
    for number, stage in enumerate(STAGES):
        x = left + number * 120
        out.append(f'<rect x="{x}" y="{legend_y - 11}" width="12" height="12" fill="{COLOURS[stage]}"/>')
        out.append(f'<text x="{x + 17}" y="{legend_y}">{stage}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--game", default="spades", help="demo game (snap, spit, spades, push)")
    parser.add_argument("--seconds", type=float, default=60.0, help="video seconds to render (default 60)")
    parser.add_argument("--fps", type=float, default=15.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--sizes", default="1280x720,640x360", help="comma-separated frame sizes")
    parser.add_argument("--json", type=Path, help="write the numbers here")
    parser.add_argument("--figure", type=Path, default=ROOT / "docs" / "simulator_bench.svg")
    args = parser.parse_args()
    results = {}
    for text in args.sizes.split(","):
        w, h = (int(v) for v in text.lower().split("x"))
        results[f"{w}x{h}"] = bench(args.game, (w, h), args.seconds, args.fps, args.seed)
    print(f"{'size':>10} {'frames':>7} " + " ".join(f"{s:>8}" for s in STAGES) + "   cpu/min  ms/frame   wall")
    for label, r in results.items():
        stages = " ".join(f"{r[s]:8.2f}" for s in STAGES)
        print(
            f"{label:>10} {r['frames']:7.0f} {stages}   {r['cpu_s_per_video_minute']:6.1f} s "
            f"{r['ms_per_frame']:8.1f} {r['wall_s']:6.1f} s"
        )
    machine = f"{platform.machine()}, {cv2.getNumberOfCPUs()} CPUs, OpenCV {cv2.__version__}"
    if args.json:
        args.json.write_text(json.dumps({"machine": machine, "game": args.game, "results": results}, indent=1))
    if args.figure:
        args.figure.write_text(figure(results, f"tablecall simulate: {args.game} demo ({machine})"))
        print(f"figure: {args.figure}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
