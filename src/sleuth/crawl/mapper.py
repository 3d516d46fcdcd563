"""``map``: a site's URLs without reading every page.

Sources, in order: the sitemaps robots.txt names and ``/sitemap.xml`` (indexes nested
and gzip-compressed), the RSS/Atom feeds the start page announces or links to, and the
start page's own links. Robots.txt and sitemaps are read by the guarded client; the
start page by :meth:`Fetcher.fetch`, like every page.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import urlsplit

import httpx

from sleuth.cache.base import Cache
from sleuth.config import Settings
from sleuth.crawl.scope import Scope
from sleuth.crawl.sitemaps import (
    Entry,
    Notes,
    looks_like_feed,
    parse_xml,
    read_document,
    walk_sitemaps,
)
from sleuth.crawl.urls import canonical
from sleuth.errors import SleuthError
from sleuth.net import make_client
from sleuth.pages.fetcher import Fetcher
from sleuth.pages.robots import RobotsChecker

DEFAULT_LIMIT = 10_000
SITEMAP_CAP = 16 * 1024 * 1024  # bytes of one sitemap, unpacked; the protocol allows 50 MB


class SiteMapper:
    """Lists a site's URLs once each, within a scope, up to a limit; ``notes`` says what
    could not be read."""

    def __init__(
        self,
        settings: Settings,
        *,
        cache: Cache,
        resolver: Any = None,
        fetcher: Fetcher | None = None,
        client: httpx.AsyncClient | None = None,
        sitemap_cap: int = SITEMAP_CAP,
    ) -> None:
        self.settings = settings
        self.notes = Notes()
        self._client = client or make_client(settings.net, resolver=resolver)
        self._owns_client = client is None
        self._fetcher = fetcher or Fetcher(
            settings, cache=cache, resolver=resolver, client=self._client
        )
        self._owns_fetcher = fetcher is None
        self._robots = RobotsChecker(
            self._client,
            cache,
            ttl=settings.robots_cache_ttl,
            deadline_seconds=settings.fetch_deadline,
        )
        self._cap = sitemap_cap

    async def aclose(self) -> None:
        if self._owns_fetcher:
            await self._fetcher.aclose()
        if self._owns_client:
            await self._client.aclose()

    async def __aenter__(self) -> SiteMapper:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def sitemap_roots(self, start: str) -> list[str]:
        parts = urlsplit(start)
        roots: list[str] = []
        try:
            policy = await self._robots.policy(start)
            if policy.verdict == "rules":
                from protego import Protego

                for url in Protego.parse(policy.body).sitemaps:
                    found = canonical(url, start)
                    if found and found not in roots:
                        roots.append(found)
        except SleuthError as exc:
            self.notes.add(f"robots.txt: {exc.message}")
        fallback = f"{parts.scheme}://{parts.netloc}/sitemap.xml"
        if fallback not in roots:
            roots.append(fallback)
        return roots

    async def robots_allow(self, url: str) -> bool:
        """robots.txt's word on a sitemap or feed; a refusal is a note, not an error."""
        try:
            await self._robots.check(url)
        except SleuthError as exc:
            self.notes.add(f"{url}: not read: {exc.message}")
            return False
        return True

    async def sitemap_entries(
        self, start: str, *, respect_robots: bool = True
    ) -> AsyncIterator[Entry]:
        roots = await self.sitemap_roots(start)
        fallback = frozenset(roots[-1:])  # a site without /sitemap.xml is normal, not news
        async for entry in walk_sitemaps(
            self._client,
            roots,
            cap=self._cap,
            seconds=self.settings.fetch_deadline * 2,
            notes=self.notes,
            quiet_missing=fallback,
            allowed=self.robots_allow if respect_robots else None,
        ):
            yield entry

    async def entries(
        self, start: str, scope: Scope, *, limit: int = DEFAULT_LIMIT, respect_robots: bool = True
    ) -> AsyncIterator[Entry]:
        """Each URL once, sitemaps first, then feeds, then the start page's links."""
        seen: set[str] = set()
        count = 0

        def fresh(entry: Entry) -> bool:
            if entry.url in seen or not scope.allows(entry.url):
                return False
            seen.add(entry.url)
            return True

        async for entry in self.sitemap_entries(scope.start, respect_robots=respect_robots):
            if count >= limit:
                return
            if fresh(entry):
                count += 1
                yield entry
        page = await self._fetcher.fetch(start, respect_robots=respect_robots)
        if not page.ok:
            message = page.error.message if page.error else page.outcome
            self.notes.add(f"{start}: {page.outcome}: {message}")
        feeds = [
            link["url"] for link in page.links if link.get("type") or looks_like_feed(link["url"])
        ]
        for feed in feeds[:10]:
            if not scope.contains(feed):
                continue
            if respect_robots and not await self.robots_allow(feed):
                continue
            data = await read_document(
                self._client,
                feed,
                cap=self._cap,
                seconds=self.settings.fetch_deadline,
                notes=self.notes,
            )
            if data is None:
                continue
            _, pages, _ = parse_xml(data, feed, self.notes)
            for entry in pages:
                if count >= limit:
                    return
                if fresh(Entry(entry.url, "feed", entry.lastmod)):
                    count += 1
                    yield Entry(entry.url, "feed", entry.lastmod)
        declared = page.metadata.get("canonical_url")
        start_url = canonical(declared) if isinstance(declared, str) else None
        for url in [start_url or scope.start, *(link["url"] for link in page.links)]:
            if count >= limit:
                return
            if url in feeds:
                continue
            if fresh(Entry(url, "links")):
                count += 1
                yield Entry(url, "links")
