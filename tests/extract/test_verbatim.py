"""``not_verbatim``: the spans of extracted text a reader does not find on the page as written.

Extraction keeps text a reader opens (a closed accordion panel) and loses words a
reader sees (an inline element trafilatura drops by its class, screen-reader-only
words sanitising drops). A digest quotes extracted text, so each such span is listed
and never quoted; the rest of the text, list items and table cells included, is
found word for word in the page's reader text.
"""

from __future__ import annotations

from lxml import html as lxml_html

from sleuth.extract import extract
from sleuth.extract.sanitize import sanitize
from sleuth.extract.verbatim import blank, collapse, not_verbatim, reader_text

from .pages import article_with

PANEL = "The turbines are serviced from a crew vessel every six weeks in the calm summer months."
ACCORDION = f"""
<h2>Maintenance</h2>
<button aria-controls="faq-1" aria-expanded="false">How often are the turbines serviced?</button>
<div id="faq-1" style="display:none"><p>{PANEL}</p></div>
"""
# trafilatura drops an inline element by its class, mid-sentence
DROPPED = (
    'The cable to shore carries the power of <span class="social">the whole array</span> at '
    "66 kilovolts."
)
SEEN_AFTER = "Each of the cables was laid by a ship in a single pass."
READER_ONLY = (
    'The array was finished in 2023.<sup><span class="sr-only">Footnote</span>1</sup> '
    "Its builders were paid in stages."
)
LIST_AND_TABLE = """
<ul><li>A list item that a reader sees without its bullet, all of its words on the page.</li></ul>
<table><tr><th>Year</th><th>Output</th></tr>
<tr><td>2023</td><td>The first full year of output at the array, in gigawatt hours.</td></tr>
</table>
"""


def _short_page(snippet: str) -> str:
    """A page short enough that the whole visible page is its content."""
    return (
        "<html><body><main><h1>Tidal turbines</h1><p>A small array of tidal turbines "
        "produced almost twice the power its builders expected in its first year at sea.</p>"
        f"{snippet}<p>The operator now plans a second array of larger turbines in the same "
        "channel next year.</p></main></body></html>"
    )


def _unquotable(html: str) -> tuple[str, list[str]]:
    result = extract(html, output="text")
    spans = result.metadata["not_verbatim"]
    return result.text, [result.text[start:end] for start, end in spans]


def test_a_closed_panel_is_read_but_never_quotable() -> None:
    text, unquotable = _unquotable(_short_page(ACCORDION))
    assert PANEL in text  # a reader opens it: it is the page's content
    assert PANEL in unquotable  # but the page does not show it until then


def test_a_sentence_missing_an_inline_element_is_unquotable_and_its_neighbours_are_not() -> None:
    text, unquotable = _unquotable(article_with(f"<p>{DROPPED} {SEEN_AFTER}</p>"))
    assert "the power of at 66 kilovolts" in text  # what trafilatura leaves of it
    assert any("the power of at 66 kilovolts" in span for span in unquotable)
    assert not any(SEEN_AFTER in span for span in unquotable)


def test_words_on_either_side_of_reader_only_text_are_not_joined() -> None:
    text, unquotable = _unquotable(article_with(f"<p>{READER_ONLY}</p>"))
    joined = next(line for line in text.split("\n") if "finished in 2023" in line)
    assert "Footnote" not in joined
    assert any("2023." in span for span in unquotable)  # "2023.1 Its" is not on the page


def test_list_items_table_cells_and_clean_pages_are_quotable() -> None:
    text, unquotable = _unquotable(article_with(LIST_AND_TABLE))
    assert "- A list item that a reader sees" in text
    assert " | " in text
    assert unquotable == []


def test_only_plain_text_carries_the_spans() -> None:
    html = _short_page(ACCORDION)
    assert "not_verbatim" not in extract(html, output="markdown").metadata
    assert "not_verbatim" not in extract(html, output="html").metadata


def test_the_reader_text_has_a_barrier_where_something_hidden_stood() -> None:
    # hidden="until-found" is shown once a search finds it: sanitising keeps it, and
    # names it to the reader text, where it is a barrier too.
    root = lxml_html.document_fromstring(
        '<html><body><p>left <span style="position:absolute;left:-9999px">gone</span>'
        'right</p><div style="display:none">shut</div><p>after</p>'
        '<div hidden="until-found">Found by a search.</div></body></html>'
    )
    reader = sanitize(root, reader=True).reader
    assert reader is not None
    assert "left right" not in reader
    assert "leftright" not in reader
    assert "shut" not in reader
    assert "after" in reader
    assert "Found by a search" not in reader
    assert "Found by a search." in root.text_content()
    assert root.find(".//sleuth-gap") is None  # no trace of the gaps in the tree


def test_a_cut_between_two_sentences_the_page_does_not_show_together() -> None:
    text = "First sentence is here. Second sentence follows."
    reader = "First sentence is here. Something else. Second sentence follows."
    spans = not_verbatim(text, reader)
    assert spans == [(len("First sentence is here."), len("First sentence is here. "))]
    assert blank(text, spans) == "First sentence is here.\nSecond sentence follows."


def test_blank_keeps_length_and_offsets() -> None:
    text = "keep this. drop that. keep too."
    blanked = blank(text, [[11, 21]])
    assert len(blanked) == len(text)
    assert blanked[:11] == text[:11]
    assert blanked[21:] == text[21:]
    assert blanked[11:21] == "\n" * 10


def test_collapse_folds_spacing_and_keeps_what_inner_text_keeps() -> None:
    assert collapse(" a\u00a0 b\n\tc ") == "a b c"
    assert collapse("US \u00adforces") == "US \u00adforces"  # innerText has the soft hyphen
    assert reader_text(lxml_html.document_fromstring("<p>a</p><p>b</p>")) == "a b"


def test_an_icon_does_not_cut_a_sentence_but_drawn_text_does() -> None:
    icon = '<svg viewBox="0 0 8 8"><title>arrow</title><path d="M0 0h8"/></svg>'
    drawn = '<svg viewBox="0 0 8 8"><text x="0" y="8">42</text></svg>'
    for inline, joined in ((icon, True), (drawn, False)):
        root = lxml_html.document_fromstring(
            f"<html><body><p>Press {inline}start</p></body></html>"
        )
        reader = sanitize(root, reader=True).reader
        assert reader is not None
        assert ("Press start" in reader) is joined


def test_a_sentence_the_page_writes_with_an_invisible_character_is_not_quotable() -> None:
    text, unquotable = _unquotable(
        _short_page(
            "<p>The pilot was handed over to US \u00adforces in the south. It flew again.</p>"
        )
    )
    assert "handed over to US forces" in text  # the soft hyphen is not in extracted text
    assert "The pilot was handed over to US forces in the south." in unquotable
    assert "It flew again." not in " ".join(unquotable)


def test_a_drop_cap_opening_a_paragraph_is_a_barrier() -> None:
    text, unquotable = _unquotable(
        _short_page(
            '<p><span class="drop">A</span>dam Schiff opened the hearing at nine. The '
            "committee sat until dusk.</p>"
        )
    )
    assert "Adam Schiff opened the hearing at nine." in text
    assert "Adam Schiff opened the hearing at nine." in unquotable
    assert "The committee sat until dusk." not in " ".join(unquotable)


def test_reading_leaves_the_page_as_it_was() -> None:
    # Barriers are renamed for the transform and named back after it.
    page = (
        '<html><body><p><span class="drop">A</span>dam spoke.</p>'
        '<div hidden="until-found">Found in page.</div>'
        '<section id="panel">A closed panel.</section><p>After.</p></body></html>'
    )
    root = lxml_html.document_fromstring(page)
    before = lxml_html.tostring(root)
    reader = reader_text(root, closed=root.xpath("//section"))
    assert "Found in page" not in reader
    assert "A closed panel" not in reader
    assert "After." in reader
    assert lxml_html.tostring(root) == before
