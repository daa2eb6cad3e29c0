"""Rendering: videos of the requested length, size and rate; ground truth that matches the pixels; the same seed
gives the same frames; markers that calibrate; the ``tablecall simulate`` command; PNGs of each demo."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

import vision.sim.command  # noqa: F401  (registers tablecall simulate)
from scorer.events import GameLog, parse_log
from tests.vision.test_sim_script import card_events
from vision.cardart import designs, face
from vision.sim import DEMOS, Options, SimError, Simulation, demo_log, demo_video, simulate, truth_path
from vision.sim.camera import Sensor, place_camera
from vision.sim.render import pick_design
from vision.sim.scene import HAND
from vision.zones import TABLE_MM, Layout, default_layout
from web.cli import main

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "artifacts" / "sim"
SMALL = (640, 360)


def _log(name: str, until: int | None = None) -> GameLog:
    log = parse_log(demo_log(name).read_text(encoding="utf-8"))
    return log if until is None else replace(log, events=tuple(e for e in log.events if e.seq <= until))


@pytest.fixture(scope="module")
def clip(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict, GameLog]:
    """The first nine Snap events (six flips and a snap) as a 12 s video at 640x360, 10 fps."""
    log = _log("snap", until=9)
    out = tmp_path_factory.mktemp("sim") / "snap.mp4"
    truth = simulate(log, out, Options(size=SMALL, fps=10, seed=7, duration=12, markers=True))
    return out, truth, log


def test_the_video_has_the_requested_length_size_and_rate(clip: tuple[Path, dict, GameLog]) -> None:
    out, truth, _ = clip
    video = cv2.VideoCapture(str(out))
    try:
        assert video.get(cv2.CAP_PROP_FRAME_COUNT) == 120
        assert video.get(cv2.CAP_PROP_FPS) == 10
        assert (video.get(cv2.CAP_PROP_FRAME_WIDTH), video.get(cv2.CAP_PROP_FRAME_HEIGHT)) == SMALL
        ok, frame = video.read()
        assert ok and frame.shape == (360, 640, 3)
    finally:
        video.release()
    assert (truth["frames"], truth["duration_ms"], truth["size"], truth["fps"]) == (120, 12000, [640, 360], 10)
    assert json.loads(truth_path(out).read_text()) == truth and truth["video"] == "snap.mp4"


def test_the_ground_truth_times_every_card_event_inside_the_video(clip: tuple[Path, dict, GameLog]) -> None:
    _, truth, log = clip
    _check_truth(truth, log)


def _check_truth(truth: dict, log: GameLog) -> None:
    by_seq = {e["seq"]: e for e in truth["events"]}
    assert [e["seq"] for e in truth["events"]] == [e.seq for e in log.events]
    for seq, card, zone in card_events(log):
        seen = [c for c in by_seq[seq]["cards"] if c["zone"] == zone and (card is None or c["card"] == card)]
        assert seen, f"event {seq}: no ground truth for {card} in {zone}"
        for c in seen:
            assert c["t_ms"] is not None, f"event {seq}: {c['card']} is never seen lying in {zone}"
            assert 0 <= c["t_ms"] < truth["duration_ms"] and c["t_ms"] >= c["landed_ms"]
            assert c["frame"] == round(c["t_ms"] * truth["fps"] / 1000)
            assert by_seq[seq]["t_ms"] <= c["t_ms"]


def test_the_ground_truth_outline_holds_the_card_it_names() -> None:
    """Cut the card out of the webcam frame at its stated time: it looks like its face, not like another card's."""
    log = _log("snap", until=9)
    sim = Simulation.prepare(log, Options(size=(1280, 720), fps=10, seed=3, duration=12))
    truth = sim.measure()
    cards = [c for e in truth["events"] for c in e["cards"]]
    assert len(cards) == 6
    for c in cards:
        frame = sim.frame(c["frame"]).astype(np.float32)
        quad = np.float32(c["quad"])
        scores = {}
        for name in (c["card"], "QS", "3D", "8C", "AH"):
            art = cv2.cvtColor(face(sim.design, name).image, cv2.COLOR_RGBA2BGR)
            h, w = art.shape[:2]
            m = cv2.getPerspectiveTransform(np.float32([[0, 0], [w, 0], [w, h], [0, h]]), quad)
            seen = cv2.warpPerspective(art, m, (1280, 720)).astype(np.float32)
            mask = cv2.warpPerspective(np.ones((h, w), np.uint8), m, (1280, 720)) > 0
            a, b = frame[mask] - frame[mask].mean(), seen[mask] - seen[mask].mean()
            scores[name] = float((a * b).sum() / np.sqrt((a * a).sum() * (b * b).sum()))
        best = max(scores, key=lambda k: scores[k])
        assert best == c["card"] and scores[best] > 0.5, (c, scores)


def test_no_hand_lies_over_any_part_of_a_card_in_the_frame_the_truth_gives() -> None:
    """docs/simulator.md: a card's ``t_ms`` is the first frame it lies with no hand or arm over any part of it, not
    only with a corner index in view (the hand that put it down still holds its near edge as it lands)."""
    log = _log("snap", until=4)
    sim = Simulation.prepare(log, Options(size=SMALL, fps=10, seed=1, jpeg=False))
    cards = [c for e in sim.measure()["events"] for c in e["cards"]]
    assert len(cards) == 3
    for c in cards:
        _, owner, _ = sim.clean(c["frame"])
        mask = np.zeros(owner.shape, np.uint8)
        cv2.fillPoly(mask, [np.round(np.float32(c["quad"])).astype(np.int32)], 1)
        assert not np.any(owner[mask > 0] == HAND), c


def test_a_card_lying_past_the_end_of_its_meld_strip_is_not_timed_in_it() -> None:
    """A hand-edited Push layout whose meld strips are 200 mm long: a lay-off reaches past the strip
    (tests/golden/push/five_live_deals.jsonl). Every card the ground truth times lies in its zone (its outline's
    centre, back on the table through the homography), as the live pipeline places it."""
    data = default_layout("push", 4).to_json()
    for zone in data["zones"]:
        if zone["kind"] == "melds":
            poly = np.array(zone["polygon"])
            axis = int(np.ptp(poly[:, 1]) > np.ptp(poly[:, 0]))  # along the strip
            middle = poly[:, axis].mean()
            poly[:, axis] = middle + np.clip(poly[:, axis] - middle, -100, 100)
            zone["polygon"] = poly.tolist()
    layout = Layout.from_json(data)
    log = parse_log((ROOT / "tests/golden/push/five_live_deals.jsonl").read_text(encoding="utf-8"))
    sim = Simulation.prepare(log, Options(size=(320, 180), fps=2, seed=1, jpeg=False, layout=layout))
    landed = [next(s for s in sim.timeline.tracks[x.obj].segments if s.end == x.landed) for x in sim.timeline.expects]
    outside = [
        x for x, s in zip(sim.timeline.expects, landed, strict=True) if not layout.zone(x.zone).contains(s.dst.centre)
    ]
    assert outside  # the short strips leave a card past their end
    truth = sim.measure()
    to_table = np.linalg.inv(np.array(truth["camera"]["homography"]))
    for c in (c for e in truth["events"] for c in e["cards"] if c["t_ms"] is not None):
        x, y = cv2.perspectiveTransform(np.float32([[np.mean(c["quad"], axis=0)]]), to_table)[0, 0]
        assert layout.zone(c["zone"]).contains((float(x), float(y))), c


def test_the_same_seed_gives_the_same_frames_and_another_seed_other_frames() -> None:
    log = _log("spit", until=8)
    a = Simulation.prepare(log, Options(size=SMALL, fps=10, seed=11))
    b = Simulation.prepare(log, Options(size=SMALL, fps=10, seed=11))
    c = Simulation.prepare(log, Options(size=SMALL, fps=10, seed=12))
    for index in (0, 45, 90, a.frames - 1):
        assert np.array_equal(a.frame(index), b.frame(index))
    assert not np.array_equal(a.frame(90), c.frame(90))
    assert not np.array_equal(a.frame(90), a.frame(91))  # sensor noise differs from frame to frame


def test_each_seed_places_its_own_camera() -> None:
    """The camera (height, tilt, aim) comes from the seed like everything else (docs/simulator.md, --seed): the
    benchmark's and the tests' seeds look at the table from different places."""
    log = _log("snap", until=2)
    cameras = {
        json.dumps(Simulation.prepare(log, Options(size=(160, 96), fps=2, seed=s)).camera.to_json()) for s in (1, 2)
    }
    again = Simulation.prepare(log, Options(size=(160, 96), fps=2, seed=1)).camera.to_json()
    assert len(cameras) == 2 and json.dumps(again) in cameras


def test_a_log_that_ends_with_a_card_put_down_shows_it_lying_still_before_the_video_ends() -> None:
    """As any card, the last one lies in view half a second at least (here: before the video ends), so a live referee
    watching the video sees it lie still."""
    log = _log("snap", until=2)  # the deal and one flip
    truth = Simulation.prepare(log, Options(size=SMALL, fps=10, seed=2, jpeg=False)).measure()
    _check_truth(truth, log)
    assert truth["duration_ms"] == truth["frames"] * 100  # the video's length: its frames at 10 fps
    [card] = truth["events"][-1]["cards"]
    assert truth["duration_ms"] - card["t_ms"] >= 500, (card, truth["duration_ms"])


def test_the_markers_calibrate_the_table_plane(clip: tuple[Path, dict, GameLog]) -> None:
    out, truth, _ = clip
    video = cv2.VideoCapture(str(out))
    ok, frame = video.read()
    video.release()
    assert ok
    detector = cv2.aruco.ArucoDetector(
        cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50), cv2.aruco.DetectorParameters()
    )
    corners, ids, _ = detector.detectMarkers(frame)
    assert ids is not None and sorted(ids.ravel().tolist()) == [0, 1, 2, 3]
    layout = {m["id"]: m for m in truth["layout"]["markers"]}
    image, table = [], []
    for quad, marker_id in zip(corners, ids.ravel(), strict=True):
        cx, cy = layout[int(marker_id)]["centre"]
        half = layout[int(marker_id)]["size"] / 2
        table += [(cx - half, cy - half), (cx + half, cy - half), (cx + half, cy + half), (cx - half, cy + half)]
        image += quad.reshape(4, 2).tolist()
    found, _ = cv2.findHomography(np.float32(table), np.float32(image))
    truth_h = np.array(truth["camera"]["homography"])
    probe = np.float32([[[0, 0], [TABLE_MM[0], 0], [500, 350], [TABLE_MM[0], TABLE_MM[1]], [0, TABLE_MM[1]]]])
    error = np.linalg.norm(cv2.perspectiveTransform(probe, found) - cv2.perspectiveTransform(probe, truth_h), axis=2)
    assert error.max() < 3.0


@pytest.mark.parametrize("name", DEMOS)
def test_each_demo_renders_with_every_card_seen_and_saves_pngs(name: str) -> None:
    log = _log(name)
    sim = Simulation.prepare(log, Options(size=SMALL, fps=8, seed=1, jpeg=False))
    truth = sim.measure()
    _check_truth(truth, log)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    cards = [c for e in truth["events"] for c in e["cards"] if c["t_ms"] is not None]
    picks = [cards[int(k)] for k in np.linspace(0, len(cards) - 1, 4)]
    for number, card in enumerate(picks):
        path = ARTIFACTS / f"{name}_{number}.png"
        frame = sim.frame(card["frame"])
        cv2.polylines(frame, [np.int32(card["quad"])], True, (0, 255, 255), 1)
        assert cv2.imwrite(str(path), frame)
        assert cv2.imread(str(path)).shape == (360, 640, 3)


def test_a_held_out_design_can_be_asked_for() -> None:
    heldout = {d.name for d in designs("heldout")}
    try:
        name = pick_design(5, "heldout")
    except SimError as exc:
        pytest.skip(f"no held-out artwork installed here: {exc}")
    assert name in heldout
    sim = Simulation.prepare(_log("snap", until=4), Options(size=SMALL, fps=5, split="heldout", seed=5))
    assert sim.design in heldout and sim.frame(20).shape == (360, 640, 3)


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_the_camera_looks_down_at_a_slight_angle(seed: int) -> None:
    camera = place_camera(np.random.default_rng(seed), (1280, 720))
    far_left, far_right, near_right, near_left = camera.project([(0, 0), (1000, 0), (1000, 700), (0, 700)])
    for x, y in (far_left, far_right, near_right, near_left):
        assert 0 <= x < 1280 and 0 <= y < 720
    assert far_right[0] - far_left[0] < near_right[0] - near_left[0]  # the far edge looks shorter
    assert 8 <= camera.tilt <= 22
    points = np.array([[100.0, 80.0], [930.0, 640.0]])
    assert np.allclose(camera.unproject(camera.project(points)), points, atol=1e-6)


def test_the_light_drifts_slowly_and_flickers() -> None:
    sensor = Sensor(np.random.default_rng(4), SMALL, 15)
    levels = np.array([sensor.gain(i).mean() for i in range(0, 15 * 60)])
    steps = np.abs(np.diff(levels)) / levels[:-1]
    assert np.median(steps) < 0.01  # slow from frame to frame
    assert levels.max() / levels.min() > 1.03  # but it changes over a minute
    frame = np.full((360, 640, 3), 128, np.uint8)
    assert not np.array_equal(sensor.expose(frame, 0), sensor.expose(frame, 1))
    assert np.array_equal(sensor.expose(frame, 5), sensor.expose(frame, 5))


# -- the command ----------------------------------------------------------------------------------------
def test_tablecall_simulate_renders_a_demo(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "push.mp4"
    layout = tmp_path / "push.toml"
    layout.write_text(default_layout("push", 4).to_toml())
    args = ["push", "-o", str(out), "--size", "320x180", "--fps", "5", "--duration", "40", "--layout", str(layout)]
    assert main(["simulate", *args, "-q"]) == 0
    assert out.stat().st_size > 0 and truth_path(out).exists()
    printed = capsys.readouterr().out
    assert "wrote" in printed and "200 frames" in printed and "320x180" in printed


@pytest.mark.parametrize(
    ("args", "message"),
    [
        pytest.param(["nowhere.jsonl"], "nowhere.jsonl: no such file", id="missing_log"),
        pytest.param(["snap", "--size", "big"], "--size must look like 1280x720", id="bad_size"),
        pytest.param(["snap", "--duration", "3"], "this game needs at least", id="too_short"),
        pytest.param(["snap", "--design", "gnome:nope"], "no card design called 'gnome:nope'", id="unknown_design"),
        pytest.param(["snap", "--layout", "LAYOUT"], "a layout needs game, players", id="bad_layout"),
        pytest.param(["snap", "--fps", "0"], "the frame rate must be from 1 to 120", id="bad_rate"),
        # (--duration 3: a check that let these through would stop at "this game needs at least", not render)
        pytest.param(["snap", "--fps", "121", "--duration", "3"], "the frame rate must be from 1", id="rate_over_120"),
        pytest.param(["snap", "--size", "321x180", "--duration", "3"], "must be even", id="odd_width"),
        pytest.param(["snap", "--size", "320x181", "--duration", "3"], "must be even", id="odd_height"),
        pytest.param(["snap", "--size", "320x180x3", "--duration", "3"], "--size must look like", id="three_sizes"),
        pytest.param(["snap", "--seed", "-1"], "--seed must be from 0 to", id="negative_seed"),
        pytest.param(["TEN"], "the simulator cannot show 'ten' yet", id="game_it_cannot_show"),
        pytest.param(["snap", "-o", "FILE/x.mp4"], "cannot make the folder", id="folder_is_a_file"),
        # named by file and line, as `tablecall replay` names them ("tablecall: event 1 (bid): ..." and "spades is
        # played by 4 to 4 players, not 3": the wording audit, session 40)
        pytest.param(["BID"], "bid.jsonl:2: event 1 (bid): 'bid' must be a whole number from 0 to 13", id="refused"),
        pytest.param(["THREE"], "three.jsonl:1: Spades is for 4 players, not 3", id="three_for_spades"),
    ],
)
def test_tablecall_simulate_explains_bad_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    layout = tmp_path / "layout.json"
    layout.write_text('{"game": "snap"}')
    (tmp_path / "a-file").write_text("")
    ten = Path(__file__).resolve().parents[2] / "docs" / "examples" / "ten.jsonl"
    header = {"format": "tablecall-log", "version": 1, "game": "spades", "players": ["A", "B", "C", "D"]}
    bid = {"seq": 1, "ts": 0, "source": "manual", "type": "bid", "player": "B", "bid": 14}
    (tmp_path / "bid.jsonl").write_text(json.dumps(header) + "\n" + json.dumps(bid) + "\n")
    (tmp_path / "three.jsonl").write_text(json.dumps({**header, "players": ["A", "B", "C"]}) + "\n")
    named = {"LAYOUT": str(layout), "TEN": str(ten), "FILE/x.mp4": str(tmp_path / "a-file" / "x.mp4")}
    named |= {"BID": str(tmp_path / "bid.jsonl"), "THREE": str(tmp_path / "three.jsonl")}
    args = [named.get(a, a) for a in args]
    output = [] if "-o" in args else ["-o", str(tmp_path / "x.mp4")]
    assert main(["simulate", *args, *output, "-q"]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "x.mp4").exists()


def test_an_interrupted_simulate_leaves_the_earlier_video_and_its_truth_as_they_were(tmp_path: Path) -> None:
    """Ctrl-C half-way through a second render of game.mp4: the first run's video and truth stay, together and
    whole (the cut-off video used to replace the first one beside the first one's truth), and nothing else."""
    out = tmp_path / "game.mp4"
    small = Options(size=(160, 96), fps=2, seed=1)
    log = parse_log(demo_log("snap").read_text(encoding="utf-8"))
    simulate(log, out, small)
    before = (out.read_bytes(), truth_path(out).read_bytes())

    def interrupt(done: int, total: int) -> None:
        if done == 5:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        simulate(log, out, replace(small, size=(192, 108)), interrupt)
    assert (out.read_bytes(), truth_path(out).read_bytes()) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game.mp4", "game.truth.json"]


def test_tablecall_simulate_refuses_other_video_types(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "snap", "-o", str(tmp_path / "x.gif"), "-q"]) == 2
    assert "the video must be .mp4 or .avi" in capsys.readouterr().err


def test_a_demo_video_is_rendered_once_and_reused(tmp_path: Path) -> None:
    first = demo_video("push", tmp_path, size=(320, 180), fps=4)
    stamp = first.stat().st_mtime_ns
    again = demo_video("push", tmp_path, size=(320, 180), fps=4)
    assert again == first and again.stat().st_mtime_ns == stamp
    truth = json.loads(truth_path(first).read_text())
    assert truth["markers"] and truth["game"] == "push" and truth["size"] == [320, 180]


def test_two_renders_of_one_video_at_once_both_finish_and_leave_it_whole(tmp_path: Path) -> None:
    """Two demos started together (or a test run's two workers) render the same cached video at once: both wrote one
    '.part' file, and the second to finish found it renamed away (FileNotFoundError) or published frames of both."""
    import threading

    log = _log("snap", until=3)
    out = tmp_path / "snap.mp4"
    options = Options(size=(320, 180), fps=10, seed=7, duration=8)
    started = threading.Barrier(2)
    failed: list[BaseException] = []

    def render() -> None:
        started.wait()
        try:
            simulate(log, out, options)
        except BaseException as exc:  # reported below
            failed.append(exc)

    threads = [threading.Thread(target=render) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert not failed, failed
    alone = tmp_path / "alone" / "snap.mp4"
    simulate(log, alone, options)
    assert out.read_bytes() == alone.read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["alone", "snap.mp4", "snap.truth.json"]
