"""The card reader's commands refuse bad options and empty folders at once, in one line:
no stack trace, and no minutes of work ending in zeros."""

from __future__ import annotations

from pathlib import Path

import pytest

from web.cli import main

pytest.importorskip("cv2")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        pytest.param(["synth", "{tmp}/s", "--seed", "-1"], "--seed must be from 0 to", id="synth_negative_seed"),
        pytest.param(["synth", "{tmp}/s", "--workers", "0"], "--workers must be from 1 to 256", id="synth_no_workers"),
        pytest.param(["synth", "{tmp}/s", "--proc-share", "7"], "--proc-share must be from 0 to 1", id="synth_share"),
        pytest.param(["synth", "{tmp}/s", "--start", "-2"], "--start must be from 0 to", id="synth_negative_start"),
        pytest.param(["quantize", "--seed", "-1"], "--seed must be from 0 to", id="quantize_negative_seed"),
        pytest.param(["detect", "{tmp}/x.png", "--conf", "2"], "--conf must be from 0 to 1, not 2", id="detect_conf"),
        pytest.param(["detect", "{tmp}/x.png", "--min-card", "-0.5"], "--min-card must be from 0 to 1", id="min_card"),
        pytest.param(["evaluate", "--sim", "--sim-seed", "3", "-4"], "--sim-seed must be from 0 to", id="sim_seed"),
        pytest.param(["evaluate", "--heldout", "{tmp}", "--limit", "0"], "--limit must be from 1 to", id="no_limit"),
        pytest.param(["evaluate", "--heldout", "{tmp}"], "--heldout {tmp}: no rendered scenes there", id="no_scenes"),
        pytest.param(["evaluate", "--stages", "{tmp}/nope"], "--stages {tmp}/nope: no rendered scenes", id="no_folder"),
        pytest.param(["evaluate", "--ap", "{tmp}"], "--ap {tmp}: no rendered scenes there", id="ap_no_scenes"),
        pytest.param(["evaluate", "--pinochle", "{tmp}"], "not a folder of rank-labelled photos", id="no_labels"),
    ],
)
def test_bad_options_are_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    assert main([a.format(tmp=tmp_path) for a in argv]) == 2
    err = capsys.readouterr().err
    assert message.format(tmp=tmp_path) in err and "Traceback" not in err and err.count("\n") == 1
    assert not (tmp_path / "s").exists()  # nothing was started (synth had not begun writing)


def test_evaluate_given_the_synth_folder_instead_of_its_scenes_says_which_to_give(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`tablecall synth OUT --heldout` writes OUT/scenes and OUT/oriented.json: --heldout OUT used to pass the check
    (a .json is there) and end in an AttributeError traceback."""
    (tmp_path / "scenes").mkdir()
    (tmp_path / "scenes" / "000001.json").write_text("{}")
    (tmp_path / "oriented.json").write_text("{}")
    assert main(["evaluate", "--heldout", str(tmp_path)]) == 2
    assert f"give its scenes: {tmp_path / 'scenes'}" in capsys.readouterr().err


def test_ctrl_c_during_synth_stops_it_in_a_line_without_a_traceback_per_worker(tmp_path: Path) -> None:
    """Ctrl-C (SIGINT to the whole process group, as a terminal sends it) while two workers render: each worker
    printed its own KeyboardInterrupt traceback, and nothing said what was kept."""
    import os
    import signal
    import subprocess
    import sys
    import time

    out = tmp_path / "set"
    # procedural decks only: no artwork is rendered before the scenes, so the signal comes while the workers draw
    command = [sys.executable, "-m", "web.cli", "synth", str(out), "--scenes", "400", "--workers", "2"]
    command += ["--proc-share", "1"]
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
    )
    ends = time.monotonic() + 120
    while time.monotonic() < ends and not list((out / "detect").rglob("*.txt")):  # the workers are rendering
        time.sleep(0.2)
    os.killpg(process.pid, signal.SIGINT)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 130
    assert "Traceback" not in err and "KeyboardInterrupt" not in err
    assert f"stopped; the scenes written in {out} so far are kept" in err
