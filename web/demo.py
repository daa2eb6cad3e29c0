"""The demo table: until the camera pipeline exists, ``tablecall serve --demo`` plays an example log
into a live game at a human pace (one event every ``pace`` seconds), then starts over with a new game,
so a newcomer sees a live table (scores, alerts, the history) within the first minute.
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import Any

from scorer.events import META_TYPES, EventError, GameEvent, GameLog, Source, parse_log
from scorer.registry import get_game
from web.hub import Hub, LiveGame
from web.store import StoreUnavailable

__all__ = ["DemoTable", "find_example"]

log = logging.getLogger(__name__)

ROOT = Path(__file__).resolve().parents[1]
RETRY_S = 2.0  # how long the demo table waits before it tries a database that could not be written again


def find_example(folders: list[Path] | None = None) -> Path | None:
    """``docs/examples/spades.jsonl`` if present, else the first example of an installed game."""
    folders = folders or [ROOT / "docs" / "examples", Path(__file__).resolve().parent / "demo"]
    candidates = [folder / "spades.jsonl" for folder in folders]
    for folder in folders:
        candidates += sorted(folder.glob("*.jsonl")) if folder.is_dir() else []
    for path in candidates:
        if path.is_file() and _installed(path.stem):
            return path
    return None


def _installed(game: str) -> bool:
    try:
        get_game(game)
    except Exception:  # not installed, or its referee does not load
        return False
    return True


def _body(event: GameEvent, seqs: dict[int, int]) -> dict[str, Any]:
    """The event as a new game's input: meta events point at the demo game's own sequence numbers."""
    body: dict[str, Any] = {"type": event.type, **event.to_json()}
    for key in ("seq", "ts", "source"):
        body.pop(key)
    if event.type in META_TYPES:
        key = "after" if event.type == "insert" else "target"
        body[key] = seqs.get(int(body[key]), 0)
    return body


class DemoTable(threading.Thread):
    """Plays ``example`` into the hub, event by event, forever (until :meth:`stop`)."""

    def __init__(self, hub: Hub, example: Path, pace: float = 1.5, pause: float = 6.0) -> None:
        super().__init__(name="tablecall-demo", daemon=True)
        self.hub = hub
        self.log: GameLog = parse_log(example.read_text(encoding="utf-8").split("\n"))
        self.pace = pace
        self.pause = pause
        self.stopped = threading.Event()
        self.game_ids: list[str] = []
        self.ready = threading.Event()

    def stop(self) -> None:
        self.stopped.set()

    def _resume_point(self) -> tuple[LiveGame, int] | None:
        """The latest demo game whose log is an unfinished prefix of the example, and how far it got."""
        for record in self.hub.store.games():
            if record.origin != "demo" or record.game != self.log.header.game:
                continue
            live = self.hub.live(record.id)
            if live is None or record.players != self.log.header.players:
                return None
            done = live.session.events
            if len(done) >= len(self.log.events):
                return None
            wanted = self.log.events[: len(done)]
            same = all(
                w.type == e.type and (w.type in META_TYPES or dict(w.data) == dict(e.data))
                for w, e in zip(wanted, done, strict=True)
            )
            return (live, len(done)) if same else None
        return None

    def _new_game(self) -> LiveGame:
        header = self.log.header
        return self.hub.create(
            header.game,
            header.players,
            dict(header.options),
            origin="demo",
            title=f"Demo table: {', '.join(header.players)}",
        )

    def game(self) -> tuple[LiveGame, int]:
        return self._resume_point() or (self._new_game(), 0)

    def run(self) -> None:
        """Play until :meth:`stop`; a database that cannot be written for a while (another program holding it) is
        waited out, and the game goes on where it was (the thread died, the demo table frozen: error-handling audit,
        session 41)."""
        while not self.stopped.is_set():
            try:
                self._play()
                return
            except StoreUnavailable as exc:
                log.warning("demo table: %s; trying again in %s s", exc, RETRY_S)
                self.stopped.wait(RETRY_S)

    def _play(self) -> None:
        live, start = self.game()
        while not self.stopped.is_set():
            if live.record.id not in self.game_ids:  # (a game resumed after the database was busy: once)
                self.game_ids.append(live.record.id)
            self.ready.set()
            seqs = {e.seq: n for n, e in enumerate(self.log.events[:start], start=1)}
            for event in self.log.events[start:]:
                if self.stopped.wait(self.pace):
                    return
                try:
                    result = self.hub.append(
                        live.record.id, _body(event, seqs), author="demo", source=Source(event.source)
                    )
                except EventError as exc:  # someone entered events into the demo game: start afresh
                    log.warning("demo table: %s; starting a new demo game", exc)
                    break
                seqs[event.seq] = result.event.seq
            if self.stopped.wait(self.pause):
                return
            live, start = self._new_game(), 0
