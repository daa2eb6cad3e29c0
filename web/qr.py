"""QR codes for the join links (segno, pure Python): an SVG for the laptop page, text for the terminal."""

from __future__ import annotations

import io

import segno

__all__ = ["qr_svg", "qr_text"]


def qr_svg(url: str, title: str = "") -> str:
    """A standalone SVG document (black on white, whatever the page's colours) of ``url``."""
    out = io.BytesIO()
    segno.make(url, error="m").save(
        out, kind="svg", scale=8, border=4, dark="#000", light="#fff", xmldecl=False, title=title or url
    )
    return out.getvalue().decode("utf-8")


def qr_text(url: str) -> str:
    """The QR code in Unicode half blocks, for a terminal with light text on a dark background."""
    out = io.StringIO()
    segno.make(url, error="m").terminal(out=out, compact=True, border=2)
    return out.getvalue()
