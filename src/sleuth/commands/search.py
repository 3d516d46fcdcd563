"""``sleuth search``: web results with provider fallback."""

from __future__ import annotations

import asyncio
import sys
from typing import Annotated, Any

import typer

from sleuth.commands import output
from sleuth.commands.options import STATE, JsonFlag, RecencyOption, SiteOption, session
from sleuth.errors import EXIT_CODES


def search(  # noqa: PLR0917 - typer takes one parameter per flag
    query: Annotated[str, typer.Argument(metavar="QUERY", help="What to search for.")],
    max_results: Annotated[
        int | None,
        typer.Option(
            "-n",
            "--max-results",
            metavar="N",
            min=1,
            max=10,
            help="How many results, 1-10. Default: SLEUTH_MAX_RESULTS.",
        ),
    ] = None,
    provider: Annotated[
        str | None,
        typer.Option(
            metavar="NAME",
            help="Ask only this provider (brave, tavily, serpapi, searxng, duckduckgo, "
            "or a plugin).",
        ),
    ] = None,
    recency_days: RecencyOption = None,
    site: SiteOption = None,
    exclude_site: Annotated[
        list[str] | None,
        typer.Option("--exclude-site", metavar="SITE", help="Never this site (repeatable)."),
    ] = None,
    json_output: JsonFlag = False,
) -> None:
    """Search the web with provider fallback.

    Exits 34 (no_results) when nothing matched.
    """
    STATE.json = json_output
    client = session()

    async def run() -> Any:
        async with client:
            return await client.search(
                query,
                max_results=max_results,
                provider=provider,
                recency_days=recency_days,
                sites=site or (),
                exclude_sites=exclude_site or (),
            )

    with output.status(f"searching for {query!r}", output.interactive(json_output)):
        response = asyncio.run(run())
    if json_output:
        output.print_json(response.model_dump())
    else:
        for hit in response.results:
            output.out(f"{hit.rank}. {hit.title}\n   {hit.url}\n")
            if hit.snippet:
                output.out(f"   {hit.snippet}\n")
        count = len(response.results)
        tried = ", ".join(f"{a.name}:{a.outcome}" for a in response.providers_tried)
        sys.stderr.write(f"{count} result{'' if count == 1 else 's'} ({tried})\n")
    if not response.results:
        output.finish(EXIT_CODES["no_results"])
