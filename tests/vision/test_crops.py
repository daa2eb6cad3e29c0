"""Turned crops: an index read upright (or upside down) along its turned box, never at another angle."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

cv2 = pytest.importorskip("cv2")

from vision.crops import AXIS_JITTER, cut_turned, quad_axis, turned_square  # noqa: E402


def _index(centre: tuple[float, float], turn: float, long: float = 40, short: float = 16) -> np.ndarray:
    """The corners (top-left, top-right, bottom-right, bottom-left in the index's own frame) of an index turned
    ``turn`` degrees clockwise from upright."""
    a = math.radians(turn)
    up, right = np.array([math.sin(a), -math.cos(a)]), np.array([math.cos(a), math.sin(a)])
    c = np.array(centre)
    return np.array(
        [
            c + up * long / 2 - right * short / 2,
            c + up * long / 2 + right * short / 2,
            c - up * long / 2 + right * short / 2,
            c - up * long / 2 - right * short / 2,
        ]
    )


def _drawn(quad: np.ndarray) -> np.ndarray:
    """A white picture with the index drawn black and a red dot near its top."""
    image = np.full((240, 320, 3), 255, np.uint8)
    cv2.fillPoly(image, [np.int32(np.round(quad))], (0, 0, 0))
    top = (quad[0] + quad[1]) / 2 * 0.7 + quad.mean(axis=0) * 0.3
    cv2.circle(image, (round(top[0]), round(top[1])), 4, (0, 0, 255), -1)
    return image


@pytest.mark.parametrize("turn", [0, 30, 90, 135, 200, 290])
def test_a_turned_index_is_cut_upright_or_upside_down(turn: float) -> None:
    quad = _index((160, 120), turn)
    cx, cy, long, short, axis = quad_axis(quad)
    assert (cx, cy) == pytest.approx((160, 120)) and (long, short) == pytest.approx((40, 16))
    crop = cut_turned(_drawn(quad), turned_square((cx, cy), axis, long, None), 64)
    ys, xs = np.nonzero(crop[:, :, 1] < 100)  # black and red: the index
    height, width = ys.max() - ys.min() + 1, xs.max() - xs.min() + 1
    assert height == pytest.approx(40 * 64 / 52, abs=3) and width == pytest.approx(16 * 64 / 52, abs=3)
    red = np.nonzero((crop[:, :, 2] > 150) & (crop[:, :, 1] < 100))[0].mean()
    assert abs(red - 32) > 10  # the dot lies near the top or the bottom: the index stands upright or upside down


@given(turn=st.floats(0, 360), ratio=st.floats(0.1, 0.8))
@settings(max_examples=60, deadline=None)
def test_the_axis_is_the_long_side_modulo_half_a_turn(turn: float, ratio: float) -> None:
    *_, axis = quad_axis(_index((50, 50), turn, 30, 30 * ratio))
    assert 0 <= axis < 180
    assert min(abs((axis - (turn + 90)) % 180), 180 - abs((axis - (turn + 90)) % 180)) < 1e-6


def test_training_squares_turn_by_a_few_degrees_or_half_a_turn() -> None:
    rng = np.random.default_rng(0)
    turns = np.array([turned_square((0, 0), 30.0, 20.0, rng, short_side=8.0)[3] for _ in range(2000)])
    off = (turns - 30.0) % 360
    near = np.minimum(np.abs(off - 180), np.minimum(off, 360 - off))
    assert near.max() < 5 * AXIS_JITTER  # never sideways
    upside_down = np.mean(np.abs(off - 180) < 5 * AXIS_JITTER)
    assert 0.4 < upside_down < 0.6
    squarish = np.array([turned_square((0, 0), 30.0, 20.0, rng, short_side=19.0)[3] for _ in range(2000)])
    off = (squarish - 30.0) % 180
    assert 0.35 < np.mean(np.minimum(np.abs(off - 90), 90) < 5 * AXIS_JITTER) < 0.65  # either side taken as long


def test_a_shifted_view_moves_along_the_index_frame() -> None:
    cx, cy, side, _ = turned_square((100, 100), 90.0, 20.0, None, 1.0, (0.1, 0.0))  # a vertical index
    assert (cx, cy) == pytest.approx((102, 100))  # its crop's x axis is the image's
    cx, cy, side, _ = turned_square((100, 100), 0.0, 20.0, None, 1.0, (0.1, 0.0))  # lying along the x axis
    assert (cx, cy) == pytest.approx((100, 98)) and side == 20
