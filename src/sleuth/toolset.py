"""The one set of tools sleuth offers to MCP clients and callers' own loops.

It is every registered operation's tool (:data:`sleuth.ops.REGISTRY`, in its order).
``sleuth tools`` prints it and ``sleuth mcp`` serves it, so the two never disagree; ``ask``
runs a subset of its own (no ``discover``: a model steered by web pages should not pick
what gets installed).
"""

from __future__ import annotations

from sleuth.ops import REGISTRY
from sleuth.tools import Registry


def offered_registry(*, local: bool = True) -> Registry:
    """Every offered tool; ``local=False`` leaves out those that read this machine's files."""
    return Registry(
        op.tool for op in REGISTRY if op.tool is not None and (local or not op.tool.local)
    )
