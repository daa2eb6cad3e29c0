"""Project-wide pytest settings: ``slow`` checks run only on request (``--runslow``)."""

from __future__ import annotations

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--runslow",
        action="store_true",
        default=False,
        help="also run the slow checks: the trained detector on simulated video, long benchmarks",
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("--runslow"):
        return
    skip = pytest.mark.skip(reason="slow check: run with --runslow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)
