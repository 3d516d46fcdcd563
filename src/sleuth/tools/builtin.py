"""The web tools every interface offers: ``web_search``, ``fetch_page``, ``research``,
``map_site`` and ``crawl_site``.

Each returns typed data for programs and a compact text for models, in which
every URL carries the id the session's citation ledger issued for it.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from sleuth.digest.models import Digest
from sleuth.extract.text import clean_line
from sleuth.tools.registry import Tool, ToolContext, ToolOutput

SNIPPET_CHARS = 300
CRAWL_TOOL_MAX_PAGES = 20  # a model's crawl stays small; people use `sleuth crawl`


class WebSearchArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    query: str = Field(min_length=1, max_length=400, description="What to search the web for.")
    max_results: int = Field(5, ge=1, le=10, description="How many results, 1-10.")
    recency_days: int | None = Field(
        None, ge=1, le=3650, description="Only pages from the last N days."
    )
    site: str | None = Field(None, description="Only results from this domain, e.g. python.org.")


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


class FetchPageArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    url: str = Field(min_length=1, description="The http(s) URL of the page to read.")
    start_index: int = Field(
        0, ge=0, description="Character to start from, to read on where a page was cut."
    )
    max_chars: int = Field(5000, ge=200, le=20000, description="Characters to return.")


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


class ResearchArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    question: str = Field(min_length=1, max_length=400, description="The question to research.")
    focus: str | None = Field(None, description="What matters most in the answer.")
    max_pages: int = Field(3, ge=1, le=5, description="Pages to read, 1-5.")
    recency_days: int | None = Field(
        None, ge=1, le=3650, description="Only pages from the last N days."
    )


async def web_search(context: ToolContext, args: WebSearchArgs) -> ToolOutput:
    response = await context.client.search(
        args.query,
        max_results=args.max_results,
        recency_days=args.recency_days,
        sites=[args.site] if args.site else (),
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


async def fetch_page(context: ToolContext, args: FetchPageArgs) -> ToolOutput:
    # robots.txt is obeyed: a model asked for this page, not a person.
    result = await context.client.fetch(
        args.url, max_chars=args.max_chars, start_index=args.start_index, respect_robots=True
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


async def research(context: ToolContext, args: ResearchArgs) -> ToolOutput:
    digest = await context.client.research(
        args.question,
        focus=args.focus,
        max_pages=args.max_pages,
        recency_days=args.recency_days,
        on_progress=context.on_progress,
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


class MapSiteArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    url: str = Field(min_length=1, description="The site's start page (http or https).")
    scope: Literal["host", "domain", "prefix"] = Field(
        "host", description="host, domain (subdomains too) or prefix (the start's folder)."
    )
    limit: int = Field(100, ge=1, le=1000, description="At most this many URLs.")


class MapSiteOutput(BaseModel):
    url: str
    entries: list[dict[str, Any]] = Field(description="{url, source, lastmod} per URL.")
    notes: list[str] = Field(description="Sitemaps or feeds that could not be read.")


class CrawlSiteArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    url: str = Field(min_length=1, description="Where to start (http or https).")
    max_pages: int = Field(10, ge=1, le=CRAWL_TOOL_MAX_PAGES, description="Pages to read, 1-20.")
    scope: Literal["host", "domain", "prefix"] = Field(
        "prefix", description="host, domain (subdomains too) or prefix (the start's folder)."
    )
    max_chars: int = Field(
        8000, ge=200, le=20000, description="Characters of page text to return, in all."
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


async def map_site(context: ToolContext, args: MapSiteArgs) -> ToolOutput:
    from sleuth.crawl.run import site_map

    client = context.client
    found = await site_map(
        client.settings,
        client.cache,
        args.url,
        scope=args.scope,
        limit=args.limit,
        resolver=client.resolver,
    )
    entries = [entry.model_dump() for entry in found.entries]
    lines = [f"{len(entries)} URLs of {found.url} (from sitemaps, feeds and the start page):"]
    lines += [f"- {e['url']} ({e['source']})" for e in entries]
    lines += [f"Not read: {note}" for note in found.notes[:5]]
    lines.append("Read a page with fetch_page before relying on it.")
    data = MapSiteOutput(url=found.url, entries=entries, notes=found.notes)
    return ToolOutput("\n".join(lines), data)


async def crawl_site(context: ToolContext, args: CrawlSiteArgs) -> ToolOutput:
    from sleuth.crawl.crawler import CrawlOptions, summary
    from sleuth.crawl.output import llms_txt
    from sleuth.crawl.run import CrawlRun

    client = context.client
    options = CrawlOptions(scope=args.scope, max_pages=args.max_pages)  # robots.txt obeyed
    records: list[dict[str, Any]] = []
    async with CrawlRun(
        client.settings, client.cache, args.url, options, resolver=client.resolver
    ) as run:
        records = [record async for record in run.pages()]
        start = run.start
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
    data = CrawlSiteOutput(url=start, index=index, pages=pages)
    return ToolOutput("\n".join(lines), data)


def _clip(text: str) -> str:
    return text if len(text) <= SNIPPET_CHARS else text[: SNIPPET_CHARS - 1].rstrip() + "…"


WEB_SEARCH = Tool(
    name="web_search",
    title="Web search",
    description=(
        "Search the web. Returns numbered results (title, URL, snippet); cite them as [n]. "
        "Use fetch_page to read a result before relying on it."
    ),
    arguments=WebSearchArgs,
    output=WebSearchOutput,
    run=web_search,
)
FETCH_PAGE = Tool(
    name="fetch_page",
    title="Fetch page",
    description=(
        "Read the main text of a web page (public http/https URLs; robots.txt is obeyed). "
        "Long pages come in parts: pass next_start_index as start_index to read on. "
        "Cite the page as [n]."
    ),
    arguments=FetchPageArgs,
    output=PageOutput,
    run=fetch_page,
)
RESEARCH = Tool(
    name="research",
    title="Research",
    description=(
        "Answer a question from the web: searches, reads the best pages and returns short "
        "verbatim findings, each citing its page as [n]. Slower than web_search, but every "
        "finding comes from a page that was actually read."
    ),
    arguments=ResearchArgs,
    output=Digest,
    run=research,
)
MAP_SITE = Tool(
    name="map_site",
    title="Map site",
    description=(
        "List a site's URLs (from its sitemaps, feeds and start page) without reading them. "
        "Use it to find the right pages of a documentation site, then read them with fetch_page."
    ),
    arguments=MapSiteArgs,
    output=MapSiteOutput,
    run=map_site,
    in_ask=False,
)
CRAWL_SITE = Tool(
    name="crawl_site",
    title="Crawl site",
    description=(
        "Read up to 20 pages of one site, breadth first from a start URL (robots.txt obeyed, "
        "politely). Returns an llms.txt-style index and each page's text, cited as [n]."
    ),
    arguments=CrawlSiteArgs,
    output=CrawlSiteOutput,
    run=crawl_site,
    in_ask=False,
)
BUILTIN_TOOLS = (WEB_SEARCH, FETCH_PAGE, RESEARCH, MAP_SITE, CRAWL_SITE)
