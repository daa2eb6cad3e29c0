"""Spit invariants, checked with Hypothesis on simulated games and random tables.

The simulated table (:class:`tests.scorer.spit_support.World`) knows every card, face down
included, and follows the rules with its own code. After every event: the 52 cards are all
accounted for, the referee's table equals the real one, the "Spit!" alert is raised exactly
when nobody can play, and the round ends exactly when the rules say so. At the end: replaying
the log (through its JSON text) gives the live state, rulings and summary again.
"""

from __future__ import annotations

import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scorer.cards import Card, standard_deck
from scorer.events import GameEvent, format_log, parse_log
from scorer.game import Ruling
from scorer.session import Session, replay
from scorer.spit import GAME
from scorer.spit_table import Phase, Rules, Side, Slot, SpitState, card_total, is_stalled, legal_plays
from tests.scorer.spit_support import PLAYERS, World, neighbours, table

OPTIONS = st.fixed_dictionaries(
    {
        "ace_wraps": st.booleans(),
        "same_rank_allowed": st.booleans(),
        "scoring": st.sampled_from(["standard", "points"]),
        "slap": st.sampled_from(["race", "winner_takes_smaller"]),
    }
)
SEEDS = st.integers(0, 2**32 - 1)  # the simulated table draws its choices from random.Random(seed)


def examples(count: int) -> settings:
    """Few examples, no deadline: all of this file runs in well under a minute on two cores."""
    return settings(max_examples=count, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def accounted(state: SpitState) -> None:
    """Every one of the 52 cards is in exactly one place."""
    face_up = [placed.card for cards in state.piles for placed in cards]
    face_up += [card for side in state.sides for card in side.tops]
    assert len(set(face_up)) == len(face_up), "a card is face up twice"
    assert card_total(state) == 52
    assert len(face_up) + sum(side.face_down for side in state.sides) == 52
    alex, beth = (side.known for side in state.sides)
    assert not alex & beth and not (alex | beth) & set(face_up)
    assert all(len(side.known) <= side.face_down for side in state.sides)


def check(world: World, session: Session, event: GameEvent, rulings: list[Ruling]) -> None:
    state = session.state
    accounted(state)
    said = {ruling.code for ruling in rulings}
    if world.skip_compare:  # a foul card lies on a spit pile until the undo that follows
        assert said & {"illegal_play", "lost_race"} and state.fouls[-1].seq == event.seq
        return
    assert world.mismatch(state) is None, world.mismatch(state)
    assert is_stalled(state) == world.stalled()
    if event.type != "undo":
        assert ("spit_call" in said) == ("spit_call" in world.expect), (event, said, world.expect)
        assert ("round_over" in said) == ("round_over" in world.expect), (event, said, world.expect)
        assert {code for code in world.expect} <= said, (event, said, world.expect)
    sheet = session.score()
    owned = [world.cards_of(seat) for seat in (0, 1)]
    want = world.points if world.rules.scoring == "points" else owned
    assert list(sheet.totals.values()) == want
    assert sheet.finished is (world.phase == "over")


def play(rng: random.Random, options: dict[str, Any], limit: int) -> tuple[World, Session]:
    world = World(rng, Rules(**options))
    session = Session("spit", PLAYERS, options)
    for _ in range(limit):
        event = world.step()
        if event is None:
            break
        check(world, session, event, session.append(event))
    return world, session


def replays_to_the_same(session: Session) -> None:
    text = format_log(session.log())
    log = parse_log(text)
    assert log == session.log() and format_log(log) == text
    again = replay(log)
    assert again.state == session.state
    assert again.rulings == session.rulings
    assert again.summary() == session.summary()


@examples(25)
@given(seed=SEEDS, options=OPTIONS)
def test_simulated_rounds_keep_every_card_and_agree_with_the_table(seed: int, options: dict[str, Any]) -> None:
    _, session = play(random.Random(seed), options, limit=250)
    replays_to_the_same(session)


@examples(6)
@given(seed=SEEDS, options=OPTIONS)
def test_whole_games_keep_every_card_and_agree_with_the_table(seed: int, options: dict[str, Any]) -> None:
    world, session = play(random.Random(seed), options, limit=4000)
    if world.phase == "over":
        assert session.state.phase is Phase.OVER and session.score().winner
    replays_to_the_same(session)


@examples(15)
@given(seed=SEEDS, options=OPTIONS)
def test_the_same_seed_gives_the_same_game(seed: int, options: dict[str, Any]) -> None:
    first = play(random.Random(seed), options, limit=120)[1]
    second = play(random.Random(seed), options, limit=120)[1]
    assert first.log() == second.log() and first.state == second.state


# -- the stall test against a brute-force reading of the rules, on random tables ------------------
SPACE = st.sampled_from(["empty", "lone", "covered", "face_down"])


@st.composite
def random_tables(draw: st.DrawFn) -> SpitState:
    deck: list[Card] = draw(st.permutations(standard_deck()))
    two = draw(st.booleans())
    spaces = draw(st.lists(SPACE, min_size=10, max_size=10))
    options = draw(OPTIONS)
    base = table([None] * 5, [None] * 5, [[str(deck[0])], [str(deck[1])]][: 2 if two else 1], (1, 1), options)
    cards = iter(deck[2:])
    sides = []
    for seat in (0, 1):
        stock = []
        for kind in spaces[seat * 5 : seat * 5 + 5]:
            stock.append(
                {
                    "empty": Slot(),
                    "lone": Slot(0, next(cards)),
                    "covered": Slot(2, next(cards)),
                    "face_down": Slot(1, None),
                }[kind]
            )
        sides.append(Side(stock=tuple(stock), spit=1, laid_out=True))
    return SpitState(base.players, base.rules, tuple(sides), Phase.PLAY, piles=base.piles, short=base.short)


@examples(150)
@given(state=random_tables())
def test_stalled_exactly_when_nobody_can_play_or_uncover(state: SpitState) -> None:
    expected_plays = {
        (seat, slot.top, pile)
        for seat, side in enumerate(state.sides)
        for slot in side.stock
        if slot.top is not None
        for pile, cards in enumerate(state.piles)
        if neighbours(slot.top, cards[-1].card, state.rules)
    }
    assert {(play.seat, play.card, play.pile) for play in legal_plays(state)} == expected_plays

    def can_uncover(stock: tuple[Slot, ...]) -> bool:
        to_turn = any(slot.top is None and slot.down for slot in stock)
        space = any(not slot.down and slot.top is None for slot in stock)
        return to_turn or (space and any(slot.down and slot.top for slot in stock))

    can_act = any(can_uncover(side.stock) for side in state.sides)
    assert is_stalled(state) is (not expected_plays and not can_act)
    view = GAME.view(state)
    assert view["stalled"] is is_stalled(state) and len(view["legal_plays"]) == len(expected_plays)
