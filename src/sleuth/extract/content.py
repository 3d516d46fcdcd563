"""Find the main content of a sanitised page.

What the page disowns (a modal overlay, a block kept out of search snippets) goes
first. trafilatura (fast and precision-focused, measured best on the benchmark) reads
the tree we already parsed and cleaned; its XML vocabulary is mapped back to plain HTML
so that one renderer serves every extractor. Reader comments are left out, except on
discussion pages (forums, Q&A), where the replies are the content, each paragraph
once; so are a product page's customer reviews. A density-based pass over the same
tree is the second opinion: it takes over when trafilatura finds little or holds
trafilatura's answer and more (a body split over blocks), and it contributes the parts
of a split article body (same container class, separated by adverts) that trafilatura
left out. When trafilatura's precision answer is a sliver of a long page (one entry of
a listicle) and the density pass did not find as much, trafilatura's whole cascade,
which checks itself against readability and jusText and retries for recall, gets a
second try.

Other kinds of page (see ``kind``) spread their content over many blocks: there
trafilatura runs for recall, and when it keeps much less than the page's own content
(``page``: the visible page without its chrome) the page content is the answer. So it
is on a page whose visible content is short: no paragraph of it is judged boilerplate,
and visible text in any element is text (a page of one ``<div>`` is a page).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import trafilatura
from lxml import etree
from trafilatura.settings import MANUALLY_CLEANED, Document, Extractor

from sleuth.extract.breaks import breaks_from_marks, marked
from sleuth.extract.density import density_content, signature
from sleuth.extract.dom import itertext, number, remove, string, text_of
from sleuth.extract.kind import PageType
from sleuth.extract.metadata import json_ld_types
from sleuth.extract.page import (
    drop_copies,
    drop_disowned,
    drop_named_blocks,
    innermost_blocks,
    page_content,
    unwrap_prose_forms,
)

_ARTICLE = Extractor(
    output_format="xml", fast=True, precision=True, comments=False, formatting=True
)
# On a discussion the "comments" are the content: trafilatura extracts them separately.
_DISCUSSION = Extractor(output_format="xml", fast=True, comments=True, formatting=True)
# Other kinds of page: content is spread out, recall matters more than on an article.
_PAGE = Extractor(output_format="xml", fast=True, comments=False, formatting=True)
# A product's description and specifications sit in blocks of their own: trafilatura's
# fallback extractors find them where its first pass keeps one.
_PRODUCT = Extractor(output_format="xml", comments=False, formatting=True)
# trafilatura's whole cascade: its own extraction checked against readability's and
# jusText's, and retried for recall when it covers little of the page.
_CASCADE = Extractor(output_format="xml", comments=False, formatting=True)
_DISCUSSION_TYPES = frozenset(
    ("discussionforumposting", "qapage", "question", "socialmediaposting")
)
# URL path segments of forum and Q&A software, matched whole ("forum-on-climate" is not one).
_DISCUSSION_SEGMENTS = frozenset(
    (
        *("forum", "forums", "thread", "threads", "topic", "topics", "discussion"),
        *("discussions", "comments", "community", "questions", "viewtopic.php"),
        "showthread.php",
    )
)
# A shop names its section of customer reviews in the plural ("product-reviews",
# "reviewsMedley"); an editor's review of the product is one "review" and stays.
_REVIEWS_RE = re.compile(r"reviews", re.IGNORECASE)
_TEXT = etree.XPath("string(.)")
_HI_TAGS = {"#b": "strong", "#i": "em", "#u": "u", "#t": "code", "#sub": "sub", "#sup": "sup"}
_WORD_RE = re.compile(r"\w+")
# Thai, kana and Han: scripts written without spaces between words.
_UNSPACED_RE = re.compile(r"[\u0e00-\u0e7f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
# Below this many characters trafilatura's answer is checked against the density pass.
SHORT_RESULT = 500
# ... and replaced by the density pass only when that finds clearly more.
SHORT_GAIN = 1.5
# ... and by the density pass also when that finds this many times more words.
FRAGMENT_GAIN = 5.0
# trafilatura's answer holding this share of the body's visible text is the whole page.
HOLDS_THE_PAGE = 0.7
_BODY_LENGTH = etree.XPath("string-length(normalize-space(.))")
# A density segment this long that trafilatura did not cover at all is missing text;
# covered and uncovered are shares of its word 3-grams found in trafilatura's text.
MISSING_SEGMENT = 400
COVERED = 0.5
UNCOVERED = 0.1
# A wider answer must hold this share of the narrow one's word 3-grams: a superset, not
# another part of the page.
COVERED_BY_WIDER = 0.8
# A reply this much of whose word 3-grams the body already holds is a second copy.
DUPLICATE = 0.8
_SHINGLE = 3
# On a page with at most this many words of content no paragraph may be dropped ...
SHORT_PAGE_WORDS = 150
# ... and an answer holding less than this share of it is a fragment (of a table, a
# list of entries: a short page without paragraphs).
SHORT_FRAGMENT = 0.75
_PARAGRAPH_WORDS = 8
_LINK_DENSE = 0.5
# A precision answer holding less than this share of the body's visible text may have
# kept one block of a body split over many (a listicle's entries, sections of a guide):
# trafilatura's whole cascade then runs, and its answer replaces this one when it has
# WIDER times the words, holds COVERED_BY_WIDER of this answer, and is not a list of teasers
# (paragraphs cut off with an ellipsis). The share and the gain are the ones trafilatura
# uses to retry for recall.
NARROW = 0.2
WIDER = 1.5
# ... unless the density pass found as many words, give or take this share: two readers
# of the page agree that its text is that short.
AGREE = 0.15
_TEASERS = 2
_TEASER_RE = re.compile(r"(?:…|\.\.\.|\[…\]|\[\.\.\.\])\s*$")
# ... nor padded with copies: blocks that repeat an earlier one holding this share of
# its words.
COPIES = 0.1
# On an article the page content only stands in for an answer shorter than this.
ARTICLE_RESCUE_WORDS = 75
# The page content replaces trafilatura's answer when that holds less than this share
# of the page content's words: low on an article (one block is the point), high where
# the content is spread over many blocks. The docs and service shares are the ones that
# scored best on held-out sites when WCXB's dev pages were split five ways by domain
# (0.9 in every fold for docs, 0.8 in four of five for service pages).
_PAGE_SHARE: dict[PageType, float] = {
    "article": 0.5,
    "forum": 0.35,
    "product": 0.3,
    "documentation": 0.9,
    "collection": 1.0,
    "listing": 1.0,
    "service": 0.8,
}


@dataclass
class Content:
    """The main-content subtree, in HTML vocabulary, and who found it; ``confirmed``
    when the density pass, reading the page its own way, found about as much."""

    root: etree._Element
    method: str
    confirmed: bool = False


def _html_vocabulary(body: etree._Element) -> etree._Element:
    """Rename trafilatura's XML elements (head, list, item, hi, ...) to HTML ones."""
    # the walk only visits the elements to rename, parents before children:
    # ``_is_block_code`` reads its parent's new name
    for element in body.iter(*_RENAME):
        tag = element.tag
        if tag == "hi":
            element.tag = _HI_TAGS.get(element.get("rend") or "", "em")
        elif tag == "head":
            rend = element.get("rend") or ""
            element.tag = rend if rend in _HEADINGS else "h2"
        elif tag == "item":
            rend = (element.get("rend") or "")[:2]
            element.tag = rend if rend in ("dt", "dd") else "li"
        elif tag == "ref":
            element.tag = "a"
            target = element.get("target")
            if target:
                element.set("href", target)
        elif tag == "cell":
            element.tag = "th" if element.get("role") == "head" else "td"
        elif tag == "list":
            element.tag = "ol" if element.get("rend") == "ol" else "ul"
        elif tag == "code":
            element.tag = "pre" if _is_block_code(element) else "code"
        else:
            element.tag = _RENAMED[tag]
    body.tag = "div"
    breaks_from_marks(body)
    return body


_HEADINGS = frozenset(("h1", "h2", "h3", "h4", "h5", "h6"))
# trafilatura's elements that are renamed whatever their attributes say
_RENAMED = {"quote": "blockquote", "lb": "br", "row": "tr", "graphic": "span"}
_RENAME = ("hi", "head", "item", "ref", "cell", "list", "code", *_RENAMED)


# Containers whose code is part of a sentence unless it stands there alone.
_INLINE_CONTEXT = frozenset(
    ("p", "li", "item", "cell", "td", "th", "dd", "dt", "head", "hi", "ref", "quote")
)


def _is_block_code(code: etree._Element) -> bool:
    """trafilatura calls inline ``<code>`` and a code block the same: a block has lines,
    or stands alone; code with words around it in a sentence stays inline."""
    if "\n" in "".join(itertext(code)).strip():
        return True
    parent = code.getparent()
    if parent is None or parent.tag not in _INLINE_CONTEXT:
        return True
    words_around = (parent.text or "").strip() or (code.tail or "").strip()
    return not words_around and len(parent) == 1


def is_discussion(json_ld: list[dict[str, Any]], url: str | None) -> bool:
    """A forum thread or Q&A page: it says so in JSON-LD, or its URL path does."""
    if json_ld_types(json_ld) & _DISCUSSION_TYPES:
        return True
    try:
        segments = urlsplit(url).path.lower().split("/") if url else []
    except ValueError:  # "http://[" from a caller: no path to read
        segments = []
    return not _DISCUSSION_SEGMENTS.isdisjoint(segments)


def _words(element: etree._Element) -> int:
    """Whitespace-separated words, cheap and only ever compared with each other; text in
    a script written without spaces (Chinese, Japanese) counts a word per two characters,
    or a long Japanese article would pass for a short page."""
    text = string(_TEXT, element)
    if not _WORD_RE.search(text):
        return 0
    return len(text.split()) + len(_UNSPACED_RE.findall(text)) // 2


def _trafilatura(root: etree._Element, options: Extractor) -> etree._Element | None:
    discussion = options.comments
    # a precision read without fallbacks reads only the cleaned page: a recall read may
    # undo the cleaning, and the fallbacks read the page whole
    precise = options.focus == "precision" and options.fast
    with marked(root, _cleaned if precise else None) as cut, _body_only(root), _uncleaned(cut):
        document = trafilatura.bare_extraction(root, options=options)
    if not isinstance(document, Document) or document.body is None:
        return None
    body = document.body
    if discussion and document.commentsbody is not None:
        _add_replies(body, document.commentsbody)
    return _html_vocabulary(body) if len(body) else None


@contextmanager
def _body_only(root: etree._Element) -> Iterator[None]:
    """The page without its head while trafilatura reads it. trafilatura drops the head
    before it extracts (it holds metadata, which sleuth reads itself); without it, each
    of trafilatura's copies of the tree and passes over it is the shorter."""
    head = root.find("head")
    if head is None:
        yield
        return
    position = root.index(head)
    root.remove(head)
    try:
        yield
    finally:
        root.insert(position, head)


# What trafilatura's cleaning deletes from its copy of the page before it reads it, less
# what it treats apart: forms (one that holds the page is kept), figures (one that holds a
# table is kept), math (salvaged first) and scripts (JSON-LD says a page is a forum).
_CLEANED = frozenset(MANUALLY_CLEANED) - {"form", "figure", "math", "script", "head"}


def _cleaned(element: etree._Element) -> bool:
    """Whether trafilatura's cleaning deletes ``element`` before it reads the page (one
    that holds an ``h1`` is left: trafilatura looks for the page's title before it
    cleans)."""
    return element.tag in _CLEANED and next(element.iter("h1"), None) is None


@contextmanager
def _uncleaned(cut: list[etree._Element]) -> Iterator[None]:
    """The page without the elements ``cut`` (see ``_cleaned``), each tail joined to the
    text before it as trafilatura joins it, while trafilatura reads the page.

    trafilatura copies the page twice and prunes the whole copy before it cleans it;
    without those elements (navigation, asides, footers, controls: about two in five of
    a page's elements) each copy and prune is shorter.

    All of them go, as its cleaning means: its own loop stops short of the later
    elements of a tag once it deletes one that holds another of that tag (lxml's
    iterator goes on inside the removed one), and leaves them in.
    """
    # (parent, element, the element before it, the text its tail was joined to)
    undo: list[tuple[etree._Element, etree._Element, etree._Element | None, str | None]] = []
    for element in cut:
        parent = element.getparent()
        if parent is None:
            continue
        previous = element.getprevious()
        held = parent.text if previous is None else previous.tail
        remove(element, keep_space=True)  # the tail joined as trafilatura joins it
        undo.append((parent, element, previous, held))
    try:
        yield
    finally:
        for parent, element, previous, held in reversed(undo):
            if previous is None:
                parent.text = held
                parent.insert(0, element)
            else:
                previous.tail = held
                previous.addnext(element)


def _add_replies(body: etree._Element, replies: etree._Element) -> None:
    """Append the replies trafilatura found apart, except those the body already holds.

    Forum software often prints each post twice (a teaser and the post, a phone and a
    desktop layout), and trafilatura may take one copy as the body and the other as
    comments: the reader should get each post once.
    """
    kept = _shingles(text_of(body))
    for reply in list(replies):
        shingles = _shingles(text_of(reply))
        if len(shingles & kept) < DUPLICATE * len(shingles):
            body.append(reply)
            kept |= shingles


def _shingles(text: str) -> set[tuple[str, ...]]:
    words = _WORD_RE.findall(text.casefold())
    return {tuple(words[i : i + _SHINGLE]) for i in range(max(1, len(words) - _SHINGLE + 1))}


def _add_missing_segments(primary: etree._Element, segments: etree._Element) -> bool:
    """Add the parts of a split body trafilatura skipped; True if any was added.

    A density segment qualifies when another segment with the same tag and class is
    covered by trafilatura's text and this one is not covered at all.
    """
    kinds = [kind for segment in segments if (kind := signature(segment))]
    if len(kinds) == len(set(kinds)):
        return False  # no two segments share a class: nothing can be a split part
    covered = _shingles(text_of(primary))
    shares: list[tuple[etree._Element, float, int]] = []
    for segment in segments:
        text = text_of(segment)
        shingles = _shingles(text)
        share = len(shingles & covered) / len(shingles) if shingles else 1.0
        shares.append((segment, share, len(text)))
    covered_kinds = {signature(s) for s, share, _ in shares if share > COVERED} - {None}
    before: list[etree._Element] = []
    after: list[etree._Element] = []
    seen_covered = False
    for segment, share, length in shares:
        if share > COVERED:
            seen_covered = True
        elif (
            share < UNCOVERED and length >= MISSING_SEGMENT and signature(segment) in covered_kinds
        ):
            (after if seen_covered else before).append(segment)
    for index, segment in enumerate(before):
        primary.insert(index, segment)
    primary.extend(after)
    return bool(before or after)


def main_content(
    root: etree._Element,
    *,
    discussion: bool = False,
    page_type: PageType = "article",
    declared: str | None = None,
) -> Content | None:
    """The main content; on a discussion page, the replies are part of it, each
    paragraph once (a quoted post, a reply's preview of the post it answers, repeat
    their source word for word).

    ``declared`` is a description the page declares in its data (a product's JSON-LD):
    it opens the content when the content does not already hold it and a reader can
    see it on the page (data in a script is not what the page shows).
    """
    content = _main_content(root, discussion, page_type)
    if content is not None and (discussion or page_type == "forum"):
        drop_copies(content.root)
    if content is not None and not discussion and page_type in ("article", "service"):
        content = _widened(root, content)
    if content is not None and declared:
        _add_declared(content.root, declared, root)
    return content


def _add_declared(content: etree._Element, declared: str, root: etree._Element) -> None:
    words = _WORD_RE.findall(declared.casefold())
    if len(words) < _PARAGRAPH_WORDS:
        return
    kept = _shingles(text_of(content))
    shingles = _shingles(declared)
    body = root.find("body")
    visible = _shingles(text_of(body)) if body is not None else set()
    if len(shingles & visible) < COVERED_BY_WIDER * len(shingles):
        return  # not on the visible page: the sanitised tree decides what is read
    if len(shingles & kept) < COVERED * len(shingles):
        paragraph = etree.Element("p")
        paragraph.text = declared
        content.insert(0, paragraph)


def _main_content(root: etree._Element, discussion: bool, page_type: PageType) -> Content | None:
    body = root.find("body")
    if body is None:
        return None
    drop_disowned(body)
    unwrap_prose_forms(body)
    comments = discussion or page_type == "forum"
    if page_type in ("collection", "listing"):
        page = page_content(root, comments=comments)
        if page is not None and _words(page):
            return Content(page, "page")  # the repeated cards are the content
    if page_type == "product":
        # customer reviews say what buyers think of the product, not what the page
        # says it is, and they can run to thousands of words
        drop_named_blocks(body, _names_reviews)
    if discussion or page_type == "forum":
        found = _article(root, _DISCUSSION)
    elif page_type in ("article", "service"):
        found = _article(root, _ARTICLE)
    elif page_type == "product":
        primary = _trafilatura(root, _PRODUCT)
        found = Content(primary, "trafilatura") if primary is not None else None
    else:
        primary = _trafilatura(root, _PAGE)
        found = Content(primary, "trafilatura") if primary is not None else None
    found_words = _words(found.root) if found is not None else 0
    if not found_words:
        found = None
    if page_type == "article" and found_words > max(ARTICLE_RESCUE_WORDS, SHORT_PAGE_WORDS):
        return found  # an article extractor that found an article is trusted
    page = page_content(root, comments=comments)  # only now: most articles never need it
    page_words = _words(page) if page is not None else 0
    if page is None or not page_words:
        return found
    if page_words <= SHORT_PAGE_WORDS and found_words <= page_words:
        if not _link_dense(page) and _drops_a_paragraph(found, page):
            return Content(page, "page")
        if found is None:
            # visible text in any element is a page's text (a page of one <div>); a
            # page of nothing but links is a menu
            return None if _link_dense(page) else Content(page, "page")
        if found_words >= SHORT_FRAGMENT * page_words:
            return found
    if page_type == "article" and found_words > ARTICLE_RESCUE_WORDS:
        return found
    if found_words < _PAGE_SHARE[page_type] * page_words:
        return Content(page, "page")
    return found


def _widened(root: etree._Element, content: Content) -> Content:
    """trafilatura's whole cascade in place of a precision answer that kept a sliver of
    the page (see ``NARROW``). The density pass and the page content already looked past
    trafilatura's answer, so theirs stand."""
    if content.method not in ("trafilatura", "trafilatura+density") or content.confirmed:
        return content
    if len(text_of(content.root)) >= NARROW * _visible_length(root):
        return content
    wide = _trafilatura(root, _CASCADE)
    if wide is None or not _supersedes(wide, content.root):
        return content
    return Content(wide, "trafilatura")


def _supersedes(wide: etree._Element, narrow: etree._Element) -> bool:
    """Whether ``wide`` is ``narrow`` with the rest of the body around it: ``WIDER``
    times its words, ``COVERED_BY_WIDER`` of its word 3-grams (a superset, not another
    part of the page), and not padded with a list of teasers (paragraphs cut off with an
    ellipsis) or with copies (a gallery's captions, each slide's twice)."""
    if _words(wide) <= WIDER * _words(narrow):
        return False
    kept = _shingles(text_of(narrow))
    if len(kept & _shingles(text_of(wide))) < COVERED_BY_WIDER * len(kept):
        return False
    teasers = sum(1 for p in wide.iter("p") if _TEASER_RE.search(text_of(p)))
    return teasers < _TEASERS and _copied_share(wide) < COPIES


def _copied_share(element: etree._Element) -> float:
    """The share of the words of ``element``'s blocks that repeat an earlier block."""
    seen: set[tuple[str, ...]] = set()
    copied = total = 0
    for _, words in innermost_blocks(element):
        total += len(words)
        if words in seen:
            copied += len(words)
        seen.add(words)
    return copied / total if total else 0.0


def _names_reviews(label: str) -> bool:
    return bool(_REVIEWS_RE.search(label))


def _link_dense(element: etree._Element) -> bool:
    """Mostly link text: a menu or a list of links, not a short page's content."""
    links = sum(len(text_of(link)) for link in element.iter("a"))
    return links > _LINK_DENSE * max(len(text_of(element)), 1)


def _drops_a_paragraph(found: Content | None, page: etree._Element) -> bool:
    """Whether a paragraph of the page is missing from what was found (if anything was)."""
    kept = " ".join(_WORD_RE.findall(text_of(found.root).casefold())) if found else ""
    for paragraph in page.iter("p", "blockquote", "pre"):
        words = _WORD_RE.findall(text_of(paragraph).casefold())
        if len(words) >= _PARAGRAPH_WORDS and " ".join(words) not in kept:
            return True
    return False


def _holds_the_page(length: int, root: etree._Element) -> bool:
    """Whether trafilatura's answer (``length`` characters) holds so much of the visible
    page that the density pass cannot add to it: the page holds less than
    ``SHORT_GAIN`` times the answer, so neither rescue rule can fire, and no split part
    is left big enough to miss (on every page of both benchmarks the density pass then
    changed nothing). Saves its cost on about a third of all pages."""
    return length >= HOLDS_THE_PAGE * _visible_length(root)


def _visible_length(root: etree._Element) -> float:
    """Characters of the sanitised body's text, spaces collapsed: what answers are
    measured against."""
    body = root.find("body")
    return number(_BODY_LENGTH, body) if body is not None else 0.0


def _article(root: etree._Element, options: Extractor) -> Content | None:
    """trafilatura, rescued and completed by the density pass."""
    primary = _trafilatura(root, options)
    primary_length = len(text_of(primary)) if primary is not None else 0
    if primary is not None and _holds_the_page(primary_length, root):
        return Content(primary, "trafilatura")
    second = density_content(root)
    if primary is None:
        return Content(second, "density") if second is not None else None
    if second is None:
        return Content(primary, "trafilatura")
    if primary_length < SHORT_RESULT and len(text_of(second)) > SHORT_GAIN * primary_length:
        return Content(second, "density")
    primary_words, second_words = _words(primary), _words(second)
    if second_words > FRAGMENT_GAIN * primary_words:
        return Content(second, "density")  # trafilatura kept a fragment of the body
    if _supersedes(second, primary):
        return Content(second, "density")  # ... or the body without some of its parts
    if _add_missing_segments(primary, second):
        return Content(primary, "trafilatura+density")
    agree = abs(second_words - primary_words) <= AGREE * primary_words
    return Content(primary, "trafilatura", agree)
