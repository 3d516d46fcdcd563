"""The per-host gate as two workers of one crawl meet it: two gates over one real
``redis-server`` keep one delay (fractional, as the default is), one Crawl-delay, one
Retry-After pause and one bound on requests in flight. Every wait runs on one injected
clock that both workers read, never on real time."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager

import pytest
import redis.asyncio as aioredis

from redis_server import RedisServer, running_redis
from sleuth.cache import MemoryCache, RedisCache
from sleuth.crawl.polite import HostGate
from sleuth.crawl.state import CrawlState

pytestmark = pytest.mark.redis

HOST = "docs.example:80"
START = 1000.7  # not a multiple of any delay: the first request must not wait for one


class SharedTime:
    """One clock for both workers (machines whose clocks agree); a sleep moves it."""

    def __init__(self) -> None:
        self.now = START

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def redis() -> Iterator[RedisServer]:
    with running_redis() as server:
        yield server


@asynccontextmanager
async def two_workers(
    redis: RedisServer, *, concurrency: int = 4, delay: float = 0.25
) -> AsyncIterator[tuple[HostGate, HostGate, SharedTime]]:
    """Two gates of one crawl, each on a Redis connection of its own, as two processes."""
    caches = [RedisCache(redis.url), RedisCache(redis.url)]
    try:
        states = [CrawlState(cache, "shared-crawl", ttl=600) for cache in caches]
        await states[0].open(resume=False)
        await states[1].open(resume=True)  # joins the first one's crawl
        time = SharedTime()
        gates = [
            HostGate(state, concurrency=concurrency, delay=delay, lease=30) for state in states
        ]
        for gate in gates:
            gate.clock, gate.sleep = time.clock, time.sleep
        yield gates[0], gates[1], time
    finally:
        for cache in caches:
            await cache.aclose()


def gaps(starts: list[float]) -> list[float]:
    return [b - a for a, b in itertools.pairwise(sorted(starts))]


async def test_two_workers_keep_one_fractional_delay(redis: RedisServer) -> None:
    async with two_workers(redis, delay=0.25) as (one, two, _):
        starts = await asyncio.gather(*(gate.wait(HOST) for gate in [one, two] * 4))
    assert min(starts) == START  # the first request waits for nothing
    assert len(set(starts)) == 8
    assert min(gaps(starts)) >= 0.25 - 1e-9, gaps(starts)


async def test_two_workers_keep_one_crawl_delay(redis: RedisServer) -> None:
    async with two_workers(redis, delay=0.05) as (one, two, _):
        for gate in (one, two):  # each worker reads the host's robots.txt itself
            gate.set_crawl_delay(HOST, 0.3)
        starts = await asyncio.gather(*(gate.wait(HOST) for gate in [one, two] * 3))
    assert min(gaps(starts)) >= 0.3 - 1e-9, gaps(starts)


async def test_a_retry_after_heard_by_one_worker_pauses_the_other(redis: RedisServer) -> None:
    async with two_workers(redis, delay=0.25) as (one, two, time):
        await one.wait(HOST)
        await one.slow_down(HOST, 7.5)  # a 429 with Retry-After: 7.5 (already capped)
        paused_at = time.now
        start = await two.wait(HOST)
        after = await asyncio.gather(two.wait(HOST), one.wait(HOST), two.wait(HOST))
    assert start >= paused_at + 7.5 - 1e-9
    assert min(gaps([start, *after])) >= 0.5 - 1e-9  # both now keep the doubled delay


async def test_a_worker_waits_for_a_slot_the_other_holds(redis: RedisServer) -> None:
    async with two_workers(redis, concurrency=1) as (one, two, _):
        await one.state.heartbeat()  # alive: its slot is not taken over
        refused = asyncio.Event()
        nap = two._freed.nap

        async def noted(seconds: float) -> None:
            refused.set()  # every slot was looked at and none was free
            await nap(seconds)

        two._freed.nap = noted  # type: ignore[method-assign]
        async with one.slot(HOST):
            waiting = asyncio.create_task(_enter(two))
            await refused.wait()
            assert not waiting.done()
        await asyncio.wait_for(waiting, 30)  # a guard against a hang, not a measurement


async def test_the_slot_of_a_dead_worker_is_taken_over(redis: RedisServer) -> None:
    # ``one`` never sends a heartbeat: to ``two`` it is a worker that died holding a slot
    async with two_workers(redis, concurrency=1) as (one, two, _), one.slot(HOST):
        await asyncio.wait_for(_enter(two), 30)


async def _enter(gate: HostGate) -> None:
    async with gate.slot(HOST):
        pass


async def test_a_new_delay_still_counts_from_the_last_request() -> None:
    """A Crawl-delay read (or a 429) while a request is out starts a new grid of ticks;
    the next request still comes a whole new delay after the last one."""
    state = CrawlState(MemoryCache(100), "one", ttl=600)
    await state.open(resume=False)
    gate = HostGate(state, concurrency=2, delay=0.25, lease=30)
    time = SharedTime()
    gate.clock, gate.sleep = time.clock, time.sleep
    first = await gate.wait(HOST)
    gate.set_crawl_delay(HOST, 1.5)
    second = await gate.wait(HOST)
    assert first == START
    assert second - first >= 1.5 - 1e-9


async def test_repeated_429s_double_the_delay_only_up_to_the_ceiling_and_not_for_good(
    redis: RedisServer,
) -> None:
    async with two_workers(redis, delay=1.0) as (one, two, _):
        one.ceiling = two.ceiling = 5.0
        for _ in range(10):  # 1 s doubled ten times would be over 17 minutes
            await one.slow_down(HOST, 0.0)
        assert one.delay(HOST) == 5.0
        await two.wait(HOST)
        assert two.delay(HOST) == 5.0  # shared with the other worker, at the ceiling
    raw = aioredis.from_url(redis.url)
    try:
        keys = [key async for key in raw.scan_iter(match=f"*slow:{HOST}*")]
        ttls = [await raw.ttl(key) for key in keys]
    finally:
        await raw.aclose()
    assert len(ttls) == 1
    assert 0 < ttls[0] <= 600  # the next crawl of the host starts afresh
