"""Fixtures for the search suite: a scripted loopback server, settings aimed at it, a clock."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from search.wire import Wire, start
from sleuth.cache import MemoryCache
from sleuth.config import Settings
from sleuth.websearch import ProviderHealth


@pytest.fixture
def wire() -> Iterator[Wire]:
    wire = Wire()
    server, thread = start(wire)
    try:
        yield wire
    finally:
        with wire.lock:
            stalls = [r.stall for replies in wire.routes.values() for r in replies if r.stall]
        for stall in stalls:
            stall.set()
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


@pytest.fixture
def make_settings(wire: Wire) -> Callable[..., Settings]:
    """Settings whose every provider endpoint is a path on the loopback server."""

    def build(**overrides: Any) -> Settings:
        values: dict[str, Any] = {
            "duckduckgo_url": wire.url("/html/"),
            "duckduckgo_lite_url": wire.url("/lite/"),
            "brave_url": wire.url("/brave"),
            "tavily_url": wire.url("/tavily"),
            "serpapi_url": wire.url("/serpapi"),
            "searches_per_hour": 0,
        }
        values.update(overrides)
        return Settings(**values)

    return build


class FakeClock:
    """A clock that moves only when a test says so."""

    def __init__(self, start: float = 1_000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def health(clock: FakeClock) -> ProviderHealth:
    return ProviderHealth(clock=clock)


@pytest.fixture
def cache() -> MemoryCache:
    return MemoryCache()


class RecordedSleep:
    """Stands in for asyncio.sleep: remembers each requested delay, waits for none."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)


@pytest.fixture
def sleep() -> RecordedSleep:
    return RecordedSleep()
