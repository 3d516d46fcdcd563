"""For tests that need one part of a session: the fetcher, map or crawl run its Web
serves, or research through a session of its own."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from sleuth.api import AsyncSleuth
from sleuth.cache import Cache
from sleuth.config import Settings
from sleuth.crawl.crawler import CrawlOptions
from sleuth.crawl.run import CrawlRun, SiteMap
from sleuth.crawl.run import site_map as map_of
from sleuth.digest import Digest
from sleuth.net import Clients
from sleuth.pages import Fetcher
from sleuth.web import Web
from sleuth.websearch import ProviderChain


@asynccontextmanager
async def opened_fetcher(
    settings: Settings, *, cache: Cache, resolver: Any = None
) -> AsyncIterator[Fetcher]:
    """The fetcher of a Web of its own, closed (client and browser) on the way out."""
    async with Web(settings, cache, resolver=resolver) as web:
        yield web.fetcher


async def research(question: str, *, settings: Settings, cache: Cache, **options: Any) -> Digest:
    """``research`` through a session of its own over ``cache``: the one door."""
    async with AsyncSleuth(settings, cache=cache) as session:
        return await session.research(question, **options)


async def site_map(settings: Settings, cache: Cache, url: str, **options: Any) -> SiteMap:
    """``map`` over a Web of its own."""
    async with Web(settings, cache) as web:
        return await map_of(web, url, **options)


@asynccontextmanager
async def crawl_run(
    settings: Settings, cache: Cache, url: str, options: CrawlOptions
) -> AsyncIterator[CrawlRun]:
    """A crawl run over a Web of its own."""
    async with Web(settings, cache) as web, CrawlRun(web, url, options) as run:
        yield run


def chain_of(settings: Settings, cache: Cache, **options: Any) -> ProviderChain:
    """A search chain over ``settings``' search section; its clients come from a factory of
    its own (a session's come from its Web)."""
    return ProviderChain(settings.search, cache, clients=Clients(settings.net), **options)
