"""``tablecall serve`` with a camera, as a real server in a subprocess: ``--video`` following a game from the
start (the snapshot is a JPEG, the status names the video), a missing video or webcam (said on the dashboard and
in the terminal; manual entry goes on), ``--demo`` through the camera pipeline, and the options' refusals."""

from __future__ import annotations

import functools
import http.server
import socket
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("cv2", reason="the camera needs the vision extras (OpenCV)")

from tests.web.camerakit import wait_for, write_video
from tests.web.server import call, output, start_server
from web.camera_demo import SCRIPTED_NOTE
from web.cli import main
from web.commands import DEMO_READY_S


def fetch(base: str, path: str) -> tuple[int, str, bytes]:
    with urllib.request.urlopen(base + path, timeout=10) as response:
        return response.status, response.headers.get_content_type(), response.read()


def status_of(base: str, game_id: str) -> dict[str, Any]:
    code, status = call(base, "GET", f"/api/games/{game_id}/camera")
    assert code == 200, status
    result: dict[str, Any] = status
    return result


def stop(process: Any) -> None:
    process.kill()
    process.wait(10)


def test_serve_video_follows_the_game_and_serves_its_snapshot(tmp_path: Path) -> None:
    db, video, models = tmp_path / "t.sqlite3", write_video(tmp_path / "tiny.mp4", seconds=20), tmp_path / "no-models"
    models.mkdir()
    process, base = start_server(db)
    try:
        created = call(base, "POST", "/api/games", {"game": "snap", "players": ["Ann", "Bo"]})[1]
    finally:
        stop(process)
    game_id = created["id"]
    process, base = start_server(db, "--video", str(video), "--game", game_id, "--models", str(models))
    try:
        status = wait_for(
            lambda: (s := status_of(base, game_id)).get("live") and s["live"]["frame"] is not None and s,
            what="the video's first picture",
        )
        code, kind, data = fetch(base, f"/api/games/{game_id}/camera.jpg")
        assert (code, kind, data[:3]) == (200, "image/jpeg", b"\xff\xd8\xff")
    finally:
        stop(process)
    assert status["attached"] and status["source"] == f"video {video}"
    assert status["live"]["camera"]["source"] == f"file {video}"
    assert status["live"]["camera"]["state"] == "running" and status["live"]["camera"]["frames"] > 0
    assert status["live"]["calibration"]["state"] == "missing"
    assert status["live"]["detector"]["ready"] is False
    assert "no card detector" in status["live"]["detector"]["message"]
    text = output(db)
    assert f"Camera: video {video} follows game {game_id}" in text
    assert "calibration: found 0 of the table's corner markers" in text  # in the terminal too


def test_serve_with_a_missing_video_says_so_and_games_are_entered_by_hand(tmp_path: Path) -> None:
    db, missing = tmp_path / "t.sqlite3", tmp_path / "missing.mp4"
    process, base = start_server(db, "--video", str(missing))
    try:
        home = fetch(base, "/")[2].decode()  # the host's home page says it before any game uses the camera
        created = call(base, "POST", "/api/games", {"game": "snap", "players": ["Ann", "Bo"]})[1]
        game_id = created["id"]
        assert call(base, "POST", f"/api/games/{game_id}/camera", {})[0] == 200
        status = wait_for(
            lambda: (s := status_of(base, game_id))["live"]["camera"]["state"] == "failed" and s,
            what="the failed video",
        )
        deal = call(base, "POST", f"/api/games/{game_id}/events", {"type": "deal", "dealer": "Bo"})
        flip = call(base, "POST", f"/api/games/{game_id}/events", {"type": "flip", "player": "Ann", "card": "5S"})
    finally:
        stop(process)
    assert status["live"]["camera"]["message"] == f"video file {missing}: no such file"
    assert deal[0] == flip[0] == 201 and flip[1]["state"]["view"]["piles"][0]["top"] == "5S"
    text = output(db)
    assert f"video file {missing}: no such file (the dashboard says so too)" in text
    assert "is ready" not in text and "is ready" not in home
    assert f"video file {missing}: no such file" in home


@pytest.mark.parametrize("kind", ["not a video", "empty folder"])
def test_serve_with_a_video_that_gives_no_pictures_does_not_say_it_is_ready(tmp_path: Path, kind: str) -> None:
    """A file that is not a video, or a folder without images, was announced as "ready" on the terminal and the
    home page; it is said for what it is, like a missing file."""
    db, source = tmp_path / "t.sqlite3", tmp_path / ("notes.mp4" if kind == "not a video" else "frames")
    if kind == "not a video":
        source.write_text("these are my notes, not a video")
    else:
        source.mkdir()
    process, base = start_server(db, "--video", str(source))
    try:
        home = wait_for(lambda: (h := fetch(base, "/")[2].decode()) and str(source) in h and h, what="the home page")
    finally:
        stop(process)
    text = output(db)
    assert "is ready" not in text and "is ready" not in home
    reason = "cannot be read: not a video" if kind == "not a video" else "has no images"
    assert reason in text and reason in home


def test_serve_with_a_webcam_that_is_not_there_says_so_and_tries_it_when_a_game_uses_it(tmp_path: Path) -> None:
    db = tmp_path / "t.sqlite3"
    process, base = start_server(db, "--camera", "7")
    try:
        home = fetch(base, "/")[2].decode()
        created = call(base, "POST", "/api/games", {"game": "snap", "players": ["Ann", "Bo"]})[1]
        game_id = created["id"]
        before = status_of(base, game_id)
        assert call(base, "POST", f"/api/games/{game_id}/camera", {})[0] == 200  # plugged in later: it is tried
        status = wait_for(
            lambda: (s := status_of(base, game_id))["live"]["camera"]["state"] == "lost" and s,
            what="the capture's attempt",
        )
    finally:
        stop(process)
    reason = "camera 7 cannot be opened: is it plugged in, and not in use by another program?"
    assert reason in home and "is ready" not in home
    assert before["problem"] == reason and before["can_attach"] is True
    assert status["problem"] is None and reason in status["live"]["camera"]["message"]
    text = output(db)
    assert f"{reason} (the dashboard says so too)" in text and "is ready" not in text
    assert f"web.camera: camera: {reason}" not in text  # said once (a log line said it too, just above)


def test_serve_tries_a_stream_that_was_not_there_again_and_clears_the_message_when_it_answers(tmp_path: Path) -> None:
    """A phone's camera app started after the server: the home page stops saying it cannot be opened, and the
    terminal says the camera is ready, with no game attached and no page asking."""
    served = tmp_path / "served"
    served.mkdir()
    write_video(served / "clip.mp4", seconds=2)
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    url = f"http://127.0.0.1:{port}/clip.mp4"
    db = tmp_path / "t.sqlite3"
    process, base = start_server(db, "--camera", url)
    phone = None
    try:
        before = fetch(base, "/")[2].decode()
        handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(served))
        phone = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
        threading.Thread(target=phone.serve_forever, daemon=True).start()
        after = wait_for(
            lambda: "cannot be opened" not in (page := fetch(base, "/")[2].decode()) and page,
            seconds=20,
            what="the stream tried again",
        )
        created = call(base, "POST", "/api/games", {"game": "snap", "players": ["Ann", "Bo"]})[1]
        status = status_of(base, created["id"])
    finally:
        stop(process)
        if phone is not None:
            phone.shutdown()
            phone.server_close()
    reason = f"stream {url} cannot be opened"
    assert reason in before and "is ready" not in before
    assert reason not in after and status["problem"] is None and status["attached"] is False
    text = output(db)
    assert "it is tried again every 3 s" in text
    assert f"Camera: stream {url} is ready: open a game" in text


def test_a_streams_password_is_shown_to_no_player_page_status_or_log(tmp_path: Path) -> None:
    """A phone camera app with its login on: the camera line every player sees, the game's page, the home page,
    the terminal and the log name the stream without its password or token (the phone-camera audit, session 44:
    every phone showed them, and the camera picture had them drawn in)."""
    served = tmp_path / "served"
    served.mkdir()
    write_video(served / "clip.mp4", seconds=20)
    phone = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(served))
    )
    threading.Thread(target=phone.serve_forever, daemon=True).start()
    url = f"http://alice:S3cret-pw@127.0.0.1:{phone.server_address[1]}/clip.mp4?token=Tok3n-xyz"
    db = tmp_path / "t.sqlite3"
    process, base = start_server(db)
    try:
        game_id = call(base, "POST", "/api/games", {"game": "snap", "players": ["Ann", "Bo"]})[1]["id"]
    finally:
        stop(process)
    process, base = start_server(db, "--camera", url, "--game", game_id)
    try:
        status = wait_for(
            lambda: (s := status_of(base, game_id)).get("live") and s["live"]["frame"] is not None and s,
            what="the stream's first picture",
        )
        pages = fetch(base, "/")[2].decode() + fetch(base, f"/g/{game_id}")[2].decode()
    finally:
        stop(process)
        phone.shutdown()
        phone.server_close()
    shown = f"http://alice:***@127.0.0.1:{phone.server_address[1]}/clip.mp4?token=***"
    assert status["source"] == f"stream {shown}" and status["live"]["camera"]["source"] == f"stream {shown}"
    text = output(db)
    assert f"Camera: stream {shown} follows game {game_id}" in text
    for seen in (str(status), pages, text):
        assert "S3cret-pw" not in seen and "Tok3n-xyz" not in seen


def test_serve_demo_plays_the_demo_video_through_the_pipeline(tmp_path: Path) -> None:
    db = tmp_path / "t.sqlite3"
    process, base = start_server(db, "--demo", timeout=DEMO_READY_S + 30)
    try:
        games = call(base, "GET", "/api/games")[1]["games"]
        demo = next(g for g in games if g["origin"] == "demo")
        status = wait_for(
            lambda: (s := status_of(base, demo["id"])).get("live") and s["live"]["frame"] is not None and s,
            seconds=30,
            what="the demo video's first picture",
        )
        code, kind, data = fetch(base, f"/api/games/{demo['id']}/camera.jpg")
        time.sleep(0.2)
    finally:
        stop(process)
    assert demo["game"] == "snap" and demo["title"].startswith("Camera demo, round 1:")
    assert status["demo"] is True and status["attached"] is True and "snap-" in status["source"]
    assert (code, kind, data[:3]) == (200, "image/jpeg", b"\xff\xd8\xff")
    if not status["live"]["detector"]["ready"]:
        assert status["note"] == SCRIPTED_NOTE and status["scripted"] is True
    assert f"Demo table: {base}/g/{demo['id']} (the Snap demo video through the camera pipeline)" in output(db)
    process, base = start_server(db, "--demo", timeout=DEMO_READY_S + 30)  # the next evening: rounds go on
    try:
        titles = [g["title"] for g in call(base, "GET", "/api/games")[1]["games"] if g["origin"] == "demo"]
    finally:
        stop(process)
    assert titles[0].startswith("Camera demo, round 2:") and len(titles) == 2, titles


def test_serve_demo_with_a_camera_of_its_own_keeps_the_scripted_demo(tmp_path: Path) -> None:
    """The camera is the host's: the demo plays the example log, without a camera."""
    db, video = tmp_path / "t.sqlite3", write_video(tmp_path / "tiny.mp4", seconds=2)
    process, base = start_server(db, "--demo", "--demo-pace", "0.05", "--video", str(video))
    try:
        games = call(base, "GET", "/api/games")[1]["games"]
        demo = next(g for g in games if g["origin"] == "demo")
        status = status_of(base, demo["id"])
    finally:
        stop(process)
    assert demo["game"] == "spades" and demo["title"].startswith("Demo table:")
    assert (status["attached"], status["demo"], status["can_attach"]) == (False, False, True)
    text = output(db)
    assert f"Demo table: {base}/g/{demo['id']}\n" in text and "is ready: open a game" in text


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        pytest.param(["--camera", "front"], "--camera takes a webcam number", id="camera_not_a_number_or_url"),
        pytest.param(["--camera", "0", "--video", "x.mp4"], "give --camera or --video, not both", id="two_sources"),
        pytest.param(["--game", "abc"], "--game needs --camera or --video", id="game_without_a_camera"),
        pytest.param(["--table", "t.toml"], "--table needs --camera or --video", id="table_without_a_camera"),
        pytest.param(["--video", "x.mp4", "--game", "nope"], "there is no game 'nope'", id="unknown_game"),
    ],
)
def test_serve_refuses_camera_options_that_do_not_fit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    before = {t for t in threading.enumerate() if t.name.startswith("waitress")}
    assert main(["serve", "--db", str(tmp_path / "x.db"), "--port", "0", *argv]) == 2
    assert message in capsys.readouterr().err
    # refused before the server's threads start: they were left waiting in this process (8 a refusal; suite audit)
    assert {t for t in threading.enumerate() if t.name.startswith("waitress")} <= before


@pytest.mark.timeout(120)
@pytest.mark.parametrize(("stop", "presses"), [("SIGINT", 1), ("SIGINT", 2), ("SIGTERM", 1)])
def test_ctrl_c_while_the_demo_video_is_rendered_stops_cleanly(tmp_path: Path, stop: str, presses: int) -> None:
    """A first `serve --demo` renders its video for some seconds: Ctrl-C then killed the process inside OpenCV's video
    writer ("terminate called without an active exception", SIGABRT, a core dump; a newcomer audit, session 36);
    and so did a second Ctrl-C right after the first, while it waited for the frame (a review). SIGTERM (a laptop
    shutting down) ended it by the signal, the half-written video left behind (the kill audit, session 42)."""
    import os
    import signal
    import subprocess
    import sys

    from tests.web.server import ROOT, SERVE

    data = tmp_path / "data"  # no demo video yet: it is rendered
    out = tmp_path / "serve.out"
    env = {**os.environ, "TABLECALL_DATA": str(data)}
    with out.open("wb") as sink:
        process = subprocess.Popen(
            [sys.executable, "-c", SERVE, "serve", "--demo", "--db", str(tmp_path / "t.sqlite3"), "--port", "0"],
            cwd=ROOT,
            stdout=sink,
            stderr=subprocess.STDOUT,
            env=env,
        )
    try:
        wait_for(lambda: "rendering the demo video" in out.read_text(errors="replace"), 60, "the rendering to start")
        wait_for(lambda: list((data / "sim").glob("*.part*.mp4")), 60, "the first frames to be written")
        for _ in range(presses):
            process.send_signal(getattr(signal, stop))
            time.sleep(0.005)
        code = process.wait(30)
    finally:
        process.kill()
        process.wait(10)
    said = out.read_text(errors="replace")
    assert code == 130 and "terminate called" not in said and "Traceback" not in said, (code, said)
    assert not list((data / "sim").glob("*.part*"))  # nothing half-written left behind
