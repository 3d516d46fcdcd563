"""Politeness per host, for the host as a whole across every worker of a crawl.

Two rules, both kept in the crawl's shared state so that two processes on one Redis
obey them together:

* at most ``concurrency`` requests in flight: slot keys ``slot:<host>:<k>``, each held
  by whoever raised it to 1 and freed after the response (or by its TTL, or when its
  owner's heartbeat stops);
* requests start at least ``delay`` seconds apart: time from the host's first request
  (its ``epoch``, the same for every worker) is cut into ticks of ``delay`` and each
  request reserves a whole tick (first to raise ``tick:<host>:<n>`` to 1), then starts
  at the tick's beginning. The first request takes tick 0 and so never waits. A larger
  robots.txt ``Crawl-delay`` wins, and a 429/503 ``Retry-After`` pauses the host (the
  crawler caps the pause) and doubles its delay, for every worker. A new delay starts a
  new grid of ticks, and a worker's first tick on it comes a whole delay after its last.

Why ticks on the cache backend rather than a rate-limit library (``limits``): see
"Politeness" in docs/architecture.md; in short, the default delay is 0.25 s and the
library's Redis windows are whole seconds.

The clock and the sleep are attributes, so a test can run a day's pause in no time.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from email.utils import parsedate_to_datetime

from sleuth.crawl.state import CrawlState

_POLL = 0.02  # how often a waiting worker looks for a free slot
SLOWED_FOR = 600.0  # seconds a 429's doubled delay outlives the last 429


class Wakeup:
    """Wakes this process's waiters at once when something they wait for changes here;
    changes made by other workers are seen at the next poll."""

    def __init__(self) -> None:
        self._waiters: list[asyncio.Future[None]] = []

    async def nap(self, seconds: float) -> None:
        waiter = asyncio.get_running_loop().create_future()
        self._waiters.append(waiter)
        try:
            await asyncio.wait_for(waiter, seconds)
        except TimeoutError:
            pass
        finally:
            if waiter in self._waiters:
                self._waiters.remove(waiter)

    def wake(self) -> None:
        waiters, self._waiters = self._waiters, []
        for waiter in waiters:
            if not waiter.done():
                waiter.set_result(None)


def retry_after_seconds(value: str | None, now: float | None = None) -> float | None:
    """Seconds a ``Retry-After`` header asks for (delta or HTTP date), None if unreadable."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        moment = parsedate_to_datetime(value).timestamp()
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    return max(0.0, moment - (now if now is not None else time.time()))


class HostGate:
    """Admits one request at a time per free slot and per tick of one host."""

    def __init__(
        self,
        state: CrawlState,
        *,
        concurrency: int,
        delay: float,
        lease: float,
        ceiling: float = 30.0,
    ) -> None:
        self.state = state
        self.concurrency = concurrency
        self.base_delay = delay
        self.lease = lease
        self.ceiling = ceiling  # a 429 doubles the delay up to here (SLEUTH_MAX_CRAWL_DELAY)
        self._delays: dict[str, float] = {}
        self._freed = Wakeup()
        self._queues: dict[str, asyncio.Lock] = {}  # FIFO: pages get slots in frontier order
        self._next_tick: dict[str, int] = {}
        self._last_start: dict[str, float] = {}  # host -> the latest start granted here
        self._epochs: dict[str, float] = {}
        self.clock: Callable[[], float] = time.time  # shared by workers: wall time
        self.sleep: Callable[[float], Awaitable[None]] = asyncio.sleep

    def set_crawl_delay(self, host: str, seconds: float | None) -> None:
        if seconds and seconds > self.delay(host):
            self._delays[host] = float(seconds)

    def delay(self, host: str) -> float:
        return self._delays.get(host, self.base_delay)

    async def slow_down(self, host: str, seconds: float) -> None:
        """A 429/503 with Retry-After: pause the host and double its delay, for everyone."""
        await self.state.set_value(f"pause:{host}", self.clock() + seconds, max(seconds, 1.0) + 5)
        self._delays[host] = min(
            max(self.delay(host) * 2, 0.05), max(self.ceiling, self.delay(host))
        )
        # Shared while the host may still be busy; then the next crawl starts afresh.
        await self.state.set_value(f"slow:{host}", self._delays[host], SLOWED_FOR)

    @asynccontextmanager
    async def slot(self, host: str) -> AsyncIterator[None]:
        """Hold one of the host's slots: a page from its request until its record is out."""
        slot = await self._slot(host)
        try:
            yield
        finally:
            await self.state.cache.delete(self.state._key(f"slot:{host}:{slot}"))
            self._freed.wake()

    async def wait(self, host: str) -> float:
        """Before each request: sit out a pause, then take the next free tick. Returns the
        start it was given, on ``clock``: what the spacing between requests is made of."""
        await self._pause(host)
        slowed = await self.state.get_value(f"slow:{host}")  # by another worker's 429
        if isinstance(slowed, int | float):
            self.set_crawl_delay(host, slowed)
        return await self._tick(host)

    async def _slot(self, host: str) -> int:
        async with self._queues.setdefault(host, asyncio.Lock()):
            return await self._next_slot(host)

    async def _next_slot(self, host: str) -> int:
        while True:
            for k in range(self.concurrency):
                if await self.state.counter(f"slot:{host}:{k}", ttl=self.lease) == 1:
                    await self.state.set_value(f"slotowner:{host}:{k}", self.state.worker)
                    return k
            for k in range(self.concurrency):  # a slot whose holder died is freed
                owner = await self.state.get_value(f"slotowner:{host}:{k}")
                if owner and owner != self.state.worker and not await self.state.alive(owner):
                    await self.state.cache.delete(self.state._key(f"slot:{host}:{k}"))
            await self._freed.nap(_POLL)

    async def _pause(self, host: str) -> None:
        until = await self.state.get_value(f"pause:{host}")
        while isinstance(until, int | float) and until > self.clock():
            await self.sleep(until - self.clock())
            until = await self.state.get_value(f"pause:{host}")

    async def _epoch(self, host: str, delay: float) -> float:
        """When the host's ticks of ``delay`` began: the first asker's clock, for all."""
        name = f"{host}:{delay}"
        known = self._epochs.get(name)
        if known is not None:
            return known
        ttl = self.state.ttl
        if await self.state.counter(f"epochclaim:{name}", ttl=ttl) == 1:
            epoch = self.clock()
            await self.state.set_value(f"epoch:{name}", epoch)
        else:
            while not isinstance(found := await self.state.get_value(f"epoch:{name}"), int | float):
                await self._freed.nap(_POLL)  # written a moment after it was claimed
            epoch = float(found)
        self._epochs[name] = epoch
        return epoch

    async def _tick(self, host: str) -> float:
        delay = self.delay(host)
        if delay <= 0:
            self._last_start[host] = now = self.clock()
            return now
        epoch = await self._epoch(host, delay)
        grid = f"{host}:{delay}"
        # A new delay (a Crawl-delay read, a 429) starts a new grid, whose tick 0 may be
        # now: the first tick on it still comes a whole delay after our last request.
        earliest = max(self.clock(), self._last_start.get(host, -math.inf) + delay)
        # (less a hair of a tick: float error must not push a start to the tick after)
        first = math.ceil((earliest - epoch) / delay - 1e-9)
        tick = max(first, self._next_tick.get(grid, 0))
        while await self.state.counter(f"tick:{grid}:{tick}", ttl=60 + delay * 4) != 1:
            tick += 1
        self._next_tick[grid] = tick + 1
        start = epoch + tick * delay
        self._last_start[host] = max(start, self._last_start.get(host, start))
        while (wait := start - self.clock()) > 0:
            await self.sleep(wait)
        return start
