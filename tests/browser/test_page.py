"""The web page `sleuth serve` answers at /, driven in headless Chromium.

The research run streams server-sent events; one page of the loopback web is held back
(it waits on an event the test sets) so the progress is seen while the run is still going,
then the digest's citation links must point at the loopback pages. The page asks the
server's unauthenticated /api/v1/info whether a token is needed and a model configured.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable

import pytest
from playwright.sync_api import Page, expect

from browser.conftest import SUGGESTION, TOKEN, Server, screenshot
from loopback import Web

pytestmark = pytest.mark.chromium

QUESTION = "What is the default timeout of the Nimbus client and how do I change it?"


def open_page(page: Page, server: Server, *, token: str | None = TOKEN) -> None:
    page.goto(server.origin + "/")
    page.wait_for_selector("body[data-ready=true]")
    if token is not None:
        expect(page.locator("#token-card")).to_be_visible()
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
    expect(progress.first).to_be_visible()  # open while the run goes on
    expect(page.locator("#research-progress")).to_contain_text("reading 3 pages")
    # Steps carry no numbers: the only numbers in the answer are its [n] citations.
    assert page.locator("#research-progress").evaluate("e => e.tagName") == "UL"
    assert progress.first.evaluate("e => getComputedStyle(e).listStyleType") == "none"
    expect(page.locator("#research-status")).to_have_text("Researching…")
    assert page.locator("body").get_attribute("data-research") == "running"
    expect(page.locator("#research-digest .bullets li")).to_have_count(0)
    held.set()

    bullets = page.locator("#research-digest .bullets li")
    expect(bullets.first).to_be_visible(timeout=60_000)
    expect(page.locator("#research-progress")).to_contain_text("ranking passages")
    # Once the run has ended its steps fold away behind a summary that counts them.
    expect(page.locator("body")).to_have_attribute("data-research", "done")
    steps = page.locator("#research-steps")
    assert steps.evaluate("e => e.open") is False
    expect(progress.first).to_be_hidden()
    expect(page.locator("#research-steps-summary")).to_have_text(
        f"How it was researched ({progress.count()} steps)"
    )
    page.click("#research-steps-summary")  # and open again on request
    expect(progress.first).to_be_visible()
    page.click("#research-steps-summary")

    links = page.locator("#research-digest a.cite")
    hrefs = {links.nth(i).get_attribute("href") for i in range(links.count())}
    assert hrefs, "no citation links"
    assert hrefs <= set(urls), hrefs
    sources = page.locator("#research-digest .sources a")
    assert {sources.nth(i).get_attribute("href") for i in range(sources.count())} == hrefs
    heading = page.locator("#research-digest h3")
    expect(heading).to_have_text("Sources")
    labelled = page.locator("#research-digest .sources").get_attribute("aria-labelledby")
    assert labelled == heading.get_attribute("id")
    expect(page.locator("#research-digest .bullets")).to_contain_text("five seconds")

    # The summary counts the points, the sources they cite and the pages read, each apart.
    status = page.locator("#research-status").inner_text()
    found = re.fullmatch(
        r"(\d+) points? citing (\d+) sources? · 3 pages read in \d+\.\d s\.", status
    )
    assert found, status
    assert int(found[1]) == page.locator("#research-digest .bullets li").count()
    assert int(found[2]) == len(hrefs)
    screenshot(page, "web-research.png", full_page=True)


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


def test_the_token_card_shows_only_when_the_server_needs_a_token(
    browser_page: Page, sleuth_server: Callable[..., Server], article: str
) -> None:
    page = browser_page
    guarded = sleuth_server()
    page.goto(guarded.origin + "/")
    page.wait_for_selector("body[data-ready=true]")
    expect(page.locator("#token-card")).to_be_visible()
    assert page.locator("body").get_attribute("data-auth") == "true"

    open_server = sleuth_server(SLEUTH_API_TOKENS="")
    page.goto(open_server.origin + "/")
    page.wait_for_selector("body[data-ready=true]")
    assert page.locator("body").get_attribute("data-auth") == "false"
    expect(page.locator("#token-card")).to_be_hidden()
    expect(page.locator("#token")).to_be_hidden()
    # And the page works without one.
    page.fill("#fetch-url", article)
    page.press("#fetch-url", "Enter")
    expect(page.locator("#fetch-outcome")).to_have_text("ok")


def test_suggest_fills_the_form(
    browser_page: Page,
    sleuth_server: Callable[..., Server],
    model: object,
    article: str,
) -> None:
    server = sleuth_server(model=model)
    page = browser_page
    open_page(page, server)
    expect(page.locator("#suggest-off")).to_be_hidden()
    expect(page.locator("#suggest-go")).to_be_enabled()

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


def test_suggest_on_a_server_without_a_model_says_so_before_it_is_filled_in(
    browser_page: Page, sleuth_server: Callable[..., Server], article: str
) -> None:
    server = sleuth_server()
    page = browser_page
    open_page(page, server)

    # Said on arrival, before anything is typed, and the button cannot be pressed.
    notice = page.locator("#suggest-off")
    expect(notice).to_be_visible()
    expect(notice).to_contain_text("no model configured")
    expect(notice).to_contain_text("SLEUTH_LLM_PROVIDER")
    assert page.locator("body").get_attribute("data-llm") == "false"
    expect(page.locator("#suggest-go")).to_be_disabled()
    page.fill("#suggest-url", article)
    page.press("#suggest-url", "Enter")  # submitting by keyboard asks nothing either
    expect(page.locator("#suggest-status")).to_be_empty()
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
    expect(page.locator("#fetch-text p").first).to_contain_text("default timeout of five seconds")
    expect(page.locator("#fetch-status")).to_contain_text("characters")

    # A loopback address the server was not told to allow: the guard's outcome is shown.
    page.fill("#fetch-url", "http://127.0.0.1:9/admin")
    page.click("#fetch-go")
    expect(page.locator("#fetch-outcome")).to_have_text("blocked")
    expect(page.locator("#fetch-status")).to_contain_text("Not read:")


def test_the_page_fits_a_phone_and_loads_nothing_from_elsewhere(
    browser_page: Page, sleuth_server: Callable[..., Server], model: object
) -> None:
    server = sleuth_server(model=model)  # so the Suggest button is enabled
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


MARKDOWN_PAGE = """<!doctype html><html><head><title>Nimbus guide</title></head>
<body><main><article>
<h1>Nimbus guide</h1>
<p>Nimbus is an <strong>HTTP client</strong> with <em>per-phase</em> timeouts, written up
in [the timeout notes](/docs/timeouts) and set for every call with
<code>Client(timeout=5)</code></p>
<h2>Installing Nimbus</h2>
<p>Install it from the package index; it has no dependencies of its own and runs on every
supported interpreter, with wheels for each platform the project builds.</p>
<ul><li>connect timeout</li><li>read timeout</li><li>write timeout</li></ul>
<h2>Limits</h2>
<ol><li>ten idle connections per host</li><li>thirty seconds idle at most</li></ol>
<table><tr><th>Phase</th><th>Default</th></tr><tr><td>connect</td><td>5 s</td></tr>
<tr><td>read</td><td>5 s</td></tr></table>
<p>Untrusted text from the page: &lt;img src=x onerror="window.pwned=1"&gt; and
&lt;script&gt;window.pwned=2&lt;/script&gt; and [a trap](javascript:window.pwned=3) all
stay words on the screen, however the page writes them into its own prose.</p>
</article></main></body></html>"""


def test_fetched_text_is_formatted_markdown_and_page_text_stays_text(
    browser_page: Page, sleuth_server: Callable[..., Server], web: Web
) -> None:
    url = web.site.add("/guide", MARKDOWN_PAGE)
    server = sleuth_server()
    page = browser_page
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url))
    open_page(page, server)

    page.fill("#fetch-url", url)
    page.press("#fetch-url", "Enter")
    expect(page.locator("#fetch-outcome")).to_have_text("ok")
    text = page.locator("#fetch-text")

    # Headings are headings (larger than the prose), lists are lists, the table has rows.
    heading = text.locator("h5.md-h2", has_text="Installing Nimbus")
    expect(heading).to_be_visible()
    size = "e => parseFloat(getComputedStyle(e).fontSize)"
    assert heading.evaluate(size) > text.locator("p").first.evaluate(size)
    assert int(heading.evaluate("e => getComputedStyle(e).fontWeight")) >= 600
    expect(text.locator("ul > li")).to_have_text(
        ["connect timeout", "read timeout", "write timeout"]
    )
    expect(text.locator("ol > li")).to_have_count(2)
    expect(text.locator("table th")).to_have_text(["Phase", "Default"])
    expect(text.locator("table tbody tr")).to_have_count(2)
    expect(text.locator("strong", has_text="HTTP client")).to_have_count(1)
    expect(text.locator("em", has_text="per-phase")).to_have_count(1)
    expect(text.locator("code", has_text="Client(timeout=5)")).to_have_count(1)

    # Links are the page's http(s) links only, opened without the page as opener.
    # sleuth's Markdown names no links of its own, but link syntax in the text becomes one,
    # resolved against the page's address.
    link = text.locator("a", has_text="the timeout notes")
    assert link.get_attribute("href") == web.site.origin + "/docs/timeouts"
    assert link.get_attribute("rel") == "noopener noreferrer"
    hrefs = text.locator("a").evaluate_all("links => links.map(a => a.href)")
    assert all(href.startswith(("http://", "https://")) for href in hrefs), hrefs
    expect(text.locator("a", has_text="a trap")).to_have_count(0)
    expect(text).to_contain_text("[a trap](javascript:window.pwned=3)")

    # Markup in the page's words is shown as words: nothing is built from it, nothing ran.
    expect(text).to_contain_text('<img src=x onerror="window.pwned=1">')
    expect(text).to_contain_text("<script>window.pwned=2</script>")
    assert text.locator("img, script, iframe, [onerror]").count() == 0
    assert page.evaluate("window.pwned") is None
    assert not any("/x" in request for request in requested), requested

    # Prose, not a monospace box that scrolls inside itself.
    assert "monospace" not in text.evaluate("e => getComputedStyle(e).fontFamily")
    assert text.evaluate("e => e.scrollHeight <= e.clientHeight + 1")
    assert text.evaluate("e => getComputedStyle(e).overflowY") == "visible"
    assert errors == []
    screenshot(page.locator("#fetch-card"), "web-fetch.png")


RENDER = """async (text) => {
    const { renderMarkdown } = await import("/static/markdown.js");
    const slot = document.createElement("div");
    renderMarkdown(slot, text, "https://docs.example/guide/");
    document.body.append(slot);
    const all = (selector) => [...slot.querySelectorAll(selector)];
    return {
        blocks: [...slot.children].map((e) => e.tagName),
        nested: all("ul > li > ol > li").map((e) => e.textContent),
        quote: all("blockquote p").map((e) => e.textContent),
        cells: all("td").map((e) => e.textContent),
        code: all("pre code").map((e) => e.textContent),
        links: all("a").map((e) => [e.textContent, e.getAttribute("href"), e.rel]),
        strongEm: all("strong em").map((e) => e.textContent),
        elements: all("*").map((e) => e.tagName.toLowerCase()),
        text: slot.textContent,
    };
}"""

SUBSET = """### Deep heading

- outer one
  1. inner a
  2. inner b
- outer two

> quoted *words*

| key | value |
| --- | --- |
| a\\|b | <b>bold?</b> |

~~~~
```not a fence```
<script>alert(1)</script>
~~~~

**strong with *em* inside**, ![a diagram](diagram.png), [relative](../api), [bad](data:text/html,x)
and [worse](javascript:alert(1)); a \\*literal\\* star."""


def test_the_markdown_renderer_builds_elements_for_the_subset_sleuth_writes(
    browser_page: Page, sleuth_server: Callable[..., Server]
) -> None:
    server = sleuth_server()
    page = browser_page
    page.goto(server.origin + "/")
    page.wait_for_selector("body[data-ready=true]")

    got = page.evaluate(RENDER, SUBSET)
    assert got["blocks"] == ["H6", "UL", "BLOCKQUOTE", "DIV", "PRE", "P"], got["blocks"]
    assert got["nested"] == ["inner a", "inner b"]
    assert got["quote"] == ["quoted words"]
    assert got["cells"] == ["a|b", "<b>bold?</b>"]
    assert got["code"] == ["```not a fence```\n<script>alert(1)</script>"]
    assert got["strongEm"] == ["em"]
    # Images become links (nothing is loaded), relative addresses resolve, others stay text.
    assert got["links"] == [
        ["a diagram", "https://docs.example/guide/diagram.png", "noopener noreferrer"],
        ["relative", "https://docs.example/api", "noopener noreferrer"],
    ]
    assert "[bad](data:text/html,x)" in got["text"]  # shown as written, not followed
    assert "[worse](javascript:alert(1))" in got["text"]
    assert "a *literal* star" in got["text"]
    assert not {"img", "script", "b", "iframe"} & set(got["elements"]), got["elements"]
