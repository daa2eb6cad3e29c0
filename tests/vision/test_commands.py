"""The card reader's commands refuse bad options and empty folders at once, in one line:
no stack trace, and no minutes of work ending in zeros."""

from __future__ import annotations

import json
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


def test_synth_of_no_scenes_is_refused_not_an_empty_set(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--scenes 0`` used to be a set with nothing in it, and exit 0: training on it fails much later."""
    assert main(["synth", str(tmp_path / "s"), "--scenes", "0"]) == 2
    err = capsys.readouterr().err
    assert "--scenes must be at least 1" in err and err.count("\n") == 1
    assert not (tmp_path / "s").exists()  # nothing rendered, and no empty folder left behind


@pytest.mark.parametrize(
    ("counts", "message"),
    [
        (["--reader-boxes", "-1"], "--reader-boxes cannot be negative"),
        (["--sim-videos", "-2"], "--sim-videos cannot be negative"),
        (["--face-cards", "3", "--face-videos", "-1"], "--face-videos cannot be negative"),
        (["--scenes", "-5"], "--scenes must be at least 1"),
    ],
    ids=["reader-boxes", "sim-videos", "face-videos", "scenes"],
)
def test_a_refused_count_leaves_no_folder_behind(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], counts: list[str], message: str
) -> None:
    """A count synth refuses is said before OUT is made (it used to be made first, and left empty)."""
    out = tmp_path / "new" / "set"
    assert main(["synth", str(out), *counts]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "new").exists()


def test_scenes_added_to_an_upright_set_keep_the_first_ones_and_its_kind(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--start`` adds scenes to a set (not over its first ones), and ``--axis-aligned`` is recorded as the set's
    kind, which the training recipe gives the networks."""
    synth = ["synth", str(tmp_path), "--scenes", "1", "--workers", "1", "--proc-share", "1", "--axis-aligned"]
    assert main(synth) == 0
    assert main([*synth, "--start", "1"]) == 0
    labels = sorted(p.name for p in (tmp_path / "detect" / "labels").rglob("*.txt"))
    assert labels == ["s1_000000.txt", "s1_000001.txt"]
    assert json.loads((tmp_path / "oriented.json").read_text()) == {"oriented": False}


def test_train_takes_the_cpu_and_refuses_a_gpu_this_machine_lacks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--device cpu`` passes the device check (the missing data is what is said); a GPU number one past the last
    is refused before training, not in a traceback from PyTorch (``--device 0`` on a machine with no GPU)."""
    torch = pytest.importorskip("torch")
    assert main(["train", "--device", "cpu", "--data", str(tmp_path / "nowhere")]) == 2
    assert "nowhere: no such folder" in capsys.readouterr().err
    gpus = torch.cuda.device_count()
    assert main(["train", "--device", str(gpus), "--data", str(tmp_path)]) == 2
    assert f"--device {gpus}: this machine has" in capsys.readouterr().err


def test_export_only_says_which_stage_and_which_data_before_exporting(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("torch")
    weights = tmp_path / "best.pt"
    weights.write_bytes(b"weights trained elsewhere")
    export = ["train", "--export-only", str(weights), "--models", str(tmp_path / "models")]
    assert main([*export, "--data", str(tmp_path)]) == 2  # no --stage: both
    assert "give --stage detector, classifier or face" in capsys.readouterr().err
    # the classifier's data says how its crops were turned
    assert main([*export, "--stage", "classifier", "--data", str(tmp_path / "nowhere")]) == 2
    assert "nowhere: no such folder; give the --data the classifier was trained on" in capsys.readouterr().err
    assert not (tmp_path / "models").exists()


def test_heldout_scenes_are_written_whole_where_evaluate_reads_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``synth OUT --heldout`` writes whole scenes to OUT/scenes (what ``evaluate --heldout`` reads), not a
    training set of the held-out designs."""
    from vision import dataset
    from vision.synth import DesignPool

    # procedural decks: the held-out artwork (minutes to render, not installed everywhere) is not what is checked
    monkeypatch.setattr(dataset, "default_pool", lambda heldout=False, proc_share=0.6: DesignPool((), proc_share=1.0))
    assert main(["synth", str(tmp_path), "--heldout", "--scenes", "1", "--workers", "1"]) == 0
    assert len(list((tmp_path / "scenes").glob("*.json"))) == 1
    assert not (tmp_path / "detect").exists() and not (tmp_path / "classify").exists()
