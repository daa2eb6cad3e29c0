"""The printable sheet of the four corner markers (``tablecall markers``): a vector PDF at true size, or a PNG.

Each marker is an ArUco marker of :data:`vision.zones.ARUCO_DICT` (ids 0-3), drawn cell by cell as filled
squares so that it prints exactly ``size_mm`` wide (print at 100 %, "actual size"). Under each marker: its id,
the corner it goes to, and the distances between the marker centres that the default layout expects.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence

import cv2
import numpy as np

from vision.calibrate import aruco_dictionary
from vision.zones import ARUCO_DICT, MARKER_MM, TABLE_MM, default_layout

__all__ = ["CORNERS", "marker_cells", "marker_sheet_pdf", "marker_sheet_png"]

A4_MM = (210.0, 297.0)
MM_TO_PT = 72 / 25.4
CORNERS = {
    0: "far-left corner (top left on camera)",
    1: "far-right corner (top right on camera)",
    2: "near-right corner (bottom right on camera)",
    3: "near-left corner (bottom left on camera)",
}


def marker_cells(marker_id: int, dictionary: str = ARUCO_DICT) -> np.ndarray:
    """The marker as a boolean grid (True: black), its one-cell black border included."""
    aruco = aruco_dictionary(dictionary)
    bits = int(aruco.markerSize)
    if not 0 <= marker_id < int(aruco.bytesList.shape[0]):
        raise ValueError(f"{dictionary} has no marker {marker_id}")
    image = cv2.aruco.generateImageMarker(aruco, marker_id, bits + 2, borderBits=1)
    return np.asarray(image) < 128


def _spacing() -> tuple[float, float]:
    markers = default_layout("snap", 2).markers
    return markers[1].centre[0] - markers[0].centre[0], markers[3].centre[1] - markers[0].centre[1]


def _escape(text: str) -> str:
    return (
        text.replace("\\", "\\\\")
        .replace("(", "\\(")
        .replace(")", "\\)")
        .encode("latin-1", "replace")
        .decode("latin-1")
    )


def _slots(size_mm: float) -> list[tuple[float, float]]:
    """Bottom-left corners (PDF mm, y up) of the four markers on an A4 page, two by two."""
    if not 20 <= size_mm <= 90:
        raise ValueError(f"a marker must be 20 to 90 mm wide to fit four on a page, not {size_mm}")
    w = A4_MM[0]
    return [(w / 4 + (i % 2) * w / 2 - size_mm / 2, 215 - (i // 2) * 120 - size_mm / 2) for i in range(4)]


def marker_sheet_pdf(size_mm: float = MARKER_MM, ids: Sequence[int] = (0, 1, 2, 3)) -> bytes:
    """A one-page A4 PDF with the four markers at true size (vector: sharp at any printer resolution)."""
    across, deep = _spacing()
    ops = ["0 g"]
    text = []
    for marker_id, (x0, y0) in zip(ids, _slots(size_mm), strict=False):
        cells = marker_cells(marker_id)
        n = cells.shape[0]
        cell = size_mm / n
        for row in range(n):
            for col in range(n):
                if cells[row, col]:
                    x, y = x0 + col * cell, y0 + (n - 1 - row) * cell
                    ops.append(
                        f"{x * MM_TO_PT:.3f} {y * MM_TO_PT:.3f} {cell * MM_TO_PT:.3f} {cell * MM_TO_PT:.3f} re f"
                    )
        label = [
            f"tablecall marker {marker_id} ({ARUCO_DICT}), {size_mm:g} mm wide",
            f"Put it at the play area's {CORNERS.get(marker_id, 'corner')}",
        ]
        for k, line in enumerate(label):
            text.append((x0, y0 - 6 - 4 * k, 7, line))
    text.append((15, 20, 9, f"Print at 100 % (actual size). Check: each black square is {size_mm:g} mm wide."))
    text.append(
        (
            15,
            14,
            9,
            f"Lay the markers flat with their centres {across:g} mm apart across the table and "
            f"{deep:g} mm apart from far to near,",
        )
    )
    text.append(
        (15, 8, 9, f"the four corners of a {TABLE_MM[0]:g} x {TABLE_MM[1]:g} mm play area, text towards the camera.")
    )
    for x, y, size, line in text:
        ops.append(f"BT /F1 {size} Tf {x * MM_TO_PT:.2f} {y * MM_TO_PT:.2f} Td ({_escape(line)}) Tj ET")
    content = zlib.compress("\n".join(ops).encode("latin-1"))
    page_w, page_h = (v * MM_TO_PT for v in A4_MM)
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {page_w:.2f} {page_h:.2f}] "
        "/Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>".encode(),
        f"<< /Length {len(content)} /Filter /FlateDecode >>\nstream\n".encode() + content + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
    ]
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{o:010d} 00000 n \n".encode() for o in offsets)
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)


def marker_sheet_png(size_mm: float = MARKER_MM, dpi: int = 300, ids: Sequence[int] = (0, 1, 2, 3)) -> np.ndarray:
    """The same sheet as a white A4 image at ``dpi`` (grey, uint8); print it at that resolution."""
    px = dpi / 25.4
    w, h = (round(v * px) for v in A4_MM)
    page = np.full((h, w), 255, np.uint8)
    for marker_id, (x0, y0) in zip(ids, _slots(size_mm), strict=False):
        cells = marker_cells(marker_id)
        side = round(size_mm * px)
        marker = cv2.resize((~cells).astype(np.uint8) * 255, (side, side), interpolation=cv2.INTER_NEAREST)
        left, top = round(x0 * px), round((A4_MM[1] - y0 - size_mm) * px)
        page[top : top + side, left : left + side] = marker
        label = f"marker {marker_id}: {CORNERS.get(marker_id, 'corner')}"
        cv2.putText(
            page, label, (left, top + side + round(8 * px)), cv2.FONT_HERSHEY_SIMPLEX, dpi / 300, 0, max(1, dpi // 150)
        )
    return page
