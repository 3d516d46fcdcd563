"""``sleuth detect``: every project in a repository, its stack, build and run."""

from __future__ import annotations

import asyncio
import shutil
import sys
from typing import Any

from sleuth.commands import derive, output
from sleuth.commands.options import STATE, JsonFlag, session
from sleuth.ops import detect as op
from sleuth.ops.detect import DETECT


@derive.command(DETECT, place=110)
def detect(arguments: dict[str, Any], json_output: JsonFlag = False) -> None:
    """Find every project in a repository: its stack, build and run."""
    from sleuth.stack import render_json, render_table

    STATE.json = json_output
    client = session()
    path = arguments["path"]

    async def run() -> Any:
        async with client:
            return await op.detect(client, **arguments)

    with output.status(f"scanning {path}", output.interactive(json_output)):
        projects = asyncio.run(run())
    if json_output:
        output.out(render_json(projects) + "\n")
    elif projects:
        width = shutil.get_terminal_size().columns if sys.stdout.isatty() else None
        output.out(render_table(projects, width).rstrip("\n") + "\n")
    else:
        sys.stderr.write(f"no projects found under {path}\n")
