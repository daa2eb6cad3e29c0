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
A card played cannot be taken back (RULES.md): a new card on the spot of a player whose play the referee has in the
trick in progress (that card taken back, or covered), while the trick's other cards still lie on their spots (not
a trick being gathered) and no card the camera sent but the referee did not take lies on the spot of a player yet to
play (the trick's last card misread: the new card may be the next lead), is not sent while that play stands, neither
as another play of that player in this trick nor as a later trick's lead: a note says whose card was taken back and
that a phone's undo of its play lets the new card go. Once that play is undone (the trick without the player's card
again and, hands known, its card back in their hand: a phone's Edit of it to a third card puts it back there too, but
the player still has a card in the trick) the new card goes as that player's play
(:meth:`SpadesObserver.taken_back`); it is news as any once the trick's other cards are all gone, and for
``gather_ms`` (2 s) after they left (a gather: one of them hidden a while, or the only one, an arm resting over it,
is none). A card put there once the trick has moved on is news as any, and so is this one when the trick moved on
while its other cards were gone and none of its cards lies on a spot (its last card entered during a gather). Once
the hand is over (claimed, its last trick played, the next deal entered) the note goes and the card held is never
sent (a card left from the old hand). A phone's correction of the play taken back to the card lying there (Edit, not
Undo), in the trick in progress or once it is over, the card still lying there or gathered with the trick, ends the
hold too: the referee has that card, so nothing is sent and the note goes; that Edit undone while the trick is in
progress, the hold comes back (the note, and the card goes once the play taken back is undone). A phone's Edit of the
play taken back to a third card (neither it nor a card held), in the trick in progress or the one just completed, makes
the hold that card's: it stands, the card held is not sent, and the note names both cards (an Edit of it to the card
held ends the hold as above; an undo of it sends the card held as that player's play).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from vision.observers import DECK, Observer, Proposal
from vision.track import TableCard, Update

__all__ = ["SpadesObserver"]


@dataclass
class TakenBack:
    """A card whose play the referee has, taken back from its spot while its trick was in progress."""

    card: str
    player: str
    hand: Any  # the view's hand number then
    done: int  # the tricks completed in that hand then
    first: int | None = None  # the first card put on the spot since (the one that stays unsent while the play stands)
    note: str = ""
    held: set[int] = field(default_factory=set)  # the cards held on the spot for it (unsent while the play stands)
    gone: int | None = None  # since when (tracker ms) the trick's other cards have all been gone (a gather?)
    at: int = 0  # the place of the player's play in the trick (play order), to find it in the view's last_trick
    was: str | None = None  # the card taken back, once a phone's Edit made that play ``card`` (a third card)
    shown: str = ""  # the card the note names as put there (the last one seen on the spot while held)


def _completed(view: Mapping[str, Any]) -> int:
    return sum(int(n or 0) for n in (view.get("tricks") or {}).values())


def _trick(view: Mapping[str, Any]) -> dict[Any, Any]:
    """The trick in progress as the referee's view gives it: player -> the card they played in it."""
    return {p.get("player"): p.get("card") for p in view.get("trick") or [] if isinstance(p, Mapping)}


@dataclass
class SpadesObserver(Observer):
    game = "spades"
    table_events = frozenset({"play"})
    turn_grace_ms: int = 1500
    gather_ms: int = 2000  # the trick's other cards all gone this long (tracker ms, after they left): a gather
    retry_fouls = frozenset({"play_out_of_turn", "play_before_bidding"})
    taken: dict[str, TakenBack] = field(default_factory=dict)  # trick spot -> the card played there and taken back
    # card id -> (its name, its player, the hand and tricks completed just after it), while a reruled note is on it
    reruled_cards: dict[int, tuple[str, str, Any, int]] = field(default_factory=dict)
    # trick spot -> a hold a phone's Edit ended (the card taken back corrected to a held one) and the held cards it
    # used, while that trick is in progress: the Edit undone, the hold comes back
    edited: dict[str, tuple[TakenBack, frozenset[int]]] = field(default_factory=dict)

    def reruled(self, proposal: Proposal, view: Mapping[str, Any]) -> None:
        super().reruled(proposal, view)
        for card in proposal.cards:
            if card in self.reruled_notes:
                data = proposal.data
                self.reruled_cards[card] = (
                    str(data.get("card")),
                    str(data.get("player")),
                    view.get("hand"),
                    _completed(view),
                )

    def observe(self, update: Update, view: Mapping[str, Any]) -> list[Proposal]:
        phase = view.get("phase")
        on_table = {p.get("card") for p in view.get("trick") or []}
        if not on_table:  # the last trick may lie on the spots until the next is led (then it has been gathered)
            on_table = set((view.get("last_trick") or {}).get("cards") or [])
        # a re-ruled play the referee has again (entered on a phone, as its note asks, or the change itself undone),
        # or that cannot count any more (its player has another card in that trick, or the trick is over): the note
        # goes, even with the card gone from the table (it stayed, asking for a card entered already or replaced)
        players = set(_trick(view))
        now = (view.get("hand"), _completed(view))
        had = [
            card
            for card, (name, player, hand, tricks) in self.reruled_cards.items()
            if name in on_table or player in players or (hand, tricks) != now or card not in self.reruled_notes
        ]
        for card in had:
            del self.reruled_cards[card]
        self._settled(had)
        # the hand is over (claimed, its last trick played, a new deal): a card held for a play taken back is stale and
        # stays unsent, and its note goes (it stayed into the next hand, asking for an undo of an old hand's play)
        for zone, taken in list(self.taken.items()):
            if view.get("hand") != taken.hand:
                self.done.update(taken.held)
                self._release(zone)
        # a phone's Edit that ended a hold (below) undone while its trick is in progress (the card taken back is its
        # player's play again): the hold comes back and the card held is news again (there was no note, and an undo of
        # the play then never sent it; review3, session 51)
        trick = _trick(view)
        for zone, (taken, used) in list(self.edited.items()):
            if now != (taken.hand, taken.done) or trick.get(taken.player) == taken.card:
                del self.edited[zone]
                if now == (taken.hand, taken.done) and zone not in self.taken:
                    self.done.difference_update(used)
                    taken.note = ""
                    self.taken[zone] = taken
        # a phone corrected the play taken back to a card held for it (Edit, not Undo): the referee has that card, so
        # it is used and the note goes, whether it still lies there or was gathered with the trick (the note stayed,
        # asking for an undo of what is now its play, until the player's next card; review3, session 51)
        for zone, taken in list(self.taken.items()):
            card = self._corrected(taken, view)
            if card is not None:
                used = frozenset(c for c in taken.held if self.names.get(c) == card)
                self.done.update(used)
                self._release(zone)
                self.edited[zone] = (taken, used)
                continue
            # a phone's Edit made the play taken back a third card (neither that card nor a held one): that card
            # stands now, so the hold is for it (an undo of it sends the card held, an Edit of it to the card held ends
            # the hold) and the note names it (it went on naming the card taken back, for the rest of the hand, asking
            # for an undo of a play the referee no longer had; review5 F2, session 51)
            card = self._replaced(taken, view)
            if card is not None:
                taken.was = None if card == taken.was else taken.was or taken.card
                taken.card = card
                self._renote(taken)
        out = []
        for zone in self.zones("trick"):
            top = update.state.top(zone.name)
            player = self.owner(zone.name)
            if top is None or player is None:
                continue
            if top.card in on_table and zone.name in self.taken and self.taken[zone.name].card == top.card:
                self._release(zone.name)  # put back (before skip: the tracker knows it again, already used)
            if self.skip(top, view):
                continue
            name, told = top.card, self.as_told(top)
            if told is not None:  # a phone corrected its play: the truth, whatever the camera reads now
                if told.get("type") != "play" or told.get("player") not in self.players:
                    self.use(top)  # (no play any more: not sent again)
                    continue
                name, player = str(told.get("card")), str(told.get("player"))
            if name in on_table:  # the referee has it already (seen again after being covered)
                self.use(top)
                continue
            if self.taken_back(zone.name, top, update, view):
                continue
            if phase != "play":
                if phase in ("between_hands", "bidding", "exchange"):  # the bids are entered on a phone
                    wait = "the Blind Nil exchange" if phase == "exchange" else "the bids"
                    self.note(f"{top.card} lies on {player}'s spot: waiting for {wait} before it counts")
                continue
            if player != view.get("turn") and update.ts - top.since < self.turn_grace_ms:
                continue  # the card in turn may be there, not read yet (or not above the threshold yet)
            if told is not None and player != view.get("turn"):  # as corrected, its player's turn has not come: it
                if player in players:  # waits for it (it went out of turn again, a second foul); with its player's
                    self.use(top)  # card in the trick, it cannot count
                continue
            reason = f"{player} played {name}" + (" (as corrected on a phone)" if told is not None else "")
            out.append(Proposal("play", {"player": player, "card": name}, top.since, reason, (top.id,)))
        in_turn = [p for p in out if p.data["player"] == view.get("turn")]
        if in_turn:
            out = in_turn  # the others are judged again once the referee has moved the turn on
        for proposal in out:
            self.done.update(proposal.cards)
        turn = self.players.index(view["turn"]) if view.get("turn") in self.players else 0
        return sorted(out, key=lambda p: (p.ts, (self.players.index(p.data["player"]) - turn) % len(self.players)))

    def taken_back(self, zone: str, top: TableCard, update: Update, view: Mapping[str, Any]) -> bool:
        """Whether ``top``, a new card on ``zone``, waits because the card its player played to the trick in progress
        was taken back (or covered) and that play stands (a note says so). A card put there once that trick moved on
        goes as usual, and so does this one once that play is undone. The cards of a trick being gathered leave
        together, before its last card may have gone in (a lead put down meanwhile is no take-back)."""
        player, taken = self.owner(zone), self.taken.get(zone)
        trick = _trick(view)
        hand, done = view.get("hand"), _completed(view)
        spots = {self.owner(z.name): z.name for z in self.zones("trick")}
        others = [card in update.state.names(spots[p]) for p, card in trick.items() if p != player and p in spots]
        lying = all(others)
        if taken is None:
            played = trick.get(player)
            if view.get("phase") != "play" or player is None or played is None or played == top.card or not lying:
                return False
            # the trick's last card lies there, sent but not taken (misread): this may be the next lead
            if any(self._not_taken(update.state.top(z)) for p, z in spots.items() if p not in trick and p != player):
                return False
            taken = self.taken[zone] = TakenBack(str(played), player, hand, done, top.id, at=list(trick).index(player))
        if (hand, done) == (taken.hand, taken.done):
            hands = view.get("hands")
            if isinstance(hands, Mapping):  # its card back in the hand and no card of theirs in the trick (a phone's
                # Edit of the play to a third card puts it back too: the new card went as a second play, session 51)
                undone = taken.card in (hands.get(taken.player) or ()) and taken.player not in trick
            else:
                undone = taken.player not in trick
            # its play was undone (the new card is that player's play), or a gather: the trick's other cards all gone,
            # and for gather_ms (one of them missing is no gather, nor the last one hidden a while: an arm resting over
            # it sent the new card out of turn, then as the next lead)
            gathered = bool(others) and not any(others)
            taken.gone = (update.ts if taken.gone is None else taken.gone) if gathered else None
            if undone or (taken.gone is not None and update.ts - taken.gone >= self.gather_ms):
                self._release(zone)
                return False
        else:  # the trick moved on: a card put there since is news
            # and so is this one if the trick moved on while its other cards were all gone and none of its cards lies on
            # a spot (its last card entered on a phone during a gather: the lead put down meanwhile waited for good, its
            # note asking to undo the card its player led before; review1, session 50); with its last card lying there,
            # the others hidden (an arm over them), the hold stays, for good (decided at once)
            if top.id != taken.first or (taken.gone is not None and not self._trick_lies(update, view, taken.card)):
                self._release(zone)
                return False
            taken.gone = None
        taken.shown = str(top.card)
        self._renote(taken)
        taken.held.add(top.id)
        return True

    def _renote(self, taken: TakenBack) -> None:
        """The note of ``taken``'s hold, made anew (the card put there, or the play it stands for, changed)."""
        who, card, shown = taken.player, taken.card, taken.shown
        if taken.was is None:
            text = (
                f"{who}'s {card}, played to the trick, was taken back (or covered) and {shown} put there: a card "
                f"played cannot be taken back, so {card} stands and {shown} is not sent; if {card} was not played, "
                f"undo it on a phone and {shown} goes as {who}'s play"
            )
        else:
            text = (
                f"{who}'s {taken.was}, played to the trick, was taken back (or covered) and {shown} put there, and a "
                f"phone made that play {card}: {card} stands and {shown} is not sent; if {who} played {shown}, edit "
                f"the play to {shown} on a phone (or undo it and {shown} goes as {who}'s play)"
            )
        if text != taken.note:
            self.unnote(taken.note)
            taken.note = text
        self.note(text)

    def _corrected(self, taken: TakenBack, view: Mapping[str, Any]) -> str | None:
        """The card held for ``taken`` that the referee has as its player's play in the trick in progress (a phone's
        Edit of the play taken back, or the card entered as their play of a later trick), or in the trick just
        completed, the card taken back gone from it (its player's card there unknown)."""
        held = {self.names.get(c) for c in taken.held}
        if view.get("hand") != taken.hand:
            return None
        trick = _trick(view)
        card = trick.get(taken.player)
        if card in held and taken.card not in trick.values():
            return str(card)
        if _completed(view) == taken.done + 1:
            cards = [str(c) for c in (view.get("last_trick") or {}).get("cards") or []]
            return next((c for c in cards if c in held), None) if taken.card not in cards else None
        return None

    def _replaced(self, taken: TakenBack, view: Mapping[str, Any]) -> str | None:
        """The third card (neither the card taken back nor a held one) that the referee has as ``taken``'s player's
        play in the trick the hold began in: in progress still, or the one just completed, the card taken back gone
        from it (a phone's Edit of that play)."""
        if view.get("hand") != taken.hand:
            return None
        done = _completed(view)
        if done == taken.done:
            card = _trick(view).get(taken.player)
        elif done == taken.done + 1:
            cards = [str(c) for c in (view.get("last_trick") or {}).get("cards") or []]
            card = cards[taken.at] if taken.at < len(cards) and taken.card not in cards else None
        else:
            return None
        if card is None or card == taken.card or card in {self.names.get(c) for c in taken.held}:
            return None
        return str(card)

    def _trick_lies(self, update: Update, view: Mapping[str, Any], taken: str) -> bool:
        """Whether a card of the trick just completed (the view's ``last_trick``; ``taken``, the card taken back, aside)
        lies on a trick spot."""
        cards = set((view.get("last_trick") or {}).get("cards") or []) - {taken}
        return any(card in update.state.names(zone.name) for zone in self.zones("trick") for card in cards)

    def _not_taken(self, card: TableCard | None) -> bool:
        """Whether ``card`` was sent (or tried) and the referee did not take it as a play in the trick: refused, ruled
        impossible or out of turn. (A card just put down, about to go, is not: Beth's 4C, seen with Alex's 7C put in
        place of his QC, went in and ended the trick, and the 7C went as the next lead, spadescam run, session 49.)"""
        return card is not None and (card.id in self.done or card.id in self.held)

    def _release(self, zone: str) -> None:
        taken = self.taken.pop(zone, None)
        if taken is not None:
            self.unnote(taken.note)

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
                spot = spots.get(play.get("player")) if isinstance(play, Mapping) else None
                taken = self.taken.get(spot) if spot is not None else None
                now = (view.get("hand"), _completed(view))
                if spot is not None and (taken is None or (taken.hand, taken.done) != now):  # (not where it was
                    out[spot] = frozenset({str(play.get("card"))})  # taken back: a new card lies there)
        return out
