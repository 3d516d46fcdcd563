"""Hygiene for everything a model returns: HTML out, hidden text out, invisible characters out.

The model read web pages; whatever it repeats may carry markup or smuggled characters
meant for the person reading the confirmation. Its strings go through the same
sanitiser as fetched pages before anyone sees them.
"""

from __future__ import annotations

import re

from sleuth.extract.dom import text_of
from sleuth.extract.parse import parse_html
from sleuth.extract.sanitize import sanitize
from sleuth.extract.text import clean_line

_MARKUP = re.compile(r"<[A-Za-z!/?]|&[#A-Za-z0-9]+;")
MAX_FIELD = 500
_BLOCKS = ("p", "div", "li", "br", "tr", "td", "th", "h1", "h2", "h3", "h4", "h5", "h6", "pre")


def plain_text(value: str, limit: int = MAX_FIELD) -> str:
    """``value`` as a reader would see it rendered: tags, scripts, hidden elements and
    invisible characters removed, whitespace collapsed, at most ``limit`` characters."""
    text = value
    if _MARKUP.search(text):
        root = parse_html(f"<html><body><div>{text}</div></body></html>")
        if root is not None:
            sanitize(root)
            for element in root.iter(*_BLOCKS):  # blocks are separate words once rendered
                element.tail = " " + (element.tail or "")
            text = text_of(root)
    text = clean_line(text)
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"
