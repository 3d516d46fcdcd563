"""``sleuth map``: a site's URLs from its sitemaps, feeds and links, and the options it
shares with ``sleuth crawl``."""

from __future__ import annotations

import asyncio
import json
import sys
from enum import StrEnum
from typing import Annotated

import typer

from sleuth.commands import output
from sleuth.commands.options import ResolveOption, session


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
JsonlFlag = Annotated[bool, typer.Option("--json", help="Same as --format jsonl.")]


def map_command(  # noqa: PLR0917 - typer takes one parameter per flag
    url: Annotated[str, typer.Argument(metavar="URL", help="The site's start page.")],
    scope: ScopeOption = ScopeChoice.host,
    include: IncludeOption = None,
    exclude: ExcludeOption = None,
    limit: Annotated[int, typer.Option(metavar="N", min=1, help="At most N URLs.")] = 10_000,
    format: FormatOption = ListFormat.text,
    ignore_robots: IgnoreRobots = False,
    resolve: ResolveOption = None,
    json_output: JsonlFlag = False,
) -> None:
    """List a site's URLs from its sitemaps, feeds and links.

    Reads the start page, robots.txt, sitemaps and feeds, not every page.
    """
    from sleuth.crawl.run import map_entries

    machine = json_output or format is ListFormat.jsonl
    client = session(resolve)
    notes: list[str] = []

    async def run() -> int:
        count = 0
        async with client:
            async for entry in map_entries(
                client.settings,
                client.cache,
                url,
                scope=scope.value,
                include=tuple(include or ()),
                exclude=tuple(exclude or ()),
                limit=limit,
                respect_robots=not ignore_robots,
                resolver=client.resolver,
                notes=notes,
            ):
                count += 1
                if machine:
                    record = {"url": entry.url, "source": entry.source, "lastmod": entry.lastmod}
                    output.line(json.dumps(record, ensure_ascii=False))
                else:
                    output.line(entry.url)
        return count

    asyncio.run(run())
    for note in notes:
        sys.stderr.write(f"sleuth: note: {note}\n")
