"""``map``: a site's URLs without reading every page.

Sources, in order: the sitemaps robots.txt names and ``/sitemap.xml`` (indexes nested
and gzip-compressed), the RSS/Atom feeds the start page announces or links to, and the
start page's own links. Robots.txt and sitemaps are read by the session's guarded client
and robots checker; the start page by its :meth:`Fetcher.fetch`, like every page.

A map lists what sleuth may read: a URL robots.txt disallows for sleuth is left out,
and a note says how many were. A URL the HTTP client cannot parse is a note too.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from sleuth.crawl.scope import Scope
from sleuth.crawl.sitemaps import (
    Entry,
    Notes,
    looks_like_feed,
    parse_xml,
    read_document,
    usable,
    walk_sitemaps,
)
from sleuth.errors import SleuthError
from sleuth.pages.robots import robots_url

if TYPE_CHECKING:
    from sleuth.web import Web

DEFAULT_LIMIT = 10_000
SITEMAP_CAP = 16 * 1024 * 1024  # bytes of one sitemap, unpacked; the protocol allows 50 MB
SITEMAP_DEADLINES = 4  # all of a map's sitemaps together get this many fetch deadlines


class SiteMapper:
    """Lists a site's URLs once each, within a scope, up to a limit; ``notes`` says what
    could not be read."""

    clock: Callable[[], float] = staticmethod(time.monotonic)  # the deadline's; tests replace it

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
                    found = usable(url, robots_url(start), self.notes)
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

    async def may_list(self, url: str) -> bool:
        """robots.txt lets sleuth read ``url``: a map lists only what a crawl could read.
        An origin whose robots.txt cannot be read lists nothing (RFC 9309: unreachable
        means disallowed)."""
        try:
            return (await self._robots.policy(url)).allows(url)
        except SleuthError:
            return False

    async def sitemap_entries(
        self,
        start: str,
        *,
        respect_robots: bool = True,
        seconds: float | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> AsyncIterator[Entry]:
        """Pages the sitemaps list; all of them together are read within ``seconds``
        (by default :data:`SITEMAP_DEADLINES` fetch deadlines)."""
        roots = await self.sitemap_roots(start)
        fallback = frozenset(roots[-1:])  # a site without /sitemap.xml is normal, not news
        per_document = self._deadline
        total = per_document * SITEMAP_DEADLINES if seconds is None else seconds
        async for entry in walk_sitemaps(
            self._client,
            roots,
            cap=self._cap,
            seconds=per_document,
            total=total,
            notes=self.notes,
            quiet_missing=fallback,
            allowed=self.robots_allow if respect_robots else None,
            clock=clock,
        ):
            yield entry

    async def entries(
        self,
        start: str,
        scope: Scope,
        *,
        limit: int = DEFAULT_LIMIT,
        respect_robots: bool = True,
        deadline: float | None = None,
        clock: Callable[[], float] | None = None,
    ) -> AsyncIterator[Entry]:
        """Each URL once, sitemaps first, then feeds, then the start page's links; none
        that robots.txt disallows. With ``deadline`` (seconds, on ``clock``, by default the
        mapper's), the map ends then with what it has and a note."""
        clock = clock or self.clock
        seen: set[str] = set()
        count = 0
        disallowed = 0
        ends = None if deadline is None else clock() + deadline

        def late() -> bool:
            if ends is None or clock() < ends:
                return False
            self.notes.add(
                f"stopped at the {deadline:g}s deadline; listed what was found", always=True
            )
            return True

        async def fresh(entry: Entry) -> bool:
            nonlocal disallowed
            if entry.url in seen or not scope.allows(entry.url):
                return False
            seen.add(entry.url)
            if respect_robots and not await self.may_list(entry.url):
                disallowed += 1
                return False
            return True

        try:
            async for entry in self.entries_unfiltered(start, scope, respect_robots, ends, clock):
                if count >= limit or late():
                    return
                if await fresh(entry):
                    count += 1
                    yield entry
        finally:
            if disallowed:
                self.notes.add(
                    f"left out {disallowed} URL{'s' if disallowed != 1 else ''} that "
                    f"robots.txt disallows for sleuth",
                    always=True,
                )

    async def entries_unfiltered(
        self,
        start: str,
        scope: Scope,
        respect_robots: bool,
        ends: float | None,
        clock: Callable[[], float],
    ) -> AsyncIterator[Entry]:
        """Every source's URLs in order, repeats and all; :meth:`entries` sorts them."""
        seconds = None if ends is None else max(0.0, ends - clock())
        if seconds is not None:
            seconds = min(seconds, self._deadline * SITEMAP_DEADLINES)
        async for entry in self.sitemap_entries(
            scope.start, respect_robots=respect_robots, seconds=seconds, clock=clock
        ):
            yield entry
        if ends is not None and clock() >= ends:
            return
        page = await self._fetcher.fetch(start, respect_robots=respect_robots)
        if not page.ok:
            message = page.error.message if page.error else page.outcome
            self.notes.add(f"{start}: {page.outcome}: {message}")
        feeds = [
            link["url"] for link in page.links if link.get("type") or looks_like_feed(link["url"])
        ]
        for feed in feeds[:10]:
            if not scope.contains(feed) or usable(feed, start, self.notes) is None:
                continue
            if ends is not None and clock() >= ends:
                return
            seconds = self._deadline
            data = await read_document(
                self._client,
                feed,
                cap=self._cap,
                seconds=seconds if ends is None else max(0.001, min(seconds, ends - clock())),
                notes=self.notes,
                allowed=self.robots_allow if respect_robots else None,
            )
            if data is None:
                continue
            _, pages, _ = parse_xml(data, feed, self.notes)
            for entry in pages:
                yield Entry(entry.url, "feed", entry.lastmod)
        declared = page.metadata.get("canonical_url")
        start_url = usable(declared, start, self.notes) if isinstance(declared, str) else None
        for url in [start_url or scope.start, *(link["url"] for link in page.links)]:
            if url in feeds:
                continue
            found = usable(url, start, self.notes)
            if found is not None:
                yield Entry(found, "links")
