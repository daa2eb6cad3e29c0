"""The command line's shared checks (``web.cli``): numbers out of range are said plainly, never a stack trace."""

from __future__ import annotations

import argparse

import pytest

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
