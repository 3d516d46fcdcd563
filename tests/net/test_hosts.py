"""Host strings read the way the system resolver reads them, before any lookup."""

from __future__ import annotations

import ipaddress

import httpx
import pytest

from sleuth.config import Settings
from sleuth.errors import BlockedError, UsageError
from sleuth.net import Guard, parse_host

from .conftest import ClientFactory
from .fakes import FakeResolver, RecordingBackend, http_reply, ips

# (URL, the address the host really is, words the refusal must contain)
NUMERIC_TRICKS: list[tuple[str, str, str]] = [
    ("http://2130706433/", "127.0.0.1", "loopback"),
    ("http://017700000001/", "127.0.0.1", "loopback"),
    ("http://0x7f.0.0.1/", "127.0.0.1", "loopback"),
    ("http://0x7f000001/", "127.0.0.1", "loopback"),
    ("http://0X7F.1/", "127.0.0.1", "loopback"),
    ("http://0x7f.0x0.0x0.0x1/", "127.0.0.1", "loopback"),
    ("http://127.1/", "127.0.0.1", "loopback"),
    ("http://127.0.1/", "127.0.0.1", "loopback"),
    ("http://127.0.0.1./", "127.0.0.1", "loopback"),
    ("http://0/", "0.0.0.0", "this network"),
    ("http://0x/", "0.0.0.0", "this network"),
    ("http://0xa9fea9fe/", "169.254.169.254", "cloud metadata"),
    ("http://2852039166/", "169.254.169.254", "cloud metadata"),
    ("http://169.254.43518/", "169.254.169.254", "cloud metadata"),
    ("http://10.1/", "10.0.0.1", "RFC 1918"),
    ("http://192.168.257/", "192.168.1.1", "RFC 1918"),
    ("http://0300.0250.1/", "192.168.0.1", "RFC 1918"),
    ("http://%31%32%37.0.0.1/", "127.0.0.1", "loopback"),
    ("http://%30x7f.1/", "127.0.0.1", "loopback"),
    ("http://127%2e0%2e0%2e1/", "127.0.0.1", "loopback"),
    ("http://127。0。0。1/", "127.0.0.1", "loopback"),
    ("http://127．0．0．1/", "127.0.0.1", "loopback"),
    ("http://127｡0｡0｡1/", "127.0.0.1", "loopback"),
    ("http://[::ffff:127.0.0.1]/", "::ffff:7f00:1", "IPv4-mapped address of 127.0.0.1"),
    ("http://[::ffff:7f00:1]/", "::ffff:7f00:1", "IPv4-mapped address of 127.0.0.1"),
    ("http://[0:0:0:0:0:ffff:7f00:1]/", "::ffff:7f00:1", "IPv4-mapped"),
    ("http://[::ffff:7f00:0001]/", "::ffff:7f00:1", "IPv4-mapped"),
    ("http://[::FFFF:A9FE:A9FE]/", "::ffff:a9fe:a9fe", "cloud metadata"),
    ("http://[fe80::1%25eth0]/", "fe80::1%eth0", "link-local"),
    ("http://[::1%25lo]/", "::1%lo", "loopback"),
    ("http://[::ffff:127.0.0.1%25eth0]/", "::ffff:7f00:1%eth0", "IPv4-mapped"),
    ("http://[0::1]/", "::1", "loopback"),
]

LOCAL_NAMES = [
    "localhost",
    "localhost.",
    "LOCALHOST",
    "LocalHost.",
    "lo%63alhost",
    "localhost%2e",
    "foo.localhost",
    "a.b.localhost.",
    "localhost.localdomain",
    "localhost4",
    "localhost6",
    "localhost6.localdomain6",
    "ip6-localhost",
    "ip6-loopback",
    "ip6-allnodes",
    "broadcasthost",
    "metadata",
    "metadata.google.internal",
    "metadata.google.internal.",
    "instance-data",
    "instance-data.ec2.internal",
]

# Forms httpx refuses to parse: the request never starts, and whatever still
# hands such a string to the guard gets the right decision.
UNPARSED_BY_HTTPX: list[tuple[str, str]] = [
    ("0177.0.0.1", "127.0.0.1"),
    ("0251.0376.0251.0376", "169.254.169.254"),
    ("１２７.０.０.１", "127.0.0.1"),
    ("①②⑦.0.0.1", "127.0.0.1"),
    ("０ｘ７ｆ.１", "127.0.0.1"),
    ("012.0.0.1", "10.0.0.1"),
    ("0300.0250.0.1", "192.168.0.1"),
    ("ｌｏｃａｌｈｏｓｔ", "localhost"),
]

INVALID_HOSTS = [
    "1.2.3.4.5",
    "127..1",
    "256.256",
    "0x100000000",
    "4294967296",
    "1.08",
    "a%20b",
    "a..b",
    "%ff.example.com",
    "-" * 64 + ".example",
]


@pytest.mark.parametrize(("url", "address", "fragment"), NUMERIC_TRICKS)
async def test_numeric_host_tricks_are_read_as_addresses_and_refused(
    url: str,
    address: str,
    fragment: str,
    client_for: ClientFactory,
    backend: RecordingBackend,
    resolver: FakeResolver,
) -> None:
    raw_host = httpx.URL(url).raw_host.decode()
    assert parse_host(raw_host) == ipaddress.ip_address(address)
    with pytest.raises(BlockedError) as caught:
        await client_for().get(url)
    assert fragment in caught.value.message
    assert backend.attempts == []
    assert resolver.lookups == []


@pytest.mark.parametrize("host", LOCAL_NAMES)
async def test_local_names_are_refused_without_a_lookup(
    host: str, client_for: ClientFactory, backend: RecordingBackend, resolver: FakeResolver
) -> None:
    resolver.add(parse_host(host), ips("93.184.216.34"))  # even a public answer is not asked for
    with pytest.raises(BlockedError, match=r"(local|cloud metadata) host name"):
        await client_for().get(f"http://{host}/")
    assert resolver.lookups == []
    assert backend.attempts == []


@pytest.mark.parametrize(("host", "meaning"), UNPARSED_BY_HTTPX)
async def test_hosts_httpx_rejects_never_connect_and_the_guard_reads_them(
    host: str, meaning: str, client_for: ClientFactory, backend: RecordingBackend
) -> None:
    with pytest.raises(httpx.InvalidURL):
        await client_for().get(f"http://{host}/")
    assert backend.attempts == []
    guard = Guard(Settings().net)
    with pytest.raises(UsageError):
        guard.check_url(f"http://{host}/")
    parsed = parse_host(host)
    assert str(parsed) == meaning
    with pytest.raises(BlockedError, match=r"loopback|RFC 1918|metadata|local host name"):
        guard.check_host(host, 80)


@pytest.mark.parametrize("host", INVALID_HOSTS)
async def test_malformed_hosts_are_refused(
    host: str, client_for: ClientFactory, backend: RecordingBackend, resolver: FakeResolver
) -> None:
    with pytest.raises(ValueError):
        parse_host(host)
    with pytest.raises(BlockedError):
        Guard(Settings().net).check_host(host, 80)
    try:
        url = httpx.URL(f"http://{host}/")
    except httpx.InvalidURL:
        return  # httpx refuses it first; nothing can be sent
    with pytest.raises(BlockedError):
        await client_for().get(url)
    assert resolver.lookups == []
    assert backend.attempts == []


@pytest.mark.parametrize(
    ("url", "looked_up", "host_header"),
    [
        ("https://Example.COM./x", "example.com", "example.com."),
        ("https://exämple.com/x", "xn--exmple-cua.com", "xn--exmple-cua.com"),
        ("https://EXÄMPLE.com/x", "xn--exmple-cua.com", "xn--exmple-cua.com"),
        ("https://bücher.example.com/x", "xn--bcher-kva.example.com", "xn--bcher-kva.example.com"),
        ("https://127.0.0.1.nip.io/x", "127.0.0.1.nip.io", "127.0.0.1.nip.io"),
    ],
)
async def test_names_are_normalised_once_and_looked_up(
    url: str,
    looked_up: str,
    host_header: str,
    client_for: ClientFactory,
    backend: RecordingBackend,
    resolver: FakeResolver,
) -> None:
    resolver.add(looked_up, ips("93.184.216.34"))
    backend.serve("93.184.216.34", 443, http_reply(200, b"ok"))
    response = await client_for().get(url)
    assert response.status_code == 200
    assert resolver.lookups == [(looked_up, 443)]
    assert backend.dialled == [("93.184.216.34", 443)]
    assert backend.attempts[0].host_header == host_header
    assert backend.attempts[0].sni == host_header


async def test_a_name_that_spells_a_private_address_is_vetted_by_its_answer(
    client_for: ClientFactory, backend: RecordingBackend, resolver: FakeResolver
) -> None:
    resolver.add("127.0.0.1.nip.io", ips("127.0.0.1"))
    with pytest.raises(BlockedError, match=r"127\.0\.0\.1\.nip\.io resolves to 127\.0\.0\.1"):
        await client_for().get("http://127.0.0.1.nip.io/")
    assert backend.attempts == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("example.com", "example.com"),
        ("EXAMPLE.com.", "example.com"),
        ("[2606:4700::1111]", ipaddress.ip_address("2606:4700::1111")),
        ("8.8.8.8", ipaddress.ip_address("8.8.8.8")),
        ("134744072", ipaddress.ip_address("8.8.8.8")),
        ("0x8.0x8.0x8.0x8", ipaddress.ip_address("8.8.8.8")),
        ("010.010.010.010", ipaddress.ip_address("8.8.8.8")),
        ("_dmarc.example.com", "_dmarc.example.com"),
        ("xn--exmple-cua.com", "xn--exmple-cua.com"),
        ("1.2.3.example.com", "1.2.3.example.com"),
        ("0x1g.example.com", "0x1g.example.com"),
    ],
)
def test_parse_host_reads_names_and_public_addresses(
    text: str, expected: ipaddress.IPv4Address | ipaddress.IPv6Address | str
) -> None:
    assert parse_host(text) == expected
