"""How messages show what a person or a file gave: cut short, so that a 5,000-character card, event type or game id
is not echoed whole (twice, some of them) on a phone's problem line (the wording audit, session 40)."""

from __future__ import annotations

import json

__all__ = ["as_json", "cut"]


def cut(text: str, limit: int = 24) -> str:
    """``text`` as it is, or its first ``limit - 4`` characters and "…"."""
    return text if len(text) <= limit else text[: limit - 4] + "…"


def as_json(value: object) -> str:
    """``value`` as a JSON file writes it (null, true, ["AS"]; not Python's None, True), cut short."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return cut(text)
