"""The scene renderer: deterministic by seed, labels inside the frame and exactly on the drawn corner indices."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("cv2")

from vision import synth
from vision.cardart import CARDS, Face
from vision.procedural import procedural_face
from vision.synth import DesignPool, render_scene, yolo_lines

PROC = DesignPool((), proc_share=1.0)


def test_same_seed_gives_the_same_scene() -> None:
    a, b = render_scene(11, PROC), render_scene(11, PROC)
    assert np.array_equal(a.image, b.image)
    assert a.labels == b.labels
    assert a.to_json() == b.to_json()


def test_different_seeds_give_different_scenes() -> None:
    a, b = render_scene(11, PROC), render_scene(12, PROC)
    assert a.image.shape != b.image.shape or not np.array_equal(a.image, b.image)


@pytest.mark.parametrize("seed", range(6))
def test_labels_lie_inside_the_frame_and_are_visible_enough(seed: int) -> None:
    scene = render_scene(seed, PROC, min_visible=0.6)
    h, w = scene.image.shape[:2]
    assert scene.image.dtype == np.uint8 and scene.image.ndim == 3
    for label in scene.labels:
        x1, y1, x2, y2 = label.box
        assert 0 <= x1 < x2 <= w and 0 <= y1 < y2 <= h
        assert label.visible >= 0.6
        assert label.card in CARDS
    for line in yolo_lines(scene.labels, w, h):
        cls, *numbers = line.split()
        assert cls == "0" and all(0 <= float(v) <= 1 for v in numbers)


def _green_index_face(design: str, card: str) -> Face:
    """A white card whose index boxes are painted pure green: where the labels must land."""
    real = procedural_face(int(design.split(":")[1]), card)
    image = real.image.copy()
    image[:, :, :3] = 255
    for x1, y1, x2, y2 in real.indices:
        image[int(y1) : int(y2), int(x1) : int(x2), :3] = (0, 255, 0)
    return Face(card, design, image, real.indices)


@pytest.mark.parametrize("seed", range(4))
def test_label_boxes_sit_on_the_drawn_corner_indices(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(synth, "face", _green_index_face)
    monkeypatch.setattr(synth, "table_texture", lambda rng, w, h: np.full((h, w, 3), 128, np.uint8))
    monkeypatch.setattr(synth, "occluders", lambda rng, frame, owner: None)
    monkeypatch.setattr(synth, "apply_camera", lambda rng, frame: np.clip(frame, 0, 255).astype(np.uint8))
    scene = render_scene(seed, PROC)
    r, g, b = (scene.image[:, :, i].astype(int) for i in range(3))
    green = (g > r + 60) & (g > b + 60)
    covered = np.zeros_like(green)
    assert scene.labels, "a scene of face-up cards shows some index"
    for label in scene.labels:
        x1, y1, x2, y2 = (round(v) for v in label.box)
        inside = green[y1:y2, x1:x2]
        # a rotated index (2:1 or slimmer, edges blurred by resampling) still fills a fair part of its box
        assert inside.mean() > 0.2 * label.visible, (label, inside.mean())
        covered[max(0, y1 - 2) : y2 + 2, max(0, x1 - 2) : x2 + 2] = True
    # nearly every green pixel (a visible index) is inside some label box; the rest are indices too covered to label
    hidden = np.zeros_like(green)
    import cv2

    for quad in scene.hidden:
        cv2.fillPoly(hidden.view(np.uint8), [np.round(np.array(quad)).astype(np.int32)], 1)
    stray = green & ~covered & ~hidden.astype(bool)
    assert stray.sum() <= 0.02 * max(1, green.sum())
