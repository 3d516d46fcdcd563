"""The session core: one owner of the settings, the cache, the web (its guarded clients,
fetcher, robots.txt and browser: :class:`~sleuth.web.Web`) and the search chain, and the
parameters several operations share.

The operations live in :mod:`sleuth.ops`, one module each, as functions that take the
session first; :class:`~sleuth.api.AsyncSleuth` binds them as its methods. The session sits
below them, and below ``agent`` and ``discovery``.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Self
from urllib.parse import urlsplit

from sleuth.config import Settings, load_settings
from sleuth.errors import ERRORS, Ref, UsageError
from sleuth.operation import BLANK_PATTERN, Arg, Own

if TYPE_CHECKING:
    from sleuth.cache import Cache
    from sleuth.pages import Fetcher
    from sleuth.suggest import Suggester
    from sleuth.web import Web
    from sleuth.websearch import ProviderChain

RenderMode = Literal["auto", "always", "never"]
Scope = Literal["host", "domain", "prefix"]
MAX_QUERY_CHARS = 400
MAX_QUESTION_CHARS = 400  # longer questions are refused: search engines cut them anyway
# What may go wrong when a page is read (pages/result.py's outcomes), and a search.
FETCH_ERRORS = (
    "usage_error",
    "blocked",
    "robots_disallowed",
    "http_error",
    "rate_limited",
    "timeout",
    "too_large",
    "unsupported_type",
    "block_page",
    "js_required",
    "empty_extraction",
    "network_error",
    "render_unavailable",
    "encrypted",
    "corrupt_document",
    "no_text_layer",
    "styles_unread",
    "start_past_end",
)
SEARCH_ERRORS = (
    "usage_error",
    "search_error",
    "provider_auth",
    "search_unavailable",
    "search_budget_exhausted",
    "no_results",
)
LLM_ERRORS = (
    "llm_not_configured",
    "budget_exceeded",
    *(c for c in ERRORS if c.startswith("llm_") and c != "llm_not_configured"),
)

# Parameters that several operations share, written once.
URL_ARG = Arg(
    "The page to fetch (http or https).",
    min_length=1,
    schema={"format": "uri"},
    positional=True,
    metavar="URL",
    own={"tool": Own(help="The http(s) URL of the page to read.")},
)
RENDER_ARG = Arg(
    "Headless browser: auto (only when a page needs JavaScript), always or never. "
    "Default: SLEUTH_RENDER, else auto.",
    on=("cli", "http"),
)
ROBOTS_ARG = Arg(
    "Obey the site's robots.txt (only a person at the CLI or in Python may say no).",
    on=("cli",),
    negate="--ignore-robots",
    own={"cli": Own(help="Fetch even where robots.txt forbids it.")},
)
SIGNALS_ARG = Arg(
    "Leave out pages whose site says Content-Signal: ai-input=no (only a person at the CLI "
    "or in Python may say no).",
    on=("cli",),
    negate="--ignore-content-signals",
    own={"cli": Own(help="Read pages even where the site says ai-input=no.")},
)
RECENCY_ARG = Arg(
    "Only results from the last DAYS.",
    ge=1,
    le=3650,
    metavar="DAYS",
    own={"tool": Own(help="Only pages from the last N days.")},
)
SITES_ARG = Arg(
    "Only this site (repeatable).",
    pattern=BLANK_PATTERN,
    wire="site",
    flags=("--site",),
    metavar="SITE",
    own={"tool": Own(help="Only results from these domains, e.g. python.org.")},
)
SCOPE_ARG = Arg(
    "host: the start's host; domain: its registrable domain; "
    "prefix: the start's path up to its last '/'.",
)
INCLUDE_ARG = Arg(
    "Only paths matching GLOB; repeatable.",
    max_items=20,
    on=("cli", "http"),
    flags=("--include",),
    metavar="GLOB",
)
EXCLUDE_ARG = replace(
    INCLUDE_ARG, help="Skip paths matching GLOB; repeatable.", flags=("--exclude",)
)


def check_page_url(url: str) -> None:
    """An absolute http(s) URL, or a :class:`UsageError` naming the parameter per surface."""
    try:
        parts = urlsplit(url)
        valid = parts.scheme in ("http", "https") and bool(parts.hostname)
    except ValueError:  # "http://[::1/"
        valid = False
    if not valid:
        raise UsageError(
            f"{{url}} {url!r} is not an absolute http(s) URL",
            hint="pass the page's address, like https://example.com/page",
            refs={"url": Ref("url")},
        )


class AsyncSession:
    """The research core of a session: settings, cache, web and search chain.

    ``resolver`` (tests pin names to loopback) is given once, here, to the session's
    :class:`~sleuth.web.Web`; every client of the session looks names up through it.
    The operations (:mod:`sleuth.ops`) and the agent loop sit above it and take it (the loop
    through the :class:`~sleuth.toolkit.Services` protocol)."""

    def __init__(
        self,
        settings: Settings | None = None,
        *,
        config: Path | str | None = None,
        resolver: Any = None,
        cache: Cache | None = None,
        **overrides: Any,
    ) -> None:
        if settings is not None and (overrides or config is not None):
            raise UsageError(
                "give a Settings object or settings as keywords (and config=), not both",
                hint="settings.model_copy(update={...}) is a changed copy of a Settings object",
            )
        self.settings = settings or load_settings(config, **overrides)
        self._resolver = resolver
        self._cache = cache
        self._web: Web | None = None
        self._chain: ProviderChain | None = None
        self._chains: dict[str, ProviderChain] = {}  # a caller named the provider
        self._suggester: Suggester | None = None

    @property
    def cache(self) -> Cache:
        if self._cache is None:
            from sleuth.cache import open_cache  # here: a run that caches nothing loads no backend

            self._cache = open_cache(self.settings.caching)
        return self._cache

    @property
    def web(self) -> Web:
        """The session's one way onto the web, built on first use."""
        if self._web is None:
            from sleuth.web import Web

            self._web = Web(self.settings, self.cache, resolver=self._resolver)
        return self._web

    @property
    def fetcher(self) -> Fetcher:
        return self.web.fetcher

    @property
    def chain(self) -> ProviderChain:
        if self._chain is None:
            from sleuth.websearch import ProviderChain

            self._chain = ProviderChain(self.settings.search, self.cache, clients=self.web.clients)
        return self._chain

    @property
    def suggester(self) -> Suggester:
        """The link suggester (prompt checked, provider opened) on first use.

        Raises :class:`~sleuth.errors.LLMNotConfigured` unless ``SLEUTH_LLM_PROVIDER`` or
        ``SLEUTH_LLM_BASE_URL`` names a model, and a ``ConfigError`` for a bad prompt.
        """
        if self._suggester is None:
            from sleuth.suggest import Suggester

            self._suggester = Suggester(self.settings.suggest, self.settings.llm, self.web)
        return self._suggester

    async def aclose(self) -> None:
        if self._suggester is not None:
            await self._suggester.aclose()
        for chain in (self._chain, *self._chains.values()):
            if chain is not None:
                await chain.aclose()
        if self._web is not None:
            await self._web.aclose()
        if self._cache is not None:
            await self._cache.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()
