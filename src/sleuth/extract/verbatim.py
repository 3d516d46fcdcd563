"""Which parts of the extracted text a reader finds word for word on the page.

A digest quotes extracted text and promises that the quote is on the page. But
extraction is not a copy of what the page shows. trafilatura drops an inline
element mid-sentence ("a digital plan" where the page says "a digital marketing
plan"), sanitising drops words no one can see from between two that are seen
(a screen-reader-only "Footnote" before a footnote mark), and sleuth reads a closed
accordion panel that the page shows only after a click.

So the sanitised page leaves behind its *reader text*, the body's text as a browser
shows it (``innerText``, whitespace collapsed), where everything a reader does not
see at once is a barrier that no match crosses. Each piece of the extracted text (a
line without its list bullet, a table cell) is looked up there; a piece that is not
found is tried sentence by sentence, and sentences found one by one but not together
are split apart. What is left is listed as ``not_verbatim`` spans, which the digest
never quotes. Extraction itself keeps them: the text of a closed panel is still the
page's content.
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterable, Sequence
from functools import lru_cache
from itertools import chain

from lxml import etree

from sleuth.extract.breaks import BLOCKS
from sleuth.extract.dom import XML_SPACE, elements
from sleuth.extract.serialize import CELL_SEPARATOR

# Stands where sanitising cut out an element: its place is a barrier in the reader text.
GAP = "sleuth-gap"
# Not whitespace and never in extracted text, so no looked-up piece contains it.
_BARRIER = "\x00"
_LINE_RE = re.compile(r"[^\n]+")
_BULLET_RE = re.compile(r"[ \t]*(?:- )?")
# A sentence ends at . ! ? : ; (with closing quotes or brackets) before whitespace.
_SENTENCE_END_RE = re.compile(r"[.!?:;\u2026][\"'\u201d\u2019)\]]*(\s+)")

Span = tuple[int, int]


def collapse(text: str) -> str:
    """One space for each run of whitespace, as a comparison with ``innerText`` does.

    Invisible characters stay: ``innerText`` keeps a soft hyphen or a zero-width space,
    and extracted text never has one, so a sentence that holds one on the page is not
    found, and not quoted.
    """
    return " ".join(text.split())


# Text shown only after the reader acts, or never, is a barrier in the reader text:
# gaps, closed panels, a closed <details>, find-in-page content and form controls. The
# text is read by XSLT (a C-speed walk); a private-use character stands for a barrier
# in its output, and is taken for one wherever the page itself uses it (an icon font's
# glyph), which can only make less text quotable.
_XSLT_BARRIER = "\ue000"


@lru_cache(maxsize=1)
def _reading() -> etree.XSLT:
    blocks = "|".join(sorted(BLOCKS))
    return etree.XSLT(
        etree.XML(
            f"""<xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform">
<xsl:output method="text" encoding="UTF-8"/>
<xsl:template match="/"><xsl:choose>
<xsl:when test="/html/body"><xsl:apply-templates select="/html/body"/></xsl:when>
<xsl:otherwise><xsl:apply-templates/></xsl:otherwise></xsl:choose></xsl:template>
<xsl:template match="{GAP}|{_BARRIER_TAG}|select|datalist|textarea|details[not(@open)]"
>&#xE000;</xsl:template>
<xsl:template match="{blocks}">
<xsl:text> </xsl:text><xsl:apply-templates/><xsl:text> </xsl:text></xsl:template>
</xsl:stylesheet>"""
        )
    )


# Barriers that any element can be: a closed panel and find-in-page content (sanitising
# names both), a drop cap. They are renamed for the transform, because a pattern that is
# not a name (``*[...]``) is tried on every element and costs four times the whole walk.
_BARRIER_TAG = "sleuth-barrier"
_FOUND_IN_PAGE = etree.XPath("//@hidden[. = 'until-found']/..")
_CAPITALS = frozenset(string.ascii_uppercase)
_OPENS_ITS_BLOCK = etree.XPath("not(preceding-sibling::node()[normalize-space()])")


def _drop_caps(root: etree._Element) -> list[etree._Element]:
    """Drop caps: one capital letter that opens its block in an element of its own
    (``<span class="drop">A</span>dam``). A style sheet floats it, and ``innerText``
    then breaks the word ("A dam"), or leaves it inline ("Adam"): which, only the style
    sheet knows, so no quote crosses it. One walk reading each element's text costs
    less than asking XPath for every text node's length without its spaces."""
    found: list[etree._Element] = []
    for element in root.iter(etree.Element):
        text = element.text
        if text is not None and not len(element):
            letter = text.strip(XML_SPACE)
            if len(letter) == 1 and letter in _CAPITALS and _OPENS_ITS_BLOCK(element):
                found.append(element)
    return found


def reader_text(
    root: etree._Element,
    closed: Iterable[etree._Element] = (),
    found_in_page: Iterable[etree._Element] | None = None,
) -> str:
    """The body's text as shown, with barriers, whitespace collapsed. ``closed`` are the
    closed panels a reader can open, ``found_in_page`` the elements shown only when a
    search finds them (looked for when not given)."""
    if found_in_page is None:
        found_in_page = elements(_FOUND_IN_PAGE, root)
    barriers = list(dict.fromkeys(chain(closed, found_in_page, _drop_caps(root))))
    tags = [element.tag for element in barriers]
    for element in barriers:
        element.tag = _BARRIER_TAG
    try:
        shown = str(_reading()(root))
    finally:
        for element, tag in zip(barriers, tags, strict=True):
            element.tag = tag
    return collapse(shown.replace(_XSLT_BARRIER, _BARRIER))


def unmark(root: etree._Element) -> None:
    """Take out the gaps sanitising left for :func:`reader_text`."""
    etree.strip_elements(root, GAP, with_tail=False)


class _Finder:
    """Looks pieces up in the reader text, from where the last one was found first:
    extracted text mostly follows the page's order, so most lookups scan a little."""

    def __init__(self, reader: str) -> None:
        self.reader = reader
        self.position = 0

    def found(self, piece: str) -> bool:
        key = collapse(piece)
        if not key:
            return True
        at = self.reader.find(key, self.position)
        if at < 0:
            at = self.reader.find(key, 0, self.position + len(key))
        if at < 0:
            return False
        self.position = at + len(key)
        return True


def _sentences(text: str, start: int, end: int) -> list[Span]:
    spans: list[Span] = []
    previous = start
    for match in _SENTENCE_END_RE.finditer(text, start, end):
        spans.append((previous, match.start(1)))
        previous = match.end()
    if previous < end:
        spans.append((previous, end))
    return [(s, e) for s, e in spans if s < e]


def _pieces(text: str) -> list[Span]:
    """Lines without their list bullet, cut at table cells: each is shown as one run."""
    pieces: list[Span] = []
    for line in _LINE_RE.finditer(text):
        position = _BULLET_RE.match(text, line.start(), line.end())
        start = position.end() if position else line.start()
        while True:
            cut = text.find(CELL_SEPARATOR, start, line.end())
            end = line.end() if cut < 0 else cut
            pieces.append((start, end))
            if cut < 0:
                break
            start = cut + len(CELL_SEPARATOR)
    return pieces


def not_verbatim(text: str, reader: str) -> list[Span]:
    """Spans of ``text`` a reader does not find word for word in ``reader``: sentences
    not on the page, and the space between two sentences the page does not show side
    by side (a quote must not cross it)."""
    finder = _Finder(reader)
    spans: list[Span] = []
    for start, end in _pieces(text):
        if finder.found(text[start:end]):
            continue
        sentences = _sentences(text, start, end)
        index = 0
        while index < len(sentences):
            first_start, first_end = sentences[index]
            if not finder.found(text[first_start:first_end]):
                spans.append((first_start, first_end))
                index += 1
                continue
            last = index + 1
            while last < len(sentences) and finder.found(text[first_start : sentences[last][1]]):
                last += 1
            if last < len(sentences):
                spans.append((sentences[last - 1][1], sentences[last][0]))
            index = last
    return spans


def blank(text: str, spans: Iterable[Sequence[int]]) -> str:
    """``text`` with each span turned into line breaks: same length, so offsets hold,
    and nothing that reads ``text`` by lines joins across a span."""
    ordered = sorted((int(s), int(e)) for s, e in spans)
    if not ordered:
        return text
    parts: list[str] = []
    previous = 0
    for first, last in ordered:
        start, end = max(first, previous), min(last, len(text))
        if start >= end:
            continue
        parts.append(text[previous:start])
        parts.append("\n" * (end - start))
        previous = end
    parts.append(text[previous:])
    return "".join(parts)
