"""Every golden game and every documented example log replays to its expected final state.

``tests/golden/<game>/<name>.jsonl`` is a whole game; ``<name>.expected.json`` beside it holds
the parts of ``tablecall replay``'s output that must come out (any subset of its keys).
``docs/examples/<game>.jsonl`` must replay without error (and match an expected file if present).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scorer.events import parse_log
from scorer.session import replay

ROOT = Path(__file__).resolve().parents[2]
LOGS = sorted((ROOT / "tests" / "golden").glob("*/*.jsonl")) + sorted((ROOT / "docs" / "examples").glob("*.jsonl"))


def _expected(log: Path) -> Path:
    return log.with_name(log.name.removesuffix(".jsonl") + ".expected.json")


@pytest.mark.parametrize("log", LOGS, ids=[str(p.relative_to(ROOT)) for p in LOGS])
def test_golden_game_replays_to_expected_state(log: Path) -> None:
    session = replay(parse_log(log.read_text(encoding="utf-8")))
    summary = json.loads(json.dumps(session.summary()))
    expected_file = _expected(log)
    if expected_file.exists():
        expected = json.loads(expected_file.read_text(encoding="utf-8"))
        assert {key: summary[key] for key in expected} == expected
    else:
        assert log.parent.name == "examples", f"{log} has no {expected_file.name}"


def test_every_documented_game_has_an_example_log() -> None:
    from scorer.registry import available

    for game in available():
        assert (ROOT / "docs" / "examples" / f"{game}.jsonl").exists(), f"docs/examples/{game}.jsonl is missing"
