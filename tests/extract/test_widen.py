"""A precision answer that kept a sliver of a long page gives way to trafilatura's
whole cascade (issue 12): a listicle whose first entry was all that precision mode
kept. The wider answer must hold the narrow one and must not be a list of teasers."""

from __future__ import annotations

from lxml import etree

from sleuth.extract.content import Content, _widened
from sleuth.extract.parse import parse_html
from sleuth.extract.sanitize import sanitize


def _sentences(index: int, count: int) -> str:
    return " ".join(
        f"Entry {index} sentence {n} tells the reader how this tool earns its place."
        for n in range(count)
    )


def _entry(index: int, teaser: bool) -> str:
    text = _sentences(index, 2)[:-1] + "…" if teaser else _sentences(index, 8)
    return f"<h2>Tool {index}</h2><p>{text}</p>"


def _page(teaser: bool = False) -> etree._Element:
    # the sliver below is well under a fifth of either page's text
    entries = "".join(_entry(index, teaser) for index in range(1, 41 if teaser else 13))
    html = (
        "<html><head><title>Twelve tools</title></head><body>"
        '<nav><a href="/">Home</a> <a href="/tools">Tools</a></nav>'
        f"<article><h1>Twelve tools for the workshop</h1>{_entry(0, False)}{entries}</article>"
        "<footer><p>Copyright Acme Ltd.</p></footer></body></html>"
    )
    root = parse_html(html)
    assert root is not None
    sanitize(root)
    return root


def _sliver(text: str, method: str = "trafilatura") -> Content:
    """What precision mode kept: one paragraph."""
    root = etree.Element("div")
    etree.SubElement(root, "p").text = text
    return Content(root, method)


FIRST = _sentences(0, 8)  # the page's first entry, in full


def test_a_sliver_of_the_page_gives_way_to_the_whole_cascade() -> None:
    widened = _widened(_page(), _sliver(FIRST))
    text = "".join(widened.root.itertext())
    assert widened.method == "trafilatura"
    assert "Entry 12 sentence 7" in text
    assert "Entry 0 sentence 0" in text


def test_teasers_do_not_replace_the_answer() -> None:
    sliver = _sliver(FIRST)
    assert _widened(_page(teaser=True), sliver) is sliver


def test_a_wider_answer_that_lacks_the_narrow_one_is_refused() -> None:
    elsewhere = _sliver(
        " ".join(f"A sidebar line {n} about something else entirely today." for n in range(8))
    )
    assert _widened(_page(), elsewhere) is elsewhere


def test_the_density_pass_and_the_page_content_are_not_second_guessed() -> None:
    for method in ("density", "page"):
        sliver = _sliver(FIRST, method)
        assert _widened(_page(), sliver) is sliver
