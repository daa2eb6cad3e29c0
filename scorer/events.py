"""The event model: what happened at the table, as frozen records, and its JSON Lines form.

An event is ``seq`` (its position in the game's log, from 1), ``ts`` (milliseconds,
supplied by whoever saw it: the camera's frame time or the phone's press time), ``source``
(``vision`` | ``manual`` | ``replay``), ``type`` (``bid``, ``play``, ``flip``, …: each game
lists its own) and a game-specific payload. On the wire an event is one flat JSON object::

    {"seq": 3, "ts": 41250, "source": "manual", "type": "bid", "player": "Beth", "bid": 4}

A log file is JSON Lines: a header line, then one event per line::

    {"format": "tablecall-log", "version": 1, "game": "spades",
     "players": ["Alex", "Beth", "Charlie", "David"], "options": {"target": 300}}

Nothing is ever overwritten. Three event types, understood by every game, change which
events count (:mod:`scorer.session` applies them):

* ``undo`` ``{"target": 17}``: event 17 no longer counts (undoing an ``undo`` restores its
  target);
* ``correct`` ``{"target": 17, "event": {"type": "bid", "player": "Beth", "bid": 5}}``:
  event 17 counts as the given event (it keeps its ``ts`` unless the correction gives one);
* ``insert`` ``{"after": 17, "event": {...}}``: a missed event counts as if it had come
  right after event 17 (``"after": 0`` puts it first).
"""

from __future__ import annotations

import json
import math
import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from types import MappingProxyType
from typing import Any, TypeVar

from scorer.cards import Card, CardError, Face, PhysicalCard, parse_card, parse_face, parse_physical
from scorer.shown import as_json, cut

__all__ = [
    "FORMAT",
    "MAX_NUMBER",
    "META_TYPES",
    "VERSION",
    "EventError",
    "GameEvent",
    "GameLog",
    "LogError",
    "LogHeader",
    "Source",
    "format_log",
    "parse_event",
    "parse_log",
]

FORMAT = "tablecall-log"
VERSION = 1
META_TYPES = frozenset({"undo", "correct", "insert"})
#: the largest seq or ts (ms) a log may hold: what a database's 64-bit integer keeps (2**63 did not: a 500 on Import)
MAX_NUMBER = 2**62
_RESERVED = ("seq", "ts", "source", "type")

T = TypeVar("T")
Json = Any  # JSON-compatible value: None, bool, int, float, str, list, dict


class EventError(ValueError):
    """A malformed event or log. The message is written for a person at the table."""


class LogError(EventError):
    """A malformed log line; ``line`` is its 1-based line number."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(message)
        self.line = line
        self.reason = message

    def __str__(self) -> str:
        return f"line {self.line}: {self.reason}"


class Source(Enum):
    VISION = "vision"
    MANUAL = "manual"
    REPLAY = "replay"


def _frozen(data: Mapping[str, Json]) -> Mapping[str, Json]:
    return MappingProxyType(json.loads(json.dumps(dict(data))))


@dataclass(frozen=True)
class GameEvent:
    """One thing that happened at the table. ``data`` is read-only."""

    seq: int
    ts: int
    source: Source
    type: str
    data: Mapping[str, Json] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if isinstance(self.seq, bool) or not isinstance(self.seq, int) or not 0 <= self.seq <= MAX_NUMBER:
            raise EventError(f"'seq' must be a whole number from 0 to {MAX_NUMBER}, not {self.seq!r}")
        if isinstance(self.ts, bool) or not isinstance(self.ts, int) or not 0 <= self.ts <= MAX_NUMBER:
            raise EventError(f"'ts' must be milliseconds as a whole number from 0 to {MAX_NUMBER}, not {self.ts!r}")
        if not isinstance(self.source, Source):
            raise EventError(f"'source' must be vision, manual or replay, not {self.source!r}")
        if not isinstance(self.type, str) or not self.type:
            raise EventError(f"'type' must be a non-empty text, not {self.type!r}")
        clash = [key for key in _RESERVED if key in self.data]
        if clash:
            raise EventError(f"the payload may not use the reserved key {clash[0]!r}")
        try:
            object.__setattr__(self, "data", _frozen(self.data))
        except (TypeError, ValueError) as exc:
            raise EventError(f"the payload is not plain JSON data: {exc}") from None

    # -- JSON -----------------------------------------------------------------------------
    def to_json(self) -> dict[str, Json]:
        """The flat wire form (a fresh, mutable dict)."""
        out: dict[str, Json] = {
            "seq": self.seq,
            "ts": self.ts,
            "source": self.source.value,
            "type": self.type,
        }
        out.update(json.loads(json.dumps(dict(self.data))))
        return out

    def to_line(self) -> str:
        return json.dumps(self.to_json(), ensure_ascii=False, separators=(", ", ": "))

    @classmethod
    def from_json(cls, obj: Json) -> GameEvent:
        return parse_event(obj)

    def with_seq(self, seq: int, ts: int | None = None) -> GameEvent:
        return GameEvent(seq, self.ts if ts is None else ts, self.source, self.type, self.data)

    # -- payload readers: each raises EventError with a message a person understands -------
    @property
    def shown_type(self) -> str:
        """The type as messages quote it, cut short: a 3,000-character type was echoed twice (the wording audit)."""
        return cut(self.type)

    def where(self) -> str:
        return f"event {self.seq} ({self.shown_type})"

    def _missing(self, key: str, wanted: str) -> EventError:
        if key not in self.data:
            return EventError(f"{self.where()}: '{key}' is missing ({wanted})")
        return EventError(f"{self.where()}: '{key}' must be {wanted}, not {self.data[key]!r}")

    def has(self, key: str) -> bool:
        return key in self.data and self.data[key] is not None

    def text(self, key: str) -> str:
        value = self.data.get(key)
        if not isinstance(value, str) or not value.strip():
            raise self._missing(key, "a text")
        return value

    def integer(self, key: str, low: int | None = None, high: int | None = None) -> int:
        value = self.data.get(key)
        span = _span(low, high)
        if isinstance(value, bool) or not isinstance(value, int):
            raise self._missing(key, "a whole number" + span)
        if (low is not None and value < low) or (high is not None and value > high):
            raise self._missing(key, "a whole number" + span)
        return value

    def flag(self, key: str, default: bool | None = None) -> bool:
        value = self.data.get(key, default)
        if not isinstance(value, bool):
            raise self._missing(key, "true or false")
        return value

    def choice(self, key: str, choices: Sequence[str]) -> str:
        value = self.data.get(key)
        if value not in choices:
            raise self._missing(key, "one of " + ", ".join(choices))
        assert isinstance(value, str)
        return value

    def player(self, players: Sequence[str], key: str = "player") -> int:
        """The seat index of the player named under ``key``."""
        value = self.data.get(key)
        if isinstance(value, str) and value in players:
            return list(players).index(value)
        raise self._missing(key, "one of the players: " + ", ".join(players))

    def card(self, key: str = "card") -> Card:
        return self.parsed(key, parse_card, "a card like 'AS' or '10H'")

    def face(self, key: str = "card") -> Face:
        return self.parsed(key, parse_face, "a card like 'AS' or a joker 'JK'")

    def physical(self, key: str = "card") -> PhysicalCard:
        return self.parsed(key, parse_physical, "a card like 'AS' or 'AS/2'")

    def cards(self, key: str = "cards") -> tuple[Card, ...]:
        return tuple(self._parse_list(key, parse_card, "a list of cards like ['AS', '10H']"))

    def items(self, key: str) -> list[Json]:
        value = self.data.get(key)
        if not isinstance(value, list):
            raise self._missing(key, "a list")
        return list(value)

    def parsed(self, key: str, parse: Callable[[str], T], wanted: str) -> T:
        """The text under ``key`` read by ``parse`` (e.g. a Ten card); ``wanted`` names it in errors."""
        value = self.data.get(key)
        if not isinstance(value, str):
            raise self._missing(key, wanted)
        try:
            return parse(value)
        except CardError as exc:
            raise EventError(f"{self.where()}: '{key}': {exc}") from None

    def _parse_list(self, key: str, parse: Callable[[str], T], wanted: str) -> list[T]:
        value = self.data.get(key)
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise self._missing(key, wanted)
        out = []
        for item in value:
            try:
                out.append(parse(item))
            except CardError as exc:
                raise EventError(f"{self.where()}: '{key}': {exc}") from None
        return out


def _span(low: int | None, high: int | None) -> str:
    if low is not None and high is not None:
        return f" from {low} to {high}"
    if low is not None:
        return f" >= {low}"
    if high is not None:
        return f" <= {high}"
    return ""


def parse_event(obj: Json) -> GameEvent:
    """An event from its flat JSON object; raises :class:`EventError` if malformed."""
    if not isinstance(obj, dict):
        raise EventError('an event must be a JSON object like {"seq": 1, "ts": 0, ...}')
    for key in _RESERVED:
        if key not in obj:
            raise EventError(f"the event has no '{key}'")
    try:
        source = Source(obj["source"])
    except (ValueError, TypeError):
        raise EventError(f"'source' must be vision, manual or replay, not {obj['source']!r}") from None
    data = {key: value for key, value in obj.items() if key not in _RESERVED}
    return GameEvent(obj["seq"], obj["ts"], source, obj["type"], data)


MAX_NAME = 32  # characters in a player's name
# Unicode's explicit text-direction embeddings, overrides and isolates: in a name they turn round whatever follows it
BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def is_control(c: str) -> bool:
    """A control character (C0, DEL, C1): no name, title or event text may hold one."""
    return ord(c) < 32 or 0x7F <= ord(c) < 0xA0


def name_problem(names: Sequence[str]) -> str | None:
    """Why ``names`` cannot be a game's players, or None: each needs 1 to :data:`MAX_NAME` code points, not blank
    once invisible characters are left out, without spaces or invisible characters at either end, control
    characters or text-direction controls; and no two may read alike (:func:`looks`). A log file is held to what a
    new game on the dashboard is (a log ``tablecall replay`` took could not be imported)."""
    seen: dict[str, str] = {}
    for name in names:
        if not looks(name).strip():  # a zero-width space alone (pasted from a chat) was a blank name on every screen
            return "every player needs a name"
        if name != name.strip():  # " Alex" imported kept its space: a name the dashboard never makes
            return f"the name {name!r} has spaces at its start or end"
        if len(name) > MAX_NAME:  # counted in code points: in Myanmar script a syllable takes several
            return f"the name '{_start(name, 16)}...' is too long: {len(name)} letters and marks, at most {MAX_NAME}"
        if any(is_control(c) for c in name):
            return f"the name {name!r} may not hold control characters"
        if any(c in BIDI_CONTROLS for c in name):  # "\u202eBeth": "Dan & Beth" read "naD & hteB", a bid 3/5 as 5/3
            return f"the name {name!r} may not hold text-direction controls"
        if _invisible(name[0]) or _invisible(name[-1]):
            return f"the name {name!r} has an invisible character (a zero-width space?) at its start or end"
    twice = next((name for k, name in enumerate(names) if name in names[:k]), None)
    if twice is not None:  # which one: the form's message did not say (accessibility audit, session 36)
        return f"two players are called '{_start(twice, 32)}': give each player a different name"
    for name in names:
        other = seen.setdefault(looks(name), name)
        if other != name:  # "Alex", "alex" and "Alex" + a zero-width space are one person to a group at the screen
            return f"'{other}' and '{name}' look like the same name: give each player a different one"
    return None


class JsonProblem(ValueError):
    """Why a text is not a JSON value that browsers read back as it is. ``kind``: ``syntax`` (``detail``: the parser's
    words), ``number`` (NaN or Infinity, which Python reads and browsers do not; ``detail``: the word), ``too_large``
    (1e999, read as Infinity; ``detail``: the number), ``deep`` (nested past the recursion limit), ``encoding`` (bytes
    that are not UTF-8), ``surrogate`` (a lone surrogate escape such as ``"\\ud800"``, which is no text)."""

    def __init__(self, kind: str, detail: str = "") -> None:
        super().__init__(detail or kind)
        self.kind, self.detail = kind, detail


def read_json(text: str | bytes) -> Json:
    """One JSON value, as a log line or a request body must be: raises :class:`JsonProblem` (the log parser and the
    dashboard's writes say each kind in their own words)."""
    try:
        value = json.loads(text, parse_constant=_not_a_number, parse_float=_finite)
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except JsonProblem:
        raise
    except json.JSONDecodeError as exc:
        raise JsonProblem("syntax", f"{exc.msg} at column {exc.colno}") from None
    except RecursionError:
        raise JsonProblem("deep") from None
    except UnicodeDecodeError:
        raise JsonProblem("encoding") from None
    except UnicodeError:
        raise JsonProblem("surrogate") from None
    except ValueError as exc:  # a whole number of more digits than Python converts
        raise JsonProblem("syntax", str(exc)) from None
    return value


def _not_a_number(word: str) -> Any:
    raise JsonProblem("number", word)


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise JsonProblem("too_large", text)
    return value


_LOG_JSON = {
    "syntax": "not valid JSON ({})",
    "number": "holds {}, which is not JSON: write a number",
    "too_large": "holds {} (too large a number), which is not JSON: write a number",
    "deep": "nested too deeply to be an event",
    "encoding": "holds text that is not valid Unicode (a lone surrogate such as \\ud800)",
    "surrogate": "holds text that is not valid Unicode (a lone surrogate such as \\ud800)",
}


def _start(text: str, n: int) -> str:
    """About the first ``n`` code points of ``text``, never cut before a combining mark, after a stacking sign, or
    before a final consonant (one an asat closes): a Myanmar syllable is not cut in two."""

    def joined(i: int) -> bool:  # text[i] belongs to the syllable before it
        if unicodedata.category(text[i]).startswith("M") or text[i - 1] == "\u1039":
            return True
        after = text[i + 1 : i + 3]  # a final consonant: its asat next, or after the dot below
        return after[:1] == "\u103a" or after == "\u1037\u103a"

    while n < len(text) and joined(n):
        n += 1
    return text[:n]


def _invisible(char: str) -> bool:
    """A format character (zero-width space, joiner, mark), but not a tag (U+E0020-E007F: the flags of Scotland,
    England and Wales end in them, and differ by them)."""
    return unicodedata.category(char) == "Cf" and not "\U000e0020" <= char <= "\U000e007f"


def looks(name: str) -> str:
    """How a name reads: compatibility forms folded (NFKC), invisible format characters (zero-width spaces and
    joiners) left out, case ignored; in Myanmar script the marks on a letter in any order (ု before ိ is commonly
    typed, NFKC leaves it: both read ကို), and the digits that look like letters (၀ ဝ, ၇ ရ) as those letters."""
    folded = unicodedata.normalize("NFKC", name)
    key = "".join(c for c in folded if not _invisible(c)).casefold().translate(_MYANMAR_DIGITS)
    return _MYANMAR_MARKS.sub(lambda run: "".join(sorted(run.group())), key)


_MYANMAR_DIGITS = str.maketrans({"\u1040": "\u101d", "\u1047": "\u101b"})
_MYANMAR_MARKS = re.compile(
    "[\u102b-\u103e\u1056-\u1059\u105e-\u1060\u1062-\u1064\u1067-\u106d\u1071-\u1074\u1082-\u108d"
    "\u108f\u109a-\u109d]{2,}"
)


MAX_TITLE = 80  # a game's title, in characters (the dashboard's limit)


def header_title(title: str) -> str:
    """``title`` as a log header takes it: without control or text-direction characters, no spaces at its ends, at
    most :data:`MAX_TITLE` characters (cut with "…"). A dashboard's own title (made of many or long names) may be
    longer: its export wrote a header its own reader refused (a session-36 review)."""
    kept = "".join(c for c in title if not (is_control(c) or c in BIDI_CONTROLS)).strip()
    return kept if len(kept) <= MAX_TITLE else kept[: MAX_TITLE - 1].rstrip() + "…"


@dataclass(frozen=True)
class LogHeader:
    """The first line of a log: which game, who plays, which house rules."""

    game: str
    players: tuple[str, ...]
    options: Mapping[str, Json] = field(default_factory=dict)
    version: int = VERSION
    #: the game's title on the dashboard, carried by its export so that an import keeps it (it came back as
    #: "Spades (imported): ..."); optional, and read by nothing that referees
    title: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "players", tuple(self.players))
        object.__setattr__(self, "options", _frozen(self.options))

    def to_json(self) -> dict[str, Json]:
        out: dict[str, Json] = {
            "format": FORMAT,
            "version": self.version,
            "game": self.game,
            "players": list(self.players),
            "options": json.loads(json.dumps(dict(self.options))),
        }
        if self.title:
            out["title"] = self.title
        return out

    @classmethod
    def from_json(cls, obj: Json) -> LogHeader:
        if not isinstance(obj, dict) or obj.get("format") != FORMAT:
            raise EventError(f'the first line must be the log header {{"format": "{FORMAT}", ...}}')
        version = obj.get("version")
        if "version" not in obj:
            raise EventError(f"the header has no 'version' (this tablecall reads version {VERSION})")
        if type(version) is not int or version != VERSION:  # true and 1.0 were taken for 1, null said "None"
            raise EventError(f"this log has format version {as_json(version)}; this tablecall reads {VERSION}")
        game = obj.get("game")
        if not isinstance(game, str) or not game:
            raise EventError("the header has no 'game'")
        players = obj.get("players")
        if not isinstance(players, list) or not all(isinstance(p, str) and p.strip() for p in players):
            raise EventError("the header's 'players' must be a list of names")
        if problem := name_problem(players):
            raise EventError(problem)
        options = obj.get("options", {})
        if not isinstance(options, dict):
            raise EventError("the header's 'options' must be an object")
        title = obj.get("title", "")
        if not isinstance(title, str):
            raise EventError(f"the header's 'title' must be a text, not {as_json(title)}")
        if title != title.strip():
            raise EventError("the header's 'title' may not start or end with a space")
        if any(is_control(c) or c in BIDI_CONTROLS for c in title):
            raise EventError("the header's 'title' may not hold control characters or text-direction controls")
        # a longer title is cut as an export cuts it: a player renamed longer in an exported header made its title
        # too long, and Import refused the log even with a title of its own (the play-on audit, session 40)
        return cls(game, tuple(players), options, title=header_title(title))


@dataclass(frozen=True)
class GameLog:
    """A whole game: its header and its events in log order."""

    header: LogHeader
    events: tuple[GameEvent, ...] = ()
    lines: tuple[int, ...] = field(default=(), compare=False)  # each event's line in its file


def parse_log(lines: str | Iterable[str]) -> GameLog:
    """Parse JSON Lines (the whole text, or its lines; blank lines are skipped).

    Raises :class:`LogError` with the line number. Text is split at ``\n`` only: JSON
    strings may hold other line separators (U+2028, U+0085) that ``str.splitlines`` would cut.
    """
    if isinstance(lines, str):
        lines = lines.split("\n")
    header: LogHeader | None = None
    bom = "\ufeff"  # a byte-order mark before the first line (Windows Notepad saves one) is not part of the log
    events: list[GameEvent] = []
    numbers: list[int] = []
    for number, line in enumerate(lines, start=1):
        if number == 1:
            line = line.removeprefix(bom)
        if not line.strip():
            continue
        try:
            line.encode("utf-8")
            obj = read_json(line)
        except UnicodeError:
            raise LogError(number, _LOG_JSON["surrogate"]) from None
        except JsonProblem as exc:
            raise LogError(number, _LOG_JSON[exc.kind].format(exc.detail)) from None
        try:
            if header is None:
                header = LogHeader.from_json(obj)
                continue
            event = parse_event(obj)
        except EventError as exc:
            raise LogError(number, str(exc)) from None
        if events and event.seq <= events[-1].seq:
            last = events[-1].seq  # "seq 1 does not follow seq 1" named no problem (the wording audit, session 40)
            said = "is used twice" if event.seq == last else f"comes after seq {last}"
            raise LogError(number, f"seq {event.seq} {said}: each event needs a higher seq than the one before it")
        events.append(event)
        numbers.append(number)
    if header is None:
        raise LogError(1, "the log is empty: it needs a header line")
    return GameLog(header, tuple(events), tuple(numbers))


def format_log(log: GameLog) -> str:
    """The JSON Lines text of a log (ends with a newline)."""
    lines = [json.dumps(log.header.to_json(), ensure_ascii=False, separators=(", ", ": "))]
    lines += [event.to_line() for event in log.events]
    return "\n".join(lines) + "\n"
