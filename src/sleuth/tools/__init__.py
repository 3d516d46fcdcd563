"""Tools for LLMs: one registry behind ``sleuth ask``, the MCP server and callers' own loops.

``call("web_search", {"query": "..."})`` runs one tool call the way a model
would make it; ``definitions("openai")`` declares the tools in a vendor's format.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sleuth.tools.builtin import BUILTIN_TOOLS
from sleuth.tools.ledger import CheckedAnswer, CitationLedger, Source
from sleuth.tools.registry import CallRecord, Registry, Tool, ToolContext, ToolOutput
from sleuth.tools.schema import FORMATS, Format, definitions

if TYPE_CHECKING:
    from sleuth.api import AsyncSleuth


def default_registry(*, local: bool = True) -> Registry:
    """A fresh registry of the built-in tools; ``local=False`` leaves out those that read
    this machine's files (for loops where web content could steer the model)."""
    from sleuth.tools.repo import DETECT

    tools = (*BUILTIN_TOOLS, DETECT)
    return Registry(tool for tool in tools if local or not tool.local)


async def acall(
    name: str,
    arguments: dict[str, Any] | None = None,
    *,
    client: AsyncSleuth | None = None,
    ledger: CitationLedger | None = None,
) -> ToolOutput:
    """Run one tool call.

    Raises :class:`~sleuth.errors.UnknownTool` or :class:`~sleuth.errors.ToolError`
    for a bad call; a failure on the web comes back in ``ToolOutput.error``.
    """
    from sleuth.api import AsyncSleuth

    registry = default_registry()
    tool, parsed = registry.validate(name, arguments)
    owned = client is None
    session = client or AsyncSleuth()
    try:
        context = ToolContext(
            client=session, ledger=ledger if ledger is not None else CitationLedger()
        )
        record = await registry.call(context, tool.name, parsed.model_dump())
        return record.output
    finally:
        if owned:
            await session.aclose()


def call(name: str, arguments: dict[str, Any] | None = None, **kwargs: Any) -> ToolOutput:
    """The blocking twin of :func:`acall`."""
    import asyncio

    return asyncio.run(acall(name, arguments, **kwargs))


def tool_definitions(fmt: Format, registry: Registry | None = None) -> Any:
    return definitions(list(registry or default_registry()), fmt)


__all__ = [
    "FORMATS",
    "CallRecord",
    "CheckedAnswer",
    "CitationLedger",
    "Format",
    "Registry",
    "Source",
    "Tool",
    "ToolContext",
    "ToolOutput",
    "acall",
    "call",
    "default_registry",
    "tool_definitions",
]
