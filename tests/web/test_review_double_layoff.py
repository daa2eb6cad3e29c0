"""F3 (review, session 47): a lay-off typed on the pad on Beth's phone, entered meanwhile on another screen, is kept in
Beth's form (push.js typedFor) and her tap enters it a second time."""

from __future__ import annotations

from typing import Any

from selenium.webdriver.remote.webdriver import WebDriver

from tests.web.browser_kit import choose, css, tab, tap, wait
from tests.web.test_games_browser import SEATS, browsers, call, clean, events, join, new_game, server, text  # noqa: F401
from web.app import hub


def test_a_lay_off_entered_on_another_screen_is_not_entered_again_from_the_kept_form(
    server: dict[str, Any],  # noqa: F811
    browsers: dict[str, WebDriver],  # noqa: F811
) -> None:
    phone = browsers["phone"]
    gid = new_game(server, "push", SEATS)
    for body in (
        {"type": "deal", "dealer": "David", "upcard": "3C"},
        {"type": "push", "player": "Alex"},
        {"type": "draw", "player": "Alex", "from": "stock"},
        {"type": "discard", "player": "Alex", "card": "KS"},
        {"type": "draw", "player": "Beth", "from": "discard"},
        {
            "type": "meld",
            "player": "Beth",
            "melds": [{"kind": "set", "cards": c} for c in (["8S", "8H", "8D"], ["KS", "KH", "JK"])],
        },
    ):
        assert call(server["laptop"], "POST", f"/api/games/{gid}/events", body)[0] == 201
    join(server, phone, gid)
    tab(phone, "enter")
    wait(phone, lambda d: "Beth (turn)" in text(d, "#push-actor"))
    tap(phone, "#layoff-box summary")
    choose(phone, "#layoff-meld", "2")
    tap(phone, "#layoff-form .pad-box summary")
    tap(phone, '#layoff-form button.pad[data-rank="K"]')
    tap(phone, '#layoff-form button.pad[data-suit="C"]')
    before = len(events(server, gid))
    origin = next(m["origin"] for m in hub(server["app"]).live(gid).session.view()["melds"] if m["number"] == 2)
    body = {"type": "layoff", "player": "Beth", "meld": 2, "origin": origin, "cards": ["KC"]}  # (as a phone sends it)
    assert call(server["laptop"], "POST", f"/api/games/{gid}/events", body)[0] == 201
    wait(phone, lambda d: "K♣" in text(d, "#push-melds") or "KC" in text(d, "#push-melds"), 3)
    print(
        "Beth's form after the other screen's lay-off:",
        css(phone, '#layoff-form input[aria-label="Cards"]').get_attribute("value"),
    )
    tap(phone, "#send-layoff")
    wait(phone, lambda d: not d.execute_script("return document.documentElement.dataset.sending"), 5)
    import time

    time.sleep(1.0)
    layoffs = [e for e in events(server, gid)[before:] if e["type"] == "layoff"]
    print("lay-offs logged:", [(e["seq"], e["player"], e["cards"]) for e in layoffs])
    clean(phone)
    assert len(layoffs) == 1
