"""A URL a reader can follow to a quote: a text fragment on a web page, ``#page=N`` in a PDF."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from urllib.parse import quote as percent

# Quotes longer than this point with their first and last words (textStart,textEnd).
_SHORT = 80
_EDGE_WORDS = 5


def _encode(text: str) -> str:
    """A text directive's term: percent-encoded, with ``-``, ``,`` and ``&`` (its syntax)
    encoded too, as the WICG Text Fragments spec asks."""
    return percent(text, safe="").replace("-", "%2D")


def text_fragment(url: str, text: str) -> str:
    """``url#:~:text=…`` for ``text`` as the page writes it (whitespace collapsed)."""
    base = url.split("#", 1)[0]
    words = text.split()
    if len(" ".join(words)) <= _SHORT or len(words) <= 2 * _EDGE_WORDS:
        directive = _encode(" ".join(words))
    else:
        start = " ".join(words[:_EDGE_WORDS])
        end = " ".join(words[-_EDGE_WORDS:])
        directive = f"{_encode(start)},{_encode(end)}"
    return f"{base}#:~:text={directive}"


def page_of(page_offsets: Sequence[int], offset: int) -> int | None:
    """The page (from 1) of a document holding ``offset`` of its text; None for a web page."""
    return bisect_right(list(page_offsets), offset) or None if page_offsets else None


def locator(url: str, text: str, offset: int, page_offsets: Sequence[int]) -> str:
    number = page_of(page_offsets, offset)
    if number is not None:
        return f"{url.split('#', 1)[0]}#page={number}"
    return text_fragment(url, text)
