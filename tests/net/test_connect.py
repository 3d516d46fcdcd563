"""One lookup per connection: rebinding, pins, what is dialled, and the sync twin."""

from __future__ import annotations

import ipaddress

import httpx
import pytest

from sleuth.commands.output import error_text
from sleuth.config import Settings
from sleuth.errors import BlockedError, UsageError
from sleuth.net import Guard, PinnedResolver, SystemResolver, make_client, parse_resolve_pins
from sleuth.net.transport import _AsyncConnector

from .conftest import ClientFactory, SyncClientFactory
from .fakes import FakeResolver, RecordingBackend, SyncRecordingBackend, http_reply, ips

PUBLIC_IP = "93.184.216.34"
OTHER_PUBLIC_IP = "151.101.1.69"


async def test_dns_rebinding_to_a_private_address_is_never_dialled(
    client_for: ClientFactory, backend: RecordingBackend, resolver: FakeResolver
) -> None:
    resolver.add("rebind.example.org", ips(PUBLIC_IP), ips("127.0.0.1"))
    backend.serve(PUBLIC_IP, 80, http_reply(200, b"first"))
    backend.serve("127.0.0.1", 80, http_reply(200, b"secret"))
    client = client_for()
    assert (await client.get("http://rebind.example.org/")).content == b"first"
    with pytest.raises(BlockedError, match=r"rebind\.example\.org resolves to 127\.0\.0\.1"):
        await client.get("http://rebind.example.org/")
    assert resolver.lookups == [("rebind.example.org", 80), ("rebind.example.org", 80)]
    assert backend.dialled == [(PUBLIC_IP, 80)]


async def test_each_connection_dials_only_its_own_lookup(
    client_for: ClientFactory, backend: RecordingBackend, resolver: FakeResolver
) -> None:
    resolver.add("moving.example.org", ips(PUBLIC_IP), ips(OTHER_PUBLIC_IP))
    backend.serve(PUBLIC_IP, 443, http_reply(200, b"a"))
    backend.serve(OTHER_PUBLIC_IP, 443, http_reply(200, b"b"))
    client = client_for()
    bodies = [(await client.get("https://moving.example.org/")).content for _ in range(2)]
    assert bodies == [b"a", b"b"]
    assert backend.dialled == [(PUBLIC_IP, 443), (OTHER_PUBLIC_IP, 443)]


async def test_the_vetted_ip_is_dialled_with_the_original_host_header_and_sni(
    client_for: ClientFactory, backend: RecordingBackend, resolver: FakeResolver
) -> None:
    resolver.add("www.example.org", ips(PUBLIC_IP))
    backend.serve(PUBLIC_IP, 443, http_reply(200, b"ok"))
    response = await client_for().get("https://www.example.org/path?q=1")
    assert response.status_code == 200
    (attempt,) = backend.attempts
    assert (attempt.host, attempt.port) == (PUBLIC_IP, 443)
    assert attempt.sni == "www.example.org"
    assert attempt.host_header == "www.example.org"
    assert attempt.request.startswith(b"GET /path?q=1 HTTP/1.1\r\n")


async def test_client_sends_the_configured_user_agent_and_encodings(
    client_for: ClientFactory, backend: RecordingBackend, resolver: FakeResolver
) -> None:
    resolver.add("example.com", ips(PUBLIC_IP))
    backend.serve(PUBLIC_IP, 80, http_reply(200))
    await client_for(Settings(user_agent="sleuth-test/1.0")).get("http://example.com/")
    request = bytes(backend.attempts[0].request)
    assert b"User-Agent: sleuth-test/1.0\r\n" in request
    assert b"Accept-Encoding: gzip, deflate, br\r\n" in request


async def test_plain_http_sends_no_sni(
    client_for: ClientFactory, backend: RecordingBackend, resolver: FakeResolver
) -> None:
    resolver.add("example.com", ips(PUBLIC_IP))
    backend.serve(PUBLIC_IP, 80, http_reply(200))
    await client_for().get("http://example.com/")
    assert backend.attempts[0].sni is None


@pytest.mark.parametrize(
    ("entries", "expected"),
    [
        (["example.com:443:93.184.216.34"], {("example.com", 443): ["93.184.216.34"]}),
        (
            ["example.com:443:93.184.216.34,151.101.1.69"],
            {("example.com", 443): ["93.184.216.34", "151.101.1.69"]},
        ),
        (["example.com:443:[2606:4700::1]"], {("example.com", 443): ["2606:4700::1"]}),
        (["example.com:80:2606:4700::1"], {("example.com", 80): ["2606:4700::1"]}),
        (["+Example.COM.:443:1.1.1.1"], {("example.com", 443): ["1.1.1.1"]}),
        (["exämple.com:443:1.1.1.1"], {("xn--exmple-cua.com", 443): ["1.1.1.1"]}),
        (
            ["example.com:443:1.1.1.1", "example.com:443:8.8.8.8"],
            {("example.com", 443): ["8.8.8.8"]},
        ),
        (
            ["a.example.org:80:10.0.0.1", "a.example.org:443:10.0.0.2"],
            {("a.example.org", 80): ["10.0.0.1"], ("a.example.org", 443): ["10.0.0.2"]},
        ),
    ],
)
def test_resolve_pins_parse_like_curl(
    entries: list[str], expected: dict[tuple[str, int], list[str]]
) -> None:
    parsed = parse_resolve_pins(entries)
    assert {key: [str(a) for a in value] for key, value in parsed.items()} == {
        key: [str(ipaddress.ip_address(a)) for a in value] for key, value in expected.items()
    }


@pytest.mark.parametrize(
    "entry",
    [
        "example.com:443",
        "example.com",
        "example.com:abc:1.2.3.4",
        "example.com:0:1.2.3.4",
        "example.com:70000:1.2.3.4",
        "example.com:443:not-an-ip",
        "example.com:443:1.2.3.4,",
        "example.com:443:0x7f.1",
        ":443:1.2.3.4",
        "-example.com:443",
        "1.2.3.4:443:5.6.7.8",
        "exa mple.com:443:1.2.3.4",
    ],
)
def test_malformed_resolve_pins_are_usage_errors(entry: str) -> None:
    with pytest.raises(UsageError, match="the resolve pin") as caught:
        parse_resolve_pins([entry])
    assert error_text(caught.value).startswith("--resolve ")  # the CLI names its flag


async def test_pins_win_over_the_fallback_for_their_port_only(
    client_for: ClientFactory, backend: RecordingBackend
) -> None:
    fallback = FakeResolver({"example.com": [ips(OTHER_PUBLIC_IP)]})
    pinned = PinnedResolver(parse_resolve_pins([f"example.com:443:{PUBLIC_IP}"]), fallback)
    backend.serve(PUBLIC_IP, 443, http_reply(200, b"pinned"))
    backend.serve(OTHER_PUBLIC_IP, 80, http_reply(200, b"dns"))
    async with make_client(Settings().net, resolver=pinned, network_backend=backend) as client:
        assert (await client.get("https://example.com/")).content == b"pinned"
        assert (await client.get("http://example.com/")).content == b"dns"
    assert fallback.lookups == [("example.com", 80)]
    assert backend.attempts[0].sni == "example.com"


async def test_a_pin_to_a_private_address_is_still_vetted(backend: RecordingBackend) -> None:
    pinned = PinnedResolver(parse_resolve_pins(["example.com:443:127.0.0.1"]), FakeResolver())
    async with make_client(Settings().net, resolver=pinned, network_backend=backend) as client:
        with pytest.raises(BlockedError, match=r"example\.com resolves to 127\.0\.0\.1"):
            await client.get("https://example.com/")
    assert backend.attempts == []


async def test_a_pin_into_an_allowlisted_network_connects(backend: RecordingBackend) -> None:
    pinned = PinnedResolver(parse_resolve_pins(["app.example.org:8000:127.0.0.1"]), FakeResolver())
    backend.serve("127.0.0.1", 8000, http_reply(200, b"local app"))
    settings = Settings(allow_hosts=["127.0.0.1:8000"])
    async with make_client(settings.net, resolver=pinned, network_backend=backend) as client:
        assert (await client.get("http://app.example.org:8000/")).content == b"local app"
    assert backend.attempts[0].host_header == "app.example.org:8000"


@pytest.mark.parametrize(("host", "address"), [("127.0.0.1", "127.0.0.1"), ("::1", "::1")])
async def test_system_resolver_answers_numeric_hosts_without_dns(host: str, address: str) -> None:
    expected = [ipaddress.ip_address(address)]
    assert await SystemResolver().resolve(host, 80) == expected
    assert SystemResolver().resolve_sync(host, 80) == expected


def test_sync_client_refuses_and_rebinds_like_the_async_one(
    sync_client_for: SyncClientFactory,
    sync_backend: SyncRecordingBackend,
    resolver: FakeResolver,
) -> None:
    resolver.add("rebind.example.org", ips(PUBLIC_IP), ips("10.0.0.1"))
    sync_backend.serve(PUBLIC_IP, 443, http_reply(200, b"first"))
    client = sync_client_for()
    response = client.get("https://rebind.example.org/")
    assert response.content == b"first"
    assert sync_backend.attempts[0].sni == "rebind.example.org"
    with pytest.raises(BlockedError, match="RFC 1918"):
        client.get("https://rebind.example.org/")
    with pytest.raises(BlockedError, match="loopback"):
        client.get("http://[::1]/")
    with pytest.raises(BlockedError, match="local host name"):
        client.get("http://localhost/")
    assert sync_backend.dialled == [(PUBLIC_IP, 443)]


def test_sync_client_follows_the_same_redirect_rules(
    sync_client_for: SyncClientFactory,
    sync_backend: SyncRecordingBackend,
    resolver: FakeResolver,
) -> None:
    resolver.add("example.com", ips(PUBLIC_IP))
    sync_backend.serve(PUBLIC_IP, 443, http_reply(302, headers={"Location": "http://example.com/"}))
    with pytest.raises(BlockedError, match="redirect from https to http"):
        sync_client_for().get("https://example.com/")
    assert sync_backend.dialled == [(PUBLIC_IP, 443)]


async def test_unix_sockets_are_refused(backend: RecordingBackend) -> None:
    connector = _AsyncConnector(backend, FakeResolver(), Guard(Settings().net), trusted=False)
    with pytest.raises(BlockedError, match="unix socket"):
        await connector.connect_unix_socket("/var/run/docker.sock")


def test_httpx_error_types_survive_the_transport(
    sync_client_for: SyncClientFactory, resolver: FakeResolver
) -> None:
    resolver.add("down.example.org", ips(PUBLIC_IP))  # no server behind it
    with pytest.raises(httpx.ConnectError, match="connection refused"):
        sync_client_for().get("http://down.example.org/")
