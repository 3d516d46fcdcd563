"""A cache in Redis, shared by every sleuth process and host that points at it.

``redis`` is the optional extra ``sleuth[redis]``, imported only when this
backend is built. Every key lives under ``prefix`` so ``clear`` and ``stats``
touch sleuth's keys and nothing else in the database.
"""

from __future__ import annotations

import math
import re
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from typing import Any, Protocol, cast
from urllib.parse import urlsplit

from sleuth.cache.base import Cache, CacheStats
from sleuth.errors import CacheError, ConfigError

# INCRBY, then start the window only if the key has none (it was just created):
# one atomic step, so concurrent processes can never leave a counter immortal.
_INCR = """
local count = redis.call('INCRBY', KEYS[1], ARGV[2])
if tonumber(ARGV[1]) > 0 and redis.call('PTTL', KEYS[1]) == -1 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
end
return count
"""
# Value bytes of a batch of keys, in one round trip.
_SIZE = """
local total = 0
for _, key in ipairs(KEYS) do total = total + redis.call('STRLEN', key) end
return total
"""
_BATCH = 500


class _Script(Protocol):
    async def __call__(self, keys: list[str | bytes], args: list[int] | None = None) -> int: ...


class _Client(Protocol):
    """The part of ``redis.asyncio.Redis`` used here (its stubs vary by version)."""

    async def get(self, name: str) -> bytes | None: ...
    async def set(self, name: str, value: bytes, px: int | None = None) -> object: ...
    async def unlink(self, *names: str | bytes) -> int: ...
    def scan_iter(self, match: str, count: int) -> AsyncIterator[bytes]: ...
    async def info(self) -> dict[str, Any]: ...
    async def aclose(self) -> None: ...
    def register_script(self, script: str) -> _Script: ...


def _where(url: str) -> str:
    """The server a URL names, without its credentials, for messages and stats."""
    parts = urlsplit(url)
    if parts.scheme == "unix":
        return parts.path
    return f"{parts.hostname}:{parts.port or 6379}{parts.path}"


def _milliseconds(ttl: float | None) -> int | None:
    """A TTL as Redis' PX wants it; never rounds a short TTL down to "no expiry"."""
    return math.ceil(ttl * 1000) if ttl and ttl > 0 else None


def _glob_escape(text: str) -> str:
    return re.sub(r"([*?\[\]\\])", r"\\\1", text)


class RedisCache(Cache):
    """Values under ``prefix`` with Redis' own expiry; counters via one Lua script."""

    name = "redis"

    def __init__(
        self,
        url: str,
        prefix: str = "sleuth:",
        *,
        connect_timeout: float = 1.0,
        socket_timeout: float = 2.0,
    ) -> None:
        try:
            from redis import exceptions
            from redis.asyncio import Redis
            from redis.asyncio.retry import Retry
            from redis.backoff import NoBackoff
        except ImportError:
            raise ConfigError(
                "the redis cache needs the redis package, which is not installed",
                hint="install it with `pip install 'sleuth[redis]'` or set SLEUTH_CACHE=file",
            ) from None
        self.prefix = prefix
        try:
            self.location = _where(url)
            client = Redis.from_url(
                url,
                socket_connect_timeout=connect_timeout,
                socket_timeout=socket_timeout,
                # One immediate retry reconnects after a server restart; more would
                # only delay the fallback when the server is gone.
                retry=Retry(NoBackoff(), 1),
            )
        except ValueError as exc:
            raise ConfigError(
                f"SLEUTH_REDIS_URL is not a usable Redis URL: {exc}",
                hint="use redis://[:password@]host:port/db, rediss://... or unix:///path",
            ) from None
        self._client = cast(_Client, client)
        self._incr = self._client.register_script(_INCR)
        self._size = self._client.register_script(_SIZE)
        # Errors that mean "this server cannot serve us now", as opposed to a bad command.
        self._unusable: tuple[type[Exception], ...] = (
            exceptions.ConnectionError,
            exceptions.TimeoutError,
            exceptions.NoPermissionError,
            exceptions.ReadOnlyError,
            OSError,
        )
        self._redis_error: type[Exception] = exceptions.RedisError
        self._hits = 0
        self._misses = 0

    @contextmanager
    def _errors(self) -> Iterator[None]:
        try:
            yield
        except self._unusable as exc:
            raise CacheError(
                f"redis at {self.location} is unusable: {exc}",
                hint="check SLEUTH_REDIS_URL and that the server is running and accepts us",
            ) from exc
        except self._redis_error as exc:
            raise CacheError(
                f"redis at {self.location} refused a command: {exc}", retryable=False
            ) from exc

    async def _keys(self) -> AsyncIterator[list[bytes]]:
        """Every key under the prefix, in batches; SCAN never blocks the server."""
        batch: list[bytes] = []
        async for key in self._client.scan_iter(
            match=_glob_escape(self.prefix) + "*", count=_BATCH
        ):
            batch.append(key)
            if len(batch) >= _BATCH:
                yield batch
                batch = []
        if batch:
            yield batch

    async def get(self, key: str) -> bytes | None:
        with self._errors():
            value = await self._client.get(self.prefix + key)
        if value is None:
            self._misses += 1
        else:
            self._hits += 1
        return value

    async def set(self, key: str, value: bytes, ttl: float | None = None) -> None:
        with self._errors():
            await self._client.set(self.prefix + key, bytes(value), px=_milliseconds(ttl))

    async def delete(self, key: str) -> None:
        with self._errors():
            await self._client.unlink(self.prefix + key)

    async def incr(self, key: str, ttl: float, amount: int = 1) -> int:
        with self._errors():
            args = [_milliseconds(ttl) or 0, amount]
            return int(await self._incr(keys=[self.prefix + key], args=args))

    async def clear(self) -> int:
        removed = 0
        with self._errors():
            async for batch in self._keys():
                removed += await self._client.unlink(*batch)
        return removed

    async def stats(self) -> CacheStats:
        entries = size = 0
        with self._errors():
            async for batch in self._keys():
                entries += len(batch)
                size += int(await self._size(keys=list(batch)))
            info = await self._client.info()
        return CacheStats(
            backend=self.name,
            entries=entries,
            size_bytes=size,
            hits=self._hits,
            misses=self._misses,
            location=self.location,
            extra={
                "prefix": self.prefix,
                "redis_version": info.get("redis_version"),
                "used_memory": info.get("used_memory"),
            },
        )

    async def aclose(self) -> None:
        await self._client.aclose()
