"""crawl: a site read breadth first, politely, within a scope; over HTTP, as a job."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from sleuth.extract.text import clean_line
from sleuth.operation import operation_of
from sleuth.ops.base import Http, Op
from sleuth.ops.map import note_lines
from sleuth.session import AsyncSession
from sleuth.toolkit import Tool, ToolContext, ToolOutput


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


async def crawl_site(context: ToolContext, args: Any) -> ToolOutput:
    from sleuth.crawl.crawler import summary
    from sleuth.crawl.output import llms_txt

    records: list[dict[str, Any]] = []  # robots.txt obeyed: the tool surface cannot say no
    deadline = context.client.settings.crawl.crawl_tool_deadline  # then it returns what it has
    async with context.client.crawl(
        **operation_of(AsyncSession.crawl).arguments("tool", args), deadline=deadline
    ) as run:
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
        lines += ["", *note_lines(notes)]
    data = CrawlSiteOutput(url=start, index=index, pages=pages, notes=notes)
    return ToolOutput("\n".join(lines), data)


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


CRAWL = Op(
    AsyncSession.crawl,
    http=Http(
        "/api/v1/crawl",
        "Start a crawl job",
        "Breadth first within scope, obeying robots.txt and at least the CLI's politeness. "
        "Answers 202 with the job's id and location; 429 when the caller already runs "
        "SLEUTH_CRAWL_JOBS_PER_TOKEN jobs.",
        uris=("url",),
        job=True,
    ),
    tool=CRAWL_SITE,
)
