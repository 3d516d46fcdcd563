"""Every operation sleuth offers, one module each, and the one registry the surfaces read.

The CLI's commands, the HTTP routes and their OpenAPI paths, the metrics' route labels,
the MCP tools, ``sleuth tools`` and the progress lines are all made by iterating
:data:`REGISTRY`; its order is the order tools are listed in.
"""

from __future__ import annotations

import functools
import importlib
from typing import TYPE_CHECKING, Any

from sleuth.ops.base import Http, LLMUse, Op, Refusal, Wording, describe

# Each operation's module, in the order tools are listed; the module ``sleuth.ops.NAME``
# declares it as ``NAME.upper()``. Adding an operation is its module and a name here.
NAMES: tuple[str, ...] = (
    "search",
    "fetch",
    "research",
    "map",
    "crawl",
    "detect",
    "discover",
    "extract",
    "ask",
    "suggest",
    "fill",
)

if TYPE_CHECKING:
    REGISTRY: tuple[Op, ...]


def _load(name: str) -> Op:
    found: Op = getattr(importlib.import_module(f"sleuth.ops.{name}"), name.upper())
    return found


def find(name: str) -> Op | None:
    """The operation called ``name``, importing its module alone: a CLI run that names one
    command reads one declaration."""
    return _load(name) if name in NAMES else None


@functools.cache
def _registry() -> tuple[Op, ...]:
    return tuple(_load(name) for name in NAMES)


def __getattr__(name: str) -> Any:
    """``REGISTRY``: every operation, imported when first read."""
    if name == "REGISTRY":
        return _registry()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def served() -> tuple[Op, ...]:
    """The operations ``sleuth serve`` offers under its API."""
    return tuple(op for op in _registry() if op.http is not None)


def wording(tool: str) -> Wording:
    """The progress wording of the operation behind the tool named ``tool``."""
    found = (op.progress for op in _registry() if op.tool is not None and op.tool.name == tool)
    return next(found, describe)


__all__ = [
    "NAMES",
    "REGISTRY",
    "Http",
    "LLMUse",
    "Op",
    "Refusal",
    "describe",
    "find",
    "served",
    "wording",
]
