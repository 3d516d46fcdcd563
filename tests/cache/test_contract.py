"""The behaviour every backend promises, run against memory, file and a real Redis."""

from __future__ import annotations

import asyncio

import pytest

from sleuth.cache import CacheStats, get_json, set_json
from sleuth.errors import CacheError

from .conftest import Backend

NOT_UTF8 = b"\x00\xff\xfe\x80\xc3\x28 raw \r\n\x00"


async def test_get_set_delete(backend: Backend) -> None:
    cache = backend.cache
    assert await cache.get("page:a") is None
    await cache.set("page:a", b"alpha")
    assert await cache.get("page:a") == b"alpha"
    await cache.delete("page:a")
    assert await cache.get("page:a") is None
    await cache.delete("page:a")  # deleting what is gone is fine


async def test_keys_are_independent(backend: Backend) -> None:
    cache = backend.cache
    keys = ["k", "k ", "K", "kk", "ключ/🔑", "x" * 2000, ""]
    for index, key in enumerate(keys):
        await cache.set(key, str(index).encode())
    for index, key in enumerate(keys):
        assert await cache.get(key) == str(index).encode()


async def test_overwrite_replaces_value_and_ttl(backend: Backend) -> None:
    cache = backend.cache
    await cache.set("k", b"first", ttl=100)
    await cache.set("k", b"second")
    assert await cache.get("k") == b"second"
    await backend.advance(1000)
    assert await cache.get("k") == b"second"


@pytest.mark.parametrize(
    "value",
    [b"", NOT_UTF8, bytes(range(256)) * 4096],
    ids=["empty", "not-utf8", "one-mebibyte"],
)
async def test_bytes_round_trip(backend: Backend, value: bytes) -> None:
    await backend.cache.set("blob", value)
    got = await backend.cache.get("blob")
    assert got == value
    assert isinstance(got, bytes)


async def test_ttl_expiry(backend: Backend) -> None:
    cache = backend.cache
    await cache.set("short", b"v", ttl=100)
    await cache.set("long", b"v", ttl=1000)
    await backend.advance(90)
    assert await cache.get("short") == b"v"
    await backend.advance(20)
    assert await cache.get("short") is None
    assert await cache.get("long") == b"v"


@pytest.mark.parametrize("ttl", [None, 0])
async def test_no_ttl_never_expires(backend: Backend, ttl: float | None) -> None:
    await backend.cache.set("forever", b"v", ttl=ttl)
    await backend.advance(10 * 365 * 86400)
    assert await backend.cache.get("forever") == b"v"


async def test_clear_removes_everything_and_counts(backend: Backend) -> None:
    cache = backend.cache
    for name in ("a", "b", "c"):
        await cache.set(name, b"v")
    await cache.incr("budget", 60)
    assert await cache.clear() == 4
    for name in ("a", "b", "c", "budget"):
        assert await cache.get(name) is None
    assert await cache.clear() == 0
    await cache.set("a", b"again")
    assert await cache.get("a") == b"again"


async def test_stats_counts_live_entries_hits_and_misses(backend: Backend) -> None:
    cache = backend.cache
    await cache.set("a", b"12345")
    await cache.set("b", b"1234567890", ttl=100)
    assert await cache.get("a") == b"12345"
    assert await cache.get("nope") is None
    assert await cache.get("nope either") is None

    stats = await cache.stats()
    assert isinstance(stats, CacheStats)
    assert stats.backend == cache.name
    assert (stats.entries, stats.hits, stats.misses) == (2, 1, 2)
    assert stats.size_bytes is not None
    assert stats.size_bytes >= 15

    await backend.advance(200)
    assert (await cache.stats()).entries == 1


async def test_incr_counts_within_a_fixed_window(backend: Backend) -> None:
    cache = backend.cache
    assert [await cache.incr("searches", 60) for _ in range(3)] == [1, 2, 3]
    await backend.advance(30)
    assert await cache.incr("searches", 60) == 4  # later increments do not extend it
    await backend.advance(31)
    assert await cache.incr("searches", 60) == 1  # a new window
    await backend.advance(59)
    assert await cache.incr("searches", 60) == 2


async def test_incr_adds_an_amount_within_the_same_window(backend: Backend) -> None:
    cache = backend.cache
    assert await cache.incr("spend", 60, 250) == 250
    assert await cache.incr("spend", 60, 1_000_000) == 1_000_250
    await backend.advance(61)
    assert await cache.incr("spend", 60, 7) == 7


async def test_incr_counter_is_readable_and_separate_per_key(backend: Backend) -> None:
    cache = backend.cache
    await cache.incr("a", 60)
    await cache.incr("a", 60)
    await cache.incr("b", 60)
    assert await cache.get("a") == b"2"
    assert await cache.get("b") == b"1"


async def test_incr_starts_a_window_on_a_counter_without_one(backend: Backend) -> None:
    cache = backend.cache
    await cache.set("n", b"5")
    assert await cache.incr("n", 60) == 6
    await backend.advance(61)
    assert await cache.get("n") is None


async def test_incr_on_a_value_that_is_not_a_counter(backend: Backend) -> None:
    await backend.cache.set("page", b"<html>")
    with pytest.raises(CacheError) as info:
        await backend.cache.incr("page", 60)
    assert info.value.retryable is False
    assert await backend.cache.get("page") == b"<html>"


async def test_concurrent_incr_hands_out_each_count_once(backend: Backend) -> None:
    counts = await asyncio.gather(*(backend.cache.incr("n", 60) for _ in range(50)))
    assert sorted(counts) == list(range(1, 51))


async def test_json_helpers(backend: Backend) -> None:
    cache = backend.cache
    value = {"title": "Zürich — 東京", "n": [1, 2.5, None, True]}
    await set_json(cache, "doc", value, ttl=100)
    assert await get_json(cache, "doc") == value
    await cache.set("broken", b"{not json")
    assert await get_json(cache, "broken") is None
    assert await cache.get("broken") is None  # a bad entry is dropped, not served again
