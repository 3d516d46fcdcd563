"""``sleuth crawl``: a site read breadth first, politely, within a scope."""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

import typer

from sleuth.commands import derive, output
from sleuth.commands.options import ResolveOption, session
from sleuth.commands.progress import CrawlProgress
from sleuth.commands.sitemap import FormatOption, JsonlFlag, ListFormat
from sleuth.errors import EXIT_CODES


@derive.command("sleuth.api:AsyncSleuth.crawl")
def crawl_command(
    arguments: dict[str, Any],
    format: FormatOption = ListFormat.text,
    resolve: ResolveOption = None,
    json_output: JsonlFlag = False,
) -> None:
    """Read a site breadth first, politely, within a scope.

    One record per page, failures included.
    """
    machine = json_output or format is ListFormat.jsonl
    client = session(resolve)
    bar = CrawlProgress(sys.stderr.isatty())
    outcomes: list[str] = []

    async def run() -> None:
        async with client:
            crawl = client.crawl_run(**arguments)
            async with crawl:
                async for record in crawl.pages():
                    outcomes.append(record["outcome"])
                    if machine:
                        output.line(json.dumps(_shown(record), ensure_ascii=False, default=str))
                    else:
                        title = " ".join((record.get("title") or "").split())
                        output.line(f"{record['outcome']}\t{record['url']}\t{title}".rstrip("\t"))
                    bar.show(crawl.crawler.progress)
                bar.show(crawl.crawler.progress, final=True)
                await crawl.finish()
                for note in crawl.notes:  # a deadline's too: the crawl still exits 0
                    sys.stderr.write(f"sleuth: note: {output.reworded_note(note)}\n")

    asyncio.run(run())
    if outcomes and "ok" not in outcomes:
        raise typer.Exit(EXIT_CODES.get(outcomes[0], 1))


def _shown(record: dict[str, Any]) -> dict[str, Any]:
    """A page record with its error's hint in the CLI's words."""
    error = record.get("error")
    if not isinstance(error, dict) or not isinstance(error.get("message"), str):
        return record
    message = output.reworded(str(error.get("code")), error["message"])
    return {**record, "error": {**error, "message": message}}
