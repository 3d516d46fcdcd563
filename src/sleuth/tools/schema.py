"""Tool definitions in each vendor's format, from one JSON Schema per tool.

Pydantic's schemas carry titles and ``anyOf [X, null]`` for optional
fields; models read plain schemas more reliably, and some APIs reject the
rest, so definitions are cleaned once here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from sleuth.tools.registry import Tool

Format = Literal["openai", "anthropic", "gemini", "mcp"]
FORMATS: tuple[Format, ...] = ("openai", "anthropic", "gemini", "mcp")


def clean_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """Titles dropped, optional ``X | None`` as plain ``X``, ``$defs`` inlined."""
    defs = schema.get("$defs", {})

    def walk(node: Any) -> Any:
        if isinstance(node, list):
            return [walk(item) for item in node]
        if not isinstance(node, dict):
            return node
        if "$ref" in node:
            return walk(defs[node["$ref"].rsplit("/", 1)[-1]])
        options = node.get("anyOf")
        if isinstance(options, list):
            real = [option for option in options if option != {"type": "null"}]
            if len(real) == 1 and len(options) == 2:
                merged = {**{k: v for k, v in node.items() if k != "anyOf"}, **real[0]}
                if merged.get("default", "") is None:
                    del merged["default"]
                return walk(merged)
        return {key: walk(value) for key, value in node.items() if key not in ("title", "$defs")}

    cleaned: dict[str, Any] = walk(schema)
    return cleaned


def definitions(tools: list[Tool], fmt: Format) -> Any:
    """The tools as ``fmt``'s API wants them declared."""
    if fmt == "openai":
        return [
            {
                "type": "function",
                "function": {
                    "name": tool.name,
                    "description": tool.description,
                    "parameters": tool.parameters,
                },
            }
            for tool in tools
        ]
    if fmt == "anthropic":
        return [
            {"name": tool.name, "description": tool.description, "input_schema": tool.parameters}
            for tool in tools
        ]
    if fmt == "gemini":
        return [
            {
                "functionDeclarations": [
                    {
                        "name": tool.name,
                        "description": tool.description,
                        "parametersJsonSchema": tool.parameters,
                    }
                    for tool in tools
                ]
            }
        ]
    return [
        {
            "name": tool.name,
            "title": tool.title or tool.name,
            "description": tool.description,
            "inputSchema": tool.parameters,
            "outputSchema": tool.output_schema,
            "annotations": {
                "title": tool.title or tool.name,
                "readOnlyHint": tool.read_only,
                "destructiveHint": False,
                "idempotentHint": True,
                "openWorldHint": tool.open_world,
            },
        }
        for tool in tools
    ]
