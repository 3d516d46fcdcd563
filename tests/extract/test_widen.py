"""A precision answer that kept part of the body gives way to a wider one (issue 12):
the density pass's, when it holds the precision answer and more (an article split over
two blocks), and trafilatura's whole cascade, when the answer is a sliver of a long page
(a listicle whose first entry was all that precision mode kept). The wider answer must
hold the narrow one and must not be padded with teasers or copies; the cascade is not
asked when the density pass found as much as precision mode did."""

from __future__ import annotations

from lxml import etree

from sleuth.extract.content import _ARTICLE, Content, _article, _widened
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


def test_a_sliver_the_density_pass_agrees_with_is_not_widened() -> None:
    sliver = Content(_sliver(FIRST).root, "trafilatura", confirmed=True)
    assert _widened(_page(), sliver) is sliver


# -- the density pass's answer in place of part of the body ---------------------------
def _tip(part: int, teaser: bool = False) -> str:
    text = " ".join(
        f"Part {part} sentence {n} explains, with care and detail, how a tip is worked out."
        for n in range(3)
    )
    return f"<h2>Part {part}</h2><p>{text[:-1] + '…' if teaser else text}</p>"


_CAPTION = (
    "<figure><img src='room.jpg'><figcaption>The dining room at the Harbour Grill, where "
    "the staff share every tip at the end of the night.</figcaption></figure>"
)


def _split_article(later: str) -> etree._Element:
    """The lead in one block and the rest in a later section: precision mode keeps the
    lead alone."""
    lead = "".join(_tip(part) for part in range(3))
    html = (
        "<html><body><nav><a href='/'>Home</a></nav>"
        f"<div class='post'><h1>Tipping, explained</h1>{lead}</div>"
        f"<section class='blogbody'>{later}</section><footer><p>Acme Ltd.</p></footer>"
        "</body></html>"
    )
    root = parse_html(html)
    assert root is not None
    sanitize(root)
    return root


def _later_parts(**kwargs: bool) -> str:
    caption = _CAPTION if kwargs.get("captions") else ""
    teaser = kwargs.get("teasers", False)
    return "".join(f"<div class='rich-text'>{_tip(p, teaser)}{caption}</div>" for p in range(3, 9))


def test_the_density_answer_that_holds_the_precision_answer_replaces_it() -> None:
    content = _article(_split_article(_later_parts()), _ARTICLE)
    assert content is not None
    text = "".join(content.root.itertext())
    assert content.method == "density"
    assert "Part 0 sentence 0" in text
    assert "Part 8 sentence 2" in text


def test_a_density_answer_padded_with_copies_is_refused() -> None:
    content = _article(_split_article(_later_parts(captions=True)), _ARTICLE)
    assert content is not None
    text = "".join(content.root.itertext())
    assert content.method == "trafilatura"
    assert "Part 8" not in text


def test_a_density_answer_of_teasers_is_refused() -> None:
    content = _article(_split_article(_later_parts(teasers=True)), _ARTICLE)
    assert content is not None
    assert content.method == "trafilatura"


def test_an_answer_the_density_pass_matches_is_confirmed() -> None:
    whole = "".join(_tip(part) for part in range(3))
    links = "".join(
        f"<li><a href='/guide/{n}'>Another guide to dining out, number {n}</a></li>"
        for n in range(60)
    )
    root = parse_html(
        f"<html><body><article><h1>Tipping</h1>{whole}</article>"
        f"<footer><ul>{links}</ul></footer></body></html>"
    )
    assert root is not None
    sanitize(root)
    content = _article(root, _ARTICLE)
    assert content is not None
    assert content.method == "trafilatura"
    assert content.confirmed
