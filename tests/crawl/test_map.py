"""``map`` on loopback sites: sitemaps (index, gzip, bad XML, loops, size), feeds, links."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys

from sitegen import page

from loopback import Site
from sleuth.cache import MemoryCache
from sleuth.config import Settings
from sleuth.crawl.mapper import SiteMapper
from sleuth.crawl.scope import Scope
from sleuth.web import Web
from webs import site_map

XML = {"Content-Type": "application/xml"}


def settings(site: Site) -> Settings:
    return Settings(allow_hosts=[f"127.0.0.1:{site.port}"], cache="memory", render="never")


def urlset(site: Site, paths: list[str], lastmod: str | None = None) -> str:
    rows = "".join(
        f"<url><loc>{site.origin}{p}</loc>"
        + (f"<lastmod>{lastmod}</lastmod>" if lastmod else "")
        + "</url>"
        for p in paths
    )
    return (
        '<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        f"{rows}</urlset>"
    )


def index(site: Site, paths: list[str]) -> str:
    rows = "".join(f"<sitemap><loc>{site.origin}{p}</loc></sitemap>" for p in paths)
    return f'<?xml version="1.0"?><sitemapindex xmlns="x">{rows}</sitemapindex>'


async def test_robots_sitemap_index_gzip_and_loop(site: Site) -> None:
    site.add("/robots.txt", f"User-agent: *\nSitemap: {site.origin}/maps/index.xml\n")
    site.add("/maps/index.xml", index(site, ["/maps/a.xml", "/maps/b.xml.gz", "/maps/loop.xml"]))
    site.add("/maps/a.xml", urlset(site, ["/a/1", "/a/2#frag", "/a/1?utm_source=x"], "2024-05-01"))
    site.add("/maps/b.xml.gz", gzip.compress(urlset(site, ["/b/1"]).encode()), headers=XML)
    site.add("/maps/loop.xml", index(site, ["/maps/index.xml", "/maps/c.xml"]))
    site.add("/maps/c.xml", urlset(site, ["/c/1", "https://elsewhere.test/x"]))
    site.add("/", page("Home", 1, ["/a/1", "/d/1"]))
    result = await site_map(settings(site), MemoryCache(100), site.origin + "/")
    urls = [entry.url for entry in result.entries]
    o = site.origin
    assert urls[:4] == [f"{o}/a/1", f"{o}/a/2", f"{o}/b/1", f"{o}/c/1"]
    assert urls[4:] == [f"{o}/", f"{o}/d/1"]  # the start page and its links, once each
    assert result.entries[0].lastmod == "2024-05-01"
    assert result.entries[0].source == "sitemap"
    assert any("loop" in note for note in result.notes)
    assert site.paths().count("/maps/index.xml") == 1


async def test_bad_xml_is_reported_and_read_as_far_as_it_goes(site: Site) -> None:
    broken = urlset(site, ["/ok/1", "/ok/2"]).replace("</urlset>", "<url><loc>")
    site.add("/sitemap.xml", broken + "<<<&&")
    site.add("/", page("Home", 1, []))
    result = await site_map(settings(site), MemoryCache(100), site.origin)
    assert [e.url for e in result.entries][:2] == [f"{site.origin}/ok/1", f"{site.origin}/ok/2"]
    assert any("bad XML" in note for note in result.notes)


async def test_a_huge_sitemap_is_cut_at_the_cap(site: Site) -> None:
    rows = urlset(site, [f"/big/{n}" for n in range(200_000)])  # ~10 MB of XML
    site.add("/sitemap.xml", gzip.compress(rows.encode(), 1), headers=XML)
    site.add("/", page("Home", 1, []))
    cap = 256 * 1024
    async with Web(settings(site), MemoryCache(100)) as web:
        mapper = SiteMapper(web, sitemap_cap=cap)
        scope = Scope(site.origin + "/")
        found = [e async for e in mapper.entries(scope.start, scope)]
    assert 1000 < len(found) < 200_000  # what fit under the cap, nothing fatal
    assert any("larger than" in note for note in mapper.notes.lines)


async def test_feeds_the_start_page_announces(site: Site) -> None:
    head = (
        f'<link rel="alternate" type="application/rss+xml" href="/feed.rss">'
        f'<link rel="alternate" type="application/atom+xml" href="{site.origin}/atom.xml">'
    )
    site.add("/", page("Home", 1, ["/about"], head=head))
    site.add(
        "/feed.rss",
        "<rss><channel><item><link>/posts/1</link><pubDate>Mon, 06 May 2024 10:00:00 GMT"
        "</pubDate></item></channel></rss>",
        headers=XML,
    )
    site.add(
        "/atom.xml",
        '<feed xmlns="http://www.w3.org/2005/Atom"><entry><link href="/posts/2"/>'
        "<updated>2024-05-07T00:00:00Z</updated></entry></feed>",
        headers=XML,
    )
    result = await site_map(settings(site), MemoryCache(100), site.origin)
    by_url = {e.url: e for e in result.entries}
    assert by_url[f"{site.origin}/posts/1"].source == "feed"
    assert by_url[f"{site.origin}/posts/2"].lastmod == "2024-05-07T00:00:00Z"
    assert by_url[f"{site.origin}/about"].source == "links"
    assert f"{site.origin}/feed.rss" not in by_url


async def test_scope_globs_and_limit(site: Site) -> None:
    site.add("/sitemap.xml", urlset(site, ["/docs/a", "/docs/b", "/blog/c", "/docs/private/d"]))
    site.add("/docs/", page("Docs", 1, []))
    result = await site_map(
        settings(site),
        MemoryCache(100),
        site.origin + "/docs/",
        scope="prefix",
        exclude=("/docs/private/*",),
        limit=2,
    )
    assert [e.url for e in result.entries] == [f"{site.origin}/docs/a", f"{site.origin}/docs/b"]


def test_map_cli_prints_jsonl(site: Site) -> None:
    site.add("/sitemap.xml", urlset(site, ["/x"], "2024-01-01"))
    site.add("/", page("Home", 1, []))
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
    first = json.loads(done.stdout.splitlines()[0])
    assert first == {"url": f"{site.origin}/x", "source": "sitemap", "lastmod": "2024-01-01"}


async def test_a_start_page_of_bare_links_still_gives_its_links(site: Site) -> None:
    site.add(
        "/",
        "<html><head><title>Museum</title></head><body>"
        '<a href="/a">Ledgers</a> <a href="/b">Guide</a></body></html>',
    )
    result = await site_map(settings(site), MemoryCache(100), site.origin)
    urls = {e.url for e in result.entries}
    assert {f"{site.origin}/a", f"{site.origin}/b"} <= urls


async def test_sitemaps_and_feeds_that_robots_txt_disallows_are_not_read(site: Site) -> None:
    site.add(
        "/robots.txt",
        f"User-agent: *\nDisallow: /private\nSitemap: {site.origin}/maps/index.xml\n",
    )
    site.add("/maps/index.xml", index(site, ["/maps/a.xml", "/private/b.xml"]))
    site.add("/maps/a.xml", urlset(site, ["/a/1"]))
    site.add("/private/b.xml", urlset(site, ["/b/1"]))
    head = '<link rel="alternate" type="application/rss+xml" href="/private/feed.rss">'
    site.add("/", page("Home", 1, [], head=head))
    site.add(
        "/private/feed.rss", "<rss><channel><item><link>/posts/1</link></item></channel></rss>"
    )
    result = await site_map(settings(site), MemoryCache(100), site.origin + "/")
    urls = {entry.url for entry in result.entries}
    assert f"{site.origin}/a/1" in urls
    assert f"{site.origin}/b/1" not in urls
    assert f"{site.origin}/posts/1" not in urls
    assert "/private/b.xml" not in site.paths()
    assert "/private/feed.rss" not in site.paths()
    assert any("/private/b.xml" in note for note in result.notes)
