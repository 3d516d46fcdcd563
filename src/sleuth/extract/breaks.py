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

The copy also keeps a bracketed reference ("attempts [11], which") whole:
trafilatura drops inline elements by their class ("footers", "meta"), which left
"attempts [], which", a sentence no reader sees. The brackets say it is text.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from copy import deepcopy

from lxml import etree

from sleuth.extract.dom import remove, text_of

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


def marked_copy(root: etree._Element) -> etree._Element:
    """A copy of ``root`` with a mark on both sides of every block boundary between words."""
    copy = deepcopy(root)
    for reference in _references(copy):
        for part in reference.iter():
            for name in ("class", "id"):
                if name in part.attrib:
                    del part.attrib[name]
    body = copy.find("body")
    if body is None:
        return copy
    last: etree._Element | None = None
    last_is_tail = False
    boundary = False
    # the body only: the head's title is metadata, compared as the page writes it
    for event, element in etree.iterwalk(body, events=("start", "end")):
        tag = element.tag
        if tag in BLOCKS:
            boundary = True
        tail = event == "end"
        if tail:
            if element is body:
                continue
            value = element.tail
        elif isinstance(tag, str):
            value = element.text
        else:
            continue
        if not value:
            continue
        if MARK in value or GUARD in value:  # the page's own: forged marks are dropped
            value = value.replace(MARK, "").replace(GUARD, "")
            if tail:
                element.tail = value
            else:
                element.text = value
        if value.isspace() or not value:
            continue
        if value[0].isspace():
            value = GUARD + value
        if value[-1].isspace():
            value += GUARD
        if boundary and last is not None:
            value = MARK + value
            if last_is_tail:
                last.tail = (last.tail or "") + MARK
            else:
                last.text = (last.text or "") + MARK
        if tail:
            element.tail = value
        else:
            element.text = value
        boundary = False
        last, last_is_tail = element, tail
    return copy


def _reference_like(element: etree._Element) -> bool:
    return _tag(element) in _REFERENCE_TAGS and bool(text_of(element))


def _references(root: etree._Element) -> list[etree._Element]:
    """Inline elements between brackets in running text: references ("[12]", "[3, 4-6]")."""
    found: list[etree._Element] = []
    for element in root.iter(*_REFERENCE_TAGS):
        previous = element.getprevious()
        if previous is not None:
            before = previous.tail or ""
        else:
            parent = element.getparent()
            before = (parent.text if parent is not None else "") or ""
        if not before.rstrip().endswith(("[", "(")) or not text_of(element):
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


def _split(element: etree._Element, *, tail: bool) -> None:
    """Turn the marks in ``element``'s text (or tail) into marked ``<br>`` elements."""
    value = element.tail if tail else element.text
    if not value or MARK not in value:
        return
    first, *rest = _MARKS_RE.split(value)
    if tail:
        parent = element.getparent()
        if parent is None:
            element.tail = "".join((first, *rest))
            return
        element.tail = first
        index = parent.index(element) + 1
        target, offset = parent, index
    else:
        element.text = first
        target, offset = element, 0
    for number, part in enumerate(rest):
        br = etree.Element("br", {_MARKED: ""})
        br.tail = part
        target.insert(offset + number, br)


def _events(element: etree._Element) -> Iterator[tuple[str, etree._Element | None]]:
    """Document order as ``text`` (words), ``edge`` (a block starts or ends) and ``br``."""
    tag = _tag(element)
    if tag == "br":
        yield "br", element
    elif tag in _OUTPUTBLOCKS:
        yield "edge", None
    if element.text and element.text.strip():
        yield "text", None
    for child in element:
        yield from _events(child)
        if child.tail and child.tail.strip():
            yield "text", None
    if tag in _OUTPUTBLOCKS:
        yield "edge", None


def breaks_from_marks(body: etree._Element) -> None:
    """Marks in trafilatura's answer (HTML vocabulary) become line breaks between words."""
    for element in list(body.iter()):
        in_code = any(_tag(e) in _CODE for e in (element, *element.iterancestors()))
        if in_code:
            if element.text and MARK in element.text:
                element.text = _CODE_MARKS_RE.sub("\n", element.text)
        else:
            _split(element, tail=False)
        if element.tail and MARK in element.tail:
            parent = element.getparent()
            if parent is not None and any(
                _tag(e) in _CODE for e in (parent, *parent.iterancestors())
            ):
                element.tail = _CODE_MARKS_RE.sub("\n", element.tail)
            else:
                _split(element, tail=True)
    for element in body.iter():
        if element.text and GUARD in element.text:
            element.text = element.text.replace(GUARD, "")
        if element.tail and GUARD in element.tail:
            element.tail = element.tail.replace(GUARD, "")
    events = list(_events(body))
    doomed: list[etree._Element] = []
    index = 0
    while index < len(events):
        if not _marked(events[index][1]):
            index += 1
            continue
        end = index
        while end < len(events) and _marked(events[end][1]):
            end += 1
        before = events[index - 1][0] if index else "edge"
        after = events[end][0] if end < len(events) else "edge"
        run = [br for _, br in events[index:end] if br is not None]
        keep = run[0] if before == "text" and after == "text" else None
        for br in run:
            if br is keep:
                del br.attrib[_MARKED]
            else:
                doomed.append(br)
        index = end
    for br in doomed:
        remove(br, keep_space=True)


def _marked(element: etree._Element | None) -> bool:
    return element is not None and element.get(_MARKED) is not None
