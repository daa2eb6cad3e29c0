"""Ten's end count: the rule examples, each wild rule, the complete-run bonus, tie-breaks, score-only
mode, and the exact search against two brute-force enumerations that share no code with it."""

from __future__ import annotations

import functools
import itertools
from collections import Counter
from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorer.events import EventError
from scorer.ten import GAME
from scorer.ten_scoring import COLOURS, best_score, rank_players
from scorer.tencards import Colour, TenCard, TenKind, ten_deck
from tests.scorer.ten_support import cards, play, start

# -- the rule table ----------------------------------------------------------------------------------
SCORES = [
    pytest.param("B1 B2 B3 B5 B7", 3, id="rules_example_blue_12357_scores_3"),
    pytest.param("R1 R2 R3 R4 R5 G4 G5 G6 B8 B9 O7", 11, id="rules_example_11_points_red5_green3_blue2_orange1"),
    pytest.param("R1 R2 R3 R5 R6", 3, id="only_the_longest_run_per_colour_counts"),
    pytest.param("R1 R1 R2 R2 R3", 3, id="duplicates_count_once"),
    pytest.param("R1 R2 R3 R4 R5 R6 R7 R8 R9", 10, id="complete_run_scores_10"),
    pytest.param("R1 R2 R3 R4 R5 R6 R7 R8 R#", 10, id="a_wild_can_complete_a_run"),
    pytest.param("", 0, id="nothing_scores_nothing"),
    pytest.param("R#", 1, id="a_lone_wild_is_a_run_of_one"),
    pytest.param("B1 B2 B4 R#", 3, id="colour_wild_only_in_its_colour"),
    pytest.param("B1 B2 B4 B#", 4, id="colour_wild_in_its_colour"),
    pytest.param("R1 R2 R3 B1 B2 B3 G1 G2 G3 O1 O2 O3 *4", 13, id="rainbow_wild_as_its_number"),
    pytest.param("R1 R2 R3 B1 B2 B3 G1 G2 G3 O1 O2 O3 *5", 12, id="rainbow_wild_only_as_its_number"),
    pytest.param("B1 B2 B4 B5 *#", 5, id="full_wild_fills_any_gap"),
    pytest.param("B1 B3 B5 *#", 3, id="each_wild_used_once"),
    pytest.param("R1 R2 R4 G1 G2 G4 *3", 6, id="a_wild_serves_one_colour_only"),
    pytest.param("R1 R2 R4 G1 G2 G4 *3 G#", 8, id="wilds_placed_for_the_best_total"),
    pytest.param("R2 R3 R4 R6 R7 R8 R9 *1 *5", 10, id="two_rainbows_complete_a_run"),
    pytest.param("R1 R2 R3 R4 R6 R7 R8 R9 G5 *5", 11, id="rainbow_goes_where_it_completes_a_run"),
    pytest.param("R1 R9 *# R# R# *2 *3 *4 *5", 10, id="seven_wilds_complete_one_colour"),
    pytest.param("R1 R9 *# R# *2 *3 *4 *5 G5", 8, id="six_wilds_fall_one_short"),
    pytest.param("B5 B7 *# R# R# *2", 6, id="colour_wilds_make_a_run_in_a_colour_with_no_number_card"),
]


@pytest.mark.parametrize(("collection", "points"), SCORES)
def test_scores(collection: str, points: int) -> None:
    score = best_score(cards(collection))
    assert score.points == points
    assert_placement_is_valid(cards(collection), score)


@pytest.mark.parametrize(
    ("bonus", "points"),
    [pytest.param(10, 12, id="complete_run_bonus_10"), pytest.param(15, 17, id="complete_run_bonus_15")],
)
def test_option_complete_run_bonus(bonus: int, points: int) -> None:
    hand = cards("G1 G2 G3 G4 G5 G6 G7 G8 G9 B4 B5")
    assert best_score(hand, bonus).points == points
    entry = {"Ann": {"cards": [str(c) for c in hand], "tokens": 0}}
    state, _ = play([final(entry)], start(["Ann"], complete_run_bonus=bonus))
    assert GAME.score(state).totals == {"Ann": points}


def test_the_runs_say_where_each_wild_went() -> None:
    score = best_score(cards("R1 R2 R4 G1 G2 G4 *3 G#"))
    assert score.to_json() == {
        "points": 8,
        "runs": {
            "R": {"run": [1, 4], "points": 4, "wilds": [["*3", 3]]},
            "G": {"run": [1, 4], "points": 4, "wilds": [["G#", 3]]},
        },
        "unused_wilds": [],
    }


def test_currency_cards_cannot_be_scored() -> None:
    with pytest.raises(ValueError, match="currency card"):
        best_score(cards("R1 $3"))


# -- tie-breaks and score-only mode ------------------------------------------------------------------
@pytest.mark.parametrize(
    ("points", "tokens", "held", "places"),
    [
        pytest.param([9, 7], [0, 9], [9, 1], [1, 2], id="most_points_wins"),
        pytest.param([7, 7], [3, 4], [5, 5], [2, 1], id="tie_most_currency_tokens"),
        pytest.param([7, 7], [4, 4], [6, 5], [2, 1], id="tie_then_fewest_cards"),
        pytest.param([7, 7, 2], [4, 4, 9], [5, 5, 1], [1, 1, 3], id="tie_still_level_shares"),
    ],
)
def test_rank_players(points: list[int], tokens: list[int], held: list[int], places: list[int]) -> None:
    assert rank_players(points, tokens, held) == places


def texts(collection: str) -> list[str]:
    return collection.split()


def final(players: dict[str, dict[str, Any]]) -> tuple[str, dict[str, Any]]:
    return ("final", {"players": players})


def test_score_only_mode_gives_standings() -> None:
    state, rulings = play(
        [
            final(
                {
                    "Alex": {"cards": texts("R1 R2 R3 R4 R5 G4 G5 G6 B8 B9 O7"), "tokens": 2, "bust_tokens": 1},
                    "Beth": {"cards": texts("B1 B2 B3 B5 B7 *4 G#"), "tokens": 9},
                    "Cara": {"cards": texts("O1 O2 O3 O4 O5 O6 *7 O8 *9"), "tokens": 0},
                }
            )
        ]
    )
    assert rulings == []
    sheet = GAME.score(state).to_json()
    assert sheet["totals"] == {"Alex": 11, "Beth": 6, "Cara": 10}
    assert sheet["winner"] == ["Alex"] and sheet["finished"]
    assert sheet["history"] == [
        {
            "count": "final",
            "points": {"Alex": 11, "Beth": 6, "Cara": 10},
            "tokens": {"Alex": 2, "Beth": 9, "Cara": 0},
            "cards": {"Alex": 11, "Beth": 7, "Cara": 9},
        }
    ]


@pytest.mark.parametrize(
    ("alex", "beth", "winner", "said"),
    [
        pytest.param(
            ("R1 R2", 3),
            ("G1 G2", 4),
            ["Beth"],
            "Beth wins the tie on 2 points by more tokens (Alex 3, Beth 4).",
            id="score_only_tie_most_tokens",
        ),
        pytest.param(
            ("R1 R2", 4),
            ("G1 G2 G1", 4),
            ["Alex"],
            "Alex wins the tie on 2 points by fewer cards (Alex 2, Beth 3).",
            id="score_only_tie_fewest_cards",
        ),
        pytest.param(
            ("R1 R2", 4),
            ("G1 G2", 4),
            ["Alex", "Beth"],
            "Alex and Beth share first place on 2 points (as many tokens, as many cards).",
            id="score_only_tie_shared",
        ),
        pytest.param(("R1 R2 R3", 0), ("G1 G2", 9), ["Alex"], "", id="no_tie"),
    ],
)
def test_score_only_tie_breaks(alex: tuple[str, int], beth: tuple[str, int], winner: list[str], said: str) -> None:
    """The winner by the tie-breaks, and the final prompt saying how the tie was settled (a group checking the
    result saw two equal totals and a winner, with no reason on the table: Ten-on-phones audit, session 37)."""
    entry = {
        name: {"cards": texts(text), "tokens": tokens}
        for name, (text, tokens) in zip(["Alex", "Beth"], [alex, beth], strict=True)
    }
    state, _ = play([final(entry)], start(["Alex", "Beth"]))
    assert GAME.score(state).winner == tuple(winner)
    assert GAME.view(state)["prompt"] == ("The game is over. " + said).strip()


@pytest.mark.parametrize(
    ("tokens", "said"),
    [
        pytest.param(
            (4, 4, 1),
            "Alex and Beth share first place on 2 points, ahead of Cara by more tokens (Alex 4, Beth 4, Cara 1).",
            id="two_still_level",
        ),
        pytest.param(
            (4, 4, 4),
            "Alex, Beth and Cara share first place on 2 points (as many tokens, as many cards).",
            id="all_three_level",
        ),
    ],
)
def test_a_tie_that_stays_level_says_they_share_first_place(tokens: tuple[int, int, int], said: str) -> None:
    """It said "Alex and Beth win the tie" of two still level (both placed first): a review of session 37."""
    entry = {
        name: {"cards": texts(cards), "tokens": n}
        for name, cards, n in zip(["Alex", "Beth", "Cara"], ["R1 R2", "G1 G2", "B1 B2"], tokens, strict=True)
    }
    state, _ = play([final(entry)])
    assert GAME.view(state)["prompt"] == "The game is over. " + said


def test_bust_tokens_do_not_break_a_tie() -> None:
    """RULES.md, Ten: "Ties: most currency tokens (bust tokens excluded)". Alex's 2 bust tokens (worth 6 in a buy)
    do not lift his 3 currency tokens over Beth's 4."""
    entry = {
        "Alex": {"cards": texts("R1 R2"), "tokens": 3, "bust_tokens": 2},
        "Beth": {"cards": texts("G1 G2"), "tokens": 4},
    }
    state, _ = play([final(entry)], start(["Alex", "Beth"]))
    assert GAME.score(state).winner == ("Beth",)
    assert GAME.view(state)["players"]["Beth"]["place"] == 1


def test_a_three_way_tie_settled_by_tokens_then_cards_says_both() -> None:
    entry = {
        "Alex": {"cards": texts("R1 R2"), "tokens": 4},
        "Beth": {"cards": texts("G1 G2 G1"), "tokens": 4},
        "Cara": {"cards": texts("B1 B2"), "tokens": 1},
    }
    state, _ = play([final(entry)])
    assert GAME.score(state).winner == ("Alex",)
    assert GAME.view(state)["prompt"] == (
        "The game is over. Alex wins the tie on 2 points by more tokens (Alex 4, Beth 4, Cara 1), "
        "then fewer cards (Alex 2, Beth 3)."
    )


def test_score_only_tokens_over_the_cap_are_flagged() -> None:
    entry = {"Alex": {"cards": [], "tokens": 12}, "Beth": {"cards": [], "tokens": 3}}
    _, rulings = play([final(entry)], start(["Alex", "Beth"]))
    assert [(r.code, r.player) for r in rulings] == [("token_cap", "Alex")]


@pytest.mark.parametrize(
    ("entry", "match"),
    [
        pytest.param({"Alex": {"cards": [], "tokens": 1}}, "must give every player", id="a_player_missing"),
        pytest.param(
            {"Alex": {"cards": ["$3"], "tokens": 1}, "Beth": {"cards": [], "tokens": 1}}, "currency", id="currency"
        ),
        pytest.param(
            {"Alex": {"cards": ["R9", "R9"], "tokens": 1}, "Beth": {"cards": [], "tokens": 1}},
            "has 1 R9",
            id="too_many",
        ),
        pytest.param(
            {"Alex": {"cards": [], "tokens": 30}, "Beth": {"cards": [], "tokens": 30}}, "holds 50", id="tokens"
        ),
        pytest.param(
            {"Alex": {"cards": [], "tokens": 1, "bust_tokens": 16}, "Beth": {"cards": [], "tokens": 1}},
            "Alex has 16 bust tokens, but the game has 15",
            id="bust",
        ),
        pytest.param({"Alex": {"tokens": 1}, "Beth": {"cards": [], "tokens": 1}}, "list of Ten cards", id="no_cards"),
        pytest.param({"Alex": [], "Beth": {"cards": [], "tokens": 1}}, "give", id="not_an_object"),
        pytest.param(
            {"Alex": {"cards": ["R1"], "token": 9}, "Beth": {"cards": [], "tokens": 1}},
            "Alex: has no field 'token'",
            id="a_misspelt_field",
        ),
        pytest.param(
            {"Alex": {"cards": ["R1"]}, "Beth": {"cards": [], "tokens": 1}}, "'tokens' is missing", id="no_tokens"
        ),
    ],
)
def test_score_only_refuses_impossible_collections(entry: dict[str, Any], match: str) -> None:
    with pytest.raises(EventError, match=match):
        play([final(entry)], start(["Alex", "Beth"]))


def test_score_only_is_not_for_a_refereed_game() -> None:
    with pytest.raises(EventError, match="score-only"):
        play(["R5", final({"Alex": {"cards": [], "tokens": 1}})])


# -- the exact search against brute force ------------------------------------------------------------
def longest_run(numbers: set[int], complete_run: int) -> int:
    best = run = 0
    for n in range(1, 10):
        run = run + 1 if n in numbers else 0
        best = max(best, run)
    return complete_run if best == 9 else best


def brute_force_by_placing_each_wild(hand: Sequence[TenCard], complete_run: int = 10) -> int:
    """Try every place for every wild (or leave it out) and count the runs."""
    held = {c: {card.value for card in hand if card.colour is c and card.kind is TenKind.NUMBER} for c in COLOURS}
    places: list[list[tuple[Colour, int] | None]] = []
    for wild in (card for card in hand if card.is_wild):
        if wild.kind is TenKind.COLOUR_WILD:
            spots = [(wild.colour, n) for n in range(1, 10)]
        elif wild.kind is TenKind.RAINBOW_WILD:
            spots = [(c, wild.value) for c in COLOURS]
        else:
            spots = [(c, n) for c in COLOURS for n in range(1, 10)]
        places.append([None, *spots])  # type: ignore[list-item]
    best = 0
    for choice in itertools.product(*places):
        numbers = {c: set(held[c]) for c in COLOURS}
        for spot in choice:
            if spot is not None:
                numbers[spot[0]].add(spot[1])
        best = max(best, sum(longest_run(numbers[c], complete_run) for c in COLOURS))  # type: ignore[arg-type]
    return best


def brute_force_by_sharing_wilds(hand: Sequence[TenCard], complete_run: int = 10) -> int:
    """Give every rainbow and full wild to a colour (or none); each colour then picks its best run."""
    held = {c: {card.value for card in hand if card.colour is c and card.kind is TenKind.NUMBER} for c in COLOURS}
    own = Counter(card.colour for card in hand if card.kind is TenKind.COLOUR_WILD)
    shared = [card for card in hand if card.kind in (TenKind.RAINBOW_WILD, TenKind.FULL_WILD)]

    @functools.cache
    def best_run(colour: Colour, rainbow: frozenset[int], free: int) -> int:
        runs = [0]
        for low in range(1, 10):
            for high in range(low, 10):
                gaps = [n for n in range(low, high + 1) if n not in held[colour] and n not in rainbow]
                if len(gaps) <= free:
                    runs.append(complete_run if (low, high) == (1, 9) else high - low + 1)
        return max(runs)

    best = 0
    for owners in itertools.product([*COLOURS, None], repeat=len(shared)):
        total = 0
        for colour in COLOURS:
            mine = [w for w, o in zip(shared, owners, strict=True) if o is colour]
            rainbow = frozenset(w.value for w in mine if w.kind is TenKind.RAINBOW_WILD and w.value is not None)
            total += best_run(colour, rainbow, own[colour] + sum(w.kind is TenKind.FULL_WILD for w in mine))
        best = max(best, total)
    return best


def assert_placement_is_valid(hand: Sequence[TenCard], score: Any) -> None:
    """The runs the scorer reports are real: each wild placed once, where it may go, in a gap, and
    the runs' cards make the points."""
    placed = Counter(card for run in score.runs for card, _ in run.wilds)
    assert placed + Counter(score.unused) == Counter(card for card in hand if card.is_wild)
    total = 0
    for run in score.runs:
        have = {card.value for card in hand if card.colour is run.colour and card.kind is TenKind.NUMBER}
        for card, number in run.wilds:
            assert card.kind is not TenKind.COLOUR_WILD or card.colour is run.colour
            assert card.kind is not TenKind.RAINBOW_WILD or card.value == number
            assert number not in have and run.low <= number <= run.high
            have.add(number)
        assert set(range(run.low, run.high + 1)) <= have
        total += run.points
    assert total == score.points


DECK = ten_deck(5)
NUMBERS = sorted({c for c in DECK if c.kind is TenKind.NUMBER}, key=str)
COLOUR_WILDS = [c for c in DECK if c.kind is TenKind.COLOUR_WILD]  # two of each colour
RAINBOWS = sorted({c for c in DECK if c.kind is TenKind.RAINBOW_WILD}, key=str)
FULL = TenCard(TenKind.FULL_WILD)


@st.composite
def collections(draw: st.DrawFn, max_rainbows: int, max_full: int, max_colour_wilds: int) -> list[TenCard]:
    numbers = draw(st.lists(st.sampled_from(NUMBERS), max_size=20))
    colour_wilds = draw(st.lists(st.sampled_from(COLOUR_WILDS), max_size=max_colour_wilds))
    rainbows = draw(st.lists(st.sampled_from(RAINBOWS), max_size=max_rainbows))  # duplicates: more than the deck
    return numbers + colour_wilds + rainbows + [FULL] * draw(st.integers(0, max_full))


@st.composite
def few_wilds(draw: st.DrawFn) -> list[TenCard]:
    """Up to three wilds of any kinds (one full wild at most), so that every placement can be tried."""
    numbers = draw(st.lists(st.sampled_from(NUMBERS), max_size=20))
    wilds = draw(st.lists(st.sampled_from([*COLOUR_WILDS, *RAINBOWS]), max_size=3))
    if wilds and draw(st.booleans()):
        wilds[0] = FULL
    return numbers + wilds


@settings(max_examples=100, deadline=None)
@given(few_wilds(), st.sampled_from([10, 9, 12]))
def test_search_equals_placing_every_wild_by_hand(hand: list[TenCard], complete_run: int) -> None:
    assert best_score(hand, complete_run).points == brute_force_by_placing_each_wild(hand, complete_run)


@settings(max_examples=80, deadline=None)
@given(collections(max_rainbows=4, max_full=1, max_colour_wilds=8))
def test_search_equals_sharing_the_wilds_out_by_hand(hand: list[TenCard]) -> None:
    assert best_score(hand).points == brute_force_by_sharing_wilds(hand)


@st.composite
def twin_colours(draw: st.DrawFn) -> list[TenCard]:
    """Several colours holding the same numbers and colour wilds (the search treats them as twins)."""
    numbers = draw(st.sets(st.integers(1, 9), max_size=6))
    own = draw(st.integers(0, 2))
    twins = draw(st.sets(st.sampled_from(COLOURS), min_size=2))
    hand = [TenCard(TenKind.NUMBER, c, n) for c in twins for n in numbers]
    hand += [TenCard(TenKind.COLOUR_WILD, c) for c in twins for _ in range(own)]
    hand += draw(st.lists(st.sampled_from(RAINBOWS), max_size=4))
    return hand + [FULL] * draw(st.integers(0, 1))


@settings(max_examples=60, deadline=None)
@given(twin_colours())
def test_search_with_twin_colours_equals_sharing_by_hand(hand: list[TenCard]) -> None:
    assert best_score(hand).points == brute_force_by_sharing_wilds(hand)


@st.composite
def near_twin_colours(draw: st.DrawFn) -> list[TenCard]:
    """Several colours holding the same numbers but each its own count of colour wilds (not twins: the search
    may not share one colour's runs out to the other)."""
    numbers = draw(st.sets(st.integers(1, 9), max_size=6))
    twins = draw(st.sets(st.sampled_from(COLOURS), min_size=2))
    hand = [TenCard(TenKind.NUMBER, c, n) for c in twins for n in numbers]
    hand += [TenCard(TenKind.COLOUR_WILD, c) for c in twins for _ in range(draw(st.integers(0, 2)))]
    hand += draw(st.lists(st.sampled_from(NUMBERS), max_size=6))
    hand += draw(st.lists(st.sampled_from(RAINBOWS), max_size=3))
    return hand + [FULL] * draw(st.integers(0, 1))


@settings(max_examples=60, deadline=None)
@given(near_twin_colours())
def test_search_with_colours_holding_the_same_numbers_but_not_the_same_wilds_equals_sharing_by_hand(
    hand: list[TenCard],
) -> None:
    assert best_score(hand).points == brute_force_by_sharing_wilds(hand)


@settings(max_examples=150, deadline=None)
@given(collections(max_rainbows=9, max_full=1, max_colour_wilds=8), st.sampled_from(NUMBERS + RAINBOWS + [FULL]))
def test_placement_is_valid_and_one_more_card_never_hurts(hand: list[TenCard], extra: TenCard) -> None:
    score = best_score(hand)
    assert_placement_is_valid(hand, score)
    assert best_score([*hand, extra]).points >= score.points
    assert best_score(list(reversed(hand))).points == score.points


def test_scoring_every_state_of_a_game_searches_each_collection_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """A screen's state scores every player's collection twice (the score sheet, then the view), and the Log counted
    the history rows by scoring the game after every event: a whole game's first Log load took 1.3 s (the scale
    audit, session 42). A collection changes for one player at a time; each is searched once."""
    from pathlib import Path

    import scorer.ten_scoring as scoring
    from scorer.events import parse_log
    from scorer.session import Session

    game = Path(__file__).resolve().parents[2] / "tests" / "golden" / "ten" / "three_players_two_busts_tie_break.jsonl"
    log = parse_log(game.read_text("utf-8"))
    searched: list[tuple[Any, ...]] = []
    real = scoring._Hand.of
    monkeypatch.setattr(scoring._Hand, "of", staticmethod(lambda cards: searched.append(tuple(cards)) or real(cards)))
    scoring._best_score.cache_clear()
    session = Session(log.header.game, log.header.players, log.header.options)
    collections = set()
    for event in log.events:
        session.append(event)
        session.score(), session.view(), session.score()
        collections |= {h.cards for h in session.state.holdings}
    assert len(log.events) > 25 and session.score().finished
    assert len(searched) == len(set(searched)) == len(collections)
