"""``crawl`` on loopback sites: scope, politeness, traps, duplicates and failures."""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

from sitegen import page, tree_site

from loopback import Site
from sleuth.cache import MemoryCache
from sleuth.commands.crawl import CrawlFiles
from sleuth.config import Settings
from sleuth.crawl.crawler import CrawlOptions
from sleuth.crawl.run import CrawlRun
from webs import crawl_run


def settings(site: Site, **extra: Any) -> Settings:
    return Settings(allow_hosts=[f"127.0.0.1:{site.port}"], cache="memory", render="never", **extra)


async def crawl(
    site: Site, start: str = "/", cache: MemoryCache | None = None, **options: Any
) -> list[dict[str, Any]]:
    extra = options.pop("settings", {})
    run_options = CrawlOptions(**{"delay": 0.0, **options})
    async with crawl_run(
        settings(site, **extra), cache or MemoryCache(1000), site.origin + start, run_options
    ) as run:
        return [record async for record in run]


def by_path(site: Site, records: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {r["url"].removeprefix(site.origin): r for r in records}


def page_paths(site: Site) -> list[str]:
    return [p for p in site.paths() if p != "/robots.txt"]


class GateTime:
    """The gate's clock and sleep, faked: a sleep moves the clock at once, so a crawl's
    waits cost no real time, and each request's start (what ``gate.wait`` granted) is
    written down. Spacing is then asserted on this clock, never on the machine's."""

    def __init__(self, now: float = 1000.7) -> None:
        self.now = now
        self.starts: list[float] = []

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.now += seconds

    def install(self, run: CrawlRun) -> None:
        gate = run.crawler.gate
        gate.clock, gate.sleep = self.clock, self.sleep
        granted = gate.wait

        async def wait(host: str) -> float:
            start = await granted(host)
            self.starts.append(start)
            return start

        gate.wait = wait  # type: ignore[method-assign]

    def gaps(self) -> list[float]:
        return [b - a for a, b in itertools.pairwise(sorted(self.starts))]


async def paced_crawl(
    site: Site, paced: GateTime, start: str = "/", **options: Any
) -> list[dict[str, Any]]:
    """``crawl`` with the gate on ``paced``."""
    extra = options.pop("settings", {})
    run_options = CrawlOptions(**{"delay": 0.0, **options})
    async with crawl_run(
        settings(site, **extra), MemoryCache(1000), site.origin + start, run_options
    ) as run:
        paced.install(run)
        return [record async for record in run]


class Arrivals:
    """Routes that note, on the gate's clock, when each request reached the server."""

    def __init__(self, paced: GateTime) -> None:
        self.paced = paced
        self.times: list[float] = []
        self._lock = threading.Lock()

    def route(self, site: Site, path: str, body: str) -> None:
        data = body.encode()

        def handler(request: BaseHTTPRequestHandler) -> None:
            with self._lock:
                self.times.append(self.paced.now)
            request.send_response(200)
            request.send_header("Content-Type", "text/html")
            request.send_header("Content-Length", str(len(data)))
            request.end_headers()
            request.wfile.write(data)

        site.add(path, handler=handler)

    def none_early(self) -> bool:
        """No request reached the server before the gate let one go: the k-th arrival
        comes no sooner than the k-th start granted (the clock only moves forward)."""
        starts = sorted(self.paced.starts)
        return len(self.times) == len(starts) and all(
            arrived >= start for arrived, start in zip(sorted(self.times), starts, strict=True)
        )


async def test_breadth_first_within_limits(site: Site) -> None:
    tree_site(site, 40, fanout=3)  # depth 0: /, 1: p1-3, 2: p4-12, 3: p13-39
    records = await crawl(site, max_pages=100, max_depth=2)
    assert sorted(r["depth"] for r in records) == [0] + [1] * 3 + [2] * 9
    assert all(r["outcome"] == "ok" for r in records)
    assert by_path(site, records)["/p/4"]["parent"] == f"{site.origin}/p/1"
    limited = await crawl(site, max_pages=5)
    assert len(limited) == 5


async def test_hidden_and_out_of_scope_links_are_not_followed(site: Site) -> None:
    extra = (
        '<div style="display:none"><a href="/hidden">secret</a></div>'
        '<a href="http://127.0.0.2:9/elsewhere">away</a> <a href="/docs/x">docs</a>'
        '<a href="/nofollow" rel="nofollow">nf</a>'
    )
    site.add("/docs/", page("Docs", 1, ["/docs/a", "/other"], extra=extra))
    site.add("/docs/a", page("A", 2, []))
    site.add("/docs/x", page("X", 3, []))
    site.add("/other", page("Other", 4, []))
    records = await crawl(site, "/docs/", scope="prefix")
    assert set(by_path(site, records)) == {"/docs/", "/docs/a", "/docs/x"}
    assert "/hidden" not in site.paths()
    assert "/nofollow" not in site.paths()


async def test_robots_disallow_and_crawl_delay_measured_at_the_server(site: Site) -> None:
    site.add("/robots.txt", "User-agent: *\nCrawl-delay: 0.3\nDisallow: /private\n")
    paced = GateTime()
    arrivals = Arrivals(paced)
    arrivals.route(site, "/", page("Home", 0, ["/a", "/b", "/c", "/private/x"]))
    for n, path in enumerate(["/a", "/b", "/c"], 1):
        arrivals.route(site, path, page(path, n, []))
    records = await paced_crawl(site, paced, concurrency=4, delay=0.05)
    assert len(records) == 4
    assert "/private/x" not in site.paths()
    assert len(arrivals.times) == 4
    # Crawl-delay (0.3 s) beats --delay (0.05 s) even with 4 requests allowed in flight
    assert len(paced.starts) == 4
    assert min(paced.gaps()) >= 0.3 - 1e-9, paced.gaps()
    assert arrivals.none_early(), (arrivals.times, paced.starts)


async def test_min_delay_holds_across_concurrency(site: Site) -> None:
    paced = GateTime()
    arrivals = Arrivals(paced)
    children = [f"/n/{k}" for k in range(5)]
    arrivals.route(site, "/", page("Home", 0, children))
    for k, path in enumerate(children, 1):
        arrivals.route(site, path, page(path, k, []))
    await paced_crawl(site, paced, concurrency=3, delay=0.2)
    assert len(arrivals.times) == 6
    assert len(paced.starts) == 6
    assert paced.starts[0] == 1000.7  # the first request waits for nothing
    assert min(paced.gaps()) >= 0.2 - 1e-9, paced.gaps()
    assert arrivals.none_early(), (arrivals.times, paced.starts)


async def test_redirects_out_of_scope_and_to_blocked_addresses(site: Site) -> None:
    other = "http://127.0.0.1:9"  # another port: out of host scope, and refused by the guard
    site.add("/", page("Home", 0, ["/away", "/inside", "/blocked-port"]))
    site.add("/away", status=302, headers={"Location": "http://other.test/landing"})
    site.add("/inside", status=301, headers={"Location": "/target"})
    site.add("/target", page("Target", 1, []))
    site.add("/blocked-port", status=302, headers={"Location": other + "/x"})
    records = by_path(site, await crawl(site))
    assert records["/away"]["outcome"] == "out_of_scope"
    assert "other.test" in records["/away"]["error"]["message"]
    assert records["/inside"]["outcome"] == "ok"
    assert records["/inside"]["final_url"] == f"{site.origin}/target"
    assert "/target" not in records  # the redirect's target counts as seen
    assert records["/blocked-port"]["outcome"] == "out_of_scope"
    # in domain scope the other port is inside the boundary: the guard refuses it instead
    domain = by_path(site, await crawl(site, scope="domain"))
    assert domain["/blocked-port"]["outcome"] == "blocked"


async def test_traps_are_capped(site: Site) -> None:
    def calendar(request: BaseHTTPRequestHandler) -> None:
        day = int(request.path.rsplit("/", 1)[1].split("?")[0] or 0)
        links = [f"/cal/{day + 1}", f"/list?page={day}&sid={day}", f"/cal/{day}?view=week"]
        body = page(f"Day {day}", day + 100, links).encode()
        request.send_response(200)
        request.send_header("Content-Type", "text/html")
        request.send_header("Content-Length", str(len(body)))
        request.end_headers()
        request.wfile.write(body)

    for n in range(60):
        site.add(f"/cal/{n}", handler=calendar)
    for n in range(60):
        site.add(f"/list?page={n}&sid={n}", page(f"List {n}", 500 + n, []))
    site.add("/", page("Home", 0, ["/cal/0", "/" + "/".join("d" * 20)]))
    records = await crawl(
        site, max_pages=200, max_depth=100, max_per_pattern=8, max_query_variants=3
    )
    paths = [p for p in page_paths(site)]
    assert len([p for p in paths if p.startswith("/cal/") and "?" not in p]) <= 8
    assert len({p for p in paths if p.startswith("/list")}) <= 3
    assert not any(p.startswith("/d/d/d") for p in paths)  # deeper than max_path_depth
    assert len(records) < 30


async def test_duplicate_content_and_canonical_links(site: Site) -> None:
    article = page("Story", 7, [])
    canonical = f'<link rel="canonical" href="{site.origin}/story">'
    site.add("/", page("Home", 0, ["/story", "/story-print", "/mirror"]))
    site.add("/story", page("Story", 7, [], head=canonical))
    site.add("/story-print", page("Story print", 8, [], head=canonical))
    site.add("/mirror", article)
    records = by_path(site, await crawl(site, concurrency=1))
    assert records["/story"]["outcome"] == "ok"
    assert records["/story-print"]["outcome"] == "duplicate"
    assert records["/story-print"]["duplicate_of"] == f"{site.origin}/story"
    assert records["/mirror"]["outcome"] == "duplicate"  # same text as /story


async def test_failures_are_records_and_the_crawl_goes_on(site: Site) -> None:
    stall = threading.Event()
    site.add("/", page("Home", 0, ["/missing", "/broken", "/busy", "/slow", "/fine"]))
    site.add("/broken", "oops", status=500)
    site.add("/fine", page("Fine", 1, []))
    site.add("/slow", page("Slow", 2, []), stall=stall)
    paced = GateTime()
    served: list[float] = []  # when /busy was asked, on the gate's clock

    def busy(request: BaseHTTPRequestHandler) -> None:
        served.append(paced.now)
        if len(served) == 1:
            request.send_response(429)
            request.send_header("Retry-After", "1")
            request.send_header("Content-Length", "0")
            request.end_headers()
            return
        body = page("Busy", 3, []).encode()
        request.send_response(200)
        request.send_header("Content-Type", "text/html")
        request.send_header("Content-Length", str(len(body)))
        request.end_headers()
        request.wfile.write(body)

    site.add("/busy", handler=busy)
    try:
        # /slow is held until the fetch deadline ends it; the deadline leaves the other
        # pages room on a loaded machine, and the Retry-After pause costs no real time.
        records = by_path(site, await paced_crawl(site, paced, settings={"fetch_deadline": 3.0}))
    finally:
        stall.set()
    assert records["/missing"]["outcome"] == "http_error"
    assert records["/missing"]["status"] == 404
    assert records["/broken"]["outcome"] == "http_error"
    assert records["/slow"]["outcome"] == "timeout"
    assert records["/fine"]["outcome"] == "ok"
    assert records["/busy"]["outcome"] == "ok"
    assert len(served) == 2
    assert served[1] - served[0] >= 1.0 - 1e-9  # asked again only after the Retry-After pause


async def test_llms_txt_and_markdown_tree(site: Site, tmp_path: Path) -> None:
    site.add("/", page("Harbour docs", 0, ["/guide/intro", "/guide/setup", "/faq"]))
    site.add("/guide/intro", page("Intro", 1, []))
    site.add("/guide/setup", page("Setup", 2, [], head='<meta name="description" content="How.">'))
    site.add("/faq", page("FAQ", 3, []))
    out, llms = tmp_path / "out", tmp_path / "llms.txt"
    files = CrawlFiles(out, llms)  # what the CLI's --out and --llms-txt write
    options = CrawlOptions(delay=0.0, output=files.text)
    async with crawl_run(settings(site), MemoryCache(100), site.origin, options) as run:
        records = [record async for record in run]
        for record in records:
            files.page(record)
        await files.finish(run)
    assert len(records) == 4
    text = llms.read_text()
    assert text.startswith("# Harbour docs\n\n> ")
    assert "## Guide" in text
    assert f"- [Setup]({site.origin}/guide/setup): Entry 20-0 notes" in text
    assert "How." not in text  # the meta description no reader sees
    host = site.origin.removeprefix("http://").replace(":", "_").replace(".", ".")
    setup = out / host / "guide" / "setup.md"
    assert setup.read_text().startswith("# Setup")
    assert "guide/setup.md" in (out / "index.md").read_text()


async def test_warm_cache_reads_nothing_again(site: Site) -> None:
    tree_site(site, 12, fanout=4)
    cache = MemoryCache(1000)
    first = await crawl(site, cache=cache)
    before = len(page_paths(site))
    second = await crawl(site, cache=cache)
    assert len(first) == len(second) == 12
    assert len(page_paths(site)) == before
    assert all(r["cache"] == "hit" for r in second)


async def test_a_stored_page_that_redirected_away_is_out_of_scope(site: Site) -> None:
    from loopback import serve
    from webs import opened_fetcher

    with serve() as other:
        other.add("/landing", page("Elsewhere", 9, ["/deeper"]))
        site.add("/", page("Home", 0, ["/away"]))
        site.add("/away", status=302, headers={"Location": f"{other.origin}/landing"})
        both = Settings(
            allow_hosts=[f"127.0.0.1:{site.port}", f"127.0.0.1:{other.port}"],
            cache="memory",
            render="never",
        )
        cache = MemoryCache(100)
        async with opened_fetcher(both, cache=cache) as fetcher:  # a plain fetch follows it
            assert (await fetcher.fetch(site.origin + "/away")).ok
        options = CrawlOptions(delay=0.0)
        async with crawl_run(both, cache, site.origin, options) as run:
            records = by_path(site, [record async for record in run])
        assert records["/away"]["outcome"] == "out_of_scope"
        assert records["/away"]["cache"] == "hit"
        assert "/deeper" not in other.paths()


HUB = (
    "<!doctype html><html><head><title>Museum</title></head><body><h1>Museum</h1>"
    '<a href="/a">Ledgers</a> <a href="/b">Guide</a> <a href="/c">Maps</a></body></html>'
)


async def test_a_start_page_of_bare_links_is_a_hub_whose_links_are_followed(site: Site) -> None:
    site.add("/", HUB)
    for n, path in enumerate(("/a", "/b", "/c")):
        site.add(path, page(f"Page {path}", n, []))
    records = by_path(site, await crawl(site, max_pages=10))
    assert records["/"]["outcome"] == "empty_extraction"  # too thin to be content ...
    assert {"/a", "/b", "/c"} <= set(records)  # ... but its links are read
    assert all(records[p]["outcome"] == "ok" for p in ("/a", "/b", "/c"))


def test_the_cli_writes_out_and_llms_txt(site: Site, tmp_path: Path) -> None:
    """``--out`` and ``--llms-txt`` are the CLI's: Markdown files named in the records as
    pages come, then index.md and the llms.txt."""
    site.add("/", page("Harbour docs", 0, ["/guide/tides"], extra="<h2>Moorings</h2>"))
    night = "<h2>High water</h2><p>Keep <strong>clear of the reef</strong> at night.</p>"
    site.add("/guide/tides", page("Tides", 1, [], extra=night))
    out, llms = tmp_path / "out", tmp_path / "llms.txt"
    env = {
        **os.environ,
        "SLEUTH_ALLOW_HOSTS": f"127.0.0.1:{site.port}",
        "SLEUTH_CACHE": "memory",
        "SLEUTH_RENDER": "never",
    }
    files = ["--out", str(out), "--llms-txt", str(llms)]
    done = subprocess.run(
        [sys.executable, "-m", "sleuth", "crawl", site.origin, "--json", "--delay", "0", *files],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    records = [json.loads(line) for line in done.stdout.splitlines()]
    assert [record["outcome"] for record in records] == ["ok", "ok"]
    tides = out / records[1]["file"]
    assert tides.read_text().startswith("# Tides")
    assert "Keep **clear of the reef** at night." in tides.read_text()  # Markdown, for files
    assert "## High water" in records[1]["text"]
    assert records[1]["file"] in (out / "index.md").read_text()
    assert llms.read_text().startswith("# Harbour docs\n\n> ")
    assert f"- [Tides]({site.origin}/guide/tides)" in llms.read_text()
