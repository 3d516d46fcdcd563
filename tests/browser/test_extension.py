"""The browser extension, loaded unpacked into headless Chromium, against `sleuth serve`.

The toolbar button is clicked through CDP (``Extensions.triggerAction``), which grants the
extension activeTab on the article exactly as a person's click does; the popup page is then
opened in a tab with ``?tab=<id>`` so Playwright can drive it (it cannot attach to the
toolbar popup). The server, model, search engine and pages are real loopback servers.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable

import pytest
from playwright.sync_api import Page, expect

from browser.conftest import (
    ARTICLE_DESCRIPTION,
    ARTICLE_TITLE,
    EXTENSION_ORIGIN,
    SUGGESTION,
    TOKEN,
    Extension,
    Server,
    screenshot,
)
from loopback import Web
from search.wire import Reply, Wire, refusing_port

pytestmark = pytest.mark.chromium


def suggest_requests(model: Wire) -> list[str]:
    """What the server sent the model, as text (the page's details are inside it)."""
    return [request.body.decode() for request in model.to("/v1/chat/completions")]


def test_the_extension_id_is_pinned_by_the_manifest_key(extension: Extension) -> None:
    # The server's SLEUTH_CORS_ORIGINS can name the extension before it is ever loaded.
    worker_url = extension.worker.url
    assert worker_url == f"{EXTENSION_ORIGIN}/background.js"


def test_popup_reads_the_page_and_shows_the_suggested_strip(
    extension: Extension,
    sleuth_server: Callable[..., Server],
    model: Wire,
    article: str,
) -> None:
    server = sleuth_server(model=model)
    extension.configure(server.origin)
    tab = extension.context.new_page()
    tab.goto(article)

    popup = extension.open_popup(tab)

    # The form is filled from the page itself (executeScript): title and meta description.
    expect(popup.locator("#url")).to_have_value(article)
    expect(popup.locator("#title")).to_have_value(ARTICLE_TITLE)
    expect(popup.locator("#description")).to_have_value(ARTICLE_DESCRIPTION)

    strip = popup.locator(".suggested")
    expect(strip).to_be_visible()
    expect(strip.locator(".suggested-title")).to_have_text("✦ Suggested")
    rows = strip.locator(".suggested-row")
    expect(rows).to_have_count(4)
    expect(strip.locator("[data-field=slug] .suggested-value")).to_have_text(SUGGESTION["slug"])
    expect(strip.locator("[data-field=title] .suggested-value")).to_have_text(SUGGESTION["title"])
    expect(strip.locator("[data-field=description] .suggested-value")).to_have_text(
        SUGGESTION["description"]
    )
    expect(strip.locator("[data-field=tags] .tag")).to_have_text(SUGGESTION["tags"])
    screenshot(popup.locator("body"), "popup-suggested.png")

    # The server asked the model about this page: its URL, title and meta description.
    sent = suggest_requests(model)
    assert sent, "the model was never asked"
    assert all(ARTICLE_DESCRIPTION in json.loads(body)["messages"][-1]["content"] for body in sent)
    assert any(article in body for body in sent)
    calls = model.to("/v1/chat/completions")
    assert all(call.header("Authorization") == "Bearer sk-loopback" for call in calls)

    # Each "Use" writes its value into its own field and nothing else.
    expect(popup.locator("#slug")).to_have_value("")
    strip.locator("[data-field=slug] .suggested-use").click()
    expect(popup.locator("#slug")).to_have_value(SUGGESTION["slug"])
    expect(popup.locator("#title")).to_have_value(ARTICLE_TITLE)
    strip.locator("[data-field=title] .suggested-use").click()
    expect(popup.locator("#title")).to_have_value(SUGGESTION["title"])
    strip.locator("[data-field=description] .suggested-use").click()
    expect(popup.locator("#description")).to_have_value(SUGGESTION["description"])
    strip.locator("[data-field=tags] .suggested-use").click()
    expect(popup.locator("#tags")).to_have_value(", ".join(SUGGESTION["tags"]))
    expect(strip.locator("[data-field=tags] .suggested-use")).to_have_text("Used")

    # × dismisses the strip; the values already used stay in the form.
    popup.get_by_role("button", name="Dismiss suggestions").click()
    expect(popup.locator(".suggested")).to_have_count(0)
    expect(popup.locator("#slug")).to_have_value(SUGGESTION["slug"])
    expect(popup.locator("#status")).to_have_text("")


def test_the_toolbar_popup_itself_shows_the_strip(
    extension: Extension,
    sleuth_server: Callable[..., Server],
    model: Wire,
    article: str,
) -> None:
    """The popup Chromium opens on a click, not a copy in a tab: driven through its window."""
    server = sleuth_server(model=model)
    extension.configure(server.origin)
    tab = extension.context.new_page()
    tab.goto(article)

    helper = extension.toolbar_popup(tab)

    popup = "chrome.extension.getViews({ type: 'popup' })[0].document"
    helper.wait_for_function(f"() => {popup}.body.dataset.suggest === 'shown'")
    seen = helper.evaluate(
        f"""() => {{
            const doc = {popup};
            const values = [...doc.querySelectorAll('.suggested-row')].map((row) => [
                row.dataset.field,
                row.querySelector('.suggested-value')?.textContent
                    ?? [...row.querySelectorAll('.tag')].map((tag) => tag.textContent).join(' '),
            ]);
            return {{ url: doc.getElementById('url').value,
                      description: doc.getElementById('description').value,
                      values }};
        }}"""
    )
    assert seen["url"] == article
    assert seen["description"] == ARTICLE_DESCRIPTION
    assert dict(seen["values"]) == {
        "slug": SUGGESTION["slug"],
        "title": SUGGESTION["title"],
        "description": SUGGESTION["description"],
        "tags": " ".join(SUGGESTION["tags"]),
    }
    filled = helper.evaluate(
        f"""() => {{
            const doc = {popup};
            doc.querySelector('[data-field=slug] .suggested-use').click();
            doc.querySelector('[data-field=tags] .suggested-use').click();
            const fields = [doc.getElementById('slug').value, doc.getElementById('tags').value];
            doc.querySelector('.suggested-dismiss').click();
            return [...fields, doc.querySelectorAll('.suggested').length];
        }}"""
    )
    assert filled == [SUGGESTION["slug"], ", ".join(SUGGESTION["tags"]), 0]


def test_an_unscriptable_page_falls_back_to_the_tabs_title(
    extension: Extension,
    sleuth_server: Callable[..., Server],
    model: Wire,
) -> None:
    # A browser error page: activeTab is granted for its http URL, but no script may run in
    # it, as on the web store; the popup uses what the tab itself says and still asks.
    server = sleuth_server(model=model)
    extension.configure(server.origin)
    refused = refusing_port()
    try:
        url = f"http://127.0.0.1:{refused.getsockname()[1]}/gone"
        tab = extension.context.new_page()
        with pytest.raises(Exception, match="ERR_CONNECTION_REFUSED"):
            tab.goto(url)
        # The click must come after the error page is in place: a navigation ends activeTab.
        tab.wait_for_url("chrome-error://chromewebdata/")
        tab.wait_for_load_state("load")
        popup = extension.open_popup(tab, url)

        expect(popup.locator("#url")).to_have_value(url)
        tab_title = popup.evaluate(
            "async (url) => (await chrome.tabs.query({ url })).map((tab) => tab.title)", url
        )
        assert len(tab_title) == 1, tab_title
        assert tab_title[0]  # Chromium titles an error page after its host
        expect(popup.locator("#title")).to_have_value(tab_title[0])
        expect(popup.locator("#description")).to_have_value("")
        popup.wait_for_selector("body[data-suggest=shown]")
        sent = suggest_requests(model)
        assert any(url in body for body in sent)
    finally:
        refused.close()


def test_a_browser_page_is_not_read_and_the_popup_says_so(
    extension: Extension,
    sleuth_server: Callable[..., Server],
    model: Wire,
) -> None:
    server = sleuth_server(model=model)
    extension.configure(server.origin)
    tab = extension.context.new_page()
    tab.goto("chrome://version")

    popup = extension.open_popup(tab)

    popup.wait_for_selector("body[data-suggest=hidden]")
    expect(popup.locator("#url")).to_have_value("")
    expect(popup.locator("#status")).to_contain_text("browser's own pages")
    expect(popup.locator(".suggested")).to_have_count(0)
    assert suggest_requests(model) == []  # nothing known about the page: nothing sent


def test_the_browsers_own_pages_are_told_by_their_scheme(
    extension: Extension,
    sleuth_server: Callable[..., Server],
    model: Wire,
) -> None:
    # Chromium may or may not show a chrome:// tab's address to the extension (it depends on
    # its version and on the click); the popup decides by the scheme, so both answers agree.
    server = sleuth_server(model=model)
    extension.configure(server.origin)
    tab = extension.context.new_page()
    tab.goto("chrome://version")
    popup = extension.open_popup(tab)
    verdicts = popup.evaluate(
        """async (urls) => {
            const { isBrowserPage } = await import("./popup.js");
            return urls.map((url) => isBrowserPage(url));
        }""",
        [
            "chrome://version/",
            "about:blank",
            "edge://settings",
            "view-source:https://example.org/",
            "chrome-extension://abc/popup.html",
            "https://example.org/",
            "http://127.0.0.1:8080/docs",
            "not a url",
        ],
    )
    assert verdicts == [True, True, True, True, True, False, False, False]


def test_partial_suggestions_show_only_their_rows(
    extension: Extension,
    sleuth_server: Callable[..., Server],
    model: Wire,
    article: str,
) -> None:
    from browser.conftest import chat_completion

    partial = {"slug": "nimbus-three", "title": "", "description": "", "tags": []}
    model.on("/v1/chat/completions", chat_completion(json.dumps(partial)))
    server = sleuth_server(model=model)
    extension.configure(server.origin)
    tab = extension.context.new_page()
    tab.goto(article)

    popup = extension.open_popup(tab)

    expect(popup.locator(".suggested")).to_be_visible()
    expect(popup.locator(".suggested-row")).to_have_count(1)
    expect(popup.locator(".suggested-row")).to_have_attribute("data-field", "slug")


@pytest.mark.parametrize(
    "failure", ["model-answers-502", "model-too-slow", "server-unconfigured-503", "unreachable"]
)
def test_a_failed_suggestion_shows_no_strip_and_no_error(
    extension: Extension,
    sleuth_server: Callable[..., Server],
    model: Wire,
    article: str,
    failure: str,
) -> None:
    refused = refusing_port()  # bound, never listening: connections to it are refused
    stalls: list[threading.Event] = []
    if failure == "model-answers-502":
        model.on(
            "/v1/chat/completions",
            Reply(502, '{"error": {"message": "upstream down"}}', "application/json"),
        )
        origin = sleuth_server(model=model).origin
    elif failure == "model-too-slow":
        never = threading.Event()  # the model answers only after the test (teardown sets it)
        model.on("/v1/chat/completions", Reply(200, "{}", "application/json", stall=never))
        stalls.append(never)
        origin = sleuth_server(model=model, SLEUTH_SUGGEST_TIMEOUT="1").origin
    elif failure == "server-unconfigured-503":
        origin = sleuth_server().origin  # no SLEUTH_LLM_*: the suggest route answers 503
    else:
        origin = f"http://127.0.0.1:{refused.getsockname()[1]}"
    extension.configure(origin)
    tab = extension.context.new_page()
    tab.goto(article)

    try:
        popup = extension.open_popup(tab)

        # The request has finished (the popup marks that), and left no trace at all.
        popup.wait_for_selector("body[data-suggest=hidden]")
        expect(popup.locator(".suggested")).to_have_count(0)
        expect(popup.locator("#strip")).to_be_empty()
        expect(popup.locator("#status")).to_have_text("")
        expect(popup.locator("#setup")).to_be_hidden()
        # The form still works from the page's own details.
        expect(popup.locator("#title")).to_have_value(ARTICLE_TITLE)
        expect(popup.locator("#description")).to_have_value(ARTICLE_DESCRIPTION)
        if failure.startswith("model-"):
            assert suggest_requests(model), "the server never reached the model"
    finally:
        refused.close()
        for stall in stalls:
            stall.set()


def test_popup_researches_the_page_on_its_site_and_copies_a_citation(
    extension: Extension,
    sleuth_server: Callable[..., Server],
    model: Wire,
    web: Web,
    article: str,
) -> None:
    held = threading.Event()  # one page waits, so the streamed progress can be seen
    other = web.page(
        "/nimbus/pools",
        "Nimbus connection pools",
        [
            "Nimbus 3.0 release notes explain that pools keep at most ten idle connections for "
            "each host and close any connection idle for thirty seconds.",
        ],
        stall=held,
    )
    server = sleuth_server(model=model)
    extension.configure(server.origin)
    tab = extension.context.new_page()
    tab.goto(article)
    popup = extension.open_popup(tab)
    popup.wait_for_selector("body[data-suggest=shown]")

    popup.click("#research")

    try:
        # The last progress line while the other page is held: the article has been read.
        expect(popup.locator("#status")).to_have_text(f"read {article} (ok)")
        expect(popup.locator("#research")).to_be_disabled()
    finally:
        held.set()
    bullets = popup.locator(".digest .bullets li")
    expect(bullets.first).to_be_visible(timeout=60_000)
    links = popup.locator(".digest .bullets a.cite")
    hrefs = {links.nth(i).get_attribute("href") for i in range(links.count())}
    assert hrefs, "no citation links"
    assert hrefs <= {article, other}
    expect(popup.locator("#status")).to_contain_text("cited point")
    # The search was kept on the page's site and asked the page's title.
    searched = web.searches[-1]["q"][0]
    assert ARTICLE_TITLE in searched
    assert "site:127.0.0.1" in searched

    popup.click("#copy")
    expect(popup.locator("#citation")).to_have_value(
        f"{ARTICLE_TITLE} <{article}> — {ARTICLE_DESCRIPTION}"
    )


def test_options_test_connection_names_the_problem(
    extension: Extension,
    sleuth_server: Callable[..., Server],
) -> None:
    good = sleuth_server()
    foreign = sleuth_server(SLEUTH_CORS_ORIGINS="https://app.example")
    sock = refusing_port()
    page = extension.context.new_page()
    page.goto(f"{extension.origin}/options.html")
    page.wait_for_selector("body[data-ready=true]")
    expect(page.locator("#origin")).to_have_text(EXTENSION_ORIGIN)

    def test(server: str, token: str) -> None:
        page.fill("#server", server)
        page.fill("#token", token)
        page.click("#test")
        expect(page.locator("#status")).not_to_have_text("Testing", timeout=30_000)
        expect(page.locator("#status")).not_to_contain_text("Testing", timeout=30_000)

    try:
        test(f"http://127.0.0.1:{sock.getsockname()[1]}", TOKEN)
        expect(page.locator("#checks li.fail")).to_contain_text("Cannot reach")
        expect(page.locator("#status")).to_have_class("status error")

        test(good.origin, "not-the-token")
        expect(page.locator("#checks li.ok")).to_contain_text("answers")
        expect(page.locator("#checks li.fail")).to_contain_text("token was refused (HTTP 401")

        test(good.origin, "")
        expect(page.locator("#checks li.fail")).to_contain_text("needs a token")

        test(foreign.origin, TOKEN)
        expect(page.locator("#checks li.fail")).to_contain_text("(CORS)")
        expect(page.locator("#checks li.fail")).to_contain_text(EXTENSION_ORIGIN)

        test("ftp://127.0.0.1/", TOKEN)
        expect(page.locator("#status")).to_contain_text("must start with http:// or https://")

        test(good.origin + "/", TOKEN)
        expect(page.locator("#checks li.fail")).to_have_count(0)
        expect(page.locator("#checks li.ok")).to_have_count(3)
        expect(page.locator("#checks li.ok").nth(2)).to_contain_text("Link suggestions are off")
        expect(page.locator("#status")).to_have_text("Connection works.")
    finally:
        sock.close()


def test_popup_without_a_server_says_where_to_set_it(
    extension: Extension, sleuth_server: Callable[..., Server], article: str
) -> None:
    tab = extension.context.new_page()
    tab.goto(article)
    popup: Page = extension.open_popup(tab)

    popup.wait_for_selector("body[data-suggest=hidden]")
    expect(popup.locator("#setup")).to_be_visible()
    popup.click("#research")
    expect(popup.locator("#status")).to_have_text("Set the server first (Options).")
    # A fresh install marks the toolbar button until a server is saved.
    expect_badge(popup, "!")

    extension.configure(sleuth_server().origin)
    expect_badge(popup, "")


def expect_badge(page: Page, text: str) -> None:
    """The service worker sets the badge asynchronously: wait until it reads ``text``."""
    page.wait_for_function(
        "async (wanted) => (await chrome.action.getBadgeText({})) === wanted", arg=text
    )
