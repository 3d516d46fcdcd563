"""What kind of page this is: the extractor keeps different things on each.

Seven kinds, after the WCXB benchmark's: article, forum, product, collection,
listing, documentation and service (a page about an offer, a landing page, anything
else). The page says what it is more often than not: schema.org types in JSON-LD,
``og:type``, the path words of the software that serves it (``/threads/``,
``/products/``, ``/docs/``), and its markup (code blocks, prices, repeated
``<article>`` cards). No word here names a site.
"""

from __future__ import annotations

from typing import Any, Literal
from urllib.parse import urlsplit

from lxml import etree

from sleuth.extract.dom import elements, itertext, number, string
from sleuth.extract.metadata import json_ld_types

PageType = Literal[
    "article", "forum", "product", "collection", "listing", "documentation", "service"
]

_OG_TYPE = etree.XPath("string(//meta[@property='og:type']/@content)")
_CODE_BLOCKS = etree.XPath("count(//pre)")
_PRICES = etree.XPath("count(//@class[contains(., 'price')])")
_CARDS = etree.XPath("count(//article)")
# A date the page says it was published: what an article carries and a landing page does not.
_PUBLISHED = etree.XPath(
    "count(//meta[@property='article:published_time' or @name='article:published_time'"
    " or @itemprop='datePublished' or @name='date' or @name='pubdate']"
    " | //time[@datetime] | //@itemprop[. = 'datePublished']/..)"
)
_PARAGRAPHS = etree.XPath("//p")

_FORUM_TYPES = frozenset(("discussionforumposting", "qapage", "question"))
_PRODUCT_TYPES = frozenset(("product", "productgroup", "productmodel", "offer"))
_COLLECTION_TYPES = frozenset(("collectionpage", "searchresultspage"))
_ARTICLE_TYPES = frozenset(
    ("article", "newsarticle", "blogposting", "reportagenewsarticle", "opinionnewsarticle")
)
_FORUM_SEGMENTS = frozenset(
    (
        *("forum", "forums", "thread", "threads", "t", "topic", "topics", "question"),
        *("questions", "discussion", "discussions", "discuss", "comments", "community"),
        *("viewtopic.php", "showthread.php"),
    )
)
_PRODUCT_SEGMENTS = frozenset(("product", "products", "p", "item", "itm", "dp", "pd", "sku"))
_COLLECTION_SEGMENTS = frozenset(
    (
        *("collection", "collections", "c", "category", "categories", "cat", "browse"),
        *("shop", "catalog", "catalogue", "department", "departments"),
    )
)
_DOCS_SEGMENTS = frozenset(
    (
        *("docs", "doc", "documentation", "api", "reference", "manual", "guide", "guides"),
        *("library", "latest", "stable", "handbook", "tutorial", "tutorials", "wiki", "kb"),
        *("knowledge-base", "help", "support", "learn"),
    )
)
_ARTICLE_SEGMENTS = frozenset(
    (
        *("blog", "blogs", "news", "article", "articles", "post", "posts", "story"),
        *("stories", "insights", "press"),
    )
)
# Several priced items make a collection; several <article> cards a listing.
_MANY_PRICES = 4
# ... and this many priced items a collection wherever it is served from.
_PRICED_GRID = 8
_MANY_CARDS = 4
_MANY_CODE_BLOCKS = 2
# An article without declarations still reads as one: several paragraphs of prose, and a
# publication date or one <article> around them.
_PROSE_WORDS = 25
_PROSE_PARAGRAPHS = 3


def _segments(url: str | None) -> set[str]:
    if not url:
        return set()
    return {segment for segment in urlsplit(url).path.lower().split("/") if segment}


def page_type(root: etree._Element, url: str | None, json_ld: list[dict[str, Any]]) -> PageType:
    """The kind of page, from what it declares first and its address and markup after."""
    types = json_ld_types(json_ld)
    og_type = string(_OG_TYPE, root).strip().lower()
    segments = _segments(url)
    if types & _FORUM_TYPES:
        return "forum"
    if types & _PRODUCT_TYPES or og_type == "product" or og_type.endswith(":item"):
        return "product"
    if types & _COLLECTION_TYPES or og_type == "product.group":
        return "collection"
    if "techarticle" in types or "apireference" in types:
        return "documentation"
    if segments & _FORUM_SEGMENTS:
        return "forum"
    if segments & (_PRODUCT_SEGMENTS | _COLLECTION_SEGMENTS):
        prices = number(_PRICES, root)
        if segments & _PRODUCT_SEGMENTS and prices:
            return "product"
        if segments & _COLLECTION_SEGMENTS and prices >= _MANY_PRICES:
            return "collection"
    if segments & _DOCS_SEGMENTS or number(_CODE_BLOCKS, root) >= _MANY_CODE_BLOCKS:
        return "documentation"
    if "itemlist" in types and not types & _ARTICLE_TYPES:
        return "listing"
    if types & _ARTICLE_TYPES:
        return "article"
    if og_type == "article" or segments & _ARTICLE_SEGMENTS:
        # a CMS calls every page an article; the index of its news or blog is a listing
        return "listing" if _section_index(url) else "article"
    if number(_CARDS, root) >= _MANY_CARDS:
        return "listing"
    if number(_PRICES, root) >= _PRICED_GRID:
        return "collection"
    if _reads_as_article(root):
        return "article"
    return "service"


def _section_index(url: str | None) -> bool:
    """An address that ends at a section word (``/news``, ``/blog/``) is that section's
    index: its entries have addresses below it."""
    if not url:
        return False
    path = [segment for segment in urlsplit(url).path.lower().split("/") if segment]
    return bool(path) and path[-1] in _ARTICLE_SEGMENTS


def _reads_as_article(root: etree._Element) -> bool:
    dated = number(_PUBLISHED, root) > 0 or number(_CARDS, root) == 1
    if not dated:
        return False
    prose = 0
    for paragraph in elements(_PARAGRAPHS, root):
        if len("".join(itertext(paragraph)).split()) >= _PROSE_WORDS:
            prose += 1
            if prose >= _PROSE_PARAGRAPHS:
                return True
    return False
