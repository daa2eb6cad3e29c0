"""The run-time reader's pieces: letterbox, NMS, crops, corner pairing; plus the shipped model if present."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("cv2")

from vision.crops import crop_box, cut
from vision.detect import (
    APART_BG,
    APART_SHAPE,
    APART_TURN,
    MODELS,
    CardReader,
    apart_pairs,
    letterbox,
    nms,
    pair_corners,
    to_input,
    turn_between,
    view_crops,
)

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("shape", "expected"), [((720, 1280), (384, 640)), ((504, 378), (640, 480)), ((100, 100), (640, 640))]
)
def test_letterbox_keeps_aspect_and_pads_to_the_stride(shape: tuple[int, int], expected: tuple[int, int]) -> None:
    image = np.zeros((*shape, 3), np.uint8)
    batch, r, _ = letterbox(image, 640)
    assert batch.shape == (1, *expected, 3) and batch.dtype == np.uint8  # the backends take uint8 BGR
    assert r == pytest.approx(640 / max(shape))
    square, _, _ = letterbox(image, 640, square=True)
    assert square.shape == (1, 640, 640, 3)


def test_to_input_is_the_networks_float_rgb_input() -> None:
    images = np.random.default_rng(0).integers(0, 256, (3, 5, 7, 3), dtype=np.uint8)
    expected = images[:, :, :, ::-1].transpose(0, 3, 1, 2).astype(np.float32) / 255
    out = to_input(images)
    assert out.shape == (3, 3, 5, 7) and out.dtype == np.float32
    assert np.array_equal(out, expected)  # the very numbers the networks were always given


@pytest.mark.skipif(not (MODELS / "data.yaml").exists(), reason="no shipped models in models/")
@pytest.mark.parametrize("backend", ["onnxruntime", "opencv"])
def test_the_backends_read_the_same_uint8_images_alike(backend: str) -> None:
    pytest.importorskip("openvino")
    pytest.importorskip(backend if backend != "opencv" else "cv2")
    from vision.detect import load_backend

    crops = np.random.default_rng(1).integers(0, 256, (4, 64, 64, 3), dtype=np.uint8)
    crops[:, 20:40, 20:40] = (30, 60, 200)  # a block of strong colour, so swapped channels would show
    ov_out = load_backend(MODELS, "card-classifier", "openvino", dynamic_batch=True)(crops)
    other = load_backend(MODELS, "card-classifier", backend)(crops)
    assert ov_out.shape == other.shape
    assert np.abs(ov_out - other).max() < 0.05  # OpenVINO computes in bf16 here
    assert (ov_out.argmax(axis=1) == other.argmax(axis=1)).all()


def test_nms_drops_overlaps_and_keeps_the_best() -> None:
    boxes = np.array([[0, 0, 10, 10], [1, 1, 11, 11], [50, 50, 60, 60]], np.float32)
    scores = np.array([0.5, 0.9, 0.7], np.float32)
    assert nms(boxes, scores, 0.5) == [1, 2]


def test_crop_box_is_square_around_the_index_and_cut_pads_outside() -> None:
    x1, y1, x2, y2 = crop_box((10, 20, 30, 60), None, 1.5)
    assert x2 - x1 == pytest.approx(60) and y2 - y1 == pytest.approx(60)
    assert ((x1 + x2) / 2, (y1 + y2) / 2) == (20, 40)
    moved = crop_box((10, 20, 30, 60), None, 1.5, (0.1, -0.05))  # shifts count in the crop's own side (60 px)
    assert moved == pytest.approx((x1 + 6, y1 - 3, x2 + 6, y2 - 3))
    image = np.full((50, 50, 3), 200, np.uint8)
    assert cut(image, (-20, -20, 30, 30), 64).shape == (64, 64, 3)


def test_pairing_joins_two_corners_of_one_card() -> None:
    found = [("QH", 0.9, (10, 10, 30, 50)), ("QH", 0.8, (150, 200, 170, 240))]
    cards = pair_corners(found)
    assert len(cards) == 1
    assert cards[0].box == (10, 10, 170, 240) and cards[0].confidence == 0.9


def test_pairing_keeps_far_copies_and_other_cards_apart() -> None:
    found = [("QH", 0.9, (10, 10, 30, 50)), ("QH", 0.8, (1500, 900, 1520, 940)), ("KS", 0.7, (40, 10, 60, 50))]
    cards = pair_corners(found)
    assert sorted(c.card for c in cards) == ["KS", "QH", "QH"]


def test_pairing_keeps_near_copies_of_other_sizes_apart() -> None:
    # two decks: a QH with 20x40 indices and, within reach, a QH of a deck drawn at 40x80
    found = [("QH", 0.9, (10, 10, 30, 50)), ("QH", 0.8, (150, 200, 190, 280))]
    assert len(pair_corners(found)) == 2
    assert len(pair_corners([found[0], ("QH", 0.8, (150, 200, 175, 250))])) == 1  # 25x50: within 1.7 times


def test_a_card_seen_whole_takes_its_other_corners_and_no_copy() -> None:
    # a four-corner QH: opposite corners a and c seen whole by the face reader; b and d lie on the circle through
    # a and c around the card's centre (100, 140); a copy's index e lies near but off that circle
    a, b, c, d = (0, 0, 20, 40), (180, 0, 200, 40), (180, 240, 200, 280), (0, 240, 20, 280)
    e = (90, 120, 110, 160)
    found = [("QH", 0.9, a), ("QH", 0.8, b), ("QH", 0.7, c), ("QH", 0.6, d), ("QH", 0.5, e)]
    cards = pair_corners(found, whole=[(a, c)])
    assert sorted(len(card.indices) for card in cards) == [1, 4]
    assert next(card for card in cards if len(card.indices) == 4).box == (0, 0, 200, 280)
    # both diagonals seen whole: one card, as the two pairs share their centre
    assert sorted(len(card.indices) for card in pair_corners(found[:4], whole=[(a, c), (b, d)])) == [4]
    # without the face reader, e is near a and of its size: it would be taken for one of the card's corners
    assert len(pair_corners(found)) == 2


def test_a_card_seen_whole_keeps_a_corner_whose_box_is_cut_short() -> None:
    # the lower corner half under another card: its box is 20x18, too unlike 20x40 to pair by size alone
    found = [("7S", 0.9, (0, 0, 20, 40)), ("7S", 0.8, (180, 240, 200, 258))]
    assert len(pair_corners(found)) == 2
    (card,) = pair_corners(found, whole=[(found[0][2], found[1][2])])
    assert len(card.indices) == 2


@pytest.mark.parametrize(
    ("a", "b", "between"), [(10, 10, 0), (10, 30, 20), (170, 10, 20), (0, 179, 1), (20, 110, 90), (45, 150, 75)]
)
def test_the_angle_between_two_box_axes_is_taken_round_half_a_turn(a: float, b: float, between: float) -> None:
    assert turn_between(a, b) == pytest.approx(between)
    assert turn_between(b, a) == pytest.approx(between)


def test_two_indices_are_apart_only_with_no_card_between_them_and_at_another_angle() -> None:
    turns = np.array([[40, 20, 10], [40, 20, 10 + APART_TURN + 5], [40, 20, 14], [40, 20, 175]], np.float32)
    pairs = [(0, 1), (0, 2), (0, 3), (1, 2)]
    high, low = APART_BG, APART_BG - 0.05
    # 0-1: bg and turned; 0-2: turned 4 degrees (one card's corners, its middle covered); 0-3: 15 degrees round
    # 180; 1-2: turned but the face reader is unsure it is no card
    assert apart_pairs(pairs, np.array([high, 1.0, 1.0, low]), turns) == [(0, 1)]
    assert apart_pairs(pairs, np.array([low, low, low, low]), turns) == []


@pytest.mark.parametrize(
    ("sides", "apart"),
    [((40, 20), True), ((40, 40 / APART_SHAPE + 0.5), False), ((20.8, 18), False)],
    ids=["an index's shape", "just under the shape", "a half-covered corner (tests' scene 5)"],
)
def test_a_near_square_box_has_no_angle_to_tell_two_cards_apart_by(sides: tuple[float, float], apart: bool) -> None:
    turns = np.array([[40, 20, 140], [*sides, 100]], np.float32)
    assert apart_pairs([(0, 1)], np.array([1.0]), turns) == ([(0, 1)] if apart else [])


def test_pairing_never_joins_an_index_through_one_it_is_apart_from() -> None:
    # two QH copies within reach of each other (two decks), and the first copy's other corner c
    a, b, c = (10, 10, 30, 50), (150, 100, 170, 140), (150, 200, 170, 240)
    found = [("QH", 0.9, a), ("QH", 0.7, b), ("QH", 0.8, c)]
    assert len(pair_corners(found)) == 1  # by distance alone, all three are one card
    cards = pair_corners(found, apart=[(a, b), (c, b)])
    assert sorted(card.indices for card in cards) == [(a, c), (b,)]
    # apart from one index of a card, an index still joins the card through another it is not apart from
    (card,) = pair_corners(found, apart=[(a, b)])
    assert set(card.indices) == {a, b, c}


def test_pairing_averages_the_corners_alternatives() -> None:
    found = [
        ("QH", 0.9, (10, 10, 30, 50), (("QH", 0.8), ("QD", 0.2))),
        ("QH", 0.6, (150, 200, 170, 240), (("QH", 0.6), ("KH", 0.3), ("QD", 0.1))),
    ]
    (card,) = pair_corners(found)
    assert card.alternatives == (("QH", 0.7), ("QD", 0.15), ("KH", 0.15))


@pytest.mark.skipif(not (MODELS / "data.yaml").exists(), reason="no shipped models in models/")
def test_shipped_model_reads_a_rendered_scene_without_torch() -> None:
    pytest.importorskip("openvino")
    code = (
        "import sys, json\n"
        "from vision.synth import render_scene, DesignPool\n"
        "from vision.detect import load_detector\n"
        "scene = render_scene(3, DesignPool((), proc_share=1.0), size=(1280, 720))\n"
        "reader = load_detector()\n"
        "cards = reader(scene.image[:, :, ::-1].copy())\n"
        "print(json.dumps({'torch': 'torch' in sys.modules, 'n': len(cards), 'truth': len(scene.labels)}))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120, check=True
    )
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["torch"] is False
    assert result["truth"] == 0 or result["n"] > 0


@pytest.mark.skipif(not (MODELS / "data.yaml").exists(), reason="no shipped models in models/")
def test_readings_say_which_indices_the_face_reader_saw_as_one_card() -> None:
    pytest.importorskip("openvino")
    from vision.detect import CardReader
    from vision.synth import DesignPool, render_scene

    reader = CardReader(MODELS)
    scene = render_scene(5, DesignPool((), proc_share=1.0), size=(1280, 720))  # four cards, three shown whole
    readings = reader.readings(scene.image[:, :, ::-1].copy())
    by_box = {r.box: r for r in readings}
    linked = [(r, by_box[other]) for r in readings for other in r.whole]
    assert linked, "the face reader saw no card whole"
    for r, other in linked:  # a partner is another reading of the same name, and says so too
        assert other is not r and other.name == r.name and r.box in other.whole
    cards = reader.cards(readings)
    for r, other in linked:  # and the two are one card
        assert any(r.box in card.indices and other.box in card.indices for card in cards)
    assert len(cards) == len({lab.card_id for lab in scene.labels})


@pytest.mark.skipif(not (MODELS / "data.yaml").exists(), reason="no shipped models in models/")
def test_two_copies_near_each_other_at_another_angle_are_two_cards() -> None:
    pytest.importorskip("openvino")
    from vision.synth import DesignPool, render_scene

    reader = CardReader(MODELS)
    # two decks: a 5D in a row of cards, another (turned about 20 degrees from it) 9 index sizes below at the
    # frame's edge; by distance and size they would be one card
    scene = render_scene(111, DesignPool((), proc_share=1.0), size=(1280, 720))
    assert sorted(lab.card_id for lab in scene.labels if lab.card == "5D") == [3, 14]
    readings = reader.readings(scene.image[:, :, ::-1].copy())
    fives = [r for r in readings if r.name == "5D"]
    assert len(fives) == 2
    assert fives[0].apart == (fives[1].box,) and fives[1].apart == (fives[0].box,)
    assert [c.card for c in reader.cards(readings)].count("5D") == 2


@pytest.mark.skipif(not (MODELS / "data.yaml").exists(), reason="no shipped models in models/")
@pytest.mark.parametrize(("asked", "used"), [(None, 640), (1280, 1280), (1000, 1024)])
def test_the_detector_size_is_a_stride_multiple_and_the_live_reader_reads_webcam_frames_unscaled(
    asked: int | None, used: int
) -> None:
    pytest.importorskip("openvino")
    from vision.detect import WEBCAM_IMGSZ, CardReader, load_detector

    reader = CardReader(MODELS, imgsz=asked)
    assert reader.imgsz == used
    frame = np.full((720, 1280, 3), 90, np.uint8)
    boxes, scores = reader.indices(frame)  # runs at that size without complaint
    assert boxes.shape[1] == 4 and len(boxes) == len(scores)
    assert load_detector().imgsz == WEBCAM_IMGSZ == 1280


@pytest.mark.skipif(not (MODELS / "data.yaml").exists(), reason="no shipped models in models/")
def test_detect_refuses_a_detector_size_out_of_range(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from web.cli import main

    image = tmp_path / "table.png"
    image.write_bytes(b"")
    assert main(["detect", str(image), "--imgsz", "4"]) != 0
    assert "detector size 4 is out of range" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("sides", "scale", "small"),
    [
        ([30, 30, 30], 0.5, True),  # 15 px at the detector's input
        ([30, 30, 30], 1.0, False),  # 30 px
        ([10, 12, 50, 60, 70], 1.0, False),  # the median decides: a few small ones do not make the image small ...
        ([10, 12, 14, 60, 70], 1.0, True),  # ... nor a few large ones large
        ([17, 19, 19], 1.0, False),
        ([17, 17, 19], 1.0, True),
        ([], 1.0, False),  # no boxes: nothing to tell the size by
    ],
)
def test_indices_are_small_by_their_median_long_side_at_the_detectors_input(
    sides: list[float], scale: float, small: bool
) -> None:
    from vision.detect import SMALL_INDEX, small_indices

    boxes = np.array([[100, 100, 100 + side, 100 + side * 0.6] for side in sides], np.float32).reshape(-1, 4)
    assert small_indices(boxes, scale) is small
    assert 14 < SMALL_INDEX <= 19  # the examples straddle it


@pytest.mark.parametrize(("text", "size"), [("auto", "auto"), ("AUTO", "auto"), ("960", 960)])
def test_the_detector_size_is_a_number_or_auto(text: str, size: int | str) -> None:
    from vision.commands import _detector_size

    assert _detector_size(text) == size


def test_detect_says_what_a_detector_size_must_be(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from web.cli import main

    with pytest.raises(SystemExit) as exit_info:
        main(["detect", str(tmp_path / "table.png"), "--imgsz", "big"])
    assert exit_info.value.code != 0
    assert "'big' is neither a number of pixels nor auto" in capsys.readouterr().err


@pytest.mark.skipif(not (MODELS / "data.yaml").exists(), reason="no shipped models in models/")
def test_auto_size_reads_an_image_of_small_indices_again_larger_and_one_of_large_indices_once() -> None:
    pytest.importorskip("openvino")
    import cv2

    from vision.synth import DesignPool, render_scene

    reader = CardReader(MODELS, imgsz="auto")
    assert reader.auto and reader.imgsz == 640
    sizes: list[int | None] = []
    read = reader.turned_indices

    def spy(image, conf=None, region=None, imgsz=None):  # type: ignore[no-untyped-def]
        sizes.append(imgsz)
        return read(image, conf, region, imgsz)

    reader.turned_indices = spy  # type: ignore[method-assign]
    scene = render_scene(7, DesignPool((), proc_share=1.0), size=(1280, 720))  # indices ~20 px at 640
    frame = np.ascontiguousarray(scene.image[:, :, ::-1])
    # 1920x1080: the indices' boxes a median ~13 px at 640, well under SMALL_INDEX (at 1600x900 they were 15-18 px
    # depending on the detector's weights: too near the line for a test)
    far = cv2.copyMakeBorder(frame, 180, 180, 320, 320, cv2.BORDER_REPLICATE)
    cards = reader.read(far)
    assert sizes == [None, 960]  # the reader's size, then 1.5 times it
    assert {c.card for c in cards} >= {lab.card for lab in scene.labels if lab.visible == 1.0} - {"JK"}
    sizes.clear()
    near = cv2.resize(frame[180:540, 320:960], (1280, 720), interpolation=cv2.INTER_LINEAR)  # twice as near
    reader.read(near)
    assert sizes == [None]
    sizes.clear()
    reader.read(far, region=(0, 0, 800, 450))  # a region (the live table's reads) keeps its size
    assert sizes == [None]


@pytest.fixture(scope="module")
def table() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A rendered table of procedural decks (BGR, 1280x720), its labelled index boxes and their turns (long side,
    short side, axis: what a turned-box detector gives)."""
    from vision.crops import quad_axis
    from vision.synth import DesignPool, render_scene

    scene = render_scene(3, DesignPool((), proc_share=1.0), size=(1280, 720))
    boxes = np.array([lab.box for lab in scene.labels], np.float32)
    turns = np.array([quad_axis(lab.quad)[2:] for lab in scene.labels], np.float32)
    return scene.image[:, :, ::-1].copy(), boxes, turns


@pytest.mark.skipif(not (MODELS / "data.yaml").exists(), reason="no shipped models in models/")
def test_each_index_is_read_from_every_crop_and_the_probabilities_combined(
    table: tuple[np.ndarray, np.ndarray, np.ndarray],
) -> None:
    pytest.importorskip("openvino")
    from vision.detect import CROPS, FIRST_VIEWS, CardReader

    image, boxes, turns = table[0], table[1][:6], table[2][:6]
    reader = CardReader(MODELS)
    reader.sure_views = 2.0  # every index from every crop
    assert reader.crops == CROPS and len({c[0] for c in CROPS}) >= 3 and any(c[1] for c in CROPS)
    names, probs = reader.classify(image, boxes, turns)
    single = [reader.classifier(_batch(reader, image, boxes, turns, view)) for view in CROPS]
    assert names == [reader.names[i] for i in _geometric_mean(single).argmax(axis=1)]
    assert probs == pytest.approx(_geometric_mean(single).max(axis=1), abs=1e-4)
    # by default the later crops are read only where the first ones leave the index unsure
    reader.sure_views = 0.99
    first = _geometric_mean(single[:FIRST_VIEWS])
    sure = first.max(axis=1) >= 0.99
    expected = np.where(sure[:, None], first, _geometric_mean(single))
    assert reader.probabilities(image, boxes, turns) == pytest.approx(expected, abs=1e-4)


@pytest.mark.skipif(not (MODELS / "data.yaml").exists(), reason="no shipped models in models/")
def test_the_later_crops_are_read_only_for_the_unsure_indices(
    table: tuple[np.ndarray, np.ndarray, np.ndarray],
) -> None:
    pytest.importorskip("openvino")
    from vision.detect import CROPS, FIRST_VIEWS, CardReader

    image, real = table[0], table[1][:4]
    half = real[:2] + (real[:2, 2:3] - real[:2, 0:1]) * np.array([0.5, 0, 0.5, 0], np.float32)  # half an index
    boxes, turns = np.concatenate([real, half]), np.concatenate([table[2][:4], table[2][:2]])
    reader = CardReader(MODELS)
    first = _geometric_mean([reader.classifier(_batch(reader, image, boxes, turns, view)) for view in CROPS[:2]])
    unsure = int((first.max(axis=1) < reader.sure_views).sum())
    assert 0 < unsure < len(boxes)  # the scene has both
    batches: list[int] = []
    classifier = reader.classifier

    def counting(images: np.ndarray) -> np.ndarray:
        batches.append(len(images))
        return classifier(images)

    reader.classifier = counting  # type: ignore[assignment]
    reader.probabilities(image, boxes, turns)
    assert batches == [FIRST_VIEWS * len(boxes), (len(CROPS) - FIRST_VIEWS) * unsure]


def _geometric_mean(views: list[np.ndarray]) -> np.ndarray:
    logs = np.mean([np.log(np.clip(p, 1e-7, 1)) for p in views], axis=0)
    mean = np.exp(logs)
    return mean / mean.sum(axis=1, keepdims=True)


def _batch(
    reader: CardReader, image: np.ndarray, boxes: np.ndarray, turns: np.ndarray, view: tuple[float, float, float]
) -> np.ndarray:
    """One view's 64 px crops of these index boxes, as the reader's classifier reads them: squares around the boxes,
    or (an upright classifier) squares turned along each index."""
    return view_crops(image, boxes, view, 64, turns if reader.upright else None)


@pytest.mark.skipif(not (MODELS / "data.yaml").exists(), reason="no shipped models in models/")
def test_a_region_is_read_at_the_scale_the_whole_frame_is_read_at(
    table: tuple[np.ndarray, np.ndarray, np.ndarray],
) -> None:
    pytest.importorskip("openvino")
    from vision.detect import CardReader

    image = table[0]
    reader = CardReader(MODELS, imgsz=1280)
    whole = reader.readings(image)
    region = (300.0, 150.0, 1000.0, 600.0)
    part = reader.readings(image, region=region)
    assert part and len(part) < len(whole)
    for r in part:  # in whole-image pixels, within the window around the region (widened to the stride)
        cx, cy = (r.box[0] + r.box[2]) / 2, (r.box[1] + r.box[3]) / 2
        assert 300 - 32 <= cx <= 1000 + 32 and 150 - 32 <= cy <= 600 + 32
    inner = [r for r in whole if r.box[0] >= 420 and r.box[2] <= 880 and r.box[1] >= 270 and r.box[3] <= 480]
    assert inner
    for r in inner:  # away from the window's edges the detector sees the same pixels and reads the same
        near = min(part, key=lambda p: max(abs(a - b) for a, b in zip(p.box, r.box, strict=True)))
        assert near.name == r.name and max(abs(a - b) for a, b in zip(near.box, r.box, strict=True)) <= 1.5
    everything = reader.readings(image, region=(0.0, 0.0, 1280.0, 720.0))
    assert [(r.name, r.box) for r in everything] == [(r.name, r.box) for r in whole]


# -- turned boxes (a detector of Ultralytics' OBB kind) ---------------------------------------------------------


def _corners(rbox: tuple[float, float, float, float, float]) -> np.ndarray:
    """A turned box's four corners as Ultralytics draws them: w along (cos r, sin r), h across."""
    cx, cy, w, h, r = rbox
    along, across = np.array([math.cos(r), math.sin(r)]) * w / 2, np.array([-math.sin(r), math.cos(r)]) * h / 2
    c = np.array([cx, cy])
    return np.array([c + along + across, c + along - across, c - along - across, c - along + across])


@given(w=st.floats(4, 60), h=st.floats(4, 60), r=st.floats(-math.pi / 4, 3 * math.pi / 4), cx=st.floats(0, 500))
@settings(max_examples=80, deadline=None)
def test_turned_boxes_give_the_upright_box_around_them_and_their_long_axis(
    w: float, h: float, r: float, cx: float
) -> None:
    from vision.crops import quad_axis
    from vision.detect import turns_of, upright_boxes

    rbox = np.array([[cx, 100.0, w, h, r]])
    corners = _corners(tuple(rbox[0]))
    assert upright_boxes(rbox)[0] == pytest.approx([*corners.min(axis=0), *corners.max(axis=0)], abs=1e-6)
    long, short, axis = turns_of(rbox)[0]
    _, _, q_long, q_short, q_axis = quad_axis(corners)
    assert (long, short) == pytest.approx((q_long, q_short))
    if abs(w - h) > 1e-3:  # a square has no long side
        assert min(abs(axis - q_axis), 180 - abs(axis - q_axis)) < 1e-6


def test_probiou_is_one_for_a_box_itself_and_falls_with_distance() -> None:
    from vision.detect import probiou

    one = np.array([100.0, 100.0, 30.0, 10.0, 0.3])
    others = np.array([one, [105.0, 100.0, 30.0, 10.0, 0.3], [200.0, 100.0, 30.0, 10.0, 0.3]])
    near = probiou(one, others)
    assert near[0] == pytest.approx(1.0, abs=1e-3) and near[0] > near[1] > near[2] and near[2] < 0.01


def test_turned_suppression_keeps_neighbours_and_drops_copies() -> None:
    """Two indices of a fan side by side, tilted 45 degrees, are both kept; a box on top of one is dropped."""
    from vision.detect import nms_turned

    r = math.pi / 4
    a = np.array([100.0, 100.0, 8.0, 24.0, r])
    b, copy = a.copy(), a.copy()
    b[:2] += np.array([math.cos(r), math.sin(r)]) * 9  # one index's width on, across the fan
    copy[:2] += 0.5
    assert nms_turned(np.array([a, b, copy]), np.array([0.9, 0.8, 0.7]), 0.7) == [0, 1]
    assert nms_turned(np.array([copy, a]), np.array([0.9, 0.95]), 0.7) == [1]
