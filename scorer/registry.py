"""Games by name. Each game module registers its referee when it is imported."""

from __future__ import annotations

import importlib
from typing import Any

from scorer.events import EventError
from scorer.game import Game

__all__ = ["GAME_MODULES", "UnknownGame", "available", "get_game", "register"]

#: Every game tablecall knows, and the module that holds its referee.
GAME_MODULES: dict[str, str] = {
    "spades": "scorer.spades",
    "snap": "scorer.snap",
    "spit": "scorer.spit",
    "ten": "scorer.ten",
    "push": "scorer.push",
}

_GAMES: dict[str, Game[Any]] = {}


class UnknownGame(EventError):
    """A game name tablecall does not know."""


def register(game: Game[Any]) -> Game[Any]:
    """Make ``game`` available under ``game.spec.name``; returns it, for use at module end."""
    _GAMES[game.spec.name] = game
    return game


def get_game(name: str) -> Game[Any]:
    """The referee for ``name`` (``spades``, ``snap``, …)."""
    if name not in _GAMES and name in GAME_MODULES:
        _load(GAME_MODULES[name])
    if name not in _GAMES:
        known = ", ".join(available()) or "none yet"
        raise UnknownGame(f"unknown game {name!r} (known games: {known})")
    return _GAMES[name]


def available() -> list[str]:
    """The names of the games whose referee is installed, in the order of :data:`GAME_MODULES`."""
    names = []
    for name, module in GAME_MODULES.items():
        if name not in _GAMES:
            _load(module)
        if name in _GAMES:
            names.append(name)
    return names


def _load(module: str) -> None:
    """Import a game module; one that is not there (yet) is skipped, any other failure shows."""
    try:
        importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name != module:
            raise
