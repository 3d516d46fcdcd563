"""Keep a block boundary where trafilatura flattens blocks into one run of text.

A browser puts a line break between two blocks (``innerText``), whatever holds
them. trafilatura flattens blocks nested in inline content (a card's ``<div>``
lines inside a list item or a link, a ``<div>`` run stripped at its end) and trims
the whitespace between them, so ``<div>cars</div><div>$5,000</div>`` came out as
``cars$5,000``: words a reader never sees, and a quote nobody can find on the page.

trafilatura trims whitespace but keeps other characters, so before it runs, the
text on each side of every block boundary gets a private-use mark (only text that
already has words: an empty node never becomes text). In trafilatura's answer, a
mark between two runs of words becomes a ``<br>``, and a mark at the edge of a
block, next to a line break or beside another mark, goes away. In code, a mark is
a line break in the text.

Marking also keeps a bracketed reference ("attempts [11], which") whole:
trafilatura drops inline elements by their class ("footers", "meta"), which left
"attempts [], which", a sentence no reader sees. The brackets say it is text.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from itertools import accumulate
from typing import NamedTuple

from lxml import etree

from sleuth.extract.dom import itertext, remove, text_of

# A character of a private use plane (not whitespace to ``str.split``, no word
# character to a regex); occurrences on the page itself are removed first.
MARK = "\U000f0001"
# Guards the whitespace at either end of a text node: trafilatura trims the ends of
# the text around inline elements ("<b>Tip</b> When" came out as "TipWhen").
GUARD = "\U000f0002"
_MARKS_RE = re.compile(f"{MARK}+")
_CODE_MARKS_RE = re.compile(f"\n?{MARK}[{MARK}\n]*")
_MARKED = "data-sleuth-break"
BLOCKS = frozenset(
    (
        *("address", "article", "aside", "blockquote", "body", "caption", "center", "dd"),
        *("details", "dialog", "dir", "div", "dl", "dt", "fieldset", "figcaption", "figure"),
        *("footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hgroup", "hr"),
        *("legend", "li", "main", "menu", "nav", "ol", "p", "pre", "section", "summary"),
        *("table", "tbody", "td", "tfoot", "th", "thead", "tr", "ul", "br"),
    )
)
# Blocks of the HTML vocabulary trafilatura's answer is renamed to.
_OUTPUTBLOCKS = BLOCKS - {"br"}
_CODE = frozenset(("pre", "code"))
# A reference in brackets is page text, whatever its class says: trafilatura drops
# elements by class ("footers", "meta") and left "[]" in the sentence.
_SEPARATORS_RE = re.compile(r"[\s,;\-\u2013]*")
_REFERENCE_TAGS = frozenset(("a", "span", "sup", "sub", "small", "cite", "em", "i", "b"))


def _tag(element: etree._Element) -> str:
    return element.tag if isinstance(element.tag, str) else ""


@contextmanager
def marked(
    root: etree._Element, unread: Callable[[etree._Element], bool] | None = None
) -> Iterator[list[etree._Element]]:
    """``root`` with a mark on both sides of every block boundary between words while
    the ``with`` block runs; the page is as it was afterwards.

    trafilatura reads a copy of the tree it is given (it prunes that copy), so marking
    the page itself and undoing the marks spares a second copy of the whole page.

    The elements ``unread`` says trafilatura deletes before it reads are yielded,
    outermost only, in document order. One without words is not walked into: the
    boundary it is or holds still counts.
    """
    undo = _Undo([], [])
    skipped: list[etree._Element] = []
    try:
        _mark(root, undo, unread, skipped)
        yield skipped
    finally:
        for element, tail, value in reversed(undo.texts):
            if tail:
                element.tail = value
            else:
                element.text = value
        for element, attributes in undo.attributes:
            element.attrib.clear()
            element.attrib.update(attributes)


class _Undo(NamedTuple):
    """What marking changed: texts (holder, tail or not, the text it held) and the
    attributes, in their order, of the elements whose class and id it took away."""

    texts: list[tuple[etree._Element, bool, str]]
    attributes: list[tuple[etree._Element, list[tuple[str, str]]]]


def _mark(
    root: etree._Element,
    undo: _Undo,
    unread: Callable[[etree._Element], bool] | None,
    skipped: list[etree._Element],
) -> None:
    for reference in _references(root):
        for part in reference.iter():
            if "class" in part.attrib or "id" in part.attrib:
                undo.attributes.append((part, [(str(k), str(v)) for k, v in part.items()]))
                for name in ("class", "id"):
                    if name in part.attrib:
                        del part.attrib[name]
    body = root.find("body")
    if body is None:
        return
    # the last text with words, written once the next one says whether a mark ends it:
    # holder, tail or not, the text as the tree holds it, the text to write
    last: tuple[etree._Element, bool, str, str] | None = None
    boundary = False
    outer: etree._Element | None = None  # the unread element being walked
    blocks, mark, guard = BLOCKS, MARK, GUARD
    # the body only: the head's title is metadata, compared as the page writes it
    walk = etree.iterwalk(body, events=("start", "end"))
    for event, element in walk:
        tag = element.tag
        if tag in blocks:
            boundary = True
        if event == "start":
            if not isinstance(tag, str):  # a comment's text is not the page's
                continue
            if unread is not None and outer is None and unread(element):
                skipped.append(element)
                if _wordless(element):
                    walk.skip_subtree()  # its end event still comes, with its tail
                    if next(element.iter(*blocks), None) is not None:
                        boundary = True
                    continue
                outer = element  # walked for where its words stand; nothing inside is yielded
            value = element.text
            tail = False
        elif element is body:
            continue
        else:
            if element is outer:
                outer = None
            value = element.tail
            tail = True
        if not value or value.isspace():
            continue
        if mark in value or guard in value:  # the page's own: forged marks are dropped
            cleaned = value.replace(mark, "").replace(guard, "")
            _write(element, tail, value, cleaned, undo)
            value = cleaned
            if not value or value.isspace():
                continue
        held = value
        if value[0].isspace():
            value = guard + value
        if value[-1].isspace():
            value += guard
        if last is not None:
            if boundary:
                value = mark + value
                _write(*last[:3], last[3] + mark, undo)
            else:
                _write(*last, undo)
        boundary = False
        last = (element, tail, held, value)
    if last is not None:
        _write(*last, undo)


def _write(
    element: etree._Element,
    tail: bool,
    held: str,
    value: str,
    undo: _Undo,
) -> None:
    if value == held:  # nothing to mark: the tree keeps its text
        return
    undo.texts.append((element, tail, (element.tail if tail else element.text) or ""))
    if tail:
        element.tail = value
    else:
        element.text = value


def _reference_like(element: etree._Element) -> bool:
    return _tag(element) in _REFERENCE_TAGS and bool(text_of(element))


def _references(root: etree._Element) -> list[etree._Element]:
    """Inline elements between brackets in running text: references ("[12]", "[3, 4-6]")."""
    found: list[etree._Element] = []
    for element in root.iter(*_REFERENCE_TAGS):
        previous = element.getprevious()
        if previous is not None:
            before = previous.tail
        else:
            parent = element.getparent()
            before = parent.text if parent is not None else None
        if not before:
            continue
        end = before[-1]  # most text ends in a word: no need to strip it
        if end not in "[(" and not (end.isspace() and before.rstrip().endswith(("[", "("))):
            continue
        if not text_of(element):
            continue
        chain = [element]
        while _SEPARATORS_RE.fullmatch(chain[-1].tail or ""):
            following = chain[-1].getnext()
            if following is None or not _reference_like(following):
                break
            chain.append(following)
        if (chain[-1].tail or "").lstrip().startswith(("]", ")")):
            found.extend(chain)
    return found


# The text in document order as one character per event: ``t`` words, ``e`` a block
# starts or ends, ``b`` a line break of the page, ``m`` a run of marks in one text
# node (or a marked ``<br>``). A run of ``m`` between words keeps its first mark.
_KEPT_RE = re.compile(r"(?<=t)m+(?=t)")
_WORDS_RE = re.compile(f"[^{MARK}]+")


def breaks_from_marks(body: etree._Element) -> None:
    """Marks in trafilatura's answer (HTML vocabulary) become line breaks between words.

    A mark that stands between words becomes a ``<br>``, one per run of marks; one at
    the edge of a block, next to a line break or beside another mark goes away. In
    code, a mark is a line break in the text. One walk writes the events down; the
    marks that stay are found in them at once, and few stay.
    """
    events: list[str] = []
    # the text nodes holding marks (with their text less the guards), and the marked
    # <br>s, by their place in ``events``
    slots: dict[int, tuple[etree._Element, bool, str]] = {}
    marked: list[tuple[int, etree._Element]] = []
    code = 0  # open code elements: the walk is inside code while this is above 0
    for event, element in etree.iterwalk(body, events=("start", "end")):
        tag = element.tag
        if event == "start":
            if tag in _CODE:
                code += 1
            if tag == "br":
                if element.get(_MARKED) is not None:
                    marked.append((len(events), element))
                    events.append("m")
                else:
                    events.append("b")
            elif tag in _OUTPUTBLOCKS:
                events.append("e")
            value = element.text
            is_tail = False
        else:
            if tag in _OUTPUTBLOCKS:
                events.append("e")
            if tag in _CODE:
                code -= 1
            value = element.tail
            if element is body:
                if value and (MARK in value or GUARD in value):
                    element.tail = value.replace(MARK, "").replace(GUARD, "")
                continue
            is_tail = True
        if not value:
            continue
        if MARK in value:
            if code:
                value = _CODE_MARKS_RE.sub("\n", value).replace(GUARD, "")
                new = value
                if value.strip():
                    events.append("t")
            else:
                value = value.replace(GUARD, "")
                new = value.replace(MARK, "")
                slots[len(events)] = (element, is_tail, value)
                events.append(_MARKS_RE.sub("m", _WORDS_RE.sub("t", "".join(value.split()))))
        elif GUARD in value:
            new = value.replace(GUARD, "")
            if new.strip():
                events.append("t")
        else:
            if not value.isspace():
                events.append("t")
            continue
        if is_tail:
            element.tail = new
        else:
            element.text = new
    text = "".join(events)
    kept = {found.start() for found in _KEPT_RE.finditer(text)}
    if kept:
        start = 0
        for index, piece in enumerate(events):
            slot = slots.get(index)
            if slot is not None:
                runs = {piece[:at].count("m") for at in range(len(piece)) if start + at in kept}
                if runs:
                    _place(*slot, runs)
            start += len(piece)
    if marked:
        starts = list(accumulate(map(len, events), initial=0))
        for index, br in marked:
            if starts[index] in kept:
                del br.attrib[_MARKED]
            else:
                remove(br, keep_space=True)


def _place(element: etree._Element, is_tail: bool, value: str, runs: set[int]) -> None:
    """Write back a text node with a ``<br>`` for the first mark of each run that stays
    (runs of marks counted in the node, a run being marks with only blanks between)."""
    first, *rest = _MARKS_RE.split(value)
    head = [first]
    tails: list[list[str]] = []
    run = -1
    before = first
    for part in rest:
        starts = run < 0 or bool(before.strip())
        if starts:
            run += 1
        if starts and run in runs:
            tails.append([part])
        else:
            (tails[-1] if tails else head).append(part)
        before = part
    if is_tail:
        element.tail = "".join(head)
        parent = element.getparent()
        assert parent is not None  # the body's own tail is never marked
        target, offset = parent, parent.index(element) + 1
    else:
        element.text = "".join(head)
        target, offset = element, 0
    for number, parts in enumerate(tails):
        br = etree.Element("br")
        br.tail = "".join(parts)
        target.insert(offset + number, br)


def _wordless(element: etree._Element) -> bool:
    """No text inside: walking it would mark nothing. Words inside an unread element
    decide the marks on the text around it, which trafilatura compares."""
    return all(text.isspace() for text in itertext(element) if text)
