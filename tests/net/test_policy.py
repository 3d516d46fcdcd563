"""URL rules (scheme, credentials, ports), the operator allowlist and trusted origins."""

from __future__ import annotations

import logging

import httpx
import pytest

from sleuth.config import Settings
from sleuth.errors import BlockedError, ConfigError
from sleuth.net import AsyncSafeTransport, Guard

from .conftest import ClientFactory
from .fakes import FakeResolver, RecordingBackend, http_reply, ips

PUBLIC_IP = "93.184.216.34"


@pytest.fixture(autouse=True)
def public_site(resolver: FakeResolver, backend: RecordingBackend) -> None:
    resolver.add("example.com", ips(PUBLIC_IP))
    for port in (80, 443, 8080, 8443):
        backend.serve(PUBLIC_IP, port, http_reply(200, b"public"))


@pytest.mark.parametrize(
    "url",
    [
        "ftp://example.com/file",
        "file:///etc/passwd",
        "gopher://example.com/",
        "ws://example.com/socket",
        "wss://example.com/socket",
        "data:text/plain,hello",
        "javascript:alert(1)",
        "dict://example.com:11211/",
        "/relative/path",
    ],
)
async def test_only_http_and_https_are_allowed(
    url: str, backend: RecordingBackend, resolver: FakeResolver
) -> None:
    transport = AsyncSafeTransport(Settings().net, resolver=resolver, network_backend=backend)
    with pytest.raises(BlockedError, match="scheme is refused; use http or https"):
        await transport.handle_async_request(httpx.Request("GET", url))
    with pytest.raises(BlockedError):
        Guard(Settings().net).check_url(url)
    assert resolver.lookups == []
    assert backend.attempts == []


@pytest.mark.parametrize(
    "url",
    [
        "http://user:secret@example.com/",
        "http://user@example.com/",
        "https://:secret@example.com/",
        "http://example.com@127.0.0.1/",
        "https://user%40corp:pw@example.com/",
    ],
)
async def test_credentials_in_urls_are_refused(
    url: str, client_for: ClientFactory, backend: RecordingBackend, resolver: FakeResolver
) -> None:
    with pytest.raises(BlockedError, match="credentials") as caught:
        await client_for().get(url)
    assert "secret" not in str(caught.value)
    assert "@" not in (caught.value.url or "").split("/")[2]
    assert resolver.lookups == []
    assert backend.attempts == []


@pytest.mark.parametrize(
    "url",
    [
        "http://example.com:8080/",
        "https://example.com:8443/",
        "http://example.com:22/",
        "http://example.com:6379/",
        "http://example.com:65535/",
        "http://example.com:1/",
    ],
)
async def test_ports_other_than_80_and_443_are_refused_before_a_lookup(
    url: str, client_for: ClientFactory, backend: RecordingBackend, resolver: FakeResolver
) -> None:
    with pytest.raises(BlockedError, match=r"port \d+ of example\.com is not allowed"):
        await client_for().get(url)
    assert resolver.lookups == []
    assert backend.attempts == []


@pytest.mark.parametrize(
    ("url", "port"),
    [
        ("http://example.com/", 80),
        ("https://example.com/", 443),
        ("http://example.com:443/", 443),
        ("https://example.com:80/", 80),
    ],
)
async def test_ports_80_and_443_are_open_for_either_scheme(
    url: str, port: int, client_for: ClientFactory, backend: RecordingBackend
) -> None:
    assert (await client_for().get(url)).content == b"public"
    assert backend.dialled == [(PUBLIC_IP, port)]


async def test_allow_ports_adds_ports_for_public_hosts_only(
    client_for: ClientFactory, backend: RecordingBackend
) -> None:
    client = client_for(Settings(allow_ports=[8080]))
    assert (await client.get("http://example.com:8080/")).status_code == 200
    assert (await client.get("http://example.com/")).status_code == 200
    with pytest.raises(BlockedError, match="loopback"):
        await client.get("http://127.0.0.1:8080/")
    assert backend.dialled == [(PUBLIC_IP, 8080), (PUBLIC_IP, 80)]


# (allow_hosts entry, URL, DNS answers for the URL's name or None, outcome)
ALLOWLIST: list[tuple[str, str, list[str] | None, str]] = [
    ("127.0.0.1:*", "http://127.0.0.1:8765/", None, "allowed"),
    ("127.0.0.1:*", "http://127.0.0.1/", None, "allowed"),
    ("127.0.0.1:*", "http://127.0.0.2:8765/", None, "loopback"),
    ("127.0.0.1:8765", "http://127.0.0.1:8765/", None, "allowed"),
    ("127.0.0.1:8765", "http://127.0.0.1:8766/", None, "port 8766"),
    ("127.0.0.1", "http://127.0.0.1/", None, "allowed"),
    ("127.0.0.1", "http://127.0.0.1:8765/", None, "port 8765"),
    ("localhost:8080", "http://localhost:9000/", ["127.0.0.1"], "port 9000"),
    ("127.0.0.0/8", "http://127.9.9.9/", None, "allowed"),
    ("10.0.0.0/8", "http://intranet.example.org/", ["10.1.2.3"], "allowed"),
    ("10.0.0.0/8", "http://intranet.example.org:8080/", ["10.1.2.3"], "port 8080"),
    ("10.0.0.0/8", "http://intranet.example.org/", ["10.1.2.3", "192.168.1.1"], "192.168.1.1"),
    ("10.0.0.0/8:8080", "http://intranet.example.org:8080/", ["10.1.2.3"], "allowed"),
    ("10.0.0.0/8:8080", "http://example.com:8080/", [PUBLIC_IP], "port 8080"),
    ("10.1.2.3/8", "http://intranet.example.org/", ["10.200.0.1"], "allowed"),
    ("intranet.example.org", "http://intranet.example.org/", ["10.1.2.3"], "allowed"),
    ("intranet.example.org", "http://other.example.org/", ["10.1.2.3"], "private"),
    ("intranet.example.org", "http://intranet.example.org:8443/", ["10.1.2.3"], "port 8443"),
    ("intranet.example.org:8443", "https://intranet.example.org:8443/", ["10.1.2.3"], "allowed"),
    ("INTRANET.example.org.", "http://intranet.example.org/", ["10.1.2.3"], "allowed"),
    ("*.corp.example.org", "http://wiki.corp.example.org/", ["10.1.2.3"], "allowed"),
    ("*.corp.example.org", "http://corp.example.org/", ["10.1.2.3"], "private"),
    ("*.corp.example.org", "http://evilcorp.example.org/", ["10.1.2.3"], "private"),
    ("localhost:*", "http://localhost:9000/", ["127.0.0.1"], "allowed"),
    ("localhost", "http://localhost:9000/", ["127.0.0.1"], "port 9000"),
    ("[::1]:8080", "http://[::1]:8080/", None, "allowed"),
    ("::1", "http://[::1]/", None, "allowed"),
    ("fd00::/8", "http://[fd12::1]/", None, "allowed"),
    ("[fd00::]/8:*", "http://[fd12::1]:9999/", None, "allowed"),
    ("[fd00::]/8:*", "http://[fc00::1]:9999/", None, "unique-local"),
    ("169.254.169.254", "http://169.254.169.254/latest/", None, "allowed"),
]


@pytest.mark.parametrize(("entry", "url", "answers", "outcome"), ALLOWLIST)
async def test_allowlist_entries(
    entry: str,
    url: str,
    answers: list[str] | None,
    outcome: str,
    client_for: ClientFactory,
    backend: RecordingBackend,
    resolver: FakeResolver,
) -> None:
    target = httpx.URL(url)
    addresses = answers or [target.host]
    if answers is not None:
        resolver.add(target.host, ips(*answers))
    for address in addresses:
        backend.serve(address, target.port or 80, http_reply(200, b"inside"))
    client = client_for(Settings(allow_hosts=[entry]))
    if outcome == "allowed":
        assert (await client.get(url)).content == b"inside"
        assert backend.dialled == [(addresses[0], target.port or 80)]
        return
    with pytest.raises(BlockedError, match=outcome):
        await client.get(url)
    assert backend.attempts == []


@pytest.mark.parametrize(
    "entry",
    ["10.0.0.0/33", "example.com:99999", "example.com:http", "*.10.0.0.1", "bad host", "1.2.3.4.5"],
)
def test_malformed_allowlist_entries_are_config_errors(entry: str) -> None:
    with pytest.raises(ConfigError, match="allow_hosts entry"):
        Guard(Settings(allow_hosts=[entry]).net)


async def test_every_answer_is_vetted_not_only_the_first(
    client_for: ClientFactory, backend: RecordingBackend, resolver: FakeResolver
) -> None:
    resolver.add("mixed.example.org", ips(PUBLIC_IP, "10.0.0.1"))
    with pytest.raises(BlockedError, match=r"mixed\.example\.org resolves to 10\.0\.0\.1"):
        await client_for().get("http://mixed.example.org/")
    assert backend.attempts == []


async def test_the_next_vetted_answer_is_tried_when_one_refuses(
    client_for: ClientFactory, backend: RecordingBackend, resolver: FakeResolver
) -> None:
    resolver.add("two.example.org", ips("2606:4700::1", PUBLIC_IP))  # the IPv6 one has no server
    assert (await client_for().get("http://two.example.org/")).content == b"public"
    assert backend.dialled == [("2606:4700::1", 80), (PUBLIC_IP, 80)]


async def test_a_name_that_does_not_resolve_is_a_connect_error(
    client_for: ClientFactory, backend: RecordingBackend
) -> None:
    with pytest.raises(httpx.ConnectError, match=r"cannot resolve nowhere\.example\.org"):
        await client_for().get("http://nowhere.example.org/")
    assert backend.attempts == []


SEARX = "http://127.0.0.1:8888"


async def test_a_trusted_origin_is_reachable_by_its_own_client_only(
    client_for: ClientFactory, backend: RecordingBackend
) -> None:
    backend.serve("127.0.0.1", 8888, http_reply(200, b"results"))
    trusting = client_for(trusted_urls=[SEARX + "/search"])
    assert (await trusting.get(SEARX + "/search?q=x")).content == b"results"
    with pytest.raises(BlockedError, match="loopback"):
        await client_for().get(SEARX + "/search?q=x")
    assert backend.dialled == [("127.0.0.1", 8888)]


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:8889/",
        "https://127.0.0.1:8888/",
        "http://127.0.0.2:8888/",
        "http://localhost:8888/",
    ],
)
async def test_trust_covers_the_exact_origin_only(
    url: str, client_for: ClientFactory, backend: RecordingBackend
) -> None:
    with pytest.raises(BlockedError):
        await client_for(trusted_urls=[SEARX]).get(url)
    assert backend.attempts == []


async def test_a_trusted_name_may_resolve_to_a_private_address_and_carry_credentials(
    client_for: ClientFactory, backend: RecordingBackend, resolver: FakeResolver
) -> None:
    resolver.add("searx.lan", ips("192.168.1.5"))
    backend.serve("192.168.1.5", 8080, http_reply(200, b"ok"))
    client = client_for(trusted_urls=["http://user:pw@SEARX.lan:8080/"])
    assert (await client.get("http://user:pw@searx.lan:8080/search")).content == b"ok"
    assert backend.attempts[0].host_header == "searx.lan:8080"
    assert b"Authorization: Basic" in backend.attempts[0].request


async def test_a_trusted_local_name_is_looked_up(
    client_for: ClientFactory, backend: RecordingBackend, resolver: FakeResolver
) -> None:
    resolver.add("localhost", ips("127.0.0.1"))
    backend.serve("127.0.0.1", 11434, http_reply(200, b"ollama"))
    client = client_for(trusted_urls=["http://localhost:11434"])
    assert (await client.get("http://localhost:11434/api/tags")).content == b"ollama"
    assert resolver.lookups == [("localhost", 11434)]


@pytest.mark.parametrize("url", ["ftp://searx.lan/", "not a url", "http://[::1/"])
def test_malformed_trusted_urls_are_config_errors(url: str) -> None:
    with pytest.raises(ConfigError, match="trusted endpoint"):
        Guard(Settings().net, trusted_urls=[url])


async def test_refusals_are_logged_as_blocked_events(
    client_for: ClientFactory, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO, logger="sleuth"), pytest.raises(BlockedError):
        await client_for().get("http://10.0.0.1/admin")
    (record,) = [r for r in caplog.records if r.getMessage() == "blocked"]
    fields = record.__dict__["fields"]
    assert fields["url"] == "http://10.0.0.1/admin"
    assert fields["reason"] == "10.0.0.1 is a private-use address (10.0.0.0/8, RFC 1918)"


def test_check_url_describes_the_destination() -> None:
    guard = Guard(Settings().net, trusted_urls=["http://127.0.0.1:8888"])
    public = guard.check_url("https://Example.com/a")
    assert (public.host, public.port, public.trusted) == ("example.com", 443, False)
    trusted = guard.check_url("http://127.0.0.1:8888/search")
    assert trusted.trusted
    assert trusted.url == "http://127.0.0.1:8888/search"
