"""Fixtures for the cache suite: a real redis-server, and every backend with a clock to move."""

from __future__ import annotations

import logging
import socket
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from redis.asyncio import Redis

from redis_server import running_redis
from sleuth.cache import Cache, FileCache, MemoryCache, RedisCache
from sleuth.log import LOGGER


@pytest.fixture(scope="session")
def redis_url() -> Iterator[str]:
    with running_redis() as server:
        yield server.url


class FakeClock:
    """A clock that moves only when a test says so."""

    def __init__(self, start: float) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now


@dataclass
class Backend:
    """A cache under test, and how to let ``seconds`` pass for it."""

    cache: Cache
    advance: Callable[[float], Awaitable[None]]


def time_machine(client: Redis, prefix: str) -> Callable[[float], Awaitable[None]]:
    """Let time pass on the Redis server by shortening every TTL under ``prefix``.

    A key whose TTL was never set keeps none, so a backend that forgot to send
    one is caught just as a clock would catch it.
    """

    async def advance(seconds: float) -> None:
        async for key in client.scan_iter(match=prefix + "*"):
            left = await client.pttl(key)
            if left < 0:
                continue
            remaining = left - int(seconds * 1000)
            if remaining > 0:
                await client.pexpire(key, remaining)
            else:
                await client.delete(key)

    return advance


@pytest.fixture
def redis_prefix() -> str:
    """Keeps each test's keys apart on the shared session server."""
    return f"test-{uuid.uuid4().hex}:"


@pytest.fixture
async def redis_client(redis_url: str) -> AsyncIterator[Redis]:
    client = Redis.from_url(redis_url)
    yield client
    await client.aclose()


def _clock_advance(clock: FakeClock) -> Callable[[float], Awaitable[None]]:
    async def advance(seconds: float) -> None:
        clock.now += seconds

    return advance


@pytest.fixture(params=["memory", "file", pytest.param("redis", marks=pytest.mark.redis)])
async def backend(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Backend]:
    if request.param == "redis":
        url: str = request.getfixturevalue("redis_url")
        prefix: str = request.getfixturevalue("redis_prefix")
        client = Redis.from_url(url)
        cache: Cache = RedisCache(url, prefix=prefix)
        yield Backend(cache, time_machine(client, prefix))
        await client.aclose()
    else:
        clock = FakeClock(1_700_000_000.0)
        if request.param == "memory":
            cache = MemoryCache(64, clock=clock)
        else:
            cache = FileCache(tmp_path / "cache", clock=clock)
        yield Backend(cache, _clock_advance(clock))
    await cache.aclose()


@pytest.fixture
def sleuth_warnings() -> Iterator[list[logging.LogRecord]]:
    """Warnings sleuth logs during the test, whatever handlers the CLI installed."""
    records: list[logging.LogRecord] = []

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(record)

    handler = Collect(logging.WARNING)
    level = LOGGER.level
    LOGGER.addHandler(handler)
    LOGGER.setLevel(logging.WARNING)
    yield records
    LOGGER.removeHandler(handler)
    LOGGER.setLevel(level)


@pytest.fixture
def closed_port() -> Iterator[int]:
    """A loopback port that refuses connections: bound (nobody else takes it), never listening."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        yield sock.getsockname()[1]
