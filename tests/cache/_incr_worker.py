"""Child-process side of the cross-process ``incr`` test, kept apart so spawning stays cheap."""

from __future__ import annotations

import asyncio
from multiprocessing.queues import Queue
from multiprocessing.synchronize import Barrier

from sleuth.cache import FileCache


def bump(directory: str, times: int, start: Barrier, results: Queue[list[int]]) -> None:
    """Wait for the other processes, then increment the shared counter as fast as possible."""

    async def run() -> list[int]:
        cache = FileCache(directory)
        return [await cache.incr("budget", 3600) for _ in range(times)]

    start.wait()
    results.put(asyncio.run(run()))
