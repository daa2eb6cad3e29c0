"""``tablecall simulate``: render a game log (or a bundled demo) as a webcam video with its ground truth."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from web.cli import SEEDS, FileProblem, command, fail, out_of_range, read_text

__all__ = ["run_simulate"]


def _arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("log", help="a game log (JSON Lines), or a demo: snap, spit, spades, push")
    parser.add_argument("-o", "--output", type=Path, required=True, help="the video to write (.mp4 or .avi)")
    parser.add_argument("--seed", type=int, default=0, help="random seed: the same seed gives the same frames")
    parser.add_argument("--layout", type=Path, help="zones from this file (JSON or TOML) instead of the default")
    parser.add_argument(
        "--size", default="1280x720", help="frame size WIDTHxHEIGHT, even numbers, at least 64x64 (default 1280x720)"
    )
    parser.add_argument("--fps", type=float, default=15.0, help="frames per second (default 15)")
    parser.add_argument("--duration", type=float, help="video length in seconds (default: as the game takes)")
    parser.add_argument("--design", help="card artwork, e.g. gnome:paris or proc:7 (default: one picked by seed)")
    parser.add_argument("--heldout", action="store_true", help="pick the design among the held-out designs")
    parser.add_argument("--markers", action="store_true", help="ArUco markers at the table's corners")
    parser.add_argument("--no-jpeg", action="store_true", help="no JPEG compression of each frame")
    parser.add_argument(
        "--pile-gap",
        type=float,
        metavar="MS",
        help="a card carried onto a pile may land this many ms after the last one there, when the log's ts put them"
        " so close (a real pace; default: each card lies uncovered at least 500 ms first)",
    )
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")


def _size(text: str) -> tuple[int, int] | None:
    parts = text.lower().split("x")
    if len(parts) != 2 or not all(p.isdecimal() for p in parts):
        return None
    return int(parts[0]), int(parts[1])


def run_simulate(args: argparse.Namespace) -> int:
    from scorer.events import EventError, LogError, parse_log
    from scorer.session import replay
    from vision.cardart import ArtError
    from vision.sim import DEMOS, Options, SimError, Timing, demo_log, simulate, truth_path
    from vision.zones import Layout, LayoutError

    path = Path(args.log)
    if not path.exists() and args.log in DEMOS:
        path = demo_log(args.log)
    if problem := out_of_range(args, {"--seed": SEEDS}):
        return fail(problem)
    size = _size(args.size)
    if size is None:
        return fail(f"--size must look like 1280x720, not {args.size!r}")
    if args.pile_gap is not None and not 0 <= args.pile_gap <= 10_000:
        return fail(f"--pile-gap must be from 0 to 10000 ms, not {args.pile_gap:g}")
    try:
        log = parse_log(read_text(path))
        replay(log)  # a refused event named by its file and line, as `tablecall replay` names it (it was "tablecall:
        # event 1 (bid): ..." after the video had started: the wording audit, session 40)
        layout = Layout.from_text(read_text(args.layout, "a layout file")) if args.layout else None
    except FileProblem as exc:
        return fail(str(exc))
    except LogError as exc:
        return fail(f"{path}:{exc.line}: {exc.reason}")
    except LayoutError as exc:
        return fail(f"{args.layout}: {exc}")
    options = Options(
        size=size, fps=args.fps, seed=args.seed, design=args.design, split="heldout" if args.heldout else None,
        markers=args.markers, duration=args.duration, layout=layout, jpeg=not args.no_jpeg,
        timing=None if args.pile_gap is None else Timing(pile_gap=args.pile_gap),
    )  # fmt: skip

    def progress(done: int, total: int) -> None:
        if not args.quiet and (done == total or done % 30 == 0):
            print(f"\rtablecall: frame {done}/{total}", end="\n" if done == total else "", file=sys.stderr, flush=True)

    try:
        truth = simulate(log, args.output, options, progress)
    except (SimError, ArtError, EventError, LayoutError) as exc:
        return fail(str(exc))
    cards = sum(len(e["cards"]) for e in truth["events"])
    missing = sum(1 for e in truth["events"] for c in e["cards"] if c["t_ms"] is None)
    print(
        f"tablecall: wrote {args.output} ({truth['frames']} frames, {size[0]}x{size[1]} at {args.fps:g} fps, "
        f"design {truth['design']}) and {truth_path(args.output)} ({cards} cards"
        + (f", {missing} never seen" if missing else "")
        + ")"
    )
    return 0


run_simulate.arguments = _arguments  # type: ignore[attr-defined]
command("simulate", "render a game log as a webcam video, with ground truth")(run_simulate)
