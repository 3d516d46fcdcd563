"""The page's own content: everything visible except the site's chrome.

On a listing, a collection, a service page or a docs page the content is spread over
many blocks (cards, sections, tables, code), and an article extractor keeps one of
them. Here we keep the page and take away what every page of a site repeats: the
navigation, header, footer, sidebars, forms (but not one that wraps the page), and
blocks whose class or id names a widget (cookie banner, newsletter box, share bar,
breadcrumb, related links, a shop's filters, sort order and pagination). The page's
``<main>`` scopes the result when it holds a fair share of the text. A block that
repeats an earlier one word for word is a second copy (the phone and the desktop layout
of one section, the clones of a carousel's slides) and is dropped. What the page's
markup disowns (a modal overlay, a ``data-nosnippet`` block) is dropped before any
extractor reads the page.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from copy import deepcopy
from functools import lru_cache
from typing import cast

from lxml import etree

from sleuth.extract.dom import elements, number, remove, text_of

_CHROME = etree.XPath(
    "//nav | //header | //footer | //aside | //form | //button | //select | //dialog"
    " | //@role[. = 'navigation' or . = 'banner' or . = 'contentinfo' or . = 'dialog'"
    " or . = 'complementary' or . = 'search']/.."
)
_MAINS = etree.XPath("//main | //@role[. = 'main']/..")
_FORMS = etree.XPath(".//form")
# What a reader of a form types in, picks or presses; a hidden input is none of these.
_CONTROLS = etree.XPath(
    ".//input[not(translate(@type, 'HIDEN', 'hiden') = 'hidden')] | .//textarea | .//select"
    " | .//button | descendant::*/@role[. = 'button' or . = 'textbox' or . = 'searchbox'"
    " or . = 'combobox']/.. | descendant::*/@contenteditable/.."
)
# What a page's own markup says is not its content: a modal overlay (cookie
# preferences, a sign-in or newsletter box) sits over the page while it is open and
# holds none of it (a dialog that is not modal, a product page's side sheet of details,
# may), and ``data-nosnippet`` keeps a block out of search engines' quotes of the page.
# (Attributes are found by name and judged here: an XPath that tests the values on
# every element costs twice as much.)
_MARKS = etree.XPath("//@aria-modal | //@role | //@data-nosnippet")
_DISOWNING = {"aria-modal": "true", "role": "alertdialog", "data-nosnippet": None}
# What a form is for, read from its class, id, name or target address.
_FORM_PURPOSE_RE = re.compile(
    r"sign-?_?(?:up|in)|log-?_?in|register|search|subscri|newsletter|comment|contact|feedback"
    r"|cart|checkout|basket|vote|poll|mailchimp|mc4wp|wpcf7",
    re.IGNORECASE,
)
_LABELLED = etree.XPath("descendant::*[@class or @id]")
_H1 = etree.XPath("count(.//h1)")
_LENGTH = etree.XPath("string-length(normalize-space(.))")
_BLOCKS = (
    *("p", "li", "h1", "h2", "h3", "h4", "h5", "h6", "td", "th", "dd", "dt"),
    *("blockquote", "figcaption", "div", "section", "article", "pre"),
)
_BLOCK_SET = frozenset(_BLOCKS)
_WORD_RE = re.compile(r"\w+")
# A repeated block this many words long is a copy; shorter ones ("Add to cart",
# "Read more") repeat on purpose.
_COPY_WORDS = 4
# Code and table cells repeat on purpose (the same call in two examples, a column of
# equal values).
_DATA_BLOCKS = frozenset(("pre", "td", "th"))
_WIDGET_RE = re.compile(
    r"cookie|consent|newsletter|subscri|\bshare|sharing|social|breadcrumb|\bmenu|\bnav"
    r"|\bmodal|popup|banner|sidebar|related|recommend|also-|upsell|cross-?sell|footer|header|skip|announcement"
    r"|promo|facet|filter|pagination|\bpager\b|sort-?by|\bsorting",
    re.IGNORECASE,
)
# The container of readers' comments, by a class or id word of its own ("comments",
# WordPress's "comments-area" and "commentlist", Disqus's "disqus_thread"); a word
# such as "commentOnSelection" or "list-comments" names something else.
_COMMENT_TOKENS = frozenset(
    (
        *("comments", "comments-area", "comments-list", "comment-list", "commentlist"),
        *("comments-section", "comment-section", "comments-container", "comment-thread"),
        *("comments-wrapper", "disqus_thread"),
    )
)
_THREADS = etree.XPath(
    ".//div[@class or @id] | .//section[@class or @id] | .//ol[@class or @id]"
    " | .//ul[@class or @id] | .//aside[@class or @id]"
)
_HEADINGS = etree.XPath("count(.//h1 | .//h2)")
# Characters of text a page must keep without its comments for them to be a thread
# under the page rather than the page itself.
_LEFT_WITHOUT_COMMENTS = 500
# A <main> holding less than this share of the page's text is a fragment, not the page.
_MAIN_SHARE = 0.3
# A widget-named block holding this share of its scope is a layout wrapper, not a widget.
_WRAPPER_SHARE = 0.5


@lru_cache(maxsize=4096)
def _widget_label(label: str) -> bool:
    return bool(_WIDGET_RE.search(label))


def _length(element: etree._Element) -> float:
    return number(_LENGTH, element)


def _scope(body: etree._Element) -> etree._Element:
    mains = elements(_MAINS, body)
    if len(mains) == 1 and _length(mains[0]) > _MAIN_SHARE * _length(body):
        return mains[0]
    return body


def page_content(root: etree._Element, *, comments: bool = True) -> etree._Element | None:
    """A copy of the page's visible content without its chrome; None if it has no body.

    ``comments=False`` also drops the readers' comment thread: on a page that is not a
    discussion, what readers say below it is not what the page says.
    """
    body = root.find("body")
    if body is None:
        return None
    body = deepcopy(body)
    for element in elements(_CHROME, body):
        if element.getparent() is not None and not _wraps_the_page(element, body):
            remove(element)
    scope = _scope(body)
    drop_named_blocks(scope, _widget_label)
    if not comments:
        _drop_comment_threads(scope)
    drop_copies(scope)
    scope.tail = None
    scope.tag = "div"
    return scope


def own_text(root: etree._Element) -> str:
    """The visible page's text without its chrome and without every widget-named block,
    however much of the page that is: a page that shows a menu, a cookie banner and a
    loading notice shows nothing of its own but the notice."""
    body = root.find("body")
    if body is None:
        return ""
    body = deepcopy(body)
    for element in elements(_CHROME, body):
        if element.getparent() is not None and not _wraps_the_page(element, body):
            remove(element)
    for element in elements(_LABELLED, body):
        label = f"{element.get('class') or ''} {element.get('id') or ''}"
        if element.getparent() is not None and _widget_label(label) and not number(_H1, element):
            remove(element)
    return text_of(body)


def _wraps_the_page(chrome: etree._Element, body: etree._Element) -> bool:
    """A chrome element that holds the page's ``h1``, or a form that holds half its text
    (ASP.NET wraps a whole page in one, a search page its results): the layout, not
    chrome. A header or a menu that long is still chrome."""
    if number(_H1, chrome):
        return True
    return chrome.tag == "form" and _length(chrome) >= _WRAPPER_SHARE * _length(body)


def drop_named_blocks(scope: etree._Element, named: Callable[[str], bool]) -> None:
    """Remove the blocks whose class and id ``named`` accepts, except a layout wrapper
    of the page (one that holds the ``h1`` or half of the scope's text)."""
    limit = _WRAPPER_SHARE * _length(scope)
    for element in elements(_LABELLED, scope):
        if element.getparent() is None:
            continue  # inside a block removed already
        label = f"{element.get('class') or ''} {element.get('id') or ''}"
        if named(label) and not number(_H1, element) and _length(element) < limit:
            remove(element)


def _drop_comment_threads(scope: etree._Element) -> None:
    """Remove the readers' comment threads, whatever their share of the page (a thread
    can outgrow the post), unless one holds a heading of the page (a layout wrapper) or
    the page has little left without them (then the comments are what the page is)."""
    threads = [
        element
        for element in elements(_THREADS, scope)
        if not _COMMENT_TOKENS.isdisjoint(
            f"{element.get('class') or ''} {element.get('id') or ''}".lower().split()
        )
        and not number(_HEADINGS, element)
    ]
    outermost = [t for t in threads if not any(a in threads for a in t.iterancestors())]
    rest = _length(scope) - sum(_length(thread) for thread in outermost)
    if rest < _LEFT_WITHOUT_COMMENTS:
        return
    for thread in outermost:
        remove(thread)


def unwrap_prose_forms(body: etree._Element) -> None:
    """Turn into a ``div`` every form a reader cannot type in, pick from or press, unless
    its name or target says what it is for (a sign-up whose field a script adds): markup
    around prose (ASP.NET and some CMSs wrap text in a form that posts a hidden token),
    not a search box, a sign-up or a login, so no extractor takes it for chrome."""
    for form in elements(_FORMS, body):
        purpose = " ".join(form.get(name) or "" for name in ("class", "id", "name", "action"))
        if not elements(_CONTROLS, form) and not _FORM_PURPOSE_RE.search(purpose):
            form.tag = "div"


def drop_disowned(body: etree._Element) -> None:
    """Remove the blocks the page disowns (see ``_MARKS``), except one that holds
    every ``h1`` of the page (a page served as a lightbox). A consent dialog can hold
    more text than the page, and the terms of service in a modal their own ``h1``, so
    neither size nor a heading alone tells the page from an overlay."""
    blocks = [
        block
        for mark in cast("list[etree._ElementUnicodeResult]", _MARKS(body))
        if (wanted := _DISOWNING[str(mark.attrname)]) is None or mark.strip().lower() == wanted
        if (block := mark.getparent()) is not None
    ]
    headings = number(_H1, body) if blocks else 0
    for block in blocks:
        if block.getparent() is not None and not (headings and number(_H1, block) == headings):
            remove(block)


def drop_copies(scope: etree._Element) -> None:
    """Drop innermost blocks that repeat an earlier one (but never a block inside it)."""
    seen: dict[tuple[str, ...], etree._Element] = {}
    for block, words in innermost_blocks(scope):
        first = seen.setdefault(words, block)
        if first is not block and not any(a is first for a in block.iterancestors()):
            remove(block)


def innermost_blocks(
    scope: etree._Element,
) -> Iterator[tuple[etree._Element, tuple[str, ...]]]:
    """The innermost blocks long enough to be a copy when repeated, with their words
    (lower-cased), in document order; code and table cells repeat on purpose and are
    left out. Safe to remove each block as it comes."""
    for block in list(scope.iter(*_BLOCKS)):
        if block.tag in _DATA_BLOCKS or any(child.tag in _BLOCK_SET for child in block):
            continue
        words = tuple(_WORD_RE.findall(text_of(block).casefold()))
        if len(words) >= _COPY_WORDS:
            yield block, words
