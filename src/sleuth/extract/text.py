"""Character-level hygiene for any text sleuth hands on.

Zero-width, bidi-control, filler, variation-selector and tag characters are invisible
to a reader but not to a model, so they are a favourite carrier for smuggled
instructions (a run of variation selectors after an emoji can spell out a whole
sentence, one byte each); they are removed from every string that leaves the
extractor. Emoji lose their presentation selector, which a model does not need.
"""

from __future__ import annotations

import re
from typing import Any

_INVISIBLE = (
    "\u00ad"  # soft hyphen
    "\u034f"  # combining grapheme joiner
    "\u061c"  # Arabic letter mark
    "\u115f\u1160"  # Hangul choseong and jungseong fillers
    "\u17b4\u17b5"  # Khmer inherent vowels
    "\u180b-\u180f"  # Mongolian variation selectors and vowel separator
    "\u200b-\u200f"  # zero-width space/joiners, LRM, RLM
    "\u202a-\u202e"  # bidi embeddings and overrides
    "\u2060-\u2064"  # word joiner, invisible operators
    "\u2066-\u206f"  # bidi isolates, deprecated format controls
    "\u3164"  # Hangul filler
    "\ufe00-\ufe0f"  # variation selectors
    "\ufeff"  # zero-width no-break space / BOM
    "\uffa0"  # halfwidth Hangul filler
    "\ufff9-\ufffb"  # interlinear annotation controls
    "\U0001d173-\U0001d17a"  # musical symbol format controls
    "\U000e0000-\U000e007f"  # tag characters (ASCII smuggling)
    "\U000e0100-\U000e01ef"  # variation selectors supplement
)
_INVISIBLE_RE = re.compile(f"[{_INVISIBLE}]+")
_HSPACE_RE = re.compile(r"[^\S\n]+")
_BLANK_RUN_RE = re.compile(r"\n{3,}")


def strip_invisible(text: str) -> str:
    return _INVISIBLE_RE.sub("", text)


def clean_line(text: str) -> str:
    """Invisible characters out, runs of spaces and tabs collapsed, ends trimmed."""
    return _HSPACE_RE.sub(" ", _INVISIBLE_RE.sub("", text)).strip()


def squeeze_blank_lines(text: str) -> str:
    """Runs of blank lines as one blank line (an author's paragraphs, not their spacing)."""
    return _BLANK_RUN_RE.sub("\n\n", text)


def clean_plain(text: str) -> str:
    """Plain-text documents: keep the author's lines, squeeze blank runs to one blank line."""
    return squeeze_blank_lines("\n".join(clean_line(line) for line in text.splitlines())).strip()


def clean_value(value: Any) -> Any:
    """Recursively clean strings inside metadata (JSON-LD is page-controlled too)."""
    if isinstance(value, str):
        return clean_line(value)
    if isinstance(value, list):
        return [clean_value(item) for item in value]
    if isinstance(value, dict):
        return {strip_invisible(str(k)): clean_value(v) for k, v in value.items()}
    return value


# A sentence ends at one of these marks before a space or the end of the line.
_SENTENCE_END = re.compile(r"[.!?\u2026\u3002\uff01\uff1f](?:\s|$)")
_DESCRIPTION_CHARS = 200
_DESCRIPTION_SCAN = 20_000  # how much of a page's text is looked through for a sentence


def _unmarked(line: str) -> str:
    """A line of extracted text without its Markdown block marks (heading, quote, bullet)."""
    words = line.split()
    start = 0
    while start < len(words) and (not words[start].strip("#>") or words[start] in ("-", "*", "+")):
        start += 1
    return " ".join(words[start:])


def first_visible_sentence(text: str, title: str | None = None) -> str:
    """How llms.txt and ``crawl_site`` describe a page: the first sentence of its visible
    text (the first line when no line holds a sentence), the title's line skipped.

    Never the page's metadata: a ``<meta name="description">``, an ``og:description``
    or a PDF's ``/Subject`` is text no reader of the page sees, and what is handed to a
    model must be what a reader sees.
    """
    skip = " ".join((title or "").split()).casefold()
    first = ""
    for raw in text[:_DESCRIPTION_SCAN].split("\n"):
        line = _unmarked(raw)
        if not line or line.casefold() == skip:
            continue
        end = _SENTENCE_END.search(line)
        if end is not None:
            first = line[: end.start() + 1]
            break
        first = first or line
    if len(first) <= _DESCRIPTION_CHARS:
        return first
    return first[: _DESCRIPTION_CHARS - 1].rstrip() + "\u2026"
