"""Every kind of page keeps its content (issue 12): regression pins per page type.

The pages are short excerpts we wrote in the shape of real ones of each kind (a
Discourse-style thread served in ``<noscript>``, a product with a specification
table, a shop category of cards, a blog index, a docs page with code and a table of
contents, a service page spread over sections). Each test checks the judged page
type, that the content of every block is kept, and that the chrome is not.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from loopback import serve
from sleuth.extract import extract

CHROME = (
    '<header><a href="/">Acme</a><nav><a href="/a">Shop</a> <a href="/b">Journal</a>'
    ' <a href="/c">Support</a> <a href="/d">Account</a></nav></header>'
)
FOOTER = (
    '<footer><p>Copyright Acme Ltd, registered in Leith.</p><a href="/privacy">Privacy'
    ' policy</a> <a href="/terms">Terms of sale</a></footer>'
    '<div class="cookie-banner"><p>We use cookies to improve your visit.</p></div>'
)
PRODUCT_HEAD = (
    '<script type="application/ld+json">{"@context":"https://schema.org",'
    '"@type":"Product","name":"Trail kettle"}</script>'
)
KETTLE_URL = "https://shop.example/products/trail-kettle"


def _page(body: str, head: str = "") -> str:
    return (
        f"<!DOCTYPE html><html><head><title>Acme</title>{head}</head>"
        f"<body>{CHROME}{body}{FOOTER}</body></html>"
    )


def _sentences(prefix: str, count: int) -> str:
    return " ".join(
        f"{prefix} sentence number {i} explains one more detail for the reader today."
        for i in range(count)
    )


def _assert_no_chrome(text: str) -> None:
    for chrome in ("Journal", "Terms of sale", "We use cookies", "Copyright Acme"):
        assert chrome not in text


def test_forum_thread_served_in_noscript_needs_the_browser() -> None:
    """``<noscript>`` is what a browser without scripts shows; sleuth reads pages as a
    browser with scripts does, so a thread served only there is ``js_required`` (the
    render fallback reads it) and none of the noscript text is content."""
    posts = "".join(
        f'<div class="post"><span class="author">user{i}</span><p>Reply {i}: '
        f"{_sentences(f'Reply {i}', 3)}</p></div>"
        for i in range(6)
    )
    shell = (
        '<section id="main-outlet"><div class="loading">Loading</div></section>'
        '<noscript data-path="/t/stuck-builds/812"><h1>Builds stuck on queued</h1>'
        f"{posts}</noscript>"
    )
    result = extract(_page(shell), url="https://discuss.example/t/stuck-builds/812")
    assert result.metadata["page_type"] == "forum"
    assert result.outcome == "js_required"
    assert "<noscript>" in (result.reason or "")
    assert "sentence number" not in result.text


def test_forum_thread_declared_in_json_ld_keeps_replies() -> None:
    head = (
        '<script type="application/ld+json">{"@context":"https://schema.org",'
        '"@type":"DiscussionForumPosting","headline":"Boiler pressure drops"}</script>'
    )
    replies = "".join(
        f'<div class="comment"><p>{_sentences(f"Answer {i}", 2)}</p></div>' for i in range(4)
    )
    body = f"<main><h1>Boiler pressure drops</h1><p>{_sentences('Question', 3)}</p>{replies}</main>"
    result = extract(_page(body, head))
    assert result.metadata["page_type"] == "forum"
    assert "Question sentence number 2" in result.text
    assert all(f"Answer {i} sentence number 1" in result.text for i in range(4))


def test_product_keeps_description_and_specifications() -> None:
    rows = "".join(f"<tr><th>Property {i}</th><td>Value {i} in steel</td></tr>" for i in range(8))
    body = (
        '<main><h1>Trail kettle</h1><p class="price">£39.00</p>'
        f'<div class="description"><p>{_sentences("Kettle", 6)}</p></div>'
        f'<table class="specs">{rows}</table>'
        '<section class="related-products"><h3>You may also like</h3><ul>'
        '<li><a href="/x">Camp mug</a></li><li><a href="/y">Stove</a></li></ul></section></main>'
    )
    result = extract(_page(body, PRODUCT_HEAD), url=KETTLE_URL)
    assert result.metadata["page_type"] == "product"
    assert "Kettle sentence number 5" in result.text
    assert "Value 7 in steel" in result.text
    assert "You may also like" not in result.text
    _assert_no_chrome(result.text)


def test_product_leaves_out_customer_reviews() -> None:
    reviews = "".join(
        f'<div class="review"><h4>Buyer {i}</h4><p>{_sentences(f"Buyer {i} says", 2)}</p></div>'
        for i in range(3)
    )
    body = (
        '<main><h1>Trail kettle</h1><p class="price">£39.00</p>'
        f'<div class="description"><p>{_sentences("Kettle", 8)}</p></div>'
        f'<section id="customerReviews"><h2>Reviews (3)</h2>{reviews}</section></main>'
    )
    result = extract(_page(body, PRODUCT_HEAD), url=KETTLE_URL)
    assert result.metadata["page_type"] == "product"
    assert "Kettle sentence number 7" in result.text
    assert "Buyer" not in result.text


def test_product_reviews_wrapper_holding_the_page_is_kept() -> None:
    """A layout wrapper named for reviews that holds the whole product is not a section."""
    body = (
        '<main><h1>Trail kettle</h1><div class="layout with-reviews"><p class="price">£39.00'
        f'</p><div class="description"><p>{_sentences("Kettle", 6)}</p></div></div></main>'
    )
    result = extract(_page(body, PRODUCT_HEAD), url=KETTLE_URL)
    assert "Kettle sentence number 5" in result.text


def test_editorial_review_of_a_product_is_kept() -> None:
    body = (
        '<main><h1>Trail kettle</h1><p class="price">£39.00</p>'
        f'<div class="description"><p>{_sentences("Kettle", 3)}</p></div>'
        f'<section class="expert-review"><h2>Our verdict</h2><p>{_sentences("Verdict", 4)}</p>'
        "</section></main>"
    )
    result = extract(_page(body, PRODUCT_HEAD), url=KETTLE_URL)
    assert "Verdict sentence number 3" in result.text


def test_collection_keeps_every_card_not_just_one() -> None:
    cards = "".join(
        f'<div class="product-card"><a href="/p/{i}"><h3>Wool jumper model {i}</h3></a>'
        f'<span class="price">£{40 + i}.00</span><p>Knitted in Shetland from undyed wool, '
        f"pattern {i}.</p></div>"
        for i in range(12)
    )
    intro = _sentences("Category", 2)
    body = f'<main><h1>Jumpers</h1><p>{intro}</p><div class="grid">{cards}</div></main>'
    result = extract(_page(body), url="https://shop.example/collections/jumpers")
    assert result.metadata["page_type"] == "collection"
    for i in range(12):
        assert f"Wool jumper model {i}" in result.text
    _assert_no_chrome(result.text)


def test_a_grid_of_priced_cards_is_a_collection_wherever_it_is_served() -> None:
    cards = "".join(
        f'<div class="tile"><a href="/item/{i}">Bike light model {i}</a>'
        f'<span class="tile-price">${20 + i}.95</span></div>'
        for i in range(9)
    )
    body = f'<main><h1>Lights</h1><p>9 results</p><div class="grid">{cards}</div></main>'
    result = extract(_page(body), url="https://shop.example/cycling/accessories/lights/")
    assert result.metadata["page_type"] == "collection"
    for i in range(9):
        assert f"Bike light model {i}" in result.text
    _assert_no_chrome(result.text)


def test_listing_keeps_every_entry() -> None:
    entries = "".join(
        f'<article class="entry"><h2><a href="/journal/{i}">Field note {i}</a></h2>'
        f"<p>{_sentences(f'Teaser {i}', 1)}</p></article>"
        for i in range(8)
    )
    body = f"<main><h1>Journal</h1>{entries}</main>"
    result = extract(_page(body), url="https://acme.example/")
    assert result.metadata["page_type"] == "listing"
    for i in range(8):
        assert f"Field note {i}" in result.text
        assert f"Teaser {i} sentence number 0" in result.text


def test_documentation_keeps_code_and_drops_the_table_of_contents() -> None:
    sections = "".join(
        f'<h2 id="s{i}">Step {i}</h2><p>{_sentences(f"Step {i}", 2)}</p>'
        f"<pre><code>acme deploy --stage {i} --wait</code></pre>"
        for i in range(4)
    )
    toc = (
        '<aside class="toc"><a href="#s0">Contents step zero</a> <a href="#s1">Step one</a></aside>'
    )
    body = f'<div class="docs-layout">{toc}<main><h1>Deploying</h1>{sections}</main></div>'
    result = extract(_page(body), url="https://acme.example/docs/deploying")
    assert result.metadata["page_type"] == "documentation"
    for i in range(4):
        assert f"acme deploy --stage {i} --wait" in result.text
        assert f"Step {i} sentence number 1" in result.text
    assert "Contents step zero" not in result.text


def test_service_page_keeps_every_section() -> None:
    sections = "".join(
        f'<section class="feature"><h2>Benefit {i}</h2><p>{_sentences(f"Benefit {i}", 2)}</p>'
        "</section>"
        for i in range(6)
    )
    body = f'<main><div class="hero"><h1>Boiler servicing</h1></div>{sections}</main>'
    result = extract(_page(body), url="https://acme.example/boiler-servicing")
    assert result.metadata["page_type"] == "service"
    for i in range(6):
        assert f"Benefit {i} sentence number 1" in result.text
    _assert_no_chrome(result.text)


def test_article_stays_an_article() -> None:
    head = '<meta property="og:type" content="article">'
    body = (
        f"<main><article><h1>Harbour wall repaired</h1><p>{_sentences('Story', 5)}</p>"
        f"<p>{_sentences('Detail', 5)}</p></article>"
        '<div class="related"><a href="/1">Other story one</a> <a href="/2">Other story two</a>'
        "</div></main>"
    )
    result = extract(_page(body, head), url="https://news.example/2025/harbour-wall")
    assert result.metadata["page_type"] == "article"
    assert "Story sentence number 4" in result.text
    assert "Detail sentence number 4" in result.text
    assert "Other story one" not in result.text


def test_two_paragraph_page_keeps_both_paragraphs() -> None:
    document = (
        "<html><body><div class='note'><p>Opening hours change from Monday to eight until six."
        "</p></div><div class='extra'><p>The café stays closed on public holidays as before.</p>"
        "</div></body></html>"
    )
    text = extract(document).text
    assert "Opening hours change from Monday" in text
    assert "The café stays closed on public holidays" in text


def test_plain_text_has_no_page_type() -> None:
    assert "page_type" not in extract("just words", content_type="text/plain").metadata


@pytest.mark.parametrize("flag", ["--json"])
def test_cli_json_shows_the_page_type(flag: str) -> None:
    document = _page(
        f"<main><h1>Deploying</h1><p>{_sentences('Step', 4)}</p><pre>acme deploy</pre>"
        "<pre>acme undeploy</pre></main>"
    )
    done = subprocess.run(
        [sys.executable, "-m", "sleuth", "extract", flag],
        input=document.encode(),
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["metadata"]["page_type"] == "documentation"


KETTLE = (
    "A stove-top kettle of brushed steel that boils a litre in four minutes on a camp"
    " burner and packs flat into its own pouch."
)


def _kettle_page(body_extra: str) -> str:
    head = (
        '<script type="application/ld+json">{"@context":"https://schema.org",'
        f'"@type":"Product","name":"Trail kettle","description":"{KETTLE}"}}</script>'
    )
    rows = "".join(f"<tr><th>Property {i}</th><td>Value {i} in steel</td></tr>" for i in range(8))
    body = (
        f'<main><h1>Trail kettle</h1><p class="price">£39.00</p><table>{rows}</table>'
        f"{body_extra}</main>"
    )
    return _page(body, head)


def test_product_description_declared_only_in_json_ld_is_not_text() -> None:
    """Data in a script is not what a reader sees: it never enters the text."""
    result = extract(_kettle_page(""), url=KETTLE_URL)
    assert "boils a litre" not in result.text
    assert "Value 7 in steel" in result.text


def test_product_description_declared_and_shown_in_a_tab_opens_the_text() -> None:
    tab = (
        '<div role="tablist"><button role="tab" aria-controls="about">About</button></div>'
        f'<div role="tabpanel" id="about" hidden><p>{KETTLE}</p></div>'
    )
    result = extract(_kettle_page(tab), url=KETTLE_URL)
    assert "boils a litre in four minutes" in result.text
    assert result.text.count("boils a litre in four minutes") == 1
    assert "Value 7 in steel" in result.text


def test_cli_fetch_json_shows_the_page_type(tmp_path: Path) -> None:
    """``sleuth fetch --json`` over a real HTTP server on loopback (tests/loopback.py)."""
    document = _page(f"<main><h1>Boiler servicing</h1><p>{_sentences('Offer', 12)}</p></main>")
    env = {k: v for k, v in os.environ.items() if not k.startswith("SLEUTH_")}
    with serve() as site:
        url = site.add("/products/kettle", document.replace("<main>", '<main class="price">'))
        env.update(
            SLEUTH_ALLOW_HOSTS=f"127.0.0.1:{site.port}",
            SLEUTH_CACHE="memory",
            SLEUTH_RENDER="never",
            XDG_CONFIG_HOME=str(tmp_path / "config"),
        )
        done = subprocess.run(
            [sys.executable, "-m", "sleuth", "fetch", url, "--json", "--ignore-robots"],
            capture_output=True,
            env=env,
            timeout=120,
            check=False,
        )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["metadata"]["page_type"] == "product"


def test_a_post_printed_twice_reaches_the_reader_once() -> None:
    """Forum software prints a post as a teaser and in full; trafilatura may take one copy
    as the body and the other as comments."""
    posts = [_sentences(f"Post {i}", 2) for i in range(5)]
    teasers = "".join(
        f'<article class="post"><h3>member{i}</h3><p>{post}</p></article>'
        for i, post in enumerate(posts)
    )
    comments = "".join(
        f'<div class="comment"><span>member{i}</span><p>{post}</p></div>'
        for i, post in enumerate(posts)
    )
    body = (
        f"<main><h1>Which tyre pressure for gravel?</h1>{teasers}"
        f'<section id="comments">{comments}</section></main>'
    )
    result = extract(_page(body), url="https://forum.example/t/tyre-pressure/99")
    assert result.metadata["page_type"] == "forum"
    for i in range(5):
        assert result.text.count(f"Post {i} sentence number 1") == 1


def test_a_quoted_post_and_a_reply_preview_reach_the_reader_once() -> None:
    """Each reply opens with the post it answers: quoted in full, or as a preview of it
    (a one-line clamp that still holds the whole text)."""
    posts = [_sentences(f"Post {i}", 2) for i in range(5)]
    replies = "".join(
        f'<li class="post"><span class="author">member{i}</span>'
        + (f'<div class="parent-preview"><p>{posts[i - 1]}</p></div>' if i else "")
        + (f"<blockquote><p>{posts[i - 2]}</p></blockquote>" if i > 1 else "")
        + f'<div class="content"><p>{posts[i]}</p></div></li>'
        for i in range(5)
    )
    body = f'<main><h1>Which tyre pressure for gravel?</h1><ul class="posts">{replies}</ul></main>'
    result = extract(_page(body), url="https://forum.example/t/tyre-pressure/99")
    assert result.metadata["page_type"] == "forum"
    for i in range(5):
        assert result.text.count(f"Post {i} sentence number 1") == 1


def test_a_section_printed_for_phone_and_desktop_appears_once() -> None:
    intro = _sentences("Seasonal", 3)
    layouts = (
        f'<div class="intro intro--phone"><p>{intro}</p></div>'
        f'<div class="intro intro--wide"><p>{intro}</p></div>'
    )
    cards = "".join(
        f'<div class="card"><a href="/p/{i}"><h3>Rain shell model {i}</h3></a>'
        f'<span class="price">£{90 + i}.00</span><p>In stock now</p>'
        f"<pre>size chart {i % 2} fits true to size</pre></div>"
        for i in range(10)
    )
    body = f'<main><h1>Rain shells</h1>{layouts}<div class="grid">{cards}</div></main>'
    result = extract(_page(body), url="https://shop.example/collections/rain-shells")
    assert result.metadata["page_type"] == "collection"
    assert result.text.count("Seasonal sentence number 2") == 1
    for i in range(10):
        assert f"Rain shell model {i}" in result.text
    # Short phrases and code repeat on purpose: every card keeps its own.
    assert result.text.count("In stock now") == 10
    assert result.text.count("size chart 1 fits true to size") == 5


def test_a_shops_filters_sort_order_and_pages_are_not_content() -> None:
    cards = "".join(
        f'<div class="card"><a href="/p/{i}"><h3>Walking boot model {i}</h3></a>'
        f'<span class="price">£{80 + i}.00</span></div>'
        for i in range(10)
    )
    chrome = (
        '<div class="facet-group"><h4>Colour</h4><ul><li>Chestnut brown (12)</li>'
        "<li>Slate grey (4)</li></ul></div>"
        '<div class="sort-by">Sort by price, lowest first</div>'
        '<div class="pagination"><a href="?page=2">Next page of results</a></div>'
    )
    body = f'<main><h1>Walking boots</h1><div class="grid">{chrome}{cards}</div></main>'
    result = extract(_page(body), url="https://shop.example/collections/walking-boots")
    assert result.metadata["page_type"] == "collection"
    for i in range(10):
        assert f"Walking boot model {i}" in result.text
    for chrome_text in ("Chestnut brown", "lowest first", "Next page of results"):
        assert chrome_text not in result.text


def test_short_ranking_page_keeps_every_entry() -> None:
    """A short page of entries, not paragraphs: trafilatura keeps its one paragraph and
    the odd cell, the page content keeps every entry."""
    products = (
        *("Quarry Analytics", "Lantern Insight", "Beacon Models", "Tidepool Learning"),
        *("Marble Forecast", "Heron Metrics", "Juniper Signals", "Copper Trends"),
    )
    rows = "".join(
        f'<div class="entry">\n<div>{rank}.</div>\n<div><a href="/products/{rank}">{name}</a>'
        f"</div>\n<div><span>{9 - rank / 2}</span></div>\n<span>Compare</span>\n</div>\n"
        for rank, name in enumerate(products, 1)
    )
    body = (
        '<main><h1>Top ranked forecasting software</h1><div class="box"><h2>Compare top'
        " forecasting software</h2><p>See how the top forecasting products rank on their"
        " buyer score this year. Get your own recommendations now.</p></div>"
        f'<div class="list"><div>Product ranking</div>{rows}</div></main>'
    )
    result = extract(_page(body), url="https://rank.example/categories/forecasting/rankings")
    assert all(name in result.text for name in products)
    assert "buyer score this year" in result.text
    _assert_no_chrome(result.text)


def test_japanese_article_is_not_mistaken_for_a_short_page() -> None:
    """Japanese is written without spaces: counted by spaces, a long article is a
    handful of words, and the short-page rule handed it the sidebar as well."""
    sentences = (
        "昨日の夕方から港の防波堤の工事が再び始まりました。",
        "市の担当者によると、工事は来年の春まで続く予定です。",
        "漁師たちは朝の出港時間が遅れることを心配しています。",
        "説明会では安全対策と作業時間について質問が相次ぎました。",
    )
    paragraphs = "".join(
        f"<p>{''.join(sentences[(i + k) % 4] for k in range(4))}</p>" for i in range(6)
    )
    links = "".join(
        f"<li><a href='/p/{i}'>駅前の商店街で夏祭りが開かれました その{i}</a></li>"
        for i in range(8)
    )
    body = (
        f"<div class='wrap'><article><h1>防波堤の工事が再開</h1>{paragraphs}</article>"
        f"<div class='side'><h3>最近の記事</h3><ul>{links}</ul></div></div>"
    )
    result = extract(_page(body), url="https://news.example.jp/2025/06/harbour")
    assert "説明会では安全対策" in result.text
    assert "夏祭り" not in result.text


def test_collection_of_title_only_cards_keeps_every_title() -> None:
    head = (
        '<script type="application/ld+json">{"@context":"https://schema.org",'
        '"@type":"CollectionPage","name":"Candles"}</script>'
    )
    names = ("Beeswax pillar", "Soy tealight", "Tallow taper", "Rapeseed jar", "Olive lamp")
    cards = "".join(
        f'<div class="card"><a href="/p/{i}"><img src="/i/{i}.jpg" alt=""><h3>{name} candle</h3>'
        "</a></div>"
        for i, name in enumerate(names)
    )
    body = (
        "<main><h1>Candles</h1><p>Poured by hand in our workshop.</p>"
        f'<div class="grid">{cards}</div></main>'
    )
    result = extract(_page(body, head), url="https://shop.example/collections/candles")
    assert result.metadata["page_type"] == "collection"
    assert all(f"{name} candle" in result.text for name in names[:-1])


# -- what the page's own markup disowns ------------------------------------------------
_CONSENT = "".join(
    f"<h3>Purpose {i}</h3><p>These cookies help our partners measure purpose {i} of the site "
    "and may be set through our site by advertising partners to build a profile.</p>"
    for i in range(12)
)


def _thread(extra: str) -> str:
    posts = "".join(
        f'<div class="message"><span class="user">user{i}</span><p>Reply {i}: '
        f"{_sentences(f'Reply {i}', 2)}</p></div>"
        for i in range(5)
    )
    return _page(f"<main><h1>Which kettle for a long walk?</h1>{posts}</main>{extra}")


@pytest.mark.parametrize(
    "block",
    [
        f'<div role="dialog" aria-modal="true" aria-label="Privacy">{_CONSENT}</div>',
        f'<div role="alertdialog">{_CONSENT}</div>',
        f"<div data-nosnippet>{_CONSENT}</div>",
    ],
    ids=["modal-dialog", "alert-dialog", "kept-out-of-search-snippets"],
)
def test_what_the_page_disowns_is_not_content(block: str) -> None:
    """A consent dialog's text can outweigh a short thread's: it is dropped all the same."""
    result = extract(_thread(block), url="https://forum.example/threads/kettles.12/")
    assert "Reply 4 sentence number 1" in result.text
    assert "Purpose" not in result.text


def test_a_dialog_that_is_not_modal_keeps_its_content() -> None:
    """A product page's side sheet of details is a dialog, but not an overlay."""
    sheet = (
        '<div role="dialog" aria-modal="false" class="sheet"><h2>Description</h2>'
        f"<p>{_sentences('Sheet', 3)}</p></div>"
    )
    body = (
        f'<main><h1>Trail kettle</h1><span class="price">£30.00</span>'
        f"<p>{_sentences('Kettle', 2)}</p>{sheet}</main>"
    )
    result = extract(_page(body, PRODUCT_HEAD), url=KETTLE_URL)
    assert "Sheet sentence number 2" in result.text


def test_a_page_served_in_a_modal_keeps_its_content() -> None:
    """A modal that holds every ``h1`` of the page is the page (a lightbox article)."""
    story = f"<h1>Harbour wall repaired</h1><p>{_sentences('Story', 5)}</p>"
    body = f'<div role="dialog" aria-modal="true"><article>{story}</article></div>'
    result = extract(_page(body), url="https://news.example/2025/harbour-wall")
    assert "Story sentence number 4" in result.text


def test_a_page_wrapped_in_a_form_keeps_its_content() -> None:
    """ASP.NET wraps every page in one form; a newsletter form stays chrome."""
    cards = "".join(
        f'<div class="tile"><a href="/item/{i}">Spare part number {i}</a>'
        f'<span class="tile-price">${20 + i}.95</span></div>'
        for i in range(9)
    )
    newsletter = '<form class="signup"><p>Get our parts newsletter every week.</p></form>'
    body = (
        f'<form id="aspnetForm"><h2>Parts</h2><p>9 results</p><div class="grid">{cards}</div>'
        f"</form>{newsletter}"
    )
    result = extract(_page(body), url="https://parts.example/shop/spares")
    assert result.metadata["page_type"] == "collection"
    for i in range(9):
        assert f"Spare part number {i}" in result.text
    assert "newsletter" not in result.text
