"""The typed Python API: :class:`AsyncSleuth`, its blocking twin :class:`Sleuth`,
and one-shot functions for scripts.

A client object owns the settings, the cache, the guarded HTTP client and the
browser, so reusing one across calls reuses connections and the cache. The
CLI, the HTTP server and the MCP server all go through here.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from pydantic import ValidationError

from sleuth.cache import Cache, open_cache
from sleuth.config import Settings, load_settings
from sleuth.errors import UsageError

if TYPE_CHECKING:
    from sleuth.agent import Answer
    from sleuth.digest import Digest
    from sleuth.discovery import Chooser, DiscoveryResult
    from sleuth.pages import Fetcher, FetchResult
    from sleuth.pages.fetcher import OutputFormat, RenderMode
    from sleuth.stack import Project
    from sleuth.suggest import Suggester, SuggestResult
    from sleuth.websearch import ProviderChain, SearchResponse

T = TypeVar("T")
ProgressCallback = Callable[[str, dict[str, Any]], None]


class AsyncSleuth:
    """One session of web access: ``async with AsyncSleuth() as s: await s.fetch(url)``."""

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
        on_progress: ProgressCallback | None = None,
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

    async def ask(
        self,
        question: str,
        *,
        provider: str | None = None,
        model: str | None = None,
        search: Literal["auto", "native", "local"] | None = None,
        max_turns: int | None = None,
        on_progress: ProgressCallback | None = None,
    ) -> Answer:
        """Answer ``question`` with an LLM that searches and reads through sleuth's tools.

        Raises :class:`~sleuth.errors.LLMNotConfigured` when no provider is set up.
        """
        from sleuth.agent import ask

        return await ask(
            self,
            question,
            provider=provider,
            model=model,
            search=search,
            max_turns=max_turns,
            on_progress=on_progress,
        )

    async def discover(
        self,
        name: str,
        *,
        from_source: str | None = None,
        deterministic_only: bool = False,
        stages: Sequence[str] | None = None,
        batch: bool = False,
        yes: bool = False,
        timeout: float | None = None,
        progress: ProgressCallback | None = None,
        choose: Chooser | None = None,
    ) -> DiscoveryResult:
        """The official source of a developer tool; see :mod:`sleuth.discovery`.

        Never prompts: a source a person must confirm comes back with
        ``confirmation_required``; ``choose`` lets a caller pick among ambiguous matches.
        """
        from sleuth.discovery import discover

        return await discover(
            self,
            name,
            from_source=from_source,
            deterministic_only=deterministic_only,
            stages=stages,
            batch=batch,
            yes=yes,
            timeout=timeout,
            progress=progress,
            choose=choose,
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

    async def __aenter__(self) -> AsyncSleuth:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


class Sleuth:
    """The blocking twin of :class:`AsyncSleuth`; one private event loop per client."""

    def __init__(self, settings: Settings | None = None, **kwargs: Any) -> None:
        self._runner = asyncio.Runner()
        self._async = AsyncSleuth(settings, **kwargs)
        self.settings = self._async.settings

    def _run(self, coro: Coroutine[Any, Any, T]) -> T:
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return self._runner.run(coro)
        coro.close()
        raise UsageError(
            "the blocking Sleuth client cannot run inside an event loop",
            hint="use AsyncSleuth and await its methods",
        )

    def fetch(self, url: str, **kwargs: Any) -> FetchResult:
        return self._run(self._async.fetch(url, **kwargs))

    def search(self, query: str, **kwargs: Any) -> SearchResponse:
        return self._run(self._async.search(query, **kwargs))

    def research(self, question: str, **kwargs: Any) -> Digest:
        return self._run(self._async.research(question, **kwargs))

    def ask(self, question: str, **kwargs: Any) -> Answer:
        return self._run(self._async.ask(question, **kwargs))

    def detect(self, path: Path | str = ".", **kwargs: Any) -> list[Project]:
        return self._run(self._async.detect(path, **kwargs))

    def suggest(self, url: str, **kwargs: Any) -> SuggestResult:
        return self._run(self._async.suggest(url, **kwargs))

    def discover(self, name: str, **kwargs: Any) -> DiscoveryResult:
        return self._run(self._async.discover(name, **kwargs))

    def close(self) -> None:
        try:
            asyncio.get_running_loop()
        except RuntimeError:  # the normal case: no loop of the caller's is running
            try:
                self._runner.run(self._async.aclose())
            finally:
                self._runner.close()

    def __enter__(self) -> Sleuth:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def fetch(url: str, **kwargs: Any) -> FetchResult:
    """Fetch one page with default settings (see :meth:`AsyncSleuth.fetch`)."""
    with Sleuth() as client:
        return client.fetch(url, **kwargs)


def search(query: str, **kwargs: Any) -> SearchResponse:
    with Sleuth() as client:
        return client.search(query, **kwargs)


def research(question: str, **kwargs: Any) -> Digest:
    with Sleuth() as client:
        return client.research(question, **kwargs)


def ask(question: str, **kwargs: Any) -> Answer:
    """Answer a question with the configured LLM (see :meth:`AsyncSleuth.ask`)."""
    with Sleuth() as client:
        return client.ask(question, **kwargs)


def detect(path: Path | str = ".", **kwargs: Any) -> list[Project]:
    """The stack of every project under ``path`` (see :meth:`AsyncSleuth.detect`)."""
    with Sleuth() as client:
        return client.detect(path, **kwargs)


def discover(name: str, **kwargs: Any) -> DiscoveryResult:
    """The official source of a developer tool (see :meth:`AsyncSleuth.discover`)."""
    with Sleuth() as client:
        return client.discover(name, **kwargs)


async def afetch(url: str, **kwargs: Any) -> FetchResult:
    async with AsyncSleuth() as client:
        return await client.fetch(url, **kwargs)


async def asearch(query: str, **kwargs: Any) -> SearchResponse:
    async with AsyncSleuth() as client:
        return await client.search(query, **kwargs)


async def aresearch(question: str, **kwargs: Any) -> Digest:
    async with AsyncSleuth() as client:
        return await client.research(question, **kwargs)


async def aask(question: str, **kwargs: Any) -> Answer:
    async with AsyncSleuth() as client:
        return await client.ask(question, **kwargs)


async def adetect(path: Path | str = ".", **kwargs: Any) -> list[Project]:
    async with AsyncSleuth() as client:
        return await client.detect(path, **kwargs)


async def adiscover(name: str, **kwargs: Any) -> DiscoveryResult:
    async with AsyncSleuth() as client:
        return await client.discover(name, **kwargs)
