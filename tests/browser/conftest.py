"""Fixtures for the browser tests: `sleuth serve` on loopback, a loopback model and web, and
headless Chromium with the extension loaded unpacked.

Every part is real: the server is the `sleuth serve` command in a subprocess, the model is a
loopback HTTP server speaking OpenAI's Chat Completions wire format (as documented at
platform.openai.com/docs/api-reference/chat), the search engine a loopback server speaking
SearXNG's JSON format (docs.searxng.org, "Search API"), the pages plain HTML on loopback,
and the browser Debian's Chromium driven by Playwright. The extension is loaded with
``--load-extension`` into a persistent profile in Chromium's new headless mode.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import BrowserContext, Locator, Page, sync_playwright

from loopback import Web, serve
from search.wire import Reply, Wire, json_reply, start
from server.harness import ServerProcess

pytestmark = pytest.mark.chromium

ROOT = Path(__file__).resolve().parents[2]
EXTENSION = ROOT / "extension"
STATIC = ROOT / "src" / "sleuth" / "server" / "static"
SCREENSHOTS = ROOT / "docs" / "screenshots"
CHROMIUM = "/usr/bin/chromium"
TOKEN = "browser-test-token"  # for a loopback server only
MODEL = "suggest-test-model"
START_TIMEOUT = 60.0  # a guard against hanging forever, not a speed assertion

ARTICLE_TITLE = "Nimbus 3.0 release notes"
ARTICLE_DESCRIPTION = (
    "What changed in Nimbus 3.0: per-phase timeouts, smaller connection pools "
    "and a new retry policy."
)
SUGGESTION: dict[str, Any] = {
    "slug": "nimbus-3-notes",
    "title": "Nimbus 3.0: what changed",
    "description": "Per-phase timeouts, smaller pools and a new retry policy in Nimbus 3.0.",
    "tags": ["nimbus", "http", "release-notes"],
}


def extension_id(manifest: Path = EXTENSION / "manifest.json") -> str:
    """The id Chromium derives from the manifest's public key: sha256, first 32 hex as a-p."""
    key = base64.b64decode(json.loads(manifest.read_text())["key"])
    digest = hashlib.sha256(key).hexdigest()[:32]
    return "".join(chr(ord("a") + int(char, 16)) for char in digest)


EXTENSION_ORIGIN = f"chrome-extension://{extension_id()}"


def chat_completion(content: str) -> Reply:
    """A Chat Completions answer whose message is ``content``."""
    return json_reply(
        {
            "id": "chatcmpl-browser-1",
            "object": "chat.completion",
            "created": 1_760_000_000,
            "model": MODEL,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": content},
                    "finish_reason": "stop",
                }
            ],
            "usage": {"prompt_tokens": 180, "completion_tokens": 60, "total_tokens": 240},
        }
    )


@pytest.fixture
def model() -> Iterator[Wire]:
    """The loopback model: answers the suggestion prompt with SUGGESTION unless told otherwise."""
    wire = Wire()
    server, thread = start(wire)
    wire.on("/v1/chat/completions", chat_completion(json.dumps(SUGGESTION)))
    try:
        yield wire
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


@pytest.fixture
def web() -> Iterator[Web]:
    """The loopback web: a SearXNG endpoint at /search and the article pages."""
    with serve() as site:
        web = Web(site)
        site.add("/search", handler=web._search)
        yield web


@dataclass
class Server:
    origin: str
    process: ServerProcess
    env: dict[str, str] = field(default_factory=dict)


@pytest.fixture
def sleuth_server(tmp_path: Path, web: Web) -> Iterator[Callable[..., Server]]:
    """Start `sleuth serve` on loopback with the given environment on top of the test's own
    (the server task's harness: port 0, ready once it writes its "serving on" line)."""
    started: list[ServerProcess] = []

    def launch(*, model: Wire | None = None, **env: str) -> Server:
        values = {
            "HOME": str(tmp_path),  # no config file of the developer's
            "SLEUTH_CACHE": "memory",
            "SLEUTH_RENDER": "never",
            "SLEUTH_API_TOKENS": TOKEN,
            "SLEUTH_CORS_ORIGINS": EXTENSION_ORIGIN,
            "SEARXNG_URL": web.site.origin,
            "SLEUTH_SEARCH_PROVIDERS": "searxng",
            "SLEUTH_ALLOW_HOSTS": f"127.0.0.1:{web.site.port}",
        }
        if model is not None:
            values.update(
                {
                    "SLEUTH_LLM_PROVIDER": "openai",
                    "SLEUTH_LLM_BASE_URL": model.url("/v1"),
                    "SLEUTH_LLM_MODEL": MODEL,
                    "SLEUTH_LLM_API_KEY": "sk-loopback",
                    "SLEUTH_LLM_RETRIES": "0",
                }
            )
        values.update(env)
        process = ServerProcess(values)
        started.append(process)
        process.wait_ready(START_TIMEOUT)
        return Server(process.url, process, values)

    try:
        yield launch
    finally:
        for process in started:
            if process.process.poll() is None:
                process.stop()


@pytest.fixture
def article(web: Web) -> str:
    """The page the popup describes: a title, a meta description, Open Graph, an article."""
    head = (
        f'<meta name="description" content="{ARTICLE_DESCRIPTION}">'
        '<meta property="og:description" content="The Open Graph text, second choice.">'
    )
    return web.page(
        "/nimbus/3.0",
        ARTICLE_TITLE,
        [
            "Nimbus 3.0 applies a default timeout of five seconds to every request and counts "
            "connecting, reading and writing separately, so one slow phase cannot hide another.",
            "Connection pools now keep at most ten idle connections for each host and close any "
            "connection that has been idle for thirty seconds.",
            "The new retry policy retries idempotent requests twice with exponential backoff "
            "and never retries a request whose body was already sent.",
        ],
        head=head,
    )


def chromium_sandbox() -> bool:
    """Chromium's sandbox cannot run as root; everywhere else it stays on."""
    return not (hasattr(os, "geteuid") and os.geteuid() == 0)


# Whether this run retakes docs/screenshots (SLEUTH_SCREENSHOTS=1): opt-in, so an ordinary
# test run never rewrites tracked files. Read when the suite is collected, because every
# test then runs with the SLEUTH_* variables cleared (tests/conftest.py).
SCREENSHOTS_WANTED = os.environ.get("SLEUTH_SCREENSHOTS", "") == "1"


def screenshot(target: Page | Locator, name: str, **options: Any) -> Path | None:
    """Save ``target`` as docs/screenshots/``name`` when screenshots are wanted."""
    if not SCREENSHOTS_WANTED:
        return None
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / name
    target.screenshot(path=str(path), **options)
    return path


def server_env(**values: Any) -> dict[str, str]:
    return {key: str(value) for key, value in values.items()}


class Extension:
    """The unpacked extension in a running Chromium, and the ways a person reaches it."""

    def __init__(self, context: BrowserContext, ext_id: str) -> None:
        self.context = context
        self.id = ext_id
        self.origin = f"chrome-extension://{ext_id}"
        worker = context.service_workers
        self.worker = worker[0] if worker else context.wait_for_event("serviceworker")

    def configure(self, server: str, token: str = TOKEN) -> None:
        """Save the server and token through the options page, as a person would."""
        page = self.context.new_page()
        page.goto(f"{self.origin}/options.html")
        page.wait_for_selector("body[data-ready=true]")
        page.fill("#server", server)
        page.fill("#token", token)
        page.click("#save")
        page.wait_for_selector("#status:text-is('Saved.')")
        page.close()

    def click_action(self, tab: Page, url: str | None = None) -> int:
        """Click the toolbar button on ``tab`` (CDP Extensions.triggerAction): this grants
        activeTab for it as a real click does. Returns the tab's id in the extensions API.
        ``url`` is the tab's address when Playwright sees another (a browser error page)."""
        wanted = url or tab.url
        tab.bring_to_front()
        browser = self.context.browser
        assert browser is not None
        cdp = browser.new_browser_cdp_session()
        targets = cdp.send("Target.getTargets", {"filter": [{"type": "tab"}]})["targetInfos"]
        # By address; an error page may not report its address yet, but it is the active tab.
        matches = [t for t in targets if t["url"] == wanted] or [
            t for t in targets if t.get("embedderData", {}).get("tabActive")
        ]
        assert len(matches) == 1, targets
        target = matches[0]
        cdp.send("Extensions.triggerAction", {"id": self.id, "targetId": target["targetId"]})
        cdp.detach()
        # The clicked tab is the active one; its URL is visible only if activeTab was granted.
        found: dict[str, Any] = self.worker.evaluate(
            """async () => {
                const [tab] = await chrome.tabs.query({ active: true, lastFocusedWindow: true });
                return { id: tab.id, url: tab.url ?? null };
            }"""
        )
        assert found["url"] in (wanted, None), found
        tab_id: int = found["id"]
        return tab_id

    def toolbar_popup(self, tab: Page) -> Page:
        """Click the button on ``tab`` and return an extension page from which the popup
        Chromium opened is reachable as ``chrome.extension.getViews({type: "popup"})[0]``
        (an extension page may reach the popup's window; Playwright cannot attach to it)."""
        helper = self.context.new_page()
        helper.goto(f"{self.origin}/options.html")
        self.click_action(tab)
        helper.wait_for_function(
            "() => chrome.extension.getViews({ type: 'popup' })[0]"
            "?.document.body?.dataset.page === 'ready'"
        )
        return helper

    def open_popup(self, tab: Page, url: str | None = None) -> Page:
        """The popup page for ``tab``, opened in its own tab (?tab=<id>) so the test can drive
        it; Playwright cannot attach to the toolbar popup itself."""
        tab_id = self.click_action(tab, url)
        popup = self.context.new_page()
        popup.goto(f"{self.origin}/popup.html?tab={tab_id}")
        popup.wait_for_selector("body[data-page=ready]")
        return popup


@pytest.fixture
def extension(tmp_path: Path) -> Iterator[Extension]:
    """Chromium (new headless mode) with the extension loaded unpacked in a fresh profile."""
    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            str(tmp_path / "profile"),
            executable_path=CHROMIUM,
            headless=True,
            chromium_sandbox=chromium_sandbox(),
            viewport={"width": 1000, "height": 800},
            args=[
                f"--disable-extensions-except={EXTENSION}",
                f"--load-extension={EXTENSION}",
                # lets CDP's Extensions domain click the toolbar button
                "--enable-unsafe-extension-debugging",
            ],
        )
        try:
            yield Extension(context, extension_id())
        finally:
            context.close()


@pytest.fixture
def browser_page() -> Iterator[Page]:
    """A plain Chromium page for the web page tests; an uncaught error in it fails the test."""
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, chromium_sandbox=chromium_sandbox()
        )
        try:
            page = browser.new_page(viewport={"width": 1000, "height": 900})
            thrown: list[str] = []
            page.on("pageerror", lambda error: thrown.append(str(error)))
            yield page
            # No test may pass while the page's own scripts threw.
            assert thrown == [], thrown
        finally:
            browser.close()
