"""A session's one way onto the web: its clients, page fetcher, robots.txt and browser.

Built once per session and handed to every capability that reads the web (fetch, map,
crawl, research, suggest, discover's probes and verification), so they share one guarded
client, one robots.txt memory and one browser. The resolver is given here once and lives
inside the transports (:class:`~sleuth.net.Clients`); nothing hands it on. Each part is
made on first use: a command that never fetches never loads the extractor, and the
browser starts only for a page that needs it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Self

from sleuth.cache.base import Cache
from sleuth.config import Settings
from sleuth.net import Clients, Resolver
from sleuth.net.sites import Sites

if TYPE_CHECKING:
    import httpcore
    import httpx

    from sleuth.pages import Fetcher
    from sleuth.pages.robots import RobotsChecker
    from sleuth.render import Renderer


class Web:
    """The guarded clients, the page client, the fetcher, the robots checker and the
    renderer of one session; close it with :meth:`aclose`.

    ``cache`` holds what they read for the session: pages, robots.txt and the style sheets
    the fetcher's sheet reader shares between a site's pages.
    """

    def __init__(
        self,
        settings: Settings,
        cache: Cache,
        *,
        resolver: Resolver | None = None,
        network_backend: httpcore.AsyncNetworkBackend | None = None,
    ) -> None:
        self.cache = cache
        self.net = settings.net
        self.fetching = settings.fetch
        self.styles = settings.styles
        self.documents = settings.documents
        self.browser = settings.browser
        self.crawl = settings.crawl
        self.clients = Clients(self.net, resolver=resolver, network_backend=network_backend)
        # The operator's [[sites]]: sent by the page client alone, to their exact origins.
        self.sites = Sites(self.net.sites)
        self._client: httpx.AsyncClient | None = None
        self._robots: RobotsChecker | None = None
        self._fetcher: Fetcher | None = None
        self._renderer: Renderer | None = None

    @property
    def client(self) -> httpx.AsyncClient:
        """The one client for pages, robots.txt, sitemaps, feeds, style sheets and the
        browser's requests: it trusts no origin beyond the allowlist, and it alone carries
        the operator's site credentials."""
        if self._client is None:
            self._client = self.clients(sites=self.sites)
        return self._client

    @property
    def robots(self) -> RobotsChecker:
        if self._robots is None:
            from sleuth.pages.robots import RobotsChecker

            self._robots = RobotsChecker(
                self.client,
                self.cache,
                ttl=self.fetching.robots_cache_ttl,
                deadline_seconds=self.fetching.fetch_deadline,
                sites=self.sites,
            )
        return self._robots

    @property
    def fetcher(self) -> Fetcher:
        if self._fetcher is None:
            from sleuth.pages import Fetcher  # the extractor loads on first fetch, not import

            self._fetcher = Fetcher(
                fetching=self.fetching,
                net=self.net,
                styles=self.styles,
                documents=self.documents,
                render=self.browser.render,
                cache=self.cache,
                client=self.client,
                robots=self.robots,
                admit=self.clients.admit,
                renderer=lambda: self.renderer,
                sites=self.sites,
            )
        return self._fetcher

    @property
    def renderer(self) -> Renderer:
        """The headless browser's driver; Chromium itself starts on the first render."""
        if self._renderer is None:
            from sleuth.render import Renderer

            self._renderer = Renderer(self.net, self.browser, client=self.client)
        return self._renderer

    async def aclose(self) -> None:
        if self._renderer is not None:
            await self._renderer.aclose()
        if self._client is not None:
            await self._client.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()
