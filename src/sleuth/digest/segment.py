"""Cutting page text into sentences and passages without losing offsets.

Every span is a ``(start, end)`` pair into the original string, so whatever is
later quoted can be checked against the page character for character. A
passage never leaves one *unit*: a line without its list bullet, or one table
cell, so a quote is also text a reader finds on the rendered page.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from sleuth.extract.serialize import CELL_SEPARATOR

Span = tuple[int, int]

# A sentence ends at . ! ? (plus closing quotes or brackets) before whitespace, or at
# CJK full stops, which need no whitespace after them.
_LATIN_END = re.compile(r"[.!?]+[\"'”’)\]]*(?=\s)")
_CJK_END = re.compile(r"[。！？]+[」』”’）]*")
_LINE = re.compile(r"[^\n]+")
_NEWLINE = re.compile(r"\n")
# A list item's bullet at a line start, as extraction writes it (or a plain-text page does).
_BULLET = re.compile(r"[ \t]*[-*+\u2022\u25aa\u25cf\u25e6][ \t]+")
# Where extraction left marks that are not on the page: ``^`` before a superscript, and
# brackets emptied of a reference link. A unit ends there (each side is found verbatim).
# Sentence punctuation with a capitalised word glued to it ("platforms?Google") is
# where extraction ran two blocks together; the page shows a break there.
_BREAK = re.compile(r"\^|\[[\s,\u2013-]*\]|\(\s*\)|(?<=[^\W_][.?!:;])(?=[A-Z][a-z])")
_ABBREVIATION_LIST = (
    "e.g i.e etc vs cf al approx fig no nos dr mr mrs ms prof jr sr st inc ltd co corp dept "
    "est min max vol ed eds p pp ch sec u.s u.k"
)
_ABBREVIATIONS = frozenset(_ABBREVIATION_LIST.split())


def _strip(text: str, start: int, end: int) -> Span:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def _is_boundary(text: str, dot: int, after: int, end: int) -> bool:
    """Whether the punctuation at ``dot`` really ends a sentence."""
    nxt = after
    while nxt < end and text[nxt].isspace():
        nxt += 1
    if nxt < end and text[nxt].islower():
        return False
    if text[dot] != ".":
        return True
    word_start = dot
    while word_start > 0 and not text[word_start - 1].isspace():
        word_start -= 1
    word = text[word_start:dot].lower().lstrip("(\"'“‘[")
    return not (word in _ABBREVIATIONS or (len(word) == 1 and word.isalpha()))


def sentence_spans(text: str, start: int = 0, end: int | None = None) -> list[Span]:
    """Sentences of ``text[start:end]``, whitespace trimmed, in order; a line break ends one."""
    end = len(text) if end is None else end
    cuts: list[int] = []
    for match in _LATIN_END.finditer(text, start, end):
        if _is_boundary(text, match.start(), match.end(), end):
            cuts.append(match.end())
    cuts.extend(match.end() for match in _CJK_END.finditer(text, start, end))
    cuts.extend(match.start() for match in _NEWLINE.finditer(text, start, end))
    spans: list[Span] = []
    previous = start
    for cut in sorted(set(cuts)):
        span = _strip(text, previous, cut)
        if span[0] < span[1]:
            spans.append(span)
        previous = cut
    tail = _strip(text, previous, end)
    if tail[0] < tail[1]:
        spans.append(tail)
    return spans


def _word_cut(text: str, start: int, limit: int) -> int:
    """The last whitespace at or before ``limit`` (so no word is cut), else ``limit``."""
    cut = text.rfind(" ", start + 1, limit + 1)
    return cut if cut > start else limit


def pack_sentences(text: str, start: int, end: int, max_chars: int) -> list[Span]:
    """Consecutive sentences grouped into spans of at most ``max_chars``."""
    chunks: list[Span] = []
    chunk_start: int | None = None
    chunk_end = start
    for sentence_start, s_end in sentence_spans(text, start, end):
        if chunk_start is not None and s_end - chunk_start > max_chars:
            chunks.append((chunk_start, chunk_end))
            chunk_start = None
        s_start = sentence_start
        while s_end - s_start > max_chars:  # one sentence longer than the cap
            cut = _word_cut(text, s_start, s_start + max_chars)
            chunks.append(_strip(text, s_start, cut))
            s_start = _strip(text, cut, s_end)[0]
        if chunk_start is None:
            chunk_start = s_start
        chunk_end = s_end
    if chunk_start is not None:
        chunks.append((chunk_start, chunk_end))
    return [span for span in chunks if span[0] < span[1]]


def units(text: str, start: int = 0, end: int | None = None) -> list[Span]:
    """The pieces of ``text[start:end]`` a reader sees as text, each within one line.

    Extracted text marks a list item with a leading ``- `` and separates table
    cells with `` | ``; neither is on the page. A unit is a line without its
    bullet, or one cell of a row (cut again at a superscript's ``^``, a
    reference's emptied brackets, or where a sentence mark has the next
    block's first word glued to it), so a span inside a unit is found
    verbatim in the page's visible text.
    """
    found: list[Span] = []
    for match in _LINE.finditer(text, start, len(text) if end is None else end):
        line_start, line_end = match.start(), match.end()
        bullet = _BULLET.match(text, line_start, line_end)
        position = bullet.end() if bullet else line_start
        while True:
            cut = text.find(CELL_SEPARATOR, position, line_end)
            cell_end = line_end if cut < 0 else cut
            for mark in _BREAK.finditer(text, position, cell_end):
                found.append(_strip(text, position, mark.start()))
                position = mark.end()
            found.append(_strip(text, position, cell_end))
            if cut < 0:
                break
            position = cut + len(CELL_SEPARATOR)
    return [span for span in found if span[0] < span[1]]


def passages(
    text: str, start: int = 0, end: int | None = None, *, max_chars: int = 600, min_chars: int = 40
) -> list[Span]:
    """Paragraph-sized spans of ``text[start:end]`` worth ranking, each inside one unit.

    A unit shorter than ``min_chars`` (a heading, a menu entry, a short cell)
    is no finding, and units are never joined: two lines next to each other
    in the extracted text need not be next to each other on the page, and
    joining them is how a heading ends up glued to the paragraph after it.
    A long unit is cut between sentences.
    """
    spans: list[Span] = []
    for unit_start, unit_end in units(text, start, end):
        if unit_end - unit_start < min_chars:
            continue
        if unit_end - unit_start <= max_chars:
            spans.append((unit_start, unit_end))
        else:
            spans.extend(pack_sentences(text, unit_start, unit_end, max_chars))
    return spans


def lowercase(text: str) -> str:
    """``text.lower()`` with the same length, so offsets stay valid.

    U+0130 (dotted capital I) is the one character whose lowercase is two.
    """
    return text.replace("\u0130", "i").lower()


def _lines_with(lowered: str, needles: Iterable[str]) -> list[int]:
    """Start offsets of the lines containing any needle, in order."""
    starts: set[int] = set()
    for needle in needles:
        position = lowered.find(needle)
        while position >= 0:
            starts.add(lowered.rfind("\n", 0, position) + 1)
            line_end = lowered.find("\n", position)
            position = lowered.find(needle, line_end) if line_end >= 0 else -1
    return sorted(starts)


def matching_passages(
    text: str, needles: Iterable[str], *, max_chars: int = 600, min_chars: int = 40
) -> list[Span]:
    """The passages of ``text`` (exactly as :func:`passages` cuts them) containing a needle.

    Needles are lowercase substrings. Only the lines containing them are
    segmented, so a page of megabytes costs a few C-speed scans plus the work
    on the paragraphs that matter.
    """
    needles = [n for n in dict.fromkeys(needles) if n]
    lowered = lowercase(text)
    spans: list[Span] = []
    for line_start in _lines_with(lowered, needles):
        end = text.find("\n", line_start)
        end = len(text) if end < 0 else end
        spans.extend(
            (s, e)
            for s, e in passages(text, line_start, end, max_chars=max_chars, min_chars=min_chars)
            if any(n in lowered[s:e] for n in needles)
        )
    return spans
