"""``sleuth search``: web results with provider fallback."""

from __future__ import annotations

import asyncio
import sys
from typing import Any

from sleuth.commands import derive, output
from sleuth.commands.options import STATE, JsonFlag, session
from sleuth.errors import EXIT_CODES
from sleuth.ops import search as op
from sleuth.ops.search import SEARCH


@derive.command(SEARCH, place=30)
def search(arguments: dict[str, Any], json_output: JsonFlag = False) -> None:
    """Search the web with provider fallback.

    Exits 34 (no_results) when nothing matched.
    """
    STATE.json = json_output
    client = session()

    async def run() -> Any:
        async with client:
            return await op.search(client, **arguments)

    with output.status(f"searching for {arguments['query']!r}", output.interactive(json_output)):
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
