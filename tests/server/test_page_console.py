"""The web page and /docs load in headless Chromium under their Content-Security-Policy
without a console error: their own scripts and styles run, the favicon is found, and
nothing asks for a frame, an inline script or another host."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from playwright.sync_api import sync_playwright

from browser.conftest import CHROMIUM, chromium_sandbox
from server.harness import ServerProcess

pytestmark = pytest.mark.chromium
Launch = Callable[..., ServerProcess]


def test_the_page_and_docs_load_without_a_console_error(launch: Launch) -> None:
    server = launch(SLEUTH_API_TOKENS="")
    problems: list[str] = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, chromium_sandbox=chromium_sandbox()
        )
        try:
            page = browser.new_page()
            page.on(
                "console",
                lambda m: (
                    problems.append(f"console {m.type}: {m.text}")
                    if m.type in ("error", "warning")
                    else None
                ),
            )
            page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
            page.on(  # a load cut short by the next navigation is not a failure
                "requestfailed",
                lambda r: (
                    problems.append(f"failed: {r.url} {r.failure}")
                    if "ERR_ABORTED" not in (r.failure or "")
                    else None
                ),
            )
            page.on(
                "response",
                lambda r: problems.append(f"{r.status}: {r.url}") if r.status >= 400 else None,
            )
            page.goto(server.url + "/")
            page.wait_for_selector("body[data-ready=true]")  # app.js ran under the policy
            icon = page.evaluate("document.querySelector('link[rel=icon]').href")
            assert icon == server.url + "/static/favicon.svg"
            assert page.evaluate(f"fetch('{icon}').then(r => r.status)") == 200

            page.goto(server.url + "/docs")
            page.wait_for_selector("#ops h2")  # docs.js ran and listed the operations
            assert page.locator("#ops h2").count() >= 8
            assert page.evaluate("getComputedStyle(document.body).maxWidth") == "960px"
        finally:
            browser.close()
    assert problems == []
