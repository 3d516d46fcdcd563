"""``sleuth discover``: a tool's official source and how to install it."""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

from sleuth.commands import derive, output
from sleuth.commands.options import STATE, JsonFlag, session
from sleuth.errors import SleuthError, UsageError
from sleuth.ops import discover as op
from sleuth.ops.discover import DISCOVER


@derive.command(DISCOVER, place=100)
def discover(arguments: dict[str, Any], json_output: JsonFlag = False) -> None:
    """Find a tool's official source and how to install it.

    Registry first, then the package ecosystems, then (with an LLM configured) the web,
    verified on GitHub and confirmed by you.
    """
    from sleuth.discovery.confirm import choose, progress_line, settle
    from sleuth.discovery.names import read_names

    STATE.json = json_output
    client = session()
    name, batch = arguments.pop("name"), arguments.pop("batch")
    names = read_names(sys.stdin) if name == "-" else [name]
    if name == "-" and not names:
        raise UsageError("no names on stdin", hint="one tool name a line")
    # Questions need a person on both ends: answers on stdin, the display on stderr.
    person = not batch and sys.stdin.isatty() and sys.stderr.isatty() and name != "-"

    def ask(prompt: str) -> str:
        sys.stderr.write(prompt)
        sys.stderr.flush()
        return sys.stdin.readline()

    def show(text: str) -> None:
        sys.stderr.write(text + "\n\n")

    def progress(stage: str, detail: dict[str, Any]) -> None:
        shown = progress_line(stage, detail)
        if shown is not None:
            sys.stderr.write(shown + "\n")

    async def run_one(tool: str) -> Any:
        result = await op.discover(
            client,
            tool,
            **arguments,
            batch=batch or name == "-",
            on_progress=progress if person else None,
            choose=(lambda t, matches: choose(t, matches, ask)) if person else None,
        )
        return settle(result, interactive=person, ask=ask, show=show)

    if name != "-":
        _one(name, client, run_one, person, json_output)
        return

    async def every() -> int:
        first_failure = 0
        async with client:
            for tool in names:
                try:
                    result = await run_one(tool)
                except SleuthError as error:
                    first_failure = first_failure or error.exit_code
                    if json_output:
                        output.out(
                            json.dumps({"tool": tool, "error": output.error_record(error)}) + "\n"
                        )
                    else:
                        sys.stderr.write(f"{tool}: error: {output.error_text(error)}\n")
                    continue
                if json_output:
                    output.out(json.dumps(result.to_json(), ensure_ascii=False) + "\n")
                else:
                    output.out(f"{tool}\t{result.spec}\t{result.install_hint}\n")
        return first_failure

    output.finish(asyncio.run(every()))


def _one(name: str, client: Any, run_one: Any, person: bool, json_output: bool) -> None:
    """One name: the source on stdout, how it was found on stderr."""
    from sleuth.discovery.confirm import summary
    from sleuth.errors import DiscoverError

    async def single() -> Any:
        async with client:
            return await run_one(name)

    try:
        with output.status(f"discovering {name}", output.interactive(json_output) and not person):
            result = asyncio.run(single())
    except DiscoverError as error:  # its JSON carries choices and the usage spent
        sys.stderr.write(f"sleuth: error: {output.error_text(error)}\n")
        if error.usage:
            sys.stderr.write(f"usage: {json.dumps(error.usage)}\n")
        if json_output:
            output.out(json.dumps({"error": output.error_record(error)}, ensure_ascii=False) + "\n")
        output.finish(error.exit_code)
    if json_output:
        output.print_json(result.to_json())
        return
    if not result.confirmation_required:
        sys.stderr.write(summary(result) + "\n")
        for warning in result.warnings:
            sys.stderr.write(f"warning: {warning}\n")
    output.out(f"{result.spec}\n")
    if result.install_hint:
        output.out(f"install: {result.install_hint}\n")
