"""Observers: per game, stable table changes become the same events a phone would send.

An observer reads each :class:`vision.track.Update` together with the referee's current ``view`` (the game's
own ``view(state)``, plain JSON) and proposes events (:class:`Proposal`). It never applies them: the live
pipeline appends them to the game with ``source: "vision"``, and the referee judges them like any other
event. A player rejects a wrong one from the phone with an ``undo`` (or ``correct``) of it.

Rules every observer keeps:

* **At most one event per card sighting.** A stable card (:attr:`vision.track.TableCard.id`) proposes at most
  one event, so an event a player rejected is not sent again; a card read anew under another name
  (:attr:`vision.track.TableCard.replaces`) after its event was sent makes a note, not a second event (until that
  event is rejected: then the new reading is news, :meth:`Observer.void`); a card
  that leaves and comes back is a new sighting but is checked against the referee first (a card the referee
  already has there is no event).
* **An impossible reading is no sighting.** When the referee refuses an event, or takes it with an ``error``
  ruling that leaves the game as it was (the record cannot be right: a Spades card already played in an earlier
  trick), the reading was wrong: a later reading of the same card under another name is news, not a re-read of
  something sent. A name already voided for that card is not sent again.
* **The referee is the memory.** An observer keeps no copy of the game; it compares the stable table with
  the referee's view, so manual entries from the phones and camera events mix freely.
* **A refused event waits for news.** When the referee refuses a proposal (say a Push meld with a card its
  player does not hold: a misreading), its cards may be proposed again once the referee's view has changed, not
  before. So may, once, those of an event taken as a foul of timing that does not count
  (:attr:`Observer.retry_fouls`: a Spades card ruled out of turn because the camera missed the card before it: once
  the players enter that card, it counts). The same holds for an event that counted until a change on a phone
  re-ruled it into such a foul (:meth:`Observer.reruled`, told by :meth:`vision.links.CameraEvents.follow`). A
  card whose event a phone corrected goes again as corrected, whatever the camera reads then
  (:meth:`Observer.corrected`).
* **What the camera cannot see is not guessed**: face-down cards, bids, calls, layouts are entered on the
  phones. Something the observer cannot explain becomes a note on the dashboard, not an event.
* **What the referee knows narrows what a card can be** (:meth:`Observer.possible`): where the game knows which
  cards a zone can hold (Spades once the hands are entered; Snap once a player's face-down pile holds cards the
  referee saw go there), the tracker reads a card there among those cards
  (:func:`vision.sightings.sightings`): one it rules out is re-read as the likeliest one it allows. Only what a
  player *holds* rules a card out. What it would be *legal* to play (:meth:`Observer.likely`) only tips a doubtful
  reading: a foul is taken as ``foul_prior`` times as likely as a legal card, as a referee who knows the rules
  would weigh a smudged index, so a card plainly seen is still seen as itself and the referee flags the foul.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from scorer.cards import standard_deck
from vision.track import TableCard, Update
from vision.zones import Layout, Zone

__all__ = ["DECK", "OBSERVERS", "Observer", "Proposal", "fingerprint", "observer_for"]

Json = Any
DECK = frozenset(str(c) for c in standard_deck())  # a standard deck's names, for what a zone can hold
#: a card refused, ruled impossible or rejected that left its zone and is seen again this close to where it lay, read
#: as it was, within RETURN_MS, is the same card (a hand resting still over it hid it): :meth:`Observer.recall`
RETURN_MM = 55.0
RETURN_MS = 30_000


@dataclass(frozen=True)
class Proposal:
    """An event the camera proposes: ``type`` and payload as the game's vocabulary has them; ``ts`` is the
    time (tracker clock, ms) of the frame that showed it; ``cards`` the stable cards it is based on."""

    type: str
    data: Mapping[str, Json]
    ts: int
    reason: str
    cards: tuple[int, ...] = ()

    def body(self) -> dict[str, Json]:
        """The event as the web API and ``Session`` take it (without seq/ts/source)."""
        return {"type": self.type, **dict(self.data)}


@dataclass
class Observer:
    """The common part: seats, zones, notes, and the sightings already used."""

    layout: Layout
    players: tuple[str, ...]
    done: set[int] = field(default_factory=set)
    notes: list[str] = field(default_factory=list)
    held: dict[int, str] = field(default_factory=dict)  # card id -> the referee's view when it was refused
    voided: set[int] = field(default_factory=set)  # cards whose event the referee took as impossible (an error)
    names: dict[int, str] = field(default_factory=dict)  # card id -> the name it was read as
    chain: dict[int, int] = field(default_factory=dict)  # card id -> the first card of its chain of re-reads
    readings: dict[int, list[int]] = field(default_factory=dict)  # chain -> its cards, in the order read
    void_names: dict[int, set[str]] = field(default_factory=dict)  # chain -> the names voided on it
    retried: set[int] = field(default_factory=set)  # cards sent again after a foul that did not count
    deferred: dict[int, tuple[int, str]] = field(default_factory=dict)  # a re-read card -> the card whose event
    # stood when it was read (so it made a note, not an event) and that note: news again if that event is rejected
    options: Mapping[str, Json] = field(default_factory=dict)  # the game's house rules (all of them, resolved)
    lost: list[tuple[int, TableCard, str]] = field(default_factory=list)  # (when, a refused or voided card, the
    # referee's view) it left
    reruled_notes: dict[int, str] = field(default_factory=dict)  # card id -> the note of :meth:`reruled` on it
    told: dict[int, dict[str, Json]] = field(default_factory=dict)  # chain -> its event as a phone corrected it

    game = ""
    #: fouls of timing that leave the game as it was, after which the same card may count once the game has moved on
    #: (:meth:`idle`); a foul of what was read (a Push meld that is no meld) is not sent again
    retry_fouls: ClassVar[frozenset[str]] = frozenset()
    #: the events it sends that lay cards on the table (a card lying there when the camera starts that one of these
    #: named was played before: :meth:`vision.links.CameraEvents.settle`)
    table_events: ClassVar[frozenset[str]] = frozenset()

    def __post_init__(self) -> None:
        self.players = tuple(self.players)
        if self.layout.players != len(self.players):
            raise ValueError(f"the table layout is for {self.layout.players} players, the game has {len(self.players)}")

    def observe(self, update: Update, view: Mapping[str, Json]) -> list[Proposal]:
        raise NotImplementedError

    def possible(self, view: Mapping[str, Json]) -> dict[str, frozenset[str]]:
        """The cards each zone can hold, for the zones where the referee's ``view`` tells (none by default)."""
        return {}

    def likely(self, view: Mapping[str, Json]) -> dict[str, frozenset[str]]:
        """The cards a zone would hold if the players keep the rules (the legal plays), where the ``view`` tells:
        a doubtful reading there leans to them (``TrackSettings.foul_prior``). None by default."""
        return {}

    # -- helpers -------------------------------------------------------------------------------------------
    def zones(self, kind: str) -> list[Zone]:
        return [z for z in self.layout.zones if z.kind == kind]

    def owner(self, zone: str) -> str | None:
        seat = self.layout.zone(zone).owner
        return None if seat is None or seat >= len(self.players) else self.players[seat]

    def note(self, text: str) -> None:
        """Something the camera saw but cannot turn into an event (shown on the dashboard)."""
        if text not in self.notes:
            self.notes.append(text)
            del self.notes[:-20]

    def unnote(self, text: str) -> None:
        """The note ``text`` is out of date: off the dashboard (if it is there)."""
        if text and text in self.notes:
            self.notes.remove(text)

    def use(self, *cards: TableCard) -> None:
        self.done.update(c.id for c in cards)
        self._settled(c.id for c in cards)

    def _settled(self, cards: Iterable[int]) -> None:
        """The note of :meth:`reruled` on these cards is out of date (sent again, or the referee has the card)."""
        for card in cards:
            text = self.reruled_notes.pop(card, None)
            if text is not None and text not in self.reruled_notes.values():
                self.unnote(text)

    def skip(self, card: TableCard, view: Mapping[str, Json]) -> bool:
        """Whether ``card`` is no news: already used, or refused while the referee's view stays the same."""
        if card.id in self.done:
            return True
        self.names[card.id] = card.card
        if card.replaces is not None:  # the same card read anew
            root = self.chain.setdefault(card.replaces, card.replaces)
            self.chain[card.id] = root
            chain = self.readings.setdefault(root, [root])
            if card.id not in chain:
                chain.append(card.id)
            if card.card in self.void_names.get(root, ()):  # a reading the referee already found impossible
                self.use(card)
                self.voided.add(card.id)
                return True
            stands = [c for c in chain if c != card.id and c in self.done and c not in self.voided]
            told = self.told.get(root, {}).get("card")
            if stands:  # its event was sent and taken (or the referee already had the card)
                self.use(card)
                if told == card.card:
                    return True  # what a phone's correction of its event says already: no note
                was = told or self.names.get(stands[-1], "?")
                text = f"the camera now reads the {was} on {card.zone} as {card.card}: correct it if so"
                self.note(text)
                self.deferred[card.id] = (stands[-1], text)
                return True
            waiting = [c for c in chain if c != card.id and c in self.retried and c not in self.done and c in self.held]
            if waiting and card.id not in self.retried:  # a re-read of a card waiting to go again (:meth:`idle`,
                self.retried.add(card.id)  # :meth:`reruled`) waits with it (read right, it went out of turn again at
                self.held[card.id] = self.held[waiting[-1]]  # once: a second foul on the phones)
        if card.id in self.held:
            if self.held[card.id] == fingerprint(view):
                return True
            del self.held[card.id]
        return False

    def recall(self, update: Update, view: Mapping[str, Json]) -> None:
        """Before :meth:`observe`: a card whose event was refused (and is still held), ruled impossible or rejected on
        a phone, that left its zone and lies again where it lay under the same name within ``RETURN_MS``, the
        referee's ``view`` as it was when it left, is that card: what was decided stands (a refusal until the view
        changes; the misreading not entered again, the card read right is news). A hand resting still over a card
        hides it (the motion meter cannot tell the hand from the table) and it came back as a new sighting: Alex's
        5S read 5C and rejected on a phone went in again as a second flip, a Spades misreading ruled "already played"
        was ruled so twice (session 47). Once the game has moved on it may be a new card (Beth's illegal JH, taken
        back, played there again later)."""
        now = fingerprint(view)
        for change in update.changes:
            card = change.card
            if change.kind == "leave" and change.to is None and (card.id in self.voided or card.id in self.held):
                self.lost.append((update.ts, card, now))
        self.lost = [lost for lost in self.lost if update.ts - lost[0] <= RETURN_MS and lost[2] == now][-32:]
        for change in update.changes:
            new = change.card
            if change.kind != "appear" or change.moved_from is not None or new.replaces is not None:
                continue
            for i, (_, old, _) in enumerate(self.lost):
                if (old.card, old.zone) == (new.card, new.zone) and math.dist(old.point, new.point) <= RETURN_MM:
                    del self.lost[i]
                    self._returned(old.id, new)
                    break

    def _returned(self, old: int, new: TableCard) -> None:
        """``new`` is card ``old`` seen again (:meth:`recall`)."""
        self.names[new.id] = new.card
        if old in self.held:
            self.held[new.id] = self.held[old]
        if old in self.voided:
            root = self.chain.get(old, old)
            self.chain[new.id] = root
            self.readings.setdefault(root, [root]).append(new.id)
            self.use(new)
            self.voided.add(new.id)

    def refused(self, proposal: Proposal, view: Mapping[str, Json] | None) -> None:
        """``proposal`` was not appended: its cards may try again once the referee's ``view`` changes (None: the
        write failed, not the referee: try again at once)."""
        for card in proposal.cards:
            self.done.discard(card)
            if view is not None:
                self.held[card] = fingerprint(view)

    def judged(
        self,
        proposal: Proposal,
        rulings: Sequence[Any],
        before: Mapping[str, Json] | None,
        after: Mapping[str, Json] | None,
    ) -> None:
        """``proposal`` was appended with ``rulings``, the referee's view ``before`` and ``after`` it: an event that
        left the game as it was is :meth:`void` (an ``error``: impossible) or :meth:`idle` (one of
        :attr:`retry_fouls`: did not count yet)."""
        self._settled(proposal.cards)
        if before is None or after is None or after != before:
            return
        if any(getattr(r.severity, "value", "") == "error" for r in rulings):
            self.void(proposal)
        elif any(getattr(r, "code", "") in self.retry_fouls for r in rulings):
            self.idle(proposal, after)

    def idle(self, proposal: Proposal, view: Mapping[str, Json]) -> None:
        """``proposal`` was appended, but as a foul that does not count (the referee's view stayed ``view``): once
        that view changes its cards are proposed once more (a Spades play ruled out of turn because the camera missed
        the card before it counts once the players enter that card), not again after that."""
        for card in proposal.cards:
            if card not in self.retried:
                self.retried.add(card)
                self.done.discard(card)
                self.held[card] = fingerprint(view)

    def reruled(self, proposal: Proposal, view: Mapping[str, Json]) -> None:
        """A change made since on a phone has re-ruled the event of ``proposal``, which counted, into one of
        :attr:`retry_fouls` that changes nothing (Alex's QC undone after Beth's 4C went in: the 4C is now out of turn);
        ``view`` is the referee's view just after it. As after :meth:`idle`, its cards still lying there are proposed
        once more when the referee's view is no longer that one (the 4C, in turn once Alex's card is in), even if they
        were sent once more before (then not again after this one); a card that left is not proposed (it is not there:
        a new card there is news anyway), nor one whose reading was ruled out."""
        for card in proposal.cards:
            if card in self.done and card not in self.voided:
                self.retried.add(card)
                self.done.discard(card)
                self.held[card] = fingerprint(view)
                # a card gathered meanwhile is not sent again: the players are told (a late Reject, after the trick
                # was gathered, left Beth's 4C out of turn with nothing said: the takeback serve run, session 49)
                text = (
                    f"{proposal.reason}: that no longer counts after a change on a phone. If the card still lies "
                    "there it goes again when it can count; if it was played and is gone, enter it on a phone"
                )
                self.reruled_notes[card] = text
                self.note(text)

    def rejected(self, proposal: Proposal, undone: bool) -> None:
        """A player has rejected (undone) the event of ``proposal``, or restored it (``undone`` False): a rejected
        reading is wrong, as a :meth:`void` one is, so the card read anew under another name is news (a Snap flip
        read ``5C``, rejected, then read ``5S``: the flip of ``5S``); a restored one stands again."""
        if undone:  # a retry its cards waited for (:meth:`idle`, :meth:`reruled`) is off: Beth's 7C, ruled out of turn
            self.done.update(proposal.cards)  # and rejected, went in again once Alex's lead was entered (session 50)
            self.void(proposal)
            return
        for card in proposal.cards:
            self.voided.discard(card)
            if card in self.names:
                self.void_names.get(self.chain.get(card, card), set()).discard(self.names[card])

    def corrected(self, proposal: Proposal, event: Mapping[str, Json] | None) -> None:
        """A phone has corrected the event of ``proposal`` to ``event`` (``{"type": ..., payload}``; None: that
        correction is gone, the camera's event stands as sent): that is the truth about its cards. When one of them is
        sent again (a foul of timing retried, :meth:`idle`, :meth:`reruled`) it goes as corrected (:meth:`as_told`),
        whatever the camera reads then, and a re-read of it under the corrected name is no news and makes no note
        (Beth's 7C read 7S, out of turn, corrected to 7C on a phone: the camera sent 7S once Alex's lead was entered,
        and it counted; session 50). A note made by a re-read under that name before the correction goes."""
        for card in proposal.cards:
            root = self.chain.get(card, card)
            if event is None:
                self.told.pop(root, None)
                continue
            self.told[root] = dict(event)
            said = event.get("card")
            for later, (stood, text) in self.deferred.items():  # stood: the card, or a re-read of it (a flicker: 5C
                same = self.chain.get(stood, stood) == root  # read 5D, then 5S, noted "the 5D ... as 5S")
                if same and self.names.get(later) == said:
                    self.unnote(text)

    def as_told(self, card: TableCard) -> dict[str, Json] | None:
        """The event of ``card`` as a phone corrected it (:meth:`corrected`), None if none did."""
        return self.told.get(self.chain.get(card.id, card.id))

    def void(self, proposal: Proposal) -> None:
        """``proposal`` was appended but the referee found it impossible and left the game as it was: a later
        reading of its cards under another name is news (see the module doc)."""
        for card in proposal.cards:
            self.voided.add(card)
            root = self.chain.get(card, card)
            if card in self.names:
                self.void_names.setdefault(root, set()).add(self.names[card])
            # a reading made a note instead of an event because this card's event stood: it is news now (read 5C
            # and sent, read 5S (a note), then the 5C rejected: the flip of 5S), and the note is out of date
            for later, (stood, text) in list(self.deferred.items()):
                if stood == card:
                    del self.deferred[later]
                    self.done.discard(later)
                    self.unnote(text)


def fingerprint(view: Mapping[str, Json]) -> str:
    """The referee's ``view`` as one comparable text (has the game moved on?)."""
    return json.dumps(view, sort_keys=True, default=str)


def _registry() -> dict[str, type[Observer]]:
    from vision.observers.push import PushObserver
    from vision.observers.snap import SnapObserver
    from vision.observers.spades import SpadesObserver
    from vision.observers.spit import SpitObserver

    return {cls.game: cls for cls in (SnapObserver, SpitObserver, SpadesObserver, PushObserver)}


OBSERVERS = ("snap", "spit", "spades", "push")


def observer_for(
    game: str, layout: Layout, players: Sequence[str], options: Mapping[str, Json] | None = None
) -> Observer:
    """The observer of ``game`` under its house rules ``options``; ValueError for a game the camera does not follow
    (yet)."""
    classes = _registry()
    if game not in classes:
        raise ValueError(f"the camera does not follow {game!r} games yet (it follows: {', '.join(OBSERVERS)})")
    if layout.game != game:
        raise ValueError(f"the table layout is for {layout.game}, the game is {game}")
    return classes[game](layout, tuple(players), options=dict(options or {}))
