"""Headings at the edges of the main content (``extract.tidy``)."""

from __future__ import annotations

from lxml import html as lxml_html

from sleuth.extract.dom import text_of
from sleuth.extract.tidy import tidy

BODY = "<p>The harbour wall reopens on Monday after a year of repairs to its stones.</p>"


def _tidied(source: str, references: list[str] | None = None, *, items: bool = False) -> str:
    content = lxml_html.fragment_fromstring(f"<div>{source}</div>")
    tidy(content, references or [], items=items)
    return text_of(content)


def test_opening_heading_that_restates_the_title_is_dropped() -> None:
    text = _tidied(f"<h1>Harbour wall reopens</h1>{BODY}", ["Harbour wall reopens - Leith News"])
    assert not text.startswith("Harbour wall reopens")
    assert "after a year of repairs" in text


def test_opening_heading_that_says_something_else_stays() -> None:
    text = _tidied(f"<h1>Repairs finished</h1>{BODY}", ["Harbour wall reopens"])
    assert text.startswith("Repairs finished")


def test_trailing_heading_and_the_section_heading_over_it_are_dropped() -> None:
    text = _tidied(f"<h2>Works</h2>{BODY}<h2>Newsletter</h2><h3>Sign up for updates</h3>")
    assert text.endswith("repairs to its stones.")
    assert text.startswith("Works")


def test_a_teaser_list_ending_an_article_is_dropped() -> None:
    teasers = "".join(f'<li><a href="/{n}"><h3>{n} reopens</h3></a></li>' for n in ("Pier", "Dock"))
    text = _tidied(f"<h2>Works</h2>{BODY}<h2>More news</h2><ul>{teasers}</ul>")
    assert text.endswith("repairs to its stones.")


def test_a_run_of_card_titles_ending_a_list_of_items_loses_only_its_last() -> None:
    cards = "".join(
        f'<div class="card"><a href="/{n}"><h3>{n} candles</h3></a></div>'
        for n in ("Beeswax", "Soy", "Tallow", "Paraffin")
    )
    text = _tidied(f"<h2>Candles</h2>{BODY}{cards}", items=True)
    for name in ("Beeswax", "Soy", "Tallow"):
        assert f"{name} candles" in text
