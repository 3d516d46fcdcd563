"""search: the web, with provider fallback."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from sleuth.extract.text import clean_line
from sleuth.operation import operation_of
from sleuth.ops.base import Http, Op
from sleuth.session import AsyncSession
from sleuth.toolkit import Tool, ToolContext, ToolOutput

SNIPPET_CHARS = 300


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
    response = await context.client.search(
        **operation_of(AsyncSession.search).arguments("tool", args)
    )
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


WEB_SEARCH = Tool.declared(AsyncSession.search, web_search, WebSearchOutput)
SEARCH = Op(AsyncSession.search, http=Http("/api/v1/search", "Search the web"), tool=WEB_SEARCH)
