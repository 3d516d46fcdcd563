"""What only the memory backend has to get right: its size bound."""

from __future__ import annotations

import pytest

from sleuth.cache import MemoryCache
from sleuth.errors import ConfigError


async def test_least_recently_used_entry_goes_first() -> None:
    cache = MemoryCache(3)
    for key in ("a", "b", "c"):
        await cache.set(key, key.encode())
    assert await cache.get("a") == b"a"  # now b is the oldest
    await cache.set("d", b"d")
    assert await cache.get("b") is None
    assert [await cache.get(k) for k in ("a", "c", "d")] == [b"a", b"c", b"d"]


async def test_counters_count_towards_the_bound() -> None:
    cache = MemoryCache(2)
    await cache.set("a", b"a")
    await cache.incr("n", 60)
    await cache.incr("m", 60)
    assert await cache.get("a") is None
    stats = await cache.stats()
    assert (stats.entries, stats.extra["max_entries"]) == (2, 2)


async def test_stored_value_is_a_copy() -> None:
    cache = MemoryCache()
    buffer = bytearray(b"original")
    await cache.set("k", buffer)  # type: ignore[arg-type]
    buffer[:] = b"changed!"
    assert await cache.get("k") == b"original"


def test_needs_room_for_one_entry() -> None:
    with pytest.raises(ConfigError, match="SLEUTH_MEMORY_CACHE_ENTRIES"):
        MemoryCache(0)
