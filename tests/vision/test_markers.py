"""``tablecall markers`` (the printable sheet), ``tablecall calibrate`` and ``tablecall live`` from the command line."""

from __future__ import annotations

import re
import zlib
from pathlib import Path

import cv2
import numpy as np
import pytest

import vision.live_commands  # noqa: F401  (registers the subcommands)
from scorer.events import parse_log
from tests.vision.tablesim import Script, camera, project
from vision.calibrate import find_markers
from vision.markers import marker_cells, marker_sheet_pdf, marker_sheet_png
from vision.tableconfig import load_config
from vision.zones import default_layout
from web.cli import main


def test_the_png_sheet_holds_the_four_markers_at_true_size() -> None:
    page = marker_sheet_png(60, dpi=150)
    assert page.shape == (round(297 / 25.4 * 150), round(210 / 25.4 * 150))
    found = find_markers(cv2.cvtColor(page, cv2.COLOR_GRAY2BGR))
    assert sorted(found) == [0, 1, 2, 3]
    side = np.linalg.norm(found[0][1] - found[0][0])
    assert side == pytest.approx(60 / 25.4 * 150, abs=2)


def test_the_pdf_is_well_formed_and_draws_each_cell_at_true_size() -> None:
    pdf = marker_sheet_pdf(50)
    assert pdf.startswith(b"%PDF-1.4") and pdf.rstrip().endswith(b"%%EOF")
    xref = int(pdf.rsplit(b"startxref", 1)[1].split()[0])
    assert pdf[xref:].startswith(b"xref")
    offsets = [int(x) for x in re.findall(rb"(\d{10}) 00000 n", pdf)]
    for number, offset in enumerate(offsets, start=1):
        assert pdf[offset:].startswith(f"{number} 0 obj".encode())
    stream = pdf.split(b"stream\n", 1)[1].split(b"\nendstream", 1)[0]
    content = zlib.decompress(stream).decode("latin-1")
    cell = 50 / 6 * 72 / 25.4
    squares = re.findall(r"[\d.]+ [\d.]+ ([\d.]+) ([\d.]+) re f", content)
    black = sum(int(marker_cells(i).sum()) for i in range(4))
    assert len(squares) == black and all(float(w) == pytest.approx(cell, abs=0.01) for w, _ in squares)
    assert "Print at 100 %" in content and "910 mm apart" in content


def test_the_pdf_sheet_read_back_holds_the_four_markers_each_named_with_its_corner() -> None:
    """The PDF's squares drawn back at 2 px a point are the four markers 0-3, apart, upright (a row drawn upside down
    made another marker, or none); under each, the corner it goes to; the distances the layout expects."""
    pdf = marker_sheet_pdf(60)
    content = zlib.decompress(pdf.split(b"stream\n", 1)[1].split(b"\nendstream", 1)[0]).decode("latin-1")
    page = np.full((round(297 * 72 / 25.4 * 2), round(210 * 72 / 25.4 * 2)), 255, np.uint8)
    for x, y, w, h in re.findall(r"([\d.]+) ([\d.]+) ([\d.]+) ([\d.]+) re f", content):
        left, bottom, right, top = (round(float(v) * 2) for v in (x, y, float(x) + float(w), float(y) + float(h)))
        page[page.shape[0] - top : page.shape[0] - bottom, left:right] = 0
    found = find_markers(cv2.cvtColor(page, cv2.COLOR_GRAY2BGR))
    assert sorted(found) == [0, 1, 2, 3]
    centres = [found[i].mean(axis=0) for i in range(4)]
    assert min(np.linalg.norm(a - b) for k, a in enumerate(centres) for b in centres[k + 1 :]) > 60 * 72 / 25.4 * 2
    lines = [line.replace("\\(", "(").replace("\\)", ")") for line in re.findall(r"\((.*?)\) Tj", content)]
    corners = ["far-left corner (top left", "far-right corner (top right", "near-right corner (bottom right"]
    for marker, corner in enumerate([*corners, "near-left corner (bottom left"]):
        at = lines.index(f"tablecall marker {marker} (DICT_4X4_50), 60 mm wide")
        assert lines[at + 1].startswith(f"Put it at the play area's {corner}"), lines[at + 1]
    assert "910 mm apart across the table and 610 mm apart from far to near" in content


def test_marker_size_limits() -> None:
    with pytest.raises(ValueError, match="20 to 90 mm"):
        marker_sheet_pdf(120)
    with pytest.raises(ValueError, match="has no marker"):
        marker_cells(99)


@pytest.mark.parametrize("name", ["sheet.pdf", "sheet.png"])
def test_tablecall_markers_writes_the_sheet(tmp_path: Path, name: str, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / name
    assert main(["markers", "-o", str(out), "--dpi", "100"]) == 0
    assert out.stat().st_size > 1000 and "print it at 100 %" in capsys.readouterr().out


@pytest.mark.parametrize(
    "args, message",
    [
        pytest.param(["-o", "sheet.svg"], "as .pdf or .png", id="unknown_format"),
        pytest.param(["--size", "10"], "20 to 90 mm", id="marker_too_small"),
        pytest.param(["-o", "no/such/folder/sheet.pdf"], "cannot write it", id="unwritable"),
    ],
)
def test_tablecall_markers_bad_input(
    tmp_path: Path, args: list[str], message: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["markers", *args]) == 2
    assert message in capsys.readouterr().err


def test_tablecall_calibrate_from_a_picture_with_markers(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    picture = tmp_path / "table.png"
    cv2.imwrite(str(picture), Script(default_layout("spades", 4)).frame(0))
    config, view = tmp_path / "table.toml", tmp_path / "view.jpg"
    args = [
        "calibrate",
        str(picture),
        "--config",
        str(config),
        "--game",
        "spades",
        "--players",
        "4",
        "--save",
        str(view),
    ]
    assert main(args) == 0
    assert "calibrated 960x540 (4 markers" in capsys.readouterr().out
    saved = load_config(config)
    assert saved.calibration is not None and saved.layout.game == "spades" and cv2.imread(str(view)) is not None
    assert main(["calibrate", str(picture), "--config", str(config)]) == 0  # again, from the saved config


def test_tablecall_calibrate_from_clicked_corners(tmp_path: Path) -> None:
    picture = tmp_path / "table.png"
    cv2.imwrite(str(picture), Script(default_layout("snap", 2), markers=False).frame(0))
    corners = project(camera(), [(0, 0), (1000, 0), (1000, 700), (0, 700)])
    text = " ".join(f"{x:.1f},{y:.1f}" for x, y in corners)
    config = tmp_path / "t.toml"
    assert (
        main(
            ["calibrate", str(picture), "--config", str(config), "--game", "snap", "--players", "2", "--corners", text]
        )
        == 0
    )
    assert load_config(config).calibration.method == "corners"  # type: ignore[union-attr]


@pytest.mark.parametrize(
    "extra, message",
    [
        pytest.param([], "give --game and --players", id="no_config_no_game"),
        pytest.param(["--game", "snap", "--players", "2"], "found 0 of the table's corner markers", id="no_markers"),
        pytest.param(
            ["--game", "snap", "--players", "2", "--corners", "1,2 3,4"], "exactly four corners", id="two_corners"
        ),
        pytest.param(["--game", "chess", "--players", "2"], "no default layout", id="unknown_game"),
    ],
)
def test_tablecall_calibrate_bad_input(
    tmp_path: Path, extra: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    picture = tmp_path / "plain.png"
    cv2.imwrite(str(picture), np.full((540, 960, 3), 90, np.uint8))
    assert main(["calibrate", str(picture), "--config", str(tmp_path / "t.toml"), *extra]) == 2
    assert message in capsys.readouterr().err


def test_tablecall_calibrate_from_a_missing_video(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = [
        "calibrate",
        str(tmp_path / "none.mp4"),
        "--config",
        str(tmp_path / "t.toml"),
        "--game",
        "snap",
        "--players",
        "2",
    ]
    assert main(args) == 2
    assert "no picture to calibrate from: video file" in capsys.readouterr().err


def test_tablecall_live_without_weights_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    picture = tmp_path / "table.png"
    cv2.imwrite(str(picture), Script(default_layout("snap", 2)).frame(0))
    config = tmp_path / "t.toml"
    assert main(["calibrate", str(picture), "--config", str(config), "--game", "snap", "--players", "2"]) == 0
    log = tmp_path / "start.jsonl"
    log.write_text('{"format": "tablecall-log", "version": 1, "game": "snap", "players": ["A", "B"]}\n')
    code = main(["live", str(tmp_path), "--config", str(config), "--log", str(log), "--models", str(tmp_path / "none")])
    assert code == 2 and "detector" in capsys.readouterr().err


def test_tablecall_live_keeps_its_out_file_and_reads_logs_as_people_save_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--out`` is written at the start (a place it cannot write is said before the game, not after an evening)
    into a folder made for it; a log saved with a byte-order mark reads; a missing log is said plainly."""
    frames = tmp_path / "frames"
    frames.mkdir()
    for n in range(3):
        cv2.imwrite(str(frames / f"{n}.png"), Script(default_layout("snap", 2)).frame(0))
    config = tmp_path / "t.toml"
    assert main(["calibrate", str(frames / "0.png"), "--config", str(config), "--game", "snap", "--players", "2"]) == 0
    header = '{"format": "tablecall-log", "version": 1, "game": "snap", "players": ["A", "B"]}\n'
    log = tmp_path / "start.jsonl"
    log.write_text("\ufeff" + header, encoding="utf-8")  # as Windows Notepad saves it
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    args = ["live", str(frames), "--config", str(config), "--log", str(log), "--every-frame"]
    assert main([*args, "--out", str(blocker / "game.jsonl")]) == 2
    assert "--out" in capsys.readouterr().err
    out = tmp_path / "results" / "game.jsonl"
    assert main([*args, "--out", str(out)]) == 0
    assert parse_log(out.read_text(encoding="utf-8")).header == parse_log(header).header
    assert main(["live", str(frames), "--config", str(config), "--log", str(tmp_path / "none.jsonl")]) == 2
    assert "none.jsonl: no such file" in capsys.readouterr().err


def test_tablecall_calibrate_says_what_it_did_not_do(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A config for another game is not silently kept under new --game/--players; a view it cannot write is
    refused before anything is saved, or said together with what was saved; a camera that is not there is said
    without a promise to try again."""
    picture = tmp_path / "table.png"
    cv2.imwrite(str(picture), Script(default_layout("snap", 2)).frame(0))
    config = tmp_path / "t.toml"
    assert main(["calibrate", str(picture), "--config", str(config), "--game", "snap", "--players", "2"]) == 0
    capsys.readouterr()
    assert main(["calibrate", str(picture), "--config", str(config), "--game", "spades", "--players", "4"]) == 2
    assert "is the table of a snap game for 2 players" in capsys.readouterr().err
    assert load_config(config).layout.game == "snap"
    assert main(["calibrate", str(picture), "--config", str(config), "--save", str(tmp_path / "view.txt")]) == 2
    assert "written as .jpg or .png" in capsys.readouterr().err
    (tmp_path / "a-file").write_text("")
    assert main(["calibrate", str(picture), "--config", str(config), "--save", str(tmp_path / "a-file" / "v.png")]) == 2
    assert f"saved {config}, but cannot write the camera view" in capsys.readouterr().err
    assert main(["calibrate", str(picture), "--config", str(tmp_path / "a-file" / "t.toml"), "--game", "snap",
                 "--players", "2"]) == 2  # fmt: skip
    assert "cannot write the table config there" in capsys.readouterr().err
