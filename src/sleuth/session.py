"""The session core: one owner of the settings, the cache, the guarded HTTP client, the
browser and the search chain, with the operations that need nothing above them (fetch,
search, research, detect, suggest).

It sits below ``tools``, ``agent`` and ``discovery``, so a tool can open a session of its
own without reaching up to :mod:`sleuth.api`, which adds ``ask`` and ``discover``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Self

from pydantic import ValidationError

from sleuth.cache import Cache, open_cache
from sleuth.config import Settings, load_settings
from sleuth.errors import UsageError
from sleuth.log import Progress

if TYPE_CHECKING:
    from sleuth.digest import Digest
    from sleuth.pages import Fetcher, FetchResult
    from sleuth.pages.fetcher import OutputFormat, RenderMode
    from sleuth.stack import Project
    from sleuth.suggest import Suggester, SuggestResult
    from sleuth.websearch import ProviderChain, SearchResponse


class AsyncSession:
    """The research core of a session: settings, cache, fetcher and search chain.

    Tools and the agent loop sit above it and take it (or :class:`AsyncSleuth`, which adds
    the LLM jobs) through the :class:`~sleuth.tools.Services` protocol."""

    def __init__(
        self,
        settings: Settings | None = None,
        *,
        config: Path | str | None = None,
        resolver: Any = None,
        cache: Cache | None = None,
        **overrides: Any,
    ) -> None:
        self.settings = settings or load_settings(config, **overrides)
        self.resolver = resolver
        self._cache = cache
        self._fetcher: Fetcher | None = None
        self._chain: ProviderChain | None = None
        self._suggester: Suggester | None = None

    @property
    def cache(self) -> Cache:
        if self._cache is None:
            self._cache = open_cache(self.settings)
        return self._cache

    @property
    def fetcher(self) -> Fetcher:
        if self._fetcher is None:
            from sleuth.pages import Fetcher  # the extractor loads on first fetch, not import

            self._fetcher = Fetcher(self.settings, cache=self.cache, resolver=self.resolver)
        return self._fetcher

    @property
    def chain(self) -> ProviderChain:
        if self._chain is None:
            from sleuth.websearch import ProviderChain

            self._chain = ProviderChain(self.settings, self.cache, resolver=self.resolver)
        return self._chain

    async def fetch(
        self,
        url: str,
        *,
        format: OutputFormat = "text",
        render: RenderMode | None = None,
        refresh: bool = False,
        respect_robots: bool = True,
        max_chars: int | None = None,
        start_index: int = 0,
    ) -> FetchResult:
        """Fetch one page; robots.txt is obeyed unless ``respect_robots=False``."""
        return await self.fetcher.fetch(
            url,
            output=format,
            render=render,
            refresh=refresh,
            respect_robots=respect_robots,
            max_chars=max_chars,
            start_index=start_index,
        )

    async def search(
        self,
        query: str,
        *,
        max_results: int | None = None,
        provider: str | None = None,
        recency_days: int | None = None,
        sites: Sequence[str] = (),
        exclude_sites: Sequence[str] = (),
    ) -> SearchResponse:
        from sleuth.websearch import ProviderChain, SearchQuery

        if any(not site.strip() for site in (*sites, *exclude_sites)):
            raise UsageError("a --site or --exclude-site value is empty", hint="name a domain")
        try:
            request = SearchQuery(
                query=query,
                max_results=max_results or self.settings.max_results,
                recency_days=recency_days,
                site_include=list(sites),
                site_exclude=list(exclude_sites),
            )
        except ValidationError as exc:
            first = exc.errors()[0]
            if first["loc"] and first["loc"][0] == "query":
                raise UsageError(
                    "the search query is empty", hint="give words to search for"
                ) from None
            raise UsageError(f"invalid search: {first['msg']}") from None
        if provider:
            from sleuth.websearch.registry import known_providers

            if provider not in known_providers():  # the caller's word, not a setting: usage
                raise UsageError(
                    f"unknown search provider {provider!r}",
                    hint=f"known providers: {', '.join(known_providers())}",
                )
            chain = ProviderChain(
                self.settings, self.cache, providers=[provider], resolver=self.resolver
            )
            try:
                return await chain.search(request)
            finally:
                await chain.aclose()
        return await self.chain.search(request)

    async def research(
        self,
        question: str,
        *,
        focus: str | None = None,
        max_results: int | None = None,
        max_pages: int | None = None,
        recency_days: int | None = None,
        sites: Sequence[str] = (),
        deadline: float | None = None,
        on_progress: Progress | None = None,
    ) -> Digest:
        from sleuth.digest import run_research

        return await run_research(
            question,
            settings=self.settings,
            chain=self.chain,
            fetcher=self.fetcher,
            focus=focus,
            max_results=max_results,
            max_pages=max_pages,
            recency_days=recency_days,
            sites=sites,
            deadline=deadline,
            on_progress=on_progress,
        )

    async def detect(
        self,
        path: Path | str = ".",
        *,
        mode: str | None = None,
        provider: str | None = None,
        model: str | None = None,
    ) -> list[Project]:
        """Every project in a repository and its stack; see :mod:`sleuth.stack`.

        ``mode`` is ``full`` (static, then a model for what static cannot place, when one
        is configured), ``static`` or ``llm``; default ``SLEUTH_DETECTION_MODE``.
        """
        from sleuth.stack.run import detect_stack

        return await detect_stack(
            path,
            settings=self.settings,
            cache=self.cache,
            mode=mode,
            provider=provider,
            model=model,
            resolver=self.resolver,
        )

    @property
    def suggester(self) -> Suggester:
        """The link suggester (prompt checked, provider opened) on first use.

        Raises :class:`~sleuth.errors.LLMNotConfigured` unless ``SLEUTH_LLM_PROVIDER`` or
        ``SLEUTH_LLM_BASE_URL`` names a model, and a ``ConfigError`` for a bad prompt.
        """
        if self._suggester is None:
            from sleuth.suggest import Suggester

            self._suggester = Suggester(
                self.settings, self.cache, fetcher=self.fetcher, resolver=self.resolver
            )
        return self._suggester

    async def suggest(
        self, url: str, *, title: str | None = None, description: str | None = None
    ) -> SuggestResult:
        """Slug, title, description and tags for a link; see :mod:`sleuth.suggest`."""
        return await self.suggester.suggest(url, title, description)

    async def aclose(self) -> None:
        if self._suggester is not None:
            await self._suggester.aclose()
        if self._fetcher is not None:
            await self._fetcher.aclose()
        if self._chain is not None:
            await self._chain.aclose()
        if self._cache is not None:
            await self._cache.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()
