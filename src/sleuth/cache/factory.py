"""The one place that turns the ``caching`` section (``settings.cache`` ...) into a backend."""

from __future__ import annotations

from sleuth.cache.base import Cache
from sleuth.cache.fallback import FallbackCache
from sleuth.cache.file import FileCache
from sleuth.cache.memory import MemoryCache
from sleuth.cache.redis import RedisCache
from sleuth.config import CacheSettings


def open_cache(caching: CacheSettings) -> Cache:
    """The configured backend; file and Redis come wrapped so a failure degrades to memory.

    Nothing connects here: Redis is first reached on first use, where the
    fallback covers an unreachable server as well as one that dies later.
    A missing ``redis`` package or a malformed URL is a ``ConfigError`` now.
    """
    section = caching
    if section.cache == "memory":
        return MemoryCache(section.memory_cache_entries)
    primary = (
        FileCache(section.cache_dir) if section.cache == "file" else RedisCache(section.redis_url)
    )
    return FallbackCache(primary, MemoryCache(section.memory_cache_entries))
