"""Faults and refusals this session's changes handle, pinned where a mutation audit (session 41) found no test would
notice them broken."""

from __future__ import annotations

import logging
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

pytest.importorskip("cv2")

from scorer.events import Source
from scorer.session import Session
from tests.vision.test_live import run, snap_script, snap_session
from vision.links import SessionLink
from vision.live import LiveTable
from vision.tableconfig import default_config, load_config, save_config


def _flips(session: Session) -> list[str]:
    return [e.data["card"] for e in session.events if e.source is Source.VISION]


def test_a_fault_is_said_from_the_third_bad_frame_in_a_row_naming_its_first_trouble(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:  # kills L1 L2 L10 L11 L12
    video = snap_script().write(tmp_path / "t.mp4", 5)
    save_config(tmp_path / "t.toml", default_config("snap", 2))
    table = LiveTable(str(video), SessionLink(snap_session()), load_config(tmp_path / "t.toml"), detector=None)
    for n in range(1, 5):
        table._failed("read the table", KeyError(f"a{n}"))
        table._failed("read the referee's view", OSError("b"))
        table._account()
        assert (table.fault is not None) == (n >= 3), n
    assert table.fault == "the camera cannot read the table (KeyError: 'a4'); the server log has the details"
    table._account()  # a good frame
    assert table.fault is None
    caplog.clear()
    with caplog.at_level(logging.ERROR, logger="vision.live"):
        table._failed("read the table", KeyError("a5"))  # after a good frame only: counted, not logged again
        table._fine("read the table")
        table._failed("read the table", KeyError("a1"))  # the same trouble after the step went right: logged again
    assert [r.getMessage() for r in caplog.records] == ["the camera cannot read the table (KeyError: 'a1')"]


def test_a_step_failing_again_and_again_is_counted_then_its_mending_said_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """One traceback, then a line with the count each TROUBLE_REPORT_S (here every failure), whatever the message
    says (a hook failing with the event's number), and one line when the step goes right (visfault F7, session 41)."""
    import vision.live

    monkeypatch.setattr(vision.live, "TROUBLE_REPORT_S", 0.0)
    video = snap_script().write(tmp_path / "t.mp4", 5)
    table = LiveTable(str(video), SessionLink(snap_session()), default_config("snap", 2), detector=None)
    with caplog.at_level(logging.INFO, logger="vision.live"):
        for seq in (2, 3, 4):
            table._failed("follow the events it sent", KeyError(seq))
            table._account()
            table._fine("read the table")  # another step going right mends nothing
        table._fine("follow the events it sent")
        table._fine("follow the events it sent")
    said = "the camera cannot follow the events it sent (KeyError: "
    assert [(r.getMessage(), bool(r.exc_info)) for r in caplog.records] == [
        (said + "2)", True),
        (said + "3): again, once in the last 0 s (its traceback was logged the first time)", False),
        (said + "4): again, once in the last 0 s (its traceback was logged the first time)", False),
        ("the camera can follow the events it sent again (it failed 3 times with KeyError)", False),
    ]


def test_a_referee_view_unreadable_right_after_a_camera_event_is_said_as_such(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:  # kills L27
    real_append, real_view = SessionLink.append, SessionLink.view
    just: list[int] = []

    def append(self, event):  # type: ignore[no-untyped-def]
        out = real_append(self, event)
        just.append(1)
        return out

    def view(self):  # type: ignore[no-untyped-def]
        if just:
            just.clear()
            raise OSError(5, "stand-in: the game cannot be read")
        return real_view(self)

    monkeypatch.setattr(SessionLink, "append", append)
    monkeypatch.setattr(SessionLink, "view", view)
    with caplog.at_level(logging.ERROR, logger="vision.live"):
        _table, session = run(tmp_path, snap_script(), 70)
    said = [r.getMessage() for r in caplog.records if r.name == "vision.live" and r.exc_info]
    assert _flips(session) == ["5S", "7D", "7H"]
    assert said and all(m.startswith("the camera cannot read the referee's view (OSError") for m in said), said


def test_a_referee_bug_on_one_card_holds_back_no_other_card(tmp_path: Path) -> None:  # kills L29
    from scorer.session import RefereeFault

    class Failing(SessionLink):
        def append(self, event):  # type: ignore[no-untyped-def]
            if event.body["card"] == "5S":
                raise RefereeFault("the Snap referee could not handle this entry (a bug in tablecall)")
            return super().append(event)

    script = snap_script()
    video = script.write(tmp_path / "table.mp4", 70)
    session = snap_session()
    save_config(tmp_path / "table.toml", default_config("snap", 2))
    table = LiveTable(
        str(video), Failing(session), load_config(tmp_path / "table.toml"), detector=script.oracle(), lossless=True
    )
    table.start()
    assert table.wait(60)
    assert _flips(session) == ["7D", "7H"]
    # each sent at the frame it was first seen settled, not held back with the failing 5S's retry
    plain = LiveTable(
        str(video),
        SessionLink(snap_session()),
        load_config(tmp_path / "table.toml"),
        detector=script.oracle(),
        lossless=True,
    ).start()
    assert plain.wait(60)
    expected = {e.body["card"]: e.frame for e in plain.sent}
    assert {e.body["card"]: e.frame for e in table.sent} == {c: expected[c] for c in ("7D", "7H")}


class _Closed:
    def write(self, text: str) -> int:
        raise BrokenPipeError(32, "Broken pipe")

    def flush(self) -> None:
        raise BrokenPipeError(32, "Broken pipe")


def test_tablecall_live_into_a_closed_pipe_says_so_once_and_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:  # kills LC1 LC2 LC3
    """`tablecall live ... | head`: head exits, stdout is a closed pipe. The game goes on, --out keeps being written,
    and that is said once (a stand-in table sends two events)."""
    import vision.detections
    import vision.live
    import vision.live_commands
    from web.cli import main

    class Table:
        def __init__(self, source, link, config, detector, lossless, on_event):  # type: ignore[no-untyped-def]
            self.on_event, self.sent = on_event, []
            self.capture = SimpleNamespace(status=SimpleNamespace(state="ended", message=""))

        def start(self) -> None:
            for seq, card in ((2, "5S"), (3, "7D")):
                self.on_event(SimpleNamespace(body={"type": "flip", "card": card}, reason="seen"), seq, [])

        def wait(self, timeout: Any = None) -> bool:
            return True

        def stop(self) -> None:
            pass

    monkeypatch.setattr(vision.live, "LiveTable", Table)
    monkeypatch.setattr(vision.detections, "load_detector", lambda models: None)
    save_config(tmp_path / "t.toml", default_config("snap", 2))
    log = tmp_path / "start.jsonl"
    log.write_text('{"format": "tablecall-log", "version": 1, "game": "snap", "players": ["A", "B"]}\n')
    monkeypatch.setattr(sys, "stdout", _Closed())
    with caplog.at_level(logging.WARNING):
        code = main(
            [
                "live",
                "video.mp4",
                "--config",
                str(tmp_path / "t.toml"),
                "--log",
                str(log),
                "--out",
                str(tmp_path / "out.jsonl"),
            ]
        )
    assert code == 0
    said = [r.getMessage() for r in caplog.records if "no longer printed" in r.getMessage()]
    assert said == [
        f"the events are no longer printed (their reader stopped); --out {tmp_path / 'out.jsonl'} is still written"
    ]
