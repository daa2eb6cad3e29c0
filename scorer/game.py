"""The contract every referee implements, and the records it returns.

A game is a module-level object satisfying :class:`Game`:

* ``spec`` — a :class:`GameSpec`: name, player counts, turn-based or simultaneous, the
  event types it understands and its house-rule :class:`Option` s with defaults;
* ``initial_state(players, options)`` — the state before the first event (options already
  validated by ``spec.resolve``);
* ``apply(state, event)`` — a **new** state and the :class:`Ruling` s the event caused; the
  old state is never changed. A rule broken at the table is a ruling; a malformed event
  raises :class:`~scorer.events.EventError`;
* ``score(state)`` — a pure :class:`ScoreSheet` (totals, per-round history, winner);
* ``view(state)`` — plain JSON data of what the referee sees, for the dashboard.

Register a game with :func:`scorer.registry.register` at the bottom of its module.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Protocol, TypeVar

from scorer.events import EventError, GameEvent
from scorer.shown import as_json

__all__ = [
    "Game",
    "GameSpec",
    "Option",
    "OptionError",
    "Ruling",
    "ScoreSheet",
    "Severity",
    "team_name",
    "winner_text",
]

Json = Any


def team_name(first: str, second: str) -> str:
    """A partnership's name as the score sheets show it: ``"Alex & Charlie"``."""
    return f"{first} & {second}"


class OptionError(EventError):
    """A house-rule option that does not exist or has a wrong value."""


class Severity(Enum):
    """How loud a ruling is: ``info`` (running totals), ``alert`` (a match to call, "Spit!"),
    ``foul`` (a rule broken by a player), ``error`` (the record itself cannot be right)."""

    INFO = "info"
    ALERT = "alert"
    FOUL = "foul"
    ERROR = "error"


@dataclass(frozen=True)
class Ruling:
    """What the referee says about an event. ``player`` is whom it concerns (or ``None``)."""

    code: str
    severity: Severity
    message: str
    player: str | None = None
    seq: int | None = None
    data: Mapping[str, Json] = field(default_factory=dict, compare=False, hash=False)

    def to_json(self) -> dict[str, Json]:
        out: dict[str, Json] = {
            "code": self.code,
            "severity": self.severity.value,
            "message": self.message,
            "player": self.player,
            "seq": self.seq,
        }
        if self.data:
            out["data"] = dict(self.data)
        return out


@dataclass(frozen=True)
class Option:
    """A house rule: ``kind`` is ``bool``, ``int`` or ``choice``. ``default`` is what a log without it means;
    ``fresh``, where given, what a new game starts with instead (a rule added later whose old behaviour earlier
    logs must keep: their games replay as they were played)."""

    name: str
    default: Json
    help: str
    kind: str = "choice"
    choices: tuple[Json, ...] = ()
    low: int | None = None
    high: int | None = None
    fresh: Json = None

    def check(self, value: Json) -> Json:
        if self.kind == "bool":
            if not isinstance(value, bool):
                raise OptionError(f"{self.said} must be true or false, not {as_json(value)}")
        elif self.kind == "int":
            ok = isinstance(value, int) and not isinstance(value, bool)
            if ok and self.low is not None and value < self.low:
                ok = False
            if ok and self.high is not None and value > self.high:
                ok = False
            if not ok:
                span = f" from {self.low}" if self.low is not None else ""
                span += f" to {self.high}" if self.high is not None else ""
                raise OptionError(f"{self.said} must be a whole number{span}, not {as_json(value)}")
        else:  # the choice itself: 2.0 is "in" (0, 2, 3, 4) and stayed a float in the state and the export
            same = [c for c in self.choices if c == value]
            if not same:
                allowed = ", ".join(str(c) for c in self.choices)
                raise OptionError(f"{self.said} must be one of {allowed}, not {as_json(value)}")
            return same[0]
        return value

    @property
    def said(self) -> str:
        """The rule as the New game page names it: "the house rule 'bag limit'" (refusals said 'bag_limit')."""
        said = f"the house rule '{self.name.replace('_', ' ')}'"  # and as a log file writes it, which Import and
        return said if "_" not in self.name else f"{said} ({self.name})"  # replay show it to (a review)

    def to_json(self) -> dict[str, Json]:
        out: dict[str, Json] = {"name": self.name, "default": self.default, "kind": self.kind, "help": self.help}
        if self.choices:
            out["choices"] = list(self.choices)
        if self.low is not None:
            out["low"] = self.low
        if self.high is not None:
            out["high"] = self.high
        if self.fresh is not None:
            out["fresh"] = self.fresh
        return out


@dataclass(frozen=True)
class GameSpec:
    """What a game is: its name, who can play, how turns go, what it hears, its house rules."""

    name: str
    title: str
    min_players: int
    max_players: int
    simultaneous: bool
    event_types: tuple[str, ...]
    options: tuple[Option, ...] = ()
    teams: bool = False
    rules_summary: str = ""

    def option(self, name: str) -> Option:
        for option in self.options:
            if option.name == name:
                return option
        raise OptionError(f"{self.title} has no option '{name}'")

    def fresh(self, options: Mapping[str, Json]) -> dict[str, Json]:
        """``options`` for a new game: each rule with a :attr:`Option.fresh` value not given starts with it."""
        return {**{o.name: o.fresh for o in self.options if o.fresh is not None}, **options}

    def resolve(self, options: Mapping[str, Json] | None = None) -> dict[str, Json]:
        """Defaults overlaid with ``options``, each checked; unknown names are refused."""
        given = dict(options or {})
        known = {option.name for option in self.options}
        unknown = sorted(set(given) - known)
        if unknown:
            names = ", ".join(sorted(known)) or "none"
            raise OptionError(f"{self.title} has no option '{unknown[0]}' (its options: {names})")
        return {o.name: o.check(given[o.name]) if o.name in given else o.default for o in self.options}

    def check_players(self, players: Sequence[str]) -> tuple[str, ...]:
        names = tuple(players)
        if not self.min_players <= len(names) <= self.max_players:
            want = (
                f"{self.min_players}"
                if self.min_players == self.max_players
                else f"{self.min_players} to {self.max_players}"
            )
            raise EventError(f"{self.title} is for {want} players, not {len(names)}")
        if any(not isinstance(n, str) or not n.strip() for n in names):
            raise EventError("every player needs a name")
        twice = next((name for k, name in enumerate(names) if name in names[:k]), None)
        if twice is not None:
            raise EventError(f"two players are called {twice!r}: give each player a different name")
        if self.teams and len(names) == 4 and team_name(names[0], names[2]) == team_name(names[1], names[3]):
            raise EventError(
                f"both teams would be called '{team_name(names[0], names[2])}' (partners sit opposite): "
                "give the players names that keep the teams apart"
            )
        return names

    def to_json(self) -> dict[str, Json]:
        return {
            "name": self.name,
            "title": self.title,
            "min_players": self.min_players,
            "max_players": self.max_players,
            "simultaneous": self.simultaneous,
            "teams": self.teams,
            "event_types": list(self.event_types),
            "options": [o.to_json() for o in self.options],
        }


@dataclass(frozen=True)
class ScoreSheet:
    """Scores as a person reads them: running ``totals`` by player or team name, one
    ``history`` row per round/hand/deal (plain JSON), the ``winner`` (or ``None`` while
    playing, or several names on a shared win), and whether a lower total is better."""

    totals: Mapping[str, int | float]
    history: tuple[Mapping[str, Json], ...] = ()
    winner: tuple[str, ...] | None = None
    finished: bool = False
    teams: Mapping[str, tuple[str, ...]] | None = None
    lower_wins: bool = False

    def to_json(self) -> dict[str, Json]:
        return {
            "totals": dict(self.totals),
            "history": [dict(row) for row in self.history],
            "winner": None if self.winner is None else list(self.winner),
            "finished": self.finished,
            "teams": None if self.teams is None else {k: list(v) for k, v in self.teams.items()},
            "lower_wins": self.lower_wins,
        }


def winner_text(winner: Sequence[str] | None, teams: Mapping[str, Sequence[str]] | None = None) -> str | None:
    """A score sheet's ``winner`` as a person reads it: "Winner: Alex & Charlie", or "Tie: Alex & Charlie and Beth &
    David" when it names several sides (a team counts as one side, whether it is named or its players are);
    None while nobody has won."""
    if not winner:
        return None
    left = list(winner)
    sides: list[str] = []
    for team, members in (teams or {}).items():
        if team in left:
            left.remove(team)
            sides.append(team)
        elif members and all(member in left for member in members):
            for member in members:
                left.remove(member)
            sides.append(team)
    sides += left
    return f"Winner: {sides[0]}" if len(sides) == 1 else "Tie: " + " and ".join(sides)


S = TypeVar("S")


class Game(Protocol[S]):
    """What a referee module provides."""

    @property
    def spec(self) -> GameSpec: ...

    def initial_state(self, players: Sequence[str], options: Mapping[str, Json]) -> S: ...

    def apply(self, state: S, event: GameEvent) -> tuple[S, list[Ruling]]: ...

    def score(self, state: S) -> ScoreSheet: ...

    def view(self, state: S) -> dict[str, Json]: ...
