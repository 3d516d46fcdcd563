"""The built-in tools: those of the operations the session core runs, in one registry.

``sleuth.tools.call`` runs them, and ``ask`` hands its model the ones fit for it.
"""

from __future__ import annotations

from sleuth.ops.crawl import CRAWL_SITE
from sleuth.ops.detect import DETECT_TOOL
from sleuth.ops.fetch import FETCH_PAGE
from sleuth.ops.map import MAP_SITE
from sleuth.ops.research import research_tool
from sleuth.ops.search import WEB_SEARCH
from sleuth.toolkit import Registry

BUILTIN_TOOLS = (WEB_SEARCH, FETCH_PAGE, research_tool(), MAP_SITE, CRAWL_SITE, DETECT_TOOL)


def default_registry(*, local: bool = True, ask: bool = False) -> Registry:
    """A fresh registry of the built-in tools; ``local=False`` leaves out those that read
    this machine's files (for loops where web content could steer the model), ``ask=True``
    those a tool declares unfit for ``ask``'s own model (``Tool.in_ask``)."""
    return Registry(
        tool for tool in BUILTIN_TOOLS if (local or not tool.local) and (tool.in_ask or not ask)
    )
