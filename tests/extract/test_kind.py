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
