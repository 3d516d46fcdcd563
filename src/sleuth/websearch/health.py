"""A per-process circuit breaker: a provider that just failed is left alone for a while.

Each failure in a row doubles the pause (30 s, 60 s, 120 s ... up to 10 min);
errors that will not fix themselves (a refused key, a misconfigured endpoint)
pause the provider for the full 10 min at once. A success closes the breaker.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from sleuth.errors import SleuthError

Clock = Callable[[], float]


@dataclass
class _Breaker:
    failures: int = 0
    until: float = 0.0
    code: str | None = None


class ProviderHealth:
    """Which providers are cooling down, and why; injectable clock for tests."""

    def __init__(self, *, clock: Clock = time.monotonic, base: float = 30.0, cap: float = 600.0):
        self._clock = clock
        self._base = base
        self._cap = cap
        self._breakers: dict[str, _Breaker] = {}

    def cooling(self, name: str) -> float:
        """Seconds until ``name`` may be tried again (0 when it may be tried now)."""
        breaker = self._breakers.get(name)
        return max(0.0, breaker.until - self._clock()) if breaker else 0.0

    def last_error(self, name: str) -> str | None:
        breaker = self._breakers.get(name)
        return breaker.code if breaker else None

    def failed(self, name: str, error: SleuthError) -> float:
        """Open the breaker for ``name``; return how long it stays open."""
        breaker = self._breakers.setdefault(name, _Breaker())
        breaker.failures += 1
        if error.retryable:
            pause = min(self._base * 2.0 ** (breaker.failures - 1), self._cap)
        else:
            pause = self._cap
        breaker.until = self._clock() + pause
        breaker.code = error.code
        return pause

    def succeeded(self, name: str) -> None:
        self._breakers.pop(name, None)


# Shared by every chain in this process, so a CLI session or server remembers failures.
PROCESS_HEALTH = ProviderHealth()
