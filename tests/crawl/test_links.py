"""Links and images in extraction and fetch results: absolute, canonical, hidden ones gone."""

from __future__ import annotations

from loopback import Site
from sleuth.cache import MemoryCache
from sleuth.config import Settings
from sleuth.extract import extract
from webs import opened_fetcher

SENTENCE = "The lighthouse keepers of the northern coast kept detailed logbooks for a century."
BODY = " ".join([SENTENCE] * 3)
PAGE = f"""<!doctype html><html><head><title>Logs</title></head><body>
<nav><a href="/">Home</a> <a href="/about#team">About</a></nav>
<article><h1>Logs</h1>
<p>{BODY} Read <a href="guide/one?utm_source=mail&amp;b=2&amp;a=1">the guide</a> today.</p>
<p>{BODY}</p><p>{BODY} <img src="/img/lamp.png" alt="The lamp"></p>
<p>{BODY} Again <a href="/docs/guide/one?a=1&amp;b=2#part">the same guide</a>.</p></article>
<div style="display:none"><a href="/trap">secret</a></div>
<p hidden><a href="/trap2">also secret</a></p>
<footer><a href="https://other.test:443/x" rel="nofollow">Partner</a>
<a href="mailto:a@b.test">mail</a> <a href="javascript:void(0)">js</a></footer>
</body></html>"""


def _by_url(links: list[dict[str, object]]) -> dict[str, dict[str, object]]:
    return {str(link["url"]): link for link in links}


def test_links_are_absolute_canonical_deduplicated_and_judged() -> None:
    result = extract(PAGE, url="http://site.test/docs/index.html", links=True)
    links = _by_url(result.links)
    assert set(links) == {
        "http://site.test/",
        "http://site.test/about",
        "http://site.test/docs/guide/one?a=1&b=2",
        "https://other.test/x",
    }
    guide = links["http://site.test/docs/guide/one?a=1&b=2"]
    assert guide["in_content"] is True
    assert guide["text"] == "the guide"
    assert links["http://site.test/"]["in_content"] is False
    assert links["https://other.test/x"]["rel"] == "nofollow"
    assert result.images == [{"url": "http://site.test/img/lamp.png", "alt": "The lamp"}]


def test_hidden_links_are_not_links() -> None:
    urls = {link["url"] for link in extract(PAGE, url="http://site.test/", links=True).links}
    assert not any("trap" in str(url) for url in urls)


def test_base_href_is_honoured() -> None:
    html = PAGE.replace("<head>", '<head><base href="http://cdn.test/root/">')
    urls = {link["url"] for link in extract(html, url="http://site.test/docs/", links=True).links}
    assert "http://cdn.test/root/guide/one?a=1&b=2" in urls


async def test_fetch_result_carries_links(site: Site) -> None:
    url = site.add("/docs/index.html", PAGE)
    settings = Settings(allow_hosts=[f"127.0.0.1:{site.port}"], cache="memory", render="never")
    async with opened_fetcher(settings, cache=MemoryCache(10)) as fetcher:
        result = await fetcher.fetch(url)
        again = await fetcher.fetch(url)
    assert result.ok, result.error
    expected = f"{site.origin}/docs/guide/one?a=1&b=2"
    assert expected in {link["url"] for link in result.links}
    assert again.cache == "hit"
    assert again.links == result.links
    assert "links" in result.model_dump()
    assert result.images


def test_fetch_cli_lists_links_only_when_asked(site: Site) -> None:
    import os
    import subprocess
    import sys

    url = site.add("/docs/index.html", PAGE)
    env = {
        **os.environ,
        "SLEUTH_ALLOW_HOSTS": f"127.0.0.1:{site.port}",
        "SLEUTH_CACHE": "memory",
        "SLEUTH_RENDER": "never",
    }

    def fetch(*flags: str) -> str:
        done = subprocess.run(
            [sys.executable, "-m", "sleuth", "fetch", url, *flags],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    guide = f"{site.origin}/docs/guide/one?a=1&b=2"
    assert guide not in fetch()
    listed = fetch("--links")
    assert f"Links:\n{guide}\tthe guide\n" in listed
    assert f"- [the guide]({guide})" in fetch("--links", "--format", "markdown")


def test_a_plain_extraction_does_not_pay_for_links() -> None:
    result = extract(PAGE, url="http://site.test/docs/index.html")
    assert result.links == []
    assert result.images == []
