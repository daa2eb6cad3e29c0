"""The Snap golden games, ruling by ruling (``test_golden.py`` checks their final scores and table).

Each story below was worked out by hand from the logs; the comments say what happens.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from scorer.events import format_log, parse_log
from scorer.session import Session, replay

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "golden" / "snap"
EXAMPLE = ROOT / "docs" / "examples" / "snap.jsonl"

STORIES = {
    # Cara deals; Alex 18, Beth 17, Cara 17 cards. Alex's 7H meets Beth's 7S; both call within
    # 80 ms: the piles (4 + 3) form the Snap Pot, 7S on top. Cara's 7D matches it: her "Snap Pot!"
    # wins 12 cards. Alex calls on his own turn with no match: his card goes to Cara, on his right.
    # Beth's last card 9S meets Cara's 9D: Cara wins and Beth is out. Cara's QD meets Alex's QH,
    # his last card: Cara wins and holds all 52.
    "three_players_to_the_end": [
        (1, "dealt"),
        (11, "match"),
        (12, "call_heard"),
        (13, "call_heard"),
        (14, "snap_pot_formed"),
        (14, "match_gone"),
        (18, "match"),
        (19, "call_heard"),
        (20, "snap_pot_won"),
        (20, "match_gone"),
        (21, "false_call"),
        (56, "match"),
        (57, "call_heard"),
        (58, "snap_won"),
        (58, "match_gone"),
        (58, "player_out"),
        (59, "match"),
        (60, "call_heard"),
        (61, "snap_won"),
        (61, "match_gone"),
        (61, "player_out"),
        (61, "winner"),
    ],
    # Suits match; only owners may call; a false call pays a card to everyone; 300 ms ties.
    # Beth's 3S meets Cara's 5S. Alex (not an owner) calls: false, he pays Beth, Cara, Dana.
    # Cara and Beth call 250 ms apart: a tie, the Snap Pot (2H 3S 5S) forms when Cara flips next.
    # Dana's 4S matches the pot's 5S: Beth's "Snap Pot!" is false (pays Cara, Dana, Alex); Dana's
    # wins the pot and her pile, 5 cards.
    "four_players_suit_owners_only": [
        (1, "dealt"),
        (6, "match"),
        (7, "false_call"),
        (8, "call_heard"),
        (9, "call_heard"),
        (10, "snap_pot_formed"),
        (10, "match_gone"),
        (11, "match"),
        (12, "false_call"),
        (13, "call_heard"),
        (14, "snap_pot_won"),
        (14, "match_gone"),
    ],
    # Colours match; players slap; no tie window but the same millisecond; a false slap sends the
    # slapper's face-up pile to the pot. Red 9H and 2H: both slap at 4900 ms, a Snap Pot of 3 cards.
    # Beth slaps falsely with no face-up pile: her card goes to Alex (her own turn, so to her right).
    # Beth's 5D (red) matches the pot's 2H: Alex wins pot and pile (4). Alex slaps falsely: his pile
    # (3S 8C) becomes the pot. Beth's 10S (black) matches 8C: Beth slaps first; Alex 1 ms later is late.
    "two_players_slap_colour": [
        (1, "dealt"),
        (4, "match"),
        (5, "call_heard"),
        (6, "call_heard"),
        (7, "snap_pot_formed"),
        (7, "match_gone"),
        (9, "false_call"),
        (10, "match"),
        (11, "call_heard"),
        (12, "snap_pot_won"),
        (12, "match_gone"),
        (14, "false_call"),
        (15, "match"),
        (16, "call_heard"),
        (17, "snap_pot_won"),
        (17, "match_gone"),
        (17, "late_call"),
    ],
}


def _replay(path: Path) -> Session:
    return replay(parse_log(path.read_text(encoding="utf-8").splitlines()))


@pytest.mark.parametrize("name", sorted(STORIES))
def test_golden_story_rulings(name: str) -> None:
    session = _replay(GOLDEN / f"{name}.jsonl")
    assert [(r.seq, r.code) for r in session.rulings] == STORIES[name]


def test_false_call_on_own_turn_pays_the_player_on_the_right() -> None:
    session = _replay(GOLDEN / "three_players_to_the_end.jsonl")
    (ruling,) = [r for r in session.rulings if r.code == "false_call"]
    assert ruling.player == "Alex"
    assert "to Cara, on their right, as they called on their own turn" in ruling.message


def test_owners_only_false_call_names_the_owners_and_pays_everyone() -> None:
    session = _replay(GOLDEN / "four_players_suit_owners_only.jsonl")
    first, second = [r for r in session.rulings if r.code == "false_call"]
    assert "only its owners (Beth, Cara) may call it" in first.message
    assert "pays one card to each other player: Beth, Cara, Dana" in first.message
    assert "only its owners (Dana) may call it" in second.message
    assert "pays one card to each other player: Cara, Dana, Alex" in second.message


def test_slap_golden_pile_to_pot_both_ways() -> None:
    session = _replay(GOLDEN / "two_players_slap_colour.jsonl")
    first, second = [r for r in session.rulings if r.code == "false_call"]
    assert "Beth has no face-up pile to put in the Snap Pot" in first.message and "to Alex" in first.message
    assert "Alex's face-up pile (2 cards) becomes the Snap Pot" in second.message


def test_documented_example_has_every_event_type() -> None:
    log = parse_log(EXAMPLE.read_text(encoding="utf-8").splitlines())
    assert {e.type for e in log.events} == {"deal", "flip", "turn_over", "call", "resolve"}
    session = replay(log)
    codes = {r.code for r in session.rulings}
    assert {"snap_pot_formed", "snap_pot_won", "false_call", "pile_turned_over", "snap_won", "winner"} <= codes


@pytest.mark.parametrize("path", [*sorted(GOLDEN.glob("*.jsonl")), EXAMPLE], ids=lambda p: p.name)
def test_live_session_equals_replay_and_log_round_trips(path: Path) -> None:
    log = parse_log(path.read_text(encoding="utf-8").splitlines())
    live = Session("snap", log.header.players, log.header.options)
    for event in log.events:
        live.append(event)
    again = replay(parse_log(format_log(live.log()).splitlines()))
    assert again.state == live.state
    assert again.rulings == live.rulings
    assert again.summary() == live.summary()
