"""``map``: a site's URLs without reading every page.

Sources, in order: the sitemaps robots.txt names and ``/sitemap.xml`` (indexes nested
and gzip-compressed), the RSS/Atom feeds the start page announces or links to, and the
start page's own links. Robots.txt and sitemaps are read by the session's guarded client
and robots checker; the start page by its :meth:`Fetcher.fetch`, like every page.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

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

if TYPE_CHECKING:
    from sleuth.web import Web

DEFAULT_LIMIT = 10_000
SITEMAP_CAP = 16 * 1024 * 1024  # bytes of one sitemap, unpacked; the protocol allows 50 MB


class SiteMapper:
    """Lists a site's URLs once each, within a scope, up to a limit; ``notes`` says what
    could not be read."""

    def __init__(self, web: Web, *, sitemap_cap: int = SITEMAP_CAP) -> None:
        self.notes = Notes()
        self._deadline = web.fetching.fetch_deadline
        self._client = web.client
        self._fetcher = web.fetcher
        self._robots = web.robots
        self._cap = sitemap_cap

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
            seconds=self._deadline * 2,
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
                seconds=self._deadline,
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
