"""A crawl job's store on the in-process engine: what must happen once happens once, however
often the engine delivers a page (it delivers at least once)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest
from sitegen import tree_site

from loopback import Site
from sleuth.config import Settings
from sleuth.jobs.crawljob import Pages
from sleuth.jobs.engine import open_engine
from sleuth.jobs.store import Jobs, digest
from sleuth.session import AsyncSession


@pytest.fixture
async def pages(site: Site) -> AsyncIterator[Pages]:
    settings = Settings(  # type: ignore[call-arg]
        allow_hosts=[f"127.0.0.1:{site.port}"],
        cache="memory",
        render="never",
        crawl_jobs_per_token=1,
        _env_file=None,
    )
    async with AsyncSession(settings) as session, open_engine(settings) as docket:
        runner = Pages(session, Jobs(docket, settings))
        yield runner  # no worker: the test delivers the pages itself
        await runner.aclose()


def requested(site: Site) -> list[str]:
    return [path for path in site.paths() if path != "/robots.txt"]


async def test_a_page_delivered_twice_is_stored_and_counted_once(site: Site, pages: Pages) -> None:
    tree_site(site, 1)
    record = await pages.start("client:me", site.origin + "/", {"max_pages": 5, "delay": 0.25})
    job, start = record["id"], site.origin + "/"
    await pages.run(job, start, 0, None)
    await pages.run(job, start, 0, None)  # again, as after a lost acknowledgement
    found = await pages.jobs.read(job)
    assert found is not None
    assert (found["status"], found["pages"], found["pending"], found["rereads"]) == (
        "done",
        1,
        0,
        0,
    )
    assert requested(site) == ["/"]
    # The caller's slot came back once: one new job fits, a second does not.
    await pages.start("client:me", start, {"max_pages": 1, "delay": 0.25})
    with pytest.raises(Exception, match="already running"):
        await pages.start("client:me", start, {"max_pages": 1, "delay": 0.25})


async def test_a_page_read_again_after_its_worker_died_is_a_reread_and_claims_its_links(
    site: Site, pages: Pages
) -> None:
    tree_site(site, 4, fanout=3)
    start = site.origin + "/"
    job = (await pages.start("client:me", start, {"max_pages": 4, "delay": 0.25}))["id"]
    # A first worker marks its request for / and dies before the page is done.
    async with pages.jobs.request(job, start):
        pass
    await pages.run(job, start, 0, None)
    found: dict[str, Any] | None = await pages.jobs.read(job)
    assert found is not None
    assert (found["pages"], found["rereads"], found["pending"]) == (1, 1, 3)
    # Delivered once more after it was done: nothing is read, stored or queued again.
    await pages.run(job, start, 0, None)
    again = await pages.jobs.read(job)
    assert again is not None
    assert (again["pages"], again["rereads"], again["pending"]) == (1, 1, 3)
    assert requested(site) == ["/"]
    assert not await pages.jobs.is_done(job, digest(site.origin + "/p/1"))


async def test_finish_ends_a_job_once(site: Site, pages: Pages) -> None:
    tree_site(site, 2)
    job = (await pages.start("client:me", site.origin + "/", {"max_pages": 2}))["id"]
    ended = await asyncio.gather(
        pages.jobs.finish(job, "cancelled"),
        pages.jobs.finish(job, "failed", {"code": "x", "message": "y", "retryable": False}),
        pages.jobs.finish(job, "done"),
    )
    assert sorted(ended) == [False, False, True]
    found = await pages.jobs.read(job)
    assert found is not None
    assert found["status"] == ["cancelled", "failed", "done"][ended.index(True)]
