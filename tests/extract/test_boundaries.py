"""Text a reader sees: block boundaries, spaces around inline marks, references, ``<sup>``.

Plain text is what a reader sees on the page, so a quote taken from it is found in
the page's ``innerText``: two blocks never run together (``cars$5,000``), the
space before or after a bold word stays, a reference in brackets keeps its number,
and a superscript is not marked (``x2``, as shown; Markdown writes ``x^2``).
"""

from __future__ import annotations

import pytest
from lxml import etree
from lxml import html as lxml_html

from sleuth.extract import content, extract
from sleuth.extract.breaks import GUARD, MARK, breaks_from_marks, marked
from sleuth.extract.content import _ARTICLE, _CASCADE, _DISCUSSION, _PAGE, _PRODUCT, _trafilatura
from sleuth.extract.serialize import render

from .pages import article_with

# A card list of the kind comparison guides use: each fact is a <div> of its own,
# inside a list item that trafilatura flattens.
CARDS = """
<p>Our engineers compared the three kinds of drivetrain on cost, price and range over a year
of tests.</p>
<ul class="types">
  <li>
    <h4>Hybrid</h4>
    <div class="fact"><span class="value">About $500 less a year than a petrol car</span></div>
    <div class="fact"><span class="value">$1,000 to $3,000 more than the petrol version</span></div>
    <div class="fact"><span class="value">500 miles on a tank of petrol</span></div>
  </li>
  <li>
    <h4>Electric</h4>
    <div class="fact"><span class="value">About $1,300 less a year than petrol cars</span></div>
    <div class="fact"><span class="value">$5,000 to $15,000 more than a hybrid car</span></div>
    <div class="fact"><span class="value">200 to 400 miles between full charges</span></div>
  </li>
</ul>
"""


def _collapsed(text: str) -> str:
    return " ".join(text.split())


def test_blocks_inside_a_flattened_list_item_stay_apart() -> None:
    text = extract(article_with(CARDS)).text
    assert "cars$5,000" not in text
    assert "car$1,000" not in text
    for fact in (
        "About $1,300 less a year than petrol cars",
        "$5,000 to $15,000 more than a hybrid car",
        "200 to 400 miles between full charges",
    ):
        line = next(line for line in text.split("\n") if fact in line)
        assert line.strip().removeprefix("- ") == fact  # each fact on a line of its own


def test_a_block_inside_inline_content_is_on_lines_of_its_own() -> None:
    source = "<div><p>Price <span><div>$5,000</div><div>more</div></span> today</p></div>"
    text = render(lxml_html.fragment_fromstring(source), "text")
    assert text == "Price\n$5,000\nmore\ntoday"
    items = "<div><ul><li><div>About $1,300</div><div>$5,000 more</div></li></ul></div>"
    assert render(lxml_html.fragment_fromstring(items), "text") == "- About $1,300\n  $5,000 more"


def test_space_around_an_inline_mark_survives_extraction() -> None:
    page = article_with(
        '<div class="note"><strong>Tip</strong> When the tide turns, the turbines swing round '
        "on their mounts and keep generating in the other direction.</div>"
        "<p>The operator is aware of <a href='/guide'><b>The Marine Energy Guide</b></a> and "
        "says its figures agree with the guide's estimates for the channel.</p>"
    )
    text = _collapsed(extract(page).text)
    assert "Tip When the tide turns" in text
    assert "aware of The Marine Energy Guide and says" in text


def test_a_reference_in_brackets_keeps_its_number() -> None:
    page = article_with(
        "<p>Tidal streams are more predictable than wind or sunshine "
        '[<span class="footers"><a href="#ref11">11</a></span>], which lets the grid plan '
        'around them days ahead [<span class="footers"><a href="#ref12">12</a>-'
        '<a href="#ref14">14</a></span>].</p>'
    )
    text = extract(page).text
    assert "[]" not in text
    assert "sunshine [11], which lets the grid plan around them days ahead [12-14]." in text


def test_text_shows_a_superscript_as_a_reader_does() -> None:
    source = "<div><p>x<sup>2</sup> grows, 10<sup>6</sup> homes</p></div>"
    assert render(lxml_html.fragment_fromstring(source), "text") == "x2 grows, 106 homes"
    assert render(lxml_html.fragment_fromstring(source), "markdown") == "x^2 grows, 10^6 homes"


def test_marks_become_breaks_only_between_words() -> None:
    body = lxml_html.fragment_fromstring(
        f"<div><p>{MARK}cars{MARK}{MARK} {MARK}$5,000{MARK}</p>"
        f"<li>{MARK}one<br>{MARK}two{MARK}</li><pre>a = 1{MARK}\n{MARK}b = 2</pre></div>"
    )
    breaks_from_marks(body)
    assert etree.tostring(body, encoding="unicode", method="html") == (
        "<div><p>cars<br> $5,000</p><li>one<br>two</li><pre>a = 1\nb = 2</pre></div>"
    )


def test_a_run_of_marks_over_several_text_nodes_is_one_break() -> None:
    body = lxml_html.fragment_fromstring(
        f"<div><p>one{MARK}<em>{MARK}{MARK}</em> {MARK}two{MARK}<b>x{MARK}y</b>{MARK}</p>"
        f"<p><code>a{MARK}{GUARD}{MARK}b</code> c {GUARD}{MARK}</p><ul><li>{MARK}1{MARK}</li></ul>"
        "</div>"
    )
    breaks_from_marks(body)
    assert etree.tostring(body, encoding="unicode", method="html") == (
        "<div><p>one<br><em></em> two<br><b>x<br>y</b></p>"
        "<p><code>a\n\nb</code> c </p><ul><li>1</li></ul></div>"
    )


def test_a_page_cannot_forge_marks() -> None:
    page = article_with(f"<p>Turbine{MARK}blades are{MARK} reshaped each spring by the crew.</p>")
    root = lxml_html.document_fromstring(page)
    with marked(root):
        text = "".join(root.itertext())
    assert "Turbineblades are" in text  # the page's own mark characters are gone
    result = extract(page).text
    assert MARK not in result
    assert "Turbineblades are reshaped" in result


# Elements trafilatura deletes before it reads a page, with and without words, nested,
# side by side, first in their parent, with tails, and one holding the page's h1.
UNREAD = (
    "<div><nav>Home <a href='/'>News</a><nav>Sport</nav></nav> tail one"
    "<button><svg><path d='M0'/></svg></button> tail two <time>May 5</time><label>x</label>"
    " tail three<p>The turbine crew met again in the spring to plan the season's work.</p>"
    "<footer><div>Contact</div></footer>after the footer</div>"
    "<aside><h1>Spring work on the turbines</h1></aside><div><aside>Ad</aside>lead "
    "<aside><aside>inner</aside></aside> words<p>More of the story is written here.</p></div>"
)


_CARD = (
    "<p class='card-title'>"
    + "The crew reshapes the blades of each turbine in spring. " * 4
    + "</p>"
)
_PARAGRAPH = "<p>The turbine crew met again in the spring to plan the season's work ahead.</p>"
# Pages where what trafilatura does before and while it cleans decides its answer.
CLEANED_PAGES = {
    "unread elements": article_with(
        "<p>Turbine blades <b>are</b> reshaped each spring by the crew.</p>" + UNREAD
    ),
    # repeated paragraphs it drops as copies only if their marks match, which the
    # words in the footer after them decide
    "copies before a footer": "<html><body><article><h1>Blades</h1>"
    + _PARAGRAPH * 2
    + f"<div class='card'>{_CARD * 3}</div></article>"
    "<footer><label>Sign up</label> for news</footer></body></html>",
    # a page in one form: trafilatura keeps a form that holds most of the page
    "page in a form": "<html><body><h1>Blades</h1><form id='aspnetForm'>"
    + _PARAGRAPH * 3
    + "<input type='hidden' name='v' value='1'></form></body></html>",
    # a figure that holds a table is kept as a block of the page
    "figure with a table": "<html><body><article><h1>Blades</h1>"
    + _PARAGRAPH * 2
    + "<figure><table><tr><td>Blade length</td><td>60 metres</td></tr></table></figure>"
    "</article></body></html>",
    # an infinite-scroll container is dropped unless it holds the page's h1
    "h1 in an aside": "<html><body><div class='infinite-scroll'><aside><h1>Blades</h1></aside>"
    + _PARAGRAPH * 3
    + "</div></body></html>",
}


@pytest.mark.parametrize("name", CLEANED_PAGES)
def test_trafilatura_reads_a_page_without_what_it_cleans_as_it_reads_it_whole(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A precision read is given the page without what trafilatura's cleaning deletes
    # (so its copies and prunes are shorter): its answer must be what it gives for the
    # whole page, so a trafilatura that cleaned otherwise fails here.
    answers = []
    for cut in (True, False):
        if not cut:
            monkeypatch.setattr(content, "_cleaned", lambda element: False)
        answer = _trafilatura(lxml_html.document_fromstring(CLEANED_PAGES[name]), _ARTICLE)
        answers.append(etree.tostring(answer, encoding="unicode") if answer is not None else "")
    assert answers[0] == answers[1]
    assert "plan the season" in answers[0]


def test_trafilatura_reads_none_of_what_its_cleaning_means_to_delete() -> None:
    # trafilatura's cleaning loop stops short after an aside that holds an aside, and
    # leaves the later asides in; sleuth hands it the page without any of them.
    page = CLEANED_PAGES["copies before a footer"].replace(
        "</article>",
        "<aside><aside>Ad</aside></aside>"
        + _PARAGRAPH
        + "<aside><p>An aside that trafilatura's cleaning meant to delete, at length.</p>"
        "</aside></article>",
    )
    answer = _trafilatura(lxml_html.document_fromstring(page), _ARTICLE)
    assert answer is not None
    text = etree.tostring(answer, encoding="unicode")
    assert "plan the season" in text
    assert "meant to delete" not in text


def test_the_page_is_as_it_was_after_trafilatura_read_it_marked() -> None:
    # Marks are written into the page itself, not a copy: trafilatura must read a copy
    # (it prunes what it reads) and the marks must all be undone, whatever settings run.
    page = article_with(
        f"<p>Turbine{MARK}blades <b> are </b><span>[<a class='ref' id='r1'>12</a>]</span>"
        " reshaped each spring.</p><div><div>cars</div><div>$5,000</div></div>"
        "<ul class='comments'><li>One reply that goes on for a while here.</li></ul>"
        "<div id='comments'><p>A reader wrote a comment that is long enough.</p></div>"
        "<aside>Related stories</aside><table><tr><td>cell one</td><td>two</td></tr></table>"
        + UNREAD
    )
    for settings in (_ARTICLE, _DISCUSSION, _PAGE, _PRODUCT, _CASCADE):
        root = lxml_html.document_fromstring(page)
        before = etree.tostring(root, encoding="unicode")
        assert _trafilatura(root, settings) is not None
        assert etree.tostring(root, encoding="unicode") == before
