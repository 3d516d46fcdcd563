"""``sleuth fill``: a JSON Schema filled from pages, every value quoted from its page."""

from __future__ import annotations

import asyncio
from typing import Any

from sleuth.commands import derive, output
from sleuth.commands.options import STATE, JsonFlag, session
from sleuth.errors import EXIT_CODES
from sleuth.ops import fill as op
from sleuth.ops.fill import FILL


@derive.command(FILL, place=120)
def fill(arguments: dict[str, Any], json_output: JsonFlag = False) -> None:
    """Fill a JSON Schema from pages, each value quoted.

    Give the pages' URLs, or --question to search for them. Exits 90 when a value the
    schema requires is not supported by the pages; the answer is printed all the same.
    """
    from sleuth.fill.run import read_schema
    from sleuth.ops.fill import FILL, render

    STATE.json = json_output
    arguments["schema"] = read_schema(arguments["schema"])  # before anything is asked
    client = session()

    async def run(status: Any) -> Any:
        def progress(stage: str, detail: dict[str, Any]) -> None:
            if status is not None:
                status.update(output.escape(FILL.progress(stage, detail)))

        async with client:
            return await op.fill(client, **arguments, on_progress=progress)

    with output.status("filling", output.interactive(json_output)) as status:
        answer = asyncio.run(run(status))
    if json_output:
        output.print_json(answer.model_dump(mode="json"))
    else:
        output.out(render(answer) + "\n")
    if answer.outcome != "ok":
        output.finish(EXIT_CODES["incomplete"])
