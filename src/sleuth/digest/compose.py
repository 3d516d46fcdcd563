"""Turning selected findings into a :class:`Digest` that fits an LLM's context cheaply.

Citation ids are given in order of first use, a page beyond ``max_citations``
is never cited, and bullets are dropped from the end (least relevant first)
until the JSON fits ``token_budget`` at a rough four characters per token.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass

from sleuth.digest.models import Bullet, Citation, Digest, DigestError, DigestMeta
from sleuth.digest.rank import KeySpan
from sleuth.websearch.urls import domain_of

MAX_CITATIONS = 8
TOKEN_BUDGET = 1500
CHARS_PER_TOKEN = 4


@dataclass(frozen=True, slots=True)
class Page:
    """A page that was read: its extracted text is what bullets quote."""

    url: str
    text: str
    fetched_at: str
    title: str = ""
    published: str | None = None
    page_offsets: tuple[int, ...] = ()  # where each page of a PDF starts in ``text``

    def page_at(self, offset: int) -> int | None:
        """The page (from 1) holding ``offset`` of a document's text; None for a web page."""
        return bisect_right(self.page_offsets, offset) or None if self.page_offsets else None


def estimate_tokens(digest: Digest) -> int:
    return math.ceil(len(digest.model_dump_json()) / CHARS_PER_TOKEN)


def _build(
    query: str,
    pages: Sequence[Page],
    findings: Sequence[KeySpan],
    *,
    errors: list[DigestError],
    meta: DigestMeta,
    max_citations: int,
) -> Digest:
    ids: dict[int, int] = {}
    bullets: list[Bullet] = []

    def cite(page: int) -> bool:
        """Give ``page`` an id if it has none and the cap allows; False when it cannot be cited."""
        if page not in ids:
            if len(ids) >= max_citations:
                return False
            ids[page] = len(ids) + 1
        return True

    for finding in findings:
        # The first page is the one quoted: without it the bullet has no source.
        if not finding.pages or not cite(finding.pages[0]):
            continue
        cited = [finding.pages[0], *(p for p in finding.pages[1:] if cite(p))]
        source = pages[finding.pages[0]]
        quote = source.text[finding.start : finding.end]
        number = source.page_at(finding.start)
        bullets.append(
            Bullet(
                text=" ".join(quote.split()),
                citations=[ids[p] for p in cited],
                quote=quote,
                source_offset=finding.start,
                page=number,
                locator=f"{source.url.split('#', 1)[0]}#page={number}" if number else None,
            )
        )
    citations = [
        Citation(
            id=number,
            title=pages[page].title or domain_of(pages[page].url),
            url=pages[page].url,
            domain=domain_of(pages[page].url),
            published=pages[page].published,
            fetched_at=pages[page].fetched_at,
        )
        for page, number in ids.items()
    ]
    return Digest(query=query, bullets=bullets, citations=citations, errors=errors, meta=meta)


def compose(
    query: str,
    pages: Sequence[Page],
    findings: Sequence[KeySpan],
    *,
    errors: Sequence[DigestError] = (),
    meta: DigestMeta | None = None,
    max_citations: int = MAX_CITATIONS,
    token_budget: int = TOKEN_BUDGET,
) -> Digest:
    """The digest of ``findings`` (best first); at least one bullet survives the budget."""
    kept = len(findings)
    while True:
        digest = _build(
            query,
            pages,
            findings[:kept],
            errors=list(errors),
            meta=meta or DigestMeta(),
            max_citations=max_citations,
        )
        if kept <= 1 or estimate_tokens(digest) <= token_budget:
            return digest
        kept -= 1
