"""The one HTML parse of a page; every later stage works on this tree."""

from __future__ import annotations

import threading

import lxml.html
from lxml import etree

_local = threading.local()


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
    data = text.encode("utf-8", "replace")
    try:
        root = lxml.html.document_fromstring(data, parser=_parser())
    except (etree.ParserError, ValueError):
        return None
    return root
