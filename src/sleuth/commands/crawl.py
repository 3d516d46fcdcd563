"""``sleuth map`` and ``sleuth crawl``: thin commands over :mod:`sleuth.crawl.run`.

Beneath :mod:`sleuth.cli`, which registers :data:`COMMANDS`; the global ``--config`` and
``-v`` are read from the root command's parameters.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from sleuth.errors import EXIT_CODES

if TYPE_CHECKING:
    from sleuth.api import AsyncSleuth


class RenderChoice(StrEnum):
    auto = "auto"
    always = "always"
    never = "never"


class ScopeChoice(StrEnum):
    host = "host"
    domain = "domain"
    prefix = "prefix"


class ListFormat(StrEnum):
    text = "text"
    jsonl = "jsonl"


ScopeOption = Annotated[
    ScopeChoice,
    typer.Option(
        help="host: the start's host; domain: its registrable domain; "
        "prefix: the start's path up to its last '/'."
    ),
]
IncludeOption = Annotated[
    list[str] | None,
    typer.Option("--include", metavar="GLOB", help="Only paths matching GLOB; repeatable."),
]
ExcludeOption = Annotated[
    list[str] | None,
    typer.Option("--exclude", metavar="GLOB", help="Skip paths matching GLOB; repeatable."),
]
FormatOption = Annotated[
    ListFormat,
    typer.Option("--format", "-f", help="text (one line each) or jsonl (one object a line)."),
]
IgnoreRobots = Annotated[
    bool, typer.Option("--ignore-robots", help="Read even where robots.txt forbids it.")
]
ResolveOption = Annotated[
    list[str] | None,
    typer.Option(
        "--resolve", metavar="HOST:PORT:ADDR", help="Pin HOST:PORT to ADDR like curl; repeatable."
    ),
]


def _session(ctx: typer.Context, resolve: list[str] | None) -> AsyncSleuth:
    """A session with the settings and logging the global ``--config``/``-v`` ask for."""
    from sleuth import log
    from sleuth.api import AsyncSleuth
    from sleuth.config import load_settings

    root = ctx.find_root().params
    settings = load_settings(root.get("config"))
    verbose = int(root.get("verbose") or 0)
    log.configure(
        settings.log_format, settings.log_level or {0: None, 1: "info"}.get(verbose, "debug")
    )
    session = AsyncSleuth(settings)
    if resolve:
        from sleuth.net import PinnedResolver, SystemResolver, parse_resolve_pins

        session.resolver = PinnedResolver(parse_resolve_pins(resolve), SystemResolver())
    return session


def _line(text: str) -> None:
    """One record, flushed at once: a killed crawl keeps what it printed. A reader that
    left (``| head``) ends the command quietly."""
    try:
        sys.stdout.write(text + "\n")
        sys.stdout.flush()
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        raise typer.Exit(0) from None


def map_command(  # noqa: PLR0917 - typer takes one parameter per flag
    ctx: typer.Context,
    url: Annotated[str, typer.Argument(metavar="URL", help="The site's start page.")],
    scope: ScopeOption = ScopeChoice.host,
    include: IncludeOption = None,
    exclude: ExcludeOption = None,
    limit: Annotated[int, typer.Option(metavar="N", min=1, help="At most N URLs.")] = 10_000,
    format: FormatOption = ListFormat.text,
    ignore_robots: IgnoreRobots = False,
    resolve: ResolveOption = None,
    json_output: Annotated[bool, typer.Option("--json", help="Same as --format jsonl.")] = False,
) -> None:
    """List a site's URLs from its sitemaps, feeds and links.

    Reads the start page, robots.txt, sitemaps and feeds, not every page.
    """
    from sleuth.crawl.run import map_entries

    machine = json_output or format is ListFormat.jsonl
    session = _session(ctx, resolve)
    notes: list[str] = []

    async def run() -> int:
        count = 0
        async with session:
            async for entry in map_entries(
                session.settings,
                session.cache,
                url,
                scope=scope.value,
                include=tuple(include or ()),
                exclude=tuple(exclude or ()),
                limit=limit,
                respect_robots=not ignore_robots,
                resolver=session.resolver,
                notes=notes,
            ):
                count += 1
                if machine:
                    record = {"url": entry.url, "source": entry.source, "lastmod": entry.lastmod}
                    _line(json.dumps(record, ensure_ascii=False))
                else:
                    _line(entry.url)
        return count

    asyncio.run(run())
    for note in notes:
        sys.stderr.write(f"sleuth: note: {note}\n")


class _Progress:
    """Pages done, queued, errors and rate on one stderr line, for a person only."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self._last = 0.0

    def show(self, stats: Any, *, final: bool = False) -> None:
        if not self.enabled or (not final and time.monotonic() - self._last < 0.2):
            return
        self._last = time.monotonic()
        line = (
            f"{stats.pages} pages, {max(stats.queued - stats.pages, 0)} queued, "
            f"{stats.errors} errors, {stats.rate:.1f} pages/s"
        )
        sys.stderr.write("\r\x1b[K" + line + ("\n" if final else ""))
        sys.stderr.flush()


def crawl_command(  # noqa: PLR0917 - typer takes one parameter per flag
    ctx: typer.Context,
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
    json_output: Annotated[bool, typer.Option("--json", help="Same as --format jsonl.")] = False,
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
    session = _session(ctx, resolve)
    progress = _Progress(sys.stderr.isatty())
    outcomes: list[str] = []

    async def run() -> None:
        async with session:
            crawl = CrawlRun(
                session.settings,
                session.cache,
                url,
                options,
                resolver=session.resolver,
                out=out,
                llms_txt=llms_txt,
            )
            async with crawl:
                async for record in crawl.pages():
                    outcomes.append(record["outcome"])
                    if machine:
                        _line(json.dumps(record, ensure_ascii=False, default=str))
                    else:
                        title = " ".join((record.get("title") or "").split())
                        _line(f"{record['outcome']}\t{record['url']}\t{title}".rstrip("\t"))
                    progress.show(crawl.crawler.progress)
                progress.show(crawl.crawler.progress, final=True)
                await crawl.finish()
                for note in crawl.notes:
                    sys.stderr.write(f"sleuth: note: {note}\n")

    asyncio.run(run())
    if outcomes and "ok" not in outcomes:
        raise typer.Exit(EXIT_CODES.get(outcomes[0], 1))


# Registered by sleuth.cli: ``app.registered_commands.extend(COMMANDS)``.
COMMANDS = [
    typer.models.CommandInfo(name="map", callback=map_command),
    typer.models.CommandInfo(name="crawl", callback=crawl_command),
]
