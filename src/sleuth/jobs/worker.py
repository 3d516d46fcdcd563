"""Running the engine's tasks: inside ``sleuth serve``, and as ``sleuth worker`` on any
machine that reaches the shared Redis.

A worker takes up to ``CONCURRENCY`` pages at once (the crawl's politeness still limits
each host). It renews its hold on them while it runs; a worker that dies holds them no
more after ``SLEUTH_WORKER_LEASE`` seconds, and the engine hands them to another.
"""

from __future__ import annotations

import asyncio
import signal
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from sleuth.config import mask_url
from sleuth.errors import CacheError
from sleuth.jobs.crawljob import Pages, serve_pages
from sleuth.jobs.engine import engine_url, need_redis, open_engine
from sleuth.jobs.store import Jobs
from sleuth.log import event

if TYPE_CHECKING:
    from docket import Docket

    from sleuth.config import Settings
    from sleuth.session import AsyncSession

CONCURRENCY = 8  # pages one worker reads at once
READY = "sleuth: worker ready on "
NO_SECRET = (
    "sleuth: warning: SLEUTH_WEBHOOK_SECRET is not set: a job with a webhook that this "
    "worker ends is not posted (set the servers' secret here too)"
)


@asynccontextmanager
async def working(docket: Docket, pages: Pages, settings: Settings) -> AsyncIterator[None]:
    """A worker on the engine while the block runs. At its end the worker stops; pages
    still running after ``SLEUTH_SHUTDOWN_GRACE`` are dropped, for another worker."""
    from docket import Worker

    serve_pages(docket, pages)
    try:
        async with Worker(
            docket,
            concurrency=CONCURRENCY,
            redelivery_timeout=timedelta(seconds=settings.worker_lease),
            minimum_check_interval=timedelta(milliseconds=100),
            schedule_automatic_tasks=False,
        ) as worker:
            run = asyncio.create_task(worker.run_forever())
            try:
                yield
            finally:
                run.cancel()
                _, late = await asyncio.wait({run}, timeout=settings.shutdown_grace)
                if late:
                    pages.stop_pages()
                    await asyncio.wait({run})
    finally:
        serve_pages(docket, None)
        await pages.aclose()


@asynccontextmanager
async def running_jobs(session: AsyncSession, settings: Settings) -> AsyncIterator[Pages]:
    """The engine, and a worker in this process, while the block runs: what ``sleuth
    serve`` and ``sleuth mcp`` run crawl jobs on. Without Redis nobody else can read the
    pages; with it, ``SLEUTH_SERVE_WORKER=false`` leaves them to ``sleuth worker``s."""
    async with open_engine(settings) as docket:
        pages = Pages(session, Jobs(docket, settings))
        works = settings.serve_worker or engine_url(settings) is None
        async with working(docket, pages, settings) if works else _idle(pages):
            yield pages


@asynccontextmanager
async def _idle(pages: Pages) -> AsyncIterator[None]:
    try:
        yield
    finally:
        await pages.aclose()


async def reach(docket: Docket, url: str, what: str = "sleuth worker") -> None:
    """The shared Redis answers, or a cache error naming it: the engine itself would only
    retry, quietly, and a worker would say it is ready while it can take nothing."""
    try:
        async with docket.redis() as redis:
            client: Any = redis  # a redis-py client: the engine's protocol leaves ping out
            await client.ping()
    except Exception as exc:  # redis-py's errors, OSError, a refused connection
        raise CacheError(
            f"{what} cannot reach the Redis at {mask_url(url)}: {exc}",
            hint="check SLEUTH_REDIS_URL (the servers' own) and that this machine reaches it",
        ) from None


async def run_worker(settings: Settings) -> None:
    """``sleuth worker``: work the shared Redis's jobs until SIGTERM or SIGINT."""
    from sleuth.session import AsyncSession

    url = need_redis(settings, "sleuth worker")
    if not settings.secret("webhook_secret"):
        # A job with a webhook that this worker ends could not be signed, so not sent.
        sys.stderr.write(f"{NO_SECRET}\n")
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    async with AsyncSession(settings) as session, open_engine(settings) as docket:
        await reach(docket, url)  # "ready" means it can take pages
        pages = Pages(session, Jobs(docket, settings))
        async with working(docket, pages, settings):
            sys.stderr.write(f"{READY}{mask_url(url)}\n")
            sys.stderr.flush()
            event("worker_ready", lease=settings.worker_lease)
            await stop.wait()
            sys.stderr.write("sleuth: worker stopping\n")
    for sig in (signal.SIGTERM, signal.SIGINT):
        with suppress(Exception):
            loop.remove_signal_handler(sig)
