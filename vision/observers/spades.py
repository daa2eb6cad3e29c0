"""Spades: a card put on a player's trick spot (``trick/<seat>``) is that player's ``play``.

Tricks complete by themselves in the referee after the fourth card (a ``trick_won`` ruling names the winner);
the cards gathered onto a team's ``won`` pile lie face down and make no event. Plays are sent in turn order: a
card on the spot of a player who is not in turn waits for the card of the player in turn (which may lie there
unread: a small or smudged index takes a few more frames, a doubtful one may not count yet), for at most
``turn_grace_ms`` (1.5 s) after it landed; then it is sent as it is, and the referee judges the play out of turn.
Cards sent together go in the order they landed (the frame each was first seen); cards first seen in the same
frame go in turn order from the player the referee expects.
Bids, a Blind Nil exchange and claims come from the phones: a card put down while the hand is still being bid
waits until bidding is over, then is sent (the referee judges whether it was that player's turn).
A card on a player's spot is none gathered with an earlier trick, and once the hands are known (entered at the
deal) none that another player still holds (:meth:`SpadesObserver.possible`): a reading of such a card is re-read
as the likeliest one it can be; and a doubtful reading on the spot in turn leans to the cards that player may
legally play (:meth:`SpadesObserver.likely`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from vision.observers import DECK, Observer, Proposal
from vision.track import Update

__all__ = ["SpadesObserver"]


@dataclass
class SpadesObserver(Observer):
    game = "spades"
    table_events = frozenset({"play"})
    turn_grace_ms: int = 1500
    retry_fouls = frozenset({"play_out_of_turn", "play_before_bidding"})

    def observe(self, update: Update, view: Mapping[str, Any]) -> list[Proposal]:
        phase = view.get("phase")
        on_table = {p.get("card") for p in view.get("trick") or []}
        if not on_table:  # the last trick may lie on the spots until the next is led (then it has been gathered)
            on_table = set((view.get("last_trick") or {}).get("cards") or [])
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
                if phase in ("between_hands", "bidding", "exchange"):  # the bids are entered on a phone
                    wait = "the Blind Nil exchange" if phase == "exchange" else "the bids"
                    self.note(f"{top.card} lies on {player}'s spot: waiting for {wait} before it counts")
                continue
            if player != view.get("turn") and update.ts - top.since < self.turn_grace_ms:
                continue  # the card in turn may be there, not read yet (or not above the threshold yet)
            reason = f"{player} played {top.card}"
            out.append(Proposal("play", {"player": player, "card": top.card}, top.since, reason, (top.id,)))
        in_turn = [p for p in out if p.data["player"] == view.get("turn")]
        if in_turn:
            out = in_turn  # the others are judged again once the referee has moved the turn on
        for proposal in out:
            self.done.update(proposal.cards)
        turn = self.players.index(view["turn"]) if view.get("turn") in self.players else 0
        return sorted(out, key=lambda p: (p.ts, (self.players.index(p.data["player"]) - turn) % len(self.players)))

    def possible(self, view: Mapping[str, Any]) -> dict[str, frozenset[str]]:
        """Each trick spot: any card but those the other players still hold (the hands, once entered) and those
        gathered with earlier tricks (the referee's ``gathered``, with the hands unknown too: a held-out deck's AC
        read AS, the AS played in an earlier trick, was refused as already played and the trick never completed;
        spadescam audit, session 49); the cards of this trick stay possible everywhere (a card put on the wrong
        spot), and so do the last trick's until the next one is led (it may lie there until then)."""
        lying = {str(p.get("card")) for p in view.get("trick") or [] if isinstance(p, Mapping)}
        if not lying:
            lying = {str(c) for c in (view.get("last_trick") or {}).get("cards") or []}
        hands = view.get("hands")
        if not isinstance(hands, Mapping) or set(hands) != set(self.players):
            gone = {str(c) for c in view.get("gathered") or []} - lying
            spots = [zone.name for zone in self.zones("trick") if self.owner(zone.name) is not None]
            return {spot: DECK - gone for spot in spots} if gone else {}
        gathered = DECK - {str(c) for held in hands.values() for c in held or ()} - lying
        out = {}
        for zone in self.zones("trick"):
            player = self.owner(zone.name)
            if player is not None:
                others = {str(c) for name, held in hands.items() if name != player for c in held or ()}
                out[zone.name] = DECK - others - gathered
        return out

    def likely(self, view: Mapping[str, Any]) -> dict[str, frozenset[str]]:
        """The spot of the player in turn: the cards they may legally play (the referee's ``legal``, once the hands
        are entered); the spots of those who played to this trick: the card the referee has from them."""
        out = {}
        legal, turn = view.get("legal"), view.get("turn")
        if view.get("phase") == "play" and isinstance(legal, list) and legal and turn in self.players:
            spots = {self.owner(z.name): z.name for z in self.zones("trick")}
            if turn in spots:
                out[spots[turn]] = frozenset(str(c) for c in legal)
            for play in view.get("trick") or []:
                if isinstance(play, Mapping) and play.get("player") in spots:
                    out[spots[play["player"]]] = frozenset({str(play.get("card"))})
        return out
