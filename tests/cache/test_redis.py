"""What only the Redis backend has to get right, against a real redis-server."""

from __future__ import annotations

import asyncio
import sys

import pytest
from redis.asyncio import Redis

from sleuth.cache import RedisCache
from sleuth.errors import CacheError, ConfigError

pytestmark = pytest.mark.redis


async def test_two_clients_share_values_and_counters(redis_url: str, redis_prefix: str) -> None:
    first, second = RedisCache(redis_url, redis_prefix), RedisCache(redis_url, redis_prefix)
    await first.set("page", b"shared")
    assert await second.get("page") == b"shared"
    assert await first.incr("budget", 3600) == 1
    assert await second.incr("budget", 3600) == 2
    counts = await asyncio.gather(
        *(cache.incr("budget", 3600) for cache in (first, second) for _ in range(25))
    )
    assert sorted(counts) == list(range(3, 53))
    await first.aclose()
    await second.aclose()


async def test_ttl_reaches_the_server_in_milliseconds(
    redis_url: str, redis_prefix: str, redis_client: Redis
) -> None:
    cache = RedisCache(redis_url, redis_prefix)
    await cache.set("page", b"v", ttl=30)
    await cache.set("short", b"v", ttl=0.0004)  # not rounded down to "never expires"
    await cache.set("forever", b"v")
    assert 29_000 < await redis_client.pttl(redis_prefix + "page") <= 30_000
    assert await redis_client.pttl(redis_prefix + "short") in (-2, 0, 1)
    assert await redis_client.pttl(redis_prefix + "forever") == -1
    await cache.aclose()


async def test_incr_sets_the_window_once(
    redis_url: str, redis_prefix: str, redis_client: Redis
) -> None:
    cache = RedisCache(redis_url, redis_prefix)
    await cache.incr("n", 60)
    assert 59_000 < await redis_client.pttl(redis_prefix + "n") <= 60_000
    await redis_client.pexpire(redis_prefix + "n", 5_000)
    await cache.incr("n", 60)
    assert await redis_client.pttl(redis_prefix + "n") <= 5_000
    await cache.incr("forever", 0)
    assert await redis_client.pttl(redis_prefix + "forever") == -1
    await cache.aclose()


async def test_clear_and_stats_stay_inside_the_prefix(
    redis_url: str, redis_prefix: str, redis_client: Redis
) -> None:
    globby = redis_prefix + "a*b?["
    cache = RedisCache(redis_url, globby)
    neighbour = RedisCache(redis_url, redis_prefix + "aXbY[")  # matches the prefix as a glob
    await redis_client.set(redis_prefix + "unrelated", b"keep")
    for index in range(1203):  # more than one SCAN batch
        await cache.set(f"k{index}", b"12345")
    await neighbour.set("k0", b"other")

    stats = await cache.stats()
    assert (stats.entries, stats.size_bytes) == (1203, 1203 * 5)
    assert stats.extra["redis_version"]
    assert stats.location is not None
    assert stats.location.startswith("127.0.0.1:")

    assert await cache.clear() == 1203
    assert await cache.get("k0") is None
    assert await neighbour.get("k0") == b"other"
    assert await redis_client.get(redis_prefix + "unrelated") == b"keep"
    await cache.aclose()
    await neighbour.aclose()


async def test_unreachable_server_is_a_retryable_cache_error_without_secrets(
    closed_port: int,
) -> None:
    cache = RedisCache(f"redis://:hunter2secret@127.0.0.1:{closed_port}/0")
    with pytest.raises(CacheError) as info:
        await cache.get("k")
    assert info.value.retryable is True
    assert f"127.0.0.1:{closed_port}" in str(info.value)
    assert "hunter2secret" not in str(info.value)
    await cache.aclose()


@pytest.mark.parametrize(
    ("password", "rules"),
    [("wrong", ["+@all"]), ("right", ["-@all"])],
    ids=["wrong-password", "no-permission"],
)
async def test_refused_credentials_are_a_retryable_cache_error(
    redis_url: str, redis_client: Redis, password: str, rules: list[str]
) -> None:
    user = f"sleuth-{password}"
    await redis_client.execute_command("ACL", "SETUSER", user, "on", ">right", "~*", *rules)
    try:
        cache = RedisCache(redis_url.replace("redis://", f"redis://{user}:{password}@"))
        with pytest.raises(CacheError) as info:
            await cache.set("k", b"v")
        assert info.value.retryable is True
        await cache.aclose()
    finally:
        await redis_client.execute_command("ACL", "DELUSER", user)


def test_missing_package_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in [m for m in sys.modules if m == "redis" or m.startswith("redis.")]:
        monkeypatch.setitem(sys.modules, name, None)
    with pytest.raises(ConfigError, match=r"pip install 'sleuth\[redis\]'"):
        RedisCache("redis://127.0.0.1:6379/0")


@pytest.mark.parametrize("url", ["http://127.0.0.1:6379", "127.0.0.1:6379", "redis://h:port/0"])
def test_malformed_url_is_a_config_error(url: str) -> None:
    with pytest.raises(ConfigError, match="SLEUTH_REDIS_URL"):
        RedisCache(url)
