"""tablecall's referees: cards, events, the game contract and one pure module per game.

Nothing in this package does I/O, reads a clock, draws random numbers or imports a
third-party package: state in, event in, new state and rulings out.
"""

from scorer.cards import JOKER, Card, CardError, Joker, PhysicalCard, Rank, Suit, parse_card
from scorer.events import EventError, GameEvent, GameLog, LogError, LogHeader, Source, parse_log
from scorer.game import Game, GameSpec, Option, OptionError, Ruling, ScoreSheet, Severity
from scorer.registry import available, get_game, register
from scorer.session import Session, replay

__all__ = [
    "JOKER",
    "Card",
    "CardError",
    "EventError",
    "Game",
    "GameEvent",
    "GameLog",
    "GameSpec",
    "Joker",
    "LogError",
    "LogHeader",
    "Option",
    "OptionError",
    "PhysicalCard",
    "Rank",
    "Ruling",
    "ScoreSheet",
    "Session",
    "Severity",
    "Source",
    "Suit",
    "available",
    "get_game",
    "parse_card",
    "parse_log",
    "register",
    "replay",
]
