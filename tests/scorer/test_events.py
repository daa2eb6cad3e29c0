"""The event model: JSON round-trips, readable errors, and the log format."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scorer.events import (
    EventError,
    GameEvent,
    GameLog,
    LogError,
    LogHeader,
    Source,
    format_log,
    header_title,
    name_problem,
    parse_event,
    parse_log,
)

json_leaf = st.none() | st.booleans() | st.integers(-(10**9), 10**9) | st.text(max_size=8)
json_values = st.recursive(
    json_leaf,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=10,
)
payloads = st.dictionaries(
    st.text(min_size=1, max_size=8).filter(lambda k: k not in ("seq", "ts", "source", "type")), json_values, max_size=4
)
events = st.builds(
    GameEvent,
    seq=st.integers(0, 10**6),
    ts=st.integers(0, 10**12),
    source=st.sampled_from(list(Source)),
    type=st.text(min_size=1, max_size=10),
    data=payloads,
)


@given(events)
def test_every_event_round_trips_through_json(event: GameEvent) -> None:
    assert parse_event(json.loads(event.to_line())) == event
    assert GameEvent.from_json(event.to_json()) == event


@given(st.lists(events, max_size=5, unique_by=lambda e: e.seq))
def test_every_log_round_trips_through_json_lines(items: list[GameEvent]) -> None:
    log = GameLog(LogHeader("tally", ("Ann", "Bo"), {"target": 5}), tuple(sorted(items, key=lambda e: e.seq)))
    assert parse_log(format_log(log)) == log


def test_payload_is_read_only_and_copied() -> None:
    given_data = {"cards": ["AS"]}
    event = GameEvent(1, 0, Source.MANUAL, "play", given_data)
    given_data["cards"].append("KS")
    assert event.data["cards"] == ["AS"]
    with pytest.raises(TypeError):
        event.data["x"] = 1  # type: ignore[index]


@pytest.mark.parametrize(
    ("obj", "message"),
    [
        ([], "JSON object"),
        ({"ts": 0, "source": "manual", "type": "bid"}, "no 'seq'"),
        ({"seq": 1, "ts": -5, "source": "manual", "type": "bid"}, "'ts' must be milliseconds"),
        ({"seq": 1, "ts": 1.5, "source": "manual", "type": "bid"}, "'ts' must be milliseconds"),
        ({"seq": "1", "ts": 0, "source": "manual", "type": "bid"}, "'seq' must be a whole number"),
        ({"seq": 1, "ts": 0, "source": "camera", "type": "bid"}, "vision, manual or replay"),
        ({"seq": 1, "ts": 0, "source": "manual", "type": ""}, "'type' must be a non-empty text"),
    ],
    ids=["not-an-object", "no-seq", "negative-ts", "fractional-ts", "text-seq", "unknown-source", "empty-type"],
)
def test_malformed_events_are_refused_with_a_reason(obj: object, message: str) -> None:
    with pytest.raises(EventError, match=message):
        parse_event(obj)


def test_payload_readers_explain_what_is_wrong() -> None:
    event = GameEvent(7, 0, Source.MANUAL, "bid", {"player": "Zed", "bid": 14, "card": "XX", "cards": ["AS", 3]})
    with pytest.raises(EventError, match=r"event 7 \(bid\): 'player' must be one of the players: Ann, Bo"):
        event.player(("Ann", "Bo"))
    with pytest.raises(EventError, match="'bid' must be a whole number from 0 to 13, not 14"):
        event.integer("bid", 0, 13)
    with pytest.raises(EventError, match="'card': 'XX' is not a card"):
        event.card()
    with pytest.raises(EventError, match="'cards' must be a list of cards"):
        event.cards()
    with pytest.raises(EventError, match="'tricks' is missing"):
        event.integer("tricks")


LOG_HEADER = '{"format": "tablecall-log", "version": 1, "game": "tally", "players": ["Ann", "Bo"]}'


@pytest.mark.parametrize(
    ("lines", "line", "message"),
    [
        ([], 1, "empty"),
        (['{"format": "other"}'], 1, "header"),
        ([LOG_HEADER.replace('"version": 1', '"version": 9')], 1, "format version 9"),
        ([LOG_HEADER.replace('"version": 1', '"version": true')], 1, "format version true; this"),  # taken for 1
        ([LOG_HEADER.replace('"version": 1', '"version": null')], 1, "format version null; this"),  # said "None"
        ([LOG_HEADER.replace('"Bo"', '"Ann"')], 1, "two players are called 'Ann': give each player a different name"),
        # held to a new game's rule on the dashboard (a log replay took, Import refused)
        ([LOG_HEADER.replace('"Bo"', '"ann"')], 1, "'Ann' and 'ann' look like the same name"),
        ([LOG_HEADER.replace('"Bo"', '"A\u200bnn"')], 1, "look like the same name"),
        ([LOG_HEADER.replace('"Bo"', '"' + "B" * 33 + '"')], 1, "too long: 33 letters and marks, at most 32"),
        ([LOG_HEADER.replace('"Bo"', '"B\\u0007o"')], 1, "control characters"),
        ([LOG_HEADER.replace('"Bo"', '"\\u202eBo"')], 1, "text-direction controls"),
        ([LOG_HEADER.replace('"Bo"', '"Bo "')], 1, "'Bo ' has spaces at its start or end"),
        ([LOG_HEADER.replace("}", ', "title": 5}')], 1, "the header's 'title' must be a text, not 5"),
        ([LOG_HEADER.replace("}", ', "title": null}')], 1, "the header's 'title' must be a text, not null"),
        ([LOG_HEADER.replace(', "version": 1', "")], 1, "the header has no 'version'"),
        ([LOG_HEADER.replace("}", ', "title": "\\u202eFriday"}')], 1, "'title' may not hold control characters"),
        ([LOG_HEADER.replace("}", ', "title": " Friday"}')], 1, "'title' may not start or end with a space"),
        ([LOG_HEADER, "{not json"], 2, "not valid JSON"),
        ([LOG_HEADER, '{"seq": 1, "ts": 0, "source": "manual", "type": "add", "x": NaN}'], 2, "holds NaN"),
        ([LOG_HEADER, '{"seq": 1, "ts": 0, "source": "manual", "type": "add", "x": -1e999}'], 2, "too large"),
        ([LOG_HEADER, "", '{"seq": 1, "ts": 0, "source": "manual"}'], 3, "no 'type'"),
        (
            [
                LOG_HEADER,
                '{"seq": 2, "ts": 0, "source": "manual", "type": "add"}',
                '{"seq": 2, "ts": 0, "source": "manual", "type": "add"}',
            ],
            3,
            "seq 2 is used twice: each event needs a higher seq than the one before it",
        ),
        ([LOG_HEADER, '{"seq": 1, "ts": 100000000000000000000, "source": "manual", "type": "add"}'], 2, "'ts' must"),
        ([LOG_HEADER, '{"seq": 100000000000000000000, "ts": 0, "source": "manual", "type": "add"}'], 2, "'seq' must"),
        ([LOG_HEADER, '{"seq": 1, "ts": 0, "type": "add", "x": ' + "[" * 100_000 + "]" * 100_000 + "}"], 2, "nested"),
        ([LOG_HEADER.replace('"Bo"', '"B\\ud800o"')], 1, "not valid Unicode"),
    ],
    ids=[
        "empty",
        "no-header",
        "future-version",
        "version-true",
        "version-null",
        "duplicate-names",
        "names-differ-by-case",
        "names-differ-invisibly",
        "name-too-long",
        "name-control-character",
        "name-right-to-left-override",
        "name-with-a-trailing-space",
        "title-not-a-text",
        "title-null",
        "no-version",
        "title-right-to-left-override",
        "title-with-a-leading-space",
        "bad-json",
        "nan",
        "1e999",
        "missing-type",
        "seq-order",
        "ts-beyond-64-bits",  # Import's database could not store it: a 500
        "seq-beyond-64-bits",
        "nested-too-deeply",  # a RecursionError traceback
        "lone-surrogate",  # a UnicodeEncodeError traceback
    ],
)
def test_malformed_logs_name_the_line(lines: list[str], line: int, message: str) -> None:
    with pytest.raises(LogError, match=message) as info:
        parse_log(lines)
    assert info.value.line == line


def test_a_byte_order_mark_before_the_header_is_not_part_of_the_log() -> None:
    """A log file saved by Windows Notepad (and pasted or uploaded whole) starts with U+FEFF; only there is it left
    out: inside a line it is an error like any stray character."""
    assert parse_log("\ufeff" + LOG_HEADER + "\n").header.players == ("Ann", "Bo")
    with pytest.raises(LogError, match="not valid JSON") as info:
        parse_log([LOG_HEADER, "\ufeff{}"])
    assert info.value.line == 2


@pytest.mark.parametrize(
    ("first", "second", "alike"),
    [
        pytest.param("ကိုအောင်", "ကုိအောင်", True, id="vowel_marks_typed_in_either_order"),
        pytest.param("ရွှေ", "ရှွေ", True, id="medials_typed_in_either_order"),
        pytest.param("ဝင်းဝင်း", "၀င်း၀င်း", True, id="digit_zero_for_the_letter_wa"),
        pytest.param("ရဲ", "၇ဲ", True, id="digit_seven_for_the_letter_ra"),
        pytest.param("ကိုကို", "ကိုအောင်", False, id="two_names"),
        pytest.param("ကိုအောင်ကြီး", "ကိုအောင်လေး", False, id="elder_and_younger"),
        pytest.param("မမြင့်", "မမြင့်မြင့်", False, id="a_name_and_its_doubling"),
        pytest.param(  # flags end in tag characters (format characters, but visible in what they make)
            "Ann \U0001f3f4\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f",
            "Ann \U0001f3f4\U000e0067\U000e0062\U000e0077\U000e006c\U000e0073\U000e007f",
            False,
            id="scotland_and_wales",
        ),
    ],
)
def test_myanmar_names_that_read_alike_are_one_name(first: str, second: str, alike: bool) -> None:
    """NFKC leaves most Myanmar marks in the order typed (their combining class is 0): two players whose names read
    the same were taken, and points went to the wrong twin (a Burmese game-night audit, session 35)."""
    problem = name_problem([first, second])
    assert problem is None if not alike else "look like the same name" in problem, problem


@pytest.mark.parametrize(
    ("names", "problem"),
    [
        (["\u200b", "\u200b"], "every player needs a name"),  # was "two players are called '\u200b'"
        ([" Alex", " Alex"], "the name ' Alex' has spaces at its start or end"),
        (["Alex", "Beth", "Alex"], "two players are called 'Alex': give each player a different name"),
        (["Alex", "alex"], "'Alex' and 'alex' look like the same name: give each player a different one"),
    ],
)
def test_a_name_s_own_problem_is_said_before_a_repeated_one(names: list[str], problem: str) -> None:
    """Repeated names were checked first: two zero-width spaces were "two players are called '\u200b'" (a review of
    session 36's wording, which quotes the repeated name)."""
    assert name_problem(names) == problem


def test_header_title_makes_any_title_one_a_header_takes() -> None:
    assert header_title("  Friday\u202e night\x07 ") == "Friday night"
    assert header_title("x" * 100) == "x" * 79 + "…" and len(header_title("x" * 100)) == 80
    assert LogHeader.from_json({**LogHeader("tally", ("Ann",)).to_json(), "title": header_title("y " * 60)}).title


def test_a_header_title_longer_than_a_header_takes_is_cut_as_an_export_cuts_it() -> None:
    """An export cuts a long dashboard title to 80 characters; a player renamed longer in that header made it 86, and
    Import refused the log, even with a title of its own (the play-on audit, session 40)."""
    long = "Spades: Christopher Johnson-Smith, Elizabeth Robertson, Maximilian Schneider, Alexand…"
    assert len(long) > 80
    header = parse_log([LOG_HEADER.replace("}", f', "title": "{long}"}}')]).header
    assert header.title == header_title(long) == long[:79] + "…"
