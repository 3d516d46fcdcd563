"""The task engine, built from the settings.

With ``SLEUTH_CACHE=redis`` the engine lives on the same Redis (``SLEUTH_REDIS_URL``), so
every ``sleuth serve`` and ``sleuth worker`` that names it shares the jobs; otherwise it is
an in-process store (pydocket's ``memory://``) that only this process sees, run by the
same code. The job store (records, counters, the frontier's claims) lives beside the
engine's own keys, in the same Redis, so a task and the state it changes never disagree
about where they are.
"""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import timedelta
from typing import TYPE_CHECKING

from sleuth.errors import ConfigError, UsageError

if TYPE_CHECKING:
    from docket import Docket

    from sleuth.config import Settings

NAME = "sleuth-jobs"  # the engine's key prefix in Redis


def engine_url(settings: Settings) -> str | None:
    """The Redis every instance and worker shares, or None (jobs stay in this process)."""
    return str(settings.redis_url) if settings.cache == "redis" else None


def no_redis(settings: Settings, what: str) -> ConfigError:
    """The config error of ``what``, which needs the shared Redis, run without one."""
    return ConfigError(
        f"{what} needs the Redis the server uses: SLEUTH_CACHE is {settings.cache!r}",
        hint="set SLEUTH_CACHE=redis and SLEUTH_REDIS_URL=redis://HOST:6379/0, the same "
        "as the server's",
    )


def need_redis(settings: Settings, what: str) -> str:
    """The shared Redis URL, or a config error that says how to name one."""
    url = engine_url(settings)
    if url is None:
        raise no_redis(settings, what)
    return url


def _docket_class() -> type[Docket]:
    try:
        from docket import Docket
    except ImportError as exc:
        raise UsageError(
            f"crawl jobs need the jobs extra ({exc.name} is missing)",
            hint="pip install 'sleuth[jobs]'",
        ) from None
    return Docket


@asynccontextmanager
async def open_engine(settings: Settings, queue: str = NAME) -> AsyncIterator[Docket]:
    """The engine, its tasks registered; in-process (a fresh ``memory://``) without Redis.
    ``queue`` names the tasks' queue: the servers' and ``sleuth worker``'s by default, a
    ``sleuth crawl`` job's own for the processes running that crawl."""
    from sleuth.jobs.crawljob import TASK_TTL, TASKS

    url = engine_url(settings) or f"memory://sleuth-{secrets.token_hex(6)}"
    docket_class = _docket_class()
    async with docket_class(
        name=queue,
        url=url,
        heartbeat_interval=timedelta(seconds=max(0.5, min(2.0, settings.worker_lease / 4))),
        execution_ttl=timedelta(seconds=TASK_TTL),
    ) as docket:
        for task in TASKS:
            docket.register(task)
        yield docket
