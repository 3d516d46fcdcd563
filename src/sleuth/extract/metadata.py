"""Page metadata from ``<head>`` tags and JSON-LD, read with a few XPaths.

Deliberately small: OpenGraph, Twitter cards, Dublin Core, schema.org JSON-LD and
the plain HTML tags cover nearly every real page, and reading them costs far less
than parsing dates out of the page text.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Iterator
from datetime import date, datetime
from email.utils import parsedate_to_datetime
from string import ascii_lowercase, ascii_uppercase
from typing import Any
from urllib.parse import urljoin

from lxml import etree

from sleuth.extract.dom import elements, string, strings
from sleuth.extract.text import clean_line, clean_value

# The tags metadata is read from, found in one walk over the tree (an XPath per tag
# walked it once each). Names and values compare with ASCII letters folded, as XPath's
# translate() folded them: str.lower() folds more (the Kelvin sign).
_HEAD_TAGS = ("meta", "script", "link")
_META_KEYS = ("property", "name", "itemprop", "http-equiv")
_ASCII_LOWER = str.maketrans(ascii_uppercase, ascii_lowercase)
_TITLE = etree.XPath("string((//title[not(ancestor::svg)])[1])")
_H1 = etree.XPath("string((//h1)[1])")
_TIME = etree.XPath(
    "(//time[@datetime][@itemprop='datePublished' or @pubdate]"
    " | //article//time[@datetime] | //main//time[@datetime])[1]/@datetime"
)
_ITEMPROP_DATE = etree.XPath(
    "(//@itemprop[. = 'datePublished']/parent::*[@datetime or @content])[1]"
)

# Meta keys (lower case) per field, best first.
_TITLE_KEYS = ("og:title", "twitter:title", "dc.title", "citation_title")
_DESCRIPTION_KEYS = ("og:description", "description", "twitter:description", "dc.description")
_SITE_KEYS = ("og:site_name", "application-name", "twitter:site", "publisher")
_AUTHOR_KEYS = ("author", "article:author", "dc.creator", "citation_author", "parsely-author")
_DATE_KEYS = (
    "article:published_time",
    "datepublished",
    "og:published_time",
    "published_time",
    "publish-date",
    "pubdate",
    "parsely-pub-date",
    "sailthru.date",
    "citation_publication_date",
    "dc.date.issued",
    "dc.date",
    "date",
)
_LANGUAGE_KEYS = ("content-language", "og:locale", "language", "dc.language")
_ARTICLE_TYPES = frozenset(
    (
        "article",
        "newsarticle",
        "blogposting",
        "reportagenewsarticle",
        "analysisnewsarticle",
        "opinionnewsarticle",
        "scholarlyarticle",
        "techarticle",
        "report",
        "discussionforumposting",
        "socialmediaposting",
        "qapage",
        "product",
        "recipe",
        "howto",
        "webpage",
    )
)
_MAX_JSON_LD_CHARS = 500_000
_DATE_PREFIX_RE = re.compile(r"(\d{4})-(\d{2})-(\d{2})")


def page_title(root: etree._Element) -> str:
    """The ``<title>`` element's text (not an SVG's)."""
    return clean_line(string(_TITLE, root))


def _first(values: dict[str, str], keys: tuple[str, ...]) -> str | None:
    for key in keys:
        value = values.get(key)
        if value:
            return value
    return None


def _head_tags(root: etree._Element) -> dict[str, list[etree._Element]]:
    """The ``<meta>``, ``<script>`` and ``<link>`` elements by tag, in document order."""
    found: dict[str, list[etree._Element]] = defaultdict(list)
    for element in root.iter(*_HEAD_TAGS):
        found[str(element.tag)].append(element)
    return found


def _meta_values(metas: list[etree._Element]) -> dict[str, str]:
    """First non-empty ``content`` per lower-cased property/name/itemprop."""
    values: dict[str, str] = {}
    for meta in metas:
        if meta.get("content") is None or all(meta.get(key) is None for key in _META_KEYS):
            continue
        key = meta.get("property") or meta.get("name") or meta.get("itemprop") or ""
        key = (key or meta.get("http-equiv") or "").strip().lower()
        content = clean_line(meta.get("content") or "")
        if key and content and key not in values:
            values[key] = content
    return values


def _json_ld(scripts: list[etree._Element]) -> list[dict[str, Any]]:
    objects: list[dict[str, Any]] = []
    for script in scripts:
        if (script.get("type") or "").translate(_ASCII_LOWER) != "application/ld+json":
            continue
        raw = (script.text or "").strip()
        if not raw or len(raw) > _MAX_JSON_LD_CHARS:
            continue
        raw = raw.removeprefix("<![CDATA[").removesuffix("]]>").strip().rstrip(";")
        try:
            data = json.loads(raw, strict=False)
        except ValueError:
            continue
        for item in data if isinstance(data, list) else [data]:
            if isinstance(item, dict):
                objects.append(item)
    return objects


def _types(item: dict[str, Any]) -> set[str]:
    kind = item.get("@type")
    kinds = kind if isinstance(kind, list) else [kind]
    return {k.lower() for k in kinds if isinstance(k, str)}


def _objects(json_ld: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Top-level objects and the members of their ``@graph``."""
    flat: list[dict[str, Any]] = []
    for item in json_ld:
        flat.append(item)
        graph = item.get("@graph")
        if isinstance(graph, list):
            flat.extend(g for g in graph if isinstance(g, dict))
    return flat


def json_ld_types(json_ld: list[dict[str, Any]]) -> set[str]:
    """Every schema.org ``@type`` the page declares, lower-cased."""
    return {kind for item in _objects(json_ld) for kind in _types(item)}


def _main_entity(json_ld: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The object describing the page itself: an article-like type, webpages last."""
    best: dict[str, Any] | None = None
    for item in _objects(json_ld):
        kinds = _types(item)
        if kinds & (_ARTICLE_TYPES - {"webpage"}):
            return item
        if best is None and "webpage" in kinds:
            best = item
    return best


def _name(value: Any) -> str | None:
    """A person/organisation name from the shapes JSON-LD uses (str, dict, list)."""
    if isinstance(value, str):
        return value or None
    if isinstance(value, dict):
        name = value.get("name")
        return name if isinstance(name, str) and name else None
    if isinstance(value, list):
        names = [n for n in (_name(v) for v in value) if n]
        return ", ".join(dict.fromkeys(names)) or None
    return None


def iso_date(value: str | None) -> str | None:
    """ISO 8601 for the date formats pages use; None when it is not a date."""
    if not value:
        return None
    value = value.strip()
    try:
        if len(value) == len("2024-01-31"):
            return date.fromisoformat(value).isoformat()
        return datetime.fromisoformat(value).isoformat()
    except ValueError:
        pass
    try:
        return parsedate_to_datetime(value).isoformat()
    except (TypeError, ValueError, IndexError):
        pass
    match = _DATE_PREFIX_RE.search(value)
    if match:
        try:
            return date(*map(int, match.groups())).isoformat()
        except ValueError:
            return None
    return None


def _date_candidates(
    root: etree._Element, meta: dict[str, str], entity: dict[str, Any] | None
) -> Iterator[str | None]:
    """Publication dates, most trusted first; the tree is searched only if tags are silent."""
    if entity is not None and isinstance(entity.get("datePublished"), str):
        yield entity["datePublished"]
    yield from (meta.get(key) for key in _DATE_KEYS)
    itemprop = elements(_ITEMPROP_DATE, root)
    if itemprop:
        yield itemprop[0].get("datetime") or itemprop[0].get("content")
    times = strings(_TIME, root)
    if times:
        yield str(times[0])


def _published(
    root: etree._Element, meta: dict[str, str], entity: dict[str, Any] | None
) -> str | None:
    for candidate in _date_candidates(root, meta, entity):
        parsed = iso_date(candidate)
        if parsed:
            return parsed
    return None


def read_metadata(root: etree._Element, url: str | None = None) -> dict[str, Any]:
    """Title, description, canonical URL, date, site, language, author and JSON-LD.

    Run it before sanitising: it needs the JSON-LD scripts the sanitiser removes.
    Keys are present only when a value was found.
    """
    tags = _head_tags(root)
    meta = _meta_values(tags["meta"])
    json_ld = _json_ld(tags["script"])
    entity = _main_entity(json_ld)

    def entity_str(key: str) -> str | None:
        value = entity.get(key) if entity else None
        return value if isinstance(value, str) and value.strip() else None

    publisher = entity.get("publisher") if entity else None
    canonical = [
        href
        for link in tags["link"]
        if (href := link.get("href")) is not None
        and (link.get("rel") or "").translate(_ASCII_LOWER) == "canonical"
    ]
    found: dict[str, Any] = {
        "title": _first(meta, _TITLE_KEYS)
        or entity_str("headline")
        or page_title(root)
        or clean_line(string(_H1, root)),
        "description": _first(meta, _DESCRIPTION_KEYS) or entity_str("description"),
        "canonical_url": str(canonical[0]).strip() if canonical else meta.get("og:url"),
        "published": _published(root, meta, entity),
        "site_name": _first(meta, _SITE_KEYS) or _name(publisher),
        "language": (root.get("lang") or root.get("xml:lang") or "").strip()
        or _first(meta, _LANGUAGE_KEYS)
        or entity_str("inLanguage"),
        "author": _name(entity.get("author")) if entity else None,
        "json_ld": json_ld,
    }
    if not found["author"]:
        found["author"] = _first(meta, _AUTHOR_KEYS)
    if found["canonical_url"] and url:
        try:
            found["canonical_url"] = urljoin(url, found["canonical_url"])
        except ValueError:  # "http://[" on the page or from the caller: not a usable URL
            found["canonical_url"] = None
    if found["language"]:
        found["language"] = found["language"].replace("_", "-")
    return {key: clean_value(value) for key, value in found.items() if value}


def product_description(json_ld: list[dict[str, Any]]) -> str | None:
    """The description a product page declares in JSON-LD (often its only copy of it)."""
    for item in _objects(json_ld):
        if _types(item) & {"product", "productgroup"}:
            description = item.get("description")
            if isinstance(description, str) and description.strip():
                return " ".join(description.split())
    return None
