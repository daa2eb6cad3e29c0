"""The run-time reader (vision.detect): crops, and the shipped networks read through it where models/ has them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("cv2")

from vision.backends import ModelError
from vision.crops import crop_box, cut
from vision.detect import MODELS, CardReader, view_crops

ROOT = Path(__file__).resolve().parents[2]


def test_crop_box_is_square_around_the_index_and_cut_pads_outside() -> None:
    x1, y1, x2, y2 = crop_box((10, 20, 30, 60), None, 1.5)
    assert x2 - x1 == pytest.approx(60) and y2 - y1 == pytest.approx(60)
    assert ((x1 + x2) / 2, (y1 + y2) / 2) == (20, 40)
    moved = crop_box((10, 20, 30, 60), None, 1.5, (0.1, -0.05))  # shifts count in the crop's own side (60 px)
    assert moved == pytest.approx((x1 + 6, y1 - 3, x2 + 6, y2 - 3))
    image = np.full((50, 50, 3), 200, np.uint8)
    assert cut(image, (-20, -20, 30, 30), 64).shape == (64, 64, 3)


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
    # each is kept apart from the other (a reading may be kept apart from other boxes too: on an AMX CPU the INT8
    # detector's boxes differ a little, and the lower 5D is also kept from three more near it)
    assert fives[1].box in fives[0].apart and fives[0].box in fives[1].apart
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
    # a region (the live table's reads) keeps its size, though it holds the small indices (the far image's top left
    # 800x450 held none of them: it had nothing to read again)
    reader.read(far, region=(0, 0, 1920, 1080))
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


@pytest.mark.skipif(not (MODELS / "data.yaml").exists(), reason="no shipped models in models/")
@pytest.mark.parametrize(
    ("options", "settings"),
    [(["--conf", "0.9"], {"conf": 0.9}), (["--no-faces"], {"faces": False})],
    ids=["conf", "no_faces"],
)
def test_detect_reads_with_the_threshold_and_the_readers_asked_for(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], options: list[str], settings: dict[str, object]
) -> None:
    """What ``tablecall detect`` prints is what a reader with those settings reads, not the defaults' reading."""
    pytest.importorskip("openvino")
    import cv2

    from vision.synth import DesignPool, render_scene
    from web.cli import main

    # a table where the face reader changes the reading (on scene 3, the ``table`` fixture's, it does not)
    picture = render_scene(1, DesignPool((), proc_share=1.0), size=(1280, 720)).image[:, :, ::-1].copy()
    image = tmp_path / "table.png"
    cv2.imwrite(str(image), picture)
    assert main(["detect", str(image), "--json", "--imgsz", "1280", *options]) == 0
    printed = json.loads(capsys.readouterr().out)["cards"]
    asked = [c.to_json() for c in CardReader(MODELS, imgsz=1280, **settings).read(picture)]  # type: ignore[arg-type]
    default = [c.to_json() for c in CardReader(MODELS, imgsz=1280).read(picture)]
    assert printed == asked != default  # (the option changes what this table reads as)


@pytest.mark.skipif(not (MODELS / "data.yaml").exists(), reason="no shipped models in models/")
def test_detect_save_keeps_a_copy_of_each_image_and_never_writes_over_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Three photos called table.jpg from three folders, saved into the first one's folder: three copies, and the
    photo there kept, with the photos named relative to the working folder and the folder by its full name."""
    pytest.importorskip("openvino")
    import cv2

    from web.cli import main

    picture = np.full((120, 160, 3), 90, np.uint8)
    for folder in ("a", "b", "c", "d"):
        (tmp_path / folder).mkdir()
    for photo in ("a/table.jpg", "b/table.jpg", "c/table.jpg", "d/Table.JPG"):
        cv2.imwrite(str(tmp_path / photo), picture)
    kept = (tmp_path / "a" / "table.jpg").read_bytes()
    monkeypatch.chdir(tmp_path)
    assert main(["detect", "a/table.jpg", "b/table.jpg", "c/table.jpg", "--save", str(tmp_path / "a")]) == 0
    assert (tmp_path / "a" / "table.jpg").read_bytes() == kept
    assert sorted(p.name for p in (tmp_path / "a").iterdir()) == [
        "table.jpg",
        "table_.jpg",
        "table__.jpg",
        "table___.jpg",
    ]
    # on a disk that ignores case (macOS, Windows) Table.jpg would be the photo Table.JPG: its copy is Table_.jpg
    assert main(["detect", "d/Table.JPG", "--save", "d"]) == 0
    assert sorted(p.name for p in (tmp_path / "d").iterdir()) == ["Table.JPG", "Table_.jpg"]


@pytest.mark.skipif(not (MODELS / "data.yaml").exists(), reason="no shipped models in models/")
def test_detect_says_each_image_it_skips_and_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A missing file, a file that is no picture and a folder with none: each said on its own line, the other images
    read, exit 2; a models folder without networks is said in a line, not a traceback."""
    pytest.importorskip("openvino")
    import cv2

    from web.cli import main

    good, broken, empty = tmp_path / "table.png", tmp_path / "broken.jpg", tmp_path / "empty"
    cv2.imwrite(str(good), np.full((120, 160, 3), 90, np.uint8))
    broken.write_bytes(b"not an image")
    empty.mkdir()
    assert main(["detect", str(tmp_path / "missing.png"), str(broken), str(empty), str(good), "--json"]) == 2
    out, err = capsys.readouterr()
    assert [json.loads(line)["image"] for line in out.splitlines()] == [str(good)]
    assert f"{tmp_path / 'missing.png'}: no such file (skipped)" in err
    assert f"{broken}: cannot read it as an image (skipped)" in err
    assert f"{empty}: a folder with no" in err and err.count("\n") == 3
    assert main(["detect", str(good), "--models", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "data.yaml" in err and "Traceback" not in err and err.count("\n") == 1


class _FakeDetector:
    """A detector whose output is given: turned boxes (cx, cy, w, h, angle in radians) in image pixels and their
    scores, which it places in whatever letterboxed input it is given (scaled to its long side, padded evenly) as
    the network's (4 + classes [+ angle], anchors) rows."""

    name = "openvino"

    def __init__(self, image_size: tuple[int, int], rboxes: np.ndarray, scores: np.ndarray, turned: bool) -> None:
        self.image_size, self.rboxes, self.scores, self.turned = image_size, rboxes, scores, turned

    def __call__(self, batch: np.ndarray) -> np.ndarray:
        (h, w), (th, tw) = self.image_size, batch.shape[1:3]
        r = max(th, tw) / max(h, w)
        px, py = (tw - round(w * r)) // 2, (th - round(h * r)) // 2
        rows = [
            self.rboxes[:, 0] * r + px,
            self.rboxes[:, 1] * r + py,
            self.rboxes[:, 2] * r,
            self.rboxes[:, 3] * r,
            self.scores,
        ]
        if self.turned:
            rows.append(self.rboxes[:, 4])
        return np.array(rows, np.float32)[None]


@pytest.mark.skipif(not (MODELS / "data.yaml").exists(), reason="no shipped models in models/")
@pytest.mark.parametrize("turned", [True, False], ids=["turned boxes", "upright boxes"])
@pytest.mark.parametrize("size", [(530, 1000), (1000, 530)], ids=["wide", "tall"])
def test_the_detectors_boxes_come_back_in_image_pixels_each_with_its_own_score(
    size: tuple[int, int], turned: bool
) -> None:
    pytest.importorskip("openvino")
    from vision.boxes import turns_of, upright_boxes

    # in image pixels: a (0.9), a near copy of it NMS drops (0.8), one under the reader's conf whose angle (1.2
    # radians) is no score (0.1), b turned (0.6), and c whose box reaches past the right edge of the tall image
    a, dup, low = (100, 120, 60, 30, 0.0), (102, 121, 60, 30, 0.0), (300, 300, 40, 80, 1.2)
    b, c = (450, 400, 50, 100, 0.5 if turned else 0.0), (510, 200, 60, 30, 0.0)
    rboxes = np.array([b, low, dup, c, a], np.float64)  # the network's anchors are in no order of score
    scores = np.array([0.6, 0.1, 0.8, 0.5, 0.9], np.float32)
    reader = CardReader(MODELS)
    reader.turned = turned
    reader.detector = _FakeDetector(size, rboxes, scores, turned)  # type: ignore[assignment]
    image = np.full((*size, 3), 90, np.uint8)
    boxes, found, turns = reader.turned_indices(image)
    expected = upright_boxes(rboxes[[4, 0, 3]])
    expected[:, [0, 2]] = np.clip(expected[:, [0, 2]], 0, size[1])
    assert boxes == pytest.approx(expected, abs=0.01)  # surest first; the scale and the padding taken back
    assert found.tolist() == pytest.approx([0.9, 0.6, 0.5])  # each box's own score
    if turned:
        assert turns == pytest.approx(turns_of(rboxes[[4, 0, 3]]), abs=0.01)
    else:
        assert turns is None
    boxes, found = reader.indices(image, conf=0.7)  # a conf of its own
    assert boxes == pytest.approx(expected[:1], abs=0.01) and found.tolist() == pytest.approx([0.9])


@pytest.mark.skipif(not (MODELS / "data.yaml").exists(), reason="no shipped models in models/")
def test_a_card_needs_its_detector_score_and_name_probability_and_is_as_sure_as_both() -> None:
    pytest.importorskip("openvino")
    from vision.detect import Reading, load_detector

    reader = CardReader(MODELS)
    assert (reader.conf, reader.min_card) == (0.25, 0.5)  # models/data.yaml's tuned thresholds
    readings = [
        Reading("QH", 0.9, 0.8, (10, 10, 30, 50)),
        Reading("bg", 0.95, 0.99, (200, 10, 220, 50)),  # "not an index": never a card
        Reading("KS", 0.9, 0.4, (400, 10, 420, 50)),  # a name under min_card
        Reading("7D", 0.2, 0.99, (600, 10, 620, 50)),  # a box under conf
    ]
    assert [(c.card, round(c.confidence, 4)) for c in reader.cards(readings)] == [("QH", 0.72)]
    low = reader.cards(readings, conf=0.1, min_card=0.3)
    assert sorted((c.card, round(c.confidence, 4)) for c in low) == [("7D", 0.198), ("KS", 0.36), ("QH", 0.72)]
    # thresholds asked for are kept: the live table's reader keeps names of any probability (load_detector)
    assert CardReader(MODELS, conf=0.4, min_card=0.3).min_card == 0.3 and load_detector().min_card == 0.0


@pytest.mark.skipif(not (MODELS / "data.yaml").exists(), reason="no shipped models in models/")
def test_a_grey_or_bgra_picture_reads_as_its_bgr_picture(table: tuple[np.ndarray, np.ndarray, np.ndarray]) -> None:
    pytest.importorskip("openvino")
    import cv2

    reader = CardReader(MODELS)
    grey = cv2.cvtColor(table[0], cv2.COLOR_BGR2GRAY)
    as_bgr = [(r.name, r.box) for r in reader.readings(cv2.cvtColor(grey, cv2.COLOR_GRAY2BGR))]
    assert as_bgr and [(r.name, r.box) for r in reader.readings(grey)] == as_bgr
    bgra = cv2.cvtColor(table[0], cv2.COLOR_BGR2BGRA)
    bgra[:, :, 3] = 0  # a transparent PNG's alpha says nothing about the cards
    assert [(r.name, r.box) for r in reader.readings(bgra)] == [(r.name, r.box) for r in reader.readings(table[0])]


@pytest.mark.skipif(not (MODELS / "data.yaml").exists(), reason="no shipped models in models/")
@pytest.mark.parametrize(
    ("face", "whole"),
    [
        ({"QD": 0.9, "bg": 0.05}, True),
        ({"QD": 0.4, "TD": 0.4, "bg": 0.05}, False),  # unsure which card it sees (FACE_SURE)
        ({"QD": 0.6, "bg": 0.3}, False),  # sees background between the corners (FACE_MAX_BG)
    ],
    ids=["a sure whole card", "an unsure face reader", "background between"],
)
def test_two_indices_are_one_card_seen_whole_only_where_the_face_reader_is_sure_of_it(
    face: dict[str, float], whole: bool
) -> None:
    pytest.importorskip("openvino")
    reader = CardReader(MODELS)
    names = reader.names

    def row(**named: float) -> np.ndarray:
        out = np.full(len(names), (1 - sum(named.values())) / (len(names) - len(named)), np.float32)
        for name, p in named.items():
            out[names.index(name.replace("T", "10"))] = p
        return out

    probs = np.stack([row(QD=0.9), row(QD=0.9)])  # two corners both read QD
    reader.face_probabilities = lambda image, boxes, probs=None: ([(0, 1)], np.stack([row(**face)]))  # type: ignore[method-assign]
    joined, pairs, apart = reader.with_faces(np.zeros((8, 8, 3), np.uint8), np.zeros((2, 4), np.float32), probs)
    assert pairs == ([(0, 1)] if whole else []) and apart == []
    assert [names[i] for i in joined.argmax(axis=1)] == ["QD", "QD"]


@pytest.mark.parametrize("text", ["detector: [\n", "", "names: [AS]\n", "- detector\n"])
def test_a_damaged_data_yaml_is_a_model_error(tmp_path: Path, text: str) -> None:
    """Not YAML, empty, or without the networks: a ModelError, which ``tablecall detect`` says in one line and the
    camera takes for "no card detector". A YAML error, TypeError or KeyError was a traceback there, and in the camera
    demo's thread, which died: no demo table (scripts/yaml_demo_repro.py, mutation round of the demo, session 55)."""
    (tmp_path / "data.yaml").write_text(text)
    with pytest.raises(ModelError, match=r"data\.yaml cannot be read"):
        CardReader(tmp_path)
