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
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any, Concatenate, ParamSpec, TypeAlias, TypeVar

# derived: imports
import sleuth.ops.ask
import sleuth.ops.crawl
import sleuth.ops.detect
import sleuth.ops.discover
import sleuth.ops.extract
import sleuth.ops.fetch
import sleuth.ops.fill
import sleuth.ops.map
import sleuth.ops.research
import sleuth.ops.search
import sleuth.ops.suggest

# end derived: imports
from sleuth.config import Settings
from sleuth.errors import UsageError
from sleuth.operation import OPERATIONS, Bound, Operation
from sleuth.session import AsyncSession

if TYPE_CHECKING:
    from collections.abc import AsyncGenerator, Iterator

    from sleuth.crawl import crawler
    from sleuth.crawl.run import CrawlRun

T = TypeVar("T")


class AsyncSleuth(AsyncSession):
    """One session of web access: ``async with AsyncSleuth() as s: await s.fetch(url)``.

    The session core plus every operation, declared in :mod:`sleuth.ops` and bound here
    one line each so their methods stay typed; the lines are derived from the registry
    (``scripts/bindings.py``).
    """

    # derived: methods
    ask = Bound(sleuth.ops.ask.ask)
    crawl = Bound(sleuth.ops.crawl.crawl)
    detect = Bound(sleuth.ops.detect.detect)
    discover = Bound(sleuth.ops.discover.discover)
    extract = Bound(sleuth.ops.extract.extract)
    fetch = Bound(sleuth.ops.fetch.fetch)
    fill = Bound(sleuth.ops.fill.fill)
    map = Bound(sleuth.ops.map.map)
    research = Bound(sleuth.ops.research.research)
    search = Bound(sleuth.ops.search.search)
    suggest = Bound(sleuth.ops.suggest.suggest)
    # end derived: methods


def operations() -> dict[str, Operation]:
    """Every declared operation (:mod:`sleuth.ops`) by name."""
    return dict(OPERATIONS)


P = ParamSpec("P")
R = TypeVar("R")
Method: TypeAlias = Callable[Concatenate[AsyncSleuth, P], Coroutine[Any, Any, R]]


def _signed(call: Callable[..., Any], method: Callable[..., Any], *, drop_self: bool) -> None:
    """Give ``call`` the name, docs and signature of the session method it runs."""
    functools.update_wrapper(call, method, assigned=("__name__", "__qualname__", "__doc__"))
    signature = inspect.signature(method)
    if drop_self:
        signature = signature.replace(parameters=list(signature.parameters.values())[1:])
    call.__signature__ = signature  # type: ignore[attr-defined]


def _blocking(method: Method[P, R]) -> Callable[Concatenate[Sleuth, P], R]:
    def call(self: Sleuth, /, *args: P.args, **kwargs: P.kwargs) -> R:
        return self._run(method(self._async, *args, **kwargs))

    _signed(call, method, drop_self=False)
    return call


def _blocking_stream(
    method: Callable[Concatenate[AsyncSleuth, P], AsyncGenerator[T, None]],
) -> Callable[Concatenate[Sleuth, P], Iterator[T]]:
    """An async iterator of the session as a blocking one, each step on the client's loop."""

    def call(self: Sleuth, /, *args: P.args, **kwargs: P.kwargs) -> Iterator[T]:
        items = method(self._async, *args, **kwargs)

        async def step() -> T:
            return await items.__anext__()

        try:
            while True:
                try:
                    yield self._run(step())
                except StopAsyncIteration:
                    return
        finally:
            self._run(items.aclose())

    _signed(call, method, drop_self=False)
    return call


class BlockingCrawl:
    """The blocking twin of :class:`~sleuth.crawl.run.CrawlRun`, each step on the client's
    loop: ``with session.crawl(url) as run: for record in run: ...``. Iterating it without
    ``with`` works too; leaving the loop early stops the crawl."""

    def __init__(self, client: Sleuth, run: CrawlRun) -> None:
        self._client = client
        self.run = run

    @property
    def start(self) -> str:
        return self.run.start

    @property
    def progress(self) -> crawler.Progress:
        return self.run.progress

    @property
    def notes(self) -> list[str]:
        return self.run.notes

    def summaries(self) -> list[dict[str, Any]]:
        return self._client._run(self.run.summaries())

    def __iter__(self) -> Iterator[dict[str, Any]]:
        records = aiter(self.run)

        async def step() -> dict[str, Any]:
            return await anext(records)

        try:
            while True:
                try:
                    yield self._client._run(step())
                except StopAsyncIteration:
                    return
        finally:
            self.close()

    def close(self) -> None:
        self._client._run(self.run.aclose())

    def __enter__(self) -> BlockingCrawl:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _blocking_crawl(
    method: Callable[Concatenate[AsyncSleuth, P], CrawlRun],
) -> Callable[Concatenate[Sleuth, P], BlockingCrawl]:
    def call(self: Sleuth, /, *args: P.args, **kwargs: P.kwargs) -> BlockingCrawl:
        return BlockingCrawl(self, method(self._async, *args, **kwargs))

    _signed(call, method, drop_self=False)
    call.__signature__ = inspect.signature(call).replace(  # type: ignore[attr-defined]
        return_annotation=BlockingCrawl
    )
    return call


def _one_shot(method: Method[P, R]) -> Callable[P, R]:
    """A blocking call with default settings, in a client of its own."""

    def call(*args: P.args, **kwargs: P.kwargs) -> R:
        with Sleuth() as client:
            return client._run(method(client._async, *args, **kwargs))

    _signed(call, method, drop_self=True)
    return call


def _async_one_shot(method: Method[P, R]) -> Callable[P, Coroutine[Any, Any, R]]:
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

    # derived: blocking
    ask = _blocking(AsyncSleuth.ask)
    crawl = _blocking_crawl(AsyncSleuth.crawl)
    detect = _blocking(AsyncSleuth.detect)
    discover = _blocking(AsyncSleuth.discover)
    extract = _blocking_stream(AsyncSleuth.extract)
    fetch = _blocking(AsyncSleuth.fetch)
    fill = _blocking(AsyncSleuth.fill)
    map = _blocking(AsyncSleuth.map)
    research = _blocking(AsyncSleuth.research)
    search = _blocking(AsyncSleuth.search)
    suggest = _blocking(AsyncSleuth.suggest)
    # end derived: blocking

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


# derived: one-shots
ask = _one_shot(AsyncSleuth.ask)
detect = _one_shot(AsyncSleuth.detect)
discover = _one_shot(AsyncSleuth.discover)
fetch = _one_shot(AsyncSleuth.fetch)
fill = _one_shot(AsyncSleuth.fill)
research = _one_shot(AsyncSleuth.research)
search = _one_shot(AsyncSleuth.search)
aask = _async_one_shot(AsyncSleuth.ask)
adetect = _async_one_shot(AsyncSleuth.detect)
adiscover = _async_one_shot(AsyncSleuth.discover)
afetch = _async_one_shot(AsyncSleuth.fetch)
afill = _async_one_shot(AsyncSleuth.fill)
aresearch = _async_one_shot(AsyncSleuth.research)
asearch = _async_one_shot(AsyncSleuth.search)
# end derived: one-shots
