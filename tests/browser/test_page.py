"""The web page `sleuth serve` answers at /, driven in headless Chromium.

The research run streams server-sent events; one page of the loopback web is held back
(it waits on an event the test sets) so the progress is seen while the run is still going,
then the digest's citation links must point at the loopback pages.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

import pytest
from playwright.sync_api import Page, expect

from browser.conftest import SUGGESTION, TOKEN, Server, shot
from loopback import Web

pytestmark = pytest.mark.chromium

QUESTION = "What is the default timeout of the Nimbus client and how do I change it?"


def open_page(page: Page, server: Server, *, token: str | None = TOKEN) -> None:
    page.goto(server.origin + "/")
    page.wait_for_selector("body[data-ready=true]")
    if token is not None:
        page.fill("#token", token)
        page.press("#token", "Enter")  # the keyboard is enough
        expect(page.locator("#token-status")).to_contain_text("A token is saved")


@pytest.fixture
def nimbus(web: Web) -> tuple[list[str], threading.Event]:
    """Three pages about the question; the third is held back until the event is set."""
    held = threading.Event()
    urls = [
        web.page(
            "/docs/timeouts",
            "Nimbus timeouts",
            [
                "Nimbus applies a default timeout of five seconds to every request, and it "
                "counts connecting, reading and writing separately.",
                "To change the default timeout for a single call, pass a timeout argument to "
                "the request method; to change it for every call, set it on the client.",
            ],
        ),
        web.page(
            "/blog/crawler",
            "Moving our crawler to Nimbus",
            [
                "The default timeout of five seconds cut off our slowest partners, so we "
                "raised the read timeout to twenty seconds for the two that need it.",
            ],
        ),
        web.page(
            "/slow/changelog",
            "Nimbus changelog",
            [
                "The changelog lists timeout related fixes in every release, and the default "
                "timeout has been five seconds since the first version.",
            ],
            stall=held,
        ),
    ]
    return urls, held


def test_research_shows_progress_then_cited_bullets(
    browser_page: Page,
    sleuth_server: Callable[..., Server],
    web: Web,
    nimbus: tuple[list[str], threading.Event],
) -> None:
    urls, held = nimbus
    server = sleuth_server()
    page = browser_page
    open_page(page, server)

    page.fill("#research-question", QUESTION)
    page.press("#research-question", "Enter")

    # While a page is still loading, the stream has already shown where the run is.
    progress = page.locator("#research-progress li")
    expect(progress.first).to_have_text(f"searching for {QUESTION}")
    expect(page.locator("#research-progress")).to_contain_text("reading 3 pages")
    expect(page.locator("#research-status")).to_have_text("Researching…")
    assert page.locator("body").get_attribute("data-research") == "running"
    expect(page.locator("#research-digest .bullets li")).to_have_count(0)
    held.set()

    bullets = page.locator("#research-digest .bullets li")
    expect(bullets.first).to_be_visible(timeout=60_000)
    expect(page.locator("#research-progress")).to_contain_text("ranking passages")
    links = page.locator("#research-digest a.cite")
    hrefs = {links.nth(i).get_attribute("href") for i in range(links.count())}
    assert hrefs, "no citation links"
    assert hrefs <= set(urls), hrefs
    sources = page.locator("#research-digest .sources a")
    assert {sources.nth(i).get_attribute("href") for i in range(sources.count())} == hrefs
    expect(page.locator("#research-status")).to_contain_text("cited point")
    expect(page.locator("#research-digest .bullets")).to_contain_text("five seconds")
    page.screenshot(path=str(shot("web-research.png")), full_page=True)


def test_research_without_the_token_says_so(
    browser_page: Page, sleuth_server: Callable[..., Server], nimbus: object
) -> None:
    server = sleuth_server()
    page = browser_page
    open_page(page, server, token=None)

    page.fill("#research-question", QUESTION)
    page.click("#research-go")

    expect(page.locator("#research-status")).to_have_text(
        "Research failed: The server needs a token: enter one of its SLEUTH_API_TOKENS above."
    )
    expect(page.locator("#token")).to_be_focused()

    # Once entered the token is kept for this tab, across a reload, and not beyond it.
    page.fill("#token", TOKEN)
    page.click("#token-save")
    assert page.evaluate("sessionStorage.getItem('sleuth.token')") == TOKEN
    assert page.evaluate("localStorage.length") == 0
    page.reload()
    page.wait_for_selector("body[data-ready=true]")
    expect(page.locator("#token-status")).to_contain_text("A token is saved")
    page.click("#token-forget")
    assert page.evaluate("sessionStorage.getItem('sleuth.token')") is None


def test_suggest_fills_the_form(
    browser_page: Page,
    sleuth_server: Callable[..., Server],
    model: object,
    article: str,
) -> None:
    server = sleuth_server(model=model)
    page = browser_page
    open_page(page, server)

    page.fill("#suggest-url", article)
    page.fill("#suggest-title", "Nimbus 3.0 release notes")
    page.click("#suggest-go")

    strip = page.locator("#suggest-strip .suggested")
    expect(strip).to_be_visible()
    for field in ("slug", "title", "description", "tags"):
        strip.locator(f"[data-field={field}] .suggested-use").click()
    expect(page.locator("#suggest-slug")).to_have_value(SUGGESTION["slug"])
    expect(page.locator("#suggest-title")).to_have_value(SUGGESTION["title"])
    expect(page.locator("#suggest-description")).to_have_value(SUGGESTION["description"])
    expect(page.locator("#suggest-tags")).to_have_value(", ".join(SUGGESTION["tags"]))
    page.get_by_role("button", name="Dismiss suggestions").click()
    expect(strip).to_have_count(0)


def test_suggest_on_a_server_without_a_model_says_it_is_off(
    browser_page: Page, sleuth_server: Callable[..., Server], article: str
) -> None:
    server = sleuth_server()
    page = browser_page
    open_page(page, server)

    page.fill("#suggest-url", article)
    page.click("#suggest-go")

    expect(page.locator("#suggest-status")).to_have_text(
        "Suggestions are off on this server (no LLM configured)."
    )
    expect(page.locator("#suggest-strip")).to_be_empty()


def test_fetch_shows_the_text_and_its_outcome(
    browser_page: Page, sleuth_server: Callable[..., Server], article: str
) -> None:
    server = sleuth_server()
    page = browser_page
    open_page(page, server)

    page.fill("#fetch-url", article)
    page.press("#fetch-url", "Enter")

    expect(page.locator("#fetch-result")).to_be_visible()
    expect(page.locator("#fetch-outcome")).to_have_text("ok")
    expect(page.locator("#fetch-title")).to_have_text("Nimbus 3.0 release notes")
    expect(page.locator("#fetch-text")).to_contain_text("default timeout of five seconds")
    expect(page.locator("#fetch-status")).to_contain_text("characters")

    # A loopback address the server was not told to allow: the guard's outcome is shown.
    page.fill("#fetch-url", "http://127.0.0.1:9/admin")
    page.click("#fetch-go")
    expect(page.locator("#fetch-outcome")).to_have_text("blocked")
    expect(page.locator("#fetch-status")).to_contain_text("Not read:")


def test_the_page_fits_a_phone_and_loads_nothing_from_elsewhere(
    browser_page: Page, sleuth_server: Callable[..., Server]
) -> None:
    server = sleuth_server()
    page = browser_page
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url))
    page.set_viewport_size({"width": 360, "height": 740})
    open_page(page, server, token=None)

    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"the page is {overflow}px wider than a phone"
    assert requested
    assert all(url.startswith(server.origin + "/") for url in requested), requested

    # Every control is reachable with Tab, in reading order.
    page.locator("body").focus()
    reached = []
    for _ in range(16):
        page.keyboard.press("Tab")
        reached.append(page.evaluate("document.activeElement.id || document.activeElement.tagName"))
    for control in ("token", "research-question", "fetch-url", "suggest-url", "suggest-go"):
        assert control in reached, (control, reached)
    assert reached.index("research-question") < reached.index("fetch-url")


def test_research_with_the_search_engine_down_says_why(
    browser_page: Page, sleuth_server: Callable[..., Server], web: Web
) -> None:
    web.search_status = 503
    server = sleuth_server()
    page = browser_page
    open_page(page, server)

    page.fill("#research-question", QUESTION)
    page.click("#research-go")

    expect(page.locator("#research-digest .empty")).to_contain_text("No cited answer:")
    expect(page.locator("#research-status")).to_have_text("Done: no cited answer.")
    expect(page.locator("#research-digest .bullets")).to_have_count(0)
    expect(page.locator("#research-go")).to_be_enabled()


def test_a_research_run_can_be_stopped(
    browser_page: Page,
    sleuth_server: Callable[..., Server],
    nimbus: tuple[list[str], threading.Event],
) -> None:
    _, held = nimbus
    server = sleuth_server()
    page = browser_page
    open_page(page, server)
    expect(page.locator("#research-stop")).to_be_hidden()

    page.fill("#research-question", QUESTION)
    page.press("#research-question", "Enter")
    try:
        expect(page.locator("#research-progress")).to_contain_text("reading 3 pages")
        page.click("#research-stop")

        expect(page.locator("#research-status")).to_have_text("Stopped.")
        expect(page.locator("#research-stop")).to_be_hidden()
        expect(page.locator("#research-go")).to_be_enabled()
        expect(page.locator("#research-question")).to_be_focused()
        expect(page.locator("#research-digest")).to_be_empty()
    finally:
        held.set()
