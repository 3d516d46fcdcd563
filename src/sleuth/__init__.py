"""sleuth: safe, fast, cited access to the web for people and LLM agents.

``sleuth.fetch``, ``sleuth.search``, ``sleuth.research``, ``sleuth.ask``,
``sleuth.detect`` and ``sleuth.discover`` (and their async twins) are one-shot shortcuts;
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
        aask,
        adetect,
        adiscover,
        afetch,
        aresearch,
        asearch,
        ask,
        detect,
        discover,
        fetch,
        research,
        search,
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
    "aask": "sleuth.api",
    "adetect": "sleuth.api",
    "adiscover": "sleuth.api",
    "discover": "sleuth.api",
    "DiscoveryResult": "sleuth.discovery",
    "ask": "sleuth.api",
    "detect": "sleuth.api",
    "Project": "sleuth.stack",
    "Sleuth": "sleuth.api",
    "afetch": "sleuth.api",
    "aresearch": "sleuth.api",
    "asearch": "sleuth.api",
    "fetch": "sleuth.api",
    "research": "sleuth.api",
    "search": "sleuth.api",
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
    "aask",
    "adetect",
    "adiscover",
    "afetch",
    "aresearch",
    "asearch",
    "ask",
    "detect",
    "discover",
    "fetch",
    "load_settings",
    "research",
    "search",
    "tools",
]


def __getattr__(name: str) -> Any:
    if name == "tools":
        return importlib.import_module("sleuth.tools")
    if name not in _EXPORTS:
        raise AttributeError(f"module 'sleuth' has no attribute {name!r}")
    value = getattr(importlib.import_module(_EXPORTS[name]), name)
    globals()[name] = value
    return value
