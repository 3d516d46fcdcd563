"""The crawl deadlines as each surface meets them: ``map_site`` and ``crawl_site`` end at
``SLEUTH_CRAWL_TOOL_DEADLINE``, an HTTP job at ``SLEUTH_CRAWL_JOB_DEADLINE``, each with what
it has and a note; a run's notes reach every caller; the CLI words its notes in flags.
Every deadline runs on an injected clock that the site moves as it serves, never on real
time."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler
from typing import Any

import pytest
from sitegen import page, tree_site
from test_http_jobs import make_client, wait_for  # noqa: F401  (a fixture and its helper)
from test_tools import acall

from loopback import Site
from sleuth.api import AsyncSleuth
from sleuth.cache import MemoryCache
from sleuth.config import Settings
from sleuth.crawl.crawler import Crawler, CrawlOptions
from sleuth.crawl.mapper import SiteMapper
from sleuth.errors import ERRORS
from sleuth.session import AsyncSession
from webs import crawl_run

TEXT = {"Content-Type": "text/plain"}


def settings(site: Site, **extra: Any) -> Settings:
    return Settings(allow_hosts=[f"127.0.0.1:{site.port}"], cache="memory", render="never", **extra)


def costly(now: list[float], body: bytes, kind: str = "text/html") -> Callable[[Any], None]:
    """A route whose every response costs ten seconds of the injected clock."""

    def handle(request: BaseHTTPRequestHandler) -> None:
        now[0] += 10.0
        request.send_response(200)
        request.send_header("Content-Type", kind)
        request.send_header("Content-Length", str(len(body)))
        request.end_headers()
        request.wfile.write(body)

    return handle


def slow_tree(site: Site, now: list[float]) -> None:
    tree_site(site, 20, fanout=3)
    for path, route in list(site.routes.items()):
        if path != "/robots.txt":
            site.add(path, handler=costly(now, route.body))


def pages_read(site: Site) -> int:
    return len([path for path in site.paths() if path != "/robots.txt"])


async def test_crawl_site_ends_at_the_tool_deadline_with_a_note(
    site: Site, monkeypatch: pytest.MonkeyPatch
) -> None:
    now = [0.0]
    slow_tree(site, now)
    monkeypatch.setattr(Crawler, "clock", staticmethod(lambda: now[0]))
    async with AsyncSession(settings(site, crawl_tool_deadline=25.0)) as session:
        output = await acall("crawl_site", {"url": site.origin, "max_pages": 20}, client=session)
    data = output.data.model_dump()
    # Two pages in flight per host: each starts before 25 s (at 0, 10, 10 or 20 s); none
    # after. Every page requested comes back.
    assert len(data["pages"]) in (3, 4)
    assert pages_read(site) == len(data["pages"])
    assert any("25s deadline" in note for note in data["notes"])
    assert "Note: stopped at the 25s deadline" in output.text


async def test_map_site_ends_at_the_tool_deadline_with_a_note(
    site: Site, monkeypatch: pytest.MonkeyPatch
) -> None:
    now = [0.0]
    rows = "".join(f"<sitemap><loc>{site.origin}/m/{n}.xml</loc></sitemap>" for n in range(3))
    index = f"<sitemapindex>{rows}</sitemapindex>".encode()
    site.add("/sitemap.xml", handler=costly(now, index, "application/xml"))
    for n in range(3):
        urlset = f"<urlset><url><loc>{site.origin}/from/{n}</loc></url></urlset>".encode()
        site.add(f"/m/{n}.xml", handler=costly(now, urlset, "application/xml"))
    site.add("/", page("Home", 0, ["/link"]))
    monkeypatch.setattr(SiteMapper, "clock", staticmethod(lambda: now[0]))
    async with AsyncSession(settings(site, crawl_tool_deadline=25.0)) as session:
        output = await acall("map_site", {"url": site.origin}, client=session)
    data = output.data.model_dump()
    assert [entry["url"] for entry in data["entries"]] == [f"{site.origin}/from/0"]
    assert "/m/2.xml" not in site.paths()
    assert any("25s deadline" in note for note in data["notes"])
    assert "Note: stopped at the 25s deadline" in output.text


async def test_without_a_deadline_the_same_crawl_runs_to_the_end(
    site: Site, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The CLI's and the Python API's crawl: no deadline unless one is asked for."""
    now = [0.0]
    slow_tree(site, now)
    monkeypatch.setattr(Crawler, "clock", staticmethod(lambda: now[0]))
    async with AsyncSleuth(settings(site, crawl_tool_deadline=25.0)) as session:
        records = [r async for r in session.crawl(site.origin, max_pages=20, delay=0.0)]
    assert len(records) == 20
    assert now[0] >= 200.0  # far past any deadline of the settings


def test_an_http_job_is_done_at_its_deadline_with_what_it_has(
    site: Site,
    make_client: Any,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    now = [0.0]
    slow_tree(site, now)
    monkeypatch.setattr(Crawler, "clock", staticmethod(lambda: now[0]))
    client = make_client(crawl_job_deadline=25.0)
    job = client.post("/api/v1/crawl", json={"url": site.origin, "max_pages": 20}).json()["id"]
    done = wait_for(client, job, "done")
    assert done["pages"] in (3, 4)  # as crawl_site's: two in flight, none started after 25 s
    assert pages_read(site) == done["pages"]
    assert any("25s deadline" in note for note in done["notes"])


async def test_a_runs_notes_carry_the_crawlers_and_summaries_come_first(site: Site) -> None:
    """A skipped host, a URL the client cannot parse: in the run's notes for every caller,
    the summary (the host) ahead of the details."""
    site.add("/robots.txt", "User-agent: *\nCrawl-delay: 86400\n", headers=TEXT)
    site.add("/", page("Home", 0, ["/a"]))
    async with crawl_run(
        settings(site), MemoryCache(100), site.origin, CrawlOptions(delay=0.0)
    ) as run:
        [record async for record in run]
        notes = run.notes
    assert any("Crawl-delay of 86400s" in note and "host skipped" in note for note in notes)

    bad = "http://1.2.3.256/x"
    site.add("/robots.txt", "User-agent: *\nAllow: /\n", headers=TEXT)
    site.add("/", page("Home", 0, [bad, "/a"]))
    site.add("/a", page("A", 1, []))
    options = CrawlOptions(delay=0.0, deadline=1e9)
    async with crawl_run(settings(site), MemoryCache(100), site.origin, options) as run:
        [record async for record in run]
        notes = run.notes
    assert any("1.2.3.256" in note for note in notes)


def test_the_cli_words_crawl_notes_and_research_errors_as_flags() -> None:
    from sleuth.commands import output
    from sleuth.commands.research import _in_cli_words
    from sleuth.digest import Digest, DigestError

    expected = {
        "js_required": "try --render always",
        "empty_extraction": "try --render always",
        "out_of_scope": "inside its --scope;",
        "robots_disallowed": "; a person may pass --ignore-robots",
    }
    for code, words in expected.items():
        library = f"http://a.test/: {code}: no ({ERRORS[code].hint_for()})"
        assert "--" not in library
        assert words in output.reworded_note(library)
        assert output.reworded_note(library).count(words) == 1
        digest = Digest(
            query="q",
            errors=[DigestError(code=code, message=f"no ({ERRORS[code].hint_for()})", url="u")],
        )
        assert words in _in_cli_words(digest).errors[0].message
        assert digest.errors[0].message == f"no ({ERRORS[code].hint_for()})"  # left as it was


def test_sleuth_map_notes_name_the_flag(site: Site) -> None:
    site.add("/robots.txt", "User-agent: *\nDisallow: /\n", headers=TEXT)
    site.add("/", page("Home", 0, []))
    env = {
        **os.environ,
        "SLEUTH_ALLOW_HOSTS": f"127.0.0.1:{site.port}",
        "SLEUTH_CACHE": "memory",
        "SLEUTH_RENDER": "never",
    }
    done = subprocess.run(
        [sys.executable, "-m", "sleuth", "map", site.origin, "--json"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert [json.loads(line) for line in done.stdout.splitlines()] == []
    assert "robots_disallowed" in done.stderr
    assert "a person may pass --ignore-robots" in done.stderr
