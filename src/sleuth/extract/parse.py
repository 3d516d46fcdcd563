"""The one HTML parse of a page; every later stage works on this tree."""

from __future__ import annotations

import re
import threading

import lxml.html
from lxml import etree

_local = threading.local()
# Characters XML forbids: lxml reads them from HTML but refuses them when a later stage sets
# text again (moving a removed element's tail), so they go before parsing. Form feed and
# vertical tab are whitespace and stay so; the rest are invisible.
_NOT_XML = {
    **dict.fromkeys([*range(0x00, 0x09), *range(0x0E, 0x20), 0xFFFE, 0xFFFF]),
    0x0B: " ",
    0x0C: " ",
}
# str.translate walks every character in Python-level steps; a regex finds the rare page
# that needs it at C speed.
_NOT_XML_RE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _parser() -> lxml.html.HTMLParser:
    """One parser per thread: lxml parsers must not be shared across threads."""
    parser: lxml.html.HTMLParser | None = getattr(_local, "parser", None)
    if parser is None:
        # Comments and processing instructions never carry visible text: drop them while
        # parsing instead of walking the tree for them later.
        parser = lxml.html.HTMLParser(
            encoding="utf-8",
            remove_comments=True,
            remove_pis=True,
            collect_ids=False,
        )
        _local.parser = parser
    return parser


def parse_html(text: str) -> lxml.html.HtmlElement | None:
    """The ``<html>`` root, or None when there is no markup to speak of."""
    if not text.strip():
        return None
    if _NOT_XML_RE.search(text):
        text = text.translate(_NOT_XML)
    data = text.encode("utf-8", "replace")
    try:
        root = lxml.html.document_fromstring(data, parser=_parser())
    except (etree.ParserError, ValueError):
        return None
    return root
