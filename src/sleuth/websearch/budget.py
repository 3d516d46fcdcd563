"""The hourly search budget, counted in the cache so processes sharing Redis share it."""

from __future__ import annotations

import math
import time
from collections.abc import Callable

from sleuth.cache.base import Cache
from sleuth.errors import CacheError, SearchBudgetExhausted
from sleuth.log import warn

HOUR = 3600


class SearchBudget:
    """At most ``per_hour`` provider searches per clock hour; 0 means unlimited."""

    def __init__(self, cache: Cache, per_hour: int, *, clock: Callable[[], float] = time.time):
        self._cache = cache
        self._per_hour = per_hour
        self._clock = clock

    async def spend(self) -> None:
        if self._per_hour <= 0:
            return
        hour = int(self._clock() // HOUR)
        try:
            used = await self._cache.incr(f"budget:search:{hour}", ttl=HOUR)
        except CacheError as exc:
            # A broken cache must not stop search; the operator sees why the limit lapsed.
            warn("search_budget_unchecked", error=str(exc))
            return
        if used > self._per_hour:
            minutes = math.ceil((HOUR - self._clock() % HOUR) / 60)
            raise SearchBudgetExhausted(
                f"the search budget ({self._per_hour} per hour) is spent; "
                f"it renews in about {minutes} min"
            )
