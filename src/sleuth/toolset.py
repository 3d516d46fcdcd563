"""The one set of tools sleuth offers to MCP clients and callers' own loops.

It sits above ``tools``, ``discovery`` and ``api`` (where discover is declared): the
built-in web and repository tools plus ``discover``. ``sleuth tools`` prints it and
``sleuth mcp`` serves it, so the two never disagree; ``ask`` runs a subset of its own (no
``discover``: a model steered by web pages should not pick what gets installed).
"""

from __future__ import annotations

from sleuth.api import AsyncSleuth
from sleuth.discovery.models import DiscoveryResult
from sleuth.discovery.tool import run
from sleuth.tools import Registry, Tool, default_registry

DISCOVER = Tool.declared(AsyncSleuth.discover, run, DiscoveryResult)


def offered_registry(*, local: bool = True) -> Registry:
    """Every offered tool; ``local=False`` leaves out those that read this machine's files."""
    tools = default_registry(local=local)
    tools.add(DISCOVER)
    return tools
