"""Turning what a provider returned into clean, unique, ranked hits."""

from __future__ import annotations

import html
import re
from collections.abc import Iterable
from typing import NamedTuple

from sleuth.websearch.models import SearchHit, SearchQuery
from sleuth.websearch.urls import domain_of, is_web_url, normalize_url, on_site

# Block-level tags separate words; inline ones (<b>, <em>) sit inside them.
_BLOCK_TAG = re.compile(
    r"<\s*/?\s*(?:br|p|div|li|tr|td|th|h[1-6]|ul|ol|table|section|article|blockquote)\b[^>]*>",
    re.IGNORECASE,
)
_TAG = re.compile(r"<[^>]*>")
_WORD = re.compile(r"\w+")
# Titles this short are too generic ("Home", "Docs") to call two sites' pages the same.
_MIN_TOKENS_ACROSS_SITES = 4
_SAME_SITE_OVERLAP = 0.8


def plain_text(value: object) -> str:
    """Tags stripped, entities decoded, whitespace collapsed: what a reader sees."""
    if not isinstance(value, str):
        return ""
    return " ".join(html.unescape(_TAG.sub("", _BLOCK_TAG.sub(" ", value))).split())


class RawHit(NamedTuple):
    """A result as a provider spelled it, before cleaning."""

    title: object
    url: object
    snippet: object = ""
    published: object = None


def make_hits(provider: str, rows: Iterable[RawHit]) -> list[SearchHit]:
    """Clean hits ranked in provider order; rows without a valid web link are dropped."""
    hits: list[SearchHit] = []
    for row in rows:
        url = row.url.strip() if isinstance(row.url, str) else ""
        if not is_web_url(url):
            continue
        domain = domain_of(url)
        hits.append(
            SearchHit(
                rank=len(hits) + 1,
                title=plain_text(row.title) or domain,
                url=url,
                domain=domain,
                snippet=plain_text(row.snippet),
                published=plain_text(row.published) or None,
                provider=provider,
            )
        )
    return hits


def _tokens(title: str) -> list[str]:
    return _WORD.findall(title.lower())


def _same_title(a: SearchHit, b: SearchHit) -> bool:
    ta, tb = _tokens(a.title), _tokens(b.title)
    if not ta or not tb:
        return False
    if a.domain != b.domain:
        return ta == tb and len(ta) >= _MIN_TOKENS_ACROSS_SITES
    if ta == tb:
        return True
    sa, sb = set(ta), set(tb)
    return len(sa & sb) / len(sa | sb) >= _SAME_SITE_OVERLAP


def finalize(hits: Iterable[SearchHit], query: SearchQuery) -> list[SearchHit]:
    """Drop off-site and duplicate hits, keep the best-ranked copy, renumber from 1."""
    kept: list[SearchHit] = []
    seen_urls: set[str] = set()
    for hit in sorted(hits, key=lambda h: h.rank):
        if query.site_include and not any(on_site(hit.domain, s) for s in query.site_include):
            continue
        if any(on_site(hit.domain, s) for s in query.site_exclude):
            continue
        key = normalize_url(hit.url)
        if key in seen_urls or any(_same_title(hit, other) for other in kept):
            continue
        seen_urls.add(key)
        kept.append(hit)
        if len(kept) == query.max_results:
            break
    return [hit.model_copy(update={"rank": i}) for i, hit in enumerate(kept, start=1)]
