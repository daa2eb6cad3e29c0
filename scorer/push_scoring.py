"""Push scoring: ending a deal (after live play, or as a score-only entry), team totals, the winner,
and the table view the dashboard shows.

``deal_end`` {hands: {name: [cards left]}, out?: name}. After live play the referee checks the
report against what it tracked (``cards_unaccounted`` when they differ) and may fill in a hand it
knows completely; the report is what gets scored. If a player went out, their team scores 0 and
the other team the cards in its hands; if nobody did, both teams score their hands. Card values:
K Q J 10 = 10, 9 to 3 = 5, A = 15, jokers and 2s = 20. After five deals the lower total wins.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from scorer.cards import Face
from scorer.events import EventError, GameEvent
from scorer.game import Ruling, ScoreSheet, Severity, team_name
from scorer.push_melds import DEAL_SIZES, REQUIREMENTS, card_value, describe_requirement
from scorer.push_table import DECK, DealResult, Hand, PushState, parse_entry, ruling, show, sort_faces, unseen

__all__ = ["DEALS", "end_deal", "hand_points", "score_sheet", "table_view", "team_names"]

Json = Any
DEALS = 5


def team_names(players: Sequence[str]) -> dict[str, tuple[str, str]]:
    """Partners sit opposite: ``{"Alex & Charlie": ("Alex", "Charlie"), "Beth & David": (...)}``."""
    return {team_name(players[t], players[t + 2]): (players[t], players[t + 2]) for t in (0, 1)}


def hand_points(faces: Sequence[Face]) -> int:
    return sum(card_value(f) for f in faces)


def _read_hands(state: PushState, event: GameEvent) -> dict[int, list[Face]]:
    raw = event.data.get("hands", {})
    if not isinstance(raw, Mapping):
        raise EventError(f'{event.where()}: \'hands\' must map names to the cards left, like {{"Beth": ["7H"]}}')
    hands: dict[int, list[Face]] = {}
    for name, cards in raw.items():
        if name not in state.players:
            raise EventError(f"{event.where()}: 'hands' names {name!r}, who is not playing")
        if not isinstance(cards, list):
            raise EventError(f"{event.where()}: {name}'s cards must be a list (empty if none are left)")
        hands[state.players.index(name)] = [parse_entry(c, f"{event.where()}: {name}'s hand")[0] for c in cards]
    total = Counter(f for faces in hands.values() for f in faces)
    extra = [f for f in total if total[f] > DECK[f]]
    if extra:
        raise EventError(f"{event.where()}: the hands show {total[extra[0]]} {extra[0]}; Push has {DECK[extra[0]]}")
    return hands


def _account(state: PushState, seat: int, cards: list[Face], pool: Counter[Face]) -> list[str]:
    """How a reported hand differs from what the referee tracked (``pool``: unseen cards left)."""
    hand, name = state.hands[seat], state.players[seat]
    problems = []
    if len(cards) != hand.count:
        problems.append(f"{name} should hold {hand.count} cards, the report shows {len(cards)}")
    missing = Counter(hand.known) - Counter(cards)
    if missing:
        problems.append(f"{' '.join(show(missing.elements()))} went into {name}'s hand but were not reported")
    for face in (Counter(cards) - Counter(hand.known)).elements():
        if pool[face] > 0:
            pool[face] -= 1
        else:
            problems.append(f"{face} cannot be in {name}'s hand: every {face} is elsewhere on the table")
    return problems


Hands = dict[int, list[Face]]


def _live_hands(state: PushState, event: GameEvent, reported: Hands) -> tuple[Hands, list[Ruling]]:
    hands: dict[int, list[Face]] = {}
    rulings = []
    pool = unseen(state)
    for seat, hand in enumerate(state.hands):
        if seat in reported:
            hands[seat] = reported[seat]
            problems = _account(state, seat, reported[seat], pool)
            if problems:
                message = "Cards unaccounted for: " + "; ".join(problems)
                rulings.append(ruling("cards_unaccounted", Severity.ERROR, message, state.players[seat], event.seq))
        elif hand.hidden == 0:
            hands[seat] = list(hand.known)
    return hands, rulings


def end_deal(state: PushState, event: GameEvent) -> tuple[PushState, list[Ruling]]:
    """The ``deal_end`` event: score the deal from the cards left in the hands."""
    if state.phase == "over":
        raise EventError(f"{event.where()}: the game is over (five deals)")
    reported = _read_hands(state, event)
    out = event.player(state.players, "out") if event.has("out") else None
    live = state.phase in ("play", "counting")
    number = state.deal if live else state.deal + 1
    rulings: list[Ruling] = []
    hands = reported
    if live:
        if state.phase == "play":
            message = f"Deal {number} was ended while still in play ({state.stock} cards in the stock)"
            rulings.append(ruling("deal_end_early", Severity.ALERT, message, None, event.seq))
        if out is None:
            out = state.out
        elif out != state.out and (state.out is not None or state.phase == "counting"):
            who = "nobody" if state.out is None else state.players[state.out]
            message = f"The report says {state.players[out]} went out; the referee saw {who} go out"
            rulings.append(ruling("out_mismatch", Severity.ERROR, message, state.players[out], event.seq))
        hands, found = _live_hands(state, event, reported)
        rulings += found
    if out is not None and hands.get(out):
        raise EventError(f"{event.where()}: {state.players[out]} went out, so holds no cards")
    scoring = [s for s in range(4) if out is None or s % 2 != out % 2]
    missing = [state.players[s] for s in scoring if s not in hands]
    if missing:
        names = f"{', '.join(missing[:-1])} and {missing[-1]}"
        whose = f"{missing[0]}'s hand" if len(missing) == 1 else f"the hands of {names}"
        raise EventError(f"{event.where()}: the cards left in {whose} are needed to score")
    points = [0, 0]
    for seat in scoring:
        points[seat % 2] += hand_points(hands[seat])
    result = DealResult(
        number, out, tuple(sort_faces(hands[s]) if s in hands else None for s in range(4)), (points[0], points[1])
    )
    dealer = state.dealer if live or state.dealer is None else state.left_of(state.dealer)
    new = replace(
        state, deal=number, phase="over" if number == DEALS else "waiting", dealer=dealer, step="draw", stock=0,
        discard=(), hands=(Hand(),) * 4, melds=(), laid=(False,) * 4, pending=None, out=None,
        results=(*state.results, result),
    )  # fmt: skip
    return new, rulings + _announce(new, event)


def _announce(state: PushState, event: GameEvent) -> list[Ruling]:
    sheet = score_sheet(state)
    row = sheet.history[-1]
    scores = ", ".join(f"{team} {points}" for team, points in row["points"].items())
    rulings = [ruling("deal_scored", Severity.INFO, f"Deal {row['deal']}: {scores}", None, event.seq)]
    if sheet.finished and sheet.winner is not None:
        totals = ", ".join(f"{team} {points}" for team, points in sheet.totals.items())
        verdict = " and ".join(sheet.winner) + (" win" if len(sheet.winner) == 1 else " tie")
        rulings.append(ruling("game_over", Severity.INFO, f"{verdict} (lowest total wins): {totals}", None, event.seq))
    return rulings


def score_sheet(state: PushState) -> ScoreSheet:
    """Team totals over the deals played, one history row per deal, the winner after five deals."""
    teams = team_names(state.players)
    names = list(teams)
    totals = [0, 0]
    history: list[Mapping[str, Json]] = []
    for result in state.results:
        totals = [totals[0] + result.points[0], totals[1] + result.points[1]]
        history.append(
            {
                "deal": result.deal,
                "out": None if result.out is None else state.players[result.out],
                "hands": {
                    name: None if cards is None else hand_points(cards)
                    for name, cards in zip(state.players, result.hands, strict=True)
                },
                "points": dict(zip(names, result.points, strict=True)),
                "totals": dict(zip(names, totals, strict=True)),
            }
        )
    finished = state.phase == "over"
    best = min(totals)
    winner = tuple(n for n, t in zip(names, totals, strict=True) if t == best) if finished else None
    return ScoreSheet(dict(zip(names, totals, strict=True)), tuple(history), winner, finished, teams, lower_wins=True)


def _awaiting(state: PushState) -> str:
    if state.phase == "over":
        return "the game is over"
    if state.phase == "waiting":
        return f"deal {state.deal + 1} ({DEAL_SIZES[state.deal + 1]} cards each)"
    if state.phase == "counting":
        return "the cards left in each hand"
    name = state.players[state.turn]
    if state.pending is not None:
        return f"{state.players[state.pending.seat]} to put the {state.pending.wild} into another meld"
    return {
        "bury": "the dealer to bury the wild upcard and turn another",
        "draw": f"{name} to take the {state.discard[-1] if state.discard else 'discard'} or push",
        "stock": f"{name} to draw from the stock",
        "play": f"{name} to meld and discard",
    }[state.step]


def table_view(state: PushState) -> dict[str, Json]:
    """What the referee shows: the deal, whose turn and step, stock, discards, hands, melds, totals."""
    sheet = score_sheet(state)
    playing = state.phase in ("play", "counting")
    return {
        "deal": state.deal,
        "cards_dealt": DEAL_SIZES.get(state.deal),
        "requirement": describe_requirement(state.deal) if state.deal in REQUIREMENTS else None,
        "phase": state.phase,
        "dealer": None if state.dealer is None else state.players[state.dealer],
        "turn": state.players[state.turn] if state.phase == "play" else None,
        "step": state.step if state.phase == "play" else None,
        "awaiting": _awaiting(state),
        "stock": state.stock if playing else None,
        "discard": [str(f) for f in state.discard],
        "hands": {
            name: {"count": hand.count, "known": show(hand.known), "laid": state.laid[seat]}
            for seat, (name, hand) in enumerate(zip(state.players, state.hands, strict=True))
        },
        "melds": [
            {"number": t.number, "owner": state.players[t.owner], "origin": list(t.origin), **t.meld.to_json()}
            for t in state.melds
        ],
        "pending_wild": None
        if state.pending is None
        else {"player": state.players[state.pending.seat], "wild": str(state.pending.wild), "meld": state.pending.meld},
        "out": None if state.out is None else state.players[state.out],
        "teams": {team: list(names) for team, names in team_names(state.players).items()},
        "totals": dict(sheet.totals),
    }
