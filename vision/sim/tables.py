"""What lies where on the table after each event, read from the referee (one small class per game).

The simulator does not re-implement any game: it replays the log through :mod:`scorer` and asks, after each
event, which cards the referee's state puts in which zone. A :class:`GameTable` answers that
(:meth:`~GameTable.places`) and a few questions about people: whose hand a card comes from, whose hand takes
cards away, who moves cards from pile to pile, who slaps a pile. Places are ``(zone name, group)``; a group
is one pile, or one meld in a player's melds area.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from scorer.events import GameEvent
from scorer.game import Ruling
from scorer.session import Session


class SimError(ValueError):
    """The log cannot be shown as asked (too long for the requested duration, a game the simulator lacks …)."""


__all__ = ["TABLES", "GameTable", "Item", "Place", "Table", "table_for"]

Place = tuple[str, int]


@dataclass(frozen=True)
class Item:
    """A physical card as the referee knows it: its name (None: face down and unknown) and which side is up."""

    card: str | None
    up: bool

    def same(self, other: Item) -> bool:
        """The same card lying the same way (face-down cards of unknown identity are interchangeable)."""
        if self.up != other.up:
            return False
        return self.card == other.card or (not self.up and (self.card is None or other.card is None))


BACK = Item(None, False)
Table = dict[Place, list[Item]]


def _up(cards: Iterable[Any]) -> list[Item]:
    return [Item(str(c), True) for c in cards]


def _seat(session: Session, name: Any) -> int | None:
    return session.players.index(name) if isinstance(name, str) and name in session.players else None


class GameTable:
    """The defaults: cards come from and go to the event's player, who also moves them."""

    game = ""

    def places(self, session: Session, rendered: Table) -> Table:
        raise NotImplementedError

    def intents(self, event: GameEvent, session: Session) -> list[tuple[Place, Item]]:
        """Cards the event puts down from a hand even if the referee then refuses them (asked before ``apply``)."""
        return []

    def carries(self, event: GameEvent, session: Session) -> list[tuple[Place, Place, Item]]:
        """Cards the event moves across the table (from, to, as what) before the referee judges it, so they are
        seen there even when the referee's state at once has them elsewhere (asked before ``apply``)."""
        return []

    def player(self, event: GameEvent, session: Session) -> int | None:
        return _seat(session, event.data.get("player"))

    def source(self, event: GameEvent, session: Session, place: Place, item: Item) -> int | None:
        """Whose hand a new card comes from."""
        return self.player(event, session)

    def sink(self, event: GameEvent, session: Session, rulings: Sequence[Ruling], place: Place) -> int | None:
        """Whose hand takes away a card that leaves the table."""
        return self.player(event, session)

    def actor(self, event: GameEvent, session: Session, rulings: Sequence[Ruling]) -> int | None:
        """Whose hand moves cards from one place to another."""
        return self.player(event, session)

    def slaps(self, event: GameEvent, session: Session) -> list[tuple[int, Place]]:
        """Hands slapped down on a place (no card moves by it)."""
        return []


class SnapTable(GameTable):
    """Snap: face-up piles ``face_up/<seat>`` and the ``pot`` (face-down piles stay in the players' hands)."""

    game = "snap"
    WINS = ("snap_won", "snap_pot_won")

    def places(self, session: Session, rendered: Table) -> Table:
        state = session.state
        table: Table = {("pot", 0): _up(state.pot)}
        for seat in range(len(session.players)):
            table[(f"face_up/{seat}", 0)] = _up(state.face_up[seat]) if state.face_up else []
        return table

    def _winner(self, session: Session, rulings: Sequence[Ruling]) -> int | None:
        return next((_seat(session, r.player) for r in rulings if r.code in self.WINS and r.player), None)

    def sink(self, event: GameEvent, session: Session, rulings: Sequence[Ruling], place: Place) -> int | None:
        winner = self._winner(session, rulings)
        return winner if winner is not None else self.player(event, session)

    def actor(self, event: GameEvent, session: Session, rulings: Sequence[Ruling]) -> int | None:
        return self.sink(event, session, rulings, ("pot", 0))

    def slaps(self, event: GameEvent, session: Session) -> list[tuple[int, Place]]:
        seat = self.player(event, session)
        slap = event.data.get("kind") == "slap" or event.data.get("slap") is True
        return [(seat, ("pot", 0))] if event.type == "call" and slap and seat is not None else []


class SpitTable(GameTable):
    """Spit: stock piles ``stock/<seat>/<0-4>`` (face-down cards under a face-up top) and ``spit/<0-1>``."""

    game = "spit"

    def places(self, session: Session, rendered: Table) -> Table:
        view, state = session.view(), session.state
        table: Table = {}
        for seat, name in enumerate(session.players):
            stock = view["players"][name]["stock"] or [{"down": 0, "top": None}] * 5
            for slot, pile in enumerate(stock):
                items = [BACK] * int(pile["down"]) + ([Item(pile["top"], True)] if pile["top"] else [])
                table[(f"stock/{seat}/{slot}", 0)] = items
        for pile in (0, 1):
            placed = state.piles[pile] if pile < len(state.piles) else ()
            table[(f"spit/{pile}", 0)] = _up(p.card for p in placed)
        return table

    def source(self, event: GameEvent, session: Session, place: Place, item: Item) -> int | None:
        if event.type == "spit":  # each player turns their own spit card
            cards = event.data.get("cards") or {}
            return next((_seat(session, name) for name, card in cards.items() if str(card) == item.card), None)
        return self.player(event, session)

    def sink(self, event: GameEvent, session: Session, rulings: Sequence[Ruling], place: Place) -> int | None:
        zone = place[0]
        if zone.startswith("stock/"):
            return int(zone.split("/")[1])
        slapper = self.player(event, session)
        if event.type == "slap" and slapper is not None and zone.startswith("spit/"):
            return slapper if int(zone.split("/")[1]) == int(event.data.get("pile", 0)) else 1 - slapper
        return slapper

    def slaps(self, event: GameEvent, session: Session) -> list[tuple[int, Place]]:
        seat = self.player(event, session)
        if event.type != "slap" or seat is None:
            return []
        return [(seat, (f"spit/{int(event.data.get('pile', 0))}", 0))]

    def carries(self, event: GameEvent, session: Session) -> list[tuple[Place, Place, Item]]:
        """A play goes from the stock onto the spit pile first: the round's last card lies there a moment
        before the piles are shared, and a card played after the round ended lies there before it goes back."""
        seat, view = self.player(event, session), session.view()
        pile = event.data.get("pile", 0)
        if event.type != "play" or seat is None or not isinstance(pile, int) or not 0 <= pile < len(view["spit_piles"]):
            return []
        card = str(event.data.get("card"))
        stock = view["players"][session.players[seat]]["stock"]
        slot = event.data.get("from")
        if not isinstance(slot, int) or not 0 <= slot < len(stock):
            slot = next((k for k, s in enumerate(stock) if s["top"] == card), None)
        if slot is None:
            return []
        return [((f"stock/{seat}/{slot}", 0), (f"spit/{pile}", 0), Item(card, True))]


class SpadesTable(GameTable):
    """Spades: a trick spot ``trick/<seat>`` per player, each team's won tricks face down on ``won/<team>``.

    A card is put down before the referee judges it (:meth:`intents`): a refused play lies on the table a
    moment and goes back to its player's hand, as at a real table."""

    game = "spades"

    def places(self, session: Session, rendered: Table) -> Table:
        view = session.view()
        table: Table = {}
        trick = {play["player"]: play["card"] for play in view["trick"]}
        for seat, name in enumerate(session.players):
            table[(f"trick/{seat}", 0)] = [Item(trick[name], True)] if name in trick else []
        if view["phase"] in ("between_hands", "game_over"):
            taken = self._finished_tricks(session)
        else:
            taken = [view["tricks"][n] for n in session.players]
        last = view["last_trick"]
        for team in (0, 1):
            before = list(rendered.get((f"won/{team}", 0), []))
            want = 4 * (taken[team] + taken[team + 2])
            if want > len(before) and last and last["winner"] in session.players[team::2]:
                before += [Item(card, False) for card in last["cards"]]
            table[(f"won/{team}", 0)] = (before + [BACK] * want)[:want]
        return table

    def _finished_tricks(self, session: Session) -> list[int]:
        results = getattr(session.state, "results", ())
        if not results or results[-1].entry != "cards":
            return [0, 0, 0, 0]
        return list(results[-1].tricks)

    def intents(self, event: GameEvent, session: Session) -> list[tuple[Place, Item]]:
        seat = self.player(event, session)
        if event.type != "play" or seat is None or "card" not in event.data:
            return []
        return [((f"trick/{seat}", 0), Item(str(event.card()), True))]

    def actor(self, event: GameEvent, session: Session, rulings: Sequence[Ruling]) -> int | None:
        last = session.view()["last_trick"]
        return _seat(session, last["winner"]) if last else self.player(event, session)


class PushTable(GameTable):
    """Push: the ``stock`` (face down) and ``discard`` piles; each meld a group of its owner's ``melds/<seat>``."""

    game = "push"

    def places(self, session: Session, rendered: Table) -> Table:
        view = session.view()
        table: Table = {("stock", 0): [BACK] * int(view["stock"] or 0), ("discard", 0): _up(view["discard"])}
        for meld in view["melds"]:
            seat = session.players.index(meld["owner"])
            table[(f"melds/{seat}", int(meld["number"]))] = _up(meld["cards"])
        return table

    def source(self, event: GameEvent, session: Session, place: Place, item: Item) -> int | None:
        if event.type in ("deal", "upcard"):
            return _seat(session, session.view()["dealer"])
        return self.player(event, session)

    def sink(self, event: GameEvent, session: Session, rulings: Sequence[Ruling], place: Place) -> int | None:
        seat = self.player(event, session)
        if event.type == "push" and seat is not None:
            return (seat + 1) % len(session.players)  # the top discard and stock card go to the left
        dealer = _seat(session, session.view()["dealer"])
        if event.type == "deal_end" and dealer is not None:
            return (dealer + 1) % len(session.players)  # the next dealer gathers the cards
        return seat if seat is not None else dealer


TABLES: dict[str, GameTable] = {t.game: t for t in (SnapTable(), SpitTable(), SpadesTable(), PushTable())}


def table_for(game: str) -> GameTable:
    if game not in TABLES:
        raise SimError(f"the simulator cannot show {game!r} yet (games: {', '.join(TABLES)})")
    return TABLES[game]
