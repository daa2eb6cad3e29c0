"""What the real-browser tests share: a waitress server on loopback, headless Debian Chromium at a
phone's size (Selenium), screenshots into ``artifacts/screens/``, and small helpers to tap and wait.

Import this only after checking :data:`HAVE_CHROMIUM` (the test modules skip themselves without it).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from selenium import webdriver
from selenium.common.exceptions import NoAlertPresentException, StaleElementReferenceException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.select import Select
from selenium.webdriver.support.wait import WebDriverWait

CHROMIUM, CHROMEDRIVER = Path("/usr/bin/chromium"), Path("/usr/bin/chromedriver")
ROOT = Path(__file__).resolve().parents[2]
SCREENS = ROOT / "artifacts" / "screens"
PHONE = {"width": 360, "height": 780}


def serve(database: Path) -> Iterator[dict[str, Any]]:
    """A dashboard under waitress on a free loopback port; phones reach it as ``phone.test``."""
    import waitress

    from web.app import create_app, hub, store

    threads = 16  # as `tablecall serve` does, live streams leave a few threads for ordinary requests
    app = create_app({"DATABASE": str(database), "HEARTBEAT_S": 2.0, "MAX_STREAMS": threads - 4})
    wsgi = waitress.create_server(app, host="127.0.0.1", port=0, threads=threads, channel_request_lookahead=1)
    port = wsgi.effective_port  # type: ignore[union-attr]
    app.config["PUBLIC_URLS"] = [f"http://phone.test:{port}"]  # what the QR code points phones at
    thread = threading.Thread(target=wsgi.run, daemon=True)
    thread.start()
    yield {"app": app, "laptop": f"http://127.0.0.1:{port}", "phone": f"http://phone.test:{port}"}
    hub(app).close_streams()
    time.sleep(0.2)
    wsgi.close()
    wsgi.task_dispatcher.shutdown()  # (its 16 threads: only a KeyboardInterrupt inside run() ends them)
    thread.join(5)
    store(app).close()


def chromium(width: int = PHONE["width"], height: int = PHONE["height"]) -> WebDriver:
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for argument in (
        "--headless=new",
        "--no-sandbox",
        "--disable-dev-shm-usage",
        "--disable-gpu",
        "--host-resolver-rules=MAP phone.test 127.0.0.1",
        "--autoplay-policy=no-user-gesture-required",
    ):
        options.add_argument(argument)
    options.add_experimental_option(
        "mobileEmulation", {"deviceMetrics": {"width": width, "height": height, "pixelRatio": 1}}
    )
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
    driver.set_page_load_timeout(20)
    return driver


def shot(driver: WebDriver, name: str) -> None:
    """A full-page screenshot (the window is stretched to the page's height for it)."""
    SCREENS.mkdir(parents=True, exist_ok=True)
    driver.execute_script("window.scrollTo(0, 0)")
    wide = driver.execute_script("return document.documentElement.scrollWidth")
    assert wide <= PHONE["width"], f"{name}: the page is {wide} px wide on a {PHONE['width']}-px phone"
    height = driver.execute_script("return Math.max(document.body.scrollHeight, innerHeight)")
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": PHONE["width"], "height": min(int(height), 3000), "deviceScaleFactor": 1, "mobile": True},
    )
    time.sleep(0.15)
    assert driver.save_screenshot(str(SCREENS / f"{name}.png"))
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": PHONE["width"], "height": PHONE["height"], "deviceScaleFactor": 1, "mobile": True},
    )


def wait(driver: WebDriver, until: Callable[[WebDriver], Any], seconds: float = 5, poll: float = 0.05) -> Any:
    waiter = WebDriverWait(driver, seconds, poll_frequency=poll, ignored_exceptions=[StaleElementReferenceException])
    return waiter.until(until)


def css(driver: WebDriver, selector: str) -> Any:
    return driver.find_element(By.CSS_SELECTOR, selector)


def totals(driver: WebDriver) -> dict[str, str]:
    result: dict[str, str] = driver.execute_script(  # one read: the table is redrawn as events arrive
        "return Object.fromEntries([...document.querySelectorAll('#totals tbody tr')]"
        ".map(r => [r.dataset.name, r.querySelector('td').textContent]))"
    )
    return result


def tap(driver: WebDriver, selector: str) -> None:
    """Scroll the element to the middle of the screen (clear of the sticky bar), then tap it: at a person's
    pace, not within the moment after an entry in which the table screen takes a tap for a double tap, nor while
    its row is held for having just changed under the finger (data-held-until)."""
    wait(driver, lambda d: not d.execute_script("return document.documentElement.dataset.sending"), 10)
    left = driver.execute_script(
        "const d = document.documentElement.dataset, target = document.querySelector(arguments[0]);"
        "const row = target && target.closest('[data-held-until]');"
        "return Math.max(d.settled ? Number(d.settleMs) - (Date.now() - Number(d.settled)) : 0,"
        " row ? Number(row.dataset.heldUntil) - Date.now() : 0);",
        selector,
    )
    if left > 0:
        time.sleep(left / 1000 + 0.02)
    element = css(driver, selector)
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
    element.click()


def tab(driver: WebDriver, name: str) -> None:
    tap(driver, f'#tabs a[data-tab="{name}"]')
    wait(driver, lambda d: css(d, f"#tab-{name}").is_displayed())


def live(driver: WebDriver) -> None:
    wait(driver, lambda d: css(d, "#live").get_attribute("data-state") == "open", 10)


def no_alert_dialog(driver: WebDriver) -> None:
    try:
        driver.switch_to.alert.dismiss()
    except NoAlertPresentException:
        return
    raise AssertionError("a player's name ran as code")


def choose(driver: WebDriver, selector: str, value: str) -> None:
    """Pick an option as a tap would (Selenium's own select clicks can leave Chromium's popup open)."""
    select = css(driver, selector)
    assert value in [o.get_attribute("value") for o in Select(select).options], (selector, value)
    driver.execute_script(
        "arguments[0].value = arguments[1]; arguments[0].dispatchEvent(new Event('change', {bubbles: true}))",
        select,
        value,
    )


def type_into(driver: WebDriver, selector: str, text: str) -> None:
    element = css(driver, selector)
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
    element.clear()
    element.send_keys(text)


def script_errors(driver: WebDriver) -> list[str]:
    """The page's script errors since the last call (a refused request, a 4xx the page shows to the
    person, is logged by the browser as a network error: not a script error)."""
    return [
        entry["message"]
        for entry in driver.get_log("browser")
        if entry["level"] == "SEVERE" and entry.get("source") != "network"
    ]
