"""crawl: a site read breadth first, politely, within a scope; over HTTP, as a job."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import BaseModel, Field

from sleuth.extract.text import clean_line
from sleuth.operation import Arg, Own, ToolOffer, declare, operation_of
from sleuth.ops.base import Http, Op, cap_integer, session_of
from sleuth.ops.map import note_lines
from sleuth.session import (
    EXCLUDE_ARG,
    FETCH_ERRORS,
    INCLUDE_ARG,
    RENDER_ARG,
    ROBOTS_ARG,
    SCOPE_ARG,
    AsyncSession,
    RenderMode,
    Scope,
)
from sleuth.toolkit import Tool, ToolContext, ToolOutput

if TYPE_CHECKING:
    from sleuth.config import Settings
    from sleuth.crawl.run import CrawlRun


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
    session: AsyncSession,
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
    return CrawlRun(session.web, url, options)


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
    records: list[dict[str, Any]] = []  # robots.txt obeyed: the tool surface cannot say no
    deadline = context.client.settings.crawl.crawl_tool_deadline  # then it returns what it has
    async with crawl(
        session_of(context), **operation_of(crawl).arguments("tool", args), deadline=deadline
    ) as run:
        records = [record async for record in run]
    return present_crawl(context, args.max_chars, run.start, records, run.notes)


def present_crawl(
    context: ToolContext,
    max_chars: int,
    start: str,
    records: list[dict[str, Any]],
    notes: list[str],
) -> ToolOutput:
    """A crawl's page records as the model gets them: the index, then each page's text
    (``max_chars`` in all), cited. The bounded call and an MCP task's result say the same."""
    from sleuth.crawl.crawler import summary
    from sleuth.crawl.output import llms_txt

    read = [r for r in records if r["outcome"] == "ok"]
    share = max_chars // max(len(read), 1)
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
    crawl,
    crawl_site,
    CrawlSiteOutput,
    # The tool's own: how much page text comes back to the model, in all.
    max_chars=(
        int,
        Field(8000, ge=200, le=20000, description="Characters of page text to return, in all."),
    ),
)


def job_body(schema: dict[str, Any], settings: Settings | None) -> None:
    """A job's pages as this server caps them; no webhook field where no secret signs one
    (there it is a 400)."""
    cap_integer(schema, "max_pages", settings.crawl_job_max_pages if settings else 500)
    if not (settings and settings.secret("webhook_secret")):
        del schema["properties"]["webhook"]


CRAWL = Op(
    crawl,
    http=Http(
        "/api/v1/crawl",
        "Start a crawl job",
        "Breadth first within scope, obeying robots.txt and at least the CLI's politeness. "
        "Answers 202 with the job's id and location; 429 when the caller already runs "
        "SLEUTH_CRAWL_JOBS_PER_TOKEN jobs.",
        uris=("url",),
        job=True,
        own=(
            (
                "webhook",
                (
                    str | None,
                    Field(
                        None,
                        max_length=2000,
                        description="POSTed, signed, when the job ends (done, failed or "
                        "cancelled); needs SLEUTH_WEBHOOK_SECRET",
                        json_schema_extra={"format": "uri"},
                    ),
                ),
            ),
        ),
        refine=job_body,
    ),
    tool=CRAWL_SITE,
)
