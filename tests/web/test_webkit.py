"""The phone pages in Safari's engine: every iPhone browser is WebKit, about half the phones at a game night. Debian's
WebKitGTK (the same WebCore and JavaScriptCore) through its WebDriver, on a virtual display (tests/web/browser_kit.py
``webkit``). These are the places where WebKit was found to differ from Chromium (the WebKit audit, session 44):
a list's option picked again after a script moved the list fires no 'change' there, and the pages saved what they
had kept from the last 'change' instead of what the list showed."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.web.browser_kit import HAVE_WEBKIT

pytestmark = pytest.mark.browser

if not HAVE_WEBKIT:  # ./dev test installs them
    pytest.skip(
        "Debian's webkit2gtk-driver and xvfb are not installed (./dev test installs them)", allow_module_level=True
    )

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.remote.webdriver import WebDriver  # noqa: E402
from selenium.webdriver.support.select import Select  # noqa: E402

from tests.web.browser_kit import css, live, serve, tab, tap, wait, webkit  # noqa: E402
from tests.web.server import call  # noqa: E402
from web.app import store  # noqa: E402


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    yield from serve(tmp_path_factory.mktemp("webkit") / "webkit.sqlite3")


@pytest.fixture(scope="module")
def iphone() -> Iterator[WebDriver]:
    with webkit() as driver:
        yield driver


def opened(server: dict[str, Any], driver: WebDriver, game: str, players: list[str], *entries: dict[str, Any]) -> str:
    """A new game with ``entries`` made, open on ``driver`` (the host's loopback address: WebKitGTK cannot be told
    that phone.test is this machine)."""
    status, body = call(server["laptop"], "POST", "/api/games", {"game": game, "players": players})
    assert status == 201, body
    game_id = str(body["id"])
    for entry in entries:
        assert call(server["laptop"], "POST", f"/api/games/{game_id}/events", entry)[0] == 201
    driver.get(f"{server['laptop']}/g/{game_id}")
    live(driver)
    return game_id


def pick(driver: WebDriver, selector: str, value: str) -> Select:
    """Choose ``value`` in a list as a person does (WebKit's driver takes no choice of a list out of view)."""
    element = css(driver, selector)
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
    chosen = Select(element)
    chosen.select_by_value(value)
    return chosen


def events(server: dict[str, Any], game_id: str) -> list[dict[str, Any]]:
    return [e.to_json() for e in store(server["app"]).events(game_id)]


def test_spades_a_bid_picked_again_after_blind_nil_was_ticked_and_unticked_is_scored_as_shown(
    server: dict[str, Any], iphone: WebDriver
) -> None:
    """Beth's bid 3, Blind Nil ticked by mistake (the list jumps to Nil) and unticked, 3 picked again: the form showed
    3 and the hand was scored as her failed Nil, -76 instead of 51."""
    players = ["Alex", "Beth", "Charlie", "David"]
    game_id = opened(server, iphone, "spades", players)
    tab(iphone, "enter")
    for name, bid, took in zip(players, [4, 3, 2, 2], [4, 3, 3, 3], strict=True):
        pick(iphone, f'#hand-form select[data-player="{name}"][data-field="bid"]', str(bid))
        pick(iphone, f'#hand-form select[data-player="{name}"][data-field="tricks"]', str(took))
    blind = '#hand-form input[data-player="Beth"][data-field="blind"]'
    tap(iphone, blind)
    bid = '#hand-form select[data-player="Beth"][data-field="bid"]'
    assert Select(css(iphone, bid)).first_selected_option.text == "Nil"
    tap(iphone, blind)
    assert pick(iphone, bid, "3").first_selected_option.text == "3"
    tap(iphone, "#score-hand")
    wait(iphone, lambda d: len(events(server, game_id)) == 1, 5)
    hand = events(server, game_id)[0]
    assert hand["bids"] == {"Alex": 4, "Beth": 3, "Charlie": 2, "David": 2} and not hand.get("blind")


def test_the_logs_insert_saves_the_player_its_list_shows(server: dict[str, Any], iphone: WebDriver) -> None:
    """Beth chosen in the Log's Insert list, the fields then typed (the list follows them to Alex), Beth chosen again:
    the list showed Beth and Save stored Alex's flip."""
    missed = {"type": "flip", "player": "Alex", "card": "9D"}  # the camera missed Beth's card between Alex's two
    game_id = opened(
        server,
        iphone,
        "snap",
        ["Alex", "Beth"],
        {"type": "deal", "dealer": "Beth"},
        {"type": "flip", "player": "Alex", "card": "7H"},
        missed,
    )
    tab(iphone, "log")
    insert = '#log li[data-seq="2"] button.insert'
    wait(iphone, lambda d: d.find_elements(By.CSS_SELECTOR, insert))
    tap(iphone, insert)
    wait(iphone, lambda d: d.find_elements(By.CSS_SELECTOR, "#pick-flip-player"))
    pick(iphone, "#edit-type", "flip")
    player = pick(iphone, "#pick-flip-player", "Beth")
    fields = css(iphone, "#edit-fields")
    iphone.execute_script(
        "arguments[0].value = arguments[1]; arguments[0].dispatchEvent(new Event('input'))",
        fields,
        '{"player": "Alex", "card": "5S"}',
    )
    assert player.first_selected_option.text == "Alex"  # the list follows the fields typed
    pick(iphone, "#pick-flip-player", "Beth")
    tap(iphone, "#edit-save")
    wait(iphone, lambda d: events(server, game_id)[-1]["type"] == "insert", 5)
    assert events(server, game_id)[-1]["event"] == {"type": "flip", "player": "Beth", "card": "5S"}
