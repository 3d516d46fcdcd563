"""open_cache: the configured backend, and Redis that degrades to memory with one warning."""

from __future__ import annotations

import asyncio
import logging
import sys
from pathlib import Path

import pytest
from redis.asyncio import Redis

from redis_server import running_redis
from sleuth.cache import FallbackCache, FileCache, MemoryCache, RedisCache, open_cache
from sleuth.config import Settings
from sleuth.errors import CacheError, ConfigError


def fallback_warnings(records: list[logging.LogRecord]) -> list[dict[str, object]]:
    return [r.fields for r in records if r.getMessage() == "cache_fallback"]  # type: ignore[attr-defined]


async def test_memory_backend_honours_its_size() -> None:
    cache = open_cache(Settings(cache="memory", memory_cache_entries=2).caching)
    assert isinstance(cache, MemoryCache)
    for key in ("a", "b", "c"):
        await cache.set(key, b"v")
    assert await cache.get("a") is None
    assert (await cache.stats()).entries == 2


async def test_file_backend_uses_the_cache_dir(tmp_path: Path) -> None:
    cache = open_cache(Settings(cache="file", cache_dir=tmp_path / "c").caching)
    assert isinstance(cache, FallbackCache)
    assert isinstance(cache.primary, FileCache)
    await cache.set("k", b"v")
    assert (await cache.stats()).location == str(tmp_path / "c")
    assert any(p.is_file() for p in (tmp_path / "c").rglob("*"))


async def test_unwritable_file_cache_degrades_to_memory_with_one_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a file where the cache directory should be")
    cache = open_cache(Settings(cache="file", cache_dir=blocker / "cache").caching)
    with caplog.at_level(logging.WARNING, logger="sleuth"):
        await cache.set("k", b"v")
        await cache.set("k2", b"v2")
    assert await cache.get("k") == b"v"
    assert [r.getMessage() for r in caplog.records] == ["cache_fallback"]


@pytest.mark.redis
async def test_redis_backend_writes_to_the_server(
    redis_url: str, redis_client: Redis, sleuth_warnings: list[logging.LogRecord]
) -> None:
    cache = open_cache(Settings(cache="redis", redis_url=redis_url).caching)
    assert isinstance(cache, FallbackCache)
    assert isinstance(cache.primary, RedisCache)
    assert cache.name == "redis"
    try:
        await cache.set("factory-probe", b"v")
        assert await redis_client.get("sleuth:factory-probe") == b"v"
        assert (await cache.stats()).backend == "redis"
    finally:
        await cache.delete("factory-probe")
        await cache.aclose()
    assert sleuth_warnings == []


@pytest.mark.redis
async def test_a_value_that_is_not_a_counter_does_not_switch_backends(
    redis_url: str, redis_prefix: str, sleuth_warnings: list[logging.LogRecord]
) -> None:
    cache = FallbackCache(RedisCache(redis_url, redis_prefix), MemoryCache())
    await cache.set("page", b"<html>")
    with pytest.raises(CacheError):
        await cache.incr("page", 60)
    assert cache.failure is None
    assert await cache.get("page") == b"<html>"
    assert sleuth_warnings == []
    await cache.aclose()


async def test_unreachable_redis_falls_back_to_memory_with_one_warning(
    closed_port: int, sleuth_warnings: list[logging.LogRecord]
) -> None:
    cache = open_cache(
        Settings(cache="redis", redis_url=f"redis://127.0.0.1:{closed_port}/0").caching
    )
    # Many callers meet the dead server at once; the operator still hears it once.
    assert await asyncio.gather(*(cache.get(f"k{i}") for i in range(20))) == [None] * 20
    await cache.set("k", b"v", ttl=60)
    assert await cache.get("k") == b"v"
    assert [await cache.incr("n", 60) for _ in range(3)] == [1, 2, 3]
    stats = await cache.stats()
    assert stats.backend == "memory"
    assert stats.extra["fallback_from"] == "redis"
    with pytest.raises(CacheError):  # clearing is about the shared store: say it is gone
        await cache.clear()
    await cache.aclose()

    warnings = fallback_warnings(sleuth_warnings)
    assert len(warnings) == 1
    assert warnings[0]["backend"] == "redis"
    assert warnings[0]["fallback"] == "memory"
    assert f"127.0.0.1:{closed_port}" in str(warnings[0]["error"])


@pytest.mark.redis
async def test_redis_dying_mid_run_falls_back_with_one_warning(
    sleuth_warnings: list[logging.LogRecord],
) -> None:
    with running_redis() as server:
        cache = open_cache(Settings(cache="redis", redis_url=server.url).caching)
        await cache.set("before", b"in redis")
        assert await cache.get("before") == b"in redis"
        assert sleuth_warnings == []

        server.stop()
        assert await cache.get("before") is None  # the memory cache starts empty
        await cache.set("after", b"in memory")
        assert await cache.get("after") == b"in memory"
        assert await cache.incr("n", 60) == 1
        assert (await cache.stats()).extra["fallback_from"] == "redis"
        await cache.aclose()

    assert len(fallback_warnings(sleuth_warnings)) == 1


def test_missing_redis_package_is_a_config_error_not_a_fallback(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in [m for m in sys.modules if m == "redis" or m.startswith("redis.")]:
        monkeypatch.setitem(sys.modules, name, None)
    with pytest.raises(ConfigError, match="sleuth"):
        open_cache(Settings(cache="redis").caching)
