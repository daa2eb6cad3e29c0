"""Push: a partnership rummy for 4 players (two 52-card decks + 4 jokers); lowest total wins.

Rules (gamerules.com "Push"; ``shared/RULES.md``, section Push):

* Partners sit opposite: seats 0 & 2 against 1 & 3. Five deals of 6, 7, 8, 9 and 10 cards; the deal
  passes left. The rest is the stock; one card turned up starts the discard pile.
* Jokers and 2s are wild. Melds are sets (3+ of a rank) and runs (3+ in sequence in one suit, Ace
  high or low, never round the corner), each with a natural card; see :mod:`scorer.push_melds`.
* Each player's first meld of a deal must make the deal's requirement: 1) two sets of 3; 2) a set
  of 3 and a run of 4; 3) two runs of 4; 4) three sets of 3; 5) two runs of 5. Only then may they
  meld more, lay off on any meld, or swap a natural card for the wild standing for it (the freed
  wild must go into another meld at once; a 2 standing for itself cannot be swapped out).
* A turn: draw (take the top discard, **or push**: pass the top stock card and the top discard to
  the left-hand player, then draw from the stock), meld, discard. The player on the dealer's left
  starts. A deal ends when a player's hand is empty (by melding or discarding the last card) or the
  stock is empty when a player must draw. The stock holds an odd number of cards at every draw, so
  that happens when a player pushes the last stock card (a push with an empty stock is refused).
* Each deal: if a player went out, their team scores 0 and the other team its cards in hand;
  otherwise both teams score their hands. K-10 10, 9-3 5, A 15, jokers and 2s 20.

Options: ``upcard`` (default on): a wild upcard is buried in the stock and another turned (the
``upcard`` event); off, it stays. ``set_suits_distinct`` (default off): a set's cards have
different suits (so a set has at most 4 cards).

Events (players by name; cards ``7H``, ``JK``, or ``7H/2`` for a copy; melds numbered from 1):

* ``deal`` {dealer?, upcard, hands?: {name: [cards]}} — hands (all or some) when known;
* ``upcard`` {card} — the wild upcard was buried in the stock and ``card`` turned instead;
* ``draw`` {player, from: "discard" | "stock", card?};
* ``push`` {player, stock_card?, discard_card?} — then the pusher's ``draw`` from the stock;
* ``meld`` {player, melds: [{kind: "set" | "run", cards: [...], wilds?: {"JK/1": "5H"}}]};
* ``layoff`` {player, meld, cards, wilds?}; ``swap`` {player, meld, card, wild};
* ``discard`` {player, card};
* ``deal_end`` {hands: {name: [cards left]}, out?: name} — ends a deal; on its own (no ``deal``
  before it) it is the score-only entry for a whole deal.

The referee follows the table: an action out of turn or out of order is recorded and flagged; an
invalid meld, lay-off or swap is refused (the cards go back into the hand, now known).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from scorer.cards import Face
from scorer.events import EventError, GameEvent
from scorer.game import GameSpec, Option, Ruling, ScoreSheet, Severity
from scorer.push_melds import (
    DEAL_SIZES,
    Meld,
    check_layoff,
    check_meld,
    check_swap,
    describe_requirement,
    find_requirement,
    is_wild,
    meets_requirement,
    requirement_shortfall,
)
from scorer.push_scoring import end_deal, score_sheet, table_view
from scorer.push_table import (
    DECK,
    Hand,
    Pending,
    PushState,
    TableMeld,
    give,
    read_entries,
    read_face,
    read_wilds,
    reveal,
    ruling,
    sort_faces,
    take,
    unseen,
)
from scorer.registry import register

__all__ = ["GAME", "Push", "PushState"]

Json = Any
Rulings = list[Ruling]


def _ruling(state: PushState, event: GameEvent, code: str, severity: Severity, message: str, seat: int | None,
            **data: Json) -> Ruling:  # fmt: skip
    player = None if seat is None else state.players[seat]
    return ruling(code, severity, message, player, event.seq, **data)


def _foul(state: PushState, event: GameEvent, code: str, message: str, seat: int | None, **data: Json) -> Ruling:
    return _ruling(state, event, code, Severity.FOUL, message, seat, **data)


# -- turns ---------------------------------------------------------------------------------------
def _in_play(state: PushState, event: GameEvent) -> None:
    if state.phase == "waiting":
        raise EventError(f"{event.where()}: no deal is in play: start one with a 'deal' event")
    if state.phase == "counting":
        raise EventError(f"{event.where()}: deal {state.deal} is over: report the hands with 'deal_end'")
    if state.phase == "over":
        raise EventError(f"{event.where()}: the game is over (five deals)")


def _begin_draw(state: PushState, event: GameEvent, seat: int) -> tuple[PushState, Rulings]:
    _in_play(state, event)
    name, rulings = state.players[seat], []
    if state.step == "bury":
        wild = state.discard[-1]
        rulings.append(
            _foul(  # and the burial then refused with no way on (the wording audit, session 40)
                state,
                event,
                "wild_upcard",
                f"the wild upcard {wild} should have been buried (to bury it now, undo this {event.type} first)",
                state.dealer,
            )
        )
    if seat != state.turn:
        current = state.players[state.turn]
        if state.step == "play" and seat == state.left_of(state.turn):
            rulings.append(
                _foul(state, event, "discard_missing", f"{current} ended the turn without discarding", state.turn)
            )
        else:
            rulings.append(_foul(state, event, "out_of_turn", f"{name} drew out of turn: it is {current}'s turn", seat))
        state = replace(state, turn=seat, step="draw")
    elif state.step == "play":
        rulings.append(_foul(state, event, "already_drew", f"{name} already drew this turn", seat))
    return state, rulings


def _begin_play(state: PushState, event: GameEvent, seat: int) -> tuple[PushState, Rulings]:
    _in_play(state, event)
    name, rulings = state.players[seat], []
    if seat != state.turn:
        current = state.players[state.turn]
        rulings.append(_foul(state, event, "out_of_turn", f"{name} played out of turn: it is {current}'s turn", seat))
    elif state.step != "play":
        rulings.append(_foul(state, event, "draw_missing", f"{name} played without drawing first", seat))
    return replace(state, turn=seat, step="play"), rulings


def _went_out(state: PushState, event: GameEvent, seat: int) -> tuple[PushState, Rulings]:
    """After a card leaves ``seat``'s hand: is the deal over?"""
    if state.hands[seat].count:
        return state, []
    name = state.players[seat]
    message = f"{name} went out: deal {state.deal} is over; report the cards left in each hand"
    state = replace(state, phase="counting", out=seat)
    return state, [_ruling(state, event, "went_out", Severity.INFO, message, seat)]


# -- events --------------------------------------------------------------------------------------
def _deal(state: PushState, event: GameEvent) -> tuple[PushState, Rulings]:
    if state.phase == "over":
        raise EventError(f"{event.where()}: the game is over (five deals)")
    if state.phase != "waiting":
        raise EventError(f"{event.where()}: deal {state.deal} has not been scored: send its 'deal_end' first")
    number = state.deal + 1
    size = DEAL_SIZES[number]
    expected = None if state.dealer is None else state.left_of(state.dealer)
    if event.has("dealer"):
        dealer = event.player(state.players, "dealer")
    elif expected is None:
        raise EventError(f"{event.where()}: 'dealer' is missing (who deals deal {number})")
    else:
        dealer = expected
    rulings = []
    if expected is not None and dealer != expected:
        who = state.players[expected]
        rulings.append(
            _ruling(state, event, "wrong_dealer", Severity.ALERT, f"The deal passes left: {who} deals", dealer)
        )
    upcard = read_face(event, "upcard")
    hands = [Hand(size)] * 4
    raw = event.data.get("hands") or {}
    if not isinstance(raw, Mapping):
        raise EventError(f"{event.where()}: 'hands' must map names to their cards")
    for name, cards in raw.items():
        if name not in state.players:
            raise EventError(
                f"{event.where()}: 'hands' names {name!r}, who is not playing ({', '.join(state.players)})"
            )
        seat = state.players.index(name)
        faces = [f for f, _ in read_entries(cards, f"{event.where()}: {name}'s hand")]
        if len(faces) != size:
            raise EventError(f"{event.where()}: deal {number} gives {size} cards each; {name} has {len(faces)}")
        hands[seat] = Hand(size, tuple(faces))
    dealt = Counter([upcard, *(f for h in hands for f in h.known)])
    extra = [f for f in dealt if dealt[f] > DECK[f]]
    if extra:
        raise EventError(f"{event.where()}: {dealt[extra[0]]} {extra[0]} were dealt; Push has {DECK[extra[0]]}")
    bury = state.bury_wild_upcard and is_wild(upcard)
    new = replace(
        state, deal=number, phase="play", dealer=dealer, turn=state.left_of(dealer), step="bury" if bury else "draw",
        stock=sum(DECK.values()) - 4 * size - 1, discard=(upcard,), melds=(),
        laid=(False,) * 4, pending=None, out=None,
    )  # fmt: skip
    new = replace(new, hands=tuple(Hand(h.count, sort_faces(h.known)) for h in hands))
    if bury:
        rulings.append(_wild_upcard(new, event, upcard))
    return new, rulings


def _wild_upcard(state: PushState, event: GameEvent, wild: Face) -> Ruling:
    message = f"The upcard {wild} is wild: bury it in the stock and turn the next card (enter the card turned)"
    return _ruling(state, event, "wild_upcard", Severity.ALERT, message, state.dealer)


def _upcard(state: PushState, event: GameEvent) -> tuple[PushState, Rulings]:
    if not state.bury_wild_upcard:
        raise EventError(f"{event.where()}: the house rule 'upcard' is off: a wild upcard stays where it is")
    if state.phase != "play" or state.step != "bury":
        raise EventError(
            f"{event.where()}: there is no wild upcard to bury: one is buried right after the deal, before anyone "
            "draws (if a draw or push was entered before the burial, undo it first)"
        )
    card = read_face(event, "card")
    if card == state.discard[-1] and not unseen(state)[card]:  # (it was "cannot be in the stock": it is, just buried)
        raise EventError(
            f"{event.where()}: {card} is the wild upcard being buried, and no other {card} can be in the stock: bury "
            "it inside the stock, not on top, and enter the card turned then"
        )
    _from_stock(state, event, card)
    state = replace(state, discard=(*state.discard[:-1], card))  # the wild is somewhere in the stock: unseen
    if is_wild(card):
        return state, [_wild_upcard(state, event, card)]
    return replace(state, step="draw"), []


def _from_stock(state: PushState, event: GameEvent, card: Face | None) -> None:
    """Checks that ``card`` (if named) can be the top of the stock."""
    if state.stock == 0:
        raise EventError(f"{event.where()}: the stock is empty")
    if card is not None and not unseen(state)[card]:
        raise EventError(f"{event.where()}: {card} cannot be in the stock: every {card} is somewhere else")


def _draw(state: PushState, event: GameEvent) -> tuple[PushState, Rulings]:
    seat = event.player(state.players)
    source = event.choice("from", ("discard", "stock"))
    state, rulings = _begin_draw(state, event, seat)
    name = state.players[seat]
    card = read_face(event, "card") if event.has("card") else None
    if source == "discard":
        if not state.discard:
            raise EventError(f"{event.where()}: the discard pile is empty: draw from the stock")
        top = state.discard[-1]
        if card is not None and card != top:
            raise EventError(f"{event.where()}: the top discard is {top}, not {card}")
        state = give(replace(state, discard=state.discard[:-1]), seat, [top])
    else:
        if state.step in ("draw", "bury") and state.discard:
            message = f"{name} must take the {state.discard[-1]} or push it before drawing from the stock"
            rulings.append(_foul(state, event, "stock_draw_without_push", message, seat))
        _from_stock(state, event, card)
        state = give(replace(state, stock=state.stock - 1), seat, [] if card is None else [card], 0 if card else 1)
    return replace(state, step="play"), rulings


def _push(state: PushState, event: GameEvent) -> tuple[PushState, Rulings]:
    seat = event.player(state.players)
    state, rulings = _begin_draw(state, event, seat)
    name = state.players[seat]
    if not state.discard:
        raise EventError(f"{event.where()}: there is no discard to push")
    top = state.discard[-1]
    if event.has("discard_card") and read_face(event, "discard_card") != top:
        raise EventError(f"{event.where()}: the top discard is {top}, not {event.data['discard_card']}")
    stock_card = read_face(event, "stock_card") if event.has("stock_card") else None
    if state.stock == 0:
        message = f"{name} cannot push: the stock is empty (a push passes the top stock card with the discard)"
        return state, [*rulings, _foul(state, event, "push_stock_short", message, seat)]
    _from_stock(state, event, stock_card)
    left = state.left_of(seat)
    state = replace(state, stock=state.stock - 1, discard=state.discard[:-1])
    passed = [top] if stock_card is None else [top, stock_card]
    state = give(state, left, passed, 2 - len(passed))
    if state.stock == 0:  # the pusher must now draw from an empty stock: the deal ends
        message = f"{name} pushed the last stock card and cannot draw: deal {state.deal} is over; count the hands"
        return replace(state, phase="counting"), [
            *rulings,
            _ruling(state, event, "stock_empty", Severity.INFO, message, None),
        ]
    return replace(state, step="stock"), rulings


def _meld_specs(event: GameEvent) -> list[tuple[str, list[Face], dict[int, Any]]]:
    specs = []
    for number, raw in enumerate(event.items("melds"), start=1):
        where = f"{event.where()}: meld {number}"
        if not isinstance(raw, Mapping):
            raise EventError(f'{where}: must be an object like {{"kind": "set", "cards": [...]}}')
        kind = raw.get("kind")
        if kind not in ("set", "run"):
            raise EventError(f"{where}: 'kind' must be set or run, not {kind!r}")
        entries = read_entries(raw.get("cards"), where)
        specs.append((kind, [f for f, _ in entries], read_wilds(raw.get("wilds"), entries, where)))
    if not specs:
        raise EventError(f"{event.where()}: 'melds' is empty")
    return specs


def _meld(state: PushState, event: GameEvent) -> tuple[PushState, Rulings]:
    seat = event.player(state.players)
    specs = _meld_specs(event)
    state, rulings = _begin_play(state, event, seat)
    everything = [f for _, faces, _ in specs for f in faces]
    take(state, seat, everything, event.where())  # every card must be able to be in the hand
    name, valid, refused, notes = state.players[seat], [], [], []
    places: list[int] = []  # each accepted meld's place in the event's list (its origin's k: a refused one keeps its)
    for index, (kind, faces, declared) in enumerate(specs, start=1):
        check = check_meld(kind, faces, declared, distinct_suits=state.set_suits_distinct)
        if check.meld is None:
            message = f"{name}'s {kind} {' '.join(map(str, faces))} is not valid: {check.reason}"
            rulings.append(_foul(state, event, "invalid_meld", message, seat, reason=check.reason, meld=index))
            refused += faces
            continue
        valid.append(check.meld)
        places.append(index)
        if check.ambiguous:
            notes.append(_wilds_assumed(state, event, seat, check.meld))
    if not state.laid[seat] and not meets_requirement(valid, state.deal):
        rulings.append(_requirement_ruling(state, event, seat, valid, everything))
        return reveal(state, seat, everything, event.where()), rulings
    state = take(state, seat, [f for m in valid for f in m.cards], event.where())  # first: a copy already known
    state = reveal(state, seat, refused, event.where())  # goes to the table, so a refused one becomes known
    first = len(state.melds) + 1
    tables = tuple(
        TableMeld(first + i, seat, m, (event.seq, k)) for i, (m, k) in enumerate(zip(valid, places, strict=True))
    )
    laid = tuple(s == seat or done for s, done in enumerate(state.laid))
    state = replace(state, melds=state.melds + tables, laid=laid)
    state, out = _went_out(state, event, seat)
    return state, rulings + notes + out


def _wilds_assumed(state: PushState, event: GameEvent, seat: int, meld: Meld) -> Ruling:
    message = f"{state.players[seat]}'s wilds were taken as {meld}; declare them in 'wilds' if meant otherwise"
    return _ruling(state, event, "wilds_assumed", Severity.INFO, message, seat)


def _requirement_ruling(state: PushState, event: GameEvent, seat: int, valid: list[Meld], shown: list[Face]) -> Ruling:
    name = state.players[seat]
    message = (
        f"{name} must lay the deal's requirement before any other meld: {requirement_shortfall(valid, state.deal)}"
    )
    plan = find_requirement(shown, state.deal, distinct_suits=state.set_suits_distinct)
    if plan is not None:
        message += "; these cards can make it as " + " + ".join(str(m) for m in plan)
    data = {
        "needed": describe_requirement(state.deal),
        "possible": None if plan is None else [m.to_json() for m in plan],
    }
    return _foul(state, event, "requirement_not_met", message, seat, **data)


def _origin(event: GameEvent) -> tuple[int, int] | None:
    """A lay-off's or swap's ``origin``: the meld as the view named it (``[seq, k]``: the k-th meld of event seq), or
    None when the event names the meld by its number alone."""
    origin = event.data.get("origin")
    if origin is None:
        return None
    if (
        not isinstance(origin, list)
        or len(origin) != 2
        or not all(isinstance(x, int) and not isinstance(x, bool) and x >= 1 for x in origin)
    ):
        raise EventError(f"{event.where()}: 'origin' must be [seq, k], two whole numbers from 1 (a meld's origin)")
    return origin[0], origin[1]


def _table_meld(state: PushState, event: GameEvent) -> TableMeld:
    """The meld a lay-off or swap goes onto: the one its ``origin`` names where it has one (a phone's: an earlier meld
    corrected or inserted since renumbers the melds, and a number alone would then name another player's), else
    the one of its ``meld`` number."""
    origin = _origin(event)
    if origin is None:
        if not state.melds:
            raise EventError(f"{event.where()}: there are no melds on the table yet")
        return state.melds[event.integer("meld", 1, len(state.melds)) - 1]
    for table in state.melds:
        if table.origin == origin:
            return table
    raise EventError(
        f"{event.where()}: the meld it names (the {_ordinal(origin[1])} meld of event {origin[0]}) is not on the table"
    )


def _ordinal(n: int) -> str:
    return {1: "first", 2: "second", 3: "third"}.get(n, f"{n}th")


def _meld_number(state: PushState, event: GameEvent) -> int | None:
    """The number of the meld a lay-off names, or None where it names none on the table."""
    try:
        return _table_meld(state, event).number
    except EventError:
        return None


def _with_meld(state: PushState, table: TableMeld, meld: Meld) -> PushState:
    melds = list(state.melds)
    melds[table.number - 1] = replace(table, meld=meld)
    return replace(state, melds=tuple(melds))


def _not_laid(state: PushState, event: GameEvent, seat: int, what: str) -> Ruling:
    name = state.players[seat]
    need = describe_requirement(state.deal)
    message = f"{name} cannot {what} before laying the deal's requirement ({need})"
    return _foul(state, event, "before_requirement", message, seat)


def _layoff(state: PushState, event: GameEvent) -> tuple[PushState, Rulings]:
    seat = event.player(state.players)
    entries = read_entries(event.data.get("cards"), event.where())
    faces = [f for f, _ in entries]
    declared = read_wilds(event.data.get("wilds"), entries, event.where())
    state, rulings = _begin_play(state, event, seat)
    table = _table_meld(state, event)
    take(state, seat, faces, event.where())
    if not state.laid[seat]:
        return reveal(state, seat, faces, event.where()), [*rulings, _not_laid(state, event, seat, "lay off")]
    check = check_layoff(table.meld, faces, declared, distinct_suits=state.set_suits_distinct)
    if check.meld is None:
        message = f"{state.players[seat]}'s lay-off on meld #{table.number} is not valid: {check.reason}"
        ruling = _foul(state, event, "invalid_layoff", message, seat, reason=check.reason)
        return reveal(state, seat, faces, event.where()), [*rulings, ruling]
    if check.ambiguous:
        rulings.append(_wilds_assumed(state, event, seat, check.meld))
    state = _with_meld(take(state, seat, faces, event.where()), table, check.meld)
    state, out = _went_out(state, event, seat)
    return state, rulings + out


def _swap(state: PushState, event: GameEvent) -> tuple[PushState, Rulings]:
    seat = event.player(state.players)
    card, wild = read_face(event, "card"), read_face(event, "wild")
    state, rulings = _begin_play(state, event, seat)
    table = _table_meld(state, event)
    take(state, seat, [card], event.where())
    if not state.laid[seat]:
        return reveal(state, seat, [card], event.where()), [*rulings, _not_laid(state, event, seat, "swap a wild")]
    check = check_swap(table.meld, card, wild)
    if check.meld is None:
        message = f"{state.players[seat]} cannot swap {card} into meld #{table.number}: {check.reason}"
        ruling = _foul(state, event, "invalid_swap", message, seat, reason=check.reason)
        return reveal(state, seat, [card], event.where()), [*rulings, ruling]
    state = give(take(state, seat, [card], event.where()), seat, [wild])
    state = replace(_with_meld(state, table, check.meld), pending=Pending(seat, wild, table.number))
    return state, rulings


def _discard(state: PushState, event: GameEvent) -> tuple[PushState, Rulings]:
    seat = event.player(state.players)
    card = read_face(event, "card")
    state, rulings = _begin_play(state, event, seat)
    state = take(state, seat, [card], event.where())
    state = replace(state, discard=(*state.discard, card), turn=state.left_of(seat), step="draw")
    state, out = _went_out(state, event, seat)
    if state.phase == "play" and state.stock == 0:
        message = f"The stock is empty: deal {state.deal} is over; report the cards left in each hand"
        state = replace(state, phase="counting")
        out = [_ruling(state, event, "stock_empty", Severity.INFO, message, None)]
    return state, rulings + out


def _back_where_it_was(state: PushState, event: GameEvent, pending: Pending) -> bool:
    """Is ``event`` the swapping player's lay-off of the freed wild onto the meld it was swapped out of?"""
    if event.type != "layoff" or _meld_number(state, event) != pending.meld:
        return False
    if event.data.get("player") != state.players[pending.seat]:
        return False
    return pending.wild in [face for face, _ in read_entries(event.data.get("cards"), event.where())]


def _settle_wild(before: PushState, after: PushState, event: GameEvent, pending: Pending) -> tuple[PushState, Rulings]:
    """Was the wild freed by a swap put into another meld at once?"""
    seat, wild = pending.seat, pending.wild
    hand_before, hand_after = before.hands[seat], after.hands[seat]
    mine = event.type in ("meld", "layoff") and event.data.get("player") == before.players[seat]
    if mine and hand_after.count == hand_before.count:
        return after, []  # refused: the player may try again
    used = hand_after.known.count(wild) < hand_before.known.count(wild)
    same = event.type == "layoff" and _meld_number(before, event) == pending.meld
    after = replace(after, pending=None)
    if mine and used and not same:
        return after, []
    name = before.players[seat]
    message = f"{name} swapped out {wild} from meld #{pending.meld} and must put it into another meld at once"
    return after, [_foul(after, event, "wild_not_reused", message, seat)]


_HANDLERS: dict[str, Callable[[PushState, GameEvent], tuple[PushState, Rulings]]] = {
    "deal": _deal,
    "upcard": _upcard,
    "draw": _draw,
    "push": _push,
    "meld": _meld,
    "layoff": _layoff,
    "swap": _swap,
    "discard": _discard,
    "deal_end": end_deal,
}


class Push:
    """The Push referee."""

    spec = GameSpec(
        name="push",
        title="Push",
        min_players=4,
        max_players=4,
        simultaneous=False,
        event_types=tuple(_HANDLERS),
        options=(
            Option("upcard", True, "a wild upcard is buried in the stock and another card turned", kind="bool"),
            Option("set_suits_distinct", False, "the cards of a set must all have different suits", kind="bool"),
        ),
        teams=True,
        rules_summary="Partnership rummy over five deals (6-10 cards) with a required first meld; push "
        "the discard to your left; jokers and 2s wild; lowest total wins.",
    )

    def initial_state(self, players: Sequence[str], options: Mapping[str, Json]) -> PushState:
        return PushState(tuple(players), bool(options["set_suits_distinct"]), bool(options["upcard"]))

    def apply(self, state: PushState, event: GameEvent) -> tuple[PushState, list[Ruling]]:
        handler = _HANDLERS.get(event.type)
        if handler is None:
            raise EventError(f"{event.where()}: Push has no event '{event.shown_type}'")
        pending = state.pending
        if pending is None:
            return handler(state, event)
        if _back_where_it_was(state, event, pending):
            name = state.players[pending.seat]
            message = (
                f"{name} swapped out {pending.wild} from meld #{pending.meld} and must put it into another meld at "
                f"once, not back into meld #{pending.meld}: the lay-off does not count, the {pending.wild} stays in "
                "the hand"
            )
            return replace(state, pending=None), [_foul(state, event, "wild_not_reused", message, pending.seat)]
        if event.type in ("meld", "layoff"):  # the freed wild may go into this meld
            new, rulings = handler(state, event)
            new, extra = _settle_wild(state, new, event, pending)
            return new, rulings + extra
        cleared, extra = _settle_wild(state, state, event, pending)
        new, rulings = handler(cleared, event)
        return new, extra + rulings

    def score(self, state: PushState) -> ScoreSheet:
        return score_sheet(state)

    def view(self, state: PushState) -> dict[str, Json]:
        return table_view(state)


GAME = register(Push())
