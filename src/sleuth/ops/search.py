"""search: the web, with provider fallback."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import BaseModel, Field

from sleuth.errors import UsageError
from sleuth.extract.text import clean_line
from sleuth.operation import BLANK_PATTERN, Arg, Own, ToolOffer, declare, operation_of
from sleuth.ops.base import Http, Op, only_names, session_of
from sleuth.session import (
    MAX_QUERY_CHARS,
    RECENCY_ARG,
    SEARCH_ERRORS,
    SITES_ARG,
    AsyncSession,
)
from sleuth.toolkit import Tool, ToolContext, ToolOutput

if TYPE_CHECKING:
    from sleuth.config import Settings
    from sleuth.websearch import SearchResponse

SNIPPET_CHARS = 300


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
    session: AsyncSession,
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
            "Ask only this provider (brave, tavily, serpapi, searxng, duckduckgo, or a plugin).",
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
        max_results=max_results or session.settings.max_results,
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
        chain = session._chains.get(provider)
        if chain is None:  # one chain (and client) per named provider, kept with the session
            chain = session._chains[provider] = ProviderChain(
                session.settings.search,
                session.cache,
                clients=session.web.clients,
                providers=[provider],
            )
        return await chain.search(request)
    return await session.chain.search(request)


class SearchItem(BaseModel):
    id: int = Field(description="Cite this result as [id].")
    title: str
    url: str
    domain: str
    snippet: str
    published: str | None = None


class WebSearchOutput(BaseModel):
    query: str
    results: list[SearchItem]
    providers: list[str] = Field(description="Search providers asked, in order.")


async def web_search(context: ToolContext, args: Any) -> ToolOutput:
    response = await search(session_of(context), **operation_of(search).arguments("tool", args))
    items = [
        SearchItem(
            id=context.ledger.issue(hit.url, clean_line(hit.title), kind="search_result"),
            title=clean_line(hit.title),
            url=hit.url,
            domain=hit.domain,
            snippet=_clip(clean_line(hit.snippet)),
            published=hit.published,
        )
        for hit in response.results
    ]
    data = WebSearchOutput(
        query=args.query,
        results=items,
        providers=[attempt.name for attempt in response.providers_tried],
    )
    lines = [f"Search results for {args.query!r}:"]
    for item in items:
        lines.append(f"[{item.id}] {item.title}\n    {item.url}")
        if item.published:
            lines.append(f"    published {item.published}")
        if item.snippet:
            lines.append(f"    {item.snippet}")
    if not items:
        lines.append("(no results)")
    else:
        lines.append("Snippets are short; read a page with fetch_page before relying on it.")
    return ToolOutput("\n".join(lines), data)


def _clip(text: str) -> str:
    return text if len(text) <= SNIPPET_CHARS else text[: SNIPPET_CHARS - 1].rstrip() + "…"


WEB_SEARCH = Tool.declared(search, web_search, WebSearchOutput)


def known_names(schema: dict[str, Any], settings: Settings | None) -> None:
    """The providers this server knows as it starts, plugins included."""
    from sleuth.websearch.registry import known_providers

    only_names(schema, "provider", known_providers())


SEARCH = Op(
    search, http=Http("/api/v1/search", "Search the web", refine=known_names), tool=WEB_SEARCH
)
