"""The cache sits inside the policy path: a stored page reaches only a caller who may fetch it.

Two fetchers share one cache, as two processes share a file cache or Redis; each
has its own settings (allowlist) and says per call whether robots.txt binds it.
Every server is a real loopback one, and names are resolved by a scripted
resolver, so nothing leaves 127.0.0.1.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest

from conftest import PARAGRAPHS
from loopback import Site, article, serve
from net.fakes import FakeResolver, ips
from sleuth.cache import MemoryCache, cache_key, set_json
from sleuth.config import Settings
from sleuth.pages import Fetcher, Outcome
from webs import opened_fetcher

ROBOTS = "User-agent: *\nDisallow: /private\n"
PLAIN = {"Content-Type": "text/plain"}


class RecordingCache(MemoryCache):
    """A memory cache that notes every key read, to show when the cache was asked."""

    def __init__(self, size: int) -> None:
        super().__init__(size)
        self.reads: list[str] = []

    async def get(self, key: str) -> bytes | None:
        self.reads.append(key)
        return await super().get(key)


@pytest.fixture
def shared() -> RecordingCache:
    return RecordingCache(100)


@pytest.fixture
async def allowed(site: Site, shared: RecordingCache) -> AsyncIterator[Fetcher]:
    """A caller whose operator allows this loopback site."""
    settings = Settings(allow_hosts=[f"127.0.0.1:{site.port}"], cache="memory", render="never")
    async with opened_fetcher(settings, cache=shared) as fetcher:
        yield fetcher


@pytest.fixture
async def stranger(shared: RecordingCache) -> AsyncIterator[Fetcher]:
    """A caller with the default rules: no allowlist, so loopback is off limits."""
    async with opened_fetcher(Settings(cache="memory", render="never"), cache=shared) as fetcher:
        yield fetcher


@pytest.fixture
def other() -> Iterator[Site]:
    with serve() as running:
        yield running


async def test_a_page_cached_under_an_allowlist_is_refused_to_a_caller_without_one(
    site: Site, allowed: Fetcher, stranger: Fetcher, shared: RecordingCache
) -> None:
    url = site.add("/internal", article("Internal wiki", PARAGRAPHS))
    assert (await allowed.fetch(url, respect_robots=False)).cache == "miss"
    shared.reads.clear()
    refused = await stranger.fetch(url, respect_robots=False)
    assert refused.outcome == Outcome.BLOCKED
    assert refused.cache == "miss"
    assert refused.text == ""
    assert refused.error is not None
    assert "loopback" in refused.error.message
    assert shared.reads == [], "the guard decides before the cache is asked"
    served = await allowed.fetch(url, respect_robots=False)
    assert (served.outcome, served.cache) == (Outcome.OK, "hit")
    assert "digitised these logbooks" in served.text
    assert site.paths().count("/internal") == 1


async def test_a_decimal_spelling_of_loopback_does_not_reach_the_cached_page(
    site: Site, allowed: Fetcher, stranger: Fetcher
) -> None:
    url = site.add("/article.html", article("Internal article", PARAGRAPHS))
    await allowed.fetch(url, respect_robots=False)
    decimal = f"http://2130706433:{site.port}/article.html"  # 127.0.0.1 as one number
    refused = await stranger.fetch(decimal, respect_robots=False)
    assert refused.outcome == Outcome.BLOCKED
    assert refused.text == ""
    assert refused.url == url  # the guard reads the host as the resolver would
    hit = await allowed.fetch(decimal, respect_robots=False)
    assert (hit.outcome, hit.cache) == (Outcome.OK, "hit")
    assert site.paths().count("/article.html") == 1


async def test_a_page_cached_while_ignoring_robots_is_refused_to_a_caller_who_obeys(
    site: Site, allowed: Fetcher
) -> None:
    site.add("/robots.txt", ROBOTS, headers=PLAIN)
    url = site.add("/private/notes", article("Private notes", PARAGRAPHS))
    first = await allowed.fetch(url, respect_robots=False)
    assert (first.outcome, first.cache) == (Outcome.OK, "miss")
    refused = await allowed.fetch(url)
    assert refused.outcome == Outcome.ROBOTS_DISALLOWED
    assert refused.text == ""
    again = await allowed.fetch(url, respect_robots=False)
    assert (again.outcome, again.cache) == (Outcome.OK, "hit")
    assert site.paths().count("/private/notes") == 1


async def test_an_obeying_caller_still_gets_a_hit_where_robots_allows(
    site: Site, allowed: Fetcher
) -> None:
    site.add("/robots.txt", ROBOTS, headers=PLAIN)
    url = site.add("/public", article("Public page", PARAGRAPHS))
    await allowed.fetch(url, respect_robots=False)
    hit = await allowed.fetch(url)
    assert (hit.outcome, hit.cache) == (Outcome.OK, "hit")
    assert site.paths().count("/public") == 1


async def test_every_redirect_hop_of_a_cached_page_is_put_to_robots(
    site: Site, allowed: Fetcher
) -> None:
    site.add("/robots.txt", ROBOTS, headers=PLAIN)
    site.add("/private/target", article("Private target", PARAGRAPHS))
    site.add("/hop", "", status=302, headers={"Location": "/private/target"})
    url = site.add("/start", "", status=302, headers={"Location": "/hop"})
    stored = await allowed.fetch(url, respect_robots=False)
    assert stored.final_url == f"http://127.0.0.1:{site.port}/private/target"
    refused = await allowed.fetch(url)
    assert refused.outcome == Outcome.ROBOTS_DISALLOWED
    assert refused.cache == "miss"
    assert site.paths().count("/private/target") == 1  # refused at the hop, never fetched
    assert (await allowed.fetch(url, respect_robots=False)).cache == "hit"


async def test_the_final_hop_of_a_cached_page_is_put_to_the_guard(
    site: Site, other: Site, shared: RecordingCache
) -> None:
    target = other.add("/secret", article("Other service", PARAGRAPHS))
    url = site.add("/go", "", status=302, headers={"Location": target})
    both = Settings(
        allow_hosts=[f"127.0.0.1:{site.port}", f"127.0.0.1:{other.port}"],
        cache="memory",
        render="never",
    )
    one = Settings(allow_hosts=[f"127.0.0.1:{site.port}"], cache="memory", render="never")
    async with (
        opened_fetcher(both, cache=shared) as wide,
        opened_fetcher(one, cache=shared) as narrow,
    ):
        assert (await wide.fetch(url, respect_robots=False)).final_url == target
        refused = await narrow.fetch(url, respect_robots=False)
        assert refused.outcome == Outcome.BLOCKED
        assert refused.text == ""
        assert other.paths().count("/secret") == 1
        assert (await wide.fetch(url, respect_robots=False)).cache == "hit"


async def test_a_name_is_judged_by_the_address_it_resolves_to_before_the_cache(
    site: Site, shared: RecordingCache
) -> None:
    resolver = FakeResolver()
    resolver.add("docs.test", ips("127.0.0.1"))
    url = f"http://docs.test:{site.port}/guide"
    site.add("/guide", article("Guide", PARAGRAPHS))
    inside = Settings(allow_hosts=[f"127.0.0.0/8:{site.port}"], cache="memory", render="never")
    # The port is open to everyone here, so only the address can refuse the second caller.
    public = Settings(allow_ports=[site.port], cache="memory", render="never")
    async with (
        opened_fetcher(inside, cache=shared, resolver=resolver) as allowed,
        opened_fetcher(public, cache=shared, resolver=resolver) as out,
    ):
        assert (await allowed.fetch(url, respect_robots=False)).outcome == Outcome.OK
        shared.reads.clear()
        refused = await out.fetch(url, respect_robots=False)
        assert refused.outcome == Outcome.BLOCKED
        assert refused.error is not None
        assert "docs.test resolves to 127.0.0.1, which is a loopback address" in (
            refused.error.message
        )
        assert shared.reads == []
        hit = await allowed.fetch(url, respect_robots=False)
        assert (hit.outcome, hit.cache) == (Outcome.OK, "hit")
    assert ("docs.test", site.port) in resolver.lookups
    assert site.paths().count("/guide") == 1


async def test_is_cached_answers_for_this_caller(
    site: Site, allowed: Fetcher, stranger: Fetcher
) -> None:
    site.add("/robots.txt", ROBOTS, headers=PLAIN)
    page = site.add("/page", article("Page", PARAGRAPHS))
    private = site.add("/private/page", article("Private", PARAGRAPHS))
    assert not await allowed.is_cached(page)
    await allowed.fetch(page)
    await allowed.fetch(private, respect_robots=False)
    assert await allowed.is_cached(page)
    assert not await stranger.is_cached(page)
    assert not await allowed.is_cached(private)
    assert await allowed.is_cached(private, respect_robots=False)


async def test_a_continuation_is_only_the_text_from_its_index(site: Site, allowed: Fetcher) -> None:
    url = site.add("/story", article("Lighthouse logbooks", PARAGRAPHS))
    first = await allowed.fetch(url, max_chars=120)
    assert first.title == "Lighthouse logbooks"
    assert first.next_start_index == 120
    rest = await allowed.fetch(url, start_index=120)
    assert rest.cache == "hit"
    assert rest.title is None
    whole = await allowed.fetch(url)
    assert rest.text == whole.text[120:]
    assert first.text + rest.text == whole.text


async def test_an_entry_stored_without_its_hops_is_judged_by_its_final_url(
    site: Site, other: Site, allowed: Fetcher, shared: RecordingCache
) -> None:
    """Entries written before hops were kept still name their final URL; that is put to the
    guard, and a refused one reads as a miss, so the network path decides afresh."""
    url = site.add("/moved", article("Moved here", PARAGRAPHS))
    elsewhere = other.add("/moved", article("Other service", PARAGRAPHS))
    key = cache_key("page", url, "text", "never")
    stale = {"url": url, "final_url": elsewhere, "title": "Other service", "text": "secret text"}
    await set_json(shared, key, stale, 60)
    result = await allowed.fetch(url, respect_robots=False)
    assert (result.outcome, result.cache) == (Outcome.OK, "miss")
    assert "secret text" not in result.text
    assert result.final_url == url
    assert other.requests == []
    assert (await allowed.fetch(url, respect_robots=False)).cache == "hit"
