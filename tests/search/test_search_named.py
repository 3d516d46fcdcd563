"""A search that names its provider, through a session: one chain per provider, kept."""

from __future__ import annotations

from search.payloads import SEARXNG_PAYLOAD
from search.wire import json_reply
from sleuth.api import AsyncSleuth
from sleuth.cache import MemoryCache


async def test_a_named_provider_keeps_one_chain_for_the_session(wire, make_settings):
    wire.on("/search", json_reply(SEARXNG_PAYLOAD), json_reply(SEARXNG_PAYLOAD))
    settings = make_settings(searxng_url=wire.url("/"))
    async with AsyncSleuth(settings, cache=MemoryCache(100)) as client:
        first = await client.search("python 3.13", provider="searxng")
        chain = client._chains["searxng"]
        second = await client.search("python 3.12", provider="searxng")
        assert client._chains == {"searxng": chain}  # not one chain (and client) per call
        assert first.results
        assert second.results
        assert [a.name for a in second.providers_tried] == ["searxng"]
        assert len(chain._clients) == 1  # one HTTP client served both
    assert len(wire.to("/search")) == 2  # both were asked, neither from the cache
    assert chain._clients == {}  # closing the session closed it
