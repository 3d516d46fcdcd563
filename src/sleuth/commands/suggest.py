"""``sleuth suggest``: a link's slug, title, description and tags from the LLM."""

from __future__ import annotations

import asyncio
import sys
from typing import Any

from sleuth.commands import derive, output
from sleuth.commands.options import STATE, JsonFlag, session
from sleuth.ops import suggest as op
from sleuth.ops.suggest import SUGGEST


@derive.command(SUGGEST, place=80)
def suggest(arguments: dict[str, Any], json_output: JsonFlag = False) -> None:
    """Suggest a link's slug, title, description and tags.

    Asks the configured LLM (SLEUTH_LLM_PROVIDER or SLEUTH_LLM_BASE_URL).
    """
    from sleuth.suggest import check_url

    STATE.json = json_output
    check_url(arguments["url"])
    client = session()

    async def run() -> Any:
        async with client:
            return await op.suggest(client, **arguments)

    with output.status("asking the model", output.interactive(json_output)):
        result = asyncio.run(run())
    if json_output:
        output.print_json(result.suggestion.model_dump())
        return
    shown = result.suggestion
    for name, value in (
        ("slug", shown.slug),
        ("title", shown.title),
        ("description", shown.description),
        ("tags", " ".join(shown.tags)),
    ):
        output.out(f"{name}: {value or '-'}\n")
    if result.cleared:
        sys.stderr.write(f"cleared invalid field(s): {', '.join(result.cleared)}\n")
