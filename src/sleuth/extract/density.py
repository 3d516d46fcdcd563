"""A second opinion on the main content: paragraphs vote for their containers.

The readability idea, rewritten small: every paragraph scores by length and commas
and passes its score up to its parent and grandparent; the container with the best
score, discounted by how much of its text is links, is the article. Siblings that
score well join it, and so do far-away containers that share its class (bodies
split around an advert). Link-dense lists and blocks whose class says "share",
"related" or "comments" are pruned from the result.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from copy import deepcopy
from dataclasses import dataclass
from functools import lru_cache

from lxml import etree

from sleuth.extract.dom import XML_SPACE, elements, itertext, number, remove, strings

_PARAGRAPH_TAGS = ("p", "pre", "blockquote", "td", "li", "div", "section", "article")
_CONTAINER_TAGS = frozenset(("div", "section", "article"))
# Measured in libxml2, not Python: these run for every paragraph of every page.
_LENGTH = etree.XPath("string-length(normalize-space(.))")
_COMMAS = etree.XPath("string-length(.) - string-length(translate(., ',，', ''))")
_LINK_TEXTS = etree.XPath(".//a//text()", smart_strings=False)
_H1 = etree.XPath("count(.//h1)")
_DOCUMENT_POSITION = etree.XPath("count(preceding::*) + count(ancestor::*)")
_NEGATIVE_RE = re.compile(
    r"comment|disqus|footer|sidebar|related|share|sharing|social|\bnav|menu|breadcrumb|promo"
    r"|sponsor|advert|\bads?\b|\bad-|banner|cookie|consent|newsletter|subscri|signup|popup|modal"
    r"|masthead|pagination|\bpager\b|\btags?\b|outbrain|taboola|recirc|trending|popular"
    r"|more-stories|read-more|toolbar|skip",
    re.IGNORECASE,
)
_THREAD_RE = re.compile(r"comment|disqus|repl(?:y|ies)|respond|discussion", re.IGNORECASE)
_POSITIVE_RE = re.compile(
    r"article|\bbody|content|entry|\bmain|\bpost|story|\btext|prose|blog", re.IGNORECASE
)
_DROP_TAGS = frozenset(("nav", "aside", "footer", "form", "button", "input", "select", "textarea"))
_MIN_PARAGRAPH = 25
_LONG_ENOUGH = etree.XPath(f"$paragraphs[string-length(normalize-space(.)) >= {_MIN_PARAGRAPH}]")
_CLASS_WEIGHT = 25.0
_LEAF_PARAGRAPHS = frozenset(("p", "pre", "blockquote", "li"))
_TAG_WEIGHT = {"div": 5.0, "article": 10.0, "main": 10.0, "section": 3.0, "td": 3.0}


def _length(element: etree._Element) -> int:
    return int(number(_LENGTH, element))


def _link_density(element: etree._Element, length: int) -> float:
    if not length:
        return 1.0
    return min(1.0, sum(len(t.strip()) for t in strings(_LINK_TEXTS, element)) / length)


def _label(element: etree._Element) -> str:
    return f"{element.get('class') or ''} {element.get('id') or ''}"


@lru_cache(maxsize=4096)
def _label_weight(label: str) -> float:
    """Class and id words vote: +25 for article-like names, -25 for boilerplate ones."""
    if not label.strip():
        return 0.0
    weight = 0.0
    if _NEGATIVE_RE.search(label):
        weight -= _CLASS_WEIGHT
    if _POSITIVE_RE.search(label):
        weight += _CLASS_WEIGHT
    return weight


@dataclass
class _Candidate:
    element: etree._Element
    score: float


@lru_cache(maxsize=4096)
def _boilerplate_label(label: str) -> bool:
    return bool(_NEGATIVE_RE.search(label)) and not _POSITIVE_RE.search(label)


def _is_boilerplate(element: etree._Element) -> bool:
    """A container whose class or id names comments, sharing, navigation and the like."""
    if element.tag in ("body", "html", "main", "article"):
        return False
    get = element.get
    classes, ident = get("class"), get("id")
    if not classes and not ident:
        return False  # most elements: no name to read
    return _boilerplate_label(f"{classes or ''} {ident or ''}")


def _self_and_ancestors(element: etree._Element) -> Iterator[etree._Element]:
    yield element
    yield from element.iterancestors()


def _is_wrapper(element: etree._Element, page_length: int) -> bool:
    """A layout wrapper, whatever its class says ("page-ad-margins", "sticky-sidebar"):
    it holds the page's headline, or most of its text without being a comment thread."""
    if number(_H1, element):
        return True
    return _length(element) > page_length / 2 and not _THREAD_RE.search(_label(element))


def _in_boilerplate(
    element: etree._Element, memo: dict[etree._Element, bool], page_length: int
) -> bool:
    """Whether the element or an ancestor is boilerplate; memoised, as paragraphs share
    their ancestors."""
    path: list[etree._Element] = []
    verdict = False
    for ancestor in _self_and_ancestors(element):
        known = memo.get(ancestor)
        if known is not None:
            verdict = known
            break
        path.append(ancestor)
        if _is_boilerplate(ancestor) and not _is_wrapper(ancestor, page_length):
            verdict = True
            break
    for ancestor in path:
        memo[ancestor] = verdict
    return verdict


def _paragraphs(root: etree._Element) -> Iterator[etree._Element]:
    """Paragraph-like elements of the body, and containers holding text directly.

    A tree walk: the equivalent XPath costs more than the rest of the density pass.
    """
    body = root.find("body")
    if body is None:
        return
    for element in body.iter(*_PARAGRAPH_TAGS):
        if element.tag not in _CONTAINER_TAGS or _holds_text(element):
            yield element


def _holds_text(element: etree._Element) -> bool:
    if element.text and element.text.strip(XML_SPACE):
        return True
    return any(child.tail and child.tail.strip(XML_SPACE) for child in element)


def _score(root: etree._Element) -> dict[etree._Element, _Candidate]:
    candidates: dict[etree._Element, _Candidate] = {}
    memo: dict[etree._Element, bool] = {}
    page_length = _length(root)
    lengths: dict[etree._Element, int] = {}  # candidates are often paragraphs too
    paragraphs = list(_paragraphs(root))
    # the cheapest test first, on all of them in one call: most are short
    long_enough = set(elements(_LONG_ENOUGH, root, paragraphs=paragraphs))
    for paragraph in paragraphs:
        if paragraph not in long_enough:
            continue
        length = lengths[paragraph] = _length(paragraph)
        if _in_boilerplate(paragraph, memo, page_length):
            continue
        if _link_density(paragraph, length) > 0.5:
            continue
        points = 1.0 + number(_COMMAS, paragraph) + min(length / 100, 3.0)
        # A container holding text directly (lines split by <br>) is a paragraph and
        # a candidate at once: it votes for itself too.
        leaf = paragraph.tag in _LEAF_PARAGRAPHS
        voters = paragraph.iterancestors() if leaf else _self_and_ancestors(paragraph)
        for level, ancestor in enumerate(voters):
            if level > 2 or ancestor.tag in ("body", "html"):
                break
            candidate = candidates.get(ancestor)
            if candidate is None:
                base = _TAG_WEIGHT.get(ancestor.tag, 0.0) + _label_weight(_label(ancestor))
                candidate = candidates[ancestor] = _Candidate(ancestor, base)
            candidate.score += points / (1 if level == 0 else 2 * level)
    for candidate in candidates.values():
        known = lengths.get(candidate.element)
        length = _length(candidate.element) if known is None else known
        candidate.score *= 1.0 - _link_density(candidate.element, length)
    return candidates


def signature(element: etree._Element) -> tuple[str, str] | None:
    """Tag and class of a container; None when it has no class to recognise it by."""
    classes = element.get("class")
    return (element.tag, classes) if classes and classes.strip() else None


def _is_prose(element: etree._Element) -> bool:
    """A sibling paragraph that is article text even without a score of its own."""
    if element.tag != "p":
        return False
    length = _length(element)
    density = _link_density(element, length)
    if length > 80:
        return density < 0.25
    text = "".join(itertext(element)).rstrip()
    return length > 0 and density == 0 and text.endswith((".", "!", "?", "”", '"'))


def _gather(best: _Candidate, candidates: dict[etree._Element, _Candidate]) -> list[etree._Element]:
    threshold = max(10.0, best.score * 0.2)
    kind = signature(best.element)
    parent = best.element.getparent()
    chosen: list[etree._Element] = []
    for sibling in parent if parent is not None else [best.element]:
        if sibling is best.element:
            chosen.append(sibling)
            continue
        candidate = candidates.get(sibling)
        bonus = best.score * 0.2 if kind and signature(sibling) == kind else 0.0
        if (candidate and candidate.score + bonus >= threshold) or _is_prose(sibling):
            chosen.append(sibling)
    if kind:
        # Bodies split around adverts: same container class, far away in the tree.
        for candidate in candidates.values():
            element = candidate.element
            if (
                candidate.score >= threshold
                and signature(element) == kind
                and element not in chosen
                and not any(a in chosen for a in element.iterancestors())
                and not any(c in chosen for c in element.iterdescendants())
            ):
                chosen.append(element)
    return sorted(chosen, key=lambda element: number(_DOCUMENT_POSITION, element))


def _prune(container: etree._Element) -> None:
    """Boilerplate inside the chosen content: widgets by class, link lists, forms."""
    for element in list(container.iterdescendants()):
        if element.getparent() is container:
            continue
        tag = element.tag
        drop = tag in _DROP_TAGS or _is_boilerplate(element)
        if not drop and tag in ("ul", "ol", "table", "div", "section"):
            length = _length(element)
            drop = 0 < length < 2000 and _link_density(element, length) > 0.5
        if drop:
            remove(element)


def density_content(root: etree._Element) -> etree._Element | None:
    """A ``div`` holding copies of the best-scoring content, or None if nothing scores."""
    candidates = _score(root)
    if not candidates:
        return None
    best = max(candidates.values(), key=lambda c: c.score)
    if best.score <= 0:
        return None
    container = etree.Element("div")
    for element in _gather(best, candidates):
        copy = deepcopy(element)
        copy.tail = None
        container.append(copy)
    _prune(container)
    return container if _length(container) else None
