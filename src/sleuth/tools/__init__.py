"""Tools for LLMs: one registry behind ``sleuth ask``, the MCP server and callers' own loops.

The public face: the machinery is :mod:`sleuth.toolkit` and the built-in tools live with
their operations (:mod:`sleuth.ops`), beneath this module.

``call("web_search", {"query": "..."})`` runs one tool call the way a model
would make it; ``definitions("openai")`` declares the tools in a vendor's format.
"""

from __future__ import annotations

from typing import Any

from sleuth.ops.builtin import default_registry
from sleuth.toolkit import (
    FORMATS,
    CallRecord,
    CheckedAnswer,
    CitationLedger,
    Format,
    Registry,
    Services,
    Source,
    Tool,
    ToolContext,
    ToolOutput,
    definitions,
)


async def acall(
    name: str,
    arguments: dict[str, Any] | None = None,
    *,
    client: Services | None = None,
    ledger: CitationLedger | None = None,
) -> ToolOutput:
    """Run one tool call.

    Raises :class:`~sleuth.errors.UnknownTool` or :class:`~sleuth.errors.ToolError`
    for a bad call; a failure on the web comes back in ``ToolOutput.error``.
    Without a ``client`` the call opens a session of its own and closes it after.
    """
    registry = default_registry()
    tool, parsed = registry.validate(name, arguments)
    if client is not None:
        return await _run(registry, client, tool.name, parsed.model_dump(by_alias=True), ledger)
    # The one-shot convenience for callers without a session opens the session core,
    # which sits below the tools.
    from sleuth.session import AsyncSession

    async with AsyncSession() as session:
        return await _run(registry, session, tool.name, parsed.model_dump(by_alias=True), ledger)


async def _run(
    registry: Registry,
    client: Services,
    name: str,
    arguments: dict[str, Any],
    ledger: CitationLedger | None,
) -> ToolOutput:
    context = ToolContext(client=client, ledger=ledger if ledger is not None else CitationLedger())
    record = await registry.call(context, name, arguments)
    return record.output


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
    "Services",
    "Source",
    "Tool",
    "ToolContext",
    "ToolOutput",
    "acall",
    "call",
    "default_registry",
    "tool_definitions",
]
