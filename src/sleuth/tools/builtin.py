"""The web tools every interface offers: ``web_search``, ``fetch_page``, ``research``,
``map_site`` and ``crawl_site``.

Each returns typed data for programs and a compact text for models, in which
every URL carries the id the session's citation ledger issued for it.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from sleuth.digest.models import Digest
from sleuth.extract.text import clean_line
from sleuth.operation import operation_of
from sleuth.session import AsyncSession
from sleuth.tools.registry import Tool, ToolContext, ToolOutput

SEARCH = operation_of(AsyncSession.search)
FETCH = operation_of(AsyncSession.fetch)
RESEARCH_OPERATION = operation_of(AsyncSession.research)
MAP = operation_of(AsyncSession.map)
CRAWL = operation_of(AsyncSession.crawl)

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


class PageOutput(BaseModel):
    id: int = Field(description="Cite this page as [id].")
    url: str
    final_url: str | None
    title: str | None
    text: str
    start_index: int
    next_start_index: int | None = Field(description="Pass as start_index to read more.")
    total_chars: int
    cache: str
    links: list[dict[str, Any]] = Field(
        default_factory=list, description="The page's links: {url, text, rel, in_content}."
    )


async def web_search(context: ToolContext, args: Any) -> ToolOutput:
    response = await context.client.search(**SEARCH.arguments("tool", args))
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


async def fetch_page(context: ToolContext, args: Any) -> ToolOutput:
    # robots.txt is obeyed, and the site's content signals: a model asked for this page.
    result = await context.client.fetch(
        **FETCH.arguments("tool", args),
        respect_robots=True,
        for_model=context.respect_content_signals,
    )
    if result.error is not None:
        return ToolOutput(
            f"error {result.error.code}: could not read {args.url}: {result.error.message}",
            error=result.error,
        )
    url = result.final_url or result.url
    title = clean_line(result.title or "")
    source_id = context.ledger.issue(url, title, kind="page", fetched=True)
    if url != result.url:
        context.ledger.issue(result.url, title, kind="page", fetched=True)
    data = PageOutput(
        id=source_id,
        url=result.url,
        final_url=result.final_url,
        title=result.title,
        text=result.text,
        start_index=args.start_index,
        next_start_index=result.next_start_index,
        total_chars=result.total_chars,
        cache=result.cache,
        links=result.links,
    )
    end = args.start_index + len(result.text)
    lines = [
        f"[{source_id}] {title or url}",
        f"URL: {url}",
        f"Characters {args.start_index}-{end} of {result.total_chars}.",
        "",
        result.text,
    ]
    if result.next_start_index is not None:
        lines += ["", f"(cut here: call fetch_page with start_index={result.next_start_index})"]
    return ToolOutput("\n".join(lines), data)


async def research(context: ToolContext, args: Any) -> ToolOutput:
    digest = await context.client.research(
        **RESEARCH_OPERATION.arguments("tool", args),
        on_progress=context.on_progress,
        respect_content_signals=context.respect_content_signals,
    )
    renumbered = {
        citation.id: context.ledger.issue(citation.url, citation.title, kind="page", fetched=True)
        for citation in digest.citations
    }
    digest = digest.model_copy(
        update={
            "bullets": [
                bullet.model_copy(update={"citations": [renumbered[n] for n in bullet.citations]})
                for bullet in digest.bullets
            ],
            "citations": [
                citation.model_copy(update={"id": renumbered[citation.id]})
                for citation in digest.citations
            ],
        }
    )
    lines = [f"Findings for {args.question!r} (quotes from the pages read):"]
    for bullet in digest.bullets:
        marks = "".join(f"[{n}]" for n in bullet.citations)
        lines.append(f"- {bullet.text} {marks}")
    if not digest.bullets:
        lines.append("(no findings)")
    if digest.citations:
        lines.append("Sources:")
        lines += [f"[{c.id}] {c.title} - {c.url}" for c in digest.citations]
    for error in digest.errors:
        where = f"{error.url}: " if error.url else ""
        lines.append(f"Not read: {where}{error.code}")
    return ToolOutput("\n".join(lines), digest)


class MapSiteOutput(BaseModel):
    url: str
    entries: list[dict[str, Any]] = Field(description="{url, source, lastmod} per URL.")
    notes: list[str] = Field(
        description="What could not be read or was left out, and whether the deadline ended it."
    )


class CrawlPageItem(BaseModel):
    id: int | None = Field(description="Cite this page as [id]; None if it was not read.")
    url: str
    title: str | None
    outcome: str
    depth: int
    text: str


class CrawlSiteOutput(BaseModel):
    url: str
    index: str = Field(description="An llms.txt-style index of the pages read.")
    pages: list[CrawlPageItem]
    notes: list[str] = Field(
        default_factory=list,
        description="What the crawl skipped and why, and whether the deadline ended it.",
    )


_NOTES_SHOWN = 5  # summaries (the deadline, a skipped host) come first among a run's notes


def _note_lines(notes: list[str]) -> list[str]:
    lines = [f"Note: {note}" for note in notes[:_NOTES_SHOWN]]
    if len(notes) > _NOTES_SHOWN:
        lines.append(f"({len(notes) - _NOTES_SHOWN} more notes)")
    return lines


async def map_site(context: ToolContext, args: Any) -> ToolOutput:
    # A model's call is bounded: at the deadline the map returns what it has found.
    deadline = context.client.settings.crawl.crawl_tool_deadline
    found = await context.client.map(**MAP.arguments("tool", args), deadline=deadline)
    entries = [entry.model_dump() for entry in found.entries]
    lines = [f"{len(entries)} URLs of {found.url} (from sitemaps, feeds and the start page):"]
    lines += [f"- {e['url']} ({e['source']})" for e in entries]
    lines += _note_lines(found.notes)
    lines.append("Read a page with fetch_page before relying on it.")
    data = MapSiteOutput(url=found.url, entries=entries, notes=found.notes)
    return ToolOutput("\n".join(lines), data)


async def crawl_site(context: ToolContext, args: Any) -> ToolOutput:
    from sleuth.crawl.crawler import summary
    from sleuth.crawl.output import llms_txt

    records: list[dict[str, Any]] = []  # robots.txt obeyed: the tool surface cannot say no
    deadline = context.client.settings.crawl.crawl_tool_deadline  # then it returns what it has
    async with context.client.crawl(**CRAWL.arguments("tool", args), deadline=deadline) as run:
        records = [record async for record in run]
    start, notes = run.start, run.notes
    read = [r for r in records if r["outcome"] == "ok"]
    share = args.max_chars // max(len(read), 1)
    pages: list[CrawlPageItem] = []
    for record in records:
        title = clean_line(record.get("title") or "")
        ok = record["outcome"] == "ok"
        url = record.get("final_url") or record["url"]
        text = (record.get("text") or "") if ok else ""
        if len(text) > share:
            text = text[: share - 1].rstrip() + "…"
        pages.append(
            CrawlPageItem(
                id=context.ledger.issue(url, title, kind="page", fetched=True) if ok else None,
                url=record["url"],
                title=title or None,
                outcome=record["outcome"],
                depth=record["depth"],
                text=text,
            )
        )
    index = llms_txt([summary(r) for r in records], start=start)
    lines = [index.rstrip(), "", f"Pages read ({len(read)} of {len(records)}):"]
    for item in pages:
        if item.id is None:
            lines.append(f"Not read: {item.url}: {item.outcome}")
        else:
            lines += ["", f"[{item.id}] {item.title or item.url}", f"URL: {item.url}", item.text]
    if notes:
        lines += ["", *_note_lines(notes)]
    data = CrawlSiteOutput(url=start, index=index, pages=pages, notes=notes)
    return ToolOutput("\n".join(lines), data)


def _clip(text: str) -> str:
    return text if len(text) <= SNIPPET_CHARS else text[: SNIPPET_CHARS - 1].rstrip() + "…"


WEB_SEARCH = Tool.declared(AsyncSession.search, web_search, WebSearchOutput)
FETCH_PAGE = Tool.declared(AsyncSession.fetch, fetch_page, PageOutput)
RESEARCH = Tool.declared(AsyncSession.research, research, Digest)
MAP_SITE = Tool.declared(AsyncSession.map, map_site, MapSiteOutput)
CRAWL_SITE = Tool.declared(
    AsyncSession.crawl,
    crawl_site,
    CrawlSiteOutput,
    # The tool's own: how much page text comes back to the model, in all.
    max_chars=(
        int,
        Field(8000, ge=200, le=20000, description="Characters of page text to return, in all."),
    ),
)
BUILTIN_TOOLS = (WEB_SEARCH, FETCH_PAGE, RESEARCH, MAP_SITE, CRAWL_SITE)
