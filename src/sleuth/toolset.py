"""The one set of tools sleuth offers to MCP clients and callers' own loops.

It sits above ``tools`` and ``discover``: the built-in web and repository tools plus
``discover``. ``sleuth tools`` prints it and ``sleuth mcp`` serves it, so the two never
disagree; ``ask`` runs a subset of its own (no ``discover``: a model steered by web pages
should not pick what gets installed).
"""

from __future__ import annotations

from sleuth.discovery.tool import DISCOVER
from sleuth.tools import Registry, default_registry


def offered_registry(*, local: bool = True) -> Registry:
    """Every offered tool; ``local=False`` leaves out those that read this machine's files."""
    tools = default_registry(local=local)
    tools.add(DISCOVER)
    return tools
