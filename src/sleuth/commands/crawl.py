"""``sleuth crawl``: a site read breadth first, politely, within a scope."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from sleuth.commands import output
from sleuth.commands.options import RenderChoice, ResolveOption, session
from sleuth.commands.sitemap import (
    ExcludeOption,
    FormatOption,
    IgnoreRobots,
    IncludeOption,
    JsonlFlag,
    ListFormat,
    ScopeChoice,
    ScopeOption,
)
from sleuth.errors import EXIT_CODES


def crawl_command(  # noqa: PLR0917 - typer takes one parameter per flag
    url: Annotated[str, typer.Argument(metavar="URL", help="Where the crawl starts.")],
    scope: ScopeOption = ScopeChoice.host,
    include: IncludeOption = None,
    exclude: ExcludeOption = None,
    max_pages: Annotated[
        int, typer.Option(metavar="N", min=1, help="Read at most N pages (all runs).")
    ] = 100,
    max_depth: Annotated[int, typer.Option(metavar="N", min=0, help="Links from the start.")] = 5,
    sitemaps: Annotated[
        bool, typer.Option("--sitemaps", help="Also start from the URLs the sitemaps list.")
    ] = False,
    concurrency: Annotated[
        int, typer.Option(metavar="N", min=1, max=32, help="Requests in flight per host.")
    ] = 2,
    delay: Annotated[
        float,
        typer.Option(
            metavar="SECONDS", min=0, help="Least time between requests to a host (or Crawl-delay)."
        ),
    ] = 0.25,
    resume: Annotated[
        bool,
        typer.Option(
            "--resume", help="Continue this crawl where it stopped, or join it as a worker."
        ),
    ] = False,
    format: FormatOption = ListFormat.text,
    out: Annotated[
        Path | None, typer.Option(metavar="DIR", help="Write one Markdown file per page here.")
    ] = None,
    llms_txt: Annotated[
        Path | None, typer.Option("--llms-txt", metavar="FILE", help="Write an llms.txt here.")
    ] = None,
    render: Annotated[
        RenderChoice | None,
        typer.Option(help="Headless browser: auto (when a page needs JavaScript), always, never."),
    ] = None,
    ignore_robots: IgnoreRobots = False,
    resolve: ResolveOption = None,
    json_output: JsonlFlag = False,
) -> None:
    """Read a site breadth first, politely, within a scope.

    One record per page, failures included.
    """
    from sleuth.crawl.crawler import CrawlOptions
    from sleuth.crawl.run import CrawlRun

    machine = json_output or format is ListFormat.jsonl
    options = CrawlOptions(
        scope=scope.value,
        include=tuple(include or ()),
        exclude=tuple(exclude or ()),
        max_pages=max_pages,
        max_depth=max_depth,
        sitemaps=sitemaps,
        concurrency=concurrency,
        delay=delay,
        resume=resume,
        respect_robots=not ignore_robots,
        render=render.value if render else None,
    )
    client = session(resolve)
    progress = output.CrawlProgress(sys.stderr.isatty())
    outcomes: list[str] = []

    async def run() -> None:
        async with client:
            crawl = CrawlRun(
                client.settings,
                client.cache,
                url,
                options,
                resolver=client.resolver,
                out=out,
                llms_txt=llms_txt,
            )
            async with crawl:
                async for record in crawl.pages():
                    outcomes.append(record["outcome"])
                    if machine:
                        output.line(json.dumps(record, ensure_ascii=False, default=str))
                    else:
                        title = " ".join((record.get("title") or "").split())
                        output.line(f"{record['outcome']}\t{record['url']}\t{title}".rstrip("\t"))
                    progress.show(crawl.crawler.progress)
                progress.show(crawl.crawler.progress, final=True)
                await crawl.finish()
                for note in crawl.notes:
                    sys.stderr.write(f"sleuth: note: {note}\n")

    asyncio.run(run())
    if outcomes and "ok" not in outcomes:
        raise typer.Exit(EXIT_CODES.get(outcomes[0], 1))
