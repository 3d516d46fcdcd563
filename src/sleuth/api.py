"""The typed Python API: :class:`AsyncSleuth`, its blocking twin :class:`Sleuth`,
and one-shot functions for scripts.

A client object owns the settings, the cache, the guarded HTTP client and the
browser, so reusing one across calls reuses connections and the cache. The
CLI, the HTTP server and the MCP server all go through here.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from sleuth.config import Settings
from sleuth.errors import UsageError
from sleuth.session import AsyncSession, ProgressCallback

if TYPE_CHECKING:
    from sleuth.agent import Answer
    from sleuth.digest import Digest
    from sleuth.discovery import Chooser, DiscoveryResult
    from sleuth.pages import FetchResult
    from sleuth.stack import Project
    from sleuth.suggest import SuggestResult
    from sleuth.websearch import SearchResponse

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
