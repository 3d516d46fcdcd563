"""A plain article reads as one even when it declares nothing; a landing page does not."""

from __future__ import annotations

import pytest

from sleuth.extract import extract

PROSE = (
    "The harbour master logged every ship that entered the bay for forty years, and the "
    "ledgers now show how the trade routes shifted after the railway reached the coast."
)


def _page(body: str, head: str = "") -> str:
    return f"<html><head><title>Harbour</title>{head}</head><body>{body}</body></html>"


@pytest.mark.parametrize(
    ("head", "body"),
    [
        # a dated headline and paragraphs, no JSON-LD, no og:type, no /blog/ in the path
        ("", "<h1>Ledgers</h1><time datetime='2025-03-01'>1 March</time>" + f"<p>{PROSE}</p>" * 4),
        (
            '<meta property="article:published_time" content="2025-03-01">',
            "<h1>Ledgers</h1>" + f"<p>{PROSE}</p>" * 4,
        ),
        ("", "<article><h1>Ledgers</h1>" + f"<p>{PROSE}</p>" * 4 + "</article>"),
    ],
)
def test_a_plain_article_is_an_article(head: str, body: str) -> None:
    result = extract(_page(body, head), url="https://harbour.example/ledgers")
    assert result.metadata["page_type"] == "article"


def test_a_landing_page_of_short_blurbs_stays_a_service_page() -> None:
    blurbs = "".join(
        f"<section><h2>Plan {n}</h2><p>Fast, simple and secure storage.</p></section>"
        for n in range(4)
    )
    result = extract(_page(f"<h1>Storage for teams</h1>{blurbs}"), url="https://a.example/")
    assert result.metadata["page_type"] == "service"


def test_prose_without_a_date_or_an_article_element_is_not_called_an_article() -> None:
    result = extract(_page("<h1>About us</h1>" + f"<p>{PROSE}</p>" * 4), url="https://a.example/")
    assert result.metadata["page_type"] == "service"


def _news_index() -> str:
    entries = "".join(
        f"<div class='entry'><h3><a href='/news/item-{n}'>Harbour report {n}</a></h3>"
        f"<p>Entry {n}: {PROSE}</p></div>"
        for n in range(6)
    )
    head = '<meta property="og:type" content="article">'
    return _page(f"<h1>News</h1><div class='entries'>{entries}</div>", head)


@pytest.mark.parametrize("path", ["/news", "/about/news/", "/blog/"])
def test_a_sections_index_is_a_listing_that_keeps_every_entry(path: str) -> None:
    # a CMS writes og:type "article" on every page, its news index too
    result = extract(_news_index(), url=f"https://harbour.example{path}")
    assert result.metadata["page_type"] == "listing"
    for n in range(6):
        assert f"Entry {n}:" in result.text


def test_an_entry_below_a_section_stays_an_article() -> None:
    result = extract(_news_index(), url="https://harbour.example/news/harbour-report")
    assert result.metadata["page_type"] == "article"
