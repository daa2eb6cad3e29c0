"""Ten's score sheet and dashboard view: pure functions of a :class:`~scorer.ten_state.TenState`.

The points are the exact end count of :func:`scorer.ten_scoring.best_score` on each player's
collection (live standings while playing, the result once the game is over); ties go to the most
currency tokens (bust tokens excluded), then to the fewest collected cards, then are shared.
"""

from __future__ import annotations

from typing import Any

from scorer.game import ScoreSheet
from scorer.ten_scoring import TenScore, best_score, rank_players
from scorer.ten_state import Phase, TenState

__all__ = ["score_sheet", "table_view"]

Json = Any


def _scores(state: TenState) -> list[TenScore]:
    return [best_score(h.cards, state.rules.complete_run) for h in state.holdings]


def _places(state: TenState, scores: list[TenScore]) -> list[int]:
    return rank_players(
        [s.points for s in scores], [h.tokens for h in state.holdings], [len(h.cards) for h in state.holdings]
    )


def score_sheet(state: TenState) -> ScoreSheet:
    """Totals, one history row per turn (and per last buy), and the final count once the game is over."""
    scores = _scores(state)
    totals = {name: score.points for name, score in zip(state.players, scores, strict=True)}
    history = [row.to_json(state.players, number) for number, row in enumerate(state.rows, start=1)]
    if state.phase is not Phase.OVER:
        return ScoreSheet(totals, tuple(history))
    places = _places(state, scores)
    winner = tuple(name for name, place in zip(state.players, places, strict=True) if place == 1)
    history.append(
        {
            "count": "final",
            "points": totals,
            "tokens": {name: h.tokens for name, h in zip(state.players, state.holdings, strict=True)},
            "cards": {name: len(h.cards) for name, h in zip(state.players, state.holdings, strict=True)},
        }
    )
    return ScoreSheet(totals, tuple(history), winner, finished=True)


def table_view(state: TenState) -> dict[str, Json]:
    """What the dashboard shows: the phase and prompt, the tableau and its totals, the market, the
    auction, and each player's tokens, cards, best runs (with the wilds placed) and place."""
    scores = _scores(state)
    places = _places(state, scores)
    players = {
        name: {
            "tokens": h.tokens,
            "bust_tokens": h.bust_tokens,
            "cards": [str(c) for c in h.cards],
            "place": place,
            **score.to_json(),
        }
        for name, h, score, place in zip(state.players, state.holdings, scores, places, strict=True)
    }
    auction = state.auction
    return {
        "phase": state.phase.value,
        "active": state.players[state.active],
        "prompt": _prompt(state),
        "deck_left": state.deck_left,
        "tableau": [str(c) for c in state.tableau],
        "running_total": {"total": state.total, "numbers": state.numbers, "currency": state.currency},
        "market": [str(c) for c in state.market],
        "discarded": len(state.discard),
        "auction": None
        if auction is None
        else {
            "card": str(auction.wild),
            "next": state.players[auction.bidders[0]],
            "high_bid": auction.high_bid,
            "high_bidder": None if auction.high_bidder is None else state.players[auction.high_bidder],
        },
        "ending": state.ending,
        "last_buys": [state.players[s] for s in state.final_order],
        "supply": {"tokens": state.supply_tokens, "bust_tokens": state.supply_bust},
        "players": players,
        "score_only": state.score_only,
    }


def _prompt(state: TenState) -> str:
    name = state.players[state.active]
    if state.phase is Phase.AUCTION and state.auction is not None:
        return f"Auction of {state.auction.wild}: {state.players[state.auction.bidders[0]]} bids or passes."
    if state.phase is Phase.BUY:
        return f"{name} may buy one card from the market."
    if state.phase is Phase.FINAL_BUY:
        return f"Last buys: {state.players[state.final_order[0]]} may buy one card."
    if state.phase is Phase.OVER:
        return "The game is over." + _tie_note(state)
    if state.ending:
        return f"{name} takes a prize: no more cards are drawn."
    return f"{name} draws or stops."


def _tie_note(state: TenState) -> str:
    """How a tie on points was settled, for the final prompt: by the most currency tokens, then the fewest cards (or
    shared); empty when one player has the most points."""
    scores = _scores(state)
    points = [score.points for score in scores]
    level = [seat for seat, p in enumerate(points) if p == max(points)]
    if len(level) < 2:
        return ""
    names = state.players
    tokens = [h.tokens for h in state.holdings]
    cards = [len(h.cards) for h in state.holdings]
    places = _places(state, scores)
    won = [seat for seat in level if places[seat] == 1]
    joined = _names([names[seat] for seat in won])
    if len(won) == len(level):
        return f" {joined} share first place on {points[level[0]]} points (as many tokens, as many cards)."
    most = max(tokens[seat] for seat in level)
    by_tokens = [seat for seat in level if tokens[seat] < most]
    by_cards = [seat for seat in level if tokens[seat] == most and seat not in won]
    reasons = []
    if by_tokens:
        reasons.append("more tokens (" + ", ".join(f"{names[seat]} {tokens[seat]}" for seat in level) + ")")
    if by_cards:
        shown = [seat for seat in level if tokens[seat] == most]
        reasons.append("fewer cards (" + ", ".join(f"{names[seat]} {cards[seat]}" for seat in shown) + ")")
    by = ", then ".join(reasons)
    if len(won) == 1:
        return f" {joined} wins the tie on {points[level[0]]} points by {by}."
    behind = _names([names[seat] for seat in level if seat not in won])
    return f" {joined} share first place on {points[level[0]]} points, ahead of {behind} by {by}."


def _names(names: list[str]) -> str:
    """ "Alex", "Alex and Beth", "Alex, Beth and Cara"."""
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
