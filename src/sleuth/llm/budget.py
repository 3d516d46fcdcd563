"""Spending limits: one per session, one per day shared through the cache backend.

The daily total is a counter of micro-dollars in the cache, so every process
on one Redis shares it. A limit is checked before each call: a call may end
over the limit (its cost is known only afterwards) but no call starts there,
and hitting a limit is always a :class:`~sleuth.errors.BudgetExceeded`.
"""

from __future__ import annotations

from datetime import UTC, datetime

from sleuth.cache import Cache
from sleuth.cache.counter import decode_counter
from sleuth.errors import BudgetExceeded, CacheError
from sleuth.log import warn

MICRO = 1_000_000
DAY_TTL = 2 * 24 * 3600  # outlives the UTC day it counts, whatever the clock skew


def _today() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%d")


class Budget:
    def __init__(self, cache: Cache, *, session_usd: float, daily_usd: float) -> None:
        self.cache = cache
        self.session_usd = session_usd
        self.daily_usd = daily_usd
        self.spent_usd = 0.0

    @property
    def _key(self) -> str:
        return f"llm:spend:{_today()}"

    async def spent_today(self) -> float:
        try:
            raw = await self.cache.get(self._key)
        except CacheError as error:
            warn("budget_unreadable", error=error.message)
            return 0.0
        return (decode_counter(self._key, raw) if raw else 0) / MICRO

    async def check(self) -> None:
        if self.session_usd and self.spent_usd >= self.session_usd:
            raise BudgetExceeded(
                f"the session budget of ${self.session_usd:.2f} is spent "
                f"(${self.spent_usd:.4f} so far)"
            )
        if self.daily_usd:
            today = await self.spent_today()
            if today >= self.daily_usd:
                raise BudgetExceeded(
                    f"the daily LLM budget of ${self.daily_usd:.2f} is spent (${today:.4f} today)"
                )

    async def charge(self, usd: float) -> None:
        if usd <= 0:
            return
        self.spent_usd += usd
        try:
            await self.cache.incr(self._key, DAY_TTL, round(usd * MICRO))
        except CacheError as error:
            warn("budget_unrecorded", error=error.message, usd=usd)
