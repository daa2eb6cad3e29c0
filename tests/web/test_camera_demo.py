"""The camera demo (``web/camera_demo.py``): the simulator's Snap demo video played through the real pipeline
into demo games. The schedule of the phones' events (worked by hand), the script alone (it must make exactly
the demo log's game), the demo with no card detector (scripted, and the page says so), with a detector (the
simulator's stand-in: the cards then come from the pipeline alone and the game still ends as the log does),
the loop into a new game that keeps the calibration, and the fallback when the video cannot be made."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

pytest.importorskip("cv2", reason="the camera demo needs the vision extras (OpenCV)")

from scorer.events import EventError, GameEvent, Source, parse_log
from scorer.session import replay
from tests.web.camerakit import CORNERS, live_status, wait_for, write_video
from web.app import hub, install_camera, store
from web.camera_demo import SCRIPTED_NOTE, CameraDemo, DemoScript, schedule

SIZE, FPS = (640, 360), 10.0


def demo_log() -> Any:
    from vision.sim import demo_log as path

    return parse_log(path("snap").read_text(encoding="utf-8"))


def ends_like(app: Flask, game_id: str, log: Any) -> None:
    """The demo game's scores are those of the demo log replayed by itself."""
    live = hub(app).live(game_id)
    assert live is not None
    expected, got = replay(log).summary(), live.session.summary()
    for key in ("totals", "winner", "finished", "history"):
        assert got[key] == expected[key], key


@pytest.fixture(scope="module")
def video(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The Snap demo rendered small (what ``serve --demo`` renders at 1280x720, 15 fps)."""
    from vision.sim import demo_video

    return demo_video("snap", folder=tmp_path_factory.mktemp("sim"), size=SIZE, fps=FPS)


@pytest.fixture
def stop() -> Iterator[list[Any]]:
    running: list[Any] = []
    yield running
    for thing in running:
        thing.stop()


# -- the schedule -----------------------------------------------------------------------------------------------
def test_phone_events_wait_for_the_card_they_react_to() -> None:
    """deal at its own time; the flip when its card lies in view (3467, not 2600); the call 650 ms after that
    (as the log has it after the flip: 5450 - 4800), not at its own 3250; the resolve 1050 ms after it; the last
    resolve at its own 8000, which is later than 3467 + (9000 - 4800) = 7667."""
    events = [
        GameEvent(1, 3400, Source.MANUAL, "deal", {"dealer": "Beth"}),
        GameEvent(2, 4800, Source.VISION, "flip", {"player": "Alex", "card": "7H"}),
        GameEvent(3, 5450, Source.MANUAL, "call", {"player": "Beth", "kind": "snap"}),
        GameEvent(4, 5850, Source.MANUAL, "resolve", {}),
        GameEvent(5, 9000, Source.MANUAL, "resolve", {}),
    ]
    truth = {
        "events": [
            {"seq": 1, "t_ms": 1200, "cards": []},
            {"seq": 2, "t_ms": 2600, "cards": [{"card": "7H", "t_ms": 3467}]},
            {"seq": 3, "t_ms": 3250, "cards": []},
            {"seq": 4, "t_ms": 3650, "cards": []},
            {"seq": 5, "t_ms": 8000, "cards": []},
        ]
    }
    assert [(t, e.seq) for t, e in schedule(events, truth)] == [(1200, 1), (3467, 2), (4117, 3), (4517, 4), (8000, 5)]


def test_only_the_cameras_events_wait_for_their_cards() -> None:
    """A Snap Pot's resolve has the pot's cards in the ground truth (they slide to the winner, in view at 19867 in
    the demo video, scripts/s04_check.py): it still happens at its own time (18070 there), not when they land,
    which came after the next flip (19733): the camera's flip then came before the resolve it follows."""
    events = [
        GameEvent(1, 4800, Source.VISION, "flip", {"player": "Alex", "card": "7H"}),
        GameEvent(2, 5450, Source.MANUAL, "resolve", {}),
        GameEvent(3, 6200, Source.VISION, "flip", {"player": "Beth", "card": "2C"}),
    ]
    truth = {
        "events": [
            {"seq": 1, "t_ms": 2600, "cards": [{"card": "7H", "t_ms": 3467}]},
            {"seq": 2, "t_ms": 3250, "cards": [{"card": "7H", "t_ms": 5200}]},
            {"seq": 3, "t_ms": 4000, "cards": [{"card": "2C", "t_ms": 4867}]},
        ]
    }
    assert [(t, e.seq) for t, e in schedule(events, truth)] == [(3467, 1), (4117, 2), (4867, 3)]


def test_the_script_alone_makes_the_demo_logs_game(app: Flask) -> None:
    log = demo_log()
    live = hub(app).create("snap", log.header.players, {}, origin="demo")
    truth = {"events": [{"seq": e.seq, "t_ms": e.ts, "cards": []} for e in log.events]}
    script = DemoScript(hub(app), live.record.id, log, truth, camera=True)
    script.play_until(5000)
    assert [e.type for e in store(app).events(live.record.id)] == ["deal", "flip"]  # ts 3400 and 4800
    script.finish()
    stored = store(app).events(live.record.id)
    assert len(stored) == len(log.events) == len(script.entered)
    assert [(e.type, e.source) for e in stored] == [(e.type, e.source) for e in log.events]
    assert set(store(app).authors(live.record.id).values()) == {"demo"}
    ends_like(app, live.record.id, log)


def test_a_scripted_event_the_busy_database_refused_is_entered_with_the_next_frame(
    app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another program holding the database: the script's deal was skipped for good, and every later event of the
    round refused after it (error-handling audit, session 41)."""
    from web.store import StoreUnavailable

    log = demo_log()
    live = hub(app).create("snap", log.header.players, {}, origin="demo")
    truth = {"events": [{"seq": e.seq, "t_ms": e.ts, "cards": []} for e in log.events]}
    script = DemoScript(hub(app), live.record.id, log, truth, camera=True)
    real = hub(app).append
    busy = [1]

    def append(*args: Any, **kwargs: Any) -> Any:
        if busy:
            busy.pop()
            raise StoreUnavailable("the database could not be written (another program is writing it)")
        return real(*args, **kwargs)

    monkeypatch.setattr(hub(app), "append", append)
    script.play_until(5000)
    assert store(app).events(live.record.id) == []  # busy: nothing yet, nothing skipped
    script.play_until(5066)  # the next frame
    assert [e.type for e in store(app).events(live.record.id)] == ["deal", "flip"]
    script.finish()
    ends_like(app, live.record.id, log)


def test_a_video_slower_than_real_time_keeps_the_races_of_the_log(app: Flask) -> None:
    """On a computer too slow for the video it plays at a tenth of its speed (it waits for the pipeline): the
    script's events still keep their gaps in the log where they come close together, so Alex's and Cara's calls
    70 ms apart still tie (the Snap Pot) and the game ends as the log does."""
    log = demo_log()
    the_hub = hub(app)
    live = the_hub.create("snap", log.header.players, {}, origin="demo")
    truth = {"events": [{"seq": e.seq, "t_ms": e.ts, "cards": []} for e in log.events]}
    script = DemoScript(the_hub, live.record.id, log, truth, camera=True)
    epoch = live.record.epoch_ms
    for frame in range(0, 40_000 // 66):  # 15 fps, each frame shown 0.66 s after the one before
        the_hub.clock = lambda frame=frame: epoch + frame * 660
        script.play_until(frame * 66)
    script.finish()
    calls = [(e.data["player"], e.ts) for e in store(app).events(live.record.id) if e.type == "call"]
    alex, cara = calls[2], calls[3]
    assert (alex[0], cara[0]) == ("Alex", "Cara") and 0 < cara[1] - alex[1] < 150  # the log: 18950 and 19020
    ends_like(app, live.record.id, log)


def test_with_a_detector_the_script_leaves_the_cards_to_the_camera(app: Flask) -> None:
    log = demo_log()
    live = hub(app).create("snap", log.header.players, {}, origin="demo")
    truth = {"events": [{"seq": e.seq, "t_ms": e.ts, "cards": []} for e in log.events]}
    DemoScript(hub(app), live.record.id, log, truth, camera=False).finish()
    stored = store(app).events(live.record.id)
    assert stored and all(e.source is Source.MANUAL for e in stored)
    assert [e.type for e in stored] == [e.type for e in log.events if e.source is Source.MANUAL]


# -- the demo through the pipeline ----------------------------------------------------------------------------
def test_without_a_detector_the_demo_is_scripted_and_says_so(
    app: Flask, host: FlaskClient, video: Path, stop: list[Any]
) -> None:
    desk = install_camera(app, None, detector=None, demo=True, tables_dir=None)
    demo = CameraDemo(desk, hub(app), video=video, pause=0.2)
    stop += [demo, desk]
    demo.start()
    assert demo.ready.wait(30) and demo.failed is None
    game_id = demo.game_ids[0]
    assert store(app).game(game_id).origin == "demo"  # type: ignore[union-attr]
    status = wait_for(
        lambda: (s := live_status(host, game_id))["live"]["calibration"]["state"] == "ok" and s,
        what="the calibration from the video's markers",
    )
    assert status["live"]["calibration"]["method"] == "aruco"
    assert (status["note"], status["scripted"]) == (SCRIPTED_NOTE, True)
    assert status["source"] == f"video {video}" and status["image"]["size"] == list(SIZE)
    assert len(status["image"]["zones"]) == 4  # pot and three face-up piles, drawn where the camera sees them
    wait_for(lambda: len(store(app).events(game_id)) >= 2, what="the scripted deal and first flip")
    first = store(app).events(game_id)[:2]
    assert [(e.type, e.source) for e in first] == [("deal", Source.MANUAL), ("flip", Source.VISION)]
    shot = host.get(f"/api/games/{game_id}/camera.jpg")
    assert shot.status_code == 200 and shot.data[:3] == b"\xff\xd8\xff"
    page = host.get(f"/g/{game_id}").get_data(as_text=True)
    assert SCRIPTED_NOTE in page


def test_with_a_detector_the_cards_come_from_the_pipeline_alone(app: Flask, video: Path, stop: list[Any]) -> None:
    """The simulator's stand-in detector (the corner indices it drew in full view), every frame processed: the
    flips are the camera's, the rest the script's, and the game ends exactly as the demo log does."""
    from tests.vision.simsupport import SimOracle
    from vision.sim import Options, Simulation, truth_path

    log = demo_log()
    truth = json.loads(truth_path(video).read_text(encoding="utf-8"))
    oracle = SimOracle(Simulation.prepare(log, Options(size=SIZE, fps=FPS, design=truth["design"], markers=True)))
    desk = install_camera(app, None, detector=oracle, demo=True, tables_dir=None, lossless=True, on_frame=oracle.at)
    demo = CameraDemo(desk, hub(app), video=video, pause=60)
    stop += [demo, desk]
    demo.start()
    assert demo.ready.wait(30)
    game_id = demo.game_ids[0]
    assert desk.table is not None and desk.table.wait(120)
    wait_for(lambda: demo.scripts[0].next == len(demo.scripts[0].plan), what="the end of the script")
    assert desk.scripted is False and desk.note is None
    stored = store(app).events(game_id)
    authors = store(app).authors(game_id)
    flips = [e for e in stored if e.type == "flip"]
    assert len(flips) == sum(e.type == "flip" for e in log.events)
    assert {authors[e.seq] for e in flips} == {"camera"} and {e.source for e in flips} == {Source.VISION}
    assert {authors[e.seq] for e in stored if e.type != "flip"} == {"demo"}
    assert [e.data["card"] for e in flips] == [e.data["card"] for e in log.events if e.type == "flip"]
    ends_like(app, game_id, log)


def test_the_demo_loops_into_a_new_game_keeping_the_calibration(
    app: Flask, host: FlaskClient, tmp_path: Path, stop: list[Any]
) -> None:
    """A 2-second video whose ground truth puts every event at its start but the last, after its end: each round
    plays the whole log (that one when the video has ended). The rounds are numbered on from the last night's."""
    from vision.sim import truth_path

    log = demo_log()
    short = write_video(tmp_path / "short.mp4", seconds=2.0)
    events = [{"seq": e.seq, "t_ms": 0 if e is not log.events[-1] else 60_000, "cards": []} for e in log.events]
    truth_path(short).write_text(json.dumps({"events": events}), encoding="utf-8")
    hub(app).create("snap", log.header.players, {}, title="Camera demo, round 1: Alex, Beth, Cara", origin="demo")
    desk = install_camera(app, None, detector=None, demo=True, tables_dir=None)
    demo = CameraDemo(desk, hub(app), video=short, pause=0.1)
    stop += [demo, desk]
    demo.start()
    assert demo.ready.wait(30)
    first = demo.game_ids[0]
    wait_for(lambda: desk.table.status()["frame"] is not None, what="the first picture")
    desk.set_corners(first, {"corners": CORNERS})
    wait_for(lambda: len(demo.game_ids) >= 2, seconds=20, what="the second round")
    second = demo.game_ids[1]
    assert second != first and desk.game_id == second
    calibration = desk.table.config.calibration
    assert calibration is not None and calibration.method == "corners"
    ends_like(app, first, log)
    wait_for(lambda: len(store(app).events(second)) == len(log.events), what="the second round's events")
    ends_like(app, second, log)
    assert live_status(host, first)["attached"] is False
    titles = [store(app).game(g).title for g in demo.game_ids[:2]]  # type: ignore[union-attr]
    assert titles == ["Camera demo, round 2: Alex, Beth, Cara", "Camera demo, round 3: Alex, Beth, Cara"]


def test_a_demo_without_its_video_falls_back_to_the_scripted_demo(app: Flask, tmp_path: Path) -> None:
    desk = install_camera(app, None, detector=None, demo=True, tables_dir=None)
    called: list[bool] = []
    demo = CameraDemo(desk, hub(app), video=tmp_path / "gone.mp4", fallback=lambda: called.append(True))
    demo.start()
    assert demo.ready.wait(10)
    demo.join(5)
    assert called == [True] and demo.game_ids == []
    assert demo.failed is not None and "could not make its video" in demo.failed
    assert desk.problem == demo.failed
    desk.stop()


def test_a_scripted_event_refused_is_not_tried_again_and_the_script_goes_on(
    app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:  # kills CD5
    log = demo_log()
    live = hub(app).create("snap", log.header.players, {}, origin="demo")
    truth = {"events": [{"seq": e.seq, "t_ms": e.ts, "cards": []} for e in log.events]}
    script = DemoScript(hub(app), live.record.id, log, truth, camera=True)
    real = hub(app).append
    tried: list[str] = []

    def append(game_id: str, body: Any, *args: Any, **kwargs: Any) -> Any:
        tried.append(body["type"])
        if body["type"] == "deal":  # someone entered the deal on a phone first
            raise EventError("event 1: the deal is already entered")
        return real(game_id, body, *args, **kwargs)

    monkeypatch.setattr(hub(app), "append", append)
    script.play_until(5000)
    script.play_until(5066)
    assert tried.count("deal") == 1 and len(tried) > 1, tried


def test_after_a_stall_longer_than_the_hub_takes_the_scripts_next_event_is_entered_now(app: Flask) -> None:
    """The computer asleep 40 s between Beth's call and its resolve 400 ms later in the video: the resolve is
    entered at the game's time now; 400 ms after the call was 40 s ago, which the hub refuses (over 30 s behind),
    and the round went on without the resolve."""
    log = demo_log()
    the_hub = hub(app)
    live = the_hub.create("snap", log.header.players, {}, origin="demo")
    truth = {"events": [{"seq": e.seq, "t_ms": e.ts, "cards": []} for e in log.events]}
    script = DemoScript(the_hub, live.record.id, log, truth, camera=True)
    epoch = live.record.epoch_ms
    the_hub.clock = lambda: epoch + 12_450
    script.play_until(12_450)  # up to Beth's call
    the_hub.clock = lambda: epoch + 52_450
    script.play_until(12_850)  # its resolve
    last = store(app).events(live.record.id)[-1]
    assert (last.type, last.ts) == ("resolve", 52_450)
    script.finish()
    ends_like(app, live.record.id, log)


def test_a_demo_whose_video_cannot_be_rendered_plays_the_scripted_demo(
    app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No card art (ArtError, a RuntimeError): the demo's thread died, the scripted demo never started."""
    import vision.sim
    from vision.cardart import ArtError

    def no_art(*args: Any, **kwargs: Any) -> Path:
        raise ArtError("no card art in data/")

    monkeypatch.setattr(vision.sim, "demo_video", no_art)
    desk = install_camera(app, None, detector=None, demo=True, tables_dir=None)
    called: list[bool] = []
    demo = CameraDemo(desk, hub(app), fallback=lambda: called.append(True))
    demo.start()
    assert demo.ready.wait(10)
    demo.join(5)
    assert called == [True] and demo.failed is not None and "ArtError: no card art" in demo.failed
    desk.stop()


def test_a_demo_the_camera_refuses_plays_the_scripted_demo(app: Flask, video: Path) -> None:
    desk = install_camera(app, None, detector=None, demo=True, tables_dir=None)
    desk.unavailable = "the camera cannot start here"
    called: list[bool] = []
    demo = CameraDemo(desk, hub(app), video=video, fallback=lambda: called.append(True))
    demo.start()
    assert demo.ready.wait(10)
    demo.join(5)
    assert called == [True] and demo.failed == "the camera cannot start here" == desk.problem
    desk.stop()


def test_the_demo_ends_when_its_camera_is_stopped(app: Flask, tmp_path: Path, stop: list[Any]) -> None:
    """The round stops where the camera stopped (the rest is not entered at once) and no new round starts."""
    from vision.sim import truth_path

    log = demo_log()
    short = write_video(tmp_path / "short.mp4", seconds=30.0, fps=2.0)
    events = [{"seq": e.seq, "t_ms": 20_000 + e.seq, "cards": []} for e in log.events]
    truth_path(short).write_text(json.dumps({"events": events}), encoding="utf-8")
    desk = install_camera(app, None, detector=None, demo=True, tables_dir=None)
    demo = CameraDemo(desk, hub(app), video=short, pause=0.1)
    stop.append(demo)
    demo.start()
    assert demo.ready.wait(30)
    wait_for(lambda: desk.table.status()["frame"] is not None, what="the first picture")
    desk.stop()
    demo.join(10)
    assert not demo.is_alive() and len(demo.game_ids) == 1
    assert store(app).events(demo.game_ids[0]) == []
