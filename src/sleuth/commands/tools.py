"""``sleuth tools``: the tool definitions ``sleuth mcp`` serves, for your own LLM loop."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

import typer

from sleuth.commands import output


class ToolFormat(StrEnum):
    openai = "openai"
    anthropic = "anthropic"
    gemini = "gemini"
    mcp = "mcp"


def tools(
    format: Annotated[
        ToolFormat, typer.Option("--format", "-f", help="Whose tool-definition format.")
    ] = ToolFormat.openai,
    json_output: Annotated[
        bool, typer.Option("--json", help="Accepted for symmetry: the output is always JSON.")
    ] = False,
) -> None:
    """Print the tools `sleuth mcp` serves, for your own LLM loop.

    Run one call from Python with sleuth.tools.call(name, arguments).
    """
    from sleuth.tools import tool_definitions
    from sleuth.toolset import offered_registry

    output.print_json(tool_definitions(format.value, offered_registry()))
