"""What the real-browser tests share: a waitress server on loopback, headless Debian Chromium at a
phone's size (Selenium), screenshots into ``artifacts/screens/``, and small helpers to tap and wait; and Safari's
engine, WebKitGTK, on a virtual X display (:func:`webkit`).

Import this only after checking :data:`HAVE_CHROMIUM` (the test modules skip themselves without it).
"""

from __future__ import annotations

import contextlib
import glob
import http.client
import os
import subprocess
import tempfile
import threading
import time
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from selenium import webdriver
from selenium.common.exceptions import NoAlertPresentException, StaleElementReferenceException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.wait import WebDriverWait
from selenium.webdriver.webkitgtk.service import Service as WebKitService

CHROMIUM, CHROMEDRIVER = Path("/usr/bin/chromium"), Path("/usr/bin/chromedriver")
ROOT = Path(__file__).resolve().parents[2]
SCREENS = ROOT / "artifacts" / "screens"
PHONE = {"width": 360, "height": 780}
# Safari's engine (every iPhone browser is WebKit): Debian's WebKitGTK and its WebDriver, shown on Xvfb (its
# MiniBrowser has no headless mode); ./dev test installs webkit2gtk-driver and xvfb
WEBKIT_DRIVER, XVFB = Path("/usr/bin/WebKitWebDriver"), Path("/usr/bin/Xvfb")
MINIBROWSER = next(iter(sorted(glob.glob("/usr/lib/*/webkit2gtk-4.*/MiniBrowser"))), "")
HAVE_WEBKIT = WEBKIT_DRIVER.exists() and XVFB.exists() and bool(MINIBROWSER)
# MiniBrowser's toolbar holds its window at 447 px or more: shrunk, the page can be a phone's width
SMALL_TOOLBAR = "headerbar, headerbar *, toolbar, toolbar *, entry, button { min-width: 0; min-height: 0; padding: 0;"
SMALL_TOOLBAR += " margin: 0; font-size: 1px; border-width: 0; -gtk-icon-transform: scale(0.1); }"


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
    # its sockets are closed on the loop's own thread, which then ends (its map empty): closed from this one, between
    # the loop's listing of them and its select(), the loop thread failed with EBADF and the test with it (a browser
    # still polling as a test ended: flakes, session 53)
    from waitress import wasyncore

    wsgi.trigger.pull_trigger(lambda: wasyncore.close_all(wsgi._map))  # type: ignore[union-attr]
    thread.join(5)
    wsgi.task_dispatcher.shutdown()  # (its 16 threads: only a KeyboardInterrupt inside run() ends them)
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


@contextlib.contextmanager
def webkit(width: int = 390, height: int = 844) -> Iterator[WebDriver]:
    """WebKitGTK's MiniBrowser driven by WebKitWebDriver on a display of its own, its page ``width`` x ``height`` CSS
    px (an iPhone's by default). WebKit differs from Chromium where a person's choice of a list's option is concerned:
    picked again after a script moved the list, it fires no 'change' (the WebKit audit, session 44)."""
    with tempfile.TemporaryDirectory(prefix="tablecall-webkit-") as home:
        (Path(home) / "gtk-3.0").mkdir()
        (Path(home) / "gtk-3.0" / "gtk.css").write_text(SMALL_TOOLBAR)
        read, write = os.pipe()
        xvfb = subprocess.Popen(
            [str(XVFB), "-displayfd", str(write), "-nolisten", "tcp", "-screen", "0", "1280x1024x24"],
            pass_fds=(write,),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        os.close(write)
        with os.fdopen(read) as shown:
            display = shown.readline().strip()  # the display it took, once it is ready
        if not display.isdecimal():
            xvfb.kill()
            xvfb.wait(5)
            raise RuntimeError(f"Xvfb did not start (it said {display!r})")
        env = {**os.environ, "DISPLAY": f":{display}", "XDG_CONFIG_HOME": home, "NO_AT_BRIDGE": "1"}
        driver = None
        try:
            options = webdriver.WebKitGTKOptions()
            options.binary_location = MINIBROWSER
            options.add_argument("--automation")
            service = WebKitService(str(WEBKIT_DRIVER), log_output=subprocess.DEVNULL, env=env)
            with warnings.catch_warnings():  # (Selenium 4.51's own WebKitGTK driver sets an address it deprecates)
                warnings.filterwarnings("ignore", "setting remote_server_addr", DeprecationWarning)
                driver = webdriver.WebKitGTK(options=options, service=service)
            driver.set_window_size(width, height)
            inner = driver.execute_script("return [innerWidth, innerHeight]")
            outer = driver.get_window_size()
            driver.set_window_size(outer["width"] + width - inner[0], outer["height"] + height - inner[1])
            driver.set_page_load_timeout(20)
            yield driver
        finally:
            if driver is not None:
                with contextlib.suppress(Exception):
                    driver.quit()  # (the browser, then the WebDriver process)
            xvfb.terminate()
            try:
                xvfb.wait(5)
            except subprocess.TimeoutExpired:
                xvfb.kill()
                xvfb.wait(5)


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
        "return Math.max(d.tapsHeldUntil ? Number(d.tapsHeldUntil) - Date.now() : 0,"
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
    """Pick an option as a tap would (Selenium's own select clicks can leave Chromium's popup open). Found, checked and
    picked in one script: a select redrawn by another screen's entry between Selenium's reads of its options was
    stale (StaleElementReferenceException, a flake of a test that passed alone, session 47)."""
    css(driver, selector)  # (missing: NoSuchElementException, as before)
    picked = driver.execute_script(
        "const select = document.querySelector(arguments[0]);"
        "const values = select ? Array.from(select.options).map(o => o.value) : null;"
        "if (!values || values.indexOf(arguments[1]) < 0) return values;"
        "select.value = arguments[1]; select.dispatchEvent(new Event('change', {bubbles: true})); return true",
        selector,
        value,
    )
    assert picked is True, (selector, value, picked)


def type_into(driver: WebDriver, selector: str, text: str) -> None:
    """Type into a field as a person would: what is in it is selected and typed over with the field kept focused.
    Selenium's clear() blurs the field after it, and a redraw the page held while it was focused (table.js keeps a
    focused entry) then replaced it before the typing: a stale element, now and then, in a Spit test (session 47)."""
    element = css(driver, selector)
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
    if element.get_attribute("value"):
        element.send_keys(Keys.CONTROL, "a")
        element.send_keys(Keys.DELETE)
    element.send_keys(text)


def script_errors(driver: WebDriver) -> list[str]:
    """The page's script errors since the last call (a refused request, a 4xx the page shows to the
    person, is logged by the browser as a network error: not a script error)."""
    return [
        entry["message"]
        for entry in driver.get_log("browser")
        if entry["level"] == "SEVERE" and entry.get("source") != "network"
    ]


class OpenStream:
    """A live stream kept open until :meth:`close`: its connection, and its response, which holds the socket once the
    server says it closes the connection at the stream's end (``Connection: close``; http.client then hands the
    socket over to the response)."""

    def __init__(self, connection: http.client.HTTPConnection, response: http.client.HTTPResponse) -> None:
        self.connection, self.response = connection, response

    def close(self) -> None:
        self.response.close()
        self.connection.close()


def stream_saying(base: str, game_id: str, me: str) -> OpenStream:
    """A second phone's live stream (from the laptop's address: the host's) that says it is ``me``; kept open (its
    body left unread) until closed. The response is kept: dropped, it closed the socket at once, the server found the
    phone gone (within GONE_CHECK_S, or at once) and the twins line went as it came, a flake under load: the line hid
    1 ms after it came on and nothing had moved under the tap 200 ms later (flakes, session 48)."""
    host, port = base.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=30)
    connection.request("GET", f"/api/games/{game_id}/stream?phone=the-other-phone-{me}&me={me}")
    return OpenStream(connection, connection.getresponse())
