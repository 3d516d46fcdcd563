"""The typed Python API: :class:`AsyncSleuth`, its blocking twin :class:`Sleuth`,
and one-shot functions for scripts.

A client object owns the settings, the cache, the guarded HTTP client and the
browser, so reusing one across calls reuses connections and the cache. The
CLI, the HTTP server and the MCP server all go through here.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
from collections.abc import Callable, Coroutine, Sequence
from typing import TYPE_CHECKING, Any, Concatenate, Literal, ParamSpec, TypeAlias, TypeVar

from sleuth.config import Settings
from sleuth.errors import UsageError
from sleuth.log import Progress
from sleuth.session import AsyncSession

if TYPE_CHECKING:
    from collections.abc import AsyncGenerator, Iterator
    from pathlib import Path

    from sleuth.agent import Answer
    from sleuth.crawl.run import SiteMap
    from sleuth.discovery import Chooser, DiscoveryResult

T = TypeVar("T")


class AsyncSleuth(AsyncSession):
    """One session of web access: ``async with AsyncSleuth() as s: await s.fetch(url)``.

    The session core plus the jobs that run an LLM over it (``ask``, ``discover``).
    """

    async def ask(
        self,
        question: str,
        *,
        provider: str | None = None,
        model: str | None = None,
        search: Literal["auto", "native", "local"] | None = None,
        max_turns: int | None = None,
        on_progress: Progress | None = None,
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
        on_progress: Progress | None = None,
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
            on_progress=on_progress,
            choose=choose,
        )

    async def map(
        self,
        url: str,
        *,
        scope: Literal["host", "domain", "prefix"] = "host",
        include: Sequence[str] = (),
        exclude: Sequence[str] = (),
        limit: int = 10_000,
        respect_robots: bool = True,
    ) -> SiteMap:
        """A site's URLs from its sitemaps, feeds and start page, without reading them all."""
        from sleuth.crawl.run import site_map

        return await site_map(
            self.settings,
            self.cache,
            url,
            scope=scope,
            include=tuple(include),
            exclude=tuple(exclude),
            limit=limit,
            respect_robots=respect_robots,
            resolver=self.resolver,
        )

    async def crawl(
        self,
        url: str,
        *,
        scope: Literal["host", "domain", "prefix"] = "host",
        include: Sequence[str] = (),
        exclude: Sequence[str] = (),
        max_pages: int = 100,
        max_depth: int = 5,
        sitemaps: bool = False,
        concurrency: int = 2,
        delay: float = 0.25,
        resume: bool = False,
        respect_robots: bool = True,
        format: Literal["text", "markdown"] = "text",
        out: Path | None = None,
        llms_txt: Path | None = None,
    ) -> AsyncGenerator[dict[str, Any], None]:
        """Read a site breadth first within ``scope``; yields each page's record (the fetch
        result's fields plus ``depth`` and ``parent``) as it is done, failures included."""
        from sleuth.crawl.crawler import CrawlOptions
        from sleuth.crawl.run import CrawlRun

        options = CrawlOptions(
            scope=scope,
            include=tuple(include),
            exclude=tuple(exclude),
            max_pages=max_pages,
            max_depth=max_depth,
            sitemaps=sitemaps,
            concurrency=concurrency,
            delay=delay,
            resume=resume,
            respect_robots=respect_robots,
            output=format,
        )
        run = CrawlRun(
            self.settings,
            self.cache,
            url,
            options,
            resolver=self.resolver,
            out=out,
            llms_txt=llms_txt,
        )
        async with run:
            async for record in run.pages():
                yield record
            await run.finish()


P = ParamSpec("P")
R = TypeVar("R")
Operation: TypeAlias = Callable[Concatenate[AsyncSleuth, P], Coroutine[Any, Any, R]]


def _signed(call: Callable[..., Any], method: Callable[..., Any], *, drop_self: bool) -> None:
    """Give ``call`` the name, docs and signature of the session method it runs."""
    functools.update_wrapper(call, method, assigned=("__name__", "__qualname__", "__doc__"))
    signature = inspect.signature(method)
    if drop_self:
        signature = signature.replace(parameters=list(signature.parameters.values())[1:])
    call.__signature__ = signature  # type: ignore[attr-defined]


def _blocking(method: Operation[P, R]) -> Callable[Concatenate[Sleuth, P], R]:
    def call(self: Sleuth, /, *args: P.args, **kwargs: P.kwargs) -> R:
        return self._run(method(self._async, *args, **kwargs))

    _signed(call, method, drop_self=False)
    return call


def _one_shot(method: Operation[P, R]) -> Callable[P, R]:
    """A blocking call with default settings, in a client of its own."""

    def call(*args: P.args, **kwargs: P.kwargs) -> R:
        with Sleuth() as client:
            return client._run(method(client._async, *args, **kwargs))

    _signed(call, method, drop_self=True)
    return call


def _async_one_shot(method: Operation[P, R]) -> Callable[P, Coroutine[Any, Any, R]]:
    async def call(*args: P.args, **kwargs: P.kwargs) -> R:
        async with AsyncSleuth() as client:
            return await method(client, *args, **kwargs)

    _signed(call, method, drop_self=True)
    return call


class Sleuth:
    """The blocking twin of :class:`AsyncSleuth`; one private event loop per client.

    Its methods are :class:`AsyncSleuth`'s, with the same typed keywords, run to the end.
    """

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

    fetch = _blocking(AsyncSleuth.fetch)
    search = _blocking(AsyncSleuth.search)
    research = _blocking(AsyncSleuth.research)
    ask = _blocking(AsyncSleuth.ask)
    detect = _blocking(AsyncSleuth.detect)
    suggest = _blocking(AsyncSleuth.suggest)
    discover = _blocking(AsyncSleuth.discover)
    map = _blocking(AsyncSleuth.map)

    def crawl(self, url: str, **options: Any) -> Iterator[dict[str, Any]]:
        """:meth:`AsyncSleuth.crawl` as a blocking iterator of page records."""
        pages = self._async.crawl(url, **options)

        async def step() -> dict[str, Any]:
            return await pages.__anext__()

        try:
            while True:
                try:
                    yield self._run(step())
                except StopAsyncIteration:
                    return
        finally:
            self._run(pages.aclose())

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


fetch = _one_shot(AsyncSleuth.fetch)
search = _one_shot(AsyncSleuth.search)
research = _one_shot(AsyncSleuth.research)
ask = _one_shot(AsyncSleuth.ask)
detect = _one_shot(AsyncSleuth.detect)
discover = _one_shot(AsyncSleuth.discover)

afetch = _async_one_shot(AsyncSleuth.fetch)
asearch = _async_one_shot(AsyncSleuth.search)
aresearch = _async_one_shot(AsyncSleuth.research)
aask = _async_one_shot(AsyncSleuth.ask)
adetect = _async_one_shot(AsyncSleuth.detect)
adiscover = _async_one_shot(AsyncSleuth.discover)
