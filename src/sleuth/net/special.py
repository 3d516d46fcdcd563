"""Every address block and domain that is not the public web, each with its source.

The address tables follow the IANA IPv4 and IPv6 Special-Purpose Address
Registries (RFC 6890) as a whole, including the blocks IANA marks globally
reachable where no web content lives (AS112, AMT, anycast service addresses,
ORCHIDv2, DETs), plus the few non-public ranges kept in other registries
(multicast, site-local, IPv4-compatible) and the cloud metadata addresses.

The domain table lists the special-use names (RFC 6761 and its successors),
ICANN's private-use ``.internal``, and the suffixes private networks use
without any registration (RFC 6762, Appendix G). Names there are refused
before any lookup: a split-horizon resolver may give them any address at all.
``test.`` and ``example.`` are not listed: RFC 6761 §6.2 and §6.5 say
applications SHOULD NOT treat them specially, so they are looked up and
judged by their addresses like any other name.

Refusals quote ``label`` and ``source``; the tables are data, the decisions are
in :mod:`sleuth.net.ranges` and :mod:`sleuth.net.hosts`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from ipaddress import IPv4Network, IPv6Network

_METADATA = "a cloud metadata address"
_LAST32 = 0xFFFFFFFF


@dataclass(frozen=True, slots=True)
class Block:
    """One special-purpose network: what it is and where that is written down."""

    network: IPv4Network | IPv6Network
    label: str
    source: str

    def describe(self) -> str:
        if self.network.num_addresses == 1:
            return f"{self.label} ({self.source})"
        return f"{self.label} ({self.network}, {self.source})"


def _v4(rows: tuple[tuple[str, str, str], ...]) -> tuple[Block, ...]:
    return tuple(Block(IPv4Network(net), label, source) for net, label, source in rows)


def _v6(rows: tuple[tuple[str, str, str], ...]) -> tuple[Block, ...]:
    return tuple(Block(IPv6Network(net), label, source) for net, label, source in rows)


IPV4_BLOCKS: tuple[Block, ...] = _v4(
    (
        # The IANA IPv4 Special-Purpose Address Registry, entry by entry.
        ("0.0.0.0/8", "a 'this network' address", "RFC 791, RFC 1122"),
        ("0.0.0.0/32", "the 'this host on this network' address", "RFC 1122"),
        ("10.0.0.0/8", "a private-use address", "RFC 1918"),
        ("100.64.0.0/10", "a shared CGNAT address", "RFC 6598"),
        ("127.0.0.0/8", "a loopback address", "RFC 1122"),
        ("169.254.0.0/16", "a link-local address", "RFC 3927"),
        ("172.16.0.0/12", "a private-use address", "RFC 1918"),
        ("192.0.0.0/24", "an IETF protocol assignment", "RFC 6890"),
        ("192.0.0.0/29", "an IPv4 service continuity address", "RFC 7335"),
        ("192.0.0.8/32", "the IPv4 dummy address", "RFC 7600"),
        ("192.0.0.9/32", "the Port Control Protocol anycast address", "RFC 7723"),
        ("192.0.0.10/32", "the TURN anycast address", "RFC 8155"),
        ("192.0.0.170/32", "a NAT64/DNS64 discovery address", "RFC 8880"),
        ("192.0.0.171/32", "a NAT64/DNS64 discovery address", "RFC 8880"),
        ("192.0.2.0/24", "a documentation address (TEST-NET-1)", "RFC 5737"),
        ("192.31.196.0/24", "an AS112-v4 address", "RFC 7535"),
        ("192.52.193.0/24", "an AMT address", "RFC 7450"),
        ("192.88.99.0/24", "a deprecated 6to4 relay anycast address", "RFC 7526"),
        ("192.88.99.2/32", "the 6a44 relay anycast address", "RFC 6751"),
        ("192.168.0.0/16", "a private-use address", "RFC 1918"),
        ("192.175.48.0/24", "a direct delegation AS112 address", "RFC 7534"),
        ("198.18.0.0/15", "a benchmarking address", "RFC 2544"),
        ("198.51.100.0/24", "a documentation address (TEST-NET-2)", "RFC 5737"),
        ("203.0.113.0/24", "a documentation address (TEST-NET-3)", "RFC 5737"),
        ("240.0.0.0/4", "a reserved address", "RFC 1112"),
        ("255.255.255.255/32", "the limited broadcast address", "RFC 919, RFC 8190"),
        # The IPv4 Multicast Address Space Registry.
        ("224.0.0.0/4", "a multicast address", "RFC 5771"),
        # Cloud instance metadata services, from each provider's documentation.
        ("169.254.169.254/32", _METADATA, "AWS, Google Cloud, Azure, OpenStack"),
        ("169.254.170.2/32", _METADATA, "AWS ECS task metadata"),
        ("100.100.100.200/32", _METADATA, "Alibaba Cloud"),
        ("192.0.0.192/32", _METADATA, "Oracle Cloud"),
    )
)

IPV6_BLOCKS: tuple[Block, ...] = _v6(
    (
        # The IANA IPv6 Special-Purpose Address Registry, entry by entry.
        ("::1/128", "the loopback address", "RFC 4291"),
        ("::/128", "the unspecified address", "RFC 4291"),
        ("::ffff:0:0/96", "an IPv4-mapped address", "RFC 4291"),
        ("64:ff9b::/96", "a NAT64 address", "RFC 6052"),
        ("64:ff9b:1::/48", "a local-use NAT64 address", "RFC 8215"),
        ("100::/64", "a discard-only address", "RFC 6666"),
        ("100:0:0:1::/64", "a dummy address", "RFC 9780"),
        ("2001::/23", "an IETF protocol assignment", "RFC 2928"),
        ("2001::/32", "a Teredo address", "RFC 4380"),
        ("2001:1::1/128", "the Port Control Protocol anycast address", "RFC 7723"),
        ("2001:1::2/128", "the TURN anycast address", "RFC 8155"),
        ("2001:1::3/128", "the DNS-SD service registration anycast address", "RFC 9665"),
        ("2001:2::/48", "a benchmarking address", "RFC 5180"),
        ("2001:3::/32", "an AMT address", "RFC 7450"),
        ("2001:4:112::/48", "an AS112-v6 address", "RFC 7535"),
        ("2001:10::/28", "a deprecated ORCHID address", "RFC 4843"),
        ("2001:20::/28", "an ORCHIDv2 address", "RFC 7343"),
        ("2001:30::/28", "a drone remote ID (DET) address", "RFC 9374"),
        ("2001:db8::/32", "a documentation address", "RFC 3849"),
        ("2002::/16", "a 6to4 address", "RFC 3056"),
        ("2620:4f:8000::/48", "a direct delegation AS112 address", "RFC 7534"),
        ("3fff::/20", "a documentation address", "RFC 9637"),
        ("5f00::/16", "a segment-routing (SRv6) SID", "RFC 9602"),
        ("fc00::/7", "a unique-local address", "RFC 4193"),
        ("fe80::/10", "a link-local address", "RFC 4291"),
        # Non-public ranges kept outside that registry.
        ("::/96", "a deprecated IPv4-compatible address", "RFC 4291"),
        ("::ffff:0:0:0/96", "an IPv4-translated address", "RFC 2765"),
        ("fec0::/10", "a deprecated site-local address", "RFC 3879"),
        ("ff00::/8", "a multicast address", "RFC 4291"),
        # Cloud instance metadata services.
        ("fd00:ec2::254/128", _METADATA, "AWS"),
    )
)

# Outside 2000::/3 every IPv6 address not listed above is unassigned (RFC 4291).
GLOBAL_UNICAST = IPv6Network("2000::/3")
GLOBAL_UNICAST_SOURCE = "RFC 4291"


def _low32(value: int) -> list[int]:
    return [value & _LAST32]


def _six_to_four(value: int) -> list[int]:
    return [(value >> 80) & _LAST32]


def _teredo(value: int) -> list[int]:
    """Server in bits 32-64, client (inverted) in the last 32 bits."""
    return [(value >> 64) & _LAST32, (value & _LAST32) ^ _LAST32]


@dataclass(frozen=True, slots=True)
class Embedding:
    """An IPv6 form that reaches an IPv4 host; ``translates``: a public one makes it public."""

    network: IPv6Network
    form: str
    extract: Callable[[int], list[int]]
    translates: bool


# IPv4-mapped addresses and the NAT64 well-known prefix are how an IPv6 socket or a
# DNS64 network reaches an ordinary IPv4 site, so their IPv4 address decides. The
# tunnelling forms (6to4, Teredo) and the deprecated ones are refused either way;
# the IPv4 address inside only makes the refusal more precise.
EMBEDDINGS: tuple[Embedding, ...] = (
    Embedding(IPv6Network("::ffff:0:0/96"), "an IPv4-mapped address", _low32, True),
    Embedding(IPv6Network("::ffff:0:0:0/96"), "an IPv4-translated address", _low32, True),
    Embedding(IPv6Network("64:ff9b::/96"), "a NAT64 address", _low32, True),
    Embedding(IPv6Network("64:ff9b:1::/48"), "a local-use NAT64 address", _low32, False),
    Embedding(IPv6Network("2002::/16"), "a 6to4 address", _six_to_four, False),
    Embedding(IPv6Network("2001::/32"), "a Teredo address", _teredo, False),
    Embedding(IPv6Network("::/96"), "an IPv4-compatible address", _low32, False),
)


@dataclass(frozen=True, slots=True)
class SpecialDomain:
    """A domain whose names never lead to the public web."""

    suffix: str
    label: str
    source: str


SPECIAL_DOMAINS: tuple[SpecialDomain, ...] = tuple(
    SpecialDomain(suffix, label, source)
    for suffix, label, source in (
        # The IANA Special-Use Domain Names registry.
        ("localhost", "a loopback name", "RFC 6761"),
        ("local", "a multicast DNS (mDNS) name", "RFC 6762"),
        ("invalid", "a name reserved to be invalid", "RFC 6761"),
        ("onion", "a Tor onion service name", "RFC 7686"),
        ("alt", "a name outside the DNS", "RFC 9476"),
        ("home.arpa", "a home network name", "RFC 8375"),
        ("arpa", "an infrastructure name", "RFC 3172"),
        # ICANN's private-use TLD (cloud metadata names such as *.compute.internal).
        ("internal", "a private-use name", "ICANN, 2024"),
        # Suffixes private networks use without registration.
        ("localdomain", "a private network name", "RFC 6762, Appendix G"),
        ("lan", "a private network name", "RFC 6762, Appendix G"),
        ("intranet", "a private network name", "RFC 6762, Appendix G"),
        ("corp", "a private network name", "RFC 6762, Appendix G"),
        ("home", "a private network name", "RFC 6762, Appendix G"),
        ("private", "a private network name", "RFC 6762, Appendix G"),
        # Never to be delegated because private networks use it (ICANN, 2018).
        ("mail", "a private network name", "ICANN name collision resolution, 2018"),
    )
)
