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


async def test_a_start_url_the_limits_refuse_ends_the_job_at_once_and_frees_the_slot(
    site: Site, pages: Pages
) -> None:
    deep = site.origin + "/" + "/".join(f"s{n}" for n in range(17)) + "/"  # 17 segments
    record = await pages.start("client:me", deep, {"max_pages": 5})
    assert (record["status"], record["pages"], record["pending"]) == ("done", 0, 0)
    assert any("start URL" in note for note in record["notes"])
    assert site.paths() == []
    # Its slot is back: the caller's one job at a time may start now.
    tree_site(site, 1)
    assert (await pages.start("client:me", site.origin + "/", {"max_pages": 1}))["status"]


async def test_a_store_error_outside_the_page_fails_the_job_instead_of_the_task(
    site: Site, pages: Pages, monkeypatch: pytest.MonkeyPatch
) -> None:
    tree_site(site, 1)
    job = (await pages.start("client:me", site.origin + "/", {"max_pages": 1}))["id"]

    async def unreachable(job: str, lines: list[str]) -> None:
        raise ConnectionError("the store went away for a moment")

    monkeypatch.setattr(pages.jobs, "note", unreachable)
    await pages.run(job, site.origin + "/", 0, None)  # the task itself ends cleanly
    found = await pages.jobs.read(job)
    assert found is not None
    assert found["status"] == "failed"
    assert found["error"]["code"] == "internal_error"
    assert "went away" not in found["error"]["message"]


async def test_a_cancelled_job_whose_canceller_died_ends_with_its_last_page(
    site: Site, pages: Pages, monkeypatch: pytest.MonkeyPatch
) -> None:
    tree_site(site, 1)
    job = (await pages.start("client:me", site.origin + "/", {"max_pages": 1}))["id"]
    finish = pages.jobs.finish

    async def lost(job: str, status: str, error: dict[str, Any] | None = None) -> bool:
        return False  # the process that set the cancel flag died before it ended the job

    monkeypatch.setattr(pages.jobs, "finish", lost)
    await pages.jobs.cancel(job)
    monkeypatch.setattr(pages.jobs, "finish", finish)
    await pages.run(job, site.origin + "/", 0, None)
    found = await pages.jobs.read(job)
    assert found is not None
    assert (found["status"], found["pages"], found["pending"]) == ("cancelled", 0, 0)
    assert site.paths() == []


async def test_a_slot_a_lost_job_never_gave_back_lapses_after_its_deadline(
    site: Site, pages: Pages, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A job nobody will finish (every worker that held it gone) frees its caller's slot
    once its deadline is past, even while that caller keeps starting jobs; another
    caller's jobs never kept it alive nor take it."""
    tree_site(site, 1)
    start = site.origin + "/"
    await pages.start("client:me", start, {"max_pages": 1})  # never run: its slot leaks
    await pages.start("client:other", start, {"max_pages": 1})
    with pytest.raises(Exception, match="already running"):
        await pages.start("client:me", start, {"max_pages": 1})
    jobs = pages.jobs
    later = jobs.clock() + jobs.settings.crawl_job_deadline + jobs.request_lease + 1
    monkeypatch.setattr(jobs, "clock", lambda: later)
    assert (await pages.start("client:me", start, {"max_pages": 1}))["status"] == "running"
    with pytest.raises(Exception, match="already running"):
        await pages.start("client:me", start, {"max_pages": 1})


async def test_the_deadline_passing_during_the_politeness_wait_sends_no_request(
    site: Site, pages: Pages
) -> None:
    tree_site(site, 1)
    record = await pages.start("client:me", site.origin + "/", {"max_pages": 1})
    job = record["id"]
    crawler = pages.crawler(job, record)
    wait = crawler.gate.wait

    async def slow_wait(host: str) -> float:
        waited = await wait(host)
        crawler.until(0.0)  # the job's deadline passes while the page waits its turn
        return waited

    crawler.gate.wait = slow_wait  # type: ignore[method-assign]
    await pages.run(job, site.origin + "/", 0, None)
    found = await pages.jobs.read(job)
    assert found is not None
    assert (found["status"], found["pages"], found["pending"]) == ("done", 0, 0)
    assert any("deadline" in note for note in found["notes"])
    assert requested(site) == []


async def test_joining_a_job_whose_maker_died_before_queuing_its_start_queues_it(
    site: Site, pages: Pages
) -> None:
    tree_site(site, 1)
    start, job = site.origin + "/", "cli-joined-1"
    options = {"max_pages": 5, "delay": 0.25}
    # The maker created the job, then died before queuing its start page.
    made = await pages.jobs.create("sleuth crawl", start, options, job=job, quota=False)
    assert made is not None
    assert await pages.jobs.admitted(job) == 0
    joined = await pages.start("sleuth crawl", start, options, job=job, quota=False)
    assert joined["status"] == "running"
    assert await pages.jobs.admitted(job) == 1
    await pages.start("sleuth crawl", start, options, job=job, quota=False)  # another joiner
    assert await pages.jobs.admitted(job) == 1  # the start page is one page, queued once
    await pages.run(job, start, 0, None)
    found = await pages.jobs.read(job)
    assert found is not None
    assert (found["status"], found["pages"], found["pending"]) == ("done", 1, 0)
    assert requested(site) == ["/"]


async def test_a_crawl_generation_is_a_new_name_each_fresh_run_and_never_an_old_one(
    pages: Pages,
) -> None:
    jobs = pages.jobs
    first = await jobs.generation("crawl-a", resume=False)
    assert await jobs.generation("crawl-a", resume=True) == first  # resume joins it
    second = await jobs.generation("crawl-a", resume=False)
    assert second != first
    assert await jobs.generation("crawl-a", resume=True) == second
    async with jobs.docket.redis() as redis:
        await redis.delete("sleuth:crawljobs:generation:crawl-a")  # as when the key lapses
    lapsed = await jobs.generation("crawl-a", resume=True)
    assert lapsed not in (first, second)  # a count would have named the first job again
