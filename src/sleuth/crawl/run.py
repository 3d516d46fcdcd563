"""The map and crawl operations over a session's :class:`~sleuth.web.Web`: what the CLI,
the Python API, the LLM tools and the HTTP jobs call."""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator, Callable
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field

from sleuth.crawl.crawler import Crawler, CrawlOptions, Progress, summary
from sleuth.crawl.mapper import DEFAULT_LIMIT, SITEMAP_DEADLINES, SiteMapper
from sleuth.crawl.scope import Scope, ScopeKind
from sleuth.crawl.sitemaps import Entry
from sleuth.pages.fetcher import normalize_input_url

if TYPE_CHECKING:
    from sleuth.web import Web


class MapEntry(BaseModel):
    url: str
    source: str = Field(description="sitemap, feed or links")
    lastmod: str | None = None


class SiteMap(BaseModel):
    url: str
    entries: list[MapEntry] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list, description="what could not be read")


async def map_entries(
    web: Web,
    url: str,
    *,
    scope: ScopeKind = "host",
    include: tuple[str, ...] = (),
    exclude: tuple[str, ...] = (),
    limit: int = DEFAULT_LIMIT,
    respect_robots: bool = True,
    notes: list[str] | None = None,
    deadline: float | None = None,
    clock: Callable[[], float] | None = None,
) -> AsyncIterator[Entry]:
    """The map, entry by entry; what could not be read is appended to ``notes``. With
    ``deadline`` (seconds), the map ends then with what it has, and a note says so."""
    start = normalize_input_url(url)
    boundary = Scope(start, scope, include, exclude)
    mapper = SiteMapper(web)
    try:
        async for entry in mapper.entries(
            start,
            boundary,
            limit=limit,
            respect_robots=respect_robots,
            deadline=deadline,
            clock=clock,
        ):
            yield entry
    finally:
        if notes is not None:
            notes.extend(mapper.notes.lines)


async def site_map(web: Web, url: str, **options: Any) -> SiteMap:
    """The whole map at once (``deadline=`` and the rest as :func:`map_entries`)."""
    notes: list[str] = []
    entries = [
        MapEntry(url=entry.url, source=entry.source, lastmod=entry.lastmod)
        async for entry in map_entries(web, url, notes=notes, **options)
    ]
    return SiteMap(url=normalize_input_url(url), entries=entries, notes=notes)


class CrawlRun:
    """One crawl, as :func:`sleuth.ops.crawl.crawl` returns it::

        async with session.crawl(url, max_pages=20) as run:
            async for record in run:  # each page's record as it is done
                ...
            run.notes, run.progress, await run.summaries()

    Nothing is read until it is iterated, and it is iterated once. ``progress`` counts as
    pages come; ``notes`` says what the run skipped and why (sitemaps not read, bad URLs,
    a host skipped for its Crawl-delay, the deadline), complete once the iteration ends or
    the run is left; :meth:`summaries` lists every page the crawl has read, earlier runs of
    a resumed crawl included (what an index or an llms.txt lists).
    """

    def __init__(self, web: Web, url: str, options: CrawlOptions) -> None:
        self.start = normalize_input_url(url)
        self.web = web
        self.options = options
        self.notes: list[str] = []
        self.crawler = Crawler(web, self.start, options)
        self._records: AsyncGenerator[dict[str, Any], None] | None = None

    @property
    def id(self) -> str:
        return self.crawler.id

    @property
    def progress(self) -> Progress:
        return self.crawler.progress

    async def _seeds(self) -> list[str]:
        if not self.options.sitemaps:
            return []
        seeds: list[str] = []
        limit = max(self.options.max_pages * 4, 100)
        mapper = SiteMapper(self.web)  # the session's client, fetcher and robots checker
        mapper.notes = self.crawler.notes  # one list of the run's notes, summaries first
        seconds = None  # the sitemaps' own budget, within what is left of the deadline
        left = self.crawler.time_left()
        if left is not None:
            seconds = min(left, self.web.fetching.fetch_deadline * SITEMAP_DEADLINES)
        async for entry in mapper.sitemap_entries(
            self.start,
            respect_robots=self.options.respect_robots,
            seconds=seconds,
            clock=self.crawler.clock,
        ):
            if self.crawler.scope.allows(entry.url):
                seeds.append(entry.url)
            if len(seeds) >= limit:
                break
        return seeds

    async def _pages(self) -> AsyncGenerator[dict[str, Any], None]:
        """Each page's record as it is done: fetch JSON plus ``depth`` and ``parent``."""
        self.crawler.begin()  # the deadline counts the sitemaps' reading too
        try:
            seeds = await self._seeds()
            async for record in self.crawler.records(seeds):
                yield record
        finally:
            self.notes[:] = self.crawler.notes.lines

    def __aiter__(self) -> AsyncGenerator[dict[str, Any], None]:
        if self._records is None:
            self._records = self._pages()
        return self._records

    async def summaries(self) -> list[dict[str, Any]]:
        """Every page of the crawl (all its runs), as an index or llms.txt lists them."""
        return await self.crawler.all_summaries()

    async def aclose(self) -> None:
        """Stop reading: pages in flight are dropped and the notes are complete. The
        network stays open: the run uses its session's web."""
        if self._records is not None:
            await self._records.aclose()

    async def __aenter__(self) -> CrawlRun:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


__all__ = ["CrawlOptions", "CrawlRun", "MapEntry", "SiteMap", "map_entries", "site_map", "summary"]
