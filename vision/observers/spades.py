"""Spades: a card put on a player's trick spot (``trick/<seat>``) is that player's ``play``.

Tricks complete by themselves in the referee after the fourth card (a ``trick_won`` ruling names the winner);
the cards gathered onto a team's ``won`` pile lie face down and make no event. Plays are sent in the order the
cards landed (the frame each was first seen still); cards first seen in the same frame (a hand covered one of
them while it landed) go in turn order from the player the referee expects.
Bids, a Blind Nil exchange and claims come from the phones: a card put down while the hand is still being bid
waits until bidding is over, then is sent (the referee judges whether it was that player's turn).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from vision.observers import Observer, Proposal
from vision.track import Update

__all__ = ["SpadesObserver"]


@dataclass
class SpadesObserver(Observer):
    game = "spades"

    def observe(self, update: Update, view: Mapping[str, Any]) -> list[Proposal]:
        phase = view.get("phase")
        on_table = {p.get("card") for p in view.get("trick") or []}
        on_table |= set((view.get("last_trick") or {}).get("cards") or [])
        out = []
        for zone in self.zones("trick"):
            top = update.state.top(zone.name)
            player = self.owner(zone.name)
            if top is None or player is None or self.skip(top, view):
                continue
            if top.card in on_table:  # the referee has it already (seen again after being covered)
                self.use(top)
                continue
            if phase != "play":
                if phase in ("bidding", "exchange"):
                    self.note(f"{top.card} lies on {player}'s spot: waiting for the bids before it counts")
                continue
            self.use(top)
            reason = f"{player} played {top.card}"
            out.append(Proposal("play", {"player": player, "card": top.card}, top.since, reason, (top.id,)))
        turn = self.players.index(view["turn"]) if view.get("turn") in self.players else 0
        return sorted(out, key=lambda p: (p.ts, (self.players.index(p.data["player"]) - turn) % len(self.players)))
