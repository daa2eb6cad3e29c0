"""Spit: the referee (2 players, one 52-card deck; Ace high, 2 low).

Rules (``shared/RULES.md``, Spit; the user's rule page, as on gamerules.com "Spit"):

* Each player holds 26 cards and lays out 5 stock piles of 1, 2, 3, 4, 5 cards, top card face
  up; the rest are face-down **spit cards**. Both say "Spit!" and turn a spit card each into the
  middle: the two **spit piles**.
* Play is simultaneous. A face-up stock top may go on either spit pile when its rank is one
  above or below the pile's top (suits never matter); an Ace is next to both King and 2. Then
  the player turns up the next card of that stock pile. A face-up card may be moved into an
  empty stock space (never more than 5 piles), uncovering the card under it. Two plays on the
  same pile: the earlier in the log stands (``ts`` does not reorder them), the later is judged on the new top.
* Nobody can play (or turn up a card): both say "Spit!" and turn a spit card each.
* Round end: a player has played every stock card, or nobody can play and nobody has spit
  cards. Both slap the smaller spit pile: the first slapper takes the pile slapped, the other
  the other pile. Each adds their remaining stock and spit cards and lays out again; counts
  may now differ. With fewer than 15 cards a player lays every card into the 5 piles as far as
  they go and has no spit cards: that round uses a single spit pile.
* Standard win: in a one-pile round the first player to clear their stock takes nothing and
  the opponent takes the spit pile and their own cards; a player left with no cards wins.

Options: ``ace_wraps`` (true: Ace next to King and 2; false: Ace next to King only, Ace high),
``same_rank_allowed`` (false), ``scoring`` (``standard``; ``points``: every round each player
scores 1 point per stock and spit card still held, the game ends when anyone reaches 100 and
the lowest total wins), ``slap`` (``race``; ``winner_takes_smaller``: the player who cleared
their stock takes the smaller pile without a slap).

Events (0-based indices: ``stock`` 0-4, spit ``pile`` 0-1; messages count from 1)::

    {"type": "layout", "player": "Alex", "counts": [1, 2, 3, 4, 5], "tops": ["7H", "KS", ...]}
    {"type": "reveal", "player": "Alex", "stock": 2, "card": "9D"}
    {"type": "play", "player": "Alex", "card": "8C", "pile": 0, "from": 1}
    {"type": "move", "player": "Alex", "from": 3, "to": 0}
    {"type": "spit", "cards": {"Alex": "QS", "Beth": "4H"}, "piles": {"Alex": 1}}
    {"type": "slap", "player": "Beth", "pile": 1}
    {"type": "round_end", "player": "Beth"}

``tops`` (optional entries ``null``) are the face-up tops; ``from`` in a play is optional (a
``from`` pile whose top is still face down means the card was turned and played at once);
``spit`` ``piles`` is optional (default: a player's own pile, or pile 0 with a single pile).
Rulings, interpretations and examples: ``docs/games/spit.md``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from scorer.cards import Card, parse_card
from scorer.events import EventError, GameEvent
from scorer.game import GameSpec, Option, Ruling, ScoreSheet, Severity
from scorer.registry import register
from scorer.spit_rounds import (
    after_change,
    end_round,
    is_standard_layout,
    layout_slots,
    share_piles,
    start_round_if_ready,
)
from scorer.spit_table import (
    DECK,
    SLOTS,
    Foul,
    Phase,
    Placed,
    RoundEnd,
    Rules,
    Side,
    Slot,
    SpitState,
    can_uncover,
    fits,
    hidden_problem,
    is_stalled,
    legal_plays,
    pile_name,
    slot_name,
)

__all__ = ["GAME", "Spit"]

Json = Any
Result = tuple[SpitState, list[Ruling]]

SPEC = GameSpec(
    name="spit",
    title="Spit",
    min_players=2,
    max_players=2,
    simultaneous=True,
    event_types=("layout", "reveal", "play", "move", "spit", "slap", "round_end"),
    options=(
        Option("ace_wraps", True, "an Ace is next to both King and 2 (off: next to King only)", kind="bool"),
        Option("same_rank_allowed", False, "a card may go on a spit pile of the same rank", kind="bool"),
        Option(
            "scoring",
            "standard",
            "standard: win by running out of cards; points: 1 point per card held each round, 100 ends it",
            choices=("standard", "points"),
        ),
        Option(
            "slap",
            "race",
            "race: the first to slap the smaller pile takes it; winner takes smaller: the player who "
            "cleared their stock takes it",
            choices=("race", "winner_takes_smaller"),
        ),
    ),
    rules_summary="Play stock cards one rank up or down onto two spit piles, both at once; clear your stock first.",
)


class Spit:
    """The Spit referee: see the module docstring."""

    spec = SPEC

    def initial_state(self, players: Sequence[str], options: Mapping[str, Json]) -> SpitState:
        names = self.spec.check_players(players)
        given = self.spec.resolve(options)
        rules = Rules(given["ace_wraps"], given["same_rank_allowed"], given["scoring"], given["slap"])
        return SpitState(names, rules, sides=tuple(Side(hand=len(DECK) // 2) for _ in names))

    def apply(self, state: SpitState, event: GameEvent) -> Result:
        handler = _HANDLERS.get(event.type)
        if handler is None:
            known = ", ".join(_HANDLERS)
            raise EventError(f"{event.where()}: Spit has no event '{event.shown_type}' ({known})")
        if state.phase is Phase.OVER and event.type not in ("slap", "round_end"):
            raise EventError(f"{event.where()}: the game is over")
        return handler(state, event)

    def score(self, state: SpitState) -> ScoreSheet:
        if state.rules.scoring == "points":
            totals = dict(zip(state.players, state.points, strict=True))
        else:
            totals = {name: side.cards for name, side in zip(state.players, state.sides, strict=True)}
        return ScoreSheet(
            totals=totals,
            history=tuple(record.to_json(state.players) for record in state.history),
            winner=tuple(state.players[seat] for seat in state.winner) or None,
            finished=state.phase is Phase.OVER,
            lower_wins=True,
        )

    def view(self, state: SpitState) -> dict[str, Json]:
        return _view(state)


# -- events ---------------------------------------------------------------------------------------
def _layout(state: SpitState, event: GameEvent) -> Result:
    seat = event.player(state.players)
    name, side = state.players[seat], state.sides[seat]
    if state.phase is not Phase.LAYOUT:
        raise EventError(f"{event.where()}: {name} cannot lay out now ({_phase_text(state)})")
    if side.laid_out:
        raise EventError(f"{event.where()}: {name} has already laid out this round (correct that layout instead)")
    counts = _counts(event)
    tops = _tops(event, counts)
    if sum(counts) > side.hand:
        raise EventError(f"{event.where()}: {name} holds {side.hand} cards, fewer than the {sum(counts)} laid out")
    spit = side.hand - sum(counts)
    if event.has("spit") and event.integer("spit", 0) != spit:
        raise EventError(
            f"{event.where()}: {name} holds {side.hand} cards, so {spit} spit cards, not {event.data['spit']}"
        )
    laid = Side(stock=layout_slots(counts), spit=spit, known=side.known, laid_out=True)
    state = replace(state, sides=_with(state.sides, seat, laid))
    for index, top in enumerate(tops):
        if top is not None:
            state = _turn_up(state, seat, index, top, event)
    rulings = []
    if not is_standard_layout(counts, side.hand):
        want = "piles of 1, 2, 3, 4 and 5 cards" if side.hand >= 15 else f"all {side.hand} cards in the 5 piles"
        message = f"{name} laid out piles of {_list(counts)}: with {side.hand} cards the layout is {want}."
        rulings.append(Ruling("bad_layout", Severity.FOUL, message, name, event.seq, {"counts": list(counts)}))
    if all(s.laid_out and s.spit == 0 for s in state.sides):
        raise EventError(f"{event.where()}: nobody keeps spit cards, so no spit pile can start")
    state, more = start_round_if_ready(state, event.seq)
    return state, rulings + more


def _reveal(state: SpitState, event: GameEvent) -> Result:
    seat = event.player(state.players)
    index = event.integer("stock", 0, SLOTS - 1)
    card = event.card()
    name, side = state.players[seat], state.sides[seat]
    if _just_shared(state):
        message = f"{name} turned up {card} after the round ended; the stock is already picked up."
        return state, [Ruling("late_reveal", Severity.INFO, message, name, event.seq, {"card": str(card)})]
    if not side.laid_out or state.phase not in (Phase.LAYOUT, Phase.START, Phase.PLAY, Phase.SLAP):
        raise EventError(f"{event.where()}: {name} cannot turn up a stock card now ({_phase_text(state)})")
    slot = side.stock[index]
    if not slot.needs_reveal:
        shows = f"already shows {slot.top}" if slot.top is not None else "is empty"
        raise EventError(f"{event.where()}: {name}'s {slot_name(index)} {shows}")
    state = _turn_up(_acted(state, seat), seat, index, card, event)
    return after_change(state, event.seq) if state.phase is Phase.PLAY else (state, [])


def _acted(state: SpitState, seat: int) -> SpitState:
    """``seat`` played, moved or turned up a card: no longer waiting to turn a spit card for the last Spit! call (a
    spit card turned later, while a play is possible, is a false Spit!)."""
    return replace(state, called=tuple(s for s in state.called if s != seat)) if seat in state.called else state


def _play(state: SpitState, event: GameEvent) -> Result:
    seat = event.player(state.players)
    card = event.card()
    pile = event.integer("pile", 0, 1)
    name = state.players[seat]
    if state.phase is Phase.SLAP:
        _locate(state, seat, card, event)  # a late card must still be one the player could play
    if state.phase is Phase.SLAP or _just_shared(state):
        message = f"{name} played {card} after the round ended: take it back."
        return state, [Ruling("late_play", Severity.FOUL, message, name, event.seq, {"card": str(card)})]
    if state.phase is not Phase.PLAY:
        raise EventError(f"{event.where()}: no card can be played now ({_phase_text(state)})")
    if pile >= len(state.piles):
        # messages for people count from 1 (the Log's picker offered "pile 2" and was told "'pile' must be 0")
        raise EventError(f"{event.where()}: this round has a single spit pile: play on spit pile 1 ('pile' 0)")
    index, state = _locate(_acted(state, seat), seat, card, event)
    below = state.piles[pile]
    top = below[-1]
    side = state.sides[seat]
    stock = _with(side.stock, index, Slot(side.stock[index].down, None))
    piles = _with(state.piles, pile, (*below, Placed(card, seat, event.seq, True)))
    state = replace(state, sides=_with(state.sides, seat, replace(side, stock=stock)), piles=piles)
    if fits(card, top.card, state.rules):
        if state.sides[seat].stock_cards == 0:
            return end_round(state, RoundEnd("cleared", seat, event.seq))
        return after_change(state, event.seq)
    raced = len(below) > 1 and top.seat != seat and top.played and fits(card, below[-2].card, state.rules)
    code = "lost_race" if raced else "illegal_play"
    if raced:
        why = f"{state.players[top.seat]}'s {top.card} landed on {pile_name(pile)} first, and {card} does not go on it"
    elif card.rank is top.card.rank:
        why = f"{card} is the same rank as {top.card}"
    else:
        why = f"{card} is not one rank above or below {top.card}"
    message = f"{name} played {card} on {pile_name(pile)}: {why}. Take it back."  # the badge says "foul"
    data = {"card": str(card), "pile": pile, "top": str(top.card), "from": index}
    state = replace(state, fouls=(*state.fouls, Foul(event.seq, state.round, seat, card, pile, index, code)))
    # no Spit! call and no blocked round on a card to be taken back: nothing fitting it must not end the round (in a
    # one-pile round it gave the foul player the game)
    return state, [Ruling(code, Severity.FOUL, message, name, event.seq, data)]


def _move(state: SpitState, event: GameEvent) -> Result:
    seat = event.player(state.players)
    source = event.integer("from", 0, SLOTS - 1)
    target = event.integer("to", 0, SLOTS - 1)
    name, side = state.players[seat], state.sides[seat]
    if state.phase is not Phase.PLAY:
        raise EventError(f"{event.where()}: no card can be moved now ({_phase_text(state)})")
    if source == target:
        raise EventError(f"{event.where()}: 'from' and 'to' are the same stock pile")
    card = side.stock[source].top
    if card is None:
        raise EventError(f"{event.where()}: {name}'s {slot_name(source)} has no face-up card to move")
    if event.has("card") and event.card() != card:
        raise EventError(f"{event.where()}: {name}'s {slot_name(source)} shows {card}, not {event.card()}")
    if not side.stock[target].is_empty:
        message = (
            f"{name} moved {card} onto {slot_name(target)}, which is not empty: a card may only move "
            "into an empty space. Put it back."
        )
        return state, [Ruling("illegal_move", Severity.FOUL, message, name, event.seq, {"card": str(card)})]
    stock = _with(_with(side.stock, target, Slot(0, card)), source, Slot(side.stock[source].down, None))
    state = replace(_acted(state, seat), sides=_with(state.sides, seat, replace(side, stock=stock)))
    return after_change(state, event.seq)


def _spit(state: SpitState, event: GameEvent) -> Result:
    if state.phase not in (Phase.START, Phase.PLAY):
        raise EventError(f"{event.where()}: no spit card can be turned now ({_phase_text(state)})")
    turned = _spit_cards(state, event)
    opening = state.phase is Phase.START
    targets = _spit_targets(state, event, [seat for seat, _ in turned])
    rulings = []
    if opening:
        missing = [state.players[s] for s, side in enumerate(state.sides) if side.spit and s not in dict(turned)]
        if missing:
            raise EventError(f"{event.where()}: the opening Spit! needs a card from {' and '.join(missing)}")
        if len(set(targets.values())) != state.pile_count:
            raise EventError(f"{event.where()}: the opening Spit! starts each spit pile with one card")
        state = replace(state, piles=((),) * state.pile_count, phase=Phase.PLAY)
    elif not is_stalled(state) and any(seat not in state.called for seat, _ in turned):
        callers = " and ".join(state.players[seat] for seat, _ in turned if seat not in state.called)
        message = f"False Spit! ({callers}): {_false_spit_text(state)}"  # it said only "Alex can still play 4S ..."
        rulings.append(Ruling("false_spit", Severity.FOUL, message, None, event.seq))
    state = replace(state, called=tuple(s for s in state.called if s not in dict(turned)))
    for seat, card in turned:
        side = state.sides[seat]
        problem = hidden_problem(state, seat, card)
        if problem:
            raise EventError(f"{event.where()}: {problem}")
        side = replace(side, spit=side.spit - 1, known=side.known - {card})
        pile = targets[seat]
        piles = _with(state.piles, pile, (*state.piles[pile], Placed(card, seat, event.seq, False)))
        state = replace(state, sides=_with(state.sides, seat, side), piles=piles)
    state, more = after_change(state, event.seq)
    return state, rulings + more


def _slap(state: SpitState, event: GameEvent) -> Result:
    seat = event.player(state.players)
    pile = event.integer("pile", 0, 1)
    name = state.players[seat]
    if state.phase is Phase.PLAY:
        message = f"{name} slapped a spit pile while the round is still on."
        return state, [Ruling("early_slap", Severity.FOUL, message, name, event.seq)]
    if state.phase is Phase.SLAP:
        sizes = [len(cards) for cards in state.piles]
        takes = tuple(seat if index == pile else 1 - seat for index in range(len(sizes)))
        note = f"{name} slapped {pile_name(pile)} first"
        note += " (the larger one!): " if sizes[pile] > min(sizes) else ": "
        return share_piles(state, takes, event.seq, note, first=seat)
    if _just_shared(state):
        message = f"{name}'s slap came too late: the spit piles are already shared."
        return state, [Ruling("late_slap", Severity.INFO, message, name, event.seq)]
    raise EventError(f"{event.where()}: there is nothing to slap now ({_phase_text(state)})")


def _round_end(state: SpitState, event: GameEvent) -> Result:
    player = state.players[event.player(state.players)] if event.has("player") else None
    if state.phase is Phase.START or (state.phase is Phase.LAYOUT and not state.history):
        starting = state.phase is Phase.START
        then = "Say Spit! and turn the opening spit cards." if starting else "Lay out the stock piles."
        message = f"The round is not over: it has not begun. {then}"
        return state, [Ruling("false_round_end", Severity.FOUL, message, player, event.seq)]
    if state.phase is not Phase.PLAY:  # a round just ended, said late: nothing to rule
        return state, []
    if is_stalled(state):
        spitters = " and ".join(name for name, side in zip(state.players, state.sides, strict=True) if side.spit)
        why = f"{spitters} still {'have' if ' and ' in spitters else 'has'} spit cards: say Spit!"
    else:
        why = _false_spit_text(state)
    message = f"The round is not over: {why}"
    return state, [Ruling("false_round_end", Severity.FOUL, message, player, event.seq)]


_HANDLERS: dict[str, Callable[[SpitState, GameEvent], Result]] = {
    "layout": _layout,
    "reveal": _reveal,
    "play": _play,
    "move": _move,
    "spit": _spit,
    "slap": _slap,
    "round_end": _round_end,
}


# -- helpers --------------------------------------------------------------------------------------
def _with(items: tuple[Any, ...], index: int, value: Any) -> tuple[Any, ...]:
    return (*items[:index], value, *items[index + 1 :])


def _turn_up(state: SpitState, seat: int, index: int, card: Card, event: GameEvent) -> SpitState:
    """``seat`` turns ``card`` face up on top of stock pile ``index`` (its top is face down)."""
    problem = hidden_problem(state, seat, card)
    if problem:
        raise EventError(f"{event.where()}: {problem}")
    side = state.sides[seat]
    stock = _with(side.stock, index, Slot(side.stock[index].down - 1, card))
    return replace(state, sides=_with(state.sides, seat, replace(side, stock=stock, known=side.known - {card})))


def _locate(state: SpitState, seat: int, card: Card, event: GameEvent) -> tuple[int, SpitState]:
    """The stock pile ``card`` is played from (turning it up first if it was played from face down)."""
    name, stock = state.players[seat], state.sides[seat].stock
    if event.has("from"):
        index = event.integer("from", 0, SLOTS - 1)
        if stock[index].top == card:
            return index, state
        if stock[index].needs_reveal:
            return index, _turn_up(state, seat, index, card, event)
        shows = f"shows {stock[index].top}" if stock[index].top else "is empty"
        raise EventError(f"{event.where()}: {name}'s {slot_name(index)} {shows}, not {card}")
    for index, slot in enumerate(stock):
        if slot.top == card:
            return index, state
    tops = _list([slot.top for slot in stock if slot.top]) or "no face-up card"
    raise EventError(f"{event.where()}: {card} is not face up on {name}'s stock (it shows {tops})")


def _counts(event: GameEvent) -> tuple[int, ...]:
    counts = event.items("counts")
    ok = 1 <= len(counts) <= SLOTS and all(type(c) is int and 0 <= c <= len(DECK) for c in counts)
    if not ok or not sum(counts):
        raise EventError(f"{event.where()}: 'counts' must list the cards in each of up to 5 stock piles")
    return tuple(counts)


def _tops(event: GameEvent, counts: tuple[int, ...]) -> tuple[Card | None, ...]:
    if not event.has("tops"):
        return (None,) * len(counts)
    items = event.items("tops")
    if len(items) != len(counts):
        raise EventError(f"{event.where()}: 'tops' must give one card (or null) per stock pile in 'counts'")
    tops: list[Card | None] = []
    for count, item in zip(counts, items, strict=True):
        if item is None:
            tops.append(None)
            continue
        card = _parse(event, "tops", item)
        if not count:
            raise EventError(f"{event.where()}: 'tops' shows {card} on an empty stock pile")
        tops.append(card)
    return tuple(tops)


def _parse(event: GameEvent, key: str, item: Json) -> Card:
    if not isinstance(item, str):
        raise EventError(f"{event.where()}: '{key}' must hold cards like 'AS' or '10H', not {item!r}")
    try:
        return parse_card(item)
    except ValueError as exc:
        raise EventError(f"{event.where()}: '{key}': {exc}") from None


def _spit_cards(state: SpitState, event: GameEvent) -> list[tuple[int, Card]]:
    given = event.data.get("cards")
    if not isinstance(given, Mapping) or not given:
        raise EventError(
            f'{event.where()}: \'cards\' must map players to the spit card each turned, like {{"Alex": "7H"}}'
        )
    turned = []
    for name, item in given.items():
        if name not in state.players:
            raise EventError(f"{event.where()}: 'cards' names {name!r}, who is not playing")
        seat = state.players.index(name)
        if state.sides[seat].spit == 0:
            raise EventError(f"{event.where()}: {name} has no spit cards left")
        turned.append((seat, _parse(event, "cards", item)))
    return sorted(turned, key=lambda pair: pair[0])


def _spit_targets(state: SpitState, event: GameEvent, seats: list[int]) -> dict[int, int]:
    targets = {seat: 0 if state.single_pile else seat for seat in seats}
    given = event.data.get("piles", {})
    if not isinstance(given, Mapping):
        raise EventError(f"{event.where()}: 'piles' must map players to a spit pile, like {{\"Alex\": 1}}")
    for name, pile in given.items():
        if name not in state.players or state.players.index(name) not in targets:
            raise EventError(f"{event.where()}: 'piles' names {name!r}, who turned no spit card")
        if type(pile) is not int or not 0 <= pile < state.pile_count:
            raise EventError(
                f"{event.where()}: 'piles' must give a spit pile from 0 to {state.pile_count - 1} "
                f"(spit pile 1 to {state.pile_count})"
            )
        targets[state.players.index(name)] = pile
    return targets


def _just_shared(state: SpitState) -> bool:
    """The round has ended and its spit piles are shared, and nobody has laid out again yet."""
    return (
        state.phase in (Phase.LAYOUT, Phase.OVER)
        and bool(state.history)
        and not any(side.laid_out for side in state.sides)
    )


def _false_spit_text(state: SpitState) -> str:
    plays = legal_plays(state)
    if plays:
        play = plays[0]
        return f"{state.players[play.seat]} can still play {play.card} on {pile_name(play.pile)}."
    for name, side in zip(state.players, state.sides, strict=True):
        if any(slot.needs_reveal for slot in side.stock):
            return f"{name} can still turn up a stock card."
    for name, side in zip(state.players, state.sides, strict=True):
        if can_uncover(side):
            return f"{name} can still move a face-up stock card into an empty space to uncover the card under it."
    return "nobody is stuck yet."


def _phase_text(state: SpitState) -> str:
    return {
        Phase.LAYOUT: "the players are laying out",
        Phase.START: "waiting for the opening Spit!",
        Phase.PLAY: "the round is in play",
        Phase.SLAP: "the round is over: waiting for the slap",
        Phase.OVER: "the game is over",
    }[state.phase]


def _list(items: Sequence[object]) -> str:
    return ", ".join(str(item) for item in items)


def _view(state: SpitState) -> dict[str, Json]:
    stalled = is_stalled(state)
    alerts = []
    if state.phase is Phase.START:
        alerts.append("Say Spit! and turn the opening spit cards.")
    if stalled:
        alerts.append("Spit! Nobody can play.")
    if state.phase is Phase.SLAP:
        alerts.append("Round over: slap the smaller spit pile!")
    fouls = [f for f in state.fouls if f.round == state.round]
    players = {
        name: {
            "stock": [{"down": slot.down, "top": None if slot.top is None else str(slot.top)} for slot in side.stock],
            "spit_cards": side.spit,
            "hand": side.hand,
            "cards": side.cards,
            "laid_out": side.laid_out,
            # the face-down cards known to be this player's (face up when they picked them up): the camera gives a
            # spit card to the player known to hold it (vision/observers/spit.py)
            "known": sorted(str(c) for c in side.known),
        }
        for name, side in zip(state.players, state.sides, strict=True)
    }
    return {
        "phase": state.phase.value,
        "round": state.round,
        "single_pile": state.single_pile,
        "players": players,
        "spit_piles": [{"top": str(cards[-1].card), "size": len(cards)} for cards in state.piles],
        # the cards under the spit piles' tops: played this round, they cannot show anywhere again until it ends
        "covered": [str(c.card) for cards in state.piles for c in cards[:-1]],
        "legal_plays": [
            {"player": state.players[p.seat], "card": str(p.card), "from": p.slot, "pile": p.pile}
            for p in legal_plays(state)
        ],
        "stalled": stalled,
        # the players the last Spit! call told to turn a spit card who have not turned it yet
        "called": [state.players[seat] for seat in state.called],
        "alerts": alerts,
        "fouls": [
            {"seq": f.seq, "player": state.players[f.seat], "card": str(f.card), "pile": f.pile, "code": f.code}
            for f in fouls
        ],
        "points": dict(zip(state.players, state.points, strict=True)) if state.rules.scoring == "points" else None,
        "winner": [state.players[seat] for seat in state.winner] or None,
    }


GAME = register(Spit())
