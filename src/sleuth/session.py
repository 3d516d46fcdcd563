"""The session core: one owner of the settings, the cache, the web (its guarded clients,
fetcher, robots.txt and browser: :class:`~sleuth.web.Web`) and the search chain, with the
operations that the built-in tools run (fetch, search, research, detect, map, crawl).

It sits below ``tools``, ``agent`` and ``discovery``, so a tool can open a session of its
own without reaching up. The other operations live in :mod:`sleuth.ops`, one module each,
and :class:`~sleuth.api.AsyncSleuth` binds them as its methods.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal, Self
from urllib.parse import urlsplit

from sleuth.cache import Cache, open_cache
from sleuth.config import Settings, load_settings
from sleuth.errors import ERRORS, Ref, UsageError
from sleuth.log import Progress
from sleuth.operation import BLANK_PATTERN, Arg, Own, ToolOffer, declare

if TYPE_CHECKING:
    from sleuth.crawl.run import CrawlRun, SiteMap
    from sleuth.digest import Digest
    from sleuth.pages import Fetcher, FetchResult
    from sleuth.stack import Project
    from sleuth.suggest import Suggester
    from sleuth.web import Web
    from sleuth.websearch import ProviderChain, SearchResponse

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
    Tools and the agent loop sit above it and take it (or :class:`AsyncSleuth`, which adds
    the LLM jobs) through the :class:`~sleuth.toolkit.Services` protocol."""

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
        self._resolver = resolver
        self._cache = cache
        self._web: Web | None = None
        self._chain: ProviderChain | None = None
        self._chains: dict[str, ProviderChain] = {}  # a caller named the provider
        self._suggester: Suggester | None = None

    @property
    def cache(self) -> Cache:
        if self._cache is None:
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

    @declare(
        "fetch",
        summary="Fetch a page safely and print its main text.",
        errors=FETCH_ERRORS,
        tool=ToolOffer(
            "fetch_page",
            "Fetch page",
            "Read the main text of a web page (public http/https URLs; robots.txt is obeyed). "
            "Long pages come in parts: pass next_start_index as start_index to read on. "
            "Cite the page as [n].",
        ),
    )
    async def fetch(
        self,
        url: Annotated[str, URL_ARG],
        *,
        format: Annotated[
            Literal["text", "markdown", "html"],
            Arg(
                "Main text, Markdown, or the cleaned main-content HTML.",
                on=("cli", "http"),
                flags=("--format", "-f"),
            ),
        ] = "text",
        max_chars: Annotated[
            int | None,
            Arg(
                "At most this many characters of text; read on from start_index.",
                ge=1,
                metavar="N",
                own={
                    "cli": Own(help="Print at most N characters; page on with --start-index."),
                    "tool": Own(default=5000, ge=200, le=20000, help="Characters to return."),
                },
            ),
        ] = None,
        start_index: Annotated[
            int,
            Arg(
                "Start at character N of the text.",
                ge=0,
                metavar="N",
                own={"tool": Own(help="Character to start from, to read on where a page was cut.")},
            ),
        ] = 0,
        render: Annotated[RenderMode | None, RENDER_ARG] = None,
        refresh: Annotated[bool, Arg("Bypass the cache.", on=("cli", "http"))] = False,
        respect_robots: Annotated[bool, ROBOTS_ARG] = True,
        for_model: bool = False,
    ) -> FetchResult:
        """Fetch one page; robots.txt is obeyed unless ``respect_robots=False``.

        ``for_model``: the page goes to a model (a tool call), so a site that says
        ``Content-Signal: ai-input=no`` ends it as ``content_signal``."""
        return await self.fetcher.fetch(
            url,
            output=format,
            render=render,
            refresh=refresh,
            respect_robots=respect_robots,
            max_chars=max_chars,
            start_index=start_index,
            for_model=for_model,
        )

    @declare(
        "search",
        summary="Search the web with provider fallback.",
        errors=SEARCH_ERRORS,
        tool=ToolOffer(
            "web_search",
            "Web search",
            "Search the web. Returns numbered results (title, URL, snippet); cite them as [n]. "
            "Use fetch_page to read a result before relying on it.",
        ),
    )
    async def search(
        self,
        query: Annotated[
            str,
            Arg(
                "What to search for.",
                what="the search query",
                min_length=1,
                max_length=MAX_QUERY_CHARS,
                pattern=BLANK_PATTERN,
                positional=True,
                metavar="QUERY",
                own={"tool": Own(help="What to search the web for.")},
            ),
        ],
        *,
        max_results: Annotated[
            int | None,
            Arg(
                "How many results, 1-10. Default: SLEUTH_MAX_RESULTS.",
                ge=1,
                le=10,
                flags=("-n", "--max-results"),
                metavar="N",
                own={"tool": Own(default=5, help="How many results, 1-10.")},
            ),
        ] = None,
        provider: Annotated[
            str | None,
            Arg(
                "Ask only this provider (brave, tavily, serpapi, searxng, duckduckgo, "
                "or a plugin).",
                on=("cli", "http"),
                metavar="NAME",
            ),
        ] = None,
        recency_days: Annotated[int | None, RECENCY_ARG] = None,
        sites: Annotated[Sequence[str], SITES_ARG] = (),
        exclude_sites: Annotated[
            Sequence[str],
            Arg(
                "Never this site (repeatable).",
                pattern=BLANK_PATTERN,
                on=("cli", "http"),
                wire="exclude_site",
                flags=("--exclude-site",),
                metavar="SITE",
            ),
        ] = (),
    ) -> SearchResponse:
        from sleuth.websearch import ProviderChain, SearchQuery

        request = SearchQuery(
            query=query,
            max_results=max_results or self.settings.max_results,
            recency_days=recency_days,
            site_include=list(sites),
            site_exclude=list(exclude_sites),
        )
        if provider:
            from sleuth.websearch.registry import known_providers

            if provider not in known_providers():  # the caller's word, not a setting: usage
                raise UsageError(
                    f"unknown search provider {provider!r}",
                    hint=f"known providers: {', '.join(known_providers())}",
                )
            chain = self._chains.get(provider)
            if chain is None:  # one chain (and client) per named provider, kept with the session
                chain = self._chains[provider] = ProviderChain(
                    self.settings.search, self.cache, clients=self.web.clients, providers=[provider]
                )
            return await chain.search(request)
        return await self.chain.search(request)

    @declare(
        "research",
        summary="Answer a question with cited bullets.",
        errors=SEARCH_ERRORS,  # pages that fail are the digest's errors, not raised
        tool=ToolOffer(
            "research",
            "Research",
            "Answer a question from the web: searches, reads the best pages and returns short "
            "verbatim findings, each citing its page as [n]. Slower than web_search, but every "
            "finding comes from a page that was actually read.",
        ),
    )
    async def research(
        self,
        question: Annotated[
            str,
            Arg(
                "The question to research.",
                what="the research question",
                min_length=1,
                max_length=MAX_QUESTION_CHARS,
                pattern=BLANK_PATTERN,
                positional=True,
                metavar="QUESTION",
            ),
        ],
        *,
        focus: Annotated[
            str | None, Arg("What matters most in the answer.", metavar="TEXT")
        ] = None,
        max_results: Annotated[
            int | None,
            Arg(
                "Search results to consider, 1-10. Default: SLEUTH_MAX_RESULTS.",
                ge=1,
                le=10,
                on=("cli", "http"),
                metavar="N",
            ),
        ] = None,
        max_pages: Annotated[
            int | None,
            Arg(
                "Pages to read, 1-10. Default: SLEUTH_MAX_PAGES.",
                ge=1,
                le=10,
                metavar="N",
                own={"tool": Own(default=3, le=5, help="Pages to read, 1-5.")},
            ),
        ] = None,
        recency_days: Annotated[int | None, RECENCY_ARG] = None,
        sites: Annotated[Sequence[str], replace(SITES_ARG, on=("cli", "http"))] = (),
        deadline: Annotated[
            float | None,
            Arg(
                "Overall time in seconds; pages still loading then are dropped. "
                "Default: SLEUTH_RESEARCH_DEADLINE.",
                ge=0.1,
                le=600,
                on=("cli", "http"),
                metavar="SECONDS",
            ),
        ] = None,
        respect_content_signals: Annotated[bool, SIGNALS_ARG] = True,
        on_progress: Progress | None = None,
    ) -> Digest:
        from sleuth.digest import run_research

        return await run_research(
            question,
            research=self.settings.research,
            chain=self.chain,
            web=self.web,
            focus=focus,
            max_results=max_results,
            max_pages=max_pages,
            recency_days=recency_days,
            sites=sites,
            deadline=deadline,
            on_progress=on_progress,
            respect_content_signals=respect_content_signals,
        )

    @declare(
        "detect",
        summary="Find every project in a repository: its stack, build and run.",
        errors=("usage_error", *LLM_ERRORS),
        surfaces=("cli", "tool"),
        local=True,
        tool=ToolOffer(
            "detect",
            "Detect stack",
            "Find every project in a local repository (one per service in a monorepo) with "
            "its language, build system, framework, runtime, build and run commands and ports.",
            in_ask=False,
            open_world=False,
        ),
    )
    async def detect(
        self,
        path: Annotated[
            Path | str,
            Arg(
                "The repository to scan. Default: here.",
                min_length=1,
                positional=True,
                metavar="PATH",
                own={"tool": Own(help="The repository folder to scan.")},
            ),
        ] = ".",
        *,
        mode: Annotated[
            Literal["full", "static", "llm", "llm_only"] | None,
            Arg(
                "static: detectors only; full: an LLM names what they cannot (when one is "
                "configured); llm: the LLM names everything. Default: SLEUTH_DETECTION_MODE.",
                own={"tool": Own(default="static")},
            ),
        ] = None,
        provider: Annotated[
            str | None,
            Arg("LLM provider for full and llm modes.", on=("cli",), metavar="NAME"),
        ] = None,
        model: Annotated[str | None, Arg("LLM model.", on=("cli",), metavar="MODEL")] = None,
    ) -> list[Project]:
        """Every project in a repository and its stack; see :mod:`sleuth.stack`."""
        from sleuth.stack.run import detect_stack

        return await detect_stack(
            path,
            detect=self.settings.detect,
            llm=self.settings.llm,
            clients=self.web.clients,
            cache=self.cache,
            mode=mode,
            provider=provider,
            model=model,
        )

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

    @declare(
        "map",
        summary="List a site's URLs from its sitemaps, feeds and links.",
        errors=FETCH_ERRORS,
        surfaces=("cli", "tool"),
        tool=ToolOffer(
            "map_site",
            "Map site",
            "List a site's URLs (from its sitemaps, feeds and start page) without reading "
            "them. Use it to find the right pages of a documentation site, then read them "
            "with fetch_page.",
            in_ask=False,
        ),
    )
    async def map(
        self,
        url: Annotated[
            str,
            Arg(
                "The site's start page.",
                min_length=1,
                positional=True,
                metavar="URL",
                own={"tool": Own(help="The site's start page (http or https).")},
            ),
        ],
        *,
        scope: Annotated[Scope, SCOPE_ARG] = "host",
        include: Annotated[Sequence[str], INCLUDE_ARG] = (),
        exclude: Annotated[Sequence[str], EXCLUDE_ARG] = (),
        limit: Annotated[
            int,
            Arg(
                "At most N URLs.",
                ge=1,
                le=100_000,
                metavar="N",
                own={"tool": Own(default=100, le=1000, help="At most this many URLs.")},
            ),
        ] = 10_000,
        respect_robots: Annotated[
            bool,
            replace(ROBOTS_ARG, own={"cli": Own(help="Read even where robots.txt forbids it.")}),
        ] = True,
        deadline: float | None = None,
    ) -> SiteMap:
        """A site's URLs from its sitemaps, feeds and start page, without reading them all.
        ``deadline`` (seconds; Python only, the tool passes its setting) ends the map with
        what it has and a note."""
        from sleuth.crawl.run import site_map

        return await site_map(
            self.web,
            url,
            scope=scope,
            include=tuple(include),
            exclude=tuple(exclude),
            limit=limit,
            respect_robots=respect_robots,
            deadline=deadline,
        )

    @declare(
        "crawl",
        summary="Read a site breadth first, politely, within a scope.",
        result="sleuth.pages.result:FetchResult",
        errors=FETCH_ERRORS,
        tool=ToolOffer(
            "crawl_site",
            "Crawl site",
            "Read up to 20 pages of one site, breadth first from a start URL (robots.txt "
            "obeyed, politely). Returns an llms.txt-style index and each page's text, cited "
            "as [n].",
            in_ask=False,
        ),
    )
    def crawl(
        self,
        url: Annotated[
            str,
            Arg(
                "Where the crawl starts.",
                min_length=1,
                schema={"format": "uri"},
                positional=True,
                metavar="URL",
                own={"tool": Own(help="Where to start (http or https).")},
            ),
        ],
        *,
        scope: Annotated[Scope, replace(SCOPE_ARG, own={"tool": Own(default="prefix")})] = "host",
        include: Annotated[Sequence[str], INCLUDE_ARG] = (),
        exclude: Annotated[Sequence[str], EXCLUDE_ARG] = (),
        max_pages: Annotated[
            int,
            Arg(
                "Read at most N pages (all runs).",
                ge=1,
                metavar="N",
                own={
                    "http": Own(help="default: 100, or the server's cap"),
                    "tool": Own(default=10, le=20, help="Pages to read, 1-20."),
                },
            ),
        ] = 100,
        max_depth: Annotated[
            int,
            Arg(
                "Links from the start.",
                ge=0,
                le=100,
                on=("cli", "http"),
                metavar="N",
                own={"http": Own(le=20)},
            ),
        ] = 5,
        sitemaps: Annotated[
            bool, Arg("Also start from the URLs the sitemaps list.", on=("cli", "http"))
        ] = False,
        concurrency: Annotated[
            int,
            Arg(
                "Requests in flight per host.",
                ge=1,
                le=32,
                on=("cli", "http"),
                metavar="N",
                own={"http": Own(le=4)},
            ),
        ] = 2,
        delay: Annotated[
            float,
            Arg(
                "Least time between requests to a host (or Crawl-delay).",
                ge=0,
                le=60,
                on=("cli", "http"),
                metavar="SECONDS",
                # A remote caller cannot make sleuth less polite than the CLI's default.
                own={"http": Own(ge=0.25)},
            ),
        ] = 0.25,
        resume: Annotated[
            bool,
            Arg("Continue this crawl where it stopped, or join it as a worker.", on=("cli",)),
        ] = False,
        respect_robots: Annotated[
            bool,
            replace(ROBOTS_ARG, own={"cli": Own(help="Read even where robots.txt forbids it.")}),
        ] = True,
        format: Annotated[
            Literal["text", "markdown"],
            Arg("Each page's text as plain text or Markdown.", on=("http",)),
        ] = "text",
        render: Annotated[
            RenderMode | None,
            replace(
                RENDER_ARG,
                on=("cli",),
                own={
                    "cli": Own(
                        help="Headless browser: auto (when a page needs JavaScript), always, never."
                    )
                },
            ),
        ] = None,
        deadline: float | None = None,
    ) -> CrawlRun:
        """A crawl of a site breadth first within ``scope``, to run: ``async with
        session.crawl(url) as run: async for record in run``. Each record is a page's (the
        fetch result's fields plus ``depth`` and ``parent``) as it is done, failures
        included; see :class:`~sleuth.crawl.run.CrawlRun`. ``deadline`` (seconds; Python
        only, the tool and HTTP jobs pass their settings) ends the crawl with the pages it
        has. Nothing is read until the run is iterated."""
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
            render=render,
            output=format,
            deadline=deadline,
        )
        return CrawlRun(self.web, url, options)

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
