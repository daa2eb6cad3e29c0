"""Snap's calls: judging "Snap!", "Snap Pot!" and slaps, settling races by time, and penalties.

A call is judged the moment it arrives, against the table as it is then:

* it **claims** the matches of its kind (``snap``: two players' face-up tops; ``snap_pot``: a
  top and the Snap Pot's top; ``slap``: any match), only those on the caller's own pile when
  the ``callers`` option is ``owners_only``;
* a call with something to claim is **pending**; a call with nothing to claim is a **false call**
  (or a harmless **late call** when the same kind of call was settled since the last flip, with
  ``owners_only`` only for a player whose pile was in the settled match);
* pending calls are **settled** when a call arrives later than the first pending call's
  ``ts`` + ``tie_window_ms``, or when a ``flip``, ``turn_over`` or ``resolve`` event arrives.
  In ``(ts, seq)`` order: the first call wins its claim, unless other players' calls of the
  same kind within the window claim some of the same matches: then the tied piles go to the
  Snap Pot. False calls heard while calls were pending pay their penalty after that.
"""

from __future__ import annotations

from dataclasses import replace

from scorer.events import EventError, GameEvent
from scorer.game import Ruling, Severity
from scorer.snap_table import (
    Call,
    Match,
    Packet,
    SnapState,
    gather,
    held,
    is_in,
    next_in,
    pay_top_card,
    push_under,
    put,
    refresh,
    right_of,
    sort_cards,
)

__all__ = ["SAID", "call_kind", "claimed", "hear_call", "settle", "window_closes"]

SAID = {"snap": 'called "Snap!"', "snap_pot": 'called "Snap Pot!"', "slap": "slapped"}


def call_kind(state: SnapState, event: GameEvent) -> str:
    """The kind of a ``call`` event: ``snap`` or ``snap_pot`` aloud, ``slap`` at a slapping table."""
    kind = event.data.get("kind")
    slap = event.flag("slap", False)
    if slap and kind not in (None, "slap"):
        raise EventError(f"{event.where()}: a call is either a slap or kind {kind!r}, not both")
    if slap:
        kind = "slap"
    if state.style == "slap":
        if kind not in (None, "slap"):
            raise EventError(
                f"{event.where()}: this table slaps instead of calling aloud (option call_style is slap): "
                f"send kind 'slap' or no kind, not {kind!r}"
            )
        return "slap"
    if kind == "slap":
        raise EventError(
            f"{event.where()}: this table calls aloud (option call_style is voice): kind must be snap or snap_pot"
        )
    return event.choice("kind", ("snap", "snap_pot"))


def claimed(state: SnapState, seat: int, kind: str) -> tuple[Match, ...]:
    """The matches a call of ``kind`` by ``seat`` claims on the table as it is."""
    matches = _of_kind(state, kind)
    if state.callers == "owners_only":
        matches = tuple(m for m in matches if m.involves(seat))
    return matches


def _of_kind(state: SnapState, kind: str) -> tuple[Match, ...]:
    if kind == "snap":
        return tuple(m for m in state.matches if not m.with_pot)
    if kind == "snap_pot":
        return tuple(m for m in state.matches if m.with_pot)
    return state.matches


def window_closes(state: SnapState) -> int | None:
    """The ``ts`` after which a call no longer ties with the first pending call."""
    return min(call.ts for call in state.pending) + state.window if state.pending else None


# -- hearing a call --------------------------------------------------------------------------------
def hear_call(state: SnapState, event: GameEvent) -> tuple[SnapState, list[Ruling]]:
    """Judge one ``call`` event: pending, late or false (with its penalty)."""
    seat = event.player(state.players)
    kind = call_kind(state, event)
    name = state.name(seat)
    out = f"{name} is out of the game and cannot call; the call is ignored."
    if not is_in(state, seat):
        return state, [Ruling("call_by_out_player", Severity.FOUL, out, name, event.seq)]
    # A call pressed after the window does not tie; but it settles the race at once only when pressed more than
    # call_grace_ms after it: until then a slower phone's earlier press may still be on its way (it settled the race,
    # and the earlier press, arriving after, was late). It waits with the others, in press-time order, for the
    # `resolve` the phones send once they have waited as long (web/static/js/games/snap.js RESOLVE_GRACE_MS).
    rulings: list[Ruling] = []
    closes = window_closes(state)
    if closes is not None and event.ts > closes + state.grace:
        state, rulings = settle(state, event)
        if state.phase == "over":
            message = f"{name} {SAID[kind]} after the game was decided; the call is ignored."
            return state, [*rulings, Ruling("late_call", Severity.INFO, message, name, event.seq)]
        if not is_in(state, seat):  # the settling this call set off put its caller out
            return state, [*rulings, Ruling("call_by_out_player", Severity.FOUL, out, name, event.seq)]
    call = Call(seat, kind, event.ts, event.seq)
    claim = claimed(state, seat, kind)
    if claim:
        state = replace(state, pending=(*state.pending, call))
        # times from the first call, not the game's clock: "at 1834512 ms" was read out on the phones (the
        # wording audit, session 40)
        closes, first = window_closes(state), min(c.ts for c in state.pending)
        after = event.ts - first
        if after <= 0:
            message = f"{name} {SAID[kind]} first; calls up to {state.window} ms after it tie with it."
        else:
            message = f"{name} {SAID[kind]} {after} ms after the first call: in time to tie (up to {state.window} ms)."
        if closes is not None and event.ts > closes:  # in the grace only: the window it would tie in had closed
            late = f"past the {state.window} ms that tie: too late to tie"
            message = f"{name} {SAID[kind]} {after} ms after the first call, {late}."
        return state, [*rulings, Ruling("call_heard", Severity.INFO, message, name, event.seq)]
    if any(k == kind and (state.callers != "owners_only" or seat in owners) for k, owners in state.settled):
        message = f"{name} {SAID[kind]} too late: that match has already been settled. No penalty."
        return state, [*rulings, Ruling("late_call", Severity.INFO, message, name, event.seq)]
    why = f"False call: {name} {SAID[kind]} but {_why_false(state, seat, kind)}."
    if state.pending:
        state = replace(state, owed=(*state.owed, call))
        penalty = "The penalty is paid once the calls before it are settled."
        return state, [*rulings, Ruling("false_call", Severity.FOUL, f"{why} {penalty}", name, event.seq)]
    state, penalty = penalise(state, seat)
    rulings.append(Ruling("false_call", Severity.FOUL, f"{why} {penalty}", name, event.seq))
    state, more = refresh(state, event, f"{name} paid a penalty")
    return state, rulings + more


def _why_false(state: SnapState, seat: int, kind: str) -> str:
    others = _of_kind(state, kind)
    if others:  # there is a match, but not on the caller's pile (callers: owners_only)
        owners = sorted({state.name(s) for m in others for s in m.seats()})
        return f"the match is not on their pile and only its owners ({', '.join(owners)}) may call it"
    if kind == "snap_pot" and not state.pot:
        return "there is no Snap Pot"
    if kind == "snap_pot":
        return f"nothing matches the Snap Pot's {state.pot[-1]}"
    if kind == "snap" and any(m.with_pot for m in state.matches):
        return 'the only match is with the Snap Pot, which needs "Snap Pot!"'
    return "no two face-up piles match" if kind == "snap" else "nothing matches"


# -- settling ------------------------------------------------------------------------------------
def settle(state: SnapState, event: GameEvent) -> tuple[SnapState, list[Ruling]]:
    """Settle every pending call in ``(ts, seq)`` order, then the penalties that waited for them."""
    calls = sorted(state.pending, key=lambda c: (c.ts, c.seq))
    owed = sorted(state.owed, key=lambda c: (c.ts, c.seq))
    state = replace(state, pending=(), owed=())
    rulings: list[Ruling] = []
    while calls and state.phase == "play":
        first = calls.pop(0)
        claim = claimed(state, first.seat, first.kind) if is_in(state, first.seat) else ()
        if not claim:
            message = f"{state.name(first.seat)} {SAID[first.kind]}, but the match was gone before it was settled."
            rulings.append(Ruling("late_call", Severity.INFO, message, state.name(first.seat), event.seq))
            continue
        within = [c for c in calls if c.kind == first.kind and c.ts <= first.ts + state.window]
        rivals = [c for c in within if c.seat != first.seat and _shares(state, c, claim)]
        calls = [c for c in calls if c not in rivals and not (c in within and c.seat == first.seat)]
        if rivals:
            state, ruling, reason = _tie(state, first, rivals, claim, event)
        else:
            state, ruling, reason = _win(state, first, claim, event)
        owners = tuple(sorted({s for m in claim for s in m.seats()}))
        state = replace(state, settled=(*state.settled, (first.kind, owners)))
        state, more = refresh(state, event, reason)
        rulings += [ruling, *more]
    # the penalties that waited are paid at once: nobody goes out and the turn does not move between them (a caller
    # who paid their last card was out before a card paid in came, and the next payer's card went elsewhere: a review)
    fresh = (0,) * len(state.players)
    payers: list[str] = []
    for call in owed if state.phase == "play" else ():
        name = state.name(call.seat)
        paid, (state, text) = state, penalise(state, call.seat, fresh)
        state, fresh = _together(paid, state, fresh)
        rulings.append(Ruling("penalty_paid", Severity.INFO, f"For the false call at event {call.seq}: {text}",
                              name, event.seq))  # fmt: skip
        payers += [name] if name not in payers else []
    if payers:
        what = "a penalty" if len(owed) == 1 else "penalties"
        state, more = refresh(state, event, f"{' and '.join(payers)} paid {what}")
        rulings += more
    return state, rulings


def _together(before: SnapState, state: SnapState, fresh: tuple[int, ...]) -> tuple[SnapState, tuple[int, ...]]:
    """Penalty cards paid to one player in one settlement went under their face-down pile together: one packet, the
    referee knows which cards, not their order (it paid them in press order, and refused a flip of the one it put
    second: a differential audit, session 39). ``fresh`` counts, per seat, the cards at the bottom of the face-down
    pile paid in by this settlement's penalties; a hidden card among them makes the others unseen again."""
    counts: list[int] = []
    face_down, unseen = state.face_down, state.unseen
    for seat, packets in enumerate(state.face_down):
        was, now = sum(p.size for p in before.face_down[seat]), sum(p.size for p in packets)
        counts.append(fresh[seat] + now - was if now > was else min(fresh[seat], now))
        if now <= was or counts[seat] < 2:
            continue
        tail: list[Packet] = []
        while sum(p.size for p in tail) < counts[seat]:
            tail.insert(0, packets[-1 - len(tail)])
        if len(tail) < 2:
            continue
        cards = tuple(card for packet in tail for card in packet.cards)
        hidden = sum(packet.hidden for packet in tail)
        merged = Packet(hidden=hidden + len(cards)) if hidden else Packet(sort_cards(cards))
        unseen = unseen | frozenset(cards) if hidden else unseen
        face_down = put(face_down, seat, (*packets[: len(packets) - len(tail)], merged))
    return replace(state, face_down=face_down, unseen=unseen), tuple(counts)


def _shares(state: SnapState, call: Call, claim: tuple[Match, ...]) -> bool:
    return is_in(state, call.seat) and any(m in claim for m in claimed(state, call.seat, call.kind))


def _claimed_seats(claim: tuple[Match, ...]) -> list[int]:
    return sorted({seat for match in claim for seat in match.seats()})


def _win(state: SnapState, call: Call, claim: tuple[Match, ...], event: GameEvent) -> tuple[SnapState, Ruling, str]:
    """The first caller takes every claimed pile (and the Snap Pot if claimed) under their face-down pile."""
    name = state.name(call.seat)
    seats = _claimed_seats(claim)
    parts = [f"{state.name(seat)}'s pile ({len(state.face_up[seat])})" for seat in seats]
    state, cards = gather(state, seats)
    won_pot = any(match.with_pot for match in claim)
    if won_pot:
        parts.append(f"the Snap Pot ({len(state.pot)})")
        cards += state.pot
        state = replace(state, pot=())
    state = push_under(state, call.seat, Packet(sort_cards(cards)))
    code, prize = ("snap_pot_won", "the Snap Pot") if won_pot else ("snap_won", "the Snap")
    message = (
        f"{name} {SAID[call.kind]} first and wins {prize}: {', '.join(parts)}, "
        f"{len(cards)} cards, go under {name}'s face-down pile."
    )
    data = {"call": call.seq, "cards": len(cards)}
    return state, Ruling(code, Severity.INFO, message, name, event.seq, data), f"won by {name}"


def _tie(
    state: SnapState, first: Call, rivals: list[Call], claim: tuple[Match, ...], event: GameEvent
) -> tuple[SnapState, Ruling, str]:
    """Calls within the window: the claimed piles go onto the Snap Pot (formed if there is none),
    in seat order, so the top of the pot is a matching card."""
    callers = [state.name(seat) for seat in sorted({first.seat, *(c.seat for c in rivals)})]
    seats = _claimed_seats(claim)
    parts = [f"{state.name(seat)}'s pile ({len(state.face_up[seat])})" for seat in seats]
    formed = not state.pot
    state, cards = gather(state, seats)
    state = replace(state, pot=state.pot + cards)
    verb = ("forms", "form") if formed else ("goes", "go")
    what = f"{verb[len(parts) > 1]} {'the' if formed else 'onto the'} Snap Pot"
    message = (
        f"Tie: {' and '.join(callers)} {SAID[first.kind]} within {state.window} ms of each other. "
        f"{', '.join(parts)} {what}, now {len(state.pot)} cards with {state.pot[-1]} on top."
    )
    code = "snap_pot_formed" if formed else "snap_pot_grown"
    data = {"calls": [first.seq, *(c.seq for c in rivals)], "pot": len(state.pot)}
    return state, Ruling(code, Severity.INFO, message, None, event.seq, data), "the piles went to the Snap Pot"


# -- penalties ------------------------------------------------------------------------------------
def penalise(state: SnapState, seat: int, fresh: tuple[int, ...] = ()) -> tuple[SnapState, str]:
    """Carry out the false-call penalty for ``seat``; returns the new state and what happened. ``fresh``: per seat, the
    cards penalties settled with this one paid in (see :func:`pay_top_card`)."""
    came = fresh[seat] if fresh else 0
    name = state.name(seat)
    if not is_in(state, seat) or held(state, seat) - came <= 0:  # paid only from the cards they had
        return state, f"{name} has no cards left to pay."
    mode = state.penalty
    note = ""
    if mode == "pile_to_pot":
        pile = state.face_up[seat]
        if pile:
            where = "goes under the Snap Pot" if state.pot else "becomes the Snap Pot"
            state, cards = gather(state, [seat])
            state = replace(state, pot=cards + state.pot)
            return state, f"{name}'s face-up pile ({len(cards)} cards) {where}."
        mode, note = "card_to_turner", f"{name} has no face-up pile to put in the Snap Pot, so "
    if mode == "card_to_each":
        others = _others_clockwise(state, seat)
        payees: list[str] = []
        for other in others:
            if held(state, seat) - came <= 0:
                break
            state, card = pay_top_card(state, seat, other, came)
            payees.append(state.name(other) if card is None else f"{card} to {state.name(other)}")  # as the table saw
        if len(payees) < len(others):
            return state, f"{name} pays one card each to {', '.join(payees)}, then has none of their own left to pay."
        return state, f"{name} pays one card to each other player: {', '.join(payees)}."
    payee: int | None = state.turn
    why = "whose turn it is"
    if payee == seat:
        payee, why = right_of(state, seat), "on their right, as they called on their own turn"
    if payee is None:
        return state, f"{note}{name} has nobody to pay."
    state, card = pay_top_card(state, seat, payee, came)
    what = "next face-down card" if card is None else f"next card, {card},"
    return state, f"{note}{name} gives their {what} to {state.name(payee)}, {why}."


def _others_clockwise(state: SnapState, seat: int) -> list[int]:
    others: list[int] = []
    other = next_in(state, seat)
    while other != seat and other not in others:
        others.append(other)
        other = next_in(state, other)
    return others
