"""Tidy the edges of the main content: headings that add nothing to the text.

The first heading often restates the title (already in ``Extraction.title``) and the
second the summary (``metadata["description"]``); headings at the very end head
nothing (a newsletter box, an article's teaser list). Both only cost the reader
tokens. Where the content is a list of items (a collection, a listing), a run of
headings of one level that ends the text is the items' titles (cards that are only
their titles): there only the last heading of the run is dropped, and a higher one
above it that only it follows.
"""

from __future__ import annotations

import re

from lxml import etree

from sleuth.extract.dom import remove, text_of
from sleuth.extract.serialize import HEADINGS

_WORD_RE = re.compile(r"\w+")


def _words(text: str) -> list[str]:
    return _WORD_RE.findall(text.casefold())


def _restates(words: list[str], reference: list[str]) -> bool:
    """Same words, or most of a longer title ("Opinion | Headline", "Headline - Site")."""
    if not words or not reference:
        return False
    if words == reference:
        return True
    size = len(words)
    if size < 0.6 * len(reference):
        return False
    return any(reference[i : i + size] == words for i in range(len(reference) - size + 1))


def _drop_restated_headings(content: etree._Element, references: list[str]) -> None:
    """Drop the headings that open the text when they restate a reference text."""
    reference_words = [_words(reference) for reference in references if reference]
    for element in list(content.iterdescendants()):
        if any(ancestor.tag in HEADINGS for ancestor in element.iterancestors()):
            continue  # inside a heading already judged
        if element.tag in HEADINGS:
            words = _words(text_of(element))
            if not any(_restates(words, reference) for reference in reference_words):
                return
            remove(element)
        elif (element.text or "").strip() or (element.tail or "").strip():
            return


def _last_text_holder(content: etree._Element) -> etree._Element | None:
    """The element whose text (or tail, i.e. its parent's text) ends the content."""
    for element in reversed(list(content.iter())):
        if (element.tail or "").strip():
            return element.getparent()
        if (element.text or "").strip():
            return element
    return None


def _drop_trailing_headings(content: etree._Element, *, keep_runs: bool) -> None:
    """Drop the headings that end the text; with ``keep_runs``, stop at a heading no
    higher than the one dropped before it."""
    level = len(HEADINGS) + 1
    while (holder := _last_text_holder(content)) is not None:
        heading = next((e for e in (holder, *holder.iterancestors()) if e.tag in HEADINGS), None)
        if heading is None or (keep_runs and int(heading.tag[1]) >= level):
            return
        level = int(heading.tag[1])
        remove(heading)


def tidy(content: etree._Element, references: list[str], *, items: bool = False) -> None:
    """Drop opening headings that restate ``references`` and headings that end the text;
    ``items`` says the content is a list of items, whose titles may end it."""
    _drop_restated_headings(content, references)
    _drop_trailing_headings(content, keep_runs=items)
