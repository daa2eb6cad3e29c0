"""``tablecall replay``: JSON for programs, ``--explain`` for people, one-line errors for bad input."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from scorer.events import GameEvent, Source, format_log
from scorer.session import Session
from tests.scorer.toygame import TALLY  # registers the "tally" test game
from web.cli import main

assert TALLY


def write_log(tmp_path: Path, *extra: str) -> Path:
    """A finished tally game (Bo plays twice in a row), plus any extra raw lines."""
    session = Session("tally", ["Ann", "Bo"], {"target": 5})
    for seq, (player, points) in enumerate([("Ann", 3), ("Bo", 2), ("Bo", 4)], start=1):
        session.append(GameEvent(seq, seq * 1000, Source.MANUAL, "add", {"player": player, "points": points}))
    path = tmp_path / "game.jsonl"
    path.write_text(format_log(session.log()) + "".join(line + "\n" for line in extra), encoding="utf-8")
    return path


def test_replay_prints_the_final_state_as_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(write_log(tmp_path))]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["game"] == "tally"
    assert out["players"] == ["Ann", "Bo"]
    assert out["options"] == {"target": 5}
    assert out["totals"] == {"Ann": 3, "Bo": 6}
    assert out["winner"] == ["Bo"]
    assert [(r["code"], r["player"], r["seq"]) for r in out["rulings"]] == [("out_of_turn", "Bo", 3)]


def test_replay_explain_is_for_people(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(write_log(tmp_path)), "--explain"]) == 0
    out = capsys.readouterr().out
    assert "Winner: Bo" in out
    assert "#3 FOUL out_of_turn [Bo]: not your turn" in out
    assert "{" not in out.splitlines()[0]


def test_replay_explain_leaves_out_the_info_rulings(capsys: pytest.CaptureFixture[str]) -> None:
    """--explain's Rulings are the fouls and errors a person looks for; the info ones (each hand scored) are in the
    JSON: listed too, a full Spades game's few fouls were lost among them."""
    assert main(["replay", "tests/golden/spades/full_game.jsonl"]) == 0
    assert any(r["severity"] == "info" for r in json.loads(capsys.readouterr().out)["rulings"])
    assert main(["replay", "tests/golden/spades/full_game.jsonl", "--explain"]) == 0
    assert " INFO " not in capsys.readouterr().out


@pytest.mark.parametrize(
    ("log", "teams", "result"),
    [
        ("push/score_only_tie", "Teams: Alex & Charlie; Beth & David", "Tie: Alex & Charlie and Beth & David"),
        ("spades/full_game", "Teams: Alex & Charlie; Beth & David", "Winner: "),
    ],
)
def test_replay_explain_says_a_tie_and_each_team_once(
    capsys: pytest.CaptureFixture[str], log: str, teams: str, result: str
) -> None:
    """A Push tie read "Winner: Alex & Charlie & Beth & David", one team of four; the teams line repeated each name."""
    assert main(["replay", f"tests/golden/{log}.jsonl", "--explain"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert teams in out and any(line.startswith(result) for line in out)
    assert not any(line.startswith("Winner:") and line.count(" & ") > 1 for line in out)


@pytest.mark.parametrize(
    ("extra", "line", "reason"),
    [
        ("{oops", 5, "not valid JSON"),
        ('{"seq": 4, "ts": 1, "source": "manual", "type": "add", "player": "Zed", "points": 1}', 5, "of the players"),
        ('{"seq": 4, "ts": 1, "source": "manual", "type": "add", "player": "Ann", "points": 99}', 5, "0 to 9"),
    ],
    ids=["bad-json", "unknown-player", "out-of-range"],
)
def test_malformed_line_exits_2_with_file_line_and_reason(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: str, line: int, reason: str
) -> None:
    path = write_log(tmp_path, extra)
    assert main(["replay", str(path)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    [message] = captured.err.strip().splitlines()
    assert message.startswith(f"tablecall: {path}:{line}: ")
    assert reason in message


def test_a_log_saved_with_a_byte_order_mark_replays(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Windows Notepad saves UTF-8 with a byte-order mark: the log is the same log."""
    path = write_log(tmp_path)
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    assert main(["replay", str(path)]) == 0
    assert json.loads(capsys.readouterr().out)["totals"] == {"Ann": 3, "Bo": 6}


@pytest.mark.parametrize("command", ["replay", "simulate"])
def test_a_file_that_is_not_text_is_said_plainly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    pytest.importorskip("cv2")
    import vision.sim.command  # noqa: F401  (registers simulate)

    binary = tmp_path / "photo.jsonl"
    binary.write_bytes(bytes(range(256)))
    assert main([command, str(binary)] + (["-o", str(tmp_path / "x.mp4")] if command == "simulate" else [])) == 2
    assert capsys.readouterr().err.strip() == f"tablecall: {binary}: is not text (UTF-8), so not a log file"


def test_missing_file_is_a_one_line_error_without_traceback(tmp_path: Path) -> None:
    missing = tmp_path / "nope.jsonl"
    result = subprocess.run(
        [sys.executable, "-m", "web.cli", "replay", str(missing)], capture_output=True, text=True, check=False
    )
    assert result.returncode == 2
    assert result.stderr.strip() == f"tablecall: {missing}: no such file"
    assert "Traceback" not in result.stderr


def test_malformed_log_in_a_real_process_has_no_traceback(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"format": "tablecall-log", "version": 1, "game": "nosuchgame", "players": ["A"]}\n')
    result = subprocess.run(
        [sys.executable, "-m", "web.cli", "replay", str(path)], capture_output=True, text=True, check=False
    )
    assert result.returncode == 2
    assert result.stderr.startswith(f"tablecall: {path}:1: unknown game 'nosuchgame'")
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("explain", [False, True], ids=["json", "explain"])
def test_names_the_output_cannot_encode_are_replaced_not_a_traceback(tmp_path: Path, explain: bool) -> None:
    """Windows' Python writes a redirected file in cp1252: a game of Burmese names (`replay --explain x > out.txt`)
    ended in a UnicodeEncodeError traceback (a Burmese game-night audit, session 35)."""
    import os

    path = tmp_path / "my.jsonl"
    path.write_text(
        '{"format": "tablecall-log", "version": 1, "game": "snap", "players": ["ကိုအောင်", "မမြင့်"]}\n'
        '{"seq": 1, "ts": 0, "source": "manual", "type": "deal", "dealer": "ကိုအောင်"}\n',
        encoding="utf-8",
    )
    command = [sys.executable, "-m", "web.cli", "replay", str(path), *(["--explain"] if explain else [])]
    env = {**os.environ, "PYTHONIOENCODING": "cp1252"}
    result = subprocess.run(command, capture_output=True, env=env, check=False)
    assert result.returncode == 0 and b"Traceback" not in result.stderr, result.stderr
    if explain:
        assert b"????????" in result.stdout  # text for a person: each character the encoding lacks, replaced
    else:  # JSON loses nothing: escaped
        assert set(json.loads(result.stdout)["totals"]) == {"ကိုအောင်", "မမြင့်"}


def test_explain_into_a_reader_that_stops_early_ends_quietly(tmp_path: Path) -> None:
    """`tablecall replay --explain game.jsonl | head -1`: the reader closes the pipe after one line; the replay ends
    with status 0 and says nothing more (it printed a BrokenPipeError traceback). The output (130 KB) is more than a
    pipe holds (64 KB), so the write is still going when the reader stops."""
    header = '{"format": "tablecall-log", "version": 1, "game": "tally", "players": ["Ann", "Bo"]}'
    plays = (f'{{"seq": {seq}, "ts": {seq}, "source": "manual", "type": "add", "player": "Bo", "points": 0}}'
             for seq in range(1, 3001))  # fmt: skip
    path = tmp_path / "long.jsonl"
    path.write_text("\n".join([header, *plays]) + "\n", encoding="utf-8")
    code = "import sys, tests.scorer.toygame; from web.cli import main; sys.exit(main(sys.argv[1:]))"
    command = [sys.executable, "-c", code, "replay", "--explain", str(path)]
    root = Path(__file__).resolve().parents[2]
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=root) as replaying:
        assert replaying.stdout is not None and replaying.stderr is not None
        assert replaying.stdout.readline() == b"Tally: Ann, Bo\n"
        replaying.stdout.close()  # as `head -1` does
        said = replaying.stderr.read().decode()
        assert (replaying.wait(30), said) == (0, "")


def test_a_command_s_output_is_all_written_before_it_ends(monkeypatch: pytest.MonkeyPatch) -> None:
    """The summary of `tablecall replay LOG` (13.7 kB for the Spades example) is more than the output's buffer: the
    pipe took it whole, but its last line's end was written at the exit, after the command's handler of a reader
    that stopped (`| head -1`): a shell without PYTHONUNBUFFERED saw "Exception ignored ... BrokenPipeError" and
    status 120 (environment audit, s43)."""

    class Raw(io.RawIOBase):
        def __init__(self) -> None:
            self.got = bytearray()

        def writable(self) -> bool:
            return True

        def write(self, data: Any) -> int:  # type: ignore[override]
            self.got += bytes(data)
            return len(data)

    raw = Raw()
    monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(io.BufferedWriter(raw, 8192), encoding="utf-8"))
    root = Path(__file__).resolve().parents[2]
    assert main(["replay", str(root / "docs" / "examples" / "spades.jsonl")]) == 0
    assert bytes(raw.got).endswith(b"}\n")  # all of it, its last line too: nothing left for the exit to write
    assert json.loads(bytes(raw.got).decode())["game"] == "spades"


def test_a_refusal_after_earlier_fouls_names_the_first_of_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Spades' example with the house rule "the 2 of clubs leads" switched on in its header: the refusal named the
    late symptom (line 59, "hand 1 is being played card by card") and not the 45 plays before it that the new rule
    makes fouls (the play-on audit, session 40); Import says the same (tests/web/test_api.py)."""
    root = Path(__file__).resolve().parents[2]
    header, rest = (root / "docs" / "examples" / "spades.jsonl").read_text().split("\n", 1)
    edited = {**json.loads(header), "options": {"first_lead": "two_of_clubs"}}
    path = tmp_path / "two_of_clubs.jsonl"
    path.write_text(json.dumps(edited) + "\n" + rest)
    assert main(["replay", str(path)]) == 2
    assert capsys.readouterr().err.strip() == (
        f"tablecall: {path}:59: event 58 (hand): hand 1 is being played card by card; finish it first (before it, "
        "event 6 is ruled a foul: Alex played AC out of turn: it is David's turn; take it back, and 44 more fouls or "
        "errors)"
    )
    assert main(["replay", str(write_log(tmp_path, '{"seq": 3, "ts": 0, "source": "manual", "type": "add"}'))]) == 2
    assert (
        capsys.readouterr()
        .err.strip()
        .endswith("game.jsonl:5: seq 3 is used twice: each event needs a higher seq than the one before it")
    )
