"""The GPU round: subset fonts draw our glyphs as the full fonts do; faces survive the WebP round trip; and
(``--runslow``) ``vision/gpu/round.sh`` runs here on the CPU, training both stages a little."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFont

from vision.gpu.bundle import GLYPHS, pack_faces, subset_font, unpack_faces

ROOT = Path(__file__).resolve().parents[2]
DEJAVU = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf")


def _draw(font: ImageFont.FreeTypeFont, text: str) -> np.ndarray:
    image = Image.new("L", (120, 80), 0)
    ImageDraw.Draw(image).text((10, 10), text, font=font, fill=255)
    return np.asarray(image)


@pytest.mark.skipif(not DEJAVU.exists(), reason="fonts-dejavu-core is not installed (./dev vision installs it)")
def test_subset_font_draws_every_glyph_as_the_full_font(tmp_path: Path) -> None:
    small = tmp_path / "small.ttf"
    small.write_bytes(subset_font(str(DEJAVU)))
    assert small.stat().st_size < DEJAVU.stat().st_size / 5
    full, cut = ImageFont.truetype(str(DEJAVU), 48), ImageFont.truetype(str(small), 48)
    for text in [*GLYPHS, "10", "AK"]:
        assert np.array_equal(_draw(full, text), _draw(cut, text)), text
    assert not np.array_equal(_draw(full, "x"), _draw(cut, "x"))  # a glyph we never draw is really gone


def test_training_faces_round_trip_through_webp_and_held_out_ones_stay(tmp_path: Path) -> None:
    faces = tmp_path / "faces"
    train, heldout = "gnome_tango", "gnome_bellot"  # cache folders of a training and a held-out design
    rng = np.random.default_rng(0)
    card = np.full((180, 120, 3), 240, np.uint8)
    card[20:60, 10:40] = (200, 20, 30)
    card += rng.integers(0, 6, card.shape, dtype=np.uint8)
    for design in (train, heldout):
        (faces / design).mkdir(parents=True)
        Image.fromarray(card).save(faces / design / "heart_1.png")
        (faces / design / "meta.json").write_text("{}")
    out = tmp_path / "faces.tar"
    assert pack_faces(faces, out) == 1
    there = tmp_path / "there"
    with tarfile.open(out) as tar:
        assert sorted(tar.getnames()) == [f"faces/{train}/heart_1.webp", f"faces/{train}/meta.json"]
        tar.extractall(there, filter="data")
    assert unpack_faces(there / "faces", workers=1) == 1
    back = np.asarray(Image.open(there / "faces" / train / "heart_1.png").convert("RGB")).astype(int)
    assert back.shape == card.shape
    assert np.abs(back - card).mean() < 3
    assert (there / "faces" / train / "meta.json").read_text() == "{}"


@pytest.mark.parametrize(
    ("stages", "present", "missing"),
    [("detector", "card-classifier", "index-detector"), ("classifier", "index-detector", "card-classifier")],
)
def test_a_round_refuses_a_start_folder_without_the_stage_networks(
    tmp_path: Path, stages: str, present: str, missing: str
) -> None:
    (tmp_path / f"{present}.onnx").touch()  # the other stage's network is there: not enough
    env = {**os.environ, "OUT": str(tmp_path / "out"), "WARM_FROM": str(tmp_path), "STAGES": stages}
    done = subprocess.run(["bash", "vision/gpu/round.sh"], cwd=ROOT, env=env, capture_output=True, text=True)
    assert done.returncode == 2
    assert f"WARM_FROM={tmp_path} holds no {missing}.onnx" in done.stdout
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())  # nothing set up or rendered


@pytest.mark.slow  # renders, boxes and trains (about 1.5 minutes on 2 cores): run with --runslow
@pytest.mark.skipif(
    not (ROOT / "models" / "index-detector.onnx").exists(), reason="models/ holds no shipped networks to start from"
)
def test_the_gpu_round_trains_both_stages_and_brings_their_weights_back(tmp_path: Path) -> None:
    out, warm = tmp_path / "out", tmp_path / "first-round"
    warm.mkdir()
    for stage in ("card-classifier", "index-detector"):
        shutil.copyfile(ROOT / "models" / f"{stage}.onnx", warm / f"{stage}.onnx")
    env = {
        **os.environ,
        "OUT": str(out),
        "SKIP_SETUP": "1",  # this checkout has Ultralytics, the fonts and the faces already
        "PYTHON": sys.executable,
        "DEVICE": "cpu",
        "BUDGET": "200",
        "RENDER_S": "5",
        "MAXSCENES": "20",
        "CHUNK": "20",
        "READER_BOXES": "10",
        "FACE_DESIGNS": "2",
        "STAGES": "detector classifier",
        "WORKERS": "1",
        "BATCH": "8",
        "CLS_BATCH": "32",
        "SET": str(tmp_path / "set"),
        "RUNS": str(tmp_path / "runs"),
        "WARM_FROM": str(warm),  # a second round starts from the first one's export, not from models/
    }
    # errors="replace": round.sh keeps synth's progress bar to its last 200 bytes, which can split a character
    done = subprocess.run(
        ["bash", "vision/gpu/round.sh"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        errors="replace",
        timeout=900,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "reader-box crops of 10 scenes" in done.stdout
    assert "index crops of 2 new designs" in done.stdout
    assert f"the stages start from {warm}" in done.stdout
    for stage in ("card-classifier", "index-detector"):
        for name in ("best.pt", "last.pt", "results.csv"):
            assert (out / f"{stage}-{name}").stat().st_size > 0, f"{stage}-{name} did not come back"
    rows = (out / "card-classifier-results.csv").read_text().splitlines()
    assert len(rows) >= 2 and rows[0].startswith("epoch")  # at least one epoch trained and recorded
