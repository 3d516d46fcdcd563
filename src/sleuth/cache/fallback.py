"""Keep working when a shared cache goes away: switch to a local one, say so once.

A cache only makes sleuth faster, so losing Redis (at start or mid-run) must
not fail a fetch or a search; the one warning tells the operator why
results stopped being shared.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeVar

from sleuth.cache.base import Cache, CacheStats
from sleuth.errors import CacheError
from sleuth.log import warn

T = TypeVar("T")


class FallbackCache(Cache):
    """``primary`` until it raises a retryable :class:`CacheError`, then ``fallback`` for good.

    Non-retryable errors (a bad command, a counter holding text) are the
    caller's to see and do not switch backends.
    """

    def __init__(self, primary: Cache, fallback: Cache) -> None:
        self.primary = primary
        self.fallback = fallback
        self.name = primary.name
        self.failure: CacheError | None = None

    async def _call(self, operation: Callable[[Cache], Awaitable[T]]) -> T:
        if self.failure is None:
            try:
                return await operation(self.primary)
            except CacheError as exc:
                if not exc.retryable:
                    raise
                self._switch(exc)
        return await operation(self.fallback)

    def _switch(self, exc: CacheError) -> None:
        # Concurrent calls may all fail; only the first to get here warns.
        if self.failure is None:
            self.failure = exc
            warn(
                "cache_fallback",
                backend=self.primary.name,
                error=exc.message,
                fallback=self.fallback.name,
            )

    async def get(self, key: str) -> bytes | None:
        return await self._call(lambda cache: cache.get(key))

    async def set(self, key: str, value: bytes, ttl: float | None = None) -> None:
        await self._call(lambda cache: cache.set(key, value, ttl))

    async def delete(self, key: str) -> None:
        await self._call(lambda cache: cache.delete(key))

    async def incr(self, key: str, ttl: float, amount: int = 1) -> int:
        return await self._call(lambda cache: cache.incr(key, ttl, amount))

    async def clear(self) -> int:
        """Clear the shared store itself: "removed 0" from the fallback would be a lie."""
        removed = await self.primary.clear()
        return removed + await self.fallback.clear()

    async def stats(self) -> CacheStats:
        stats = await self._call(lambda cache: cache.stats())
        if self.failure is not None:
            stats.extra.update(fallback_from=self.primary.name, fallback_error=self.failure.message)
        return stats

    async def aclose(self) -> None:
        try:
            await self.primary.aclose()
        finally:
            await self.fallback.aclose()
