"""The fetch pipeline against a real loopback server: every outcome, robots.txt,
the cache, and paging."""

from __future__ import annotations

import gzip
import threading

import pytest

from conftest import PARAGRAPHS
from loopback import Site, article, serve
from sleuth.cache import MemoryCache
from sleuth.config import Settings
from sleuth.errors import CacheError, UsageError
from sleuth.pages import Fetcher, Outcome
from webs import opened_fetcher

GENERIC_ROBOTS = "User-agent: *\nDisallow: /private\n"
# RFC 9309: a group naming sleuth replaces the `*` group for sleuth entirely.
ROBOTS = "User-agent: *\nDisallow: /private\n\nUser-agent: sleuth\nDisallow: /no-sleuth\n"


async def test_article_is_fetched_and_extracted(site: Site, fetcher: Fetcher) -> None:
    url = site.add("/story", article("Lighthouse logbooks", PARAGRAPHS))
    result = await fetcher.fetch(url)
    assert result.outcome == Outcome.OK
    assert result.status == 200
    assert result.title == "Lighthouse logbooks"
    assert "digitised these logbooks" in result.text
    assert "Copyright example" not in result.text
    assert result.final_url == url
    assert result.cache == "miss"
    assert result.error is None


async def test_second_fetch_is_a_cache_hit_and_refresh_bypasses_it(
    site: Site, fetcher: Fetcher
) -> None:
    url = site.add("/story", article("Lighthouse logbooks", PARAGRAPHS))
    first = await fetcher.fetch(url, respect_robots=False)
    second = await fetcher.fetch(url, respect_robots=False)
    assert (first.cache, second.cache) == ("miss", "hit")
    assert second.text == first.text
    assert site.paths().count("/story") == 1
    refreshed = await fetcher.fetch(url, respect_robots=False, refresh=True)
    assert refreshed.cache == "miss"
    assert site.paths().count("/story") == 2


async def test_cache_key_includes_the_output_format(site: Site, fetcher: Fetcher) -> None:
    url = site.add("/story", article("Lighthouse logbooks", PARAGRAPHS))
    text = await fetcher.fetch(url, respect_robots=False)
    html = await fetcher.fetch(url, respect_robots=False, output="html")
    assert (text.cache, html.cache) == ("miss", "miss")
    assert "<p>" in html.text
    assert "<p>" not in text.text


async def test_robots_disallow_is_obeyed_unless_ignored(site: Site, fetcher: Fetcher) -> None:
    site.add("/robots.txt", GENERIC_ROBOTS, headers={"Content-Type": "text/plain"})
    url = site.add("/private/page", article("Private", PARAGRAPHS))
    refused = await fetcher.fetch(url)
    assert refused.outcome == Outcome.ROBOTS_DISALLOWED
    assert refused.error is not None
    assert "robots.txt" in refused.error.message
    assert "/private/page" not in site.paths()
    allowed = await fetcher.fetch(url, respect_robots=False)
    assert allowed.outcome == Outcome.OK


async def test_robots_rules_for_sleuth_by_name(site: Site, fetcher: Fetcher) -> None:
    site.add("/robots.txt", ROBOTS, headers={"Content-Type": "text/plain"})
    named = site.add("/no-sleuth", article("Named", PARAGRAPHS))
    star_only = site.add("/private/x", article("Star rules do not bind sleuth", PARAGRAPHS))
    assert (await fetcher.fetch(named)).outcome == Outcome.ROBOTS_DISALLOWED
    assert (await fetcher.fetch(star_only)).outcome == Outcome.OK
    assert site.paths().count("/robots.txt") == 1, "robots.txt is fetched once per origin"


@pytest.mark.parametrize(
    ("robots_status", "expected"),
    [
        (404, Outcome.OK),
        (410, Outcome.OK),
        (500, Outcome.ROBOTS_DISALLOWED),
        (503, Outcome.ROBOTS_DISALLOWED),
    ],
)
async def test_robots_status_codes_follow_rfc_9309(
    site: Site, fetcher: Fetcher, robots_status: int, expected: str
) -> None:
    site.add("/robots.txt", "oops", status=robots_status)
    url = site.add("/page", article("Page", PARAGRAPHS))
    assert (await fetcher.fetch(url)).outcome == expected


@pytest.mark.parametrize(
    ("read_timeout", "fetch_deadline"),
    [(0.2, 30), (30, 0.3)],
    ids=["read-timeout", "overall-deadline"],
)
async def test_a_stalled_robots_txt_is_a_timeout_and_the_page_is_not_fetched(
    site: Site, read_timeout: float, fetch_deadline: float
) -> None:
    settings = Settings(
        allow_hosts=[f"127.0.0.1:{site.port}"],
        cache="memory",
        render="never",
        read_timeout=read_timeout,
        fetch_deadline=fetch_deadline,
    )
    site.add("/robots.txt", "User-agent: *\nAllow: /\n", stall=threading.Event())
    url = site.add("/page", article("Page", PARAGRAPHS))
    async with opened_fetcher(settings, cache=MemoryCache(10)) as fetcher:
        result = await fetcher.fetch(url)
    assert result.outcome == Outcome.TIMEOUT
    assert "/page" not in site.paths()


@pytest.mark.parametrize(
    ("status", "outcome"),
    [
        (404, Outcome.HTTP_ERROR),
        (410, Outcome.HTTP_ERROR),
        (500, Outcome.HTTP_ERROR),
        (403, Outcome.HTTP_ERROR),
        (429, Outcome.RATE_LIMITED),
    ],
)
async def test_http_errors_become_typed_outcomes(
    site: Site, fetcher: Fetcher, status: int, outcome: str
) -> None:
    url = site.add("/err", "<html><body><p>Something went wrong.</p></body></html>", status=status)
    result = await fetcher.fetch(url, respect_robots=False)
    assert result.outcome == outcome
    assert result.status == status
    assert result.text == ""
    assert result.error is not None
    assert result.error.retryable == (status >= 500 or status == 429)


async def test_cloudflare_interstitial_is_a_block_page(site: Site, fetcher: Fetcher) -> None:
    challenge = (
        "<!DOCTYPE html><html><head><title>Just a moment...</title></head><body>"
        "<div id='challenge-running'>Checking if the site connection is secure</div>"
        "<p>Enable JavaScript and cookies to continue</p>"
        "<script src='/cdn-cgi/challenge-platform/h/b/orchestrate/jsch/v1'></script>"
        "</body></html>"
    )
    url = site.add("/cf", challenge, status=503, headers={"Server": "cloudflare"})
    result = await fetcher.fetch(url, respect_robots=False)
    assert result.outcome == Outcome.BLOCK_PAGE


# PDFs and the text family (JSON, XML, Markdown) are documents sleuth reads; these are not.
@pytest.mark.parametrize("content_type", ["image/png", "application/zip", "video/mp4"])
async def test_other_content_types_are_unsupported(
    site: Site, fetcher: Fetcher, content_type: str
) -> None:
    url = site.add("/file", b"\x89PNG\r\n\x1a\n\x00binary", headers={"Content-Type": content_type})
    result = await fetcher.fetch(url, respect_robots=False)
    assert result.outcome == Outcome.UNSUPPORTED_TYPE
    assert content_type in (result.error.message if result.error else "")


async def test_plain_text_is_accepted(site: Site, fetcher: Fetcher) -> None:
    url = site.add(
        "/notes.txt", "\n\n".join(PARAGRAPHS), headers={"Content-Type": "text/plain; charset=utf-8"}
    )
    result = await fetcher.fetch(url, respect_robots=False)
    assert result.outcome == Outcome.OK
    assert PARAGRAPHS[0] in result.text


async def test_oversized_body_is_too_large(site: Site) -> None:
    settings = Settings(
        allow_hosts=[f"127.0.0.1:{site.port}"], cache="memory", render="never", max_bytes=10_000
    )
    url = site.add("/huge", article("Huge", PARAGRAPHS * 200))
    async with opened_fetcher(settings, cache=MemoryCache(10)) as fetcher:
        result = await fetcher.fetch(url, respect_robots=False)
    assert result.outcome == Outcome.TOO_LARGE


async def test_gzip_bomb_is_too_large(site: Site) -> None:
    settings = Settings(
        allow_hosts=[f"127.0.0.1:{site.port}"],
        cache="memory",
        render="never",
        max_decoded_bytes=1_000_000,
    )
    bomb = gzip.compress(b"<html><body>" + b"A" * 50_000_000)
    assert len(bomb) < 100_000
    url = site.add("/bomb", bomb, headers={"Content-Encoding": "gzip"})
    async with opened_fetcher(settings, cache=MemoryCache(10)) as fetcher:
        result = await fetcher.fetch(url, respect_robots=False)
    assert result.outcome == Outcome.TOO_LARGE


async def test_a_stalled_server_is_a_timeout(site: Site) -> None:
    settings = Settings(
        allow_hosts=[f"127.0.0.1:{site.port}"],
        cache="memory",
        render="never",
        read_timeout=30,
        fetch_deadline=0.3,
    )
    url = site.add("/slow", article("Slow", PARAGRAPHS), stall=threading.Event())
    async with opened_fetcher(settings, cache=MemoryCache(10)) as fetcher:
        result = await fetcher.fetch(url, respect_robots=False)
    assert result.outcome == Outcome.TIMEOUT
    assert result.error is not None
    assert result.error.retryable


async def test_non_allowed_loopback_port_is_blocked_without_connecting(fetcher: Fetcher) -> None:
    with serve() as other:
        url = other.add("/secret", article("Secret", PARAGRAPHS))
        result = await fetcher.fetch(url, respect_robots=False)
        assert result.outcome == Outcome.BLOCKED
        assert other.requests == []


async def test_redirect_to_a_non_allowed_port_is_blocked(site: Site, fetcher: Fetcher) -> None:
    with serve() as other:
        target = other.add("/secret", article("Secret", PARAGRAPHS))
        url = site.add("/go", "", status=302, headers={"Location": target})
        result = await fetcher.fetch(url, respect_robots=False)
        assert result.outcome == Outcome.BLOCKED
        assert other.requests == []


async def test_closed_port_is_a_network_error(site: Site) -> None:
    with serve() as gone:
        port = gone.port
    settings = Settings(allow_hosts=[f"127.0.0.1:{port}"], cache="memory", render="never")
    async with opened_fetcher(settings, cache=MemoryCache(10)) as fetcher:
        result = await fetcher.fetch(f"http://127.0.0.1:{port}/x", respect_robots=False)
    assert result.outcome == Outcome.NETWORK_ERROR
    assert result.error is not None
    assert result.error.retryable


async def test_javascript_wall_without_render_is_js_required(site: Site, fetcher: Fetcher) -> None:
    shell = (
        "<html><head><title>App</title></head><body><noscript>You need to enable JavaScript "
        "to run this app.</noscript><div id='root'></div><script src='/app.js'></script>"
        + "<script>var x = 1;</script>" * 2000
        + "</body></html>"
    )
    url = site.add("/app", shell)
    result = await fetcher.fetch(url, respect_robots=False, render="never")
    assert result.outcome == Outcome.JS_REQUIRED
    assert result.rendered is False


async def test_empty_page_is_empty_extraction(site: Site, fetcher: Fetcher) -> None:
    url = site.add("/empty", "<html><head><title>Nothing</title></head><body></body></html>")
    result = await fetcher.fetch(url, respect_robots=False)
    assert result.outcome == Outcome.EMPTY_EXTRACTION


async def test_failures_are_not_cached(site: Site, fetcher: Fetcher) -> None:
    url = site.add("/flaky", "<html><body><p>down</p></body></html>", status=500)
    assert (await fetcher.fetch(url, respect_robots=False)).outcome == Outcome.HTTP_ERROR
    site.add("/flaky", article("Back", PARAGRAPHS))
    result = await fetcher.fetch(url, respect_robots=False)
    assert (result.outcome, result.cache) == (Outcome.OK, "miss")


async def test_paging_walks_the_whole_text(site: Site, fetcher: Fetcher) -> None:
    url = site.add("/story", article("Lighthouse logbooks", PARAGRAPHS))
    whole = await fetcher.fetch(url, respect_robots=False)
    pieces, start = [], 0
    while True:
        part = await fetcher.fetch(url, respect_robots=False, max_chars=100, start_index=start)
        pieces.append(part.text)
        assert len(part.text) <= 100
        if not part.truncated:
            assert part.next_start_index is None
            break
        assert part.next_start_index == start + 100
        start = part.next_start_index
    assert "".join(pieces) == whole.text
    with pytest.raises(UsageError):
        await fetcher.fetch(url, respect_robots=False, start_index=len(whole.text) + 5)


async def test_user_agent_names_sleuth(site: Site, fetcher: Fetcher) -> None:
    url = site.add("/story", article("Lighthouse logbooks", PARAGRAPHS))
    await fetcher.fetch(url)
    agents = {seen.headers.get("User-Agent", "") for seen in site.requests}
    assert agents
    assert all(agent.startswith("sleuth/") and "+http" in agent for agent in agents)


async def test_bare_host_gets_https_and_garbage_is_a_usage_error(fetcher: Fetcher) -> None:
    with pytest.raises(UsageError):
        await fetcher.fetch("not a url")
    with pytest.raises(UsageError):
        await fetcher.fetch("http://")


async def test_unreachable_robots_txt_is_asked_again_after_minutes(site: Site) -> None:
    now = [1000.0]
    cache = MemoryCache(10, clock=lambda: now[0])
    settings = Settings(allow_hosts=[f"127.0.0.1:{site.port}"], cache="memory", render="never")
    site.add("/robots.txt", "down", status=503)
    url = site.add("/page", article("Page", PARAGRAPHS))
    async with opened_fetcher(settings, cache=cache) as fetcher:
        assert (await fetcher.fetch(url)).outcome == Outcome.ROBOTS_DISALLOWED
    site.add("/robots.txt", "User-agent: *\nAllow: /\n", headers={"Content-Type": "text/plain"})
    now[0] += 60
    async with opened_fetcher(settings, cache=cache) as fetcher:
        assert (await fetcher.fetch(url)).outcome == Outcome.ROBOTS_DISALLOWED
    now[0] += 301
    async with opened_fetcher(settings, cache=cache) as fetcher:
        assert (await fetcher.fetch(url)).outcome == Outcome.OK
    assert site.paths().count("/robots.txt") == 2


async def test_oversized_robots_txt_is_read_up_to_the_limit(site: Site, fetcher: Fetcher) -> None:
    rules = "User-agent: *\nAllow: /open\nDisallow: /\n"
    padding = "# " + "x" * 98 + "\n"
    site.add("/robots.txt", rules + padding * 6000, headers={"Content-Type": "text/plain"})
    allowed = site.add("/open", article("Open", PARAGRAPHS))
    closed = site.add("/closed", article("Closed", PARAGRAPHS))
    assert (await fetcher.fetch(allowed)).outcome == Outcome.OK
    assert (await fetcher.fetch(closed)).outcome == Outcome.ROBOTS_DISALLOWED


class _ReadOnlyCache(MemoryCache):
    async def set(self, key: str, value: bytes, ttl: float | None = None) -> None:
        raise CacheError("the disk is full", retryable=False)


async def test_a_failing_cache_never_loses_a_fetched_page(site: Site, settings: Settings) -> None:
    url = site.add("/story", article("Lighthouse logbooks", PARAGRAPHS))
    async with opened_fetcher(settings, cache=_ReadOnlyCache(10)) as fetcher:
        result = await fetcher.fetch(url)
    assert result.outcome == Outcome.OK
    assert "digitised these logbooks" in result.text


async def test_zero_ttl_turns_page_caching_off(site: Site) -> None:
    settings = Settings(
        allow_hosts=[f"127.0.0.1:{site.port}"], cache="memory", render="never", cache_ttl=0
    )
    url = site.add("/story", article("Lighthouse logbooks", PARAGRAPHS))
    async with opened_fetcher(settings, cache=MemoryCache(10)) as fetcher:
        first = await fetcher.fetch(url, respect_robots=False)
        second = await fetcher.fetch(url, respect_robots=False)
    assert (first.cache, second.cache) == ("miss", "miss")
    assert site.paths().count("/story") == 2


@pytest.mark.chromium
@pytest.mark.parametrize(
    ("status", "outcome"), [(404, Outcome.HTTP_ERROR), (500, Outcome.HTTP_ERROR)]
)
async def test_rendered_error_pages_are_errors_not_ok(
    site: Site, status: int, outcome: str
) -> None:
    settings = Settings(allow_hosts=[f"127.0.0.1:{site.port}"], cache="memory")
    url = site.add("/gone", article("Gone", PARAGRAPHS), status=status)
    async with opened_fetcher(settings, cache=MemoryCache(10)) as fetcher:
        result = await fetcher.fetch(url, respect_robots=False, render="always")
        assert (result.outcome, result.status, result.rendered) == (outcome, status, True)
        again = await fetcher.fetch(url, respect_robots=False, render="always")
        assert again.cache == "miss", "error pages are never cached"


async def test_robots_txt_is_asked_at_every_redirect_hop(site: Site, fetcher: Fetcher) -> None:
    site.add("/robots.txt", GENERIC_ROBOTS, headers={"Content-Type": "text/plain"})
    site.add("/private/x", article("Private", PARAGRAPHS))
    url = site.add("/go", "", status=302, headers={"Location": "/private/x"})
    result = await fetcher.fetch(url)
    assert result.outcome == Outcome.ROBOTS_DISALLOWED
    assert "/private/x" not in site.paths()
    assert (await fetcher.fetch(url, respect_robots=False)).outcome == Outcome.OK


async def test_a_host_that_is_down_is_a_network_error_not_robots(site: Site) -> None:
    with serve() as gone:
        port = gone.port
    settings = Settings(allow_hosts=[f"127.0.0.1:{port}"], cache="memory", render="never")
    async with opened_fetcher(settings, cache=MemoryCache(10)) as fetcher:
        result = await fetcher.fetch(f"http://127.0.0.1:{port}/page")
    assert result.outcome == Outcome.NETWORK_ERROR


async def test_refresh_asks_robots_txt_again(site: Site, fetcher: Fetcher) -> None:
    site.add("/robots.txt", "User-agent: *\nDisallow: /\n", headers={"Content-Type": "text/plain"})
    url = site.add("/page", article("Page", PARAGRAPHS))
    assert (await fetcher.fetch(url)).outcome == Outcome.ROBOTS_DISALLOWED
    site.add("/robots.txt", "User-agent: *\nAllow: /\n", headers={"Content-Type": "text/plain"})
    assert (await fetcher.fetch(url)).outcome == Outcome.ROBOTS_DISALLOWED
    assert (await fetcher.fetch(url, refresh=True)).outcome == Outcome.OK


@pytest.mark.parametrize(
    "url",
    [
        "http://[::1",
        "http://[zz]/",
        "http://xn--/",
        "http:/127.0.0.1/x",
        "http://",
        "https:///x",
        "http://example.com/" + "a" * 70_000,
    ],
)
async def test_malformed_urls_are_usage_errors(fetcher: Fetcher, url: str) -> None:
    with pytest.raises(UsageError):
        await fetcher.fetch(url)


@pytest.mark.parametrize(
    "url",
    [
        "javascript:alert(1)",
        "data:text/html,<p>hi</p>",
        "mailto:a@b.c",
        "file:///etc/passwd",
        "ftp://example.com/x",
        "gopher://example.com/",
    ],
)
async def test_other_schemes_are_blocked_outcomes(fetcher: Fetcher, url: str) -> None:
    result = await fetcher.fetch(url)
    assert result.outcome == Outcome.BLOCKED
    assert result.error is not None
    assert "scheme is refused" in result.error.message
    assert "SLEUTH_ALLOW_HOSTS" not in result.error.message  # no setting opens a scheme
    if url.startswith("file:"):
        assert "a local file is read with extract" in result.error.message


@pytest.mark.parametrize(
    ("typed", "canonical"),
    [
        ("127.0.0.1:8080/x", "https://127.0.0.1:8080/x"),
        ("http://0177.0.0.1/", "http://127.0.0.1/"),
        ("http://2130706433/", "http://127.0.0.1/"),
        ("HTTP://0x7f.1/", "http://127.0.0.1/"),
    ],
)
async def test_hosts_are_read_the_way_the_resolver_reads_them(
    fetcher: Fetcher, typed: str, canonical: str
) -> None:
    result = await fetcher.fetch(typed)
    assert (result.url, result.outcome) == (canonical, Outcome.BLOCKED)


async def test_auto_render_says_why_the_browser_fallback_did_not_run(site: Site) -> None:
    settings = Settings(
        allow_hosts=[f"127.0.0.1:{site.port}"], cache="memory", chromium_path="/nonexistent"
    )
    shell = (
        "<html><head><title>App</title></head><body><noscript>You need to enable JavaScript "
        "to run this app.</noscript><div id='root'></div>"
        + "<script>var x = 1;</script>" * 2000
        + "</body></html>"
    )
    url = site.add("/app", shell)
    async with opened_fetcher(settings, cache=MemoryCache(10)) as fetcher:
        result = await fetcher.fetch(url, respect_robots=False)
    assert result.outcome == Outcome.JS_REQUIRED
    assert result.error is not None
    assert "browser fallback is off" in result.error.message
    assert "/nonexistent" in result.error.message


async def test_rate_limited_says_how_long_the_server_asks_to_wait(
    site: Site, fetcher: Fetcher
) -> None:
    url = site.add("/busy", "slow down", status=429, headers={"Retry-After": "120"})
    result = await fetcher.fetch(url, respect_robots=False)
    assert result.outcome == Outcome.RATE_LIMITED
    assert result.error is not None
    assert "Retry-After: 120" in result.error.message
