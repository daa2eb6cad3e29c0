"""Subcommands of the live table: ``tablecall markers``, ``tablecall calibrate`` and ``tablecall live``.

Registered through :func:`web.cli.command`; heavy imports (OpenCV) happen inside each ``run`` function.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path

from web.cli import FileProblem, command, fail, out_of_range, read_text

__all__ = ["run_calibrate", "run_live", "run_markers"]


# -- markers ----------------------------------------------------------------------------------------------
def _markers_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "-o",
        "--out",
        type=Path,
        default=Path("tablecall-markers.pdf"),
        help="where to write the sheet: .pdf (vector, true size) or .png (default tablecall-markers.pdf)",
    )
    parser.add_argument(
        "--size", type=float, default=60.0, help="marker width in mm (20-90; default 60, as the layouts)"
    )
    parser.add_argument("--dpi", type=int, default=300, help="resolution of a .png sheet (default 300)")


def run_markers(args: argparse.Namespace) -> int:
    import cv2

    from vision.markers import marker_sheet_pdf, marker_sheet_png

    out: Path = args.out
    suffix = out.suffix.lower()
    if suffix not in (".pdf", ".png"):
        return fail(f"{out}: write the sheet as .pdf or .png")
    if problem := out_of_range(args, {"--dpi": (50, 1200)}):
        return fail(problem)
    try:
        if suffix == ".pdf":
            data = marker_sheet_pdf(args.size)
        else:
            _, buffer = cv2.imencode(".png", marker_sheet_png(args.size, args.dpi))
            data = buffer.tobytes()
        out.write_bytes(data)
    except ValueError as exc:
        return fail(str(exc))
    except OSError as exc:
        return fail(f"{out}: cannot write it ({exc.strerror or exc})")
    print(f"tablecall: wrote {out}: print it at 100 % and lay the four markers at the play area's corners")
    return 0


run_markers.arguments = _markers_arguments  # type: ignore[attr-defined]
command("markers", "write the printable sheet of the four table-corner markers")(run_markers)


# -- calibrate --------------------------------------------------------------------------------------------
def _calibrate_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("source", help="camera number, video file, stream URL, image folder, or one image file")
    parser.add_argument(
        "--config",
        type=Path,
        default=Path("tablecall-table.toml"),
        help="the table config to write (default tablecall-table.toml)",
    )
    parser.add_argument("--game", help="the game, for a new config's default zones (snap, spit, spades, push, ten)")
    parser.add_argument("--players", type=int, help="the number of players, for a new config")
    parser.add_argument(
        "--corners",
        help="the play area's corners in the image instead of markers: "
        "'x,y x,y x,y x,y' far-left, far-right, near-right, near-left",
    )
    parser.add_argument("--save", type=Path, help="also write the annotated camera view (JPEG/PNG) here")


def _grab(source: str) -> tuple[object, str | None]:
    """One picture from ``source`` (an image file is read directly); (None, why) if there is none."""
    from vision.capture import IMAGE_SUFFIXES, Capture, Source, read_image

    if Path(source).is_file() and Path(source).suffix.lower() in IMAGE_SUFFIXES:
        image = read_image(source)
        return (image, None) if image is not None else (None, f"{source}: not an image OpenCV or pillow-heif can read")
    capture = Capture(Source.parse(source), lossless=True, backoff=(0.5, 1.0)).start()
    try:
        frame = capture.next(timeout=8.0)
        return (frame.image, None) if frame else (None, capture.last_error or capture.status.message)
    finally:
        capture.stop()


def run_calibrate(args: argparse.Namespace) -> int:
    import cv2

    from vision import annotate
    from vision.calibrate import CalibrationError, from_corners, from_markers
    from vision.tableconfig import ConfigError, default_config, load_config, save_config

    if args.save and args.save.suffix.lower() not in (".jpg", ".jpeg", ".png"):
        return fail(f"--save {args.save}: the camera view is written as .jpg or .png")
    try:
        if args.config.exists():
            config = load_config(args.config)
            asked = (args.game or config.layout.game, args.players or config.layout.players)
            if asked != (config.layout.game, config.layout.players):
                return fail(
                    f"{args.config} is the table of a {config.layout.game} game for {config.layout.players} players: "
                    "give another --config to start one for "
                    f"{asked[0]} with {asked[1]} players (or leave --game and --players out to calibrate this one)"
                )
        elif args.game and args.players is not None:
            config = default_config(args.game, args.players)
        else:
            return fail(f"{args.config}: no table config yet: give --game and --players to start one")
    except ConfigError as exc:
        return fail(str(exc))
    image, why = _grab(args.source)
    if image is None:
        return fail(f"no picture to calibrate from: {why}")
    h, w = image.shape[:2]  # type: ignore[attr-defined]
    try:
        if args.corners:
            points = [[float(v) for v in p.split(",")] for p in args.corners.split()]
            calibration = from_corners(points, config.layout, (w, h))
        else:
            calibration = from_markers(image, config.layout)  # type: ignore[arg-type]
    except (CalibrationError, ValueError) as exc:
        return fail(f"cannot calibrate: {exc}")
    config = config.with_calibration(calibration)
    try:
        save_config(args.config, config)
    except OSError as exc:
        return fail(f"{args.config}: cannot write the table config there ({exc.strerror or exc})")
    if args.save:
        view = annotate.draw(image, calibration, config.layout)  # type: ignore[arg-type]
        if not cv2.imwrite(str(args.save), view):
            return fail(f"saved {args.config}, but cannot write the camera view {args.save} (is its folder writable?)")
    how = f"{len(calibration.markers)} markers, {calibration.error_mm:.1f} mm" if calibration.markers else "corners"
    print(f"tablecall: calibrated {w}x{h} ({how}); saved {args.config}")
    return 0


run_calibrate.arguments = _calibrate_arguments  # type: ignore[attr-defined]
command("calibrate", "find the table in the camera picture and save it in the table config")(run_calibrate)


# -- live -------------------------------------------------------------------------------------------------
def _live_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("source", help="camera number, video file, stream URL or image folder")
    parser.add_argument("--config", type=Path, required=True, help="the table config (tablecall calibrate writes it)")
    parser.add_argument(
        "--log",
        type=Path,
        required=True,
        help="a game log to start from: its header (game, players, options) and the events entered "
        "by hand so far (the deal, bids, ...)",
    )
    parser.add_argument(
        "--out",
        type=Path,
        help="keep the whole log (given + camera events) in this file, written at the start and after every "
        "camera event, so a crash or Ctrl-C loses nothing",
    )
    parser.add_argument(
        "--every-frame",
        action="store_true",
        help="process every frame of a file as fast as it goes (by default a file plays in real time, every "
        "frame, and waits when the pipeline is behind)",
    )
    parser.add_argument("--models", help="the detector's weights folder (default models/)")


def run_live(args: argparse.Namespace) -> int:
    from scorer.events import EventError, LogError, format_log, parse_log
    from scorer.session import replay
    from vision.detections import DetectorUnavailable, load_detector
    from vision.live import LiveTable, SessionLink
    from vision.tableconfig import ConfigError, load_config, write_whole

    logging.basicConfig(level=logging.INFO, format="tablecall: %(message)s")
    try:
        config = load_config(args.config)
        session = replay(parse_log(read_text(args.log)))
        detector = load_detector(args.models)
    except (ConfigError, DetectorUnavailable, FileProblem) as exc:
        return fail(str(exc))
    except LogError as exc:
        return fail(f"{args.log}:{exc.line}: {exc.reason}")
    except (OSError, EventError) as exc:
        return fail(f"{args.log}: {exc}")
    offset = session.events[-1].ts if session.events else 0
    if args.out:
        try:
            write_whole(args.out, format_log(session.log()))  # now: a place it cannot write is said before the game
        except OSError as exc:
            return fail(f"--out {args.out}: cannot write it ({exc.strerror or exc})")

    printing = True  # until stdout is closed (`tablecall live ... | head`): the game goes on, --out still written

    def show(event: object, seq: int, rulings: list[object]) -> None:
        nonlocal printing
        if args.out:  # first: a print that fails must not keep the log from its file (error-handling audit, s41)
            try:
                write_whole(args.out, format_log(session.log()))
            except OSError as exc:
                logging.getLogger(__name__).error("--out %s: cannot write it (%s)", args.out, exc.strerror or exc)
        if not printing:
            return
        line = {"seq": seq, **getattr(event, "body", {}), "why": getattr(event, "reason", "")}
        line["rulings"] = [getattr(r, "code", "") for r in rulings]
        try:
            print(json.dumps(line, ensure_ascii=False), flush=True)
        except BrokenPipeError:
            printing = False
            logging.getLogger(__name__).warning(
                "the events are no longer printed (their reader stopped)%s",
                f"; --out {args.out} is still written" if args.out else "",
            )

    try:
        table = LiveTable(
            args.source,
            SessionLink(session, offset),
            config,
            detector=detector,
            lossless=args.every_frame,
            on_event=show,
        )
    except ValueError as exc:
        return fail(str(exc))
    table.start()
    try:
        table.wait()
    except KeyboardInterrupt:
        pass
    finally:
        table.stop()
    status = table.capture.status
    if status.state == "failed":
        return fail(status.message)
    if args.out:
        try:
            write_whole(args.out, format_log(session.log()))
        except OSError as exc:
            print(format_log(session.log()), end="")  # the log is not lost: it goes to the terminal
            return fail(f"--out {args.out}: cannot write it ({exc.strerror or exc}); the whole log is printed above")
    print(json.dumps({"camera_events": len(table.sent), "totals": session.summary()["totals"]}), file=sys.stderr)
    return 0


run_live.arguments = _live_arguments  # type: ignore[attr-defined]
command("live", "follow a game from a camera or a video and referee it (without the dashboard)")(run_live)
