"""``sleuth fetch``: one page, safely, as text, Markdown or cleaned HTML."""

from __future__ import annotations

import asyncio
import sys
from enum import StrEnum
from typing import Annotated, Any

import typer

from sleuth.commands import output
from sleuth.commands.options import STATE, JsonFlag, RenderOption, ResolveOption, session
from sleuth.errors import EXIT_CODES


class FetchFormat(StrEnum):
    text = "text"
    markdown = "markdown"
    html = "html"


def fetch(  # noqa: PLR0917 - typer takes one parameter per flag
    url: Annotated[str, typer.Argument(metavar="URL", help="The page to fetch (http or https).")],
    format: Annotated[
        FetchFormat,
        typer.Option(
            "--format", "-f", help="Main text, Markdown, or the cleaned main-content HTML."
        ),
    ] = FetchFormat.text,
    max_chars: Annotated[
        int | None,
        typer.Option(metavar="N", help="Print at most N characters; page on with --start-index."),
    ] = None,
    start_index: Annotated[
        int, typer.Option(metavar="N", help="Start at character N of the text.")
    ] = 0,
    render: RenderOption = None,
    refresh: Annotated[bool, typer.Option("--refresh", help="Bypass the cache.")] = False,
    ignore_robots: Annotated[
        bool, typer.Option("--ignore-robots", help="Fetch even where robots.txt forbids it.")
    ] = False,
    resolve: ResolveOption = None,
    links: Annotated[
        bool, typer.Option("--links", help="Also list the page's links (JSON always has them).")
    ] = False,
    json_output: JsonFlag = False,
) -> None:
    """Fetch a page safely and print its main text."""
    STATE.json = json_output
    client = session(resolve)

    async def run() -> Any:
        async with client:
            return await client.fetch(
                url,
                format=format.value,
                render=render.value if render else None,
                refresh=refresh,
                respect_robots=not ignore_robots,
                max_chars=max_chars,
                start_index=start_index,
            )

    with output.status(f"fetching {url}", output.interactive(json_output)):
        result = asyncio.run(run())
    if json_output:
        output.print_json(result.model_dump(exclude={"total_chars"}))
    elif result.ok:
        # A continuation (--start-index N > 0) is the text from N and nothing else: the
        # title heads the first page only, and not when the text opens with it already
        # (a PDF's first heading is often its title).
        heading = f"# {result.title}" if format is FetchFormat.markdown else result.title
        if (
            start_index == 0
            and result.title
            and format is not FetchFormat.html
            and not result.text.lstrip().startswith(heading or "\0")
        ):
            output.out(heading + "\n\n")
        output.out(result.text.rstrip("\n") + "\n")
        if result.truncated and result.next_start_index is not None:
            from sleuth.pages.paging import truncation_marker

            output.out(truncation_marker(result.next_start_index).lstrip("\n") + "\n")
        if links:
            from sleuth.crawl.output import links_section

            output.out(links_section(result.links, markdown=format is FetchFormat.markdown))
    else:
        message = result.error.message if result.error else result.outcome
        sys.stderr.write(f"sleuth: {result.outcome}: {message}\n")
    output.finish(EXIT_CODES.get(result.outcome, 1))
