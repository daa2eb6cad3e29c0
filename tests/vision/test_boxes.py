"""The detector's boxes (vision.boxes): letterbox, NMS of upright and turned boxes, a turned box's axis."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("cv2")

from vision.boxes import letterbox, nms, nms_turned, probiou, turn_between, turns_of, upright_boxes
from vision.crops import quad_axis


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


def test_nms_drops_overlaps_and_keeps_the_best() -> None:
    boxes = np.array([[0, 0, 10, 10], [1, 1, 11, 11], [50, 50, 60, 60]], np.float32)
    scores = np.array([0.5, 0.9, 0.7], np.float32)
    assert nms(boxes, scores, 0.5) == [1, 2]


@pytest.mark.parametrize(
    ("a", "b", "between"), [(10, 10, 0), (10, 30, 20), (170, 10, 20), (0, 179, 1), (20, 110, 90), (45, 150, 75)]
)
def test_the_angle_between_two_box_axes_is_taken_round_half_a_turn(a: float, b: float, between: float) -> None:
    assert turn_between(a, b) == pytest.approx(between)
    assert turn_between(b, a) == pytest.approx(between)


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

    rbox = np.array([[cx, 100.0, w, h, r]])
    corners = _corners(tuple(rbox[0]))
    assert upright_boxes(rbox)[0] == pytest.approx([*corners.min(axis=0), *corners.max(axis=0)], abs=1e-6)
    long, short, axis = turns_of(rbox)[0]
    _, _, q_long, q_short, q_axis = quad_axis(corners)
    assert (long, short) == pytest.approx((q_long, q_short))
    if abs(w - h) > 1e-3:  # a square has no long side
        assert min(abs(axis - q_axis), 180 - abs(axis - q_axis)) < 1e-6


def test_probiou_is_one_for_a_box_itself_and_falls_with_distance() -> None:

    one = np.array([100.0, 100.0, 30.0, 10.0, 0.3])
    others = np.array([one, [105.0, 100.0, 30.0, 10.0, 0.3], [200.0, 100.0, 30.0, 10.0, 0.3]])
    near = probiou(one, others)
    assert near[0] == pytest.approx(1.0, abs=1e-3) and near[0] > near[1] > near[2] and near[2] < 0.01


def test_turned_suppression_keeps_neighbours_and_drops_copies() -> None:
    """Two indices of a fan side by side, tilted 45 degrees, are both kept; a box on top of one is dropped."""

    r = math.pi / 4
    a = np.array([100.0, 100.0, 8.0, 24.0, r])
    b, copy = a.copy(), a.copy()
    b[:2] += np.array([math.cos(r), math.sin(r)]) * 9  # one index's width on, across the fan
    copy[:2] += 0.5
    assert nms_turned(np.array([a, b, copy]), np.array([0.9, 0.8, 0.7]), 0.7) == [0, 1]
    assert nms_turned(np.array([copy, a]), np.array([0.9, 0.95]), 0.7) == [1]


def test_letterbox_says_where_the_picture_lies_in_the_padded_input() -> None:
    """The detector maps its boxes back by the offset letterbox gives: given across for down, every box in a 1280 x
    720 webcam frame would be drawn and read 24 px to the left and 24 px down (the picture lies 12 px down the
    640 px input, not 12 px right)."""
    image = np.full((720, 1280, 3), 255, np.uint8)
    batch, r, (px, py) = letterbox(image, 640)
    picture = np.argwhere(batch[0, :, :, 0] > 200)
    (top, left), (bottom, right) = picture.min(axis=0), picture.max(axis=0)
    assert (px, py) == (left, top) == (0, 12)
    assert (right + 1 - left, bottom + 1 - top) == (round(1280 * r), round(720 * r))


def test_nms_keeps_cards_one_above_the_other() -> None:
    """Two indices in one column (same x, 20 px apart in y) do not overlap: both are kept, as side by side."""
    column = np.array([[0, 0, 10, 10], [0, 20, 10, 30]], np.float32)
    row = column[:, [1, 0, 3, 2]]
    scores = np.array([0.9, 0.8], np.float32)
    assert nms(column, scores, 0.5) == nms(row, scores, 0.5) == [0, 1]


@pytest.mark.parametrize("turn", [0.3, math.pi / 4, 1.2, 2.5])
def test_turned_overlap_does_not_change_when_the_whole_picture_turns(turn: float) -> None:
    """Two boxes' overlap is the same however the camera is turned: a turned pair reads as its upright twin. The
    overlap took a tilted box as mirrored across its axis (a sign, against Ultralytics' ProbIoU): in a fan tilted
    45 degrees an index 3 px beside another overlapped it 0.85, not 0.56, and was dropped at the detector's 0.7 (a
    card not seen), while a second box 3 px along the same index overlapped 0.56, not 0.85, and was kept."""
    upright = np.array(  # an index; one 3 px beside it, one 3 px along it; two more, one lying across
        [
            [100.0, 100.0, 8.0, 24.0, 0.0],
            [103.0, 100.0, 8.0, 24.0, 0.0],
            [100.0, 103.0, 8.0, 24.0, 0.0],
            [106.0, 104.0, 8.0, 24.0, 0.0],
            [103.0, 115.0, 24.0, 8.0, 0.0],
        ]
    )
    cos, sin = math.cos(turn), math.sin(turn)
    turned = upright.copy()
    turned[:, 0] = 100 + cos * (upright[:, 0] - 100) - sin * (upright[:, 1] - 100)
    turned[:, 1] = 100 + sin * (upright[:, 0] - 100) + cos * (upright[:, 1] - 100)
    turned[:, 4] += turn
    assert probiou(turned[0], turned[1:]) == pytest.approx(probiou(upright[0], upright[1:]), abs=1e-6)
    beside, along = probiou(upright[0], upright[1:3])
    assert beside == pytest.approx(0.564, abs=1e-3) and along == pytest.approx(0.848, abs=1e-3)
    scores = np.array([0.9, 0.8, 0.7])
    assert nms_turned(turned[:3], scores, 0.7) == nms_turned(upright[:3], scores, 0.7) == [0, 1]
