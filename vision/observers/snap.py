"""Snap: a card turned onto a player's face-up pile (``face_up/<seat>``) is that player's ``flip``.

The referee then says whether it makes a match (the ``match`` alert) and settles the calls, which come from
the phones with their press times. Cards moving to the Snap Pot or leaving with a won pile are the referee's
own consequences of the calls: no event. A flip is sent only while the game is in play (the ``deal`` is
entered on a phone first); a top card the referee already shows on a pile (a card seen again after a hand
covered it) is no flip. Once the referee has seen cards go into a face-down pile (a won pile, the pot), no other
player can turn them up: a card on their piles is read among the others (:meth:`SnapObserver.possible`). And
players flip in turn: a doubtful reading on the pile of a player who is not in turn leans to the top the referee
has there (:meth:`SnapObserver.likely`: the same card seen again, not a flip out of turn), while one plainly seen
is still a flip, and the referee rules it out of turn. Flips first seen in the same frame (a quick second flip, a
hand over both piles) go in turn order from the player in turn, as in Spades.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from vision.observers import DECK, Observer, Proposal
from vision.track import Update

__all__ = ["SnapObserver"]


@dataclass
class SnapObserver(Observer):
    game = "snap"

    def possible(self, view: Mapping[str, Any]) -> dict[str, frozenset[str]]:
        """Each player's face-up pile: any card but those the referee saw go into the *other* players' face-down
        piles (won piles, a pot, penalty cards: they hold them). The cards on the table stay possible everywhere."""
        piles = {p.get("player"): p.get("face_down_known") for p in view.get("piles", []) if isinstance(p, Mapping)}
        if view.get("phase") != "play" or not any(piles.values()):
            return {}
        out = {}
        for zone in self.zones("pile"):
            player = self.owner(zone.name)
            if player is not None and player in piles:
                others = {str(c) for name, held in piles.items() if name != player for c in held or ()}
                if others:
                    out[zone.name] = DECK - others
        return out

    def likely(self, view: Mapping[str, Any]) -> dict[str, frozenset[str]]:
        """In play, the face-up pile of each player not in turn: the top the referee has there."""
        if view.get("phase") != "play":
            return {}
        tops = {p.get("player"): p.get("top") for p in view.get("piles", []) if isinstance(p, Mapping)}
        out = {}
        for zone in self.zones("pile"):
            player = self.owner(zone.name)
            if player is not None and player != view.get("turn") and tops.get(player):
                out[zone.name] = frozenset({str(tops[player])})
        return out

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
        turn = self.players.index(view["turn"]) if view.get("turn") in self.players else 0
        # cards first seen in the same frame (a quick second flip, a hand over both piles) go in turn order
        return sorted(out, key=lambda p: (p.ts, (self.players.index(p.data["player"]) - turn) % len(self.players)))
