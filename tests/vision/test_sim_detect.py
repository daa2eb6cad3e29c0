"""The detector on simulated video: each ground-truth card is found in the frame at its stated time.

This is what the live pipeline's end-to-end tests build on. It runs ``tablecall detect`` (the detector's public
command) on the frames the ground truth names, rendered with held-out card art the detector never trained on, at
the detector size the live table uses for webcam frames (``WEBCAM_IMGSZ``).
It skips, saying why, while ``models/`` holds no weights or the detect command is not installed.
"""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from scorer.events import parse_log
from vision.sim import DEMOS, Options, SimError, Simulation, demo_log
from vision.sim.render import pick_design

ROOT = Path(__file__).resolve().parents[2]
MODELS = ROOT / "models"


def _weights() -> list[Path]:
    return [p for pattern in ("*.onnx", "**/*.xml") for p in MODELS.glob(pattern)] if MODELS.is_dir() else []


pytestmark = [
    pytest.mark.slow,  # the trained detector on every ground-truth frame of four videos: run with --runslow
    pytest.mark.skipif(
        not _weights(), reason="models/ holds no detector weights yet (tablecall train writes them; see docs/vision.md)"
    ),
]


def _detect_command() -> None:
    from web.cli import COMMANDS, build_parser

    build_parser()  # loads the plugin modules that register commands
    if "detect" not in COMMANDS:
        pytest.skip("tablecall detect is not registered (vision.commands is not installed yet)")


def _inside(quad: list[list[float]], point: tuple[float, float], slack: float = 4.0) -> bool:
    return cv2.pointPolygonTest(np.float32(quad), point, True) >= -slack


@pytest.mark.parametrize("name", DEMOS)
def test_the_detector_finds_each_ground_truth_card_at_its_time(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _detect_command()
    from web.cli import main

    try:
        design = pick_design(31, "heldout")
    except SimError as exc:
        pytest.skip(str(exc))
    log = parse_log(demo_log(name).read_text(encoding="utf-8"))
    sim = Simulation.prepare(log, Options(size=(1280, 720), fps=5, seed=31, design=design))
    truth = sim.measure()
    cards = [c for e in truth["events"] for c in e["cards"]]
    assert cards and all(c["t_ms"] is not None for c in cards)
    paths = {}
    for frame in sorted({c["frame"] for c in cards}):
        path = tmp_path / f"{name}_{frame:05d}.png"
        cv2.imwrite(str(path), sim.frame(frame))
        paths[frame] = path
    capsys.readouterr()
    from vision.detect import WEBCAM_IMGSZ

    assert main(["detect", *map(str, paths.values()), "--json", "--imgsz", str(WEBCAM_IMGSZ)]) == 0
    found = {}
    for line in capsys.readouterr().out.splitlines():
        if line.strip():
            record = json.loads(line)
            found[Path(record["image"]).name] = record["cards"]
    missed = []
    for c in cards:
        seen = found.get(paths[c["frame"]].name, [])
        hits = [
            d
            for d in seen
            if d["card"] == c["card"]
            and _inside(c["quad"], ((d["box"][0] + d["box"][2]) / 2, (d["box"][1] + d["box"][3]) / 2))
        ]
        if not hits:
            missed.append(f"{c['card']} in {c['zone']} at {c['t_ms']} ms (seen: {[d['card'] for d in seen]})")
    assert not missed, f"{len(missed)} of {len(cards)} cards not found ({design}): " + "; ".join(missed[:8])
