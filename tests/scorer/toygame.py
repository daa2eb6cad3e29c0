"""A tiny game used only by the foundation's tests: players add points; first to ``target`` wins."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from scorer.events import GameEvent
from scorer.game import GameSpec, Option, Ruling, ScoreSheet, Severity
from scorer.registry import register


@dataclass(frozen=True)
class TallyState:
    players: tuple[str, ...]
    target: int
    points: tuple[int, ...]
    turn: int = 0


class Tally:
    spec = GameSpec(
        name="tally",
        title="Tally",
        min_players=1,
        max_players=4,
        simultaneous=False,
        event_types=("add",),
        options=(Option("target", 10, "points to win", kind="int", low=1, high=100),),
    )

    def initial_state(self, players: Sequence[str], options: Mapping[str, Any]) -> TallyState:
        return TallyState(tuple(players), options["target"], (0,) * len(players))

    def apply(self, state: TallyState, event: GameEvent) -> tuple[TallyState, list[Ruling]]:
        seat = event.player(state.players)
        amount = event.integer("points", 0, 9)
        rulings = []
        if seat != state.turn:
            rulings.append(Ruling("out_of_turn", Severity.FOUL, "not your turn", state.players[seat], event.seq))
        points = list(state.points)
        points[seat] += amount
        return replace(state, points=tuple(points), turn=(seat + 1) % len(state.players)), rulings

    def score(self, state: TallyState) -> ScoreSheet:
        winners = tuple(p for p, n in zip(state.players, state.points, strict=True) if n >= state.target)
        return ScoreSheet(
            dict(zip(state.players, state.points, strict=True)), winner=winners or None, finished=bool(winners)
        )

    def view(self, state: TallyState) -> dict[str, Any]:
        return {"points": list(state.points), "turn": state.players[state.turn]}


TALLY = register(Tally())
