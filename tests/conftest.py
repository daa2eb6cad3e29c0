"""Project-wide pytest settings: ``slow`` checks run only on request (``--runslow``)."""

from __future__ import annotations

import os
from collections.abc import Generator

import pytest

# The training tests load polars (through Ultralytics) into pytest's own process, and its allocator (jemalloc) then
# keeps background threads that block SIGSEGV: a fault in one of them ends the whole run with no faulthandler dump
# (a CI run ended so, "Segmentation fault" and nothing else; the suite audit, session 43). Without background
# threads jemalloc frees as it goes.
os.environ.setdefault("_RJEM_MALLOC_CONF", "background_thread:false")

# OpenVINO's telemetry is kept from loading by `vision` (vision/__init__.py); a test file that imports openvino
# before it (importorskip) and runs alone loaded it into pytest's process, a thread sending a usage event (review)
import vision  # noqa: F401


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


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """A test's captured output in its report as UTF-8 (what cannot be, as escapes): the test run's workers send their
    reports to the main process as UTF-8, and a folder name that is not (test_durability's ``not_utf8``), logged by
    the code under test, ended the whole run ("surrogates not allowed")."""
    report = yield
    report.sections = [(title, text.encode("utf-8", "backslashreplace").decode()) for title, text in report.sections]
    return report
