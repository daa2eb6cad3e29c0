"""Shared helpers for the Snap tests: a table driven event by event, and independent checks.

The checks here do not use the referee's own helpers: matches and card accounting are
recomputed from the state's plain fields, so a bug in :mod:`scorer.snap_table` cannot hide.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from scorer.cards import Card, standard_deck
from scorer.events import GameEvent, Source
from scorer.game import Ruling
from scorer.session import Session
from scorer.snap import SnapState

PLAYERS = ("Alex", "Beth", "Cara")


class Table:
    """A Snap session fed by short calls: ``table.flip("Alex", "7H")``, ``table.call("Beth")``.

    Each event gets the next ``seq`` and, unless ``ts`` is given, a ``ts`` one second after
    the previous one."""

    def __init__(self, players: tuple[str, ...] = PLAYERS, dealer: str | None = None, **options: Any) -> None:
        deal = options.pop("deal", {})
        self.session = Session("snap", players, options)
        self.ts = 0
        self.last: list[Ruling] = []
        if dealer is not None:
            self.send("deal", dealer=dealer, **deal)

    # -- events ---------------------------------------------------------------------------------
    def event(self, type_: str, ts: int | None = None, **data: Any) -> GameEvent:
        self.ts = self.ts + 1000 if ts is None else ts
        return GameEvent(self.session.next_seq, self.ts, Source.MANUAL, type_, data)

    def send(self, type_: str, ts: int | None = None, **data: Any) -> list[Ruling]:
        self.last = self.session.append(self.event(type_, ts, **data))
        return self.last

    def flip(self, player: str, card: str, ts: int | None = None) -> list[Ruling]:
        return self.send("flip", ts, player=player, card=card)

    def call(self, player: str, kind: str = "snap", ts: int | None = None) -> list[Ruling]:
        return self.send("call", ts, player=player, kind=kind)

    def resolve(self, ts: int | None = None) -> list[Ruling]:
        return self.send("resolve", ts)

    # -- reading ---------------------------------------------------------------------------------
    @property
    def state(self) -> SnapState:
        state: SnapState = self.session.state
        return state

    @property
    def view(self) -> dict[str, Any]:
        return self.session.view()

    def pile(self, player: str) -> dict[str, Any]:
        return next(p for p in self.view["piles"] if p["player"] == player)

    def held(self, player: str) -> int:
        pile = self.pile(player)
        return int(pile["face_down"]) + int(pile["face_up"])


KINDS = ("snap", "snap_pot", "slap")
ONE_CARD = {"deal": {"counts": {"Alex": 1, "Beth": 25, "Cara": 26}}}  # Alex runs out fast


def run(script: str, players: tuple[str, ...] = PLAYERS, **options: Any) -> tuple[Table, list[Ruling]]:
    """Play ``script`` on a fresh table (the last player deals unless ``dealer=`` says otherwise);
    returns it and the rulings of the last step. Steps are separated by ``;``: ``Alex 7H`` (a flip),
    ``Beth snap`` / ``Beth snap_pot`` / ``Beth slap`` (a call), ``Alex turn_over``, ``resolve``;
    ``@2100`` gives a step its ``ts`` (otherwise one second after the previous step)."""
    dealer = options.pop("dealer", players[-1])
    table = Table(players, dealer=dealer, **options)
    rulings: list[Ruling] = []
    for step in filter(None, (s.strip() for s in script.split(";"))):
        words = step.split()
        ts = int(words.pop()[1:]) if words[-1].startswith("@") else None
        if words == ["resolve"]:
            rulings = table.resolve(ts)
        elif words[1] in KINDS:
            rulings = table.call(words[0], words[1], ts)
        elif words[1] == "turn_over":
            rulings = table.send("turn_over", ts, player=words[0])
        else:
            rulings = table.flip(words[0], words[1], ts)
    return table, rulings


def codes(rulings: list[Ruling]) -> list[str]:
    return [r.code for r in rulings]


# -- independent checks ---------------------------------------------------------------------------
def is_match(a: Card, b: Card, rule: str) -> bool:
    return {
        "rank": a.rank == b.rank,
        "suit": a.suit == b.suit,
        "colour": (a.suit.value in "HD") == (b.suit.value in "HD"),
    }[rule]


def expected_matches(state: SnapState) -> set[tuple[tuple[str, ...], tuple[str, str]]]:
    """The matches on the table, worked out from the face-up tops and the pot alone."""
    tops = [(state.players[seat], pile[-1]) for seat, pile in enumerate(state.face_up) if pile]
    found = set()
    for i, (name, top) in enumerate(tops):
        for other, other_top in tops[i + 1 :]:
            if is_match(top, other_top, state.match_by):
                found.add(((name, other), (str(top), str(other_top))))
        if state.pot and is_match(top, state.pot[-1], state.match_by):
            found.add(((name,), (str(top), str(state.pot[-1]))))
    return found


def alert_key(ruling: Ruling) -> tuple[tuple[str, ...], tuple[str, str]]:
    data = ruling.data
    return tuple(data["players"]), (data["cards"][0], data["cards"][1])


def accounting_problems(state: SnapState) -> list[str]:
    """Every card once: on a face-up pile, in the pot, in a known packet, or unseen behind a
    hidden packet (as many unseen cards as hidden places)."""
    problems = []
    known = [c for pile in state.face_up for c in pile] + list(state.pot)
    known += [c for packets in state.face_down for p in packets for c in p.cards]
    hidden = sum(p.hidden for packets in state.face_down for p in packets)
    every = Counter(known) + Counter(state.unseen)
    twice = [str(c) for c, n in every.items() if n > 1]
    if twice:
        problems.append(f"cards in two places: {twice}")
    if set(every) != set(standard_deck()):
        problems.append(f"cards missing: {sorted(str(c) for c in set(standard_deck()) - set(every))}")
    if hidden != len(state.unseen):
        problems.append(f"{hidden} hidden places but {len(state.unseen)} unseen cards")
    if any(p.size == 0 for packets in state.face_down for p in packets):
        problems.append("an empty packet")
    return problems
