"""``sleuth detect``: every project in a repository, its stack, build and run."""

from __future__ import annotations

import asyncio
import shutil
import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer

from sleuth.commands import output
from sleuth.commands.options import STATE, JsonFlag, session


class DetectMode(StrEnum):
    full = "full"
    static = "static"
    llm = "llm"
    llm_only = "llm_only"


def detect(
    path: Annotated[
        Path, typer.Argument(metavar="PATH", help="The repository to scan. Default: here.")
    ] = Path("."),
    mode: Annotated[
        DetectMode | None,
        typer.Option(
            help="static: detectors only; full: an LLM names what they cannot (when one is "
            "configured); llm: the LLM names everything. Default: SLEUTH_DETECTION_MODE."
        ),
    ] = None,
    provider: Annotated[
        str | None, typer.Option(metavar="NAME", help="LLM provider for full and llm modes.")
    ] = None,
    model: Annotated[str | None, typer.Option(metavar="MODEL", help="LLM model.")] = None,
    json_output: JsonFlag = False,
) -> None:
    """Find every project in a repository: its stack, build and run."""
    from sleuth.stack import render_json, render_table

    STATE.json = json_output
    client = session()

    async def run() -> Any:
        async with client:
            return await client.detect(
                path, mode=mode.value if mode else None, provider=provider, model=model
            )

    with output.status(f"scanning {path}", output.interactive(json_output)):
        projects = asyncio.run(run())
    if json_output:
        output.out(render_json(projects) + "\n")
    elif projects:
        width = shutil.get_terminal_size().columns if sys.stdout.isatty() else None
        output.out(render_table(projects, width).rstrip("\n") + "\n")
    else:
        sys.stderr.write(f"no projects found under {path}\n")
