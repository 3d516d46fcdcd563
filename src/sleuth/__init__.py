"""sleuth: safe, fast, cited access to the web for people and LLM agents.

``sleuth.fetch``, ``sleuth.search`` and ``sleuth.research`` (and their async
twins) are one-shot shortcuts; :class:`Sleuth` and :class:`AsyncSleuth` keep
connections and the cache across calls. Names load on first use, so
``sleuth --version`` and light imports do not pay for the extractor.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from sleuth._version import __version__

if TYPE_CHECKING:
    from sleuth.api import (
        AsyncSleuth,
        Sleuth,
        afetch,
        aresearch,
        asearch,
        fetch,
        research,
        search,
    )
    from sleuth.config import Settings, load_settings
    from sleuth.digest import Digest
    from sleuth.errors import SleuthError
    from sleuth.pages import FetchResult
    from sleuth.websearch import SearchResponse

_EXPORTS = {
    "AsyncSleuth": "sleuth.api",
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
    "AsyncSleuth",
    "Digest",
    "FetchResult",
    "SearchResponse",
    "Settings",
    "Sleuth",
    "SleuthError",
    "__version__",
    "afetch",
    "aresearch",
    "asearch",
    "fetch",
    "load_settings",
    "research",
    "search",
]


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'sleuth' has no attribute {name!r}")
    value = getattr(importlib.import_module(_EXPORTS[name]), name)
    globals()[name] = value
    return value
