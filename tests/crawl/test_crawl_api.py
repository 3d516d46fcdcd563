"""The Python API: ``map`` and ``crawl`` on the async and the blocking client."""

from __future__ import annotations

import threading

import pytest
from sitegen import tree_site

from loopback import Site
from sleuth.api import AsyncSleuth, Sleuth
from sleuth.config import Settings
from sleuth.crawl.output import llms_txt
from sleuth.errors import UsageError


def settings(site: Site) -> Settings:
    return Settings(allow_hosts=[f"127.0.0.1:{site.port}"], cache="memory", render="never")


async def test_async_crawl_returns_the_run(site: Site) -> None:
    tree_site(site, 10, fanout=3)
    async with AsyncSleuth(settings(site)) as client:
        async with client.crawl(site.origin, max_pages=4, delay=0) as run:
            pages = [page async for page in run]
            summaries = await run.summaries()
        site_map = await client.map(site.origin)
    assert [page["depth"] for page in pages] == [0, 1, 1, 1]
    assert all(page["outcome"] == "ok" and page["links"] is not None for page in pages)
    assert run.progress.pages == 4
    assert run.notes == []
    assert llms_txt(summaries, start=run.start).startswith("# Page 0")
    assert [e.url for e in site_map.entries][:2] == [f"{site.origin}/", f"{site.origin}/p/1"]


async def test_a_crawl_is_checked_when_it_is_made_and_reads_when_iterated(site: Site) -> None:
    tree_site(site, 10, fanout=3)
    async with AsyncSleuth(settings(site)) as client:
        with pytest.raises(UsageError, match="max_pages must be at least 1"):
            client.crawl(site.origin, max_pages=0)
        run = client.crawl(site.origin, max_pages=2, delay=0)
        assert site.paths() == []  # made, not started
        pages = [page["url"] async for page in run]  # a run is iterable without ``with`` too
    assert pages == [f"{site.origin}/", f"{site.origin}/p/1"]


def test_blocking_crawl_stops_early_without_reading_more(site: Site) -> None:
    tree_site(site, 30, fanout=5)
    done = threading.Event()
    with Sleuth(settings(site)) as client:
        for page in client.crawl(site.origin, max_pages=30, delay=0, concurrency=1):
            assert page["outcome"] == "ok"
            done.set()
            break
        read = len([p for p in site.paths() if p != "/robots.txt"])
        entries = client.map(site.origin, limit=3).entries
    assert done.is_set()
    assert read <= 3  # one page out, at most the next being read when the caller left
    assert len(entries) == 3


def test_blocking_crawl_is_a_run_too(site: Site) -> None:
    tree_site(site, 10, fanout=3)
    with Sleuth(settings(site)) as client, client.crawl(site.origin, max_pages=3, delay=0) as run:
        pages = list(run)
        summaries = run.summaries()
    assert [page["depth"] for page in pages] == [0, 1, 1]
    assert run.progress.pages == 3
    assert run.notes == []
    assert {summary["url"] for summary in summaries} == {page["url"] for page in pages}
