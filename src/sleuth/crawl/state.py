"""A crawl's frontier, seen set and records, kept in the cache backend.

Everything is built on ``Cache.incr`` (atomic in memory, across processes in the
file backend under ``flock``, and in Redis by a Lua script), so several workers on
one Redis share a crawl without reading a page twice:

* the frontier is a numbered list: ``tail`` hands out slots, ``item:N`` holds them;
* the seen set is one counter per canonical URL: the first to raise it to 1 queues it;
* a worker owns slot N when it raises ``claim:N`` to 1 and names itself in ``owner:N``;
  a slot whose owner stopped sending heartbeats is taken over through
  ``claim:N:<dead owner>``, again first to 1;
* ``rec:N`` is the slot's record, written after its links are queued: a slot with a
  record is done, and a resumed crawl prints only records it writes itself;
* ``budget`` counts pages read across every run and worker (``--max-pages``).

A crawl is named by its start URL and scope; ``gen`` starts a fresh generation for
a run without ``--resume``, so old state is never read again (it expires by TTL).
"""

from __future__ import annotations

import hashlib
import json
import secrets
from typing import Any

from sleuth.cache.base import Cache, cache_key

HEARTBEAT_TTL = 5.0  # a worker silent this long is gone; its slots are taken over


def crawl_id(start: str, scope: dict[str, object]) -> str:
    """Stable name of a crawl: its start URL and the options that shape its boundary."""
    return cache_key("crawl", start, scope).split(":", 1)[1][:24]


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:32]


class CrawlState:
    """One generation of one crawl, as seen by one worker process."""

    def __init__(self, cache: Cache, crawl: str, *, ttl: float) -> None:
        self.cache = cache
        self.crawl = crawl
        self.ttl = ttl
        self.worker = secrets.token_hex(8)
        self._prefix = f"crawl:{crawl}:"

    async def open(self, *, resume: bool) -> int:
        """Pick the generation: the current one to resume, else a new one."""
        key = self._prefix + "gen"
        generation = await self.cache.incr(key, self.ttl, 0 if resume else 1)
        if generation == 0:
            generation = await self.cache.incr(key, self.ttl, 1)
        self._prefix = f"crawl:{self.crawl}:{generation}:"
        return generation

    def _key(self, name: str) -> str:
        return self._prefix + name

    async def counter(self, name: str, amount: int = 1, ttl: float | None = None) -> int:
        return await self.cache.incr(self._key(name), ttl or self.ttl, amount)

    async def first(self, kind: str, value: str) -> bool:
        """True for the first worker to see ``value`` (a URL, a content hash, a pattern)."""
        return await self.counter(f"{kind}:{_digest(value)}") == 1

    async def count(self, kind: str, value: str) -> int:
        return await self.counter(f"{kind}:{_digest(value)}")

    async def push(self, item: dict[str, Any]) -> int:
        index = await self.counter("tail")
        await self._put(f"item:{index}", item)
        return index

    async def tail(self) -> int:
        return await self.counter("tail", 0)

    async def item(self, index: int) -> dict[str, Any] | None:
        found = await self._get(f"item:{index}")
        return found if isinstance(found, dict) else None

    async def record(self, index: int) -> dict[str, Any] | None:
        found = await self._get(f"rec:{index}")
        return found if isinstance(found, dict) else None

    async def done(self, index: int, record: dict[str, Any]) -> None:
        await self._put(f"rec:{index}", record)

    async def claim(self, index: int) -> bool:
        if await self.counter(f"claim:{index}") != 1:
            return False
        await self._put(f"owner:{index}", self.worker)
        return True

    async def release(self, index: int) -> None:
        """Give a slot back unread (the page budget ran out before it)."""
        await self.cache.delete(self._key(f"owner:{index}"))
        await self.cache.delete(self._key(f"claim:{index}"))

    async def take_over(self, index: int) -> str | None:
        """Claim a slot whose owner is gone ("inherited": already counted against the page
        budget) or that was given back unread ("fresh"); None when it is not ours."""
        owner = await self._get(f"owner:{index}")
        if owner is None:
            return "fresh" if await self.claim(index) else None
        if owner == self.worker or await self.alive(str(owner)):
            return None
        if await self.counter(f"claim:{index}:{owner}") != 1:
            return None
        await self._put(f"owner:{index}", self.worker)
        return "inherited"

    async def heartbeat(self) -> None:
        await self.cache.set(self._key(f"alive:{self.worker}"), b"1", HEARTBEAT_TTL)

    async def alive(self, worker: str) -> bool:
        return await self.cache.get(self._key(f"alive:{worker}")) is not None

    async def get_value(self, name: str) -> Any:
        return await self._get(name)

    async def set_value(self, name: str, value: Any, ttl: float | None = None) -> None:
        await self._put(name, value, ttl)

    async def _get(self, name: str) -> Any:
        raw = await self.cache.get(self._key(name))
        return None if raw is None else json.loads(raw)

    async def _put(self, name: str, value: Any, ttl: float | None = None) -> None:
        data = json.dumps(value, ensure_ascii=False).encode()
        await self.cache.set(self._key(name), data, ttl or self.ttl)
