"""Quotes a reader can find: every research quote is in the rendered page's visible text.

Pages shaped like real ones (a byline, a "jump to" menu, numbered steps, a
comparison table, headings, a promotion, related-article teasers, a "read
more" line) are served on loopback with a SearXNG-style search stand-in.
research() digests them, and headless Chromium renders each cited page:
every quote, whitespace collapsed, must be in ``document.body.innerText``
with whitespace collapsed the same way, and no quote may come from the
page's chrome.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.async_api import async_playwright

from loopback import Web, serve
from sleuth.cache.memory import MemoryCache
from sleuth.digest import Digest
from sleuth.digest.compose import estimate_tokens
from sleuth.render.browser import LAUNCH_FLAGS
from webs import opened_fetcher, research

pytestmark = pytest.mark.chromium

CHROMIUM = "/usr/bin/chromium"
# Names resolve nowhere and only the loopback address is reachable.
LOOPBACK_ONLY = "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"
QUESTION = "How do I descale an electric kettle with vinegar or citric acid?"

STEP_SOAK = (
    "Leave the hot vinegar mixture to stand in the kettle for an hour, so the acid has time "
    "to dissolve the scale on the heating plate."
)
WHY_VINEGAR = (
    "Descaling a kettle with white vinegar works because acetic acid turns calcium "
    "carbonate into calcium acetate, which dissolves in water and rinses away."
)
CITRIC_CELL = (
    "Citric acid descales a kettle in about fifteen minutes and leaves no vinegar smell behind."
)
CHROME = [
    "Jump to",
    "By Mara Quill",
    "Download",
    "subscribe",
    "Debunked",
    "Read more",
    "Best Kettle Descaler",
    "Share this",
]

KETTLE_GUIDE = f"""<!doctype html><html lang="en"><head><title>How to descale a kettle</title>
<style>.promo {{ border: 1px solid #ccc }}</style></head><body>
<header><nav><a href="/">Home</a> <a href="/kitchen">Kitchen</a> <a href="/deals">Deals</a></nav>
</header>
<main><article>
<h1>How to descale an electric kettle</h1>
<p class="byline">By Mara Quill, Senior Appliance Editor &middot; Updated March 3, 2025</p>
<div class="toc"><p>Jump to:</p><ul>
<li><a href="#why">Why kettles scale</a></li>
<li><a href="#vinegar">Descaling with vinegar</a></li>
<li><a href="#citric">Descaling with citric acid</a></li></ul></div>
<h2 id="why">Why kettles scale</h2>
<p>Hard water leaves a crust of calcium carbonate on the heating plate every time a kettle
boils, and a millimetre of that scale makes each boil take noticeably longer.</p>
<h2 id="vinegar">Descaling with vinegar</h2>
<p>THIS GUIDE CONTAINS:</p>
<ol>
<li>Fill the kettle halfway with equal parts of <em>white vinegar</em> and water, then bring
it to the boil.</li>
<li>{STEP_SOAK}</li>
<li>Rinse twice</li>
</ol>
<p>{
    WHY_VINEGAR.replace("white vinegar", "<strong>white vinegar</strong>").replace(
        "acetic acid", '<a href="/acetic">acetic acid</a>'
    )
}</p>
<h2 id="citric">Descaling with citric acid</h2>
<table>
<tr><th>Method</th><th>Time</th><th>Cost of one descale</th></tr>
<tr><td>Vinegar</td><td>1 hour</td><td>$0.40</td></tr>
<tr><td>Citric acid</td><td>{CITRIC_CELL}</td><td>$0.25</td></tr>
</table>
<p>Citric acid powder is sold as a descaler, but the food-grade powder from the baking aisle
works the same way: dissolve two tablespoons in a full kettle of water and boil it.</p>
<div class="promo"><p>Want our complete kettle descaling checklist? Download the free guide
and subscribe to our newsletter today!</p></div>
<p>Read more: How to Descale a Kettle Without Vinegar Better Value Kettle Cleaners What's the
Best Kettle Descaler?</p>
<section class="related"><h3>You might also like</h3><ul>
<li><a href="/myths">Kettle Descaling Myths Debunked By Oren Vale, Appliance Tester</a></li>
<li><a href="/best">The Best Electric Kettle Descalers We Tested With Vinegar And Citric Acid</a>
</li></ul></section>
<p>Share this guide with a friend who still drinks flaky tea!</p>
</article></main>
<footer><p>&copy; 2025 Kettle Weekly. All rights reserved.</p></footer>
</body></html>"""

# A comparison guide: each method is a card of <div> facts in a list item (blocks that
# extraction flattens), a bold label before a sentence, references in brackets, a
# superscript, and the site's pitch around a call to action at the end.
CARD_FACT = "One hour of soaking descales a kettle with vinegar"
CARD_PRICE = "$0.40 for one vinegar descale"
REFERENCE = (
    "Citric acid dissolves kettle scale about four times faster than vinegar [3], because it "
    "is the stronger acid at the same strength"
)
PITCH = "We have descaling experts to advise you on the best method for your kettle"
COMPARISON = f"""<!doctype html><html lang="en"><head><title>Kettle descalers compared</title>
</head><body><main><article>
<h1>Vinegar or citric acid: descaling a kettle compared</h1>
<p>We descaled forty kettles with white vinegar and with citric acid to compare how long each
method takes, what it costs and how much scale it leaves on the heating plate.</p>
<ul class="methods">
<li><h4>Vinegar</h4>
<div class="fact"><span class="label">Time</span> <span>{CARD_FACT}</span></div>
<div class="fact"><span class="label">Cost</span> <span>{CARD_PRICE}</span></div></li>
<li><h4>Citric acid</h4>
<div class="fact"><span class="label">Time</span> <span>Fifteen minutes of boiling with citric
acid descales a kettle</span></div>
<div class="fact"><span class="label">Cost</span> <span>$0.25 for one citric acid descale</span>
</div></li>
</ul>
<div class="tip"><strong>Tip</strong> Descale a kettle with citric acid once a month in hard water
areas, and with vinegar only when the scale is already thick.</div>
<p>{REFERENCE.replace("[3]", '[<span class="footers"><a href="#r3">3</a></span>]')}, and a kettle
descaled every 2<sup>nd</sup> month with vinegar still boils as fast as a new one.</p>
<p>If you need help choosing a descaler for your kettle, do not hesitate to reach out to the
Kettle Lab. {PITCH}, and we test every vinegar and citric acid descaler we sell.</p>
</article></main></body></html>"""

FORUM_THREAD = """<!doctype html><html lang="en"><head><title>Kettle scale keeps coming back</title>
</head><body>
<nav><ul><li><a href="/">Forum home</a></li><li><a href="/new">New posts</a></li></ul></nav>
<main>
<h1>Kettle scale keeps coming back after a week</h1>
<div class="post"><p class="meta">Posted by teapot_tom &middot; 3 replies</p>
<p>I descale my kettle with vinegar every Sunday, but by Friday the white crust is back on the
heating plate. Is citric acid any better, or is my water just very hard?</p></div>
<div class="post"><p class="meta">Reply from limescale_lou</p>
<p>Citric acid will not stop scale from forming; it only removes it faster. A jug filter
in front of the kettle is what keeps the crust from coming back in hard water areas.</p>
<p><a href="/reply">Reply</a> <a href="/quote">Quote</a> <a href="/report">Report</a></p></div>
</main>
<aside><h2>Popular threads</h2><ul>
<li><a href="/t/1">Best Vinegar For Descaling A Kettle?</a></li>
<li><a href="/t/2">Citric Acid Versus Vinegar For Kettles And Coffee Machines</a></li>
</ul></aside></body></html>"""

SHOP_PAGE = """<!doctype html><html lang="en"><head><title>Kettle descaler, 500 g</title></head>
<body><header><a href="/">Shop</a> | <a href="/cart">Cart</a> | <a href="/help">Help</a></header>
<main><h1>Citric acid kettle descaler, 500 g</h1>
<p class="price">$6.99</p>
<button>Add to cart</button>
<h2>Product details</h2>
<ul><li>Food-grade citric acid</li><li>Enough for 25 descales</li><li>Made in Portugal</li></ul>
<p>One sachet of this citric acid descaler clears the scale from a standard electric kettle in
fifteen minutes, with no rinsing beyond one boil of fresh water.</p>
<table><tr><td>Weight</td><td>500 g</td></tr><tr><td>Use with</td><td>Kettles | Irons</td></tr>
</table>
<p>Shop now and get free delivery on kettle descaler orders over $20!</p>
</main></body></html>"""


# A care guide with what extraction reads but a reader does not see as written: a closed
# FAQ panel (opened by a visible button), a word trafilatura drops from mid-sentence by
# its class, screen-reader-only text between two sentences, teaser cards under titles
# that link to other guides, and a readers' comment thread.
PANEL_ANSWER = (
    "Descale an electric kettle with vinegar once a month in hard water areas, and with "
    "citric acid every two months where the water is soft."
)
BROKEN = (
    "Boiling the vinegar and water mixture twice loosens the thickest kettle scale "
    "before you rinse it away."
)
TEASER = (
    "Here it is: The Complete Kettle Descaling Checklist with every vinegar and citric acid "
    "step from filling the kettle to the final rinse."
)
COMMENT = (
    "I descale my kettle with citric acid every month and the heating plate has stayed "
    "clean for two years now."
)
CARE_GUIDE = f"""<!doctype html><html lang="en"><head><title>Kettle care guide</title></head>
<body><main><article>
<h1>Kettle care: descaling with vinegar or citric acid</h1>
<p>Scale builds up in every electric kettle that boils hard water, and descaling with
vinegar or citric acid removes it without scrubbing the heating plate.</p>
<p>{BROKEN.replace("twice", '<span class="social">twice</span>')} Citric acid works the same
way in a kettle, only faster and without the smell of vinegar.</p>
<p>A descaled kettle uses less energy.<sup><span class="sr-only">Footnote</span>2</sup> Scale
insulates the heating plate from the water, so each boil of the kettle takes longer.</p>
<h2>Questions</h2>
<button aria-expanded="false" aria-controls="faq-often">How often should I descale?</button>
<div id="faq-often" style="display:none"><p>{PANEL_ANSWER}</p></div>
<h2>More kettle guides</h2>
<div class="cards"><div class="card"><h3><a href="/checklist">The Complete Kettle Descaling
Checklist</a></h3>
<p>{TEASER}</p></div>
<div class="card"><h3><a href="/myths">Kettle Descaling Myths We Tested</a></h3>
<p>Vinegar, citric acid and lemon juice tested on twelve scaled kettles, with the times each
descaling method took to clear the plate.</p></div></div>
</article>
<div class="comments" id="comments"><h4>3 comments:</h4><ol>
<li class="comment"><p class="comment-content">{COMMENT}</p></li>
<li class="comment"><p class="comment-content">Vinegar descaling left my kettle smelling for
days, so I switched to citric acid and never looked back at the vinegar method.</p></li>
</ol></div>
</main></body></html>"""


def collapse(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


@pytest.fixture
def web() -> Iterator[Web]:
    with serve() as site:
        web = Web(site)
        site.add("/search", handler=web._search)
        for path, title, body in (
            ("/guide", "How to descale a kettle", KETTLE_GUIDE),
            ("/forum", "Kettle scale keeps coming back", FORUM_THREAD),
            ("/shop", "Kettle descaler, 500 g", SHOP_PAGE),
        ):
            web.result(site.add(path, body), title)
        yield web


async def visible_texts(urls: list[str]) -> dict[str, str]:
    """``document.body.innerText`` of each page as headless Chromium renders it."""
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(
            executable_path=CHROMIUM,
            headless=True,
            chromium_sandbox=False,
            args=[*(f for f in LAUNCH_FLAGS if "resolver" not in f), LOOPBACK_ONLY],
        )
        try:
            page = await browser.new_page()
            texts = {}
            for url in urls:
                await page.goto(url)
                texts[url] = await page.evaluate("document.body.innerText")
            return texts
        finally:
            await browser.close()


async def digest_of_kettle_pages(web: Web) -> tuple[Digest, MemoryCache]:
    cache = MemoryCache(64)
    digest = await research(QUESTION, settings=web.settings(), cache=cache)
    assert digest.errors == []
    assert digest.bullets
    return digest, cache


async def test_every_quote_is_in_the_rendered_pages_visible_text(web: Web) -> None:
    digest, _ = await digest_of_kettle_pages(web)
    urls = {c.id: c.url for c in digest.citations}
    visible = {
        url: collapse(text) for url, text in (await visible_texts(list(urls.values()))).items()
    }
    for bullet in digest.bullets:
        assert collapse(bullet.quote) in visible[urls[bullet.citations[0]]], bullet.quote


async def test_quotes_carry_no_markup_and_come_from_the_content(web: Web) -> None:
    digest, _ = await digest_of_kettle_pages(web)
    quotes = [bullet.quote for bullet in digest.bullets]
    assert WHY_VINEGAR in quotes
    assert any(CITRIC_CELL in quote for quote in quotes)  # one cell, not the pipe-joined row
    assert any(STEP_SOAK in quote for quote in quotes)  # a list item without its bullet
    for quote in quotes:
        assert " | " not in quote
        assert not quote.startswith(("- ", "* ", "#"))
        assert "**" not in quote
        assert "](" not in quote
        assert "THIS GUIDE CONTAINS" not in quote  # a heading is never glued to what follows
        for chrome in CHROME:
            assert chrome.lower() not in quote.lower(), (chrome, quote)
    assert len(digest.bullets) <= 8
    assert estimate_tokens(digest) <= 1500


async def test_quotes_from_flattened_blocks_and_references_read_as_the_page() -> None:
    with serve() as site:
        web = Web(site)
        site.add("/search", handler=web._search)
        web.result(site.add("/compared", COMPARISON), "Kettle descalers compared")
        web.result(site.add("/guide", KETTLE_GUIDE), "How to descale a kettle")
        digest = await research(QUESTION, settings=web.settings(), cache=MemoryCache(64))
        urls = {c.id: c.url for c in digest.citations}
        visible = {
            url: collapse(text) for url, text in (await visible_texts(list(urls.values()))).items()
        }
    compared = [b for b in digest.bullets if urls[b.citations[0]].endswith("/compared")]
    assert len(compared) >= 3  # the comparison is quoted ...
    for bullet in compared:  # ... as the page reads: nothing glued, dropped or marked
        assert collapse(bullet.quote) in visible[urls[bullet.citations[0]]], bullet.quote
        assert "[]" not in bullet.quote
        assert "^" not in bullet.quote
        assert PITCH not in bullet.quote
    quotes = " ".join(b.quote for b in compared)
    assert CARD_FACT in quotes or REFERENCE in quotes


async def test_quote_offsets_point_into_the_fetched_text(web: Web) -> None:
    digest, cache = await digest_of_kettle_pages(web)
    urls = {c.id: c.url for c in digest.citations}
    async with opened_fetcher(web.settings(), cache=cache) as fetcher:
        for bullet in digest.bullets:
            result = await fetcher.fetch(urls[bullet.citations[0]])
            assert result.cache == "hit"
            offset = bullet.source_offset
            assert result.text[offset : offset + len(bullet.quote)] == bullet.quote


async def test_quotes_skip_what_the_page_does_not_show_as_written() -> None:
    with serve() as site:
        web = Web(site)
        site.add("/search", handler=web._search)
        care_url = site.add("/care", CARE_GUIDE)
        web.result(care_url, "Kettle care guide")
        web.result(site.add("/guide", KETTLE_GUIDE), "How to descale a kettle")
        cache = MemoryCache(64)
        digest = await research(QUESTION, settings=web.settings(), cache=cache)
        urls = {c.id: c.url for c in digest.citations}
        visible = {
            url: collapse(text) for url, text in (await visible_texts(list(urls.values()))).items()
        }
        async with opened_fetcher(web.settings(), cache=cache) as fetcher:
            care = await fetcher.fetch(care_url)
    quoted = [b for b in digest.bullets if urls[b.citations[0]].endswith("/care")]
    assert quoted  # the guide is quoted ...
    for bullet in digest.bullets:  # ... and every quote is on its page as the page reads
        assert collapse(bullet.quote) in visible[urls[bullet.citations[0]]], bullet.quote
    quotes = " ".join(b.quote for b in quoted)
    assert PANEL_ANSWER in care.text  # extraction reads the panel a reader can open
    assert PANEL_ANSWER not in quotes  # but the page does not show it until then
    assert "mixture loosens" not in quotes  # the sentence extraction lost a word of
    assert "Footnote" not in quotes
    assert "energy.2 Scale" not in quotes
    assert "Checklist with every vinegar" not in quotes  # a card about another guide
    assert COMMENT not in care.text  # readers' comments are not the guide
