"""A real Chromium render through the operator's proxy, with the site's cookie.

The browser has no network of its own: every request it makes is answered by the page
client, so the proxy, the bypass list, the guard and the ``[[sites]]`` credentials apply
to it as to a fetch. A loopback HTTP proxy logs what it is asked and a loopback origin
logs the headers it gets; ``docs.example``, ``cdn.example`` and ``tripwire.example``
resolve to 127.0.0.1 through an injected resolver, so none is on the default bypass list.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from ipaddress import ip_address
from pathlib import Path

import pytest

from loopback import Site, serve
from net.fakes import FakeResolver
from net.proxy_servers import HTTPProxy, running
from sleuth.cache import MemoryCache
from sleuth.config import Settings
from sleuth.web import Web

from .conftest import Tripwire

pytestmark = pytest.mark.chromium

LOOPBACK = ip_address("127.0.0.1")
COOKIE = "sid=members-7c1e"


@pytest.fixture
def proxy() -> Iterator[HTTPProxy]:
    with running(HTTPProxy(names={})) as running_proxy:  # it resolves no name itself
        yield running_proxy


@pytest.fixture
def cdn() -> Iterator[Site]:
    with serve() as running_site:
        yield running_site


def _headers(site: Site, path: str) -> list[dict[str, str]]:
    return [
        {name.lower(): value for name, value in request.headers.items()}
        for request in site.requests
        if request.path == path
    ]


async def test_chromium_renders_through_the_proxy_with_the_sites_cookie(
    site: Site, cdn: Site, proxy: HTTPProxy, tripwire: Tripwire, tmp_path: Path
) -> None:
    later = int(time.time()) + 3600
    cookies = tmp_path / "cookies.txt"
    name, value = COOKIE.split("=")
    cookies.write_text(
        f"# Netscape HTTP Cookie File\ndocs.example\tFALSE\t/\tFALSE\t{later}\t{name}\t{value}\n",
        encoding="utf-8",
    )
    origin = f"http://docs.example:{site.port}"
    cdn_origin = f"http://cdn.example:{cdn.port}"
    # Loopback that is not allow-listed, under a name the bypass list does not cover: a
    # request the proxy (which forwards to loopback) would carry, were it ever asked.
    trip_port = tripwire.server.server_address[1]
    refused = f"http://tripwire.example:{trip_port}/secret.css"
    site.add("/robots.txt", "User-agent: *\nAllow: /\n", headers={"Content-Type": "text/plain"})
    site.add("/style.css", "p { color: black }", headers={"Content-Type": "text/css"})
    cdn.add("/theme.css", "h1 { color: navy }", headers={"Content-Type": "text/css"})
    site.add(
        "/members",
        "<!doctype html><html><head><title>Members</title>"
        "<link rel='stylesheet' href='/style.css'>"
        f"<link rel='stylesheet' href='{cdn_origin}/theme.css'>"
        "<link rel='stylesheet' href='https://docs.example/secure.css'>"
        f"<link rel='stylesheet' href='{refused}'></head>"
        "<body><article><h1>Members</h1><p id='out'>waiting</p></article>"
        # The proxy's own address, allow-listed below: reachable only as the proxy.
        f"<script>fetch('http://127.0.0.1:{proxy.port}/').catch(() => null);</script>"
        "<script>fetch('/data.json').then(r => r.json())"
        ".then(d => { document.getElementById('out').textContent = d.text; });</script>"
        "</body></html>",
    )
    site.add(
        "/data.json",
        '{"text": "Only members read this line."}',
        headers={"Content-Type": "application/json"},
    )
    settings = Settings(
        allow_hosts=["docs.example:*", "cdn.example:*", f"127.0.0.1:{proxy.port}"],
        proxy=f"http://127.0.0.1:{proxy.port}",
        sites=[{"origin": origin, "cookies_file": str(cookies), "allow_http": True}],
    )
    resolver = FakeResolver(
        {name: [[LOOPBACK]] for name in ("docs.example", "cdn.example", "tripwire.example")}
    )
    async with Web(settings, MemoryCache(10), resolver=resolver) as web:
        page = await web.renderer.render(origin + "/members")

    # The page was built by its script, from a request the browser made through the proxy.
    assert "Only members read this line." in page.html
    assert page.credentials  # the entry's fingerprint, never its cookie
    assert value not in "".join(page.credentials)

    # The proxy was asked for the vetted address, with Host naming the site.
    asked = {(a.method, a.target): a.headers.get("Host") for a in proxy.asked}
    for path in ("/members", "/style.css", "/data.json"):
        key = ("GET", f"http://127.0.0.1:{site.port}{path}")
        assert asked[key] == f"docs.example:{site.port}", proxy.asked
    assert asked[("GET", f"http://127.0.0.1:{cdn.port}/theme.css")] == f"cdn.example:{cdn.port}"
    # https is a CONNECT to the vetted address, with TLS naming the site inside the tunnel
    # (nothing answers TLS on loopback's 443, so that sheet is reported unread).
    assert ("CONNECT", "127.0.0.1:443") in asked
    assert any(b"docs.example" in hello for hello in proxy.tunnelled)
    assert "https://docs.example/secure.css" in [entry["url"] for entry in page.styles_unread]

    # The origin got the site's cookie on every request; the other origin never did.
    for path in ("/members", "/style.css", "/data.json"):
        (sent,) = _headers(site, path)
        assert sent["cookie"] == COOKIE
        assert sent["host"] == f"docs.example:{site.port}"
    (theirs,) = _headers(cdn, "/theme.css")
    assert "cookie" not in theirs

    # The guard refused the tripwire's sheet before the proxy was asked: nobody reached it.
    assert refused in page.blocked_requests
    assert not [a for a in proxy.asked if f":{trip_port}" in a.target]
    assert tripwire.connections == 0
    # The page's request to the proxy itself was refused too: the proxy heard only proxy talk.
    assert f"http://127.0.0.1:{proxy.port}/" in page.blocked_requests
    assert all(a.method == "CONNECT" or a.target.startswith("http://") for a in proxy.asked)
