"""The Python API: ``map`` and ``crawl`` on the async and the blocking client."""

from __future__ import annotations

import threading
from pathlib import Path

from sitegen import tree_site

from loopback import Site
from sleuth.api import AsyncSleuth, Sleuth
from sleuth.config import Settings


def settings(site: Site) -> Settings:
    return Settings(allow_hosts=[f"127.0.0.1:{site.port}"], cache="memory", render="never")


async def test_async_crawl_is_a_page_iterator(site: Site, tmp_path: Path) -> None:
    tree_site(site, 10, fanout=3)
    async with AsyncSleuth(settings(site)) as client:
        pages = [
            page
            async for page in client.crawl(
                site.origin, max_pages=4, delay=0, llms_txt=tmp_path / "llms.txt"
            )
        ]
        site_map = await client.map(site.origin)
    assert [page["depth"] for page in pages] == [0, 1, 1, 1]
    assert all(page["outcome"] == "ok" and page["links"] is not None for page in pages)
    assert (tmp_path / "llms.txt").read_text().startswith("# Page 0")
    assert [e.url for e in site_map.entries][:2] == [f"{site.origin}/", f"{site.origin}/p/1"]


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
