"""sleuth: safe, fast, cited access to the web for people and LLM agents.

``sleuth.fetch``, ``sleuth.search`` and ``sleuth.research`` (and their async
twins) are one-shot shortcuts; :class:`Sleuth` and :class:`AsyncSleuth` keep
connections and the cache across calls.
"""

from sleuth._version import __version__
from sleuth.api import AsyncSleuth, Sleuth, afetch, aresearch, asearch, fetch, research, search
from sleuth.config import Settings, load_settings
from sleuth.digest import Digest
from sleuth.errors import SleuthError
from sleuth.pages import FetchResult
from sleuth.websearch import SearchResponse

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
