"""``sleuth worker``: run crawl jobs' pages from the shared Redis, on any machine.

It takes no arguments: the settings are the rest of sleuth's (``SLEUTH_REDIS_URL``, the
guard, robots.txt, the limits), and without Redis there is nothing to share, so it stops
with a config error.
"""

from __future__ import annotations

import asyncio

from sleuth.commands.options import settings


def worker() -> None:
    """Read crawl jobs' pages from the servers' Redis.

    Takes the settings of the rest of sleuth; needs SLEUTH_CACHE=redis and sleuth[jobs].
    Stops on SIGTERM or Ctrl-C; the pages it was reading go to another worker after
    SLEUTH_WORKER_LEASE. See docs/server.md.
    """
    loaded = settings()
    from sleuth.jobs.engine import need_redis

    need_redis(loaded, "sleuth worker")  # exit 3 before anything starts
    # The engine is imported when it opens, where a missing jobs extra is a usage error.
    from sleuth.jobs.worker import run_worker

    asyncio.run(run_worker(loaded))
