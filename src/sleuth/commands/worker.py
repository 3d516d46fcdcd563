"""``sleuth worker``: run crawl jobs' pages from the shared Redis, on any machine.

It takes no arguments: the settings are the rest of sleuth's (``SLEUTH_REDIS_URL``, the
guard, robots.txt, the limits), and without Redis there is nothing to share, so it stops
with a config error.
"""

from __future__ import annotations

import asyncio

from sleuth.commands.options import settings
from sleuth.errors import UsageError


def worker() -> None:
    """Read crawl jobs' pages from the servers' Redis.

    Takes the settings of the rest of sleuth; needs SLEUTH_CACHE=redis and sleuth[jobs].
    Stops on SIGTERM or Ctrl-C; the pages it was reading go to another worker after
    SLEUTH_WORKER_LEASE. See docs/server.md.
    """
    loaded = settings()
    from sleuth.jobs.engine import need_redis

    need_redis(loaded, "sleuth worker")  # exit 3 before anything starts
    try:
        from sleuth.jobs.worker import run_worker
    except ImportError as exc:
        raise UsageError(
            f"sleuth worker needs the jobs extra ({exc.name} is missing)",
            hint="pip install 'sleuth[jobs]'",
        ) from None
    asyncio.run(run_worker(loaded))
