"""``sleuth cache stats`` and ``sleuth cache clear``."""

from __future__ import annotations

import asyncio
from typing import Any

import typer

from sleuth.commands import output
from sleuth.commands.options import STATE, JsonFlag, session

cache_app = typer.Typer(help="Inspect or empty the cache.", no_args_is_help=True)


@cache_app.command("stats")
def cache_stats(json_output: JsonFlag = False) -> None:
    """Show the cache backend, entry count and size."""
    STATE.json = json_output

    async def run() -> Any:
        async with session() as client:
            return await client.cache.stats()

    stats = asyncio.run(run())
    payload = {
        "backend": stats.backend,
        "entries": stats.entries,
        "size_bytes": stats.size_bytes,
        "location": stats.location,
        **stats.extra,
    }
    if json_output:
        output.print_json(payload)
    else:
        for key, value in payload.items():
            output.out(f"{key}: {'-' if value is None else value}\n")


@cache_app.command("clear")
def cache_clear(json_output: JsonFlag = False) -> None:
    """Remove every cached page, search and robots.txt."""
    STATE.json = json_output

    async def run() -> int:
        async with session() as client:
            return await client.cache.clear()

    removed = asyncio.run(run())
    if json_output:
        output.print_json({"removed": removed})
    else:
        output.out(f"removed {removed} entries\n")
