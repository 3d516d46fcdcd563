"""``sleuth map``: a site's URLs from its sitemaps, feeds and links, and the options it
shares with ``sleuth crawl``."""

from __future__ import annotations

import asyncio
import json
import sys
from enum import StrEnum
from typing import Annotated, Any

import typer

from sleuth.commands import derive, output
from sleuth.commands.options import ResolveOption, session
from sleuth.ops.map import MAP


class ListFormat(StrEnum):
    text = "text"
    jsonl = "jsonl"


FormatOption = Annotated[
    ListFormat,
    typer.Option("--format", "-f", help="text (one line each) or jsonl (one object a line)."),
]
JsonlFlag = Annotated[bool, typer.Option("--json", help="Same as --format jsonl.")]


@derive.command(MAP, place=130)
def map_command(
    arguments: dict[str, Any],
    format: FormatOption = ListFormat.text,
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
            async for entry in map_entries(client.web, **arguments, notes=notes):
                count += 1
                if machine:
                    record = {"url": entry.url, "source": entry.source, "lastmod": entry.lastmod}
                    output.line(json.dumps(record, ensure_ascii=False))
                else:
                    output.line(entry.url)
        return count

    asyncio.run(run())
    for note in notes:
        sys.stderr.write(f"sleuth: note: {output.reworded_note(note)}\n")
