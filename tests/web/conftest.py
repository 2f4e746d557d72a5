"""Browser fixtures: Debian's headless Chromium driven by selenium, the static scoreboard
files served over HTTP (with a ``/config.json`` like the controller's), and screenshots
saved under ``artifacts/screenshots/``.

The tests are skipped, with the reason, only when Chromium or its driver is not installed
(CI: ``apt-get install -y chromium chromium-driver``; ``pip install -e '.[test]'`` brings
selenium).
"""
from __future__ import annotations

import functools
import json
import os
import shutil
import threading
import time
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Iterator

import pytest

ROOT = Path(__file__).resolve().parents[2]
STATIC = ROOT / "controller" / "web" / "static"
SHOTS = ROOT / "artifacts" / "screenshots"
# Debian's packages; CARDTABLE_CHROMIUM / CARDTABLE_CHROMEDRIVER point elsewhere.
CHROMIUM = os.environ.get("CARDTABLE_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = os.environ.get("CARDTABLE_CHROMEDRIVER") or shutil.which("chromedriver") or "/usr/bin/chromedriver"

_missing = [p for p in (CHROMIUM, CHROMEDRIVER) if not Path(p).exists()]


def pytest_collection_modifyitems(config, items):
    if _missing:
        reason = (f"headless browser tests need {' and '.join(_missing)} "
                  "(apt-get install -y chromium chromium-driver)")
        for item in items:
            if "tests/web/" in str(item.fspath).replace("\\", "/"):
                item.add_marker(pytest.mark.skip(reason=reason))


class _Handler(SimpleHTTPRequestHandler):
    config: dict[str, Any] = {}

    def do_GET(self) -> None:  # noqa: N802
        if self.path.split("?")[0] == "/config.json":
            body = json.dumps(self.config).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        super().do_GET()

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture(scope="session")
def web_server() -> Iterator[Any]:
    """The static files on http://127.0.0.1:PORT/; ``.config`` is what /config.json returns."""
    handler = functools.partial(_Handler, directory=str(STATIC))
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    httpd.config = _Handler.config  # type: ignore[attr-defined]
    httpd.url = f"http://127.0.0.1:{httpd.server_address[1]}/"  # type: ignore[attr-defined]
    t = threading.Thread(target=httpd.serve_forever, daemon=True)
    t.start()
    yield httpd
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture(scope="session")
def _driver(tmp_path_factory) -> Iterator[Any]:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for arg in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--disable-dev-shm-usage", "--window-size=1280,720", "--hide-scrollbars",
                f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}"):
        opts.add_argument(arg)
    # An explicit driver path: selenium-manager never runs, nothing is downloaded.
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=opts)
    driver.set_page_load_timeout(20)
    yield driver
    driver.quit()


class Page:
    """The browser, with the waits the tests need."""

    def __init__(self, driver: Any, server: Any) -> None:
        self.d, self.server = driver, server

    def open(self, path: str) -> None:
        self.d.get(self.server.url + path)

    def js(self, script: str, *args: Any) -> Any:
        return self.d.execute_script(script, *args)

    def wait(self, script: str, timeout: float = 10.0, what: str = "") -> Any:
        """Poll a JS expression (``return …``) until it is truthy; its value."""
        deadline = time.monotonic() + timeout
        last = None
        while time.monotonic() < deadline:
            try:
                last = self.js(script)
            except Exception as exc:  # page navigating
                last = exc
            if last and not isinstance(last, Exception):
                return last
            time.sleep(0.05)
        raise AssertionError(f"timed out waiting for {what or script!r}; last value {last!r}; "
                             f"page: {self.text()[:400]!r}")

    def text(self, css: str = "body") -> str:
        try:
            return self.js("const e = document.querySelector(arguments[0]); return e ? e.innerText : null;", css) or ""
        except Exception:
            return ""

    def scores(self) -> list[str]:
        return self.js("return Array.from(document.querySelectorAll('[id^=score-]')).map(e => e.textContent.trim());")

    def wait_scores(self, scores: list[int], timeout: float = 10.0) -> None:
        want = [str(s) for s in scores]
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            got = self.scores()
            if got == want:
                return
            time.sleep(0.03)
        raise AssertionError(f"page scores {self.scores()} never became {want}; page: {self.text()[:300]!r}")

    def viewport(self, width: int, height: int) -> None:
        """An exact CSS viewport (window sizes include browser chrome)."""
        self.d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                               {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})

    def shot(self, name: str, size: tuple[int, int] | None = None) -> Path:
        SHOTS.mkdir(parents=True, exist_ok=True)
        if size:
            self.viewport(*size)
            time.sleep(0.3)
        path = SHOTS / f"{name}.png"
        self.d.save_screenshot(str(path))
        return path


@pytest.fixture
def page(_driver, web_server) -> Iterator[Page]:
    web_server.config.clear()
    p = Page(_driver, web_server)
    p.viewport(1280, 720)
    yield p
    _driver.get("about:blank")      # close the page's broker connection between tests
