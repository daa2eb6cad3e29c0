"""The replay memo (``scorer.session._Memo``): a meta event refolds the game only from the first event it changes.
Whatever the log, a session with the memo takes, refuses and rules every event exactly as one that refolds from the
start each time (``MEMO_EVERY`` past any log's length leaves only the start to refold from)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scorer.events import EventError, GameEvent, GameLog, LogHeader, Source, parse_log
from scorer.session import MEMO_EVERY, Session, replay
from tests.scorer.toygame import TALLY

ROOT = Path(__file__).resolve().parents[2]
LOGS = sorted((ROOT / "tests" / "golden").glob("*/*.jsonl")) + sorted((ROOT / "docs" / "examples").glob("*.jsonl"))
NO_MEMO = 10**9  # a mark every 10**9 events: every refold starts from the beginning, as before the memo


def _meta(kind: str, seq: int, ts: int, data: st.DataObject, earlier: list[GameEvent]) -> GameEvent:
    """An undo, correct or insert of a random earlier event (the body: a copy of another earlier game event)."""
    target = data.draw(st.sampled_from(earlier))
    games = [e for e in earlier if e.type not in ("undo", "correct", "insert")]
    body = dict(data.draw(st.sampled_from(games)).data) if games else {}
    if games:
        body["type"] = data.draw(st.sampled_from(games)).type
    numbers = sorted(k for k, v in body.items() if type(v) is int)
    if numbers and data.draw(st.booleans()):  # equal under Python's ==, not to the referee: 1.0, or True for 1
        key = data.draw(st.sampled_from(numbers))
        body[key] = True if body[key] == 1 and data.draw(st.booleans()) else float(body[key])
    if kind == "undo":
        return GameEvent(seq, ts, Source.MANUAL, "undo", {"target": target.seq})
    if kind == "correct":
        return GameEvent(seq, ts, Source.MANUAL, "correct", {"target": target.seq, "event": body})
    return GameEvent(seq, ts, Source.MANUAL, "insert", {"after": target.seq, "event": body})


def _script(log: GameLog, data: st.DataObject) -> list[tuple[str, GameEvent]]:
    """The log's events with undos (mostly of the last entry, as at a table), corrections and inserts among them,
    and now and then a rewind of the last step (:meth:`Session.rewind`, as the dashboard does for an entry it could
    not store), often followed by the same entry again (a phone's retry; the review, session 42: a memo extended
    after a rewind differs from the session only then)."""
    out: list[tuple[str, GameEvent]] = []
    seq = 0
    for event in log.events:
        seq += 1
        out.append(("append", GameEvent(seq, event.ts, event.source, event.type, dict(event.data))))
        kind = data.draw(st.sampled_from(("none",) * 5 + ("undo_last", "undo", "correct", "insert")))
        if kind != "none":
            seq += 1
            earlier = [e for step, e in out if step == "append"]
            if kind == "undo_last":
                out.append(("append", GameEvent(seq, event.ts, Source.MANUAL, "undo", {"target": earlier[-1].seq})))
            else:
                out.append(("append", _meta(kind, seq, event.ts, data, earlier)))
        if data.draw(st.integers(0, 5)) == 0:
            last = out[-1][1]
            out.append(("rewind", last))
            if data.draw(st.booleans()):
                out.append(("append", last))
    return out


def _play(log: GameLog, script: list[tuple[str, GameEvent]], every: int, stored: bool) -> tuple[list[Any], Session]:
    """Each step's outcome (the rulings, or the refusal) and the session at the end, with ``MEMO_EVERY`` = ``every``;
    ``stored``: the events restored as from the store (refused ones kept), not appended."""
    with mock.patch("scorer.session.MEMO_EVERY", every):
        session = Session(log.header.game, log.header.players, dict(log.header.options))
        outcomes: list[Any] = []
        mark = session.checkpoint()
        for step, event in script:
            if step == "rewind":
                session.rewind(mark)
                outcomes.append(("rewound", session.next_seq))
                continue
            if event.seq < session.next_seq:
                outcomes.append(("skipped", event.seq))
                continue
            event = GameEvent(session.next_seq, event.ts, event.source, event.type, dict(event.data))
            mark = session.checkpoint()
            try:
                got = session.restore(event) if stored else session.append(event)
                outcomes.append(("ruled", event.seq, [(r.code, r.seq, r.message) for r in got]))
            except EventError as exc:
                outcomes.append(("refused", event.seq, str(exc)))
    return outcomes, session


def _whole(session: Session) -> tuple[Any, ...]:
    return (
        session.events,
        session.state,
        session.rulings,
        session.idle,
        session.refused,
        session.reruled,
        session.faults_before,
        session.summary(),
    )


@pytest.mark.parametrize("stored", [False, True], ids=["appended", "restored"])
@pytest.mark.parametrize("log", LOGS, ids=[str(p.relative_to(ROOT)) for p in LOGS])
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_a_session_with_the_memo_rules_every_event_as_one_refolding_from_the_start(
    log: Path, stored: bool, data: st.DataObject
) -> None:
    game = parse_log(log.read_text(encoding="utf-8"))
    script = _script(game, data)
    want, plain = _play(game, script, NO_MEMO, stored)
    for every in (1, 3, 16):
        got, memo = _play(game, script, every, stored)
        assert got == want, every
        assert _whole(memo) == _whole(plain), every


@pytest.mark.parametrize("log", LOGS, ids=[str(p.relative_to(ROOT)) for p in LOGS])
@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_the_view_after_an_event_is_that_of_a_fold_from_the_start(log: Path, data: st.DataObject) -> None:
    """``Session.view_after`` (asked by the camera when a phone's change re-rules one of its events) folds from the
    memo's last mark before the event: the same view as a fold of the events that count from the start, for each of
    them, whatever undos, corrections and rewinds came; None for an event that does not count."""
    game = parse_log(log.read_text(encoding="utf-8"))
    _, session = _play(game, _script(game, data), 3, False)
    state = session.game.initial_state(session.players, session.options)
    counting = session.counting()
    for event in counting:
        state, _ = session.game.apply(state, event)
        assert session.view_after(event.seq) == session.game.view(state), event.seq
    counted = {e.seq for e in counting}
    assert all(session.view_after(e.seq) is None for e in session.events if e.seq not in counted)


def test_the_view_after_an_event_leaves_out_a_refused_stored_event_before_it() -> None:
    """A game loaded with Bo's stored 12 (an earlier version took it; 0 to 9 now), kept and not counted: the view the
    camera asks for after each later event is the game's without it. Given to the referee, it raised the 12's refusal
    for every later event (kills mutant M25, session 53 mutsession)."""
    session = Session(TALLY, ["Ann", "Bo"])
    for seq, (name, points) in enumerate([("Ann", 3), ("Bo", 12), ("Bo", 4), ("Ann", 1)], start=1):
        session.restore(GameEvent(seq, 100 * seq, Source.MANUAL, "add", {"player": name, "points": points}))
    assert [session.view_after(seq) for seq in (1, 2, 3, 4)] == [
        {"points": [3, 0], "turn": "Bo"},
        None,
        {"points": [3, 4], "turn": "Ann"},
        {"points": [4, 4], "turn": "Bo"},
    ]


def test_an_undo_rewound_then_made_again_after_more_play_takes_the_entry_out() -> None:
    """Ann's 9 (event 15) entered by mistake; its undo is rewound (the store could not write it: web.hub rewinds the
    session), three more entries are made, and the undo made again. The memo, still taken as the session's walk after
    the rewind, had its mark after the 16th event put on a state with Ann's 9 in it, and refolded from there: the
    undo was taken and Ann kept her 9 (17 to 9; kills mutant M26, session 53 mutsession)."""
    session = Session(TALLY, ["Ann", "Bo"], {"target": 100})
    entries = [("Ann", 1), ("Bo", 1)] * 7 + [("Ann", 9)]
    for seq, (name, points) in enumerate(entries, start=1):
        session.append(GameEvent(seq, 100 * seq, Source.MANUAL, "add", {"player": name, "points": points}))
    mark = session.checkpoint()
    session.append(GameEvent(16, 1600, Source.MANUAL, "undo", {"target": 15}))
    session.rewind(mark)
    for seq, name in enumerate(["Bo", "Ann", "Bo"], start=16):
        session.append(GameEvent(seq, 100 * seq, Source.MANUAL, "add", {"player": name, "points": 1}))
    session.append(GameEvent(19, 1900, Source.MANUAL, "undo", {"target": 15}))
    assert tuple(session.state.points) == (8, 9)
    assert session.state == replay(session.log()).state


@pytest.mark.parametrize("bid", [True, 1.0], ids=["true", "one_point_oh"])
def test_a_correction_equal_only_to_python_is_ruled_on(bid: object) -> None:
    """A bid of 1 corrected to ``true`` or ``1.0``: equal under Python's ``==``, so the memo took the correction for no
    change and never gave it to the referee, which refuses such a bid (the review, session 42)."""
    log = parse_log((ROOT / "tests" / "golden" / "spades" / "card_hand.jsonl").read_text(encoding="utf-8"))
    session = Session(log.header.game, log.header.players, dict(log.header.options))
    for event in log.events[:20]:  # the deal, four bids and 15 plays: past the first mark
        session.append(event)
    bids = [e for e in log.events[:5] if e.type == "bid"]
    target = next(e for e in bids if e.data["bid"] == 1)  # (the golden hand has a bid of 1)
    body = {**dict(target.data), "type": "bid", "bid": bid}
    with pytest.raises(EventError, match="bid"):
        session.append(GameEvent(21, 50000, Source.MANUAL, "correct", {"target": target.seq, "event": body}))


@pytest.mark.parametrize("kind", ["correct", "undo"])
@pytest.mark.parametrize("target", [MEMO_EVERY - 2, MEMO_EVERY, MEMO_EVERY + 2, 2 * MEMO_EVERY])  # Bo's entries
def test_a_change_next_to_a_memo_mark_changes_the_score(target: int, kind: str) -> None:
    """Ann and Bo add a point each, turn about, 40 times; then the scorekeeper corrects (Bo scored 5, not 1) or undoes
    one entry. Refolded from a mark past the first event it changes (the mark after the 16th entry, for a change of
    the 16th), the change was taken but the score stayed as it was (kills mutant M19, session 53 mutsession)."""
    session = Session(TALLY, ["Ann", "Bo"], {"target": 100})
    for seq in range(1, 41):
        session.append(
            GameEvent(seq, 100 * seq, Source.MANUAL, "add", {"player": ["Ann", "Bo"][seq % 2 == 0], "points": 1})
        )
    body = {"type": "add", "player": "Bo", "points": 5}
    meta = {"target": target, "event": body} if kind == "correct" else {"target": target}
    session.append(GameEvent(41, 4100, Source.MANUAL, kind, meta))
    assert tuple(session.state.points) == ((20, 24) if kind == "correct" else (20, 19))
    assert session.state == replay(session.log()).state


@pytest.mark.parametrize("later", [0, MEMO_EVERY], ids=["none", "a_memo_mark"])
def test_a_refused_stored_event_corrected_to_itself_is_refused_again(later: int) -> None:
    """Bo's stored 12 (an earlier version took it; 0 to 9 now) is kept, refused; Ann's last entry is undone.
    Corrected to the same 12, Bo's is refused again for the same reason. With a memo mark past it (16 entries later)
    the memo took the correction for the stored event it equals, whether it counts or not: it was taken, listed as
    counting, and never added to Bo's score, and the game's export did not replay (kills mutant M17, session 53
    mutsession)."""
    session = Session(TALLY, ["Ann", "Bo"], {"target": 100})
    entries = [("Ann", 3), ("Bo", 12)] + [("Ann", 1), ("Bo", 1)] * (later // 2) + [("Ann", 5)]
    for seq, (name, points) in enumerate(entries, start=1):
        session.restore(GameEvent(seq, 100 * seq, Source.MANUAL, "add", {"player": name, "points": points}))
    session.append(GameEvent(session.next_seq, 8000, Source.MANUAL, "undo", {"target": len(entries)}))  # Ann's 5
    before = session.summary()
    body = {"type": "add", "player": "Bo", "points": 12}
    with pytest.raises(EventError, match="'points' must be a whole number from 0 to 9, not 12"):
        session.append(GameEvent(session.next_seq, 9000, Source.MANUAL, "correct", {"target": 2, "event": body}))
    assert session.summary() == before and 2 not in {e.seq for e in session.counting()}


def _evening(undo_every: int, hands: int) -> GameLog:
    """A Spades evening played card by card (the demo's hand over and over), an undo of the last play and the play
    entered again every ``undo_every`` events."""
    hand = parse_log((ROOT / "tests" / "golden" / "spades" / "card_hand.jsonl").read_text(encoding="utf-8"))
    events: list[GameEvent] = []
    for _ in range(hands):
        for event in hand.events:
            events.append(GameEvent(len(events) + 1, event.ts, event.source, event.type, dict(event.data)))
            if event.type == "play" and len(events) % undo_every == 0:
                events.append(GameEvent(len(events) + 1, event.ts, Source.MANUAL, "undo", {"target": len(events)}))
                events.append(GameEvent(len(events) + 1, event.ts, event.source, event.type, dict(event.data)))
    header = LogHeader(hand.header.game, hand.header.players, {"target": 10000})  # (500 is reached in 4 hands)
    return GameLog(header, tuple(events))


def test_undos_do_not_make_a_long_game_slow_to_load() -> None:
    """Loading a game replayed it whole once per stored undo: an evening of 1,875 Spades events with 83 undos took
    16.7 s to open after a restart (the scale audit, session 42). Now the undos add little to a replay: measured
    against the same evening without them (a ratio, so the machine's speed does not matter): 1,498 events with 65
    undos took 20 times as long as without them, with the memo about twice."""
    plain, undone = _evening(10**9, 24), _evening(20, 24)
    assert sum(e.type == "undo" for e in undone.events) > 60

    def took(log: GameLog) -> float:
        start = time.process_time()
        replay(log)
        return time.process_time() - start

    assert replay(undone).score() == replay(plain).score()  # (the rulings name other event numbers)
    ratio = min(took(undone) for _ in range(2)) / min(took(plain) for _ in range(2))
    assert ratio < 5, ratio
