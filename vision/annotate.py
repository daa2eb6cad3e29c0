"""The annotated camera view for the dashboard: zones, detection boxes and card names, frozen zones, zones where a
card is being read, the stable table, flags, the referee's alerts and the pipeline's status, drawn over the frame
(OpenCV, BGR)."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

import cv2
import numpy as np

from vision.calibrate import Calibration
from vision.detections import Detections
from vision.track import Flag, Update
from vision.zones import Layout

__all__ = ["draw", "placeholder"]

ZONE = (200, 200, 60)
FROZEN = (230, 140, 40)  # blue: a hand moves over it
BOX = (80, 220, 80)
STABLE = (255, 255, 255)
ALERT = (40, 170, 255)
FLAG = (60, 60, 255)  # red: an impossible table
SETTLING = (60, 200, 240)  # amber: a card seen in the zone that has not settled yet (being read)
FONT = cv2.FONT_HERSHEY_SIMPLEX


def drawable(text: str) -> str:
    """``text`` as OpenCV's Hershey font can draw it (printable ASCII): accents dropped ("José" -> "Jose"), and each
    run of what it cannot draw (Myanmar script, emoji) one "..." (it drew a "?" for every code point: a Burmese name
    was a row of question marks; the page lists every alert in full)."""
    plain = "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))
    return _UNDRAWABLE.sub("...", plain)


_UNDRAWABLE = re.compile(r"[^\x20-\x7e]+")


def _text(image: np.ndarray, text: str, at: tuple[int, int], colour: tuple[int, int, int], scale: float = 0.5) -> None:
    """``text`` on a dark box (readable on any table cloth); ``at`` is the left end of its baseline."""
    text = drawable(text)
    x, y = at
    (w, h), base = cv2.getTextSize(text, FONT, scale, 1)
    cv2.rectangle(image, (x - 2, y - h - 2), (x + w + 2, y + base), (20, 20, 20), cv2.FILLED)
    cv2.putText(image, text, (x, y), FONT, scale, colour, 1, cv2.LINE_AA)


def _banner(image: np.ndarray, lines: Sequence[tuple[str, tuple[int, int, int]]], top: bool) -> None:
    if not lines:
        return
    h, w = image.shape[:2]
    scale = max(0.45, w / 1800)
    step = int(26 * scale / 0.5)
    height = step * len(lines) + 8
    y0 = 0 if top else h - height
    shade = image[y0 : y0 + height]
    shade[:] = (shade * 0.45).astype(np.uint8)
    for i, (text, colour) in enumerate(lines):  # on the shade only, no box: the table's far corners stay visible
        line = _fitted(drawable(text), w - 16, scale)
        cv2.putText(image, line, (8, y0 + step * (i + 1) - 6), FONT, scale, colour, 1, cv2.LINE_AA)


def _fitted(text: str, width: int, scale: float) -> str:
    """``text``, cut with an ellipsis where it would run off a picture ``width`` pixels wide."""
    if cv2.getTextSize(text, FONT, scale, 1)[0][0] <= width:
        return text
    while text and cv2.getTextSize(text + "...", FONT, scale, 1)[0][0] > width:
        text = text[:-1]
    return text + "..."


def draw(
    image: np.ndarray,
    calibration: Calibration | None,
    layout: Layout,
    detections: Detections | None = None,
    update: Update | None = None,
    flags: Sequence[Flag] = (),
    alerts: Sequence[str] = (),
    status: Sequence[str] = (),
    region: tuple[float, float, float, float] | None = None,
) -> np.ndarray:
    """A new image: ``image`` with everything the dashboard shows over it (outside ``region``, the part of the
    frame the detector reads, the picture is dimmed: cards there are not read)."""
    out = image.copy()
    if region is not None:
        h, w = out.shape[:2]
        x1, y1 = max(0, int(region[0])), max(0, int(region[1]))
        x2, y2 = min(w, int(np.ceil(region[2]))), min(h, int(np.ceil(region[3])))
        if x2 > x1 and y2 > y1 and (x2 - x1, y2 - y1) != (w, h):
            inside = out[y1:y2, x1:x2].copy()
            out //= 2
            out[y1:y2, x1:x2] = inside
    frozen = set(update.frozen) if update else set()
    settling = set(update.unsettled) if update else set()
    if calibration is not None:
        calibration = calibration.scaled((out.shape[1], out.shape[0]))
        flagged = {z for f in flags for z in f.zones}
        for zone in layout.zones:
            poly = np.round(calibration.to_image(zone.polygon)).astype(np.int32)
            colour = FLAG if zone.name in flagged else FROZEN if zone.name in frozen else ZONE
            if zone.name in frozen:
                layer = out.copy()
                cv2.fillPoly(layer, [poly], colour)
                cv2.addWeighted(layer, 0.25, out, 0.75, 0, dst=out)
            cv2.polylines(out, [poly], True, colour, 2 if zone.name in flagged else 1, cv2.LINE_AA)
            x, y = poly.min(axis=0)
            cards = " ".join(update.state.names(zone.name)) if update else ""
            reading = zone.name in settling and zone.name not in flagged  # the camera is reading a card there
            label = f"{zone.name} reading..." if reading else zone.name
            _text(out, label, (int(x) + 2, int(y) + 14), SETTLING if reading else colour, 0.4)
            if cards:  # the stable table: the zone's cards, the top (last to arrive) last
                _text(out, cards, (int(x) + 2, int(poly[:, 1].max()) + 16), STABLE, 0.5)
    if detections is not None:
        for det in detections:
            x1, y1, x2, y2 = (round(v) for v in det.box)
            cv2.rectangle(out, (x1, y1), (x2, y2), BOX, 1)
            _text(out, f"{det.card} {det.confidence:.2f}", (x1, max(12, y1 - 3)), BOX, 0.4)
            if det.corners:
                cv2.polylines(out, [np.round(np.array(det.corners)).astype(np.int32)], True, BOX, 1, cv2.LINE_AA)
    _banner(out, [(s, STABLE) for s in status], top=True)
    _banner(out, [(f.message, FLAG) for f in flags] + [(a, ALERT) for a in alerts], top=False)
    return out


def placeholder(lines: Sequence[str], size: tuple[int, int] = (640, 360)) -> np.ndarray:
    """A dark picture with ``lines`` on it: what the camera view shows when there is no frame."""
    w, h = size
    out = np.full((h, w, 3), 32, np.uint8)
    for i, line in enumerate(lines):
        _text(out, line[:80], (16, 40 + 28 * i), (230, 230, 230) if i else (80, 180, 255), 0.6)
    return out
