"""Map and crawl on loopback sites built as traps: robots.txt, session identifiers,
redirects to pages already seen, URLs the client cannot parse, huge waits, long paths,
and a page of 20,000 links. Every wait runs on an injected clock, never on real time."""

from __future__ import annotations

from collections import Counter
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

from sitegen import page, tree_site

from loopback import Site
from sleuth.cache import MemoryCache
from sleuth.commands.crawl import CrawlFiles
from sleuth.config import Settings
from sleuth.crawl.crawler import CrawlOptions
from sleuth.crawl.mapper import SiteMapper
from sleuth.crawl.run import CrawlRun
from sleuth.crawl.scope import Scope
from sleuth.crawl.urls import canonical
from sleuth.web import Web
from webs import crawl_run, site_map

XML = {"Content-Type": "application/xml"}
TEXT = {"Content-Type": "text/plain"}


def settings(site: Site, **extra: Any) -> Settings:
    return Settings(allow_hosts=[f"127.0.0.1:{site.port}"], cache="memory", render="never", **extra)


def urlset(site: Site, locs: list[str]) -> str:
    rows = "".join(
        f"<url><loc>{loc if '://' in loc else site.origin + loc}</loc></url>" for loc in locs
    )
    return f'<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{rows}</urlset>'


def trap_site(site: Site) -> None:
    """robots.txt that disallows /private, a sitemap listing it and session duplicates of a
    docs page, and /blog redirecting to /blog/, which the sitemap lists too."""
    site.add(
        "/robots.txt",
        f"User-agent: *\nDisallow: /private\nSitemap: {site.origin}/sitemap.xml\n",
        headers=TEXT,
    )
    site.add(
        "/sitemap.xml",
        urlset(
            site,
            [
                "/",
                "/blog/",
                "/docs/a",
                "/docs/a?sessionid=abc",
                "/docs/a?utm_source=x&gclid=1",
                "/private/x",
            ],
        ),
        headers=XML,
    )
    links = ["/blog", "/docs/a", "/docs/a;jsessionid=F00", "/docs/a?PHPSESSID=9", "/private/x"]
    site.add("/", page("Home", 0, links))
    site.add("/blog", status=301, headers={"Location": "/blog/"})
    site.add("/blog/", page("Blog", 1, ["/", "/docs/a", "/blog/post", "/blog?sid=2"]))
    site.add("/blog/post", page("Post", 2, ["/blog/"]))
    site.add("/docs/a", page("Docs", 3, ["/"]))
    site.add("/private/x", page("Private", 4, []))


def test_session_ids_and_tracking_parameters_are_not_part_of_a_url() -> None:
    messy = (
        "http://a.test/p;jsessionid=AB12?sid=3&x=1&utm_source=y&PHPSESSID=2&gclid=z"
        "&fbclid=f&msclkid=m&mc_eid=e&_ga=g&yclid=y&sessionid=s&ASPSESSIONIDQA=q"
    )
    assert canonical(messy) == "http://a.test/p?x=1"
    assert canonical("http://a.test/p?page=2&sort=new") == "http://a.test/p?page=2&sort=new"


async def test_the_map_leaves_out_what_robots_disallows_and_lists_a_page_once(
    site: Site,
) -> None:
    trap_site(site)
    result = await site_map(settings(site), MemoryCache(100), site.origin + "/")
    urls = [entry.url.removeprefix(site.origin) for entry in result.entries]
    assert "/private/x" not in urls
    assert urls.count("/docs/a") == 1
    assert not any("sessionid" in url.lower() or "utm_" in url for url in urls)
    assert "left out 1 URL that robots.txt disallows for sleuth" in result.notes
    # the same map, robots.txt ignored, lists it and says nothing of it
    ignored = await site_map(
        settings(site), MemoryCache(100), site.origin + "/", respect_robots=False
    )
    assert f"{site.origin}/private/x" in {entry.url for entry in ignored.entries}
    assert not any("left out" in note for note in ignored.notes)


async def test_a_crawl_requests_no_url_twice(site: Site) -> None:
    trap_site(site)
    options = CrawlOptions(delay=0.0, sitemaps=True)
    async with crawl_run(settings(site), MemoryCache(1000), site.origin + "/", options) as run:
        records = {r["url"].removeprefix(site.origin): r async for r in run}
    counts = Counter(site.paths())
    assert {path: n for path, n in counts.items() if n > 1} == {}
    assert "/private/x" not in counts
    assert records["/blog"]["outcome"] == "duplicate"  # its redirect target was queued
    assert records["/blog"]["duplicate_of"] == f"{site.origin}/blog/"
    assert records["/blog/"]["outcome"] == "ok"
    assert records["/docs/a"]["outcome"] == "ok"
    assert not any(";" in path or "sessionid" in path.lower() for path in records)


async def test_urls_the_client_cannot_parse_are_notes(site: Site) -> None:
    bad = ["http://1.2.3.256/x", "http://0177.0.0.1/"]
    site.add(
        "/robots.txt", f"User-agent: *\nSitemap: {bad[1]}sitemap.xml\nAllow: /\n", headers=TEXT
    )
    site.add("/sitemap.xml", urlset(site, ["/a", bad[0], "/b"]), headers=XML)
    head = '<link rel="alternate" type="application/rss+xml" href="/feed.rss">'
    site.add("/", page("Home", 0, ["/c", *bad], head=head))
    site.add(
        "/feed.rss",
        f"<rss><channel><item><link>{bad[0]}</link></item><item><link>/d</link></item>"
        "</channel></rss>",
        headers=XML,
    )
    for n, path in enumerate(["/a", "/b", "/c", "/d"], 1):
        site.add(path, page(path, n, []))
    result = await site_map(settings(site), MemoryCache(100), site.origin + "/", scope="domain")
    urls = {entry.url.removeprefix(site.origin) for entry in result.entries}
    assert {"/a", "/b", "/c", "/d", "/"} <= urls
    assert any("1.2.3.256" in note and "Invalid IPv4" in note for note in result.notes)
    assert any("0177.0.0.1" in note for note in result.notes)
    options = CrawlOptions(delay=0.0, sitemaps=True, scope="domain")
    async with crawl_run(settings(site), MemoryCache(1000), site.origin + "/", options) as run:
        records = {r["url"].removeprefix(site.origin) async for r in run}
        notes = run.notes  # the sitemaps' and the crawler's
    assert {"/", "/a", "/b", "/c"} <= records
    assert any("1.2.3.256" in note for note in notes)


async def test_long_path_segments_make_bounded_distinct_file_names(
    site: Site, tmp_path: Path
) -> None:
    long_a, long_b = "a" * 300, "a" * 299 + "b"
    site.add("/", page("Home", 0, [f"/{long_a}/{long_a}", f"/{long_a}/{long_b}"]))
    site.add(f"/{long_a}/{long_a}", page("A", 1, []))
    site.add(f"/{long_a}/{long_b}", page("B", 2, []))
    out = tmp_path / "out"
    files = CrawlFiles(out)  # what the CLI's --out writes
    options = CrawlOptions(delay=0.0, output=files.text)
    async with crawl_run(settings(site), MemoryCache(100), site.origin, options) as run:
        records = [record async for record in run]
        for record in records:
            files.page(record)
        await files.finish(run)
    files = [record["file"] for record in records]
    assert len(records) == 3
    assert len(set(files)) == 3
    assert all(len(part) <= 100 for file in files for part in Path(file).parts)
    assert {(out / file).read_text().split("\n")[0] for file in files} == {
        "# Home",
        "# A",
        "# B",
    }


class FakeTime:
    """The gate's clock and sleep: a sleep moves the clock and is written down."""

    def __init__(self, now: float) -> None:
        self.now = now
        self.sleeps: list[float] = []

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


def faked(run: CrawlRun, now: float = 1000.7) -> FakeTime:
    fake = FakeTime(now)
    run.crawler.gate.clock = fake.clock
    run.crawler.gate.sleep = fake.sleep
    return fake


async def test_the_first_request_never_waits_for_a_clock_boundary(site: Site) -> None:
    site.add("/robots.txt", "User-agent: *\nAllow: /\n", headers=TEXT)
    site.add("/", page("Home", 0, ["/next"]))
    site.add("/next", page("Next", 1, []))
    options = CrawlOptions(delay=5.0, concurrency=1)
    async with crawl_run(settings(site), MemoryCache(100), site.origin, options) as run:
        fake = faked(run)  # 1000.7 s: the old grid of 5 s ticks made it wait 4.3 s
        records = [record async for record in run]
    assert len(records) == 2
    assert len(fake.sleeps) == 1  # only the second request waits ...
    assert abs(fake.sleeps[0] - 5.0) < 1e-6  # ... for the delay


async def test_a_crawl_delay_above_the_ceiling_skips_the_host(site: Site) -> None:
    site.add("/robots.txt", "User-agent: *\nCrawl-delay: 86400\n", headers=TEXT)
    site.add("/", page("Home", 0, ["/a"]))
    options = CrawlOptions(delay=0.0)
    async with crawl_run(settings(site), MemoryCache(100), site.origin, options) as run:
        fake = faked(run)
        records = [record async for record in run]
        notes = run.crawler.notes.lines
    assert site.paths() == ["/robots.txt"]  # no page was asked for
    assert [record["outcome"] for record in records] == ["rate_limited"]
    assert "SLEUTH_MAX_CRAWL_DELAY" in records[0]["error"]["message"]
    assert any("86400" in note and "skipped" in note for note in notes)
    assert fake.sleeps == []
    # under a raised ceiling the same host is read
    raised = settings(site, max_crawl_delay=100_000)
    async with crawl_run(raised, MemoryCache(100), site.origin, options) as run:
        fake = faked(run)
        records = [record async for record in run]
    assert [record["outcome"] for record in records] == ["ok", "http_error"]
    assert fake.sleeps == [86400.0]


async def test_retry_after_pauses_a_host_only_up_to_the_ceiling(site: Site) -> None:
    served: list[str] = []

    def busy(request: BaseHTTPRequestHandler) -> None:
        served.append(request.path)
        request.send_response(429)
        request.send_header("Retry-After", "86400")
        request.send_header("Content-Length", "0")
        request.end_headers()

    site.add("/robots.txt", "User-agent: *\nAllow: /\n", headers=TEXT)
    site.add("/", page("Home", 0, ["/busy", "/after"]))
    site.add("/busy", handler=busy)
    site.add("/after", page("After", 1, []))
    options = CrawlOptions(delay=0.0, concurrency=1)
    async with crawl_run(settings(site), MemoryCache(100), site.origin, options) as run:
        fake = faked(run)
        records = {r["url"].removeprefix(site.origin): r async for r in run}
    assert records["/busy"]["outcome"] == "rate_limited"
    assert served == ["/busy"]  # a day's Retry-After is not waited out and tried again
    assert records["/after"]["outcome"] == "ok"
    assert fake.sleeps
    assert max(fake.sleeps) <= 30.0  # SLEUTH_MAX_RETRY_AFTER


async def test_a_crawl_ends_at_its_deadline_with_what_it_has(site: Site) -> None:
    tree_site(site, 20, fanout=3)
    now = [0.0]

    def moving(body: bytes):  # type: ignore[no-untyped-def]
        def handle(request: BaseHTTPRequestHandler) -> None:
            now[0] += 10.0  # each page served costs ten seconds of the crawl's clock
            request.send_response(200)
            request.send_header("Content-Type", "text/html")
            request.send_header("Content-Length", str(len(body)))
            request.end_headers()
            request.wfile.write(body)

        return handle

    for path, route in list(site.routes.items()):
        if path != "/robots.txt":
            site.add(path, handler=moving(route.body))
    options = CrawlOptions(delay=0.0, concurrency=1, deadline=25.0)
    async with crawl_run(settings(site), MemoryCache(1000), site.origin, options) as run:
        run.crawler.clock = lambda: now[0]
        records = [record async for record in run]
        notes = run.crawler.notes.lines
    assert len(records) == 3  # read at 0, 10 and 20 s; at 30 s the deadline has passed
    assert len([p for p in site.paths() if p != "/robots.txt"]) == 3
    assert any("25s deadline" in note for note in notes)


async def test_a_map_ends_at_its_deadline_with_what_it_has(site: Site) -> None:
    now = [0.0]

    def sitemap(body: str):  # type: ignore[no-untyped-def]
        data = body.encode()

        def handle(request: BaseHTTPRequestHandler) -> None:
            now[0] += 10.0
            request.send_response(200)
            request.send_header("Content-Type", "application/xml")
            request.send_header("Content-Length", str(len(data)))
            request.end_headers()
            request.wfile.write(data)

        return handle

    rows = "".join(f"<sitemap><loc>{site.origin}/m/{n}.xml</loc></sitemap>" for n in range(3))
    site.add("/sitemap.xml", handler=sitemap(f"<sitemapindex>{rows}</sitemapindex>"))
    for n in range(3):
        site.add(f"/m/{n}.xml", handler=sitemap(urlset(site, [f"/from/{n}"])))
    site.add("/", page("Home", 0, ["/link"]))
    async with Web(settings(site), MemoryCache(100)) as web:
        mapper = SiteMapper(web)
        scope = Scope(site.origin + "/")
        found = [
            e.url.removeprefix(site.origin)
            async for e in mapper.entries(scope.start, scope, deadline=25.0, clock=lambda: now[0])
        ]
    assert found == ["/from/0"]  # /m/1.xml was read at 30 s, past the deadline
    assert "/m/2.xml" not in site.paths()
    assert "/" not in site.paths()
    assert any("25s deadline" in note for note in mapper.notes.lines)


async def test_slow_sitemaps_share_one_time_budget(site: Site) -> None:
    now = [0.0]
    served: list[str] = []

    def slow(request: BaseHTTPRequestHandler) -> None:
        served.append(request.path)
        now[0] += 15.0  # each one uses a whole fetch deadline
        request.send_response(404)
        request.send_header("Content-Length", "0")
        request.end_headers()

    rows = "".join(f"<sitemap><loc>{site.origin}/m/{n}.xml</loc></sitemap>" for n in range(50))
    site.add("/sitemap.xml", f"<sitemapindex>{rows}</sitemapindex>", headers=XML)
    for n in range(50):
        site.add(f"/m/{n}.xml", handler=slow)
    async with Web(settings(site), MemoryCache(100)) as web:
        mapper = SiteMapper(web)
        found = [e async for e in mapper.sitemap_entries(site.origin, clock=lambda: now[0])]
    assert found == []
    assert len(served) == 4  # four fetch deadlines of 15 s: 60 s, not 50 x 30 s
    assert any("stopped after 60s" in note for note in mapper.notes.lines)


async def test_robots_txt_is_asked_at_every_redirect_hop_of_sitemaps_and_feeds(
    site: Site,
) -> None:
    site.add("/robots.txt", "User-agent: *\nDisallow: /private\n", headers=TEXT)
    site.add("/sitemap.xml", status=302, headers={"Location": "/private/map.xml"})
    site.add("/private/map.xml", urlset(site, ["/hidden/1"]), headers=XML)
    head = '<link rel="alternate" type="application/rss+xml" href="/feed.rss">'
    site.add("/", page("Home", 0, ["/open"], head=head))
    site.add("/feed.rss", status=302, headers={"Location": "/private/feed.rss"})
    site.add(
        "/private/feed.rss",
        "<rss><channel><item><link>/hidden/2</link></item></channel></rss>",
        headers=XML,
    )
    result = await site_map(settings(site), MemoryCache(100), site.origin + "/")
    urls = {entry.url.removeprefix(site.origin) for entry in result.entries}
    assert "/open" in urls
    assert not {"/hidden/1", "/hidden/2"} & urls
    assert not any(path.startswith("/private") for path in site.paths())
    assert any("/private/map.xml" in note for note in result.notes)
    assert any("/private/feed.rss" in note for note in result.notes)


class SharedCache(MemoryCache):
    """A memory cache the crawl keeps its own state in, as it does a file or Redis cache,
    so the test can count every entry the crawl writes."""

    name = "shared"


async def test_the_frontier_holds_no_more_than_the_budget_can_reach(site: Site) -> None:
    links = [f"/l/{n}" for n in range(20_000)]
    site.add("/robots.txt", "User-agent: *\nAllow: /\n", headers=TEXT)
    site.add("/", page("Hub", 0, links))
    cache = SharedCache(1_000_000)
    options = CrawlOptions(delay=0.0, max_pages=1)
    async with crawl_run(settings(site), cache, site.origin, options) as run:
        records = [record async for record in run]
    assert len(records) == 1
    assert len(cache._entries) < 100, len(cache._entries)  # was 60,016
    assert [p for p in site.paths() if p != "/robots.txt"] == ["/"]


async def test_a_crawl_with_a_bigger_budget_still_follows_links(site: Site) -> None:
    tree_site(site, 30, fanout=5)
    cache = SharedCache(100_000)
    options = CrawlOptions(delay=0.0, max_pages=12)
    async with crawl_run(settings(site), cache, site.origin, options) as run:
        records = [record async for record in run]
    assert len(records) == 12
    assert len({record["url"] for record in records}) == 12
