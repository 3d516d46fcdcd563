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
from typing import (
    TYPE_CHECKING,
    Annotated,
    Any,
    Concatenate,
    Literal,
    ParamSpec,
    TypeAlias,
    TypeVar,
)

from sleuth.config import Settings
from sleuth.errors import UsageError
from sleuth.log import Progress
from sleuth.operation import BLANK_PATTERN, OPERATIONS, Arg, Operation, Own, ToolOffer, declare
from sleuth.session import LLM_ERRORS, SEARCH_ERRORS, SIGNALS_ARG, AsyncSession

if TYPE_CHECKING:
    from collections.abc import AsyncGenerator, Iterator

    from sleuth.agent import Answer
    from sleuth.crawl import crawler
    from sleuth.crawl.run import CrawlRun
    from sleuth.discovery import Chooser, DiscoveryResult

T = TypeVar("T")

# discover's rules for a tool name and a BUILDER:SOURCE, written out for the schemas
# (the discovery code checks them; pydantic's regex engine has no look-ahead).
TOOL_NAME = r"^(?!.*(?:\.\.|//))\s*[A-Za-z0-9@][A-Za-z0-9._+@/-]{0,213}\s*$"
_OWNER = r"[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38}"
_PACKAGE = r"@?[A-Za-z0-9][A-Za-z0-9._+@-]*(?:/[A-Za-z0-9][A-Za-z0-9._+-]*)?"
FROM_SOURCE = (
    r"^\s*(?:"
    rf"(?:github|gh|GitHub):{_OWNER}/(?!\.\.?\s*$)(?![A-Za-z0-9._-]*\.git\s*$)[A-Za-z0-9._-]{{1,100}}"
    r"|(?:go|golang):[a-z0-9.-]+\.[a-z]{2,}(?:/[A-Za-z0-9._~+-]+)+"
    r"|(?:crates\.io|cargo|crates|crate|npm|pypi|pip|pipx|rubygems|gem|gems|homebrew|brew|cask"
    rf"|cpan):(?!.*\.\.)(?=.{{1,214}}\s*$){_PACKAGE}"
    r")\s*$"
)


DISCOVER_ERRORS = (
    "usage_error",
    "suspicious_name",
    "not_found",
    "ambiguous",
    "confirmation_required",
    "confirmation_denied",
    "verification_failed",
    "discover_timeout",
    "discover_search_failed",
    "discover_error",
    *LLM_ERRORS,
)


class AsyncSleuth(AsyncSession):
    """One session of web access: ``async with AsyncSleuth() as s: await s.fetch(url)``.

    The session core plus the jobs that run an LLM over it (``ask``, ``discover``).
    """

    @declare(
        "ask",
        summary="Answer a question with an LLM that searches and reads the web.",
        result="sleuth.agent.models:Answer",
        errors=(*SEARCH_ERRORS, *LLM_ERRORS),
        surfaces=("cli", "http"),
    )
    async def ask(
        self,
        question: Annotated[
            str,
            Arg(
                "The question to answer.",
                min_length=1,
                pattern=BLANK_PATTERN,
                positional=True,
                metavar="QUESTION",
            ),
        ],
        *,
        provider: Annotated[
            str | None,
            Arg(
                "openai, openai-responses, anthropic, gemini or ollama. "
                "Default: SLEUTH_LLM_PROVIDER, else guessed from the keys that are set.",
                metavar="NAME",
            ),
        ] = None,
        model: Annotated[str | None, Arg("Default: SLEUTH_LLM_MODEL.", metavar="MODEL")] = None,
        search: Annotated[
            Literal["auto", "native", "local"] | None,
            Arg(
                "native: the provider's own search; local: sleuth's search providers; "
                "auto: native for cloud providers that have it. Default: SLEUTH_LLM_SEARCH."
            ),
        ] = None,
        max_turns: Annotated[
            int | None,
            Arg(
                "Model calls at most. Default: SLEUTH_LLM_MAX_TURNS.",
                ge=1,
                le=50,
                metavar="N",
            ),
        ] = None,
        respect_content_signals: Annotated[bool, SIGNALS_ARG] = True,
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
            respect_content_signals=respect_content_signals,
        )

    @declare(
        "discover",
        summary="Find a tool's official source and how to install it.",
        result="sleuth.discovery.models:DiscoveryResult",
        errors=DISCOVER_ERRORS,
        tool=ToolOffer(
            "discover",
            "Discover a tool's source",
            "Find the official source of a developer tool (GitHub repository or package) and "
            "the command to install it: a curated registry first, then crates.io, npm, PyPI, "
            "RubyGems, Go, Homebrew and CPAN, then (if configured) an LLM web search verified "
            "on GitHub. Sources marked confirmation_required must be confirmed by the user.",
            # A model steered by web pages should not pick what gets installed.
            in_ask=False,
        ),
    )
    async def discover(
        self,
        name: Annotated[
            str,
            Arg(
                "The tool, e.g. ripgrep; - reads names from stdin.",
                min_length=1,
                max_length=214,
                # discovery checks the rule (pydantic's regex engine has no look-ahead)
                schema={"pattern": TOOL_NAME},
                positional=True,
                metavar="NAME",
                own={
                    "http": Own(help="The tool, e.g. ripgrep."),
                    "tool": Own(help="The tool's name, e.g. ripgrep."),
                },
            ),
        ],
        *,
        from_source: Annotated[
            str | None,
            Arg(
                "Use this source, e.g. github:cli/cli.",
                schema={"pattern": FROM_SOURCE},
                wire="from",
                flags=("--from",),
                metavar="BUILDER:SOURCE",
                own={
                    "tool": Own(
                        help="A source you already know, as builder:source (github:cli/cli)."
                    )
                },
            ),
        ] = None,
        deterministic_only: Annotated[
            bool,
            Arg(
                "Registry and ecosystems only, no LLM.",
                own={
                    "tool": Own(help="Only the registry and package ecosystems; no LLM web search.")
                },
            ),
        ] = False,
        stages: Annotated[
            Sequence[Literal["registry", "ecosystem", "llm"]] | None,
            Arg(
                "Stages to run: registry,ecosystem,llm (default all).",
                comma=True,
                metavar="LIST",
                own={"tool": Own(help="Which stages to run, in chain order. Default: all.")},
            ),
        ] = None,
        batch: Annotated[
            bool,
            Arg(
                "Never ask: take the top match when ambiguous; one JSON line per name.",
                on=("cli", "http"),
            ),
        ] = False,
        yes: Annotated[
            bool,
            Arg(
                "Accept a web-found source without asking (not forks).",
                on=("cli", "http"),
                flags=("--yes", "-y"),
            ),
        ] = False,
        timeout: Annotated[
            float | None,
            Arg(
                "Seconds for web discovery. Default 15.",
                ge=1,
                le=600,
                on=("cli", "http"),
                metavar="S",
            ),
        ] = None,
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


def operations() -> dict[str, Operation]:
    """Every declared operation by name: the session core's and this module's."""
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

    fetch = _blocking(AsyncSleuth.fetch)
    search = _blocking(AsyncSleuth.search)
    research = _blocking(AsyncSleuth.research)
    ask = _blocking(AsyncSleuth.ask)
    detect = _blocking(AsyncSleuth.detect)
    suggest = _blocking(AsyncSleuth.suggest)
    fill = _blocking(AsyncSleuth.fill)
    discover = _blocking(AsyncSleuth.discover)
    map = _blocking(AsyncSleuth.map)

    crawl = _blocking_crawl(AsyncSleuth.crawl)
    extract = _blocking_stream(AsyncSleuth.extract)

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
fill = _one_shot(AsyncSleuth.fill)

afetch = _async_one_shot(AsyncSleuth.fetch)
asearch = _async_one_shot(AsyncSleuth.search)
aresearch = _async_one_shot(AsyncSleuth.research)
aask = _async_one_shot(AsyncSleuth.ask)
adetect = _async_one_shot(AsyncSleuth.detect)
adiscover = _async_one_shot(AsyncSleuth.discover)
afill = _async_one_shot(AsyncSleuth.fill)
