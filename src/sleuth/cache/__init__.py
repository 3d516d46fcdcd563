"""Caches for pages, search results, robots.txt and budgets, behind one interface.

Use :func:`open_cache` to get the backend the settings ask for.
"""

from sleuth.cache.base import Cache, CacheStats, cache_key, get_json, set_json
from sleuth.cache.factory import open_cache
from sleuth.cache.fallback import FallbackCache
from sleuth.cache.file import FileCache
from sleuth.cache.memory import MemoryCache
from sleuth.cache.redis import RedisCache

__all__ = [
    "Cache",
    "CacheStats",
    "FallbackCache",
    "FileCache",
    "MemoryCache",
    "RedisCache",
    "cache_key",
    "get_json",
    "open_cache",
    "set_json",
]
