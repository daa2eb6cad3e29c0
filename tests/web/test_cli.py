"""The command line's shared checks (``web.cli``): numbers out of range are said plainly, never a stack trace."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.web.server import ROOT
from tests.web.test_cli_replay import write_log
from web.cli import SEEDS, out_of_range


@pytest.mark.parametrize(
    ("given", "limits", "expected"),
    [
        pytest.param({"seed": 7}, {"--seed": SEEDS}, None, id="in_range"),
        pytest.param({"seed": None}, {"--seed": SEEDS}, None, id="not_given"),
        pytest.param({"seed": -1}, {"--seed": SEEDS}, f"--seed must be from 0 to {2**32 - 1}, not -1", id="negative"),
        pytest.param(
            {"seed": 2**32}, {"--seed": SEEDS}, f"--seed must be from 0 to {2**32 - 1}, not {2**32}", id="big"
        ),
        pytest.param({"min_card": 1.5}, {"--min-card": (0, 1)}, "--min-card must be from 0 to 1, not 1.5", id="dashes"),
        pytest.param({"share": float("nan")}, {"--share": (0, 1)}, "--share must be from 0 to 1, not nan", id="nan"),
        pytest.param(
            {"seeds": [1, 2, -3]}, {"--seeds": SEEDS}, f"--seeds must be from 0 to {2**32 - 1}, not -3", id="each"
        ),
        pytest.param(
            {"a": 5, "b": 0.25}, {"--a": (1, 4), "--b": (0.5, 1)}, "--a must be from 1 to 4, not 5", id="the_first"
        ),
    ],
)
def test_an_option_out_of_its_range_is_said_by_name(given: dict, limits: dict, expected: str | None) -> None:
    assert out_of_range(argparse.Namespace(**given), limits) == expected


def test_ctrl_c_while_the_commands_load_ends_quietly(monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C in the first second of `tablecall serve`, while its modules load: a traceback (the kill audit, s42)."""
    import web.cli

    def interrupted() -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(web.cli, "build_parser", interrupted)
    try:
        code = web.cli.main(["serve"])
    except KeyboardInterrupt:  # (not let through: it would stop the test run)
        pytest.fail("the Ctrl-C came out of main: a traceback")
    assert code == 130


def test_tablecall_without_a_command_shows_the_commands_and_fails(capsys: pytest.CaptureFixture[str]) -> None:
    """`tablecall` alone (a script whose subcommand was lost, `tablecall $CMD` with CMD unset): the list of commands,
    and status 2, so that the script stops there rather than going on as if something was done."""
    import web.cli

    assert web.cli.main([]) == 2
    assert "serve" in capsys.readouterr().out


WITHOUT_VISION = """
import sys
for name in ("numpy", "cv2", "openvino", "onnxruntime", "PIL", "yaml", "tqdm"):
    sys.modules[name] = None  # (an import of it raises ModuleNotFoundError: as if the vision extras were not installed)
from web.cli import main
sys.exit(main(sys.argv[1:]))
"""


def test_the_commands_work_without_the_vision_extras(tmp_path: Path) -> None:
    """Installed without the vision extras (no OpenCV, no numpy), `serve` (docs/web.md: the camera then says it needs
    them) and `replay` run: every command ended in a traceback, ModuleNotFoundError: cv2, raised while the simulator's
    subcommand was loaded (its package imports OpenCV), then while `quantize`'s options were (their defaults are
    read from vision.quantize), which now says what it needs."""
    log = write_log(tmp_path)
    run = [sys.executable, "-c", "import tests.scorer.toygame\n" + WITHOUT_VISION]
    replayed = subprocess.run([*run, "replay", str(log)], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert replayed.returncode == 0 and json.loads(replayed.stdout)["totals"] == {"Ann": 3, "Bo": 6}, replayed.stderr
    helped = subprocess.run([*run, "serve", "--help"], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert helped.returncode == 0 and "--lan" in helped.stdout, helped.stderr
    quantize = [*run, "quantize", "--scenes", "5"]  # (an option of its own: its options could not all be set up)
    quantized = subprocess.run(quantize, capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert quantized.returncode == 2 and "Traceback" not in quantized.stderr, quantized.stderr
    assert "quantize needs the vision extras (cv2 is not installed)" in quantized.stderr
    # the simulator's module cannot be loaded at all: its command says what it needs ("invalid choice" before)
    simulate = [*run, "simulate", "-o", "x.mp4", "--seed", "3", "snap"]
    simulated = subprocess.run(simulate, capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert simulated.returncode == 2 and "simulate needs the vision extras" in simulated.stderr, simulated.stderr


def test_each_plugin_adds_the_commands_it_is_listed_with() -> None:
    """web.cli.PLUGINS names each module's commands, for when the module cannot be loaded: the list is the truth."""
    from web.cli import COMMANDS, PLUGINS, build_parser

    build_parser()
    assert {name: run.__module__ for name, (_, run, _) in COMMANDS.items() if run.__module__ != "web.cli"} == {
        name: module for module, names in PLUGINS.items() for name in names
    }


def test_a_file_saved_with_a_byte_order_mark_is_read_without_it(tmp_path: Path) -> None:
    """Windows Notepad saves UTF-8 with a byte-order mark. A log's parser drops one itself, but not every file read
    through read_text is a log: `simulate --layout FILE` parses JSON or TOML, which both refuse the mark."""
    from web.cli import read_text

    layout = tmp_path / "layout.json"
    layout.write_bytes(b'\xef\xbb\xbf{"zones": []}\n')
    assert read_text(layout, "a layout file") == '{"zones": []}\n'
