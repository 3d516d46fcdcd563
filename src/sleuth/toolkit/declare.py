"""Tool definitions in each vendor's format: what a provider or an MCP client is told."""

from __future__ import annotations

from typing import Any, Literal

from sleuth.toolkit.registry import Tool

Format = Literal["openai", "anthropic", "gemini", "mcp"]
FORMATS: tuple[Format, ...] = ("openai", "anthropic", "gemini", "mcp")


def definitions(tools: list[Tool], fmt: Format) -> Any:
    """The tools as ``fmt``'s API wants them declared: the same code the providers send."""
    if fmt == "mcp":
        return [mcp_declaration(tool) for tool in tools]
    from sleuth.llm.models import ToolSpec
    from sleuth.llm.providers import PROVIDERS

    specs = [ToolSpec(tool.name, tool.description, tool.parameters) for tool in tools]
    return PROVIDERS[fmt].declare_tools(specs)


def mcp_declaration(tool: Tool) -> dict[str, Any]:
    """``tool`` as an MCP ``tools/list`` entry; the MCP server declares exactly this."""
    title = tool.title or tool.name
    return {
        "name": tool.name,
        "title": title,
        "description": tool.description,
        "inputSchema": tool.parameters,
        "outputSchema": tool.output_schema,
        "annotations": {
            "title": title,
            "readOnlyHint": tool.read_only,
            "destructiveHint": False,
            "idempotentHint": True,
            "openWorldHint": tool.open_world,
        },
    }
