"""Which IP addresses are not the public internet, and why.

The table is written out network by network from the IANA special-purpose
registries instead of trusting ``ipaddress.is_global``/``is_private``: those
miss ranges (CGNAT, 6to4 relays, local-use NAT64, 3fff::/20 ...) and say
nothing about IPv6 forms that carry an IPv4 address inside them.
"""

from __future__ import annotations

from collections.abc import Callable
from ipaddress import IPv4Address, IPv4Network, IPv6Address, IPv6Network

IPAddress = IPv4Address | IPv6Address

# Single addresses first, so they win over the wider range that holds them.
_METADATA = "a cloud metadata address"

_V4_TABLE: tuple[tuple[IPv4Network, str], ...] = tuple(
    (IPv4Network(net), label)
    for net, label in (
        ("169.254.169.254/32", _METADATA),  # AWS, GCP, Azure, OpenStack ...
        ("169.254.170.2/32", _METADATA),  # AWS ECS task metadata
        ("100.100.100.200/32", _METADATA),  # Alibaba Cloud
        ("192.0.0.192/32", _METADATA),  # Oracle Cloud
        ("255.255.255.255/32", "the broadcast address"),
        ("0.0.0.0/8", "a 'this network' address (0.0.0.0/8)"),
        ("10.0.0.0/8", "a private address (RFC 1918)"),
        ("100.64.0.0/10", "a shared CGNAT address (100.64.0.0/10)"),
        ("127.0.0.0/8", "a loopback address"),
        ("169.254.0.0/16", "a link-local address"),
        ("172.16.0.0/12", "a private address (RFC 1918)"),
        ("192.0.0.0/24", "an IETF protocol assignment (192.0.0.0/24)"),
        ("192.0.2.0/24", "a documentation address (TEST-NET-1)"),
        ("192.88.99.0/24", "a deprecated 6to4 relay address"),
        ("192.168.0.0/16", "a private address (RFC 1918)"),
        ("198.18.0.0/15", "a benchmarking address (198.18.0.0/15)"),
        ("198.51.100.0/24", "a documentation address (TEST-NET-2)"),
        ("203.0.113.0/24", "a documentation address (TEST-NET-3)"),
        ("224.0.0.0/4", "a multicast address"),
        ("240.0.0.0/4", "a reserved address (240.0.0.0/4)"),
    )
)

# Checked before the embedded forms: these are not IPv4 in disguise.
_V6_EXACT: tuple[tuple[IPv6Network, str], ...] = tuple(
    (IPv6Network(net), label)
    for net, label in (
        ("fd00:ec2::254/128", _METADATA),  # AWS IPv6 instance metadata
        ("::/128", "the unspecified address"),
        ("::1/128", "a loopback address"),
    )
)

_V6_TABLE: tuple[tuple[IPv6Network, str], ...] = tuple(
    (IPv6Network(net), label)
    for net, label in (
        ("100::/64", "a discard-only address (100::/64)"),
        ("100:0:0:1::/64", "a dummy address (100:0:0:1::/64)"),
        ("2001:2::/48", "a benchmarking address (2001:2::/48)"),
        ("2001:10::/28", "an ORCHID address (2001:10::/28)"),
        ("2001:20::/28", "an ORCHIDv2 address (2001:20::/28)"),
        ("2001:db8::/32", "a documentation address (2001:db8::/32)"),
        ("3fff::/20", "a documentation address (3fff::/20)"),
        ("5f00::/16", "a segment-routing address (5f00::/16)"),
        ("64:ff9b:1::/48", "a local-use NAT64 address (64:ff9b:1::/48)"),
        ("::/96", "a deprecated IPv4-compatible address"),
        ("fc00::/7", "a unique-local address (fc00::/7)"),
        ("fec0::/10", "a deprecated site-local address (fec0::/10)"),
        ("fe80::/10", "a link-local address"),
        ("ff00::/8", "a multicast address"),
    )
)

# Everything outside 2000::/3 that the embedded forms below do not cover is
# unassigned or reserved by the IETF.
_GLOBAL_UNICAST = IPv6Network("2000::/3")

_LAST32 = 0xFFFFFFFF


def _low32(value: int) -> list[int]:
    return [value & _LAST32]


def _six_to_four(value: int) -> list[int]:
    return [(value >> 80) & _LAST32]


def _teredo(value: int) -> list[int]:
    """Server in bits 32-64, client (inverted) in the last 32 bits."""
    return [(value >> 64) & _LAST32, (value & _LAST32) ^ _LAST32]


# IPv6 forms that reach an IPv4 host: the IPv4 address inside is vetted too.
_EMBEDDING: tuple[tuple[IPv6Network, str, Callable[[int], list[int]]], ...] = tuple(
    (IPv6Network(net), form, extract)
    for net, form, extract in (
        ("::ffff:0:0/96", "an IPv4-mapped address", _low32),
        ("::ffff:0:0:0/96", "an IPv4-translated address", _low32),
        ("64:ff9b::/96", "a NAT64 address", _low32),
        ("64:ff9b:1::/48", "a local-use NAT64 address", _low32),
        ("2002::/16", "a 6to4 address", _six_to_four),
        ("2001::/32", "a Teredo address", _teredo),
        ("::/96", "an IPv4-compatible address", _low32),
    )
)


def blocked_reason(address: IPAddress) -> str | None:
    """Why ``address`` is not a public destination ("a loopback address"), or None."""
    if isinstance(address, IPv4Address):
        return _lookup_v4(address)
    plain = IPv6Address(int(address))  # drop any zone id
    for network, label in _V6_EXACT:
        if plain in network:
            return label
    embedded = next((entry for entry in _EMBEDDING if plain in entry[0]), None)
    if embedded is not None:
        _, form, extract = embedded
        for inner in map(IPv4Address, extract(int(plain))):
            inner_label = _lookup_v4(inner)
            if inner_label is not None:
                return f"{form} of {inner}, which is {inner_label}"
    for network, label in _V6_TABLE:
        if plain in network:
            return label
    if embedded is None and plain not in _GLOBAL_UNICAST:
        return "a reserved address (outside 2000::/3)"
    return None


def _lookup_v4(address: IPv4Address) -> str | None:
    for network, label in _V4_TABLE:
        if address in network:
            return label
    return None
