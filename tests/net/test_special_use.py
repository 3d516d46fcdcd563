"""The guard's last gaps: the IANA registries as a whole, port 0, and private-use names.

Every case runs through a real client on the scripted resolver and the
recording socket layer, so each test asserts what was decided and that
nothing was dialled (and, for names refused by name, nothing looked up).
The registry rows below were transcribed from the IANA IPv4 and IPv6
Special-Purpose Address Registries independently of ``sleuth.net.special``.
"""

from __future__ import annotations

import ipaddress

import httpx
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from sleuth.config import Settings
from sleuth.errors import BlockedError, UsageError
from sleuth.net import Guard, blocked_reason
from sleuth.net.special import IPV4_BLOCKS, IPV6_BLOCKS, SPECIAL_DOMAINS

from .conftest import ClientFactory, SyncClientFactory
from .fakes import FakeResolver, RecordingBackend, SyncRecordingBackend, http_reply, ips, redirect

PUBLIC_IP = "93.184.216.34"

# (block, RFC) for every entry of both registries.
IANA_IPV4 = [
    ("0.0.0.0/8", "RFC 791"),
    ("0.0.0.0/32", "RFC 1122"),
    ("10.0.0.0/8", "RFC 1918"),
    ("100.64.0.0/10", "RFC 6598"),
    ("127.0.0.0/8", "RFC 1122"),
    ("169.254.0.0/16", "RFC 3927"),
    ("172.16.0.0/12", "RFC 1918"),
    ("192.0.0.0/24", "RFC 6890"),
    ("192.0.0.0/29", "RFC 7335"),
    ("192.0.0.8/32", "RFC 7600"),
    ("192.0.0.9/32", "RFC 7723"),
    ("192.0.0.10/32", "RFC 8155"),
    ("192.0.0.170/32", "RFC 8880"),
    ("192.0.0.171/32", "RFC 8880"),
    ("192.0.2.0/24", "RFC 5737"),
    ("192.31.196.0/24", "RFC 7535"),
    ("192.52.193.0/24", "RFC 7450"),
    ("192.88.99.0/24", "RFC 7526"),
    ("192.88.99.2/32", "RFC 6751"),
    ("192.168.0.0/16", "RFC 1918"),
    ("192.175.48.0/24", "RFC 7534"),
    ("198.18.0.0/15", "RFC 2544"),
    ("198.51.100.0/24", "RFC 5737"),
    ("203.0.113.0/24", "RFC 5737"),
    ("240.0.0.0/4", "RFC 1112"),
    ("255.255.255.255/32", "RFC 8190"),
]
IANA_IPV6 = [
    ("::1/128", "RFC 4291"),
    ("::/128", "RFC 4291"),
    ("::ffff:0:0/96", "RFC 4291"),
    ("64:ff9b::/96", "RFC 6052"),
    ("64:ff9b:1::/48", "RFC 8215"),
    ("100::/64", "RFC 6666"),
    ("100:0:0:1::/64", "RFC 9780"),
    ("2001::/23", "RFC 2928"),
    ("2001::/32", "RFC 4380"),
    ("2001:1::1/128", "RFC 7723"),
    ("2001:1::2/128", "RFC 8155"),
    ("2001:1::3/128", "RFC 9665"),
    ("2001:2::/48", "RFC 5180"),
    ("2001:3::/32", "RFC 7450"),
    ("2001:4:112::/48", "RFC 7535"),
    ("2001:10::/28", "RFC 4843"),
    ("2001:20::/28", "RFC 7343"),
    ("2001:30::/28", "RFC 9374"),
    ("2001:db8::/32", "RFC 3849"),
    ("2002::/16", "RFC 3056"),
    ("2620:4f:8000::/48", "RFC 7534"),
    ("3fff::/20", "RFC 9637"),
    ("5f00::/16", "RFC 9602"),
    ("fc00::/7", "RFC 4193"),
    ("fe80::/10", "RFC 4291"),
]
# Blocks whose IPv4 address inside decides (the ways an IPv6 host reaches IPv4 sites).
TRANSLATING = {"::ffff:0:0/96", "64:ff9b::/96"}


def edges(network: str) -> list[str]:
    """The first, a middle and the last address of a block."""
    net = ipaddress.ip_network(network)
    picks = {net[0], net[net.num_addresses // 2], net[-1]}
    return [str(address) for address in sorted(picks)]


def literal(address: str) -> str:
    return f"[{address}]" if ":" in address else address


REGISTRY_ADDRESSES = [
    (address, network, rfc)
    for network, rfc in IANA_IPV4 + IANA_IPV6
    if network not in TRANSLATING
    for address in edges(network)
]


def test_the_tables_hold_every_registry_entry_with_its_rfc() -> None:
    ours = {(str(block.network), block.source) for block in (*IPV4_BLOCKS, *IPV6_BLOCKS)}
    for network, rfc in IANA_IPV4 + IANA_IPV6:
        sources = [source for net, source in ours if net == network]
        assert sources, f"{network} is missing"
        assert any(rfc in source for source in sources), (network, sources)
    for block in (*IPV4_BLOCKS, *IPV6_BLOCKS):
        assert block.source, block


@pytest.mark.parametrize(("address", "network", "rfc"), REGISTRY_ADDRESSES)
async def test_every_registry_block_is_refused_in_the_url(
    address: str,
    network: str,
    rfc: str,
    client_for: ClientFactory,
    backend: RecordingBackend,
    resolver: FakeResolver,
) -> None:
    backend.serve(address, 80, http_reply(200, b"inside"))
    with pytest.raises(BlockedError, match=r"\(.*RFC \d+") as caught:
        await client_for().get(f"http://{literal(address)}/")
    assert str(ipaddress.ip_address(address)) in caught.value.message
    assert backend.attempts == []
    assert resolver.lookups == []


@pytest.mark.parametrize(("address", "network", "rfc"), REGISTRY_ADDRESSES)
async def test_every_registry_block_is_refused_as_a_dns_answer(
    address: str,
    network: str,
    rfc: str,
    client_for: ClientFactory,
    backend: RecordingBackend,
    resolver: FakeResolver,
) -> None:
    resolver.add("innocent.example.com", ips(address))
    backend.serve(address, 443, http_reply(200, b"inside"))
    with pytest.raises(BlockedError, match=r"innocent\.example\.com resolves to"):
        await client_for().get("https://innocent.example.com/")
    assert resolver.lookups == [("innocent.example.com", 443)]
    assert backend.attempts == []


@pytest.mark.parametrize(
    ("address", "why"),
    [
        ("192.31.196.1", "AS112-v4 address (192.31.196.0/24, RFC 7535)"),
        ("192.175.48.1", "direct delegation AS112 address (192.175.48.0/24, RFC 7534)"),
        ("2001:4:112::1", "AS112-v6 address (2001:4:112::/48, RFC 7535)"),
        ("2620:4f:8000::1", "direct delegation AS112 address (2620:4f:8000::/48, RFC 7534)"),
        ("192.52.193.1", "AMT address (192.52.193.0/24, RFC 7450)"),
        ("2001:3::1", "AMT address (2001:3::/32, RFC 7450)"),
    ],
)
def test_globally_reachable_blocks_without_web_content_are_named(address: str, why: str) -> None:
    reason = blocked_reason(ipaddress.ip_address(address))
    assert reason is not None
    assert why in reason


@pytest.mark.parametrize(
    "address",
    ["::ffff:8.8.8.8", "64:ff9b::808:808", "::ffff:0:808:808", "::ffff:93.184.216.34"],
)
def test_translated_public_ipv4_addresses_stay_reachable(address: str) -> None:
    assert blocked_reason(ipaddress.ip_address(address)) is None


# --- port 0 and ports that do not exist -------------------------------------------------


@pytest.mark.parametrize(
    "url",
    [
        "http://example.com:0/",
        "https://example.com:0/x",
        "http://example.com:00/",
        "http://[2606:4700::1111]:0/",
    ],
)
async def test_port_0_is_a_bad_url_before_any_lookup(
    url: str, client_for: ClientFactory, backend: RecordingBackend, resolver: FakeResolver
) -> None:
    resolver.add("example.com", ips(PUBLIC_IP))
    backend.serve(PUBLIC_IP, 80, http_reply(200, b"dialled port 80"))
    with pytest.raises(UsageError, match="port 0 does not exist") as caught:
        await client_for(Settings(allow_hosts=["example.com:*"])).get(url)
    assert "1 to 65535" in caught.value.hint
    scheme = url.partition(":")[0]
    origin = f"{scheme}://[2606:4700::1111]:0" if "[" in url else f"{scheme}://example.com:0"
    assert caught.value.message.startswith(f"{origin} is not a valid URL")
    assert resolver.lookups == []
    assert backend.attempts == []


async def test_a_port_past_65535_is_a_bad_url(
    client_for: ClientFactory, backend: RecordingBackend, resolver: FakeResolver
) -> None:
    with pytest.raises(UsageError, match="port 65536 does not exist"):
        await client_for(Settings(allow_hosts=["example.com:*"])).get("http://example.com:65536/")
    assert resolver.lookups == []
    assert backend.attempts == []


def test_port_0_is_refused_by_the_sync_client_and_at_connect_time(
    sync_client_for: SyncClientFactory, sync_backend: SyncRecordingBackend, resolver: FakeResolver
) -> None:
    with pytest.raises(UsageError, match="port 0"):
        sync_client_for().get("http://example.com:0/")
    with pytest.raises(BlockedError, match="port 0 does not exist"):
        Guard(Settings(allow_hosts=["example.com:*"]).net).check_host("example.com", 0)
    assert resolver.lookups == []
    assert sync_backend.attempts == []


async def test_a_redirect_to_port_0_is_refused_at_the_hop(
    client_for: ClientFactory, backend: RecordingBackend, resolver: FakeResolver
) -> None:
    resolver.add("example.com", ips(PUBLIC_IP))
    backend.serve(PUBLIC_IP, 80, redirect("http://example.com:0/next"))
    with pytest.raises(UsageError, match="port 0"):
        await client_for().get("http://example.com/start")
    assert backend.dialled == [(PUBLIC_IP, 80)]


# --- special-use and private-use domain names -------------------------------------------

SPECIAL_NAMES: list[tuple[str, str]] = [
    ("db.internal", ".internal"),
    ("ip-10-0-0-12.ec2.internal", ".internal"),
    ("instance-1.us-central1-a.c.project.internal", ".internal"),
    ("DB.INTERNAL.", ".internal"),
    ("internal", ".internal"),
    ("printer.local", ".local"),
    ("nas.home.arpa", ".home.arpa"),
    ("1.0.0.127.in-addr.arpa", ".arpa"),
    ("box.localdomain", ".localdomain"),
    ("wiki.lan", ".lan"),
    ("portal.intranet", ".intranet"),
    ("hr.corp", ".corp"),
    ("router.home", ".home"),
    ("vault.private", ".private"),
    ("smtp.mail", ".mail"),
    ("nothing.invalid", ".invalid"),
    ("duckduckgogg42xjoc72x3sjasowoarfbgcmvfimaftt6twagswzczad.onion", ".onion"),
    ("name.alt", ".alt"),
    ("app.localhost", "local host name"),
    ("db", "single-label name"),
    ("intranet", ".intranet"),
]


@pytest.mark.parametrize(("host", "why"), SPECIAL_NAMES)
async def test_special_use_names_are_refused_by_name_before_any_lookup(
    host: str,
    why: str,
    client_for: ClientFactory,
    backend: RecordingBackend,
    resolver: FakeResolver,
) -> None:
    name = host.lower().rstrip(".")
    resolver.add(name, ips(PUBLIC_IP))  # a split-horizon resolver's public answer
    backend.serve(PUBLIC_IP, 80, http_reply(200, b"internal service"))
    with pytest.raises(BlockedError) as caught:
        await client_for().get(f"http://{host}/")
    assert why in caught.value.message
    assert resolver.lookups == []
    assert backend.attempts == []


@pytest.mark.parametrize(("host", "why"), SPECIAL_NAMES[:3])
def test_special_use_names_are_refused_by_the_sync_client(
    host: str,
    why: str,
    sync_client_for: SyncClientFactory,
    sync_backend: SyncRecordingBackend,
    resolver: FakeResolver,
) -> None:
    resolver.add(host.lower().rstrip("."), ips(PUBLIC_IP))
    with pytest.raises(BlockedError, match=why):
        sync_client_for().get(f"https://{host}/")
    assert resolver.lookups == []
    assert sync_backend.attempts == []


@pytest.mark.parametrize(
    "host",
    [
        "internal.example.com",
        "local.com",
        "corp.com",
        "test.org",
        "home.example.net",
        "example.com",
        "onion.to",
        "lan.party.example.org",
        "localhost.com",
        "arpa.example.com",
    ],
)
async def test_public_names_that_merely_contain_those_words_are_looked_up(
    host: str, client_for: ClientFactory, backend: RecordingBackend, resolver: FakeResolver
) -> None:
    resolver.add(host, ips(PUBLIC_IP))
    backend.serve(PUBLIC_IP, 443, http_reply(200, b"public"))
    assert (await client_for().get(f"https://{host}/")).content == b"public"
    assert resolver.lookups == [(host, 443)]
    assert backend.dialled == [(PUBLIC_IP, 443)]


@pytest.mark.parametrize(
    ("entry", "host", "answer"),
    [
        ("db.internal", "db.internal", PUBLIC_IP),
        ("db.internal", "db.internal", "10.1.2.3"),
        ("*.internal", "ip-10-0-0-12.ec2.internal", "10.0.0.12"),
        ("wiki.lan:80", "wiki.lan", "192.168.1.20"),
        ("intranet", "intranet", "10.9.9.9"),
    ],
)
async def test_an_allowlisted_name_is_looked_up_and_reached(
    entry: str,
    host: str,
    answer: str,
    client_for: ClientFactory,
    backend: RecordingBackend,
    resolver: FakeResolver,
) -> None:
    resolver.add(host, ips(answer))
    backend.serve(answer, 80, http_reply(200, b"inside"))
    client = client_for(Settings(allow_hosts=[entry]))
    assert (await client.get(f"http://{host}/")).content == b"inside"
    assert resolver.lookups == [(host, 80)]
    assert backend.dialled == [(answer, 80)]


async def test_an_allowlisted_name_does_not_open_its_siblings(
    client_for: ClientFactory, backend: RecordingBackend, resolver: FakeResolver
) -> None:
    resolver.add("cache.internal", ips(PUBLIC_IP))
    with pytest.raises(BlockedError, match=r"cache\.internal is a private-use name"):
        await client_for(Settings(allow_hosts=["db.internal"])).get("http://cache.internal/")
    assert resolver.lookups == []
    assert backend.attempts == []


async def test_an_allowlisted_network_lets_a_private_name_reach_that_network_only(
    client_for: ClientFactory, backend: RecordingBackend, resolver: FakeResolver
) -> None:
    resolver.add("db.internal", ips("10.1.2.3"))
    resolver.add("split.internal", ips(PUBLIC_IP))
    backend.serve("10.1.2.3", 80, http_reply(200, b"inside"))
    backend.serve(PUBLIC_IP, 80, http_reply(200, b"split horizon"))
    client = client_for(Settings(allow_hosts=["10.0.0.0/8"]))
    assert (await client.get("http://db.internal/")).content == b"inside"
    with pytest.raises(BlockedError) as caught:
        await client.get("http://split.internal/")
    assert f"split.internal is a private-use name (.internal, ICANN, 2024), and {PUBLIC_IP}" in (
        caught.value.message
    )
    assert backend.dialled == [("10.1.2.3", 80)]


async def test_a_redirect_into_a_private_domain_is_refused_at_the_hop(
    client_for: ClientFactory, backend: RecordingBackend, resolver: FakeResolver
) -> None:
    resolver.add("example.com", ips(PUBLIC_IP))
    resolver.add("metadata.compute.internal", ips(PUBLIC_IP))
    backend.serve(PUBLIC_IP, 80, redirect("http://metadata.compute.internal/computeMetadata/"))
    with pytest.raises(BlockedError, match=r"\.internal"):
        await client_for().get("http://example.com/")
    assert resolver.lookups == [("example.com", 80)]
    assert backend.dialled == [(PUBLIC_IP, 80)]


async def test_a_trusted_endpoint_may_use_a_private_name(
    client_for: ClientFactory, backend: RecordingBackend, resolver: FakeResolver
) -> None:
    resolver.add("gpu-box.local", ips("192.168.1.50"))
    backend.serve("192.168.1.50", 11434, http_reply(200, b"ollama"))
    client = client_for(trusted_urls=["http://gpu-box.local:11434"])
    assert (await client.get("http://gpu-box.local:11434/api/tags")).content == b"ollama"
    with pytest.raises(BlockedError, match=r"\.local"):
        await client.get("http://gpu-box.local/")


def test_every_special_domain_has_a_source() -> None:
    suffixes = [domain.suffix for domain in SPECIAL_DOMAINS]
    assert len(suffixes) == len(set(suffixes))
    for domain in SPECIAL_DOMAINS:
        assert domain.source, domain
        assert domain.label, domain
    for required in (
        "localhost",
        "local",
        "internal",
        "home.arpa",
        "localdomain",
        "lan",
        "intranet",
        "corp",
        "home",
        "private",
        "invalid",
        "onion",
        "alt",
    ):
        assert required in suffixes
    assert "test" not in suffixes  # RFC 6761 §6.2: not special to applications
    assert "example" not in suffixes  # RFC 6761 §6.5: likewise


# --- test. and example. are names like any other (RFC 6761 §6.2, §6.5) ------------------

DOCUMENTATION_NAMES = ["abc.123.example", "spa.example", "site.test", "WWW.Example."]


@pytest.mark.parametrize("host", DOCUMENTATION_NAMES)
async def test_example_and_test_names_are_looked_up_and_reached_on_a_public_address(
    host: str, client_for: ClientFactory, backend: RecordingBackend, resolver: FakeResolver
) -> None:
    name = host.lower().rstrip(".")
    resolver.add(name, ips(PUBLIC_IP))
    backend.serve(PUBLIC_IP, 443, http_reply(200, b"documentation site"))
    assert (await client_for().get(f"https://{host}/")).content == b"documentation site"
    assert resolver.lookups == [(name, 443)]
    assert backend.dialled == [(PUBLIC_IP, 443)]
    assert (backend.attempts[0].sni or "").rstrip(".") == name


@pytest.mark.parametrize(
    ("answer", "why"),
    [
        ("127.0.0.1", "a loopback address"),
        ("10.0.0.5", "a private-use address"),
        ("192.0.2.10", "a documentation address (TEST-NET-1)"),
        ("2001:db8::1", "a documentation address"),
    ],
)
async def test_example_and_test_names_are_judged_by_their_addresses(
    answer: str,
    why: str,
    client_for: ClientFactory,
    backend: RecordingBackend,
    resolver: FakeResolver,
) -> None:
    resolver.add("abc.123.example", ips(answer))
    resolver.add("app.test", ips(answer))
    backend.serve(answer, 443, http_reply(200, b"inside"))
    client = client_for()
    for host in ("abc.123.example", "app.test"):
        with pytest.raises(BlockedError) as caught:
            await client.get(f"https://{host}/")
        assert f"{host} resolves to {answer}, which is {why}" in caught.value.message
    assert resolver.lookups == [("abc.123.example", 443), ("app.test", 443)]
    assert backend.attempts == []


def test_example_and_test_names_pass_the_lookup_free_rules() -> None:
    guard = Guard(Settings().net)
    assert guard.check_host("abc.123.example", 443) == "abc.123.example"
    assert guard.check_host("site.test", 80) == "site.test"
    assert guard.check_url("https://spa.example/").host == "spa.example"
    with pytest.raises(BlockedError, match="single-label name"):
        guard.check_host("example", 443)  # a bare TLD is still a single-label name
    with pytest.raises(BlockedError, match="not allowed"):
        guard.check_host("site.test", 8080)  # ports are judged as for any name


@pytest.mark.parametrize(("host", "why"), SPECIAL_NAMES)
def test_the_connect_time_check_refuses_the_same_names(host: str, why: str) -> None:
    with pytest.raises(BlockedError, match=why.replace(".", r"\.")):
        Guard(Settings().net).check_host(host, 443)
    assert Guard(Settings(allow_hosts=[host.rstrip(".")]).net).check_host(host, 443) == (
        host.lower().rstrip(".")
    )


def test_check_url_refuses_a_private_name_with_the_rule() -> None:
    with pytest.raises(BlockedError) as caught:
        Guard(Settings().net).check_url(httpx.URL("https://db.internal/admin"))
    assert caught.value.url == "https://db.internal/admin"
    assert "refused before any lookup" in caught.value.message


# --- nothing the standard library calls non-global slips through ------------------------


@given(st.integers(min_value=0, max_value=2**32 - 1))
def test_every_ipv4_address_python_calls_non_global_is_blocked(value: int) -> None:
    address = ipaddress.IPv4Address(value)
    if not address.is_global or address.is_multicast:
        assert blocked_reason(address) is not None


@given(st.integers(min_value=0, max_value=2**128 - 1))
@example(int(ipaddress.IPv6Address("2001:4:112::1")))
@example(int(ipaddress.IPv6Address("fec0::1")))
@example(int(ipaddress.IPv6Address("::ffff:8.8.8.8")))
@example(int(ipaddress.IPv6Address("::ffff:10.0.0.1")))
@example(int(ipaddress.IPv6Address("64:ff9b::a00:1")))
@example(int(ipaddress.IPv6Address("64:ff9b::808:808")))
@example(int(ipaddress.IPv6Address("2606:4700::1111")))
def test_every_ipv6_address_python_calls_non_global_is_blocked(value: int) -> None:
    address = ipaddress.IPv6Address(value)
    translating = any(address in ipaddress.IPv6Network(net) for net in TRANSLATING)
    if translating:  # judged by the IPv4 address inside, as above
        inner = ipaddress.IPv4Address(value & 0xFFFFFFFF)
        assert (blocked_reason(address) is None) == (blocked_reason(inner) is None)
    elif not address.is_global or address.is_multicast or address.is_site_local:
        assert blocked_reason(address) is not None
