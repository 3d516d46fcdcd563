"""crawl: a site read breadth first, politely, within a scope; over HTTP, as a job."""

from __future__ import annotations

from sleuth.ops.base import Http, Op
from sleuth.session import AsyncSession
from sleuth.tools.builtin import CRAWL_SITE

CRAWL = Op(
    AsyncSession.crawl,
    http=Http(
        "/api/v1/crawl",
        "Start a crawl job",
        "Breadth first within scope, obeying robots.txt and at least the CLI's politeness. "
        "Answers 202 with the job's id and location; 429 when the caller already runs "
        "SLEUTH_CRAWL_JOBS_PER_TOKEN jobs.",
        uris=("url",),
        job=True,
    ),
    tool=CRAWL_SITE,
)
