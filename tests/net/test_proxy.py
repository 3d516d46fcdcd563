"""The operator's proxy, against real proxies on loopback: the guard decides first.

``docs.example`` resolves to 127.0.0.1 through an injected resolver; the proxies log
what they were asked, so each test shows that the proxy got the vetted address (or,
when names are sent, the name) and nothing the guard refused.
"""

from __future__ import annotations

from collections.abc import Iterator
from ipaddress import ip_address

import httpx
import pytest

from loopback import Site, serve
from sleuth.config import Settings
from sleuth.errors import BlockedError
from sleuth.net import make_client, make_sync_client

from .fakes import FakeResolver
from .proxy_servers import HTTPProxy, SOCKS5Proxy, closed_port, running

LOOPBACK = ip_address("127.0.0.1")


@pytest.fixture
def site() -> Iterator[Site]:
    with serve() as running_site:
        running_site.add("/page", "through")
        yield running_site


@pytest.fixture
def http_proxy() -> Iterator[HTTPProxy]:
    with running(HTTPProxy()) as proxy:
        yield proxy


@pytest.fixture
def socks_proxy() -> Iterator[SOCKS5Proxy]:
    with running(SOCKS5Proxy()) as proxy:
        yield proxy


@pytest.fixture
def resolver() -> FakeResolver:
    return FakeResolver(
        {"docs.example": [[LOOPBACK]], "private.example": [[ip_address("10.0.0.7")]]}
    )


def settings(proxy: str, **more: object) -> Settings:
    return Settings(allow_hosts=["docs.example:*"], proxy=proxy, **more)


async def get(settings: Settings, resolver: FakeResolver, url: str) -> httpx.Response:
    async with make_client(settings.net, resolver=resolver) as client:
        return await client.get(url)


async def test_https_connect_names_the_vetted_address_and_tls_names_the_site(
    http_proxy: HTTPProxy, resolver: FakeResolver
) -> None:
    http_proxy.names = {}  # the proxy could not resolve the name even if it were asked
    with pytest.raises(httpx.HTTPError):  # nothing answers TLS inside the tunnel
        await get(
            settings(f"http://127.0.0.1:{http_proxy.port}"), resolver, "https://docs.example/"
        )
    assert [(a.method, a.target) for a in http_proxy.asked] == [("CONNECT", "127.0.0.1:443")]
    assert http_proxy.asked[0].headers["Host"] == "127.0.0.1:443"
    (hello,) = http_proxy.tunnelled
    assert hello[:1] == b"\x16"  # a TLS handshake record ...
    assert b"docs.example" in hello  # ... whose server name is the site's


async def test_plain_http_is_absolute_form_to_the_address_with_the_site_as_host(
    http_proxy: HTTPProxy, site: Site, resolver: FakeResolver
) -> None:
    url = f"http://docs.example:{site.port}/page"
    response = await get(settings(f"http://127.0.0.1:{http_proxy.port}"), resolver, url)
    assert response.text == "through"
    (asked,) = http_proxy.asked
    assert (asked.method, asked.target) == ("GET", f"http://127.0.0.1:{site.port}/page")
    assert asked.headers["Host"] == f"docs.example:{site.port}"
    assert site.requests[0].headers["Host"] == f"docs.example:{site.port}"


async def test_socks5_connect_names_the_address_with_an_ip_address_type(
    socks_proxy: SOCKS5Proxy, site: Site, resolver: FakeResolver
) -> None:
    socks_proxy.credentials = ("alice", "s3cret")
    url = f"http://docs.example:{site.port}/page"
    proxy = f"socks5://alice:s3cret@127.0.0.1:{socks_proxy.port}"
    assert (await get(settings(proxy), resolver, url)).text == "through"
    (asked,) = socks_proxy.asked
    assert (asked.target, asked.address_type, asked.user) == (f"127.0.0.1:{site.port}", 1, "alice")
    assert site.requests[0].headers["Host"] == f"docs.example:{site.port}"


async def test_sends_names_asks_every_proxy_for_the_name(
    http_proxy: HTTPProxy, socks_proxy: SOCKS5Proxy, site: Site, resolver: FakeResolver
) -> None:
    url = f"http://docs.example:{site.port}/page"
    by_http = settings(f"http://127.0.0.1:{http_proxy.port}", proxy_sends_names=True)
    by_socks = settings(f"socks5://127.0.0.1:{socks_proxy.port}", proxy_sends_names=True)
    assert (await get(by_http, resolver, url)).text == "through"
    assert (await get(by_socks, resolver, url)).text == "through"
    assert http_proxy.asked[0].target == f"http://docs.example:{site.port}/page"
    assert (socks_proxy.asked[0].target, socks_proxy.asked[0].address_type) == (
        f"docs.example:{site.port}",
        3,
    )
    http_proxy.names = {}
    with pytest.raises(httpx.HTTPError):
        await get(by_http, resolver, "https://docs.example/")
    assert http_proxy.asked[-1].target == "docs.example:443"


async def test_sends_names_still_vets_the_name_first(
    http_proxy: HTTPProxy, resolver: FakeResolver
) -> None:
    proxied = Settings(proxy=f"http://127.0.0.1:{http_proxy.port}", proxy_sends_names=True)
    with pytest.raises(BlockedError, match=r"10\.0\.0\.7"):
        await get(proxied, resolver, "https://private.example/")
    assert ("private.example", 443) in resolver.lookups
    assert http_proxy.asked == []


async def test_no_proxy_sends_a_host_direct(
    http_proxy: HTTPProxy, site: Site, resolver: FakeResolver
) -> None:
    bypass = settings(f"http://127.0.0.1:{http_proxy.port}", no_proxy=[".docs.example"])
    url = f"http://docs.example:{site.port}/page"
    assert (await get(bypass, resolver, url)).text == "through"
    assert http_proxy.asked == []
    assert site.paths() == ["/page"]


async def test_loopback_bypasses_the_proxy_until_a_bypass_list_is_set(
    http_proxy: HTTPProxy, site: Site, resolver: FakeResolver
) -> None:
    url = f"http://127.0.0.1:{site.port}/page"
    allowed = [f"127.0.0.1:{site.port}"]
    proxy = f"http://127.0.0.1:{http_proxy.port}"
    assert (await get(Settings(allow_hosts=allowed, proxy=proxy), resolver, url)).text == "through"
    assert http_proxy.asked == []
    listed = Settings(allow_hosts=allowed, proxy=proxy, sleuth_no_proxy=["intranet.example"])
    assert (await get(listed, resolver, url)).text == "through"
    assert [a.target for a in http_proxy.asked] == [url]


async def test_407_is_a_connection_error_naming_the_proxy_with_its_password_masked(
    resolver: FakeResolver, site: Site
) -> None:
    with running(HTTPProxy(credentials=("alice", "right"))) as proxy:
        wrong = settings(f"http://alice:wrong-pw@127.0.0.1:{proxy.port}")
        shown = f"the proxy http://alice:******@127.0.0.1:{proxy.port} answered 407"
        for url in ("https://docs.example/", f"http://docs.example:{site.port}/page"):
            with pytest.raises(httpx.ConnectError) as caught:
                await get(wrong, resolver, url)
            assert shown in str(caught.value)
            assert "wrong-pw" not in str(caught.value)
        right = settings(f"http://alice:right@127.0.0.1:{proxy.port}")
        url = f"http://docs.example:{site.port}/page"
        assert (await get(right, resolver, url)).text == "through"
    assert site.paths() == ["/page"]


@pytest.mark.parametrize("scheme", ["http", "socks5"])
async def test_the_proxys_own_address_is_refused_even_when_allowed(
    scheme: str, site: Site, resolver: FakeResolver
) -> None:
    proxy_server = HTTPProxy() if scheme == "http" else SOCKS5Proxy()
    with running(proxy_server) as proxy:
        allowed = Settings(
            allow_hosts=["docs.example:*", "127.0.0.1:*"],
            proxy=f"{scheme}://127.0.0.1:{proxy.port}",
        )
        for url in (f"http://127.0.0.1:{proxy.port}/", f"https://docs.example:{proxy.port}/"):
            with pytest.raises(BlockedError, match="the proxy's own address"):
                await get(allowed, resolver, url)
        assert proxy.asked == []


@pytest.mark.parametrize("scheme", ["http", "https", "socks5"])
async def test_a_proxy_that_is_down_never_falls_back_to_direct(
    scheme: str, site: Site, resolver: FakeResolver
) -> None:
    down = closed_port()
    url = f"http://docs.example:{site.port}/page"
    with pytest.raises(httpx.ConnectError, match=rf"the proxy {scheme}://127.0.0.1:{down} cannot"):
        await get(
            settings(f"{scheme}://127.0.0.1:{down}", no_proxy=["other.example"]), resolver, url
        )
    assert site.requests == []


def test_the_blocking_client_goes_through_the_proxy_too(
    http_proxy: HTTPProxy, socks_proxy: SOCKS5Proxy, site: Site, resolver: FakeResolver
) -> None:
    url = f"http://docs.example:{site.port}/page"
    for proxy in (f"http://127.0.0.1:{http_proxy.port}", f"socks5://127.0.0.1:{socks_proxy.port}"):
        with make_sync_client(settings(proxy).net, resolver=resolver) as client:
            assert client.get(url).text == "through"
    assert http_proxy.asked[0].target == f"http://127.0.0.1:{site.port}/page"
    assert (socks_proxy.asked[0].target, socks_proxy.asked[0].address_type) == (
        f"127.0.0.1:{site.port}",
        1,
    )
    http_proxy.names = {}
    with (
        make_sync_client(
            settings(f"http://127.0.0.1:{http_proxy.port}").net, resolver=resolver
        ) as client,
        pytest.raises(httpx.HTTPError),
    ):
        client.get("https://docs.example/")
    assert http_proxy.asked[-1].target == "127.0.0.1:443"
    with (
        make_sync_client(
            Settings(allow_hosts=["127.0.0.1:*"], proxy=f"http://127.0.0.1:{http_proxy.port}").net,
            resolver=resolver,
        ) as client,
        pytest.raises(BlockedError, match="the proxy's own address"),
    ):
        client.get(f"http://127.0.0.1:{http_proxy.port}/")
