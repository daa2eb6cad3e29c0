"""The ``tablecall`` command: one entry point, one subcommand per job.

Subcommands register themselves in :data:`COMMANDS` as ``name -> (add_arguments, run)``;
heavy imports (Flask, OpenCV, Ultralytics) happen inside ``run`` so ``tablecall replay``
starts fast and needs none of them.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Sequence
from contextlib import suppress
from pathlib import Path
from typing import Any

from scorer.events import EventError, LogError, parse_log
from scorer.game import winner_text
from scorer.session import faults_before, replay

EXIT_BAD_INPUT = 2

Command = tuple[Callable[[argparse.ArgumentParser], None], Callable[[argparse.Namespace], int], str]
COMMANDS: dict[str, Command] = {}


def command(name: str, help: str) -> Callable[[Callable[[argparse.Namespace], int]], Callable[..., int]]:
    """Register ``run`` as subcommand ``name``; its parser is set up by ``run.arguments``."""

    def wrap(run: Callable[[argparse.Namespace], int]) -> Callable[..., int]:
        arguments = getattr(run, "arguments", lambda parser: None)
        COMMANDS[name] = (arguments, run, help)
        return run

    return wrap


class FileProblem(Exception):
    """A file the user named cannot be read; the message says why, naming it."""


def read_text(path: Path, what: str = "a log file") -> str:
    """The text of a file the user named (UTF-8, a byte-order mark left out: Windows Notepad writes one), or
    :class:`FileProblem` saying plainly why not."""
    try:
        return path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise FileProblem(f"{path}: no such file") from None
    except IsADirectoryError:
        raise FileProblem(f"{path}: is a folder, not {what}") from None
    except UnicodeDecodeError:
        raise FileProblem(f"{path}: is not text (UTF-8), so not {what}") from None
    except OSError as exc:
        raise FileProblem(f"{path}: cannot read it ({exc.strerror or exc})") from None


def fail(message: str, status: int = EXIT_BAD_INPUT) -> int:
    print(f"tablecall: {message}", file=sys.stderr)
    return status


#: the seeds numpy's generators take (a negative one used to end in a stack trace)
SEEDS = (0, 2**32 - 1)


def out_of_range(args: argparse.Namespace, limits: dict[str, tuple[float, float]]) -> str | None:
    """Why one of the options named in ``limits`` (``"--seed": (low, high)``) is out of its range, for
    :func:`fail` (None: all in range, or not given). An option given several values is checked for each; NaN is
    never in range."""
    for option, (low, high) in limits.items():
        given = getattr(args, option.lstrip("-").replace("-", "_"))
        for value in given if isinstance(given, list) else [given]:
            if value is not None and not low <= value <= high:
                return f"{option} must be from {_number(low)} to {_number(high)}, not {_number(value)}"
    return None


def _number(value: float) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


# -- replay ---------------------------------------------------------------------------------
def _replay_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("log", type=Path, help="a game log (JSON Lines)")
    parser.add_argument("--explain", action="store_true", help="print for a person instead of JSON")


def run_replay(args: argparse.Namespace) -> int:
    path: Path = args.log
    try:
        text = read_text(path)
    except FileProblem as exc:
        return fail(str(exc))
    try:
        log = parse_log(text)
    except LogError as exc:
        return fail(f"{path}:{exc.line}: {exc.reason}")
    try:
        session = replay(log)
    except LogError as exc:
        return fail(f"{path}:{exc.line}: {exc.reason}{faults_before(log, exc.line, exc.reason)}")
    except EventError as exc:  # pragma: no cover - replay wraps every EventError in LogError
        return fail(f"{path}: {exc}")
    summary = session.summary()
    if args.explain:
        print(explain(summary))
    else:
        # JSON where the output can hold every character as it is; else \u escapes, which any encoding can (a
        # replaced name lost data: two names of one length became one key, and one player's total was gone)
        utf = (sys.stdout.encoding or "").lower().replace("-", "").replace("_", "") in ("utf8", "utf8sig")
        print(json.dumps(summary, indent=2, ensure_ascii=not utf))
    return 0


run_replay.arguments = _replay_arguments  # type: ignore[attr-defined]
command("replay", "replay a game log and print the final state")(run_replay)


def explain(summary: dict[str, Any]) -> str:
    """The replay summary as a person reads it."""
    lines = [f"{summary['game'].title()}: {', '.join(summary['players'])}"]
    if summary.get("teams"):
        teams = summary["teams"].items()
        lines.append("Teams: " + "; ".join(k if k == " & ".join(v) else f"{k} = {' & '.join(v)}" for k, v in teams))
    changed = {k: v for k, v in summary["options"].items()}
    lines.append("Options: " + (", ".join(f"{k}={v}" for k, v in changed.items()) or "none"))
    if summary["history"]:
        lines.append("")
        lines.append("History:")
        for number, row in enumerate(summary["history"], start=1):
            parts = ", ".join(f"{k} {_short(v)}" for k, v in row.items())
            lines.append(f"  {number:>2}. {parts}")
    lines.append("")
    better = "lower is better" if summary.get("lower_wins") else "higher is better"
    lines.append(f"Totals ({better}):")
    for name, total in summary["totals"].items():
        lines.append(f"  {name:<24} {total:>6}")
    winner = winner_text(summary["winner"], summary.get("teams"))
    if winner:
        lines.append(winner)
    else:
        lines.append("Winner: none yet" + (" (game over, no winner)" if summary.get("finished") else ""))
    rulings = [r for r in summary["rulings"] if r["severity"] != "info"]
    if rulings:
        lines.append("")
        lines.append(f"Rulings ({len(rulings)}):")
        for ruling in rulings:
            who = f" [{ruling['player']}]" if ruling["player"] else ""
            lines.append(f"  #{ruling['seq']} {ruling['severity'].upper()} {ruling['code']}{who}: {ruling['message']}")
    return "\n".join(lines)


def _short(value: Any) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_short(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_short(v) for v in value) + "]"
    return str(value)


# -- entry point ----------------------------------------------------------------------------
PACKAGES = ("web", "vision", "scorer")  # this project's own: one of them missing is a bug, said with a traceback
#: the modules that add subcommands, and the subcommands each adds (named here for when one cannot be loaded)
PLUGINS = {
    "web.commands": ("serve", "backup"),
    "vision.commands": ("synth", "train", "quantize", "detect", "evaluate"),
    "vision.live_commands": ("markers", "calibrate", "live"),
    "vision.sim.command": ("simulate",),
}


def _load_plugins() -> None:
    """Import the modules that add subcommands (``serve``, ``detect``, …) when present. One that needs a library of
    the vision extras that is not installed (OpenCV, numpy) is left out, its subcommands saying what they need:
    ``vision.sim.command`` imports OpenCV through its package, and without the extras every command, ``serve`` and
    ``replay`` too, ended in that ModuleNotFoundError's traceback (a mutation round of web/cli.py, session 54)."""
    import importlib

    for module, names in PLUGINS.items():
        try:
            importlib.import_module(module)
        except ModuleNotFoundError as exc:
            if exc.name != module and _ours(exc):
                raise
            if exc.name != module:  # its commands say what they need (argparse said "invalid choice: 'simulate'")
                for name in names:
                    UNAVAILABLE.setdefault(name, str(exc.name))
                    COMMANDS.setdefault(name, (lambda parser: None, lambda args: 0, "(needs the vision extras)"))


def _ours(exc: ModuleNotFoundError) -> bool:
    """Whether the module not found is one of this project's (a bug, raised) rather than a library not installed."""
    return (exc.name or "").split(".")[0] in PACKAGES


def build_parser() -> argparse.ArgumentParser:
    _load_plugins()
    parser = argparse.ArgumentParser(prog="tablecall", description="Referee and scorekeeper for card games.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (arguments, run, help) in COMMANDS.items():
        child = sub.add_parser(name, help=help, description=help)
        try:
            arguments(child)
        except ModuleNotFoundError as exc:  # (its defaults come from a library of the vision extras: `quantize`)
            if _ours(exc):
                raise
            UNAVAILABLE.setdefault(name, str(exc.name))
        child.set_defaults(run=run)
    return parser


#: subcommands that cannot run here, and the library each lacks: said before their options are parsed (whatever
#: they are: an option of `quantize` set up before the missing import was met would be taken, the rest refused)
UNAVAILABLE: dict[str, str] = {}


def main(argv: Sequence[str] | None = None) -> int:
    for stream in (sys.stdout, sys.stderr):  # output a terminal or file cannot encode (Windows' cp1252 with a
        if hasattr(stream, "reconfigure"):  # Burmese name, the QR code's blocks) is replaced, not a traceback
            stream.reconfigure(errors="replace")
    try:  # (Ctrl-C while the commands' modules load, in the first second: a traceback; the kill audit, session 42)
        parser = build_parser()
        given = list(sys.argv[1:] if argv is None else argv)
        if given and given[0] in UNAVAILABLE:
            return fail(
                f"{given[0]} needs the vision extras ({UNAVAILABLE[given[0]]} is not installed): "
                "pip install 'tablecall[vision]'"
            )
        args = parser.parse_args(given)
        if not getattr(args, "run", None):
            parser.print_help()
            return EXIT_BAD_INPUT
        code = int(args.run(args))
        sys.stdout.flush()  # (what is left in the buffer was written at exit, outside this: "Exception ignored ...
        return code  # BrokenPipeError" and status 120 for `tablecall replay LOG | head -1`; environment audit)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `tablecall replay --explain x | head`: the reader had enough; no traceback
        output_gone()
        return 0


def output_gone() -> None:
    """Standard output's reader has stopped (`| head`): what is still written goes nowhere, not into a
    BrokenPipeError at the exit."""
    with suppress(AttributeError, OSError, ValueError):  # (an output that is no file: nothing to point elsewhere)
        nowhere = os.open(os.devnull, os.O_WRONLY)
        os.dup2(nowhere, sys.stdout.fileno())
        os.close(nowhere)


if __name__ == "__main__":
    # Run as a script the module is ``__main__``; subcommands register on ``web.cli``, so use that one.
    from web.cli import main as _main

    sys.exit(_main())
