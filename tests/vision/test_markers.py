"""``tablecall markers`` (the printable sheet), ``tablecall calibrate`` and ``tablecall live`` from the command line."""

from __future__ import annotations

import re
import zlib
from pathlib import Path
from types import SimpleNamespace
from typing import ClassVar

import cv2
import numpy as np
import pytest

import vision.live_commands  # noqa: F401  (registers the subcommands)
from scorer.events import parse_log
from tests.vision.tablesim import Script, camera, project
from vision.calibrate import find_markers
from vision.markers import marker_cells, marker_sheet_pdf, marker_sheet_png
from vision.tableconfig import default_config, load_config, save_config
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


def test_tablecall_calibrate_from_clicked_corners(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
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
    assert f"calibrated 960x540 (corners); saved {config}" in capsys.readouterr().out  # not "0 markers" (kills L10)


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


# -- mutants of vision/live_commands.py (session 55, data/s55/mutlivecmd) -------------------------------------------
def test_tablecall_markers_takes_a_sheet_named_in_capitals(tmp_path: Path) -> None:  # kills L01
    out = tmp_path / "SHEET.PDF"
    assert main(["markers", "-o", str(out)]) == 0
    assert out.read_bytes().startswith(b"%PDF")


def test_tablecall_markers_refuses_a_resolution_out_of_range(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:  # kills L02
    assert main(["markers", "-o", str(tmp_path / "sheet.png"), "--dpi", "40"]) == 2
    assert "--dpi must be from 50 to 1200, not 40" in capsys.readouterr().err
    assert not (tmp_path / "sheet.png").exists()


def test_tablecall_calibrate_refuses_another_game_or_player_count_given_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:  # kills L03 L04 L05
    """The host names only the game, or only the players, of a config saved for another table: refused, the config
    kept; a new config needs both."""
    picture = tmp_path / "table.png"
    cv2.imwrite(str(picture), Script(default_layout("snap", 2)).frame(0))
    config = tmp_path / "t.toml"
    assert main(["calibrate", str(picture), "--config", str(config), "--game", "snap"]) == 2
    assert "no table config yet: give --game and --players" in capsys.readouterr().err
    assert main(["calibrate", str(picture), "--config", str(config), "--game", "snap", "--players", "2"]) == 0
    before = config.read_text()
    capsys.readouterr()
    for extra, asked in ((["--game", "spades"], "spades with 2 players"), (["--players", "3"], "snap with 3 players")):
        assert main(["calibrate", str(picture), "--config", str(config), *extra]) == 2
        assert f"is the table of a snap game for 2 players: give another --config to start one for {asked}" in (
            capsys.readouterr().err
        )
        assert config.read_text() == before


def test_tablecall_calibrate_from_a_phone_photo_named_in_capitals_reads_it_upright(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:  # kills L07: IMG_0001.JPG went to OpenCV's video reader, which leaves the photo on its side
    from PIL import Image

    exif = Image.Exif()
    exif[0x0112] = 6  # the phone was held upright: a viewer turns the picture a quarter clockwise
    picture = tmp_path / "IMG_0001.JPG"
    sideways = np.rot90(Script(default_layout("snap", 2)).frame(0))  # as the phone stored it
    Image.fromarray(sideways[:, :, ::-1].copy()).save(picture, exif=exif.tobytes(), quality=95)
    args = ["calibrate", str(picture), "--config", str(tmp_path / "t.toml"), "--game", "snap", "--players", "2"]
    assert main(args) == 0
    assert "calibrated 960x540 (4 markers" in capsys.readouterr().out


def test_tablecall_calibrate_refuses_corners_that_are_not_numbers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:  # kills L09
    picture = tmp_path / "table.png"
    cv2.imwrite(str(picture), Script(default_layout("snap", 2), markers=False).frame(0))
    args = ["calibrate", str(picture), "--config", str(tmp_path / "t.toml"), "--game", "snap", "--players", "2"]
    assert main([*args, "--corners", "10,20 900,x 900,500 10,500"]) == 2
    assert "cannot calibrate: could not convert string to float: 'x'" in capsys.readouterr().err
    assert not (tmp_path / "t.toml").exists()


class _StandIn:
    """A stand-in for LiveTable in ``tablecall live``: at start it sends the camera events ``script`` gives it through
    the link it was given (times from the video's start), each said to ``on_event``, and reads the --out file after
    each; its capture ends as ``state``."""

    script: ClassVar[list[dict[str, object]]] = []
    state, message = "ended", ""
    seen: ClassVar[list[str]] = []
    out: ClassVar[Path]

    def __init__(self, source, link, config, detector, lossless, on_event):  # type: ignore[no-untyped-def]
        self.link, self.on_event, self.sent = link, on_event, []
        if config.layout.game != link.game:  # as LiveTable says it
            raise ValueError(f"the table config is for {config.layout.game}; the game is {link.game}")
        self.capture = SimpleNamespace(status=SimpleNamespace(state=self.state, message=self.message))

    def start(self) -> None:
        from vision.links import VisionEvent

        for n, body in enumerate(self.script):
            event = VisionEvent(body, 0, 500 * n, n, "seen")
            seq, rulings = self.link.append(event)
            self.sent.append(seq)
            self.on_event(event, seq, rulings)
            _StandIn.seen.append(self.out.read_text(encoding="utf-8") if self.out.exists() else "")

    def wait(self, timeout: object = None) -> bool:
        return True

    def stop(self) -> None:
        pass


@pytest.fixture
def stand_in(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> type[_StandIn]:
    import vision.detections
    import vision.live

    monkeypatch.setattr(vision.live, "LiveTable", _StandIn)
    monkeypatch.setattr(vision.detections, "load_detector", lambda models: None)
    monkeypatch.setattr(_StandIn, "seen", [])
    monkeypatch.setattr(_StandIn, "out", tmp_path / "out.jsonl", raising=False)  # (a ClassVar without a value)
    save_config(tmp_path / "t.toml", default_config("snap", 2))
    return _StandIn


SNAP_HEADER = '{"format": "tablecall-log", "version": 1, "game": "snap", "players": ["A", "B"]}\n'


def test_tablecall_live_times_camera_events_after_the_events_entered_by_hand_and_keeps_each_in_out(
    tmp_path: Path, stand_in: type[_StandIn], monkeypatch: pytest.MonkeyPatch
) -> None:  # kills L11 L13
    """The log given was entered by hand for two minutes (the deal at 120 s): the camera's first play, half a second
    into the video, is timed after it, not at 0.5 s; and --out holds each camera event as soon as it is said."""
    log = tmp_path / "start.jsonl"
    log.write_text(SNAP_HEADER + '{"seq": 1, "ts": 120000, "source": "manual", "type": "deal", "dealer": "B"}\n')
    monkeypatch.setattr(
        stand_in,
        "script",
        [{"type": "flip", "player": "A", "card": "5S"}, {"type": "flip", "player": "B", "card": "7D"}],
    )
    args = ["live", "video.mp4", "--config", str(tmp_path / "t.toml"), "--log", str(log), "--out", str(stand_in.out)]
    assert main(args) == 0
    events = parse_log(stand_in.out.read_text(encoding="utf-8")).events
    assert [(e.seq, e.ts, e.data.get("card")) for e in events] == [
        (1, 120000, None),
        (2, 120000, "5S"),
        (3, 120500, "7D"),
    ]
    assert ['"5S"' in text for text in stand_in.seen] == [True, True]
    assert ['"7D"' in text for text in stand_in.seen] == [False, True]


def test_tablecall_live_says_a_camera_that_failed_and_a_config_for_another_game(
    tmp_path: Path, stand_in: type[_StandIn], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:  # kills L12 L15
    log = tmp_path / "start.jsonl"
    log.write_text(SNAP_HEADER)
    args = ["live", "video.mp4", "--config", str(tmp_path / "t.toml"), "--log", str(log)]
    monkeypatch.setattr(stand_in, "state", "failed")
    monkeypatch.setattr(stand_in, "message", "camera 0 cannot be opened: is it plugged in?")
    assert main(args) == 2
    assert "camera 0 cannot be opened: is it plugged in?" in capsys.readouterr().err
    log.write_text('{"format": "tablecall-log", "version": 1, "game": "spades", "players": ["A", "B", "C", "D"]}\n')
    monkeypatch.setattr(stand_in, "state", "ended")
    assert main(args) == 2
    assert "the table config is for snap; the game is spades" in capsys.readouterr().err


def test_tablecall_calibrate_keeps_the_camera_written_in_the_config(tmp_path: Path) -> None:  # kills T02 T10
    """The host wrote ``source = 0`` (camera 0, a number as TOML has it) in the config: it is read as "0" and kept
    when the table is calibrated again."""
    picture = tmp_path / "table.png"
    cv2.imwrite(str(picture), Script(default_layout("snap", 2)).frame(0))
    config = tmp_path / "t.toml"
    config.write_text("source = 0\n" + default_config("snap", 2).to_toml(), encoding="utf-8")
    assert load_config(config).source == "0"
    assert main(["calibrate", str(picture), "--config", str(config)]) == 0
    saved = load_config(config)
    assert saved.source == "0" and saved.calibration is not None


def test_tablecall_calibrate_from_a_phone_not_there_says_why_without_a_promise_to_try_again(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:  # kills L08
    """calibrate gives up on a stream that gives no picture (nothing listens at the address): it says why, not the
    capture's "(trying again in 0.5 s)", a promise nobody keeps once the command has ended."""
    import socket

    from vision.capture import Capture

    with socket.socket() as free:  # a port nothing listens at once it is closed
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    wait = Capture.next
    monkeypatch.setattr(Capture, "next", lambda self, timeout=None: wait(self, timeout=1.5))  # not calibrate's 8 s
    args = ["calibrate", f"http://127.0.0.1:{port}/video", "--config", str(tmp_path / "t.toml"), "--game", "snap"]
    assert main([*args, "--players", "2"]) == 2
    said = capsys.readouterr().err
    assert "no picture to calibrate from: " in said and f"127.0.0.1:{port}" in said, said
    assert "trying again" not in said, said
    assert not (tmp_path / "t.toml").exists()
