"""Snap: a card turned onto a player's face-up pile (``face_up/<seat>``) is that player's ``flip``.

The referee then says whether it makes a match (the ``match`` alert) and settles the calls, which come from
the phones with their press times. Cards moving to the Snap Pot or leaving with a won pile are the referee's
own consequences of the calls: no event. A flip is sent only while the game is in play (the ``deal`` is
entered on a phone first); a top card the referee already shows on a pile (a card seen again after a hand
covered it) is no flip.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from vision.observers import Observer, Proposal
from vision.track import Update

__all__ = ["SnapObserver"]


@dataclass
class SnapObserver(Observer):
    game = "snap"

    def observe(self, update: Update, view: Mapping[str, Any]) -> list[Proposal]:
        if view.get("phase") != "play":
            return []
        shown = {p.get("top") for p in view.get("piles", [])} | {(view.get("pot") or {}).get("top")}
        out = []
        for zone in self.zones("pile"):
            top = update.state.top(zone.name)
            player = self.owner(zone.name)
            if top is None or player is None or self.skip(top, view):
                continue
            self.use(top)
            if top.card in shown:
                continue
            reason = f"{top.card} turned onto {player}'s pile"
            out.append(Proposal("flip", {"player": player, "card": top.card}, top.since, reason, (top.id,)))
        return sorted(out, key=lambda p: p.ts)
