"""sleuth: safe, fast, cited access to the web for people and LLM agents.

Operations that return one answer have one-shot shortcuts (``sleuth.fetch``,
``sleuth.research``, ``sleuth.fill`` ... and their async twins ``sleuth.afetch`` ...), but
for those whose name a module or a builtin holds (``suggest``, ``map``): use a client;
``sleuth.tools`` runs single tool calls;
:class:`Sleuth` and :class:`AsyncSleuth` keep connections and the cache across calls.
Names load on first use, so ``sleuth --version`` and light imports do not pay for
the extractor.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from sleuth._version import __version__

if TYPE_CHECKING:
    from sleuth import tools
    from sleuth.agent import Answer
    from sleuth.api import (
        AsyncSleuth,
        Sleuth,
        # derived: imports
        aask,
        adetect,
        adiscover,
        afetch,
        afill,
        aresearch,
        asearch,
        ask,
        detect,
        discover,
        fetch,
        fill,
        research,
        search,
        # end derived: imports
    )
    from sleuth.config import Settings, load_settings
    from sleuth.digest import Digest
    from sleuth.discovery import DiscoveryResult
    from sleuth.errors import SleuthError
    from sleuth.pages import FetchResult
    from sleuth.stack import Project
    from sleuth.websearch import SearchResponse

_EXPORTS = {
    "Answer": "sleuth.agent",
    "AsyncSleuth": "sleuth.api",
    # derived: exports
    "aask": "sleuth.api",
    "adetect": "sleuth.api",
    "adiscover": "sleuth.api",
    "afetch": "sleuth.api",
    "afill": "sleuth.api",
    "aresearch": "sleuth.api",
    "asearch": "sleuth.api",
    "ask": "sleuth.api",
    "detect": "sleuth.api",
    "discover": "sleuth.api",
    "fetch": "sleuth.api",
    "fill": "sleuth.api",
    "research": "sleuth.api",
    "search": "sleuth.api",
    # end derived: exports
    "DiscoveryResult": "sleuth.discovery",
    "Project": "sleuth.stack",
    "Sleuth": "sleuth.api",
    "Settings": "sleuth.config",
    "load_settings": "sleuth.config",
    "Digest": "sleuth.digest",
    "SleuthError": "sleuth.errors",
    "FetchResult": "sleuth.pages",
    "SearchResponse": "sleuth.websearch",
}

__all__ = [
    "Answer",
    "AsyncSleuth",
    "Digest",
    "DiscoveryResult",
    "FetchResult",
    "Project",
    "SearchResponse",
    "Settings",
    "Sleuth",
    "SleuthError",
    "__version__",
    "load_settings",
    "tools",
]
__all__ += [
    # derived: names
    "aask",
    "adetect",
    "adiscover",
    "afetch",
    "afill",
    "aresearch",
    "asearch",
    "ask",
    "detect",
    "discover",
    "fetch",
    "fill",
    "research",
    "search",
    # end derived: names
]


def __getattr__(name: str) -> Any:
    if name == "tools":
        return importlib.import_module("sleuth.tools")
    if name not in _EXPORTS:
        raise AttributeError(f"module 'sleuth' has no attribute {name!r}")
    value = getattr(importlib.import_module(_EXPORTS[name]), name)
    globals()[name] = value
    return value
