"""``discover`` as a tool for MCP clients and callers' own loops. It never prompts: an
ambiguous match is taken as the flagged top match, and a source a person should
confirm says so in its text, for the client to ask its user."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from sleuth.discovery.chain import discover
from sleuth.discovery.confirm import render
from sleuth.discovery.models import DiscoveryResult
from sleuth.tools.registry import Tool, ToolContext, ToolOutput


class DiscoverArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=214, description="The tool's name, e.g. ripgrep.")
    from_source: str | None = Field(
        None, description="A source you already know, as builder:source (github:cli/cli)."
    )
    deterministic_only: bool = Field(
        False, description="Only the registry and package ecosystems; no LLM web search."
    )
    stages: list[Literal["registry", "ecosystem", "llm"]] | None = Field(
        None, description="Which stages to run, in chain order. Default: all."
    )


async def run(context: ToolContext, args: DiscoverArgs) -> ToolOutput:
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


DISCOVER = Tool(
    name="discover",
    title="Discover a tool's source",
    description=(
        "Find the official source of a developer tool (GitHub repository or package) and the "
        "command to install it: a curated registry first, then crates.io, npm, PyPI, RubyGems, "
        "Go, Homebrew and CPAN, then (if configured) an LLM web search verified on GitHub. "
        "Sources marked confirmation_required must be confirmed by the user."
    ),
    arguments=DiscoverArgs,
    output=DiscoveryResult,
    run=run,
)
