"""The one HTML parse of a page; every later stage works on this tree."""

from __future__ import annotations

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
# str.translate walks every character in Python-level steps, so only the rare page that
# holds one of them pays it; a substring search per character (memchr) finds that page
# three times faster than a regex character class.
_NOT_XML_CHARS = tuple(chr(code) for code in _NOT_XML)
_HTML_CLASSES = etree.ElementDefaultClassLookup(
    element=lxml.html.HtmlElement,
    comment=lxml.html.HtmlComment,
    pi=lxml.html.HtmlProcessingInstruction,
    entity=lxml.html.HtmlEntity,
)


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
        # lxml.html picks a class per element in Python (forms, inputs, labels get their
        # own); nothing here uses those, and a lookup in C spares a Python call for every
        # element that any stage, trafilatura's included, touches.
        parser.set_element_class_lookup(_HTML_CLASSES)
        _local.parser = parser
    return parser


def parse_html(text: str) -> lxml.html.HtmlElement | None:
    """The ``<html>`` root, or None when there is no markup to speak of."""
    if not text.strip():
        return None
    if any(char in text for char in _NOT_XML_CHARS):
        text = text.translate(_NOT_XML)
    data = text.encode("utf-8", "replace")
    try:
        root = lxml.html.document_fromstring(data, parser=_parser())
    except (etree.ParserError, ValueError):
        return None
    _adopt_strays(root)
    return root


def _adopt_strays(root: lxml.html.HtmlElement) -> None:
    """Move content that libxml2 left outside ``<body>`` into it, as a browser does.

    Markup after ``</body>`` or ``</html>`` (a template that closes the document early,
    a second document glued on) is painted as part of the page, but libxml2 hangs it on
    ``<html>``, or on a second ``<html>`` beside the first, where every later stage,
    looking in the body, would miss it.
    """
    body = root.find("body")
    if body is None:
        return
    position = 0  # strays before <body> open it, in their order
    for child in list(root):
        if child is body:
            position = -1
        elif _is_content(child):
            if position < 0:
                body.append(child)
            else:
                body.insert(position, child)
                position += 1
    for document in list(root.itersiblings()):
        parts = document if document.tag == "html" else [document]
        for part in list(parts):
            for child in list(part) if part.tag == "body" else [part]:
                if _is_content(child):
                    body.append(child)


def _is_content(element: etree._Element) -> bool:
    return isinstance(element.tag, str) and element.tag != "head"
