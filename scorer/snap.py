"""Snap: the referee (2 to 12 players, one 52-card deck). Rules: ``shared/RULES.md`` (Snap);
sources: the Bicycle rules of Snap (the user's document), pagat.com.

Rules
    The whole deck is dealt one card at a time, face down, from the dealer's left, as evenly as
    possible; each player keeps a face-down pile. The player left of the dealer turns first, then
    play goes clockwise (the order of ``players`` is clockwise). On a turn a player turns the top
    card of their face-down pile onto their own face-up pile. When a face-up top matches another
    player's face-up top, the first player to call "Snap!" wins both piles and puts them under
    their face-down pile. Two calls at the same time (within ``tie_window_ms``) send the piles to
    the middle, face up, as the **Snap Pot**; a top that matches the pot's top is won, with the
    pot, by the first "Snap Pot!"; another tie adds the matching pile to the pot. A call with
    nothing to call is a **false call** and costs a penalty. A player whose face-down pile is
    empty turns the face-up pile over and goes on; a player with no cards is out. The last player
    with cards holds all the cards (the Snap Pot excepted) and wins.

Options
    ``match``: ``rank`` (default) | ``suit`` | ``colour`` — what makes two tops a match.
    ``false_call_penalty``: ``card_to_turner`` (default: the caller's next card goes to the player
    whose turn it is, or to the player on the caller's right if it is the caller's own turn) |
    ``card_to_each`` (one card to every other player still in) | ``pile_to_pot`` (the caller's
    face-up pile goes under the Snap Pot, forming it if there is none).
    ``callers``: ``anyone`` (default) | ``owners_only`` (only a player whose pile is in the match).
    ``tie_window_ms``: 0..2000, default 150 — calls this close to the first call tie with it.
    ``call_grace_ms``: 0..5000 — a call pressed after the window waits this long after it for slower phones'
    earlier presses before it settles the race; new games 1500, a log without it 0 (as it was played).
    ``call_style``: ``voice`` (default: "Snap!" / "Snap Pot!") | ``slap`` (players slap an object
    in the middle; a slap claims any match).

Events (payload fields besides ``seq``/``ts``/``source``/``type``)
    ``deal`` {dealer, counts?: {player: n}, order?: {player: [cards, top first]}} — once, first.
    ``flip`` {player, card} — the card the player turned onto their face-up pile.
    ``turn_over`` {player} — face-up pile turned over when the face-down pile is empty (a flip
    from an empty face-down pile does it by itself).
    ``call`` {player, kind: "snap" | "snap_pot" | "slap"} (``"slap": true`` is also accepted).
    ``resolve`` {} — settle the pending calls now (the dashboard sends it when the window ends).

Rulings: ``dealt``, ``uneven_deal``, ``match`` (alert), ``match_gone``, ``out_of_turn``,
``pile_turned_over``, ``call_heard``, ``snap_won``, ``snap_pot_won``, ``snap_pot_formed``,
``snap_pot_grown``, ``false_call``, ``penalty_paid``, ``late_call``, ``call_by_out_player``,
``player_out``, ``winner``. Calls are judged in :mod:`scorer.snap_calls`; card accounting lives
in :mod:`scorer.snap_table`. ``docs/games/snap.md`` gives the details and interpretations.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from scorer.cards import Card, CardError, parse_card
from scorer.events import EventError, GameEvent
from scorer.game import GameSpec, Option, Ruling, ScoreSheet, Severity
from scorer.registry import register
from scorer.snap_calls import hear_call, settle, window_closes
from scorer.snap_table import (
    DECK,
    Packet,
    SnapState,
    held,
    is_in,
    next_in,
    possible_flips,
    put,
    refresh,
    sort_cards,
    take_flip,
)

__all__ = ["GAME", "SPEC", "Snap", "SnapState", "even_counts", "possible_flips"]

Json = Any

SPEC = GameSpec(
    name="snap",
    title="Snap",
    min_players=2,
    max_players=12,
    simultaneous=True,
    event_types=("deal", "flip", "turn_over", "call", "resolve"),
    options=(
        Option("match", "rank", "what makes two face-up cards a match", choices=("rank", "suit", "colour")),
        Option(
            "false_call_penalty",
            "card_to_turner",
            "what a false call costs: a card to the player whose turn it is, a card to each player, "
            "or the caller's face-up pile into the Snap Pot",
            choices=("card_to_turner", "card_to_each", "pile_to_pot"),
        ),
        Option("callers", "anyone", "who may call a match", choices=("anyone", "owners_only")),
        Option("tie_window_ms", 150, "calls this close together (ms) tie and make a Snap Pot", "int", low=0, high=2000),
        Option(
            "call_grace_ms",
            0,
            "how long (ms) after the tie window a later call waits for slower phones' earlier presses before it "
            "settles the race (0: at once, as games logged before it was added were played)",
            "int",
            low=0,
            high=5000,
            fresh=1500,
        ),
        Option("call_style", "voice", "call aloud, or slap an object in the middle", choices=("voice", "slap")),
    ),
    rules_summary="Turn cards onto your face-up pile; call Snap! on a match to win both piles; "
    "ties make a Snap Pot; the last player with cards wins.",
)


def even_counts(players: int, dealer: int) -> dict[int, int]:
    """Cards per seat when the whole deck is dealt one at a time from the dealer's left."""
    base, extra = divmod(len(DECK), players)
    return {(dealer + 1 + step) % players: base + (1 if step < extra else 0) for step in range(players)}


class Snap:
    """The Snap referee: see the module docstring."""

    spec = SPEC

    def initial_state(self, players: Sequence[str], options: Mapping[str, Json]) -> SnapState:
        return SnapState(
            players=tuple(players),
            match_by=options["match"],
            penalty=options["false_call_penalty"],
            callers=options["callers"],
            window=options["tie_window_ms"],
            grace=options["call_grace_ms"],
            style=options["call_style"],
        )

    def apply(self, state: SnapState, event: GameEvent) -> tuple[SnapState, list[Ruling]]:
        if event.type == "deal":
            return _deal(state, event)
        if event.type not in SPEC.event_types:
            raise EventError(f"{event.where()}: Snap has no event '{event.shown_type}'")
        if state.phase == "deal":
            raise EventError(f"{event.where()}: the cards have not been dealt yet (send a 'deal' event first)")
        if state.phase == "over":
            names = " and ".join(state.name(seat) for seat in state.winners)
            raise EventError(f"{event.where()}: the game is over ({names} won at event {state.finished_seq})")
        if event.type == "call":
            return hear_call(state, event)
        if event.type == "resolve":
            return settle(state, event)
        seat = event.player(state.players)  # a flip or a turn-over: first settle the calls made before it
        card = event.card() if event.type == "flip" else None
        _check_in(state, seat, event)
        state, rulings = settle(state, event)
        if state.phase == "over":
            raise EventError(
                f"{event.where()}: settling the calls before it ends the game, so this cannot happen; "
                "send 'resolve' to settle them"
            )
        _check_in(state, seat, event)
        if event.type == "turn_over":
            state, more = _turn_over(state, seat, event)
        else:
            assert card is not None
            state, more = _flip(state, seat, card, event)
        return state, rulings + more

    def score(self, state: SnapState) -> ScoreSheet:
        dealt = bool(state.face_down)
        totals = {name: held(state, seat) if dealt else 0 for seat, name in enumerate(state.players)}
        winner = tuple(state.name(seat) for seat in state.winners) or None
        return ScoreSheet(totals, _standings(state), winner, state.phase == "over")

    def view(self, state: SnapState) -> dict[str, Json]:
        dealt = bool(state.face_down)
        piles = [
            {
                "player": name,
                "face_down": sum(p.size for p in state.face_down[seat]) if dealt else 0,
                # cards the referee saw go into that face-down pile (won piles, a pot, penalty cards)
                "face_down_known": [str(c) for c in sort_cards(c for p in state.face_down[seat] for c in p.cards)]
                if dealt
                else [],
                "face_up": len(state.face_up[seat]) if dealt else 0,
                "top": str(state.face_up[seat][-1]) if dealt and state.face_up[seat] else None,
                "out": not is_in(state, seat),
            }
            for seat, name in enumerate(state.players)
        ]
        return {
            "phase": state.phase,
            "dealer": state.name(state.dealer) if state.dealer >= 0 else None,
            "turn": state.name(state.turn) if state.phase == "play" else None,
            "piles": piles,
            "pot": {"cards": len(state.pot), "top": str(state.pot[-1]) if state.pot else None},
            "matches": [
                {
                    "players": [state.name(seat) for seat in m.seats()],
                    "cards": [str(m.first_card), str(m.second_card)],
                    "pot": m.with_pot,
                }
                for m in state.matches
            ],
            "pending_calls": [
                {"player": state.name(c.seat), "kind": c.kind, "ts": c.ts, "seq": c.seq} for c in state.pending
            ],
            "window_closes": window_closes(state),
            "unseen": len(state.unseen),
            "flips": state.flips,
            "winner": [state.name(seat) for seat in state.winners] or None,
        }


# -- events -------------------------------------------------------------------------------------------
def _check_in(state: SnapState, seat: int, event: GameEvent) -> None:
    if not is_in(state, seat):
        raise EventError(f"{event.where()}: {state.name(seat)} is out of the game and has no cards")


def _flip(state: SnapState, seat: int, card: Card, event: GameEvent) -> tuple[SnapState, list[Ruling]]:
    rulings: list[Ruling] = []
    name = state.name(seat)
    if not state.face_down[seat]:
        state, rulings = _turn_over(state, seat, event)
    if seat != state.turn:
        message = f"{name} turned a card out of turn: it was {state.name(state.turn)}'s turn."
        rulings.append(Ruling("out_of_turn", Severity.FOUL, message, name, event.seq))
    state = take_flip(state, seat, card, event)
    state = replace(state, turn=next_in(state, seat), settled=(), flips=state.flips + 1)
    state, more = refresh(state, event, f"{name} turned up {card}")
    return state, rulings + more


def _turn_over(state: SnapState, seat: int, event: GameEvent) -> tuple[SnapState, list[Ruling]]:
    name = state.name(seat)
    left = sum(packet.size for packet in state.face_down[seat])
    if left:
        raise EventError(
            f"{event.where()}: {name} still has {left} face-down card{'s' if left > 1 else ''}; "
            "the face-up pile is turned over only when the face-down pile is empty"
        )
    pile = state.face_up[seat]
    face_down = put(state.face_down, seat, (Packet(sort_cards(pile)),))
    state = replace(state, face_up=put(state.face_up, seat, ()), face_down=face_down)
    message = f"{name}'s face-down pile ran out: {name} turns the face-up pile ({len(pile)} cards) over."
    state, more = refresh(state, event, f"{name} turned the pile over")
    return state, [Ruling("pile_turned_over", Severity.INFO, message, name, event.seq), *more]


def _deal(state: SnapState, event: GameEvent) -> tuple[SnapState, list[Ruling]]:
    if state.phase != "deal":
        raise EventError(f"{event.where()}: the cards were dealt already; Snap has a single deal")
    dealer = event.player(state.players, "dealer")
    count = len(state.players)
    order = _read_order(state, event)
    counts = _read_counts(state, event)
    if not order and not counts:
        counts = even_counts(count, dealer)
    missing = [state.name(seat) for seat in range(count) if seat not in order and seat not in counts]
    both = [state.name(seat) for seat in order if seat in counts]
    if missing or both:
        raise EventError(
            f"{event.where()}: give every player exactly one of 'counts' or 'order' "
            f"({'missing: ' + ', '.join(missing) if missing else 'in both: ' + ', '.join(both)})"
        )
    sizes = {seat: len(order[seat]) if seat in order else counts[seat] for seat in range(count)}
    if sum(sizes.values()) != len(DECK):
        raise EventError(f"{event.where()}: the deal gives out {sum(sizes.values())} cards; Snap deals all 52")
    known = [card for cards in order.values() for card in cards]
    twice = sorted({str(card) for card in known if known.count(card) > 1})
    if twice:
        raise EventError(f"{event.where()}: the deal order holds {', '.join(twice)} more than once")
    face_down = tuple(
        tuple(Packet((card,)) for card in order[seat]) if seat in order else (Packet(hidden=counts[seat]),)
        for seat in range(count)
    )
    state = replace(
        state,
        phase="play",
        dealer=dealer,
        turn=(dealer + 1) % count,
        face_down=face_down,
        face_up=((),) * count,
        unseen=frozenset(DECK) - frozenset(known),
    )
    shares = ", ".join(f"{state.name(seat)} {sizes[seat]}" for seat in range(count))
    message = f"{state.name(dealer)} dealt: {shares}. {state.name(state.turn)} turns first."
    rulings = [Ruling("dealt", Severity.INFO, message, state.name(dealer), event.seq)]
    if max(sizes.values()) - min(sizes.values()) > 1:
        message = f"The deal is uneven ({shares}): Snap deals the cards as evenly as possible."
        rulings.append(Ruling("uneven_deal", Severity.FOUL, message, state.name(dealer), event.seq))
    return state, rulings


def _seat_map(state: SnapState, event: GameEvent, key: str) -> dict[int, Json]:
    value = event.data.get(key)
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise EventError(f"{event.where()}: '{key}' must map player names to values, like {{\"Beth\": ...}}")
    unknown = [name for name in value if name not in state.players]
    if unknown:
        raise EventError(f"{event.where()}: '{key}' names {unknown[0]!r}, who is not playing")
    return {state.players.index(name): item for name, item in value.items()}


def _read_counts(state: SnapState, event: GameEvent) -> dict[int, int]:
    counts = _seat_map(state, event, "counts")
    for seat, value in counts.items():
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise EventError(f"{event.where()}: 'counts' for {state.name(seat)} must be a whole number >= 1")
    return counts


def _read_order(state: SnapState, event: GameEvent) -> dict[int, tuple[Card, ...]]:
    order: dict[int, tuple[Card, ...]] = {}
    for seat, value in _seat_map(state, event, "order").items():
        if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
            raise EventError(f"{event.where()}: 'order' for {state.name(seat)} must be a list of cards, top first")
        try:
            order[seat] = tuple(parse_card(text) for text in value)
        except CardError as exc:
            raise EventError(f"{event.where()}: 'order' for {state.name(seat)}: {exc}") from None
    return order


# -- scoring ------------------------------------------------------------------------------------------
def _standings(state: SnapState) -> tuple[dict[str, Json], ...]:
    """One row per player as they leave the game (``place`` counts from the last), then the winner."""
    rows: list[dict[str, Json]] = []
    remaining = len(state.players)
    # in the order they went out (state.out grows in game order), not by seq: an event inserted later into the log
    # (a missed call entered with Insert after) has a later seq though it counts earlier, and its player was placed
    # above those who went out after them
    seqs = list(dict.fromkeys(seq for _, seq in state.out))
    for seq in seqs:
        group = [seat for seat, when in state.out if when == seq]
        place = remaining - len(group) + 1
        remaining -= len(group)
        rows += [{"player": state.name(seat), "place": place, "seq": seq} for seat in group]
    for seat in state.winners:
        if is_in(state, seat):
            rows.append({"player": state.name(seat), "place": 1, "seq": state.finished_seq})
    return tuple(rows)


GAME = register(Snap())
