"""Every operation sleuth offers, one module each, and the one registry the surfaces read.

The CLI's commands, the HTTP routes and their OpenAPI paths, the metrics' route labels,
the MCP tools, ``sleuth tools`` and the progress lines are all made by iterating
:data:`REGISTRY`; its order is the order tools are listed in.
"""

from __future__ import annotations

from sleuth.ops import (
    ask,
    crawl,
    detect,
    discover,
    extract,
    fetch,
    fill,
    map,
    research,
    search,
    suggest,
)
from sleuth.ops.base import Http, LLMUse, Op, Refusal, Wording, describe

REGISTRY: tuple[Op, ...] = (
    search.SEARCH,
    fetch.FETCH,
    research.RESEARCH,
    map.MAP,
    crawl.CRAWL,
    detect.DETECT,
    discover.DISCOVER,
    extract.EXTRACT,
    ask.ASK,
    suggest.SUGGEST,
    fill.FILL,
)


def served() -> tuple[Op, ...]:
    """The operations ``sleuth serve`` offers under its API."""
    return tuple(op for op in REGISTRY if op.http is not None)


def wording(tool: str) -> Wording:
    """The progress wording of the operation behind the tool named ``tool``."""
    found = (op.progress for op in REGISTRY if op.tool is not None and op.tool.name == tool)
    return next(found, describe)


__all__ = ["REGISTRY", "Http", "LLMUse", "Op", "Refusal", "describe", "served", "wording"]
