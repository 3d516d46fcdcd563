"""Every non-public range, metadata address and IPv6 embedding, through the transport.

Each address is tried twice: written in the URL, and as the DNS answer for a
name. Blocked ones must fail with the reason and without any connection
attempt; public ones must connect to exactly that address.
"""

from __future__ import annotations

import ipaddress

import pytest

from sleuth.errors import BlockedError
from sleuth.net import blocked_reason

from .conftest import ClientFactory
from .fakes import FakeResolver, RecordingBackend, http_reply, ips

BLOCKED: list[tuple[str, str]] = [
    # IPv4 special-purpose ranges
    ("0.0.0.0", "this host on this network"),
    ("0.1.2.3", "this network"),
    ("10.0.0.1", "private-use address (10.0.0.0/8, RFC 1918)"),
    ("10.255.255.255", "RFC 1918"),
    ("100.64.0.1", "CGNAT"),
    ("100.127.255.254", "CGNAT"),
    ("127.0.0.1", "loopback"),
    ("127.255.255.254", "loopback"),
    ("169.254.0.1", "link-local"),
    ("169.254.255.254", "link-local"),
    ("172.16.0.1", "RFC 1918"),
    ("172.31.255.255", "RFC 1918"),
    ("192.0.0.1", "IPv4 service continuity address (192.0.0.0/29, RFC 7335)"),
    ("192.0.0.8", "IPv4 dummy address (RFC 7600)"),
    ("192.0.0.9", "Port Control Protocol anycast"),
    ("192.0.0.10", "TURN anycast"),
    ("192.0.0.100", "IETF protocol assignment (192.0.0.0/24, RFC 6890)"),
    ("192.0.0.170", "NAT64/DNS64 discovery"),
    ("192.0.0.171", "NAT64/DNS64 discovery"),
    ("192.0.2.1", "TEST-NET-1"),
    ("192.88.99.1", "6to4 relay"),
    ("192.88.99.2", "6a44 relay anycast address (RFC 6751)"),
    # globally reachable in the registry, but no web content lives there
    ("192.31.196.1", "AS112-v4 address (192.31.196.0/24, RFC 7535)"),
    ("192.31.196.255", "AS112-v4"),
    ("192.52.193.1", "AMT address (192.52.193.0/24, RFC 7450)"),
    ("192.175.48.1", "direct delegation AS112 address (192.175.48.0/24, RFC 7534)"),
    ("192.175.48.6", "AS112"),
    ("192.168.0.1", "RFC 1918"),
    ("192.168.255.254", "RFC 1918"),
    ("198.18.0.1", "benchmarking"),
    ("198.19.255.255", "benchmarking"),
    ("198.51.100.7", "TEST-NET-2"),
    ("203.0.113.9", "TEST-NET-3"),
    ("224.0.0.1", "multicast"),
    ("233.252.0.1", "multicast"),
    ("239.255.255.250", "multicast"),
    ("240.0.0.1", "reserved"),
    ("255.255.255.254", "reserved"),
    ("255.255.255.255", "limited broadcast address (RFC 919, RFC 8190)"),
    # cloud metadata services
    ("169.254.169.254", "cloud metadata"),
    ("169.254.170.2", "cloud metadata"),
    ("100.100.100.200", "cloud metadata"),
    ("192.0.0.192", "cloud metadata"),
    ("fd00:ec2::254", "cloud metadata"),
    # IPv6 special-purpose ranges
    ("::", "unspecified"),
    ("::1", "loopback"),
    ("100::1", "discard-only"),
    ("100:0:0:1::1", "dummy"),
    ("2001:2::1", "benchmarking"),
    ("2001:1::1", "Port Control Protocol anycast address (RFC 7723)"),
    ("2001:1::3", "DNS-SD service registration anycast"),
    ("2001:3::1", "AMT address (2001:3::/32, RFC 7450)"),
    ("2001:4:112::1", "AS112-v6 address (2001:4:112::/48, RFC 7535)"),
    ("2620:4f:8000::1", "direct delegation AS112 address (2620:4f:8000::/48, RFC 7534)"),
    ("2001:30::1", "drone remote ID"),
    ("2001:100::1", "IETF protocol assignment (2001::/23, RFC 2928)"),
    ("2002:808:808::1", "6to4 address (2002::/16, RFC 3056)"),
    ("2001:0:808:808::f7f7:f7f7", "Teredo address (2001::/32, RFC 4380)"),
    ("2001:10::1", "ORCHID"),
    ("2001:20::1", "ORCHIDv2"),
    ("2001:db8::1", "documentation"),
    ("2001:db8:ffff::1", "documentation"),
    ("3fff::1", "documentation"),
    ("3fff:fff::1", "documentation"),
    ("5f00::1", "segment-routing"),
    ("fc00::1", "unique-local"),
    ("fd12:3456::1", "unique-local"),
    ("fec0::1", "site-local"),
    ("fe80::1", "link-local"),
    ("febf::ffff", "link-local"),
    ("ff02::1", "multicast"),
    ("ff05::1:3", "multicast"),
    ("4000::1", "reserved"),
    ("1::1", "reserved"),
    # IPv6 forms that carry a non-public IPv4 address
    ("::ffff:127.0.0.1", "IPv4-mapped address of 127.0.0.1, which is a loopback"),
    ("::ffff:a9fe:a9fe", "IPv4-mapped address of 169.254.169.254, which is a cloud metadata"),
    ("::ffff:10.1.2.3", "IPv4-mapped address of 10.1.2.3"),
    ("::ffff:0.0.0.0", "IPv4-mapped address of 0.0.0.0"),
    ("::127.0.0.1", "IPv4-compatible address of 127.0.0.1"),
    ("::192.168.1.1", "IPv4-compatible address of 192.168.1.1"),
    ("::8.8.8.8", "deprecated IPv4-compatible"),
    ("::ffff:0:7f00:1", "IPv4-translated address of 127.0.0.1"),
    ("::ffff:0:a00:1", "IPv4-translated address of 10.0.0.1"),
    ("64:ff9b::7f00:1", "NAT64 address of 127.0.0.1"),
    ("64:ff9b::a9fe:a9fe", "NAT64 address of 169.254.169.254"),
    ("64:ff9b::ac10:1", "NAT64 address of 172.16.0.1"),
    ("64:ff9b:1::c0a8:1", "local-use NAT64 address of 192.168.0.1"),
    ("64:ff9b:1::808:808", "local-use NAT64 address (64:ff9b:1::/48, RFC 8215)"),
    ("2002:7f00:1::1", "6to4 address of 127.0.0.1"),
    ("2002:a9fe:a9fe::", "6to4 address of 169.254.169.254"),
    ("2002:c0a8:101:1::1", "6to4 address of 192.168.1.1"),
    ("2002:6440:1::", "6to4 address of 100.64.0.1"),
    ("2001:0:7f00:1::", "Teredo address of 127.0.0.1"),
    ("2001:0:808:808::f5ff:fffe", "Teredo address of 10.0.0.1"),
    ("2001:0:808:808::3f57:fefe", "Teredo address of 192.168.1.1"),
    ("2001:0:4136:e378:8000:63bf:3fff:fdd2", "Teredo address of 192.0.2.45"),
]

PUBLIC = [
    "93.184.216.34",
    "8.8.8.8",
    "1.1.1.1",
    "100.63.255.255",
    "100.128.0.0",
    "169.253.255.255",
    "172.15.255.255",
    "172.32.0.0",
    "192.0.1.255",
    "192.0.3.0",
    "198.17.255.255",
    "198.20.0.0",
    "223.255.255.255",
    "2606:4700:4700::1111",
    "2001:4860:4860::8888",
    "2001:db9::1",
    "3fff:1000::1",
    "::ffff:8.8.8.8",
    "64:ff9b::808:808",
    "192.31.195.255",
    "192.31.197.0",
    "192.52.192.255",
    "192.52.194.0",
    "192.175.47.255",
    "192.175.49.0",
    "2001:200::1",
    "2620:4f:8001::1",
    "2620:4f:7fff::1",
]


def literal(address: str) -> str:
    return f"[{address}]" if ":" in address else address


@pytest.mark.parametrize(("address", "fragment"), BLOCKED)
async def test_blocked_address_in_the_url_is_refused_without_connecting(
    address: str,
    fragment: str,
    client_for: ClientFactory,
    backend: RecordingBackend,
    resolver: FakeResolver,
) -> None:
    with pytest.raises(BlockedError, match="refused http://") as caught:
        await client_for().get(f"http://{literal(address)}/")
    assert fragment in caught.value.message
    assert caught.value.url == f"http://{literal(address)}/"
    assert backend.attempts == []
    assert resolver.lookups == []


@pytest.mark.parametrize(("address", "fragment"), BLOCKED)
async def test_blocked_address_in_a_dns_answer_is_refused_without_connecting(
    address: str,
    fragment: str,
    client_for: ClientFactory,
    backend: RecordingBackend,
    resolver: FakeResolver,
) -> None:
    resolver.add("innocent.example.com", ips(address))
    with pytest.raises(BlockedError) as caught:
        await client_for().get("https://innocent.example.com/page")
    shown = str(ipaddress.ip_address(address))
    assert f"innocent.example.com resolves to {shown}, which is" in caught.value.message
    assert fragment in caught.value.message
    assert resolver.lookups == [("innocent.example.com", 443)]
    assert backend.attempts == []


@pytest.mark.parametrize("address", PUBLIC)
async def test_public_address_in_the_url_connects_to_it(
    address: str, client_for: ClientFactory, backend: RecordingBackend
) -> None:
    assert blocked_reason(ipaddress.ip_address(address)) is None
    backend.serve(address, 80, http_reply(200, b"hello"))
    response = await client_for().get(f"http://{literal(address)}/")
    assert response.content == b"hello"
    assert backend.dialled == [(str(ipaddress.ip_address(address)), 80)]


@pytest.mark.parametrize("address", PUBLIC)
async def test_public_address_in_a_dns_answer_connects_to_it(
    address: str, client_for: ClientFactory, backend: RecordingBackend, resolver: FakeResolver
) -> None:
    resolver.add("public.example.com", ips(address))
    backend.serve(address, 443, http_reply(200, b"hello"))
    response = await client_for().get("https://public.example.com/")
    assert response.content == b"hello"
    assert backend.dialled == [(str(ipaddress.ip_address(address)), 443)]
    assert backend.attempts[0].sni == "public.example.com"
    assert backend.attempts[0].host_header == "public.example.com"
