"""Per-token request limits kept in the cache backend, so every instance on one Redis shares them.

A fixed window per token: one counter per window, created with the window's
length as its expiry, so no process ever has to clean up. With Redis gone the
cache falls back to memory and the limit holds per instance instead.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass

from sleuth.cache import Cache
from sleuth.errors import ConfigError, TooManyRequests

_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
_RATE = re.compile(r"\s*([1-9][0-9]*)\s*/\s*([0-9]*)\s*([a-z]+)\s*")
_NAMES = {
    "s": "s", "sec": "s", "second": "s", "seconds": "s", "secs": "s",
    "m": "m", "min": "m", "minute": "m", "minutes": "m", "mins": "m",
    "h": "h", "hour": "h", "hours": "h",
    "d": "d", "day": "d", "days": "d",
}  # fmt: skip


@dataclass(frozen=True)
class Rate:
    requests: int
    window: int  # seconds

    def __str__(self) -> str:
        return f"{self.requests}/{self.window}s"


def parse_rate(text: str) -> Rate:
    """``60/minute``, ``10/s``, ``1000/hour``, ``500/30m``."""
    match = _RATE.fullmatch(text.lower())
    unit = _NAMES.get(match.group(3)) if match else None
    if match is None or unit is None:
        raise ConfigError(
            f"SLEUTH_RATE_LIMIT {text!r} is not a rate",
            hint="write requests/period, like 60/minute, 10/second or 1000/hour",
        )
    count = int(match.group(2) or 1)
    if count < 1:
        raise ConfigError(f"SLEUTH_RATE_LIMIT {text!r} has a zero-length period")
    return Rate(int(match.group(1)), count * _UNITS[unit])


class RateLimiter:
    def __init__(self, cache: Cache, rate: Rate, *, clock: Callable[[], float] = time.time) -> None:
        self.cache = cache
        self.rate = rate
        self.clock = clock

    async def hit(self, who: str) -> int:
        """Count one request for ``who``; the requests left, or :class:`TooManyRequests`."""
        now = self.clock()
        window = int(now // self.rate.window)
        key = f"ratelimit:{who}:{self.rate.window}:{window}"
        count = await self.cache.incr(key, self.rate.window)
        if count > self.rate.requests:
            retry = (window + 1) * self.rate.window - now
            raise TooManyRequests(
                f"the rate limit of {self.rate.requests} requests per {self.rate.window} s "
                "is spent",
                retry_after=max(retry, 1.0),
            )
        return self.rate.requests - count
