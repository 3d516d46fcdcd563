"""What every route of the server shares: settings, the session, the cache, metrics, tokens
and the rate limit.

It sits in its own module so that the routes, the crawl jobs and the OpenAPI builder name
it without importing the application that mounts them (the app imports them, never the
other way round).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from starlette.requests import Request

from sleuth.api import AsyncSleuth
from sleuth.cache import Cache
from sleuth.config import Settings
from sleuth.errors import SleuthError, TooManyRequests
from sleuth.server.auth import Tokens
from sleuth.server.metrics import Metrics
from sleuth.server.ratelimit import RateLimiter
from sleuth.suggest import Suggester

if TYPE_CHECKING:
    from sleuth.jobs.crawljob import Pages


@dataclass
class ServerState:
    settings: Settings
    client: AsyncSleuth
    cache: Cache  # the configured backend (with its fallback), below the counting layer
    metrics: Metrics
    tokens: Tokens
    limiter: RateLimiter | None
    suggester: Suggester | None
    suggest_off_reason: str
    spec: dict[str, Any] = field(default_factory=dict)
    jobs: Pages | None = None  # the crawl jobs' engine and this instance's worker, once up
    # Why this instance runs no crawl jobs (None: it does): one of several processes with
    # no Redis to share them, whose jobs another process could neither read nor cancel.
    jobs_off: SleuthError | None = None

    async def admit(self, request: Request, *, limit: bool = True) -> str:
        """Who is asking (a token's hash, or the client address without auth); raises
        :class:`~sleuth.errors.Unauthorized` or :class:`~sleuth.errors.TooManyRequests`."""
        if self.tokens.enabled:
            who = "token:" + self.tokens.verify(request.headers.get("authorization"))[:16]
        else:
            who = "client:" + (request.client.host if request.client else "unknown")
        if limit and self.limiter is not None:
            try:
                await self.limiter.hit(who)
            except TooManyRequests:
                self.metrics.inc("sleuth_rate_limited_total")
                raise
        return who

    async def aclose(self) -> None:
        await self.client.aclose()
