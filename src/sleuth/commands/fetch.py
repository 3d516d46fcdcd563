"""``sleuth fetch``: one page, safely, as text, Markdown or cleaned HTML."""

from __future__ import annotations

import asyncio
import sys
from typing import Annotated, Any

import typer

from sleuth.commands import derive, output
from sleuth.commands.options import STATE, JsonFlag, ResolveOption, session
from sleuth.errors import EXIT_CODES
from sleuth.ops import fetch as op
from sleuth.ops.fetch import FETCH


@derive.command(FETCH, place=10)
def fetch(
    arguments: dict[str, Any],
    resolve: ResolveOption = None,
    links: Annotated[
        bool, typer.Option("--links", help="Also list the page's links (JSON always has them).")
    ] = False,
    json_output: JsonFlag = False,
) -> None:
    """Fetch a page safely and print its main text."""
    STATE.json = json_output
    client = session(resolve)
    url, format, start_index = (arguments[k] for k in ("url", "format", "start_index"))

    async def run() -> Any:
        async with client:
            return await op.fetch(client, **arguments)

    with output.status(f"fetching {url}", output.interactive(json_output)):
        result = asyncio.run(run())
    if result.error is not None:  # its hint in the CLI's words
        result.error.message = output.reworded(result.outcome, result.error.message)
    if json_output:
        output.print_json(result.model_dump(exclude={"total_chars"}))
    elif result.ok:
        # A continuation (--start-index N > 0) is the text from N and nothing else: the
        # title heads the first page only, and not when the text opens with it already
        # (a PDF's first heading is often its title).
        heading = f"# {result.title}" if format == "markdown" else result.title
        if (
            start_index == 0
            and result.title
            and format != "html"
            and not result.text.lstrip().startswith(heading or "\0")
        ):
            output.out(heading + "\n\n")
        output.out(result.text.rstrip("\n") + "\n")
        if result.truncated and result.next_start_index is not None:
            from sleuth.pages.paging import truncation_marker

            output.out(truncation_marker(result.next_start_index).lstrip("\n") + "\n")
        if links:
            from sleuth.crawl.output import links_section

            output.out(links_section(result.links, markdown=format == "markdown"))
    else:
        message = result.error.message if result.error else result.outcome
        sys.stderr.write(f"sleuth: {result.outcome}: {message}\n")
    output.finish(EXIT_CODES.get(result.outcome, 1))
