"""The one cache interface every backend implements, and how keys are made.

Values are bytes; callers that store results use :func:`get_json` and
:func:`set_json`, which never let a cache failure sink the work it would have
sped up. Keys carry sleuth's version so an upgrade never reads results
written by older extraction code.
"""

from __future__ import annotations

import hashlib
import json
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any

from sleuth._version import __version__
from sleuth.errors import CacheError
from sleuth.log import warn


def cache_key(kind: str, *parts: object) -> str:
    """``kind:<sha256>`` over the version and every part that changes the result."""
    material = json.dumps([__version__, kind, *parts], sort_keys=True, default=str)
    return f"{kind}:{hashlib.sha256(material.encode()).hexdigest()}"


@dataclass
class CacheStats:
    backend: str
    entries: int
    size_bytes: int | None = None
    hits: int = 0
    misses: int = 0
    location: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


class Cache(ABC):
    """Async key/value store with per-entry TTL (seconds; None or 0 means no expiry)."""

    name: str = "cache"

    @abstractmethod
    async def get(self, key: str) -> bytes | None: ...

    @abstractmethod
    async def set(self, key: str, value: bytes, ttl: float | None = None) -> None: ...

    @abstractmethod
    async def delete(self, key: str) -> None: ...

    @abstractmethod
    async def incr(self, key: str, ttl: float, amount: int = 1) -> int:
        """Add ``amount`` to a counter that expires ``ttl`` seconds after it was created.

        Budgets (searches per hour, LLM spend per day) live here so processes
        sharing a Redis share them.
        """

    @abstractmethod
    async def clear(self) -> int:
        """Remove every entry; return how many were removed."""

    @abstractmethod
    async def stats(self) -> CacheStats: ...

    async def aclose(self) -> None:  # noqa: B027 - optional hook
        """Release connections; the default backend holds none."""


async def get_json(cache: Cache, key: str) -> Any | None:
    """The stored value, or None for a miss, a corrupt entry or a failing backend."""
    try:
        raw = await cache.get(key)
        if raw is None:
            return None
        try:
            return json.loads(raw)
        except ValueError:
            await cache.delete(key)
            return None
    except CacheError as exc:
        warn("cache_error", operation="get", backend=cache.name, error=exc.message)
        return None


async def set_json(cache: Cache, key: str, value: Any, ttl: float | None) -> None:
    """Store ``value`` for ``ttl`` seconds (None: no expiry; 0: do not store at all).

    A failing backend is logged, not raised: the result is still good.
    """
    if ttl is not None and ttl <= 0:
        return
    try:
        await cache.set(key, json.dumps(value, ensure_ascii=False, default=str).encode(), ttl)
    except CacheError as exc:
        warn("cache_error", operation="set", backend=cache.name, error=exc.message)
