"""Push: cards laid in a player's meld strip (``melds/<seat>``) become ``meld`` and ``layoff`` events while the
deal is played, and the hands laid down after it become the ``deal_end`` event.

* New cards (not yet in one of the referee's melds, not yet reported) are grouped by distance: cards within
  ``join_mm`` of each other are one group. A group touching the cards of exactly one referee meld is a
  ``layoff`` onto that meld by the player in turn; a group touching none is a new meld of the strip's owner
  (``set`` when its natural cards share a rank, else ``run``; one that can be either, with one natural card
  among wilds, takes the kind a first meld's requirement still needs); all new melds of one player go in one
  ``meld`` event (a first meld must make the deal's requirement at once). The referee judges them.
* A player lays down several cards one after another, so nothing is sent until the strip has been still
  for ``settle_ms`` and no card seen in it is still settling (for up to ``3 * settle_ms``), nor was a moment ago
  (``grace_frames``), nor a hand over it (a card the detector misses in the first frames after the hand lifts,
  or in one while it settles, is still waited for); a lay-off is the player's who was in turn when its card landed.
  New melds the referee would refuse, and that one card more would make melds it takes (a meld of two cards, a run
  of 3 where the requirement needs 4), wait ``2 * settle_ms`` longer for a card the detector missed for a while
  (:meth:`PushObserver._waits`), and the other strips' news with them (it keeps the order the cards were laid in);
  then they go as they lie. New cards laid (or first seen) later by the cards of such a meld event, refused, that
  still lie there go with those cards when that makes a meld event the referee takes (:meth:`PushObserver._revived`);
  else on their own. Before the player's first meld, new cards anywhere in the strip do (a requirement's second set
  laid apart, after a pause).
* When the deal is over (the referee's ``counting`` phase) each player lays their remaining hand face up in
  their strip; once every hand the score needs is shown in full (the referee knows how many cards each holds)
  and still for ``settle_ms``, or after ``3 * settle_ms`` with what is shown (once each needed hand the referee does
  not know shows a card: the referee refuses a ``deal_end`` without it), the hands go as ``deal_end``. A
  card of the same face as one of its owner's melds counts as that meld's only while another card of the meld
  lies there too: with the melds cleared away it is the hand's (the other copy, in two decks). The cards of a
  camera meld event the referee refused (still in the hand) that lie there are the hand's too, also once a phone
  rejected that event.

Draws, pushes, discards and wild swaps are entered on the phones: the stock is face down and a drawn card goes
into a hand the camera cannot see. A natural laid where a meld's wild was, while that wild lies away from its
meld, is taken for a swap: no lay-off is sent, a note asks for the Swap on a phone, and once it is entered the
wild laid onto another meld is sent as that lay-off.

Where the referee knows the hands in full (the deal and every draw entered with its card), a card in a player's
strip is one of the cards already melded, one that player holds, or, once that player has a meld to lay off onto,
one the player in turn holds (a lay-off):
:meth:`PushObserver.possible`, so a reading of any other card is re-read as the likeliest one it can be.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence, Set
from dataclasses import dataclass, field
from typing import Any

from scorer.cards import CardError, parse_face
from scorer.push_melds import REQUIREMENTS, Meld, check_meld, meets_requirement
from vision.observers import Observer, Proposal
from vision.track import TableCard, Update
from vision.zones import Layout

__all__ = ["COMEBACK_MM", "COMEBACK_MS", "PushObserver", "meld_kind"]

Json = Any
#: a card that left a strip and is seen again this close to where it lay is the same card: its reading point may
#: move from the card's centre (both indices read) to the one index left in view (about half a card's diagonal)
COMEBACK_MM = 55.0
#: ... if it comes back within this time (and in the same deal)
COMEBACK_MS = 30_000


def _is_wild(card: str) -> bool:
    return card == "JK" or card[:-1] == "2"


def meld_kind(cards: Sequence[str]) -> str:
    """``set`` when the natural cards share one rank, else ``run``."""
    ranks = {c[:-1] for c in cards if not _is_wild(c)}
    return "set" if len(ranks) <= 1 else "run"


@dataclass
class PushObserver(Observer):
    game = "push"
    table_events = frozenset({"meld", "layoff", "deal_end"})
    join_mm: float = 80.0
    settle_ms: int = 1000
    _turns: list[tuple[int, str]] = field(default_factory=list)  # (time, player in turn from then on)
    _left: list[tuple[int, TableCard]] = field(default_factory=list)  # (when, a card already sent) left a strip
    _deal: Json = None
    #: a strip waits this many frames after it was last covered or had a card landing in it: a card the detector
    #: misses in the first frame or two after the hand that laid it lifts (or in a frame while it lands) is not seen
    #: landing then, and the strip's settled cards went without it (7S 7H as a meld, the JK as another: session 48)
    grace_frames: int = 3
    _landing: dict[str, int] = field(default_factory=dict)  # strip -> since when a card there is seen but not settled
    _covered: dict[str, int] = field(default_factory=dict)  # strip -> frames since a hand covered it (a moment ago)
    _lost: dict[str, int] = field(default_factory=dict)  # strip -> frames since a card was landing there (a moment ago)
    #: seat -> (its new meld cards, since when they have been ready to go): a meld event the referee would refuse
    #: waits ``2 * settle_ms`` longer (:meth:`_waits`)
    _ready: dict[int, tuple[frozenset[int], int]] = field(default_factory=dict)
    #: (deal, seat, its cards): a camera meld event the referee refused (a meld that is none, or a first meld short of
    #: the requirement), whose cards may still lie in the strip: a new card by them goes with them (:meth:`_revived`)
    _refused: list[tuple[Json, int, frozenset[int]]] = field(default_factory=list)

    def possible(self, view: Mapping[str, Json]) -> dict[str, frozenset[str]]:
        """Each meld strip: the cards in the referee's melds and those its owner holds, and, once the owner has a
        meld there to lay off onto, those the player in turn holds; where the referee knows those hands in full
        (else no rule for that strip). A strip without its owner's meld takes only the owner's cards: a meld is
        often seen to settle after the turn has passed, when the next player's hand would let a misread through."""
        hands = view.get("hands") or {}
        melds = view.get("melds") or []
        melded = {str(c) for meld in melds for c in meld.get("cards") or []}
        owners = {meld.get("owner") for meld in melds}
        out = {}
        for zone in self.zones("melds"):
            cards = set(melded)
            owner = self.owner(zone.name)
            for name in {owner, view.get("turn") if owner in owners else None} - {None}:
                hand = hands.get(name) or {}
                known = [str(c) for c in hand.get("known") or []]
                if not hand or len(known) < int(hand.get("count") or 0):
                    break
                cards.update(known)
            else:
                out[zone.name] = frozenset(cards)
        return out

    def observe(self, update: Update, view: Mapping[str, Json]) -> list[Proposal]:
        phase = view.get("phase")
        turn = view.get("turn")
        if isinstance(turn, str) and (not self._turns or self._turns[-1][1] != turn):
            if len(self._turns) >= 2 and self._turns[-2][1] == turn:  # back to the one before: an undo (turns go
                self._turns.pop()  # round to the left), so the last one never was (a discard entered too early)
            else:
                self._turns.append((update.ts, turn))
                del self._turns[:-16]
        if self._deal is not None and view.get("deal") != self._deal:  # a new deal: what lies now is the old one's
            self.use(*(c for zone in self.zones("melds") for c in update.state.in_zone(zone.name)))
        self._remember_left(update, view.get("deal"))
        self._follow_landing(update)
        if phase not in ("play", "counting"):
            return []
        new: dict[int, list[TableCard]] = {}
        old: dict[int, list[tuple[TableCard, int]]] = {}
        rejected: dict[int, list[TableCard]] = {}  # cards of a camera meld a player rejected, still lying there
        revived: set[int] = set()  # cards of a refused camera meld news again (:meth:`_revived`)
        for zone in self.zones("melds"):
            if zone.owner is None or zone.owner >= len(self.players):
                continue
            cards = update.state.in_zone(zone.name)
            placed, fresh = self._split(cards, self.players[zone.owner], view)
            again = self._revived(zone.owner, cards, placed, fresh, view)
            fresh += again
            revived.update(c.id for c in again)
            old[zone.owner], new[zone.owner] = placed, fresh
            laid = {card.id for card, _ in placed}
            rejected[zone.owner] = [c for c in cards if c.id in self.voided and c.id not in laid]
            # someone is still laying cards down (a hand over the strip counts in _is_landing: _follow_landing)
            if self._is_landing(zone.name) or (fresh and update.ts - max(c.since for c in fresh) < self.settle_ms):
                self._ready.clear()
                return []
        if phase == "counting":
            end = self._deal_end(new, view, update.ts, revived)
            return [end] if end else []
        # a seat's melds that wait for a missed card hold the other strips' news too: sent first, another player's
        # meld laid after them went before them, and the referee judged theirs out of turn (review1, session 51)
        waiting = [
            seat for seat, fresh in new.items() if self._waits(seat, fresh, old, view, rejected[seat], update.ts)
        ]
        if waiting:
            return []
        out = []
        for seat, fresh in new.items():
            out += self._melds(seat, fresh, old, view, rejected[seat])
        return out

    def judged(
        self,
        proposal: Proposal,
        rulings: Sequence[Any],
        before: Mapping[str, Json] | None,
        after: Mapping[str, Json] | None,
    ) -> None:
        super().judged(proposal, rulings, before, after)
        self._refused = [r for r in self._refused if not r[2] & set(proposal.cards)]  # sent again: that one now
        codes = {getattr(r, "code", "") for r in rulings}
        if proposal.type == "meld" and codes & {"invalid_meld", "requirement_not_met"} and after is not None:
            seat = self.players.index(str(proposal.data.get("player")))
            self._refused = [*self._refused, (after.get("deal"), seat, frozenset(proposal.cards))][-8:]

    def _revived(
        self,
        seat: int,
        cards: Sequence[TableCard],
        placed: Sequence[tuple[TableCard, int]],
        fresh: Sequence[TableCard],
        view: Mapping[str, Json],
    ) -> list[TableCard]:
        """The cards of a camera meld event of the seat's that the referee refused this deal, still lying in the strip
        (none of them in a referee's meld since, nor rejected on a phone), once new cards by them (and by no meld of
        the referee's: a lay-off) make with them a meld event the referee takes (:meth:`_is_taken`): news again, with
        those cards. The meld's last card (or last two) laid or first seen after the first cards went made a meld of
        its own, refused too: Alex's 7S 7H JK and 8D 8C went, refused (requirement_not_met), then the 8S alone
        (session 52). Before the seat's first meld of the deal every such card goes again, with new cards anywhere in
        the strip (the requirement is judged on the event as a whole: its second set laid apart more than a second
        after the first went as a meld of its own, refused too; review2, session 52); after it, those of the groups
        the new cards touch. New cards that mend nothing go as before, on their own (nothing refused is sent again,
        nor waits)."""
        records = [ids for deal, owner, ids in self._refused if (deal, owner) == (view.get("deal"), seat)]
        if not records:  # (every frame, every strip: most often none)
            return []
        laid = {card.id for card, _ in placed}
        news = [f for f in fresh if not any(math.dist(c.point, f.point) <= self.join_mm for c, _ in placed)]
        first = not ((view.get("hands") or {}).get(self.players[seat]) or {}).get("laid")
        out: list[TableCard] = []
        # a card news again by itself (its event sent again and refused, or its write failed: no longer sent) is in
        # ``fresh`` already: taken once more, the event named it twice (Alex's 7S 7S 7H 7H JK JK, refused as more cards
        # than he holds, and so again at each change of the game; review4, session 52)
        out_of_it = laid | self.voided | {f.id for f in fresh}
        counting = view.get("phase") == "counting"
        for ids in records:
            if counting:  # the deal is over: a refused meld's cards are its player's hand still (the referee kept them
                # there), laid down with the rest of it (left out, the hand went short: cards_unaccounted; review4),
                # even once a phone rejected that event (undone, they are in the hand as before: review5, session 52)
                out += [c for c in cards if c.id in ids and c.id not in laid and c not in fresh and c not in out]
                continue
            lying = [c for c in cards if c.id in ids and c.id not in out_of_it]
            groups = self._groups(lying)
            touched = [g for g in groups if any(math.dist(c.point, f.point) <= self.join_mm for c in g for f in news)]
            # before the first meld, new cards anywhere in the strip (a requirement's second set laid apart, after a
            # pause: its first set went alone, refused, then the second, refused too; review2, session 52)
            out += [c for g in (groups if first and news else touched) for c in g if c not in out]
        melds = [[c.card.split("/")[0] for c in g] for g in self._groups([*news, *out])]
        return out if out and (counting or self._is_taken(seat, melds, view)) else []

    def _follow_landing(self, update: Update) -> None:
        """Each frame: since when a card is landing in each zone (seen there and not settled yet: the tracker's
        ``unsettled``), and for fewer than ``grace_frames`` frames after it, how many frames ago each zone was last
        covered (frozen) or had a card landing (for less than ``3 * settle_ms``: one seen there longer, a third copy
        of a card that never settles, holds nothing up, nor leaves a grace)."""
        self._landing = {zone: self._landing.get(zone, update.ts) for zone in update.unsettled}
        landing = {zone for zone, since in self._landing.items() if update.ts - since < 3 * self.settle_ms}
        for quiet, busy in ((self._covered, set(update.frozen)), (self._lost, landing)):
            for zone in set(quiet) | busy:
                frames = 0 if zone in busy else quiet[zone] + 1
                if frames < self.grace_frames:
                    quiet[zone] = frames
                else:
                    del quiet[zone]
        for zone in set(self._landing) - landing:
            self._lost.pop(zone, None)

    def _is_landing(self, zone: str) -> bool:
        """Whether ``zone`` waits for a card landing there: one seen and not settled yet, for less than
        ``3 * settle_ms``, or, within ``grace_frames`` frames, one seen so a moment ago or a hand over the strip.
        The strip's settled cards wait: their own time may be long past (the hand rested over the strip, or the
        detector failed, while the last card was laid), and the first two of three cards went as a meld; so they
        did when the detector missed the last card in the first frame after the hand lifted, or in a frame while
        it was settling (session 48)."""
        return zone in self._covered or zone in self._lost

    def _split(
        self, cards: Sequence[TableCard], owner: str, view: Mapping[str, Json]
    ) -> tuple[list[tuple[TableCard, int]], list[TableCard]]:
        """The zone's cards that belong to the referee's melds of ``owner`` (with the meld number), and the new ones."""
        wanted: list[tuple[str, int]] = [
            (c, int(m["number"]))
            for m in view.get("melds") or []
            if m.get("owner") == owner
            for c in m.get("cards") or []
        ]
        placed, fresh = [], []
        counts = Counter(name for name, _ in wanted)
        anchors: dict[int, list[TableCard]] = {}  # meld -> its cards of a name no other meld of the owner has
        for card in cards:
            number = next((n for name, n in wanted if name == card.card.split("/")[0] and counts[name] == 1), None)
            if number is not None:
                anchors.setdefault(number, []).append(card)
        # a name in several melds (two jokers, two 2s in two melds: two decks) goes to the nearest of them
        order = sorted(cards, key=lambda c: counts[c.card.split("/")[0]] > 1)
        for card in order:
            name = card.card.split("/")[0]
            spots = [i for i, (wanted_name, _) in enumerate(wanted) if wanted_name == name]
            spot = min(spots, key=lambda i: _reach(card, anchors.get(wanted[i][1], [])), default=None)
            if spot is not None:
                placed.append((card, wanted.pop(spot)[1]))
            elif self._came_back(card):
                self.use(card)
            elif not self.skip(card, view):
                fresh.append(card)
        if view.get("phase") == "counting":  # hands are laid down now, often after the melds were cleared away:
            seen = Counter(number for _, number in placed)  # a card alone of its meld is a hand's (two decks)
            gone = [(c, n) for c, n in placed if seen[n] < 2 and c.id not in self.done and not self.skip(c, view)]
            placed = [pair for pair in placed if pair not in gone]
            fresh += [c for c, _ in gone]
        return placed, fresh

    def _remember_left(self, update: Update, deal: Json) -> None:
        """Keep the strips' cards already sent that leave (for :meth:`_came_back`), for this deal only."""
        if deal != self._deal:
            self._deal, self._left = deal, []
        self._left += [
            (update.ts, c.card)
            for c in update.changes
            if c.kind == "leave" and c.card.id in self.done and self.layout.zone(c.card.zone).kind == "melds"
        ]
        self._left = [(ts, card) for ts, card in self._left if update.ts - ts <= COMEBACK_MS][-32:]

    def _came_back(self, card: TableCard) -> bool:
        """Whether ``card`` is one already sent that left its strip and lies again where it lay (see the module
        doc); if so it is taken off the list (it counts once), and it stays in the camera meld event the referee
        refused that it was in (:meth:`_revived`: the refused first set, hidden by a hand resting over it, was not known
        again, and the second set went alone, refused too; review4, session 52)."""
        if card.id in self.done:
            return False
        for i, (_, old) in enumerate(self._left):
            if old.card == card.card and old.zone == card.zone and math.dist(old.point, card.point) <= COMEBACK_MM:
                del self._left[i]
                self._refused = [(d, s, ids | {card.id} if old.id in ids else ids) for d, s, ids in self._refused]
                return True
        return False

    def void(self, proposal: Proposal) -> None:
        """As :meth:`Observer.void`, and the cards of a refused meld event seen again under new ids (:meth:`_came_back`)
        with them: the same cards, rejected on a phone as well (only the old ids were, so the refused 7S 7H JK, hidden a
        while by a resting hand and then rejected, went again with the 8s laid later; review5, session 52)."""
        super().void(proposal)
        self.voided.update(self._same_cards(proposal))

    def rejected(self, proposal: Proposal, undone: bool) -> None:
        super().rejected(proposal, undone)
        if not undone:  # restored: the cards seen again under new ids stand again too
            self.voided.difference_update(self._same_cards(proposal))

    def _same_cards(self, proposal: Proposal) -> set[int]:
        """The new ids of ``proposal``'s cards seen again where they lay (its refused meld event's record)."""
        ids = set(proposal.cards)
        return {i for _, _, record in self._refused if record & ids for i in record} - ids

    def _groups(self, cards: Sequence[TableCard]) -> list[list[TableCard]]:
        """Cards within ``join_mm`` of each other, group by group from the zone owner's left."""
        groups: list[list[TableCard]] = []
        for card in cards:
            near = [g for g in groups if any(math.dist(card.point, o.point) <= self.join_mm for o in g)]
            merged = [card] + [c for g in near for c in g]
            groups = [g for g in groups if g not in near] + [merged]
        return sorted(groups, key=lambda g: min(_along(c, self.layout) for c in g))

    def _turn_at(self, ts: int, fallback: str) -> str:
        """Who was in turn at ``ts`` (a card laid off is the player's in turn when it landed)."""
        return next((name for since, name in reversed(self._turns) if since <= ts), fallback)

    def _melds(
        self,
        seat: int,
        fresh: list[TableCard],
        old: Mapping[int, list[tuple[TableCard, int]]],
        view: Mapping[str, Json],
        rejected: Sequence[TableCard] = (),
    ) -> list[Proposal]:
        if not fresh:
            return []
        placed = [pair for pairs in old.values() for pair in pairs]
        moved = self._wilds_moved(placed)
        melds, layoffs = [], []
        for group in self._groups(fresh):
            near = [c for c in rejected if any(math.dist(c.point, g.point) <= self.join_mm for g in group)]
            if near:  # by a meld whose camera event was rejected: a lay-off once the players enter that meld again
                self.note(
                    f"{', '.join(c.card for c in group)} lies by {', '.join(c.card for c in near)}, a meld rejected on "
                    "a phone: enter that meld again, then the lay-off is seen"
                )
                continue  # not used: once the meld is the referee's, these cards touch it
            touching = {n for card, n in placed if any(math.dist(card.point, g.point) <= self.join_mm for g in group)}
            if len(touching) == 1 and min(touching) in moved:  # a natural in the place of a wild moved away
                wild = moved[min(touching)]
                self.note(
                    f"{wild.card} moved away from meld {min(touching)} and {', '.join(c.card for c in group)} lies "
                    "there: a wild swap? enter the Swap on a phone"
                )
                continue  # not used: once the swap is entered, the natural is the meld's and the wild is news
            if len(touching) > 1:
                self.note(
                    f"{', '.join(c.card for c in group)} touch melds {sorted(touching)}: enter the lay-off by hand"
                )
                self.use(*group)
            elif touching:
                layoffs.append((touching.pop(), group))
            else:
                melds.append(group)
        out = []
        ts = max(c.since for c in fresh)
        if melds:
            kinds = self._kinds(seat, [[c.card for c in g] for g in melds], view)
            body = [{"kind": kind, "cards": _names(g, self.layout)} for kind, g in zip(kinds, melds, strict=True)]
            cards = tuple(c.id for g in melds for c in g)
            self.done.update(cards)
            text = "; ".join(" ".join(m["cards"]) for m in body)
            out.append(
                Proposal(
                    "meld",
                    {"player": self.players[seat], "melds": body},
                    ts,
                    f"{self.players[seat]} melded {text}",
                    cards,
                )
            )
        for number, group in layoffs:
            self.use(*group)
            turn = self._turn_at(min(c.since for c in group), str(view.get("turn") or self.players[seat]))
            names = _names(group, self.layout)
            data = {"player": turn, "meld": number, **_origin(view, number), "cards": names}
            reason = f"{turn} laid off {' '.join(names)} on meld {number}"
            out.append(Proposal("layoff", data, ts, reason, tuple(c.id for c in group)))
        return out

    def _waits(
        self,
        seat: int,
        fresh: Sequence[TableCard],
        old: Mapping[int, list[tuple[TableCard, int]]],
        view: Mapping[str, Json],
        rejected: Sequence[TableCard],
        now: int,
    ) -> bool:
        """Whether the seat's new melds, ready to go, wait for a card of theirs the detector has not seen yet: a meld
        event the referee would refuse that one card more would make one it takes (a meld of two cards, a run of 3
        where the deal's requirement needs 4) waits until it has been ready for ``2 * settle_ms``. The detector can
        miss a card for a while after it landed (after the hand that laid it lifts, or a detector outage): the first
        cards went as a meld of their own, refused, and the last as another (session 51). A new card makes it wait
        anew (it was ready to go only while nothing was landing); a card that never comes lets it go as it lies, and
        the referee's foul says why. A refusal one card cannot mend (a single set when two are needed, a lone card)
        goes at once, as before."""
        placed = [card for pairs in old.values() for card, _ in pairs]
        melds = [
            [c.card.split("/")[0] for c in group]
            for group in self._groups(fresh)
            if not any(math.dist(c.point, g.point) <= self.join_mm for c in [*placed, *rejected] for g in group)
        ]
        short = not self._is_taken(seat, melds, view) and any(
            self._is_taken(seat, [[*m, "JK"] if i == k else m for i, m in enumerate(melds)], view)
            for k in range(len(melds))
        )
        if not short:
            self._ready.pop(seat, None)
            return False
        ids = frozenset(c.id for c in fresh)
        cards, since = self._ready.get(seat, (ids, now))
        self._ready[seat] = (ids, since if cards == ids else now)
        return now - self._ready[seat][1] < 2 * self.settle_ms

    def _is_taken(self, seat: int, melds: Sequence[Sequence[str]], view: Mapping[str, Json]) -> bool:
        """Whether the referee would take ``melds`` (card names) as the seat's ``meld`` event (as
        :func:`scorer.push._meld` judges it): each a valid meld of its kind (:meth:`_kinds`), and the seat's first
        meld of the deal making the deal's requirement. A name that is no card counts as taken: no card helps it."""
        try:
            faces = [[parse_face(name) for name in meld] for meld in melds]
        except CardError:
            return True
        distinct = bool(self.options.get("set_suits_distinct"))
        kinds = self._kinds(seat, melds, view)
        checked = [check_meld(k, cards, distinct_suits=distinct) for k, cards in zip(kinds, faces, strict=True)]
        valid: list[Meld] = [c.meld for c in checked if c.meld is not None]
        if len(valid) < len(checked):
            return False
        hand = (view.get("hands") or {}).get(self.players[seat]) or {}
        deal = view.get("deal")
        return bool(hand.get("laid")) or deal not in REQUIREMENTS or meets_requirement(valid, int(deal))

    def _wilds_moved(self, placed: Sequence[tuple[TableCard, int]]) -> dict[int, TableCard]:
        """The referee's melds whose wild lies away from all its other cards (more than ``join_mm``): taken out
        of the meld, as in a swap of a natural for it (meld number -> that wild). A wild whose name is in several
        melds (two jokers in two melds) is matched to them by name, not by place, so either may seem away: such a
        meld's wild is away only when no card of that name lies by the meld's other cards (a joker swapped out of
        the kings and laid by the fours, which have a joker of their own, was no swap, and the natural in its place
        went as a lay-off: session 52)."""
        names = Counter(card.card for card, _ in placed)
        out = {}
        for card, number in placed:
            others = [c for c, n in placed if n == number and c is not card]
            if not _is_wild(card.card.split("/")[0]) or not others:
                continue
            copies = [c for c, _ in placed if c.card == card.card] if names[card.card] > 1 else [card]
            if all(min(math.dist(c.point, o.point) for o in others) > self.join_mm for c in copies):
                out[number] = card
        return out

    def _kinds(self, seat: int, melds: Sequence[Sequence[str]], view: Mapping[str, Json]) -> list[str]:
        """Each new meld's kind (:func:`meld_kind`); one that can be either (one natural card or none, among
        wilds), in a player's first meld of the deal, takes a kind the deal's requirement still needs, as the
        player would declare it: a run first where one of its size is still needed."""
        kinds = [meld_kind(cards) for cards in melds]
        hand = (view.get("hands") or {}).get(self.players[seat]) or {}
        deal = view.get("deal")
        need = [] if hand.get("laid") or not isinstance(deal, int) else list(REQUIREMENTS.get(deal, ()))
        either = [sum(not _is_wild(c) for c in cards) <= 1 for cards in melds]
        for i, cards in enumerate(melds):  # the melds whose kind is plain take their part of the requirement first
            fits = [j for j, (kind, size) in enumerate(need) if kind == kinds[i] and size <= len(cards)]
            if not either[i] and fits:
                need.pop(fits[0])
        for i, cards in enumerate(melds):
            for kind in ("run", "set") if either[i] else ():
                fits = [j for j, (wanted, size) in enumerate(need) if wanted == kind and size <= len(cards)]
                if fits:
                    kinds[i] = kind
                    need.pop(fits[0])
                    break
        return kinds

    def _deal_end(
        self, new: Mapping[int, list[TableCard]], view: Mapping[str, Json], now: int, revived: Set[int] = frozenset()
    ) -> Proposal | None:
        hands = view.get("hands") or {}
        out = view.get("out")
        needed = [n for s, n in enumerate(self.players) if out is None or s % 2 != self.players.index(out) % 2]
        shown = {self.players[s]: cards for s, cards in new.items() if cards}
        complete = all(len(shown.get(n, [])) == int((hands.get(n) or {}).get("count") or 0) for n in needed)
        if not complete:  # a hand shown only as a refused meld's cards left lying is not laid down yet: it went as
            # those cards alone 3 s after the other hands, and the referee scored it short (review5, session 52)
            shown = {n: cards for n, cards in shown.items() if any(c.id not in revived for c in cards)}
        latest = max((c.since for cards in shown.values() for c in cards), default=None)
        if latest is None or (not complete and now - latest < 3 * self.settle_ms):
            return None
        if not complete and any(n not in shown and _unknown(hands.get(n)) for n in needed):
            # a hand the referee needs and does not know, not laid down yet, holds the others up: sent without it,
            # the referee refused them (needed to score) and held their cards while the game stood still, so the hand
            # laid later went alone, refused too, and no deal_end ever counted (review5 F5, session 52)
            return None
        data: dict[str, Json] = {"hands": {n: _names(cards, self.layout) for n, cards in shown.items()}}
        if out:
            data["out"] = out
        ids = tuple(c.id for cards in shown.values() for c in cards)
        self.done.update(ids)
        counts = ", ".join(f"{n} {len(c)}" for n, c in shown.items())
        return Proposal("deal_end", data, latest, f"hands shown at the end of the deal: {counts}", ids)


def _unknown(hand: Json) -> bool:
    """Whether the referee's view of a hand leaves some of its cards unknown (it must be shown to score the deal)."""
    if not isinstance(hand, Mapping):
        return False
    known = hand.get("known")
    return int(hand.get("count") or 0) > (len(known) if isinstance(known, list) else 0)


def _reach(card: TableCard, others: Sequence[TableCard]) -> float:
    """How far ``card`` lies from the nearest of ``others`` (infinitely far from none)."""
    return min((math.dist(card.point, o.point) for o in others), default=math.inf)


def _along(card: TableCard, layout: Layout) -> float:
    """How far right the card lies as its zone's owner sees it."""
    (x0, y0), (x1, y1) = layout.zone(card.zone).polygon[:2]
    return (card.point[0] - x0) * (x1 - x0) + (card.point[1] - y0) * (y1 - y0)


def _names(cards: Sequence[TableCard], layout: Layout) -> list[str]:
    """Card names in the order they lie, left to right as the zone's owner sees them."""
    return [c.card for c in sorted(cards, key=lambda c: _along(c, layout))]


def _origin(view: Mapping[str, Json], number: int) -> dict[str, Json]:
    """The ``origin`` of meld ``number`` as the referee's view names it (the event that laid it), for a lay-off:
    a correction of an earlier meld renumbers the melds, and a lay-off by number alone then lands on another."""
    melds = view.get("melds")
    if isinstance(melds, list):
        for meld in melds:
            if isinstance(meld, Mapping) and meld.get("number") == number and isinstance(meld.get("origin"), list):
                return {"origin": list(meld["origin"])}
    return {}
