"""A per-process LRU cache: the default when nothing is shared between runs."""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable

from sleuth.cache.base import Cache, CacheStats
from sleuth.cache.counter import decode_counter, encode_counter
from sleuth.errors import ConfigError

# value, and the clock reading at which it expires (None: never)
_Entry = tuple[bytes, float | None]


class MemoryCache(Cache):
    """Least recently used entries go first once ``max_entries`` is reached.

    No method awaits between reading and writing its entry, so concurrent
    coroutines never interleave inside one update and need no lock.
    """

    name = "memory"

    def __init__(
        self, max_entries: int = 1024, *, clock: Callable[[], float] = time.monotonic
    ) -> None:
        if max_entries < 1:
            raise ConfigError(
                f"the memory cache needs room for at least one entry, not {max_entries}",
                hint="set SLEUTH_MEMORY_CACHE_ENTRIES to 1 or more",
            )
        self._max_entries = max_entries
        self._clock = clock
        self._entries: OrderedDict[str, _Entry] = OrderedDict()
        self._hits = 0
        self._misses = 0

    def _expiry(self, ttl: float | None) -> float | None:
        return self._clock() + ttl if ttl and ttl > 0 else None

    def _live(self, key: str) -> _Entry | None:
        entry = self._entries.get(key)
        if entry is None:
            return None
        expires = entry[1]
        if expires is not None and expires <= self._clock():
            del self._entries[key]
            return None
        self._entries.move_to_end(key)
        return entry

    def _store(self, key: str, value: bytes, expires: float | None) -> None:
        self._entries[key] = (value, expires)
        self._entries.move_to_end(key)
        while len(self._entries) > self._max_entries:
            self._entries.popitem(last=False)

    def _purge_expired(self) -> None:
        now = self._clock()
        for key in [k for k, (_, exp) in self._entries.items() if exp is not None and exp <= now]:
            del self._entries[key]

    async def get(self, key: str) -> bytes | None:
        entry = self._live(key)
        if entry is None:
            self._misses += 1
            return None
        self._hits += 1
        return entry[0]

    async def set(self, key: str, value: bytes, ttl: float | None = None) -> None:
        self._store(key, bytes(value), self._expiry(ttl))

    async def delete(self, key: str) -> None:
        self._entries.pop(key, None)

    async def incr(self, key: str, ttl: float, amount: int = 1) -> int:
        entry = self._live(key)
        if entry is None:
            count, expires = amount, self._expiry(ttl)
        else:
            count = decode_counter(key, entry[0]) + amount
            expires = entry[1] if entry[1] is not None else self._expiry(ttl)
        self._store(key, encode_counter(count), expires)
        return count

    async def clear(self) -> int:
        self._purge_expired()
        removed = len(self._entries)
        self._entries.clear()
        return removed

    async def stats(self) -> CacheStats:
        self._purge_expired()
        return CacheStats(
            backend=self.name,
            entries=len(self._entries),
            size_bytes=sum(len(value) for value, _ in self._entries.values()),
            hits=self._hits,
            misses=self._misses,
            extra={"max_entries": self._max_entries},
        )
