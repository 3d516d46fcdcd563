"""Body limits on the wire and after decompression, bombs, and the fetch deadline."""

from __future__ import annotations

import gzip
import random
import threading
import tracemalloc
import zlib
from collections.abc import Awaitable, Callable, Iterator
from http.server import BaseHTTPRequestHandler

import brotli
import httpx
import pytest

from loopback import Route, Site, serve
from sleuth.config import Settings
from sleuth.errors import FetchTimeout, NetworkError, TooLarge, UnsupportedType
from sleuth.net import deadline, make_client, read_body, read_body_sync

from .conftest import ClientFactory, SyncClientFactory
from .fakes import FakeResolver, RecordingBackend, SyncRecordingBackend, http_reply, ips

PUBLIC_IP = "93.184.216.34"
KB = 1024
MB = 1024 * KB
TEXT = b"<html><body>" + b"A fairly ordinary paragraph of text. " * 2000 + b"</body></html>"

Fetch = Callable[..., Awaitable[bytes]]


def raw_deflate(data: bytes) -> bytes:
    packer = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    return packer.compress(data) + packer.flush()


ENCODERS: dict[str, Callable[[bytes], bytes]] = {
    "gzip": lambda data: gzip.compress(data, 9),
    "x-gzip": lambda data: gzip.compress(data, 9),
    "deflate": lambda data: zlib.compress(data, 9),
    "deflate-raw": raw_deflate,
    "br": lambda data: brotli.compress(data, quality=5),
}


def header_for(name: str) -> str:
    return "deflate" if name == "deflate-raw" else name


@pytest.fixture
def fetch(client_for: ClientFactory, backend: RecordingBackend, resolver: FakeResolver) -> Fetch:
    resolver.add("example.com", ips(PUBLIC_IP))

    async def run(reply: bytes, max_bytes: int = 4 * MB, max_decoded_bytes: int = 16 * MB) -> bytes:
        backend.serve(PUBLIC_IP, 80, reply)
        async with client_for().stream("GET", "http://example.com/page") as response:
            return await read_body(
                response, max_bytes=max_bytes, max_decoded_bytes=max_decoded_bytes
            )

    return run


@pytest.fixture(scope="module")
def bombs() -> dict[str, bytes]:
    """16 MB of zeros, compressed by each encoder (a few bytes to ~16 KB on the wire)."""
    zeros = b"\0" * (16 * MB)
    return {name: encode(zeros) for name, encode in ENCODERS.items()}


async def test_a_plain_body_is_returned_whole(fetch: Fetch) -> None:
    assert await fetch(http_reply(200, TEXT)) == TEXT


@pytest.mark.parametrize("name", list(ENCODERS))
async def test_each_encoding_is_decoded(name: str, fetch: Fetch) -> None:
    body = ENCODERS[name](TEXT)
    assert await fetch(http_reply(200, body, {"Content-Encoding": header_for(name)})) == TEXT


@pytest.mark.parametrize("name", list(ENCODERS))
async def test_each_encoding_bomb_stops_at_the_decoded_limit_in_bounded_memory(
    name: str, fetch: Fetch, bombs: dict[str, bytes]
) -> None:
    reply = http_reply(200, bombs[name], {"Content-Encoding": header_for(name)})
    tracemalloc.start()
    try:
        with pytest.raises(TooLarge, match=f"decompresses to more than {MB} bytes"):
            await fetch(reply, max_decoded_bytes=MB)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 4 * MB  # the bomb inflates to 16 MB


async def test_stacked_encodings_are_undone_in_reverse_order(fetch: Fetch) -> None:
    body = brotli.compress(gzip.compress(TEXT))
    assert await fetch(http_reply(200, body, {"Content-Encoding": "gzip, br"})) == TEXT


async def test_a_bomb_inside_a_stacked_encoding_is_stopped(fetch: Fetch) -> None:
    inner = gzip.compress(gzip.compress(b"\0" * (32 * MB)))  # the outer layer is small too
    with pytest.raises(TooLarge, match="decompresses"):
        await fetch(
            http_reply(200, inner, {"Content-Encoding": "gzip, gzip"}), max_decoded_bytes=MB
        )


async def test_a_body_over_max_bytes_without_content_length_is_cut_off(fetch: Fetch) -> None:
    unsized = b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n" + b"x" * (300 * KB)
    with pytest.raises(TooLarge, match=f"sent more than {100 * KB} bytes"):
        await fetch(unsized, max_bytes=100 * KB)


async def test_the_wire_limit_counts_compressed_bytes(fetch: Fetch) -> None:
    body = gzip.compress(random.Random(7).randbytes(512 * KB))  # does not compress
    head = b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nConnection: close\r\n\r\n"
    with pytest.raises(TooLarge, match="sent more than"):
        await fetch(head + body, max_bytes=256 * KB, max_decoded_bytes=16 * MB)


async def test_an_oversized_content_length_fails_before_reading(fetch: Fetch) -> None:
    # No body follows: reading would fail with a protocol error, not TooLarge.
    lying = b"HTTP/1.1 200 OK\r\nContent-Length: 999999999\r\nConnection: close\r\n\r\n"
    with pytest.raises(TooLarge, match="declares 999999999 bytes"):
        await fetch(lying, max_bytes=MB)


async def test_bodies_exactly_at_the_limits_pass(fetch: Fetch) -> None:
    body = b"y" * (64 * KB)
    assert await fetch(http_reply(200, body), max_bytes=64 * KB, max_decoded_bytes=64 * KB) == body
    packed = gzip.compress(body)
    reply = http_reply(200, packed, {"Content-Encoding": "gzip"})
    assert await fetch(reply, max_bytes=len(packed), max_decoded_bytes=64 * KB) == body


async def test_one_byte_over_the_decoded_limit_fails(fetch: Fetch) -> None:
    packed = gzip.compress(b"y" * (64 * KB + 1))
    with pytest.raises(TooLarge):
        await fetch(
            http_reply(200, packed, {"Content-Encoding": "gzip"}), max_decoded_bytes=64 * KB
        )


async def test_an_unknown_encoding_is_refused(fetch: Fetch) -> None:
    with pytest.raises(UnsupportedType, match="content-encoding 'zstd'"):
        await fetch(http_reply(200, b"\x28\xb5\x2f\xfd", {"Content-Encoding": "zstd"}))


@pytest.mark.parametrize("name", ["gzip", "br"])
async def test_a_corrupt_compressed_body_is_a_network_error(name: str, fetch: Fetch) -> None:
    with pytest.raises(NetworkError, match=f"corrupt {name} body"):
        await fetch(http_reply(200, b"\x1f\x8b\x08\x00garbage-garbage", {"Content-Encoding": name}))


async def test_data_after_the_end_of_a_gzip_stream_is_ignored(fetch: Fetch) -> None:
    body = gzip.compress(TEXT) + b"\0" * (10 * MB)
    reply = http_reply(200, body, {"Content-Encoding": "gzip"})
    assert await fetch(reply, max_bytes=16 * MB, max_decoded_bytes=MB) == TEXT


def test_the_sync_reader_applies_the_same_limits(
    sync_client_for: SyncClientFactory,
    sync_backend: SyncRecordingBackend,
    resolver: FakeResolver,
    bombs: dict[str, bytes],
) -> None:
    resolver.add("example.com", ips(PUBLIC_IP))
    sync_backend.serve(PUBLIC_IP, 80, http_reply(200, bombs["br"], {"Content-Encoding": "br"}))
    sync_backend.serve(
        PUBLIC_IP, 443, http_reply(200, gzip.compress(TEXT), {"Content-Encoding": "gzip"})
    )
    client = sync_client_for()
    with client.stream("GET", "http://example.com/") as response, pytest.raises(TooLarge):
        read_body_sync(response, max_bytes=MB, max_decoded_bytes=MB)
    with client.stream("GET", "https://example.com/") as response:
        assert read_body_sync(response, max_bytes=MB, max_decoded_bytes=MB) == TEXT


# Real loopback servers: the whole stack with real sockets.


@pytest.fixture
def site() -> Iterator[Site]:
    with serve() as running:
        yield running


def loopback_client(site: Site, timeout: float | None = None) -> httpx.AsyncClient:
    return make_client(Settings(allow_hosts=[f"127.0.0.1:{site.port}"]).net, timeout=timeout)


async def test_a_real_server_gzip_bomb_is_stopped(site: Site) -> None:
    bomb = gzip.compress(b"\0" * (16 * MB))
    url = site.add("/bomb", bomb, headers={"Content-Encoding": "gzip"})
    async with loopback_client(site) as client, client.stream("GET", url) as response:
        with pytest.raises(TooLarge, match="decompresses"):
            await read_body(response, max_bytes=MB, max_decoded_bytes=4 * MB)


async def test_a_real_server_body_within_limits_is_read(site: Site) -> None:
    url = site.add("/page", brotli.compress(TEXT), headers={"Content-Encoding": "br"})
    async with loopback_client(site) as client, client.stream("GET", url) as response:
        assert await read_body(response, max_bytes=MB, max_decoded_bytes=MB) == TEXT
    assert site.requests[0].headers["Host"] == f"127.0.0.1:{site.port}"


async def test_the_deadline_stops_a_server_that_never_answers(site: Site) -> None:
    stall = threading.Event()
    url = site.add("/stall", b"late", stall=stall)
    try:
        async with loopback_client(site) as client:
            with pytest.raises(FetchTimeout, match=r"did not finish within 0\.2s") as caught:
                async with deadline(0.2, url=url), client.stream("GET", url) as response:
                    await read_body(response, max_bytes=MB, max_decoded_bytes=MB)
    finally:
        stall.set()
    assert caught.value.url == url
    assert caught.value.retryable


async def test_the_deadline_stops_a_body_that_trickles(site: Site) -> None:
    release = threading.Event()

    def trickle(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(200)
        handler.send_header("Content-Length", "100000")
        handler.end_headers()
        handler.wfile.write(b"x" * 1000)
        handler.wfile.flush()
        release.wait(30)

    site.routes["/trickle"] = Route(handler=trickle)
    url = site.origin + "/trickle"
    try:
        async with loopback_client(site) as client, client.stream("GET", url) as response:
            assert response.status_code == 200  # headers arrived; the body never does
            with pytest.raises(FetchTimeout):
                async with deadline(0.3, url=url):
                    await read_body(response, max_bytes=MB, max_decoded_bytes=MB)
    finally:
        release.set()


async def test_an_httpx_read_timeout_inside_the_deadline_is_a_fetch_timeout(site: Site) -> None:
    stall = threading.Event()
    url = site.add("/slow", b"late", stall=stall)
    try:
        async with loopback_client(site, timeout=0.1) as client:
            with pytest.raises(FetchTimeout, match="timed out"):
                async with deadline(30, url=url):
                    await client.get(url)
    finally:
        stall.set()


async def test_a_fetch_that_finishes_in_time_is_untouched(site: Site) -> None:
    url = site.add("/quick", b"quick")
    async with loopback_client(site) as client, deadline(30, url=url):
        response = await client.get(url)
    assert response.content == b"quick"
