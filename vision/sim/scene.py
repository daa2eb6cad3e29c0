"""Drawing a timeline: the table, its markers, the cards where the timeline puts them at time ``t``, and
the players' arms. :meth:`Scene.render` returns a clean frame (BGR) and an owner map (which card each pixel
shows: the card's track number, ``TABLE`` or ``HAND``); the camera's light and noise come after
(:class:`vision.sim.camera.Sensor`).

Speed: the table, the markers and every card at rest are composited once into a *static layer*, which is
extended when a card lands on top and rebuilt only when a resting card moves; a frame is a copy of it plus
the few moving cards and arms. Card faces are shrunk once to about their size on screen, and only the top
``DRAWN_DEPTH`` cards of a pile are drawn (the ones below cannot show).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from vision import synth
from vision.cardart import face
from vision.sim.camera import Camera
from vision.sim.timeline import Pose, Segment, Timeline, ease
from vision.textures import back_face, table_texture
from vision.zones import ARUCO_DICT, CARD_MM, Marker, Point

__all__ = ["HAND", "TABLE", "Scene", "Sprite", "composite", "warp"]

TABLE = -1
HAND = -2
DRAWN_DEPTH = 6
SKIN = ((140, 172, 224), (66, 134, 198), (36, 85, 141), (170, 205, 255), (80, 110, 170))  # BGR
CARD_SHADOW = 0.22
Bgr = tuple[int, int, int]


def warp(image: np.ndarray, matrix: np.ndarray, size: tuple[int, int]) -> tuple[np.ndarray, tuple[int, int]] | None:
    """``image`` warped by ``matrix`` into the part of a frame of ``size`` it covers (see :mod:`vision.synth`)."""
    return synth._warp(image, matrix, size[0], size[1])


def composite(
    frame: np.ndarray, owner: np.ndarray, layer: np.ndarray, at: tuple[int, int], ident: int, shadow: float
) -> None:
    """Lay the RGBA/BGRA ``layer`` on the uint8 ``frame`` at ``at`` with a soft shadow; mark its pixels in ``owner``."""
    x, y = at
    h, w = layer.shape[:2]
    roi = frame[y : y + h, x : x + w].astype(np.float32)
    synth._composite(roi, owner[y : y + h, x : x + w], layer, (0, 0), ident, shadow)
    frame[y : y + h, x : x + w] = roi


@dataclass(frozen=True)
class Sprite:
    """A card side shrunk to about its size on screen (BGRA) and its corner-index boxes in its pixels."""

    image: np.ndarray
    indices: tuple[tuple[float, float, float, float], ...]

    def matrix(self, pose: Pose, squash: float = 1.0) -> np.ndarray:
        """Sprite pixels -> table mm for a card lying at ``pose`` (``squash`` < 1: half turned over)."""
        h, w = self.image.shape[:2]
        s = CARD_MM[1] / h
        r = math.radians(pose.angle)
        rot = np.array([[math.cos(r), -math.sin(r)], [math.sin(r), math.cos(r)]]) @ np.diag([s * squash, s])
        m = np.eye(3)
        m[:2, :2] = rot
        m[:2, 2] = np.array([pose.x, pose.y]) - rot @ np.array([w / 2, h / 2])
        return m


def _transform(points: list[tuple[float, float]], matrix: np.ndarray) -> np.ndarray:
    """Points (N x 2) through a homography."""
    return np.asarray(cv2.perspectiveTransform(np.array([points], np.float32), matrix)[0])


def _interpolate(seg: Segment, u: float) -> tuple[Pose, float]:
    """The pose ``u`` of the way along ``seg`` and the card's width factor (a card turning over narrows)."""
    e = ease(u)
    a0, a1 = seg.src.angle, seg.dst.angle
    turn = (a1 - a0 + 180) % 360 - 180
    pose = Pose(
        seg.src.x + (seg.dst.x - seg.src.x) * e, seg.src.y + (seg.dst.y - seg.src.y) * e, a0 + turn * e, seg.src.up
    )
    if seg.src.up == seg.dst.up:
        return (pose if u < 1 else seg.dst), 1.0
    half = e >= 0.5
    return Pose(pose.x, pose.y, pose.angle, seg.dst.up if half else seg.src.up), abs(1 - 2 * e)


class Scene:
    """The table of one video: draws the timeline's state at any time."""

    def __init__(self, timeline: Timeline, camera: Camera, design: str, seed: int, markers: bool = False) -> None:
        self.timeline, self.camera, self.design = timeline, camera, design
        self.size = camera.size
        rng = np.random.default_rng([seed, 11])
        self.background = self._table(rng)
        if markers:
            for marker in timeline.layout.markers:
                self._marker(marker)
        self.scale = max(
            camera.scale_at(p) for p in ((0.0, 0.0), timeline.layout.table, (0.0, timeline.layout.table[1]))
        )
        back = back_face(design, int(rng.integers(1 << 30))).image
        self.back = self._sprite(back, ())
        self.faces: dict[str, Sprite] = {}
        self.skin = [SKIN[int(rng.integers(len(SKIN)))] for _ in timeline.hands]
        self.sleeve: list[Bgr] = [
            (int(b), int(g), int(r)) for b, g, r in rng.integers(30, 220, (len(timeline.hands), 3))
        ]
        self._static: np.ndarray = self.background.copy()
        self._owner = np.full(self.size[::-1], TABLE, np.int32)
        self._drawn: dict[int, Segment] = {}
        self._top = -math.inf

    # set-up --------------------------------------------------------------------------------------------
    def _table(self, rng: np.random.Generator) -> np.ndarray:
        """The table top under the whole frame, textured on the table plane and seen through the camera."""
        w, h = self.size
        seen = self.camera.unproject([(0, 0), (w, 0), (w, h), (0, h)])
        x0, y0 = np.clip(seen.min(axis=0), -1500, 2500) - 20
        x1, y1 = np.clip(seen.max(axis=0), -1500, 2500) + 20
        per_mm = min(1.2, 2400 / max(x1 - x0, y1 - y0)) * w / 1280
        tw, th = round((x1 - x0) * per_mm), round((y1 - y0) * per_mm)
        texture = cv2.cvtColor(table_texture(rng, tw, th), cv2.COLOR_RGB2BGR)
        to_table = np.array([[1 / per_mm, 0, x0], [0, 1 / per_mm, y0], [0, 0, 1]])
        return cv2.warpPerspective(texture, self.camera.matrix @ to_table, (w, h), flags=cv2.INTER_LINEAR,
                                   borderMode=cv2.BORDER_REFLECT)  # fmt: skip

    def _marker(self, marker: Marker) -> None:
        """Print an ArUco marker on white paper (a quiet zone of one cell) and lay it on the table."""
        cells = 6  # a 4x4 code inside its black border
        px = 20 * (cells + 2)
        dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, ARUCO_DICT))
        code = cv2.aruco.generateImageMarker(dictionary, marker.id, 20 * cells)
        paper = np.full((px, px, 4), 255, np.uint8)
        paper[20 : 20 + 20 * cells, 20 : 20 + 20 * cells, :3] = code[:, :, None]
        side = marker.size * (cells + 2) / cells
        pose = Pose(marker.centre[0], marker.centre[1], 0.0, True)
        m = np.eye(3)
        m[:2, :2] *= side / px
        m[:2, 2] = np.array(pose.centre) - side / 2
        self._lay(paper, self.camera.matrix @ m)

    def _lay(self, image: np.ndarray, matrix: np.ndarray) -> None:
        warped = warp(image, matrix, self.size)
        if warped is not None:
            composite(self.background, np.full(self.size[::-1], TABLE, np.int32), warped[0], warped[1], TABLE, 0.1)

    def _sprite(self, rgba: np.ndarray, indices: tuple[tuple[float, float, float, float], ...]) -> Sprite:
        height = max(16, round(CARD_MM[1] * self.scale * 1.3))
        factor = height / rgba.shape[0]
        small = cv2.resize(rgba, (max(8, round(rgba.shape[1] * factor)), height), interpolation=cv2.INTER_AREA)
        k = small.shape[1] / rgba.shape[1]
        boxes = tuple((x1 * k, y1 * k, x2 * k, y2 * k) for x1, y1, x2, y2 in indices)
        return Sprite(cv2.cvtColor(small, cv2.COLOR_RGBA2BGRA), boxes)

    def sprite(self, card: str | None, up: bool) -> Sprite:
        if not up or card is None:
            return self.back
        name = card.split("/")[0]
        if name not in self.faces:
            f = face(self.design, name)
            self.faces[name] = self._sprite(f.image, tuple(f.indices))
        return self.faces[name]

    # geometry for the ground truth ---------------------------------------------------------------------
    def quads(self, card: str | None, pose: Pose) -> tuple[np.ndarray, list[np.ndarray]]:
        """The card's outline and its corner-index boxes in frame pixels."""
        sprite = self.sprite(card, pose.up)
        m = self.camera.matrix @ sprite.matrix(pose)
        h, w = sprite.image.shape[:2]
        outline = _transform([(0, 0), (w, 0), (w, h), (0, h)], m)
        boxes = [_transform([(x1, y1), (x2, y1), (x2, y2), (x1, y2)], m) for x1, y1, x2, y2 in sprite.indices]
        return outline, boxes

    # drawing -------------------------------------------------------------------------------------------
    def _draw_card(self, frame: np.ndarray, owner: np.ndarray, obj: int, pose: Pose, squash: float) -> None:
        if squash < 0.04:
            return
        sprite = self.sprite(self.timeline.tracks[obj].card, pose.up)
        warped = warp(sprite.image, self.camera.matrix @ sprite.matrix(pose, squash), self.size)
        if warped is not None:
            composite(frame, owner, warped[0], warped[1], obj, CARD_SHADOW)

    def _resting(self, t: float) -> tuple[dict[int, Segment], list[tuple[int, Segment, float]]]:
        resting: dict[int, Segment] = {}
        moving: list[tuple[int, Segment, float]] = []
        for track in self.timeline.tracks:
            state = track.state(t)
            if state is None:
                continue
            seg, u = state
            if u < 1:
                moving.append((track.obj, seg, u))
            elif seg.place is not None:
                resting[track.obj] = seg
        return resting, moving

    def _update_static(self, resting: dict[int, Segment]) -> None:
        gone = any(resting.get(obj) is not seg for obj, seg in self._drawn.items())
        new = sorted((seg.z, obj) for obj, seg in resting.items() if obj not in self._drawn)
        if not gone and (not new or new[0][0] >= self._top):
            for _, obj in new:
                self._draw_card(self._static, self._owner, obj, resting[obj].dst, 1.0)
                self._drawn[obj] = resting[obj]
                self._top = max(self._top, resting[obj].z)
            return
        self._static = self.background.copy()
        self._owner.fill(TABLE)
        by_place: dict[object, list[tuple[float, int]]] = {}
        for obj, seg in resting.items():
            by_place.setdefault(seg.place, []).append((seg.z, obj))
        shown = sorted(item for items in by_place.values() for item in sorted(items)[-DRAWN_DEPTH:])
        self._drawn = {}
        self._top = -math.inf
        for z, obj in shown:
            self._draw_card(self._static, self._owner, obj, resting[obj].dst, 1.0)
            self._drawn[obj] = resting[obj]
            self._top = max(self._top, z)

    def render(self, t: float) -> tuple[np.ndarray, np.ndarray, dict[int, Pose]]:
        """The clean frame at ``t`` ms (BGR uint8), its owner map and the resting cards' poses."""
        resting, moving = self._resting(t)
        self._update_static(resting)
        frame, owner = self._static.copy(), self._owner.copy()
        for obj, seg, u in sorted(moving, key=lambda m: m[1].z):
            if seg.depth < DRAWN_DEPTH:
                pose, squash = _interpolate(seg, u)
                self._draw_card(frame, owner, obj, pose, squash)
        for hand, skin, sleeve in zip(self.timeline.hands, self.skin, self.sleeve, strict=True):
            if hand.shown(t):
                self._draw_arm(frame, owner, hand.shoulder, hand.at(t), skin, sleeve)
        return frame, owner, {obj: seg.dst for obj, seg in resting.items()}

    def _draw_arm(
        self, frame: np.ndarray, owner: np.ndarray, shoulder: Point, tip: Point, skin: Bgr, sleeve: Bgr
    ) -> None:
        """An arm from beyond the table's edge to the fingertips at ``tip`` (a sleeve, a hand, four fingers)."""
        sx, sy = shoulder
        dx, dy = tip[0] - sx, tip[1] - sy
        length = math.hypot(dx, dy) or 1.0
        d = (dx / length, dy / length)
        n = (-d[1], d[0])

        def at(along: float, across: float) -> tuple[float, float]:
            return tip[0] - d[0] * along + n[0] * across, tip[1] - d[1] * along + n[1] * across

        sleeve_poly = [at(length, 55), at(length, -55), at(190, -45), at(190, 45)]
        wrist_poly = [at(200, 36), at(200, -36), at(95, -40), at(95, 40)]
        palm = [at(70 + 45 * math.cos(a), 44 * math.sin(a)) for a in np.linspace(0, 2 * math.pi, 18, endpoint=False)]
        fingers = [[at(90, x - 8), at(90, x + 8), at(4 + abs(x) / 3, x + 7), at(4 + abs(x) / 3, x - 7)]
                   for x in (-27, -9, 9, 27)]  # fmt: skip
        thumb = [at(100, 40), at(80, 48), at(45, 62), at(50, 50)]
        shapes = [(sleeve_poly, 1), (wrist_poly, 2), (palm, 2), *((f, 2) for f in fingers), (thumb, 2)]
        pts = [np.round(self.camera.project(poly) * 4).astype(np.int32) for poly, _ in shapes]
        w, h = self.size
        allpts = np.concatenate(pts) / 4
        x1, y1 = np.maximum(np.floor(allpts.min(axis=0)).astype(int) - 6, 0)
        x2, y2 = np.minimum(np.ceil(allpts.max(axis=0)).astype(int) + 24, [w, h])
        if x2 - x1 < 2 or y2 - y1 < 2:
            return
        mask = np.zeros((y2 - y1, x2 - x1), np.uint8)
        offset = np.array([x1, y1]) * 4
        for poly, (_, colour) in zip(pts, shapes, strict=True):
            cv2.fillPoly(mask, [poly - offset], colour, cv2.LINE_8, shift=2)
        roi = frame[y1:y2, x1:x2].astype(np.float32)
        alpha = cv2.GaussianBlur((mask > 0).astype(np.float32), (5, 5), 0)
        shift = max(2, round(6 * w / 1280))
        blurred = cv2.GaussianBlur(alpha, (0, 0), 4 * w / 1280)
        shadow = np.zeros_like(blurred)
        shadow[2 * shift :, shift:] = blurred[: -2 * shift, :-shift]
        roi *= (1 - 0.35 * shadow)[:, :, None]
        paint = np.where((mask == 1)[:, :, None], np.array(sleeve, np.float32), np.array(skin, np.float32))
        shade = np.linspace(1.08, 0.9, roi.shape[0], dtype=np.float32)[:, None, None]
        roi[:] = paint * shade * alpha[:, :, None] + roi * (1 - alpha[:, :, None])
        frame[y1:y2, x1:x2] = np.clip(roi, 0, 255)
        owner[y1:y2, x1:x2][alpha > 0.5] = HAND
