"""The real stack (system resolver, real sockets) against servers on 127.0.0.1."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from loopback import Site, serve
from sleuth.config import Settings
from sleuth.errors import BlockedError
from sleuth.net import SafeTransport, make_client, make_sync_client


@pytest.fixture
def site() -> Iterator[Site]:
    with serve() as running:
        yield running


@pytest.fixture
def other_site() -> Iterator[Site]:
    with serve() as running:
        yield running


def allowing(*sites: Site) -> Settings:
    return Settings(allow_hosts=[f"127.0.0.1:{s.port}" for s in sites])


async def test_loopback_is_blocked_unless_allowed(site: Site) -> None:
    url = site.add("/", "hello")
    async with make_client(Settings().net) as client:
        with pytest.raises(BlockedError, match=r"127\.0\.0\.1 is a loopback address"):
            await client.get(url)
    assert site.requests == []
    async with make_client(allowing(site).net) as client:
        assert (await client.get(url)).text == "hello"
    assert site.paths() == ["/"]


async def test_a_redirect_chain_on_one_allowed_server_is_followed(site: Site) -> None:
    for n in range(3):
        site.add(f"/{n}", status=302, headers={"Location": f"/{n + 1}"})
    site.add("/3", "end")
    async with make_client(allowing(site).net) as client:
        response = await client.get(site.origin + "/0")
    assert response.text == "end"
    assert site.paths() == ["/0", "/1", "/2", "/3"]


async def test_six_redirects_on_a_real_server_are_refused(site: Site) -> None:
    for n in range(7):
        site.add(f"/{n}", status=301, headers={"Location": f"/{n + 1}"})
    async with make_client(allowing(site).net) as client:
        with pytest.raises(httpx.TooManyRedirects):
            await client.get(site.origin + "/0")
    assert site.paths() == [f"/{n}" for n in range(6)]


async def test_a_hop_to_a_server_that_is_not_allowed_is_refused(
    site: Site, other_site: Site
) -> None:
    target = other_site.add("/private", "secret")
    site.add("/", status=302, headers={"Location": target})
    async with make_client(allowing(site).net) as client:
        with pytest.raises(
            BlockedError, match=r"port \d+ of 127\.0\.0\.1 is not allowed"
        ) as caught:
            await client.get(site.origin + "/")
    assert caught.value.url == target
    assert other_site.requests == []


async def test_a_trusted_endpoint_is_reached_by_its_client(site: Site) -> None:
    url = site.add("/search", "results")
    async with make_client(Settings().net, trusted_urls=[site.origin]) as client:
        assert (await client.get(url)).text == "results"


def test_the_sync_client_and_bare_transport_work_on_loopback(site: Site) -> None:
    url = site.add("/", "hello")
    with make_sync_client(allowing(site).net) as client:
        assert client.get(url).text == "hello"
    with httpx.Client(transport=SafeTransport(Settings().net)) as bare, pytest.raises(BlockedError):
        bare.get(url)
    assert site.paths() == ["/"]
