"""Spit: stock tops and spit piles become ``reveal``, ``move``, ``play`` and ``spit`` events.

Zones: ``stock/<seat>/<0-4>`` (the player's five stock piles, 0 on their left) and ``spit/<0-1>``.

* A card on a spit pile that the referee shows as a face-up stock top is a ``play`` from that pile; the referee
  judges it (an ``illegal_play`` foul when it does not fit). A card that was never seen face up, while the
  table is stalled or waiting for the opening Spit!, is a spit card: the cards turned on both piles within
  ``gather_ms`` go as one ``spit`` event (pile ``p`` is seat ``p``'s, or the only player with spit cards; both on
  one pile, the lower the first seat's unless the view's ``known`` says whose either is, and as two events, the lower
  first, when that makes the lower the second seat's: :func:`_whose`; the upper's once the referee has the lower,
  :meth:`SpitObserver._rest_of_split`); so
  is one on the pile of a player the last Spit! call named who turns it only after the other's went alone
  (the view's ``called``). A spit card re-read before it is sent goes with its new reading. A stock card played on
  a spit card before it settled waits for that Spit!, the card seen under it gathered as the pile's spit card
  (:meth:`SpitObserver._played_on_opening`, :meth:`SpitObserver._played_on_spit_card`).
  During play an unseen card is a card turned and played at once, when only one stock pile can have given it.
  Face-up stock tops under a played card that were never sent (seen at its edge, or glimpsed before it covered
  them) are its pile's earlier plays: each goes first, in the order they landed (:meth:`SpitObserver._played_under`).
  One never read there that left its stock pile, in view, as the top landed and is seen nowhere else, when the top
  goes on it (or both on the pile's old top), is inferred as played under it (:meth:`SpitObserver._vanished_under`).
  Such a card, or one only glimpsed under the top (a card held over the pile as the top landed looks the same), seen
  again on the other spit pile or its player's stock piles is a note that the play sent is evidently wrong (an undo
  on a phone if it was not played), until that play is undone or corrected, or the spit piles are taken up
  (:meth:`SpitObserver._seen_again`).
* A card turned up on a stock pile whose top the referee shows face down is a ``reveal``; the face-up top of
  another of the player's piles appearing on an empty space is a ``move``. A card turned up on a pile whose top
  the referee still shows face up waits: the play or move of that top is often seen in the same frame or later
  (a hand over the spit pile), and the reveal follows it; only a card unexplained for ``gather_ms`` is a note.
* A doubtful reading on a spit pile in play leans to the cards that can go there (:meth:`SpitObserver.likely`),
  on a face-up stock top to the card the referee has there. No pile shows a card that lies covered in a spit pile,
  nor one that tops another pile (:meth:`SpitObserver.possible`): a reading of one is re-read as the likeliest card
  it can be.
* Stalls ("nobody can play") and round ends are found by the referee (its ``spit_call``/``round_over``
  alerts). Layouts (face-down counts), slaps and round ends are entered on the phones.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from scorer.cards import standard_deck
from scorer.spit_table import Rules, fits
from vision.observers import DECK, Observer, Proposal
from vision.track import TableCard, Update
from vision.zones import Zone

__all__ = ["SpitObserver"]

Json = Any


@dataclass
class Unseen:
    """A play sent for a card never seen lying on the pile, under a top (:meth:`SpitObserver._vanished_under`'s
    inference, or a card :meth:`SpitObserver._played_under` only glimpsed there), while the referee has that play."""

    card: str
    player: str
    pile: int
    top: str  # the card that covered it
    zone: str  # the spit zone it was sent in
    how: str  # "never seen there" or "glimpsed there a moment"
    note: str = ""  # the note once the card is seen again


@dataclass
class Split:
    """Both spit cards turned onto one pile whose lower is the second seat's: two ``spit`` events, the lower's first
    (:meth:`SpitObserver._flush`). The upper (the pile's gathered card, ``SpitObserver._spit[pile]``) waits until the
    referee has the lower on the pile (:meth:`SpitObserver._rest_of_split`)."""

    pile: int
    lower: TableCard
    low: str  # who turned the lower
    high: str  # who turned the upper
    upper: str  # the upper's card when the pair was found (the reasons name it)
    ts: int
    size: int = 0  # the referee's pile size when the lower went (before it)
    note: str = ""  # the note while the lower is refused

    def reason(self, k: int) -> str:
        """The reason of the lower's event (``k`` 1) or the upper's (2), both worded alike: one Spit! in two entries
        (read "Spit! (Beth: 9D)" and "Spit! (Alex: 2C)", one could be taken for a duplicate: review5 F4, session 51)."""
        both = f"{self.low} {self.lower.card} under {self.high} {self.upper}"
        return f"Spit! (both on pile {self.pile + 1}: {both}, {k} of 2)"


@dataclass
class Pair:
    """A :class:`Split` whose two events the camera both sent: each card's id -> how the note names it, and those of
    them rejected on a phone."""

    both: str  # "both on spit pile 1: Beth 9D under Alex 2C"
    order: str  # "Beth's Spit!, then Alex's," (a Spit! entered as one event lays its cards in seat order)
    entries: dict[int, str]  # card id -> "Beth's 9D (1 of 2)"
    rejected: set[int] = field(default_factory=set)
    note: str = ""


@dataclass
class SpitObserver(Observer):
    game = "spit"
    gather_ms: int = 1500
    _spit: dict[int, TableCard] = field(default_factory=dict)  # spit pile -> the spit card gathered there
    _since: dict[int, int] = field(default_factory=dict)  # spit pile -> when its card was first seen (re-reads)
    _opening: bool = False  # the cards in _spit were gathered for the opening Spit!
    _stirred: set[int] = field(default_factory=set)  # spit piles something moved over since their card was gathered
    vanish_ms: int = 1000  # a stock top that left its pile for nowhere seen this close to a play may lie under it
    _left: dict[str, int] = field(default_factory=dict)  # card -> when it left a stock pile, seen going nowhere
    _held: dict[int, str] = field(default_factory=dict)  # top id -> the card inferred under it, not seen again yet
    _unseen: dict[str, Unseen] = field(default_factory=dict)  # card -> its play under a top, while the referee has it
    _split: Split | None = None  # both spit cards on one pile sent as two events: the lower's sent, the upper waits
    _pairs: list[Pair] = field(default_factory=list)  # the latest splits sent in full (a Reject of one half: a note)

    def observe(self, update: Update, view: Mapping[str, Json]) -> list[Proposal]:
        out: list[Proposal] = []
        kinds = {z.name: z.kind for z in self.layout.zones}
        for change in update.changes:
            if change.kind == "leave" and change.to is None and kinds.get(change.card.zone) == "stock":
                self._left[change.card.card] = change.ts
            elif change.kind == "appear":
                self._left.pop(change.card.card, None)
        spit_zones = {z.slot: z.name for z in self.zones("spit")}
        self._stirred.update(pile for pile in self._spit if spit_zones.get(pile) in update.frozen)
        self._seen_again(update, view)
        if self._pairs and view.get("phase") != "play":  # the round is over: the spit piles are taken up
            for pair in self._pairs:
                self.unnote(pair.note)
            self._pairs.clear()
        tops = [(z, update.state.top(z.name)) for z in self.layout.zones if z.kind in ("stock", "spit")]
        for zone, top in sorted(
            ((z, t) for z, t in tops if t is not None and not self.skip(t, view)), key=lambda zt: zt[1].since
        ):
            if zone.kind == "spit":
                out += self._pile(top, _pile_of(zone, view), view, update)
                continue
            proposal = self._stock(top, zone.owner, zone.slot, view, update.ts)
            if proposal is not None:
                out.append(proposal)
        return out + self._flush(update.ts, view, update)

    def possible(self, view: Mapping[str, Json]) -> dict[str, frozenset[str]]:
        """Every pile: no card the referee has covered in a spit pile (played this round, it cannot show again; a
        spit pile's top may be seen again on its own pile); a spit pile, none that tops the other spit pile (a
        covered card's corner at a pile's edge, read among the rest, would otherwise be taken for the other pile's
        top: a duplicate card flagged for nothing); a stock pile, none that tops a spit pile."""
        covered = {str(c) for c in view.get("covered") or []}
        piles = view.get("spit_piles") or []
        tops = {slot: str(p.get("top")) for slot, p in enumerate(piles) if p.get("top")}
        if not covered and not tops:
            return {}
        out = {
            zone.name: DECK - covered - {top for slot, top in tops.items() if slot != _pile_of(zone, view)}
            for zone in self.zones("spit")
        }
        out.update({zone.name: DECK - covered - set(tops.values()) for zone in self.zones("stock")})
        return out

    def likely(self, view: Mapping[str, Json]) -> dict[str, frozenset[str]]:
        """In play: a spit pile holds its top or a card that may go on it under the game's house rules (one rank
        from it, the Ace next to King and 2 unless ``ace_wraps`` is off; of its rank with ``same_rank_allowed``), a
        face-up stock top stays what the referee has. Spit cards (the opening, or after a stall) and cards turned up
        on a stock pile can be anything: no leaning there."""
        if view.get("phase") != "play":
            return {}
        near = _near_cards(bool(self.options.get("ace_wraps", True)), bool(self.options.get("same_rank_allowed")))
        out = {}
        piles = [] if view.get("stalled") else view.get("spit_piles") or []
        for zone in self.zones("spit"):
            pile = _pile_of(zone, view)
            if pile is not None and pile < len(piles) and piles[pile].get("top"):
                top = str(piles[pile]["top"])
                out[zone.name] = near.get(top, frozenset()) | {top}
        players = view.get("players") or {}
        for zone in self.zones("stock"):
            if zone.owner is None or zone.slot is None or zone.owner >= len(self.players):
                continue
            stock = (players.get(self.players[zone.owner]) or {}).get("stock") or []
            if zone.slot < len(stock) and stock[zone.slot].get("top"):
                out[zone.name] = frozenset({str(stock[zone.slot]["top"])})
        return out

    # -- stock piles ---------------------------------------------------------------------------------------
    def _stock(
        self, top: TableCard, seat: int | None, slot: int | None, view: Mapping[str, Json], now: int
    ) -> Proposal | None:
        if seat is None or slot is None or seat >= len(self.players):
            return None
        name = self.players[seat]
        side = (view.get("players") or {}).get(name) or {}
        stock = side.get("stock") or []
        if not side.get("laid_out") or len(stock) <= slot:
            self.note(f"{top.card} on {name}'s stock pile {slot + 1}: waiting for {name}'s layout")
            return None
        if stock[slot].get("top") == top.card:
            self.use(top)
            return None
        source = next((k for k, pile in enumerate(stock) if pile.get("top") == top.card and k != slot), None)
        if source is not None:
            self.use(top)
            data = {"player": name, "from": source, "to": slot}
            return Proposal("move", data, top.since, f"{name} moved {top.card} to stock pile {slot + 1}", (top.id,))
        if stock[slot].get("top") is None and int(stock[slot].get("down") or 0) > 0:
            self.use(top)
            data = {"player": name, "stock": slot, "card": top.card}
            return Proposal("reveal", data, top.since, f"{name} turned up {top.card}", (top.id,))
        # not explained yet: the card it covers may be on its way to a spit pile or a space (seen in the same
        # frame, or later under a hand), so the next frames judge it again; a note only once it stays unexplained
        if now - top.since >= self.gather_ms and top.card not in self._unseen:  # that card's own note says more
            self.note(f"{top.card} on {name}'s stock pile {slot + 1} is not explained: enter it by hand")
        return None

    # -- spit piles ----------------------------------------------------------------------------------------
    def _pile(self, top: TableCard, pile: int | None, view: Mapping[str, Json], update: Update) -> list[Proposal]:
        if pile is None:
            return []
        if _spit_pile(view, pile).get("top") == top.card:
            self.use(top)
            return []
        players = view.get("players") or {}
        tops = _stock_tops(view)
        if top.card in tops:
            name, _ = tops[top.card]
            if view.get("phase") == "start":  # before the opening Spit!: it waits for it (not used)
                self._played_on_opening(top, pile, name, view, update)
                return []
            if self._played_on_spit_card(top, pile, view, update):  # on a stall's spit card: after the Spit!
                return []
            under = self._played_under(top, pile, view, update) or self._vanished_under(top, pile, view, update)
            if under is None:  # a stock top is vanishing: wait until it has left its pile or is seen again
                return []
            return [*under, self._play(top, pile, tops)]
        phase = view.get("phase")
        if phase == "start" or (phase == "play" and (view.get("stalled") or self._called(pile, view))):
            gathered = self._spit.get(pile)
            if gathered is None or top.replaces == gathered.id:  # a re-read before it was sent: the new reading
                self._spit[pile] = top
                self._opening = phase == "start"
                if gathered is not None:
                    self._since[pile] = min(self._since.get(pile, gathered.since), gathered.since)
            return []
        self.use(top)
        if phase == "play":
            turned = self._turned_and_played(top, pile, players)
            return [] if turned is None else [turned]
        self.note(f"{top.card} on spit pile {pile + 1} is not explained ({phase}): enter it by hand")
        return []

    def _play(self, card: TableCard, pile: int, tops: Mapping[str, tuple[str, int]]) -> Proposal:
        """The ``play`` of ``card``, a face-up stock top (``tops``), onto spit pile ``pile``."""
        self.use(card)
        name, slot = tops[card.card]
        data = {"player": name, "card": card.card, "pile": pile, "from": slot}
        return Proposal("play", data, card.since, f"{name} played {card.card} on spit pile {pile + 1}", (card.id,))

    def _played_under(self, top: TableCard, pile: int, view: Mapping[str, Json], update: Update) -> list[Proposal]:
        """The plays of the cards under ``top`` on its spit pile that were never sent, in the order they landed: face-up
        stock tops (by the referee) seen at the top's edge (the tracker's cards below it) or glimpsed before it covered
        them (:attr:`vision.track.Update.glimpsed`). At a real pace a card lands on one played 100-300 ms before, which
        never lay still and uncovered long enough to be sent: the top alone was judged against the pile's old top, a
        legal play called illegal, a race given to its loser, an illegal play's foul given to the other player
        (spitpace audit F2-F4, session 48). Each goes as its own ``play`` before the top's, so that the referee judges
        each on the card it landed on. A card never read on the pile is not invented; one glimpsed on both spit piles
        was carried over the one where it was first read (a hand crossing it to the other) and lies under the other."""
        tops = _stock_tops(view)
        cards = update.state.in_zone(top.zone)
        below = next((k for k, c in enumerate(cards) if c.id == top.id), 0)
        glimpsed = [c for c in update.glimpsed if c.zone == top.zone]
        seen = [
            *cards[:below],
            *(c for c in glimpsed if not any(g.card == c.card and g.since > c.since for g in update.glimpsed)),
        ]
        under: dict[str, TableCard] = {}
        for card in seen:
            if card.card in tops and card.card != top.card and card.id not in self.done and card.id not in self.held:
                under.setdefault(card.card, card)
        ordered = sorted(under.values(), key=lambda c: (c.since, seen.index(c)))
        for card in ordered:
            if card not in cards:  # only glimpsed: a card held over the pile as the top landed looks the same
                self._sent_unseen(card.card, tops[card.card][0], pile, top, "glimpsed there a moment")
        return [self._play(card, pile, tops) for card in ordered]

    def _vanished_under(
        self, top: TableCard, pile: int, view: Mapping[str, Json], update: Update
    ) -> list[Proposal] | None:
        """The play of a face-up stock top (by the referee) never read on the pile that ``top`` covered within a frame
        or two of landing (at a real pace, 100-200 ms apart at 15 fps: spitfast, session 49), inferred when it can only
        lie there: it left its stock pile (the tracker's leave, seen going nowhere) within ``vanish_ms`` of ``top``'s
        landing, with that pile in view (no hand over it: a hidden top is not gone), and it is seen nowhere else; and
        ``top`` goes on it (a play on a play) or both go on the pile's old top (a race). Exactly one such card, or
        nothing is invented. None (wait, ``top`` is sent later) while one is missing from its pile but has not left it
        (a detector's miss comes back; a card lifted and put back is seen again), or while one of its player's empty
        spaces, or the other spit pile, has a card arriving or a hand over it (a move, or a play there); and while the
        one found has been unseen for less than ``gather_ms`` after ``top`` landed (a race's loser pulling his card
        back shows it again: review3, session 49), a hand over its pile meanwhile not counting."""
        old = _spit_pile(view, pile).get("top")
        if view.get("phase") != "play" or view.get("stalled") or not old:
            return []
        near = _near_cards(bool(self.options.get("ace_wraps", True)), bool(self.options.get("same_rank_allowed")))
        busy = set(update.frozen) | set(update.unsettled)
        missing = {c.id for c in update.missing}
        players = view.get("players") or {}
        found: list[tuple[str, int, str]] = []
        wait = False
        held = self._held.get(top.id)
        for card, (name, slot) in _stock_tops(view).items():
            fits = top.card in near.get(card, ()) or (card in near.get(old, ()) and top.card in near.get(old, ()))
            seat = self.players.index(name) if name in self.players else None
            zone = next((z.name for z in self.zones("stock") if z.owner == seat and z.slot == slot), None)
            if card == top.card or not fits or zone is None or (zone in update.frozen and held != card):
                continue
            where = update.state.where(card)
            if where:  # still on its pile: vanishing when it is not seen there now
                wait = wait or all(c.zone == zone and c.id in missing for c in where)
                continue
            left = self._left.get(card)
            if left is None or abs(left - top.since) > self.vanish_ms:
                continue
            stock = (players.get(name) or {}).get("stock") or []
            spaces = [k for k, s in enumerate(stock) if not s.get("top") and not int(s.get("down") or 0)]
            elsewhere = {z.name for z in self.zones("stock") if z.owner == seat and z.slot in spaces}
            elsewhere |= {z.name for z in self.zones("spit") if z.name != top.zone}
            if busy & elsewhere:
                wait = True
                continue
            found.append((name, slot, card))
        if wait and update.ts - top.since < self.gather_ms:
            return None
        if len(found) != 1:
            self._held.pop(top.id, None)
            return []
        ((name, slot, card),) = found
        if update.ts - top.since < self.gather_ms:  # it must stay unseen: a race's loser pulling back, a card lifted
            self._held[top.id] = card  # to look at or slid to a space shows again (a hand over its pile: still held)
            return None
        self._held.pop(top.id, None)
        del self._left[card]
        data = {"player": name, "card": card, "pile": pile, "from": slot}
        reason = f"{name} played {card} on spit pile {pile + 1} (left stock pile {slot + 1}, covered by {top.card})"
        self._sent_unseen(card, name, pile, top, "never seen there")
        return [Proposal("play", data, top.since - 1, reason)]

    def _sent_unseen(self, card: str, name: str, pile: int, top: TableCard, how: str) -> None:
        self._drop(self._unseen.pop(card, None))
        self._unseen[card] = Unseen(card, name, pile, top.card, top.zone, how)

    def _seen_again(self, update: Update, view: Mapping[str, Json]) -> None:
        """A card whose play went under a top without being seen lying there (:class:`Unseen`), seen again on the other
        spit pile or its player's stock piles (back on its stock pile, on the other spit pile, on a space; on the other
        player's, or a card lying there read anew as it, it is a misread): it may never have been on the pile (held off
        the table for longer than ``gather_ms``, a sleeve resting over its pile, a card held over the pile as the top
        landed). The play stands (the camera un-sends nothing): a note says so and asks for an undo on a phone if it was
        not played. The note goes once the referee no longer has the card on the spit piles (a foul's card lies there
        too): that play undone or corrected on a phone, or the piles taken up at the round's end (a card of a round over
        is not one of the next: its record goes before it can be played again; no new note once the round is over: the
        cards are gathered and laid out again before the slap may be entered). A foul's card taken back, as the referee
        asks, makes the note too: it cannot be told from a card never played."""
        if not self._unseen:  # (every frame)
            return
        known = _known(view)
        for card, unseen in list(self._unseen.items()):
            if card not in known:
                self._drop(self._unseen.pop(card))
                continue
            if unseen.note or view.get("phase") != "play":  # a round over: the piles gathered, laid out again
                continue
            # on its own pile it lies where the camera said (at the top's edge, the tracker puts it last: no order); on
            # another player's stock pile it cannot be (no card changes hands in a round), and a card lying there read
            # anew as it (TableCard.replaces) is that card: misreads, no note
            where = [
                c
                for c in update.state.where(card)
                if c.zone != unseen.zone and self._could_hold(c.zone, unseen) and c.replaces is None
            ]
            if where:
                place = self._place(where[0].zone)
                unseen.note = (
                    f"the camera sent {unseen.player}'s {card} as played under {unseen.top} on spit pile "
                    f"{unseen.pile + 1} ({unseen.how}), but {card} is seen again on {place}: if {card} was not "
                    "played (or was taken back), undo it on a phone"
                )
                self.note(unseen.note)

    def _could_hold(self, zone: str, unseen: Unseen) -> bool:
        """Whether the card of ``unseen`` could lie in ``zone``: a spit pile, or one of its player's stock piles."""
        z = self.layout.zone(zone)
        return z.kind == "spit" or (z.kind == "stock" and self.owner(zone) == unseen.player)

    def _drop(self, unseen: Unseen | None) -> None:
        if unseen is not None:
            self.unnote(unseen.note)

    def _place(self, zone: str) -> str:
        """``zone`` as the players say it (Alex's stock pile 1, spit pile 2)."""
        z = self.layout.zone(zone)
        slot = "?" if z.slot is None else z.slot + 1
        if z.kind == "spit":
            return f"spit pile {slot}"
        owner = self.owner(zone)
        return f"{owner}'s stock pile {slot}" if owner and z.kind == "stock" else zone

    def _played_on_opening(
        self, top: TableCard, pile: int, name: str, view: Mapping[str, Json], update: Update
    ) -> None:
        """``top``, ``name``'s stock top, lies on spit pile ``pile`` while the referee waits for the opening Spit!: a
        play on a spit card turned a moment before, covered before the camera could settle it as the pile's top
        (Alex's 4C on the opening 5S 100 ms after it landed: the 4C went as a play, refused, the Spit! never went and
        every play of the round was refused; spitpace audit F1, session 48). A card seen under it (at the top's edge,
        or glimpsed before it was covered: :attr:`vision.track.Update.glimpsed`) is that pile's spit card, gathered as
        if seen alone; the play waits and goes once the Spit! is in. With none seen there nothing is invented: a note
        asks for the Spit! on a phone, and the play goes after it."""
        if pile in self._spit:  # its spit card was gathered before the play covered it
            return
        spit = self._spit_card_under(top, view, update)
        if spit is not None:
            self._spit[pile], self._opening = spit, True
            return
        self.note(
            f"{name}'s {top.card} on spit pile {pile + 1} before the opening Spit!: the spit card under it was not"
            " seen, enter the Spit! on a phone"
        )

    def _played_on_spit_card(self, top: TableCard, pile: int, view: Mapping[str, Json], update: Update) -> bool:
        """Whether ``top``, a stock top on spit pile ``pile`` while the referee waits for a stall's Spit! (stalled, or
        the last call names that pile's player), waits for it: it covers a spit card turned a moment before, covered
        before the camera could settle it (Alex's 7S on his 8C 200 ms after he turned it: the 7S went as an
        illegal_play on the 10C under it and the 8C was never sent, a wrong pile for the rest of the round; session
        50), seen under it as in :meth:`_played_on_opening` and gathered as that pile's spit card; or such a card was
        gathered there already. The play goes once the Spit! is in. With none seen there it goes as it is (a stock card
        played in a stall is a foul)."""
        if view.get("phase") != "play" or not (view.get("stalled") or self._called(pile, view)):
            return False
        if pile not in self._spit:
            spit = self._spit_card_under(top, view, update)
            if spit is None:
                return False
            self._spit[pile], self._opening = spit, False
        return True

    def _spit_card_under(self, top: TableCard, view: Mapping[str, Json], update: Update) -> TableCard | None:
        """The card under ``top`` (a stock top on a spit pile) seen at its edge, or glimpsed before it was covered
        (:attr:`vision.track.Update.glimpsed`), that the referee has nowhere: a spit card (the last one seen)."""
        players = view.get("players") or {}
        stock = {str(s.get("top")) for side in players.values() for s in side.get("stock") or [] if s.get("top")}
        known = _known(view) | stock  # a stock card played before it (waiting too) is no spit card
        cards = update.state.in_zone(top.zone)
        below = next((k for k, c in enumerate(cards) if c.id == top.id), 0)
        under = [c for c in cards[:below] if c.id not in self.done and c.card not in known]
        glimpsed = [c for c in update.glimpsed if c.zone == top.zone and c.id not in self.done and c.card not in known]
        return (under or glimpsed or [None])[-1]

    def _both_on_one_pile(
        self, update: Update, view: Mapping[str, Json], waiting: list[str]
    ) -> tuple[int, TableCard, TableCard] | None:
        """A Spit! call named both players and one spit pile alone got a card: when one more new card lies there (both
        turned theirs onto the same pile, RULES.md: "onto a spit pile"), the pile, the lower of the two and the upper;
        else None (the other player has not turned theirs yet). The one gathered is the upper (the pile's top when the
        first was seen), unless the other is listed after it and something moved over the pile since it was gathered:
        then the other landed on it a moment later. The tracker lists a card by when it was first read, so the order
        alone cannot tell a card laid on the gathered one from one under it read at its edge a frame later."""
        if len(waiting) != 2 or len(self._spit) != 1 or view.get("phase") != "play":
            return None
        ((pile, top),) = self._spit.items()
        if pile >= len(self.players) or self.players[pile] not in waiting:
            return None
        known = _known(view) | set(_stock_tops(view))  # a stock card played on it (waiting too) is no spit card
        zone = next((z.name for z in self.zones("spit") if z.slot == pile), None)
        cards = update.state.in_zone(zone) if zone else ()
        other = [c for c in cards if c.id != top.id and c.id not in self.done and c.card not in known]
        if len(other) != 1:
            return None
        ids = [c.id for c in cards]
        if pile in self._stirred and top.id in ids and ids.index(top.id) < ids.index(other[0].id):
            return pile, top, other[0]  # it landed on the one gathered, a hand moving over the pile
        return pile, other[0], top  # under the one gathered: at its edge, or read there only a moment later

    def _called(self, pile: int, view: Mapping[str, Json]) -> bool:
        """Whether a new card on ``pile`` may be a spit card the last Spit! call asked for and its player turns
        only now (after the other player's went alone): that player's pile, or any pile if they are the only one."""
        called = [name for name in view.get("called") or [] if name in self.players]
        return len(called) == 1 or (pile < len(self.players) and self.players[pile] in called)

    def _turned_and_played(self, top: TableCard, pile: int, players: Mapping[str, Json]) -> Proposal | None:
        hidden = [
            (name, slot)
            for name, side in players.items()
            for slot, s in enumerate(side.get("stock") or [])
            if s.get("top") is None and int(s.get("down") or 0) > 0
        ]
        if len(hidden) != 1:
            self.note(f"{top.card} on spit pile {pile + 1}: whose card was it? enter the play by hand")
            return None
        name, slot = hidden[0]
        data = {"player": name, "card": top.card, "pile": pile, "from": slot}
        return Proposal("play", data, top.since, f"{name} turned and played {top.card}", (top.id,))

    def _flush(self, now: int, view: Mapping[str, Json], update: Update) -> list[Proposal]:
        """The gathered spit cards as one ``spit`` event, once everyone with spit cards turned one (or time is up);
        both turned onto one pile whose lower card is the second seat's: the lower card's, the upper's to follow
        (:meth:`_rest_of_split`)."""
        if self._split is not None:
            return self._rest_of_split(view)
        if not self._spit:
            return []
        if self._opening and view.get("phase") != "start":  # the opening Spit! was entered on a phone meanwhile
            self.use(*self._spit.values())
            self._spit.clear()
            self._since.clear()
            self._stirred.clear()
            self._opening = False
            return []
        players = view.get("players") or {}
        holders = [name for name, side in players.items() if int(side.get("spit_cards") or 0) > 0]
        waiting = [name for name in view.get("called") or [] if name in holders] or holders
        first = min(self._since.get(pile, c.since) for pile, c in self._spit.items())
        opening = view.get("phase") == "start"  # the opening Spit! needs everyone's card: wait for them
        if len(self._spit) < max(1, len(waiting)) and (opening or now - first < self.gather_ms):
            return []
        cards: dict[str, str] = {}
        piles: dict[str, int] = {}
        both = self._both_on_one_pile(update, view, waiting)
        turns: list[tuple[str, TableCard]] = []  # both onto one pile: who turned which, the lower first
        if both is not None:
            pile, under, top = both
            low, high = _whose(under.card, top.card, sorted(waiting, key=self.players.index), view)
            turns = [(low, under), (high, top)]
            cards, piles = {low: under.card, high: top.card}, {low: pile, high: pile}
            used: tuple[int, ...] = (under.id, top.id)
        else:
            for pile, card in sorted(self._spit.items()):
                name = waiting[0] if len(waiting) == 1 else self.players[pile] if pile < len(self.players) else None
                if name is None or name in cards:
                    self.note(f"{card.card} on spit pile {pile + 1}: whose spit card was it? enter it by hand")
                    continue
                cards[name], piles[name] = card.card, pile
            used = tuple(c.id for c in self._spit.values())
        self._stirred.clear()
        self._opening = False
        if turns and self.players.index(turns[0][0]) > self.players.index(turns[1][0]):
            # the referee lays a Spit!'s cards in seat order (scorer/spit.py: _spit_cards): the lower card the second
            # seat's, one event each in the order they lie, so the upper stays the top. The lower's goes now, the
            # upper's once the referee has the lower on the pile: both sent in one frame, the upper went in alone
            # when the lower was refused, and the lower (now under it) was never gathered again (review5 F1)
            (low, under), (high, top) = turns
            size = int(_spit_pile(view, piles[low]).get("size") or 0)
            self._split = Split(piles[low], under, low, high, top.card, first, size)
            self._spit, self._since = {piles[low]: top}, {piles[low]: first}
            self.done.add(under.id)
            return [self._lower_event(self._split)]
        self.done.update(used)
        self._spit.clear()
        self._since.clear()
        if not cards:
            return []
        said = ", ".join(f"{n}: {c}" for n, c in cards.items())
        return [Proposal("spit", {"cards": cards, "piles": piles}, first, f"Spit! ({said})", used)]

    def _lower_event(self, split: Split) -> Proposal:
        data = {"cards": {split.low: split.lower.card}, "piles": {split.low: split.pile}}
        return Proposal("spit", data, split.ts, split.reason(1), (split.lower.id,))

    def _rest_of_split(self, view: Mapping[str, Json]) -> list[Proposal]:
        """After the lower card's event of a :class:`Split`: the upper's, once the referee has the lower on the pile
        (the next frame when nothing went wrong). While the lower is refused the upper waits with it and a note asks
        for the Spit! on a phone; the lower goes again when the referee's view changes (a refused event waits for
        news), or at once after a write that failed. Once the referee has the upper there (the Spit! entered on a
        phone), or waits for no spit card any more, nothing more is sent."""
        split = self._split
        assert split is not None
        upper = self._spit.get(split.pile)
        top = _spit_pile(view, split.pile).get("top")
        called = [name for name in view.get("called") or [] if name in self.players]
        if upper is None or top == upper.card or view.get("phase") != "play" or not (called or view.get("stalled")):
            self.use(split.lower, *([upper] if upper is not None else []))
            return self._end_split()
        size = int(_spit_pile(view, split.pile).get("size") or 0)
        # the lower refused, then its player's Spit! entered on a phone onto the pile: their card is there, whatever
        # the players entered (a refusal is a misread the referee caught, so most often another card than the camera
        # read: the refused reading went again on that news, was refused again, and the upper and every later play
        # on the pile waited for ever; review1, session 52)
        entered = split.lower.id not in self.done and split.low not in called and size == split.size + 1
        if entered or (top == split.lower.card and split.lower.id not in self.voided):  # the referee has the lower
            sent = split.lower.id in self.done  # by the camera (not refused, then entered on a phone)
            self.use(split.lower, upper)
            name = split.high if split.high in called else called[0] if len(called) == 1 else None
            self._end_split()
            if name is None:
                self.note(f"{upper.card} on spit pile {split.pile + 1}: whose spit card was it? enter it by hand")
                return []
            if sent:
                both = f"both on spit pile {split.pile + 1}: {split.low} {split.lower.card} under {name} {upper.card}"
                lower, higher = f"{split.low}'s {split.lower.card} (1 of 2)", f"{name}'s {upper.card} (2 of 2)"
                entries = {split.lower.id: lower, upper.id: higher}
                order = f"{split.low}'s Spit!, then {name}'s,"
                self._pairs = [*self._pairs, Pair(both, order, entries)][-4:]
            data = {"cards": {name: upper.card}, "piles": {name: split.pile}}
            return [Proposal("spit", data, split.ts, split.reason(2), (upper.id,))]
        if split.lower.id in self.done or split.low not in called:  # sent, but the referee has it not on the pile:
            # taken as impossible, rejected on a phone before the upper went, or the pile changed on a phone; or
            # refused, and its player's Spit! entered on a phone elsewhere: the upper is not guessed
            self.use(upper)
            self._end_split()
            self.note(
                f"Spit! on spit pile {split.pile + 1}: {split.low}'s {split.lower.card} is not on it, so "
                f"{split.high}'s {upper.card} on it was not sent either: enter {split.low}'s Spit!, then "
                f"{split.high}'s, on a phone"
            )
            return []
        if self.skip(split.lower, view):  # refused, and the referee's view is as it was
            if not split.note:
                split.note = (
                    f"Spit! on spit pile {split.pile + 1}: {split.low}'s {split.lower.card} under {split.high}'s "
                    f"{upper.card} was refused, so the {upper.card} waits with it: enter {split.low}'s Spit! on a "
                    f"phone (the {split.lower.card}, or the card {split.low} turned if it was misread) and the camera "
                    f"sends {split.high}'s after it"
                )
            self.note(split.note)
            return []
        self.done.add(split.lower.id)  # news since the refusal (or the write failed): the lower goes again
        return [self._lower_event(split)]

    def rejected(self, proposal: Proposal, undone: bool) -> None:
        """As :meth:`Observer.rejected`; and one half of a split Spit! rejected on a phone while the other stands (the
        two entries taken for a duplicate: review5 F4, session 51) is a note until that one is rejected too or the
        first restored: the pile is wrong either way."""
        super().rejected(proposal, undone)
        for pair in self._pairs:
            ids = set(proposal.cards) & set(pair.entries)
            if not ids:
                continue
            pair.rejected = pair.rejected | ids if undone else pair.rejected - ids
            self.unnote(pair.note)
            pair.note = ""
            if len(pair.rejected) == 1:
                (gone,) = pair.rejected
                (stands,) = set(pair.entries) - pair.rejected
                pair.note = (
                    f"{pair.entries[gone]} was rejected on a phone, but it and {pair.entries[stands]} are one Spit! "
                    f"({pair.both}): reject {pair.entries[stands]} too and enter {pair.order} on a phone, or "
                    f"restore {pair.entries[gone]}"
                )
                self.note(pair.note)

    def _end_split(self) -> list[Proposal]:
        if self._split is not None:  # a card gathered on the other pile meanwhile stays
            self.unnote(self._split.note)
            self._spit.pop(self._split.pile, None)
            self._since.pop(self._split.pile, None)
            self._stirred.discard(self._split.pile)
        self._split = None
        return []


def _spit_pile(view: Mapping[str, Json], pile: int) -> Mapping[str, Json]:
    """Spit pile ``pile`` as the referee's view gives it (``top``, ``size``; empty if there is none)."""
    piles = view.get("spit_piles") or []
    return piles[pile] if 0 <= pile < len(piles) and isinstance(piles[pile], Mapping) else {}


def _whose(lower: str, upper: str, seats: list[str], view: Mapping[str, Json]) -> tuple[str, str]:
    """Both spit cards turned onto one pile by the two players ``seats`` (in seat order): who turned the ``lower`` and
    who the ``upper``. The camera cannot see whose hand turned which; a card the referee knows one of them holds (face
    up when they picked it up: the view's ``known``) is theirs, the other card the other's; else the lower is the
    first seat's."""
    players = view.get("players") or {}
    held = {str(card): name for name in seats for card in (players.get(name) or {}).get("known") or []}
    if held.get(lower) in seats:
        low = held[lower]
    elif held.get(upper) in seats:
        low = seats[1 - seats.index(held[upper])]
    else:
        low = seats[0]
    return low, seats[1 - seats.index(low)]


def _stock_tops(view: Mapping[str, Json]) -> dict[str, tuple[str, int]]:
    """The face-up stock tops the referee has: card -> (its player, its stock pile)."""
    return {
        str(stock["top"]): (name, slot)
        for name, side in (view.get("players") or {}).items()
        for slot, stock in enumerate(side.get("stock") or [])
        if stock.get("top")
    }


def _known(view: Mapping[str, Json]) -> set[str]:
    """The cards the referee has face up on the spit piles or covered there."""
    piles = view.get("spit_piles") or []
    return {str(c) for c in view.get("covered") or []} | {str(p.get("top")) for p in piles if p.get("top")}


def _pile_of(zone: Zone, view: Mapping[str, Json]) -> int | None:
    """The spit pile a spit zone holds: its own, or in a round with a single spit pile that one, wherever it lies
    (laid in the right-hand zone, every camera event of the round was refused for a pile 2 the round has not)."""
    return 0 if view.get("single_pile") and zone.slot is not None else zone.slot


@functools.cache
def _near_cards(ace_wraps: bool, same_rank: bool) -> dict[str, frozenset[str]]:
    """For each card, the cards that may go on it under these house rules (the referee's own ``fits``)."""
    deck = standard_deck()
    rules = Rules(ace_wraps=ace_wraps, same_rank_allowed=same_rank)
    return {str(top): frozenset(str(c) for c in deck if fits(c, top, rules)) for top in deck}
