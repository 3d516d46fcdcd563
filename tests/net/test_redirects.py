"""Every redirect hop passes the guard; chains are bounded; https never downgrades."""

from __future__ import annotations

import gzip
import tracemalloc

import httpx
import pytest

from sleuth.errors import BlockedError

from .conftest import ClientFactory
from .fakes import FakeResolver, RecordingBackend, by_path, http_reply, ips, redirect

PUBLIC_IP = "93.184.216.34"
OTHER_IP = "151.101.1.69"


@pytest.fixture(autouse=True)
def names(resolver: FakeResolver) -> None:
    resolver.add("example.com", ips(PUBLIC_IP))
    resolver.add("other.example.com", ips(OTHER_IP))
    resolver.add("internal.example.org", ips("192.168.0.10"))


@pytest.mark.parametrize(
    ("location", "fragment", "looked_up"),
    [
        ("http://10.0.0.1/admin", "RFC 1918", False),
        ("http://169.254.169.254/latest/meta-data/", "cloud metadata", False),
        ("http://[::1]/", "loopback", False),
        ("http://0x7f.1/", "loopback", False),
        ("http://localhost/", "local host name", False),
        ("http://internal.example.org/", "internal.example.org resolves to 192.168.0.10", True),
        ("http://user:pw@other.example.com/", "credentials", False),
        ("http://other.example.com:8080/", "port 8080", False),
        ("ftp://other.example.com/", "ftp scheme", False),
    ],
)
async def test_a_redirect_to_a_forbidden_destination_is_refused_at_the_hop(
    location: str,
    fragment: str,
    looked_up: bool,
    client_for: ClientFactory,
    backend: RecordingBackend,
    resolver: FakeResolver,
) -> None:
    backend.serve(PUBLIC_IP, 80, redirect(location))
    with pytest.raises(BlockedError, match="refused") as caught:
        await client_for().get("http://example.com/start")
    assert fragment in caught.value.message
    assert backend.dialled == [(PUBLIC_IP, 80)]
    assert (("internal.example.org", 80) in resolver.lookups) is looked_up


def chain(hops: int) -> dict[str, bytes]:
    routes = {f"/{n}": redirect(f"/{n + 1}", status=301 + n % 2) for n in range(hops)}
    routes[f"/{hops}"] = http_reply(200, b"arrived")
    return routes


async def test_five_redirects_are_followed(
    client_for: ClientFactory, backend: RecordingBackend
) -> None:
    backend.serve(PUBLIC_IP, 443, by_path(chain(5)))
    response = await client_for().get("https://example.com/0")
    assert response.content == b"arrived"
    assert [str(r.url) for r in response.history] == [f"https://example.com/{n}" for n in range(5)]
    assert len(backend.attempts) == 6


async def test_a_sixth_redirect_is_refused(
    client_for: ClientFactory, backend: RecordingBackend
) -> None:
    backend.serve(PUBLIC_IP, 443, by_path(chain(6)))
    with pytest.raises(httpx.TooManyRedirects):
        await client_for().get("https://example.com/0")
    assert len(backend.attempts) == 6  # the seventh request is never sent


async def test_https_to_http_is_refused(
    client_for: ClientFactory, backend: RecordingBackend
) -> None:
    backend.serve(PUBLIC_IP, 443, redirect("http://example.com/plain"))
    backend.serve(PUBLIC_IP, 80, http_reply(200, b"plain"))
    with pytest.raises(BlockedError, match="redirect from https to http"):
        await client_for().get("https://example.com/")
    assert backend.dialled == [(PUBLIC_IP, 443)]


async def test_an_allowed_chain_across_hosts_and_schemes_succeeds(
    client_for: ClientFactory, backend: RecordingBackend
) -> None:
    backend.serve(PUBLIC_IP, 80, redirect("https://example.com/secure"))
    backend.serve(
        PUBLIC_IP, 443, by_path({"/secure": redirect("//other.example.com/elsewhere", status=307)})
    )
    backend.serve(
        OTHER_IP,
        443,
        by_path(
            {
                "/elsewhere": redirect("/final", status=308),
                "/final": http_reply(200, b"done"),
            }
        ),
    )
    response = await client_for().get("http://example.com/")
    assert response.content == b"done"
    assert str(response.url) == "https://other.example.com/final"
    assert backend.dialled == [(PUBLIC_IP, 80), (PUBLIC_IP, 443), (OTHER_IP, 443), (OTHER_IP, 443)]
    assert [a.sni for a in backend.attempts] == [
        None,
        "example.com",
        "other.example.com",
        "other.example.com",
    ]


async def test_a_redirect_into_a_trusted_origin_is_refused(
    client_for: ClientFactory, backend: RecordingBackend
) -> None:
    backend.serve(PUBLIC_IP, 80, redirect("http://127.0.0.1:8888/search?q=secret"))
    backend.serve("127.0.0.1", 8888, http_reply(200, b"results"))
    client = client_for(trusted_urls=["http://127.0.0.1:8888"])
    with pytest.raises(BlockedError, match="redirect into a trusted endpoint"):
        await client.get("http://example.com/")
    assert backend.dialled == [(PUBLIC_IP, 80)]


async def test_redirects_within_a_trusted_origin_are_followed(
    client_for: ClientFactory, backend: RecordingBackend
) -> None:
    backend.serve(
        "127.0.0.1",
        8888,
        by_path({"/": redirect("/search"), "/search": http_reply(200, b"results")}),
    )
    client = client_for(trusted_urls=["http://127.0.0.1:8888"])
    assert (await client.get("http://127.0.0.1:8888/")).content == b"results"


def gzip_bomb(size: int) -> bytes:
    return gzip.compress(b"\0" * size, compresslevel=9)


async def test_a_compressed_bomb_in_a_redirect_body_is_never_inflated(
    client_for: ClientFactory, backend: RecordingBackend
) -> None:
    bomb = gzip_bomb(64 * 1024 * 1024)  # ~64 KB on the wire, 64 MB inflated
    backend.serve(
        PUBLIC_IP,
        80,
        by_path(
            {
                "/": http_reply(302, bomb, {"Location": "/next", "Content-Encoding": "gzip"}),
                "/next": http_reply(200, b"fine"),
            }
        ),
    )
    client = client_for()
    tracemalloc.start()
    try:
        response = await client.get("http://example.com/")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert response.content == b"fine"
    assert peak < 16 * 1024 * 1024
    unfollowed = await client.get("http://example.com/", follow_redirects=False)
    assert unfollowed.status_code == 302
    assert unfollowed.content == b""
