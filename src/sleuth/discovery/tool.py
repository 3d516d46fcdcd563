"""``discover`` as a tool for MCP clients and callers' own loops. It never prompts: an
ambiguous match is taken as the flagged top match, and a source a person should
confirm says so in its text, for the client to ask its user."""

from __future__ import annotations

from typing import Any

from sleuth.discovery.chain import discover
from sleuth.discovery.confirm import render
from sleuth.tools.registry import ToolContext, ToolOutput


async def run(context: ToolContext, args: Any) -> ToolOutput:
    """``args`` are the declared discover operation's tool arguments (see ``sleuth.api``)."""
    result = await discover(
        context.client,
        args.name,
        from_source=args.from_source,
        deterministic_only=args.deterministic_only,
        stages=args.stages,
        batch=True,
        on_progress=context.on_progress,
    )
    text = render(result)
    if result.confirmation_required:
        text += (
            f"\n\nASK THE USER before using {result.spec}: {result.confirmation_reason}. "
            "Show them the details above."
        )
    return ToolOutput(text, result)
