"""Which IP addresses are not the public internet, and why.

The tables are in :mod:`sleuth.net.special`, written out from the IANA
special-purpose registries instead of trusting ``ipaddress.is_global``:
that misses ranges (AS112, AMT, 3fff::/20 ...) and says nothing about IPv6
forms that carry an IPv4 address inside them. The most specific block wins,
so a refusal names the narrowest entry (a metadata address, not link-local).
"""

from __future__ import annotations

from ipaddress import IPv4Address, IPv6Address

from sleuth.net.special import (
    EMBEDDINGS,
    GLOBAL_UNICAST,
    GLOBAL_UNICAST_SOURCE,
    IPV4_BLOCKS,
    IPV6_BLOCKS,
    Block,
)

IPAddress = IPv4Address | IPv6Address

# Longest prefix first: the first block that holds an address is the narrowest one.
_V4 = tuple(sorted(IPV4_BLOCKS, key=lambda block: -block.network.prefixlen))
_V6 = tuple(sorted(IPV6_BLOCKS, key=lambda block: -block.network.prefixlen))


def blocked_reason(address: IPAddress) -> str | None:
    """Why ``address`` is not a public destination ("a loopback address (...)"), or None."""
    if isinstance(address, IPv4Address):
        return _describe(_find_v4(address))
    plain = IPv6Address(int(address))  # drop any zone id
    block = _find_v6(plain)
    if block is not None and block.network.prefixlen == 128:
        return block.describe()  # ::, ::1 and metadata are not IPv4 in disguise
    embedding = next((entry for entry in EMBEDDINGS if plain in entry.network), None)
    if embedding is not None:
        for inner in map(IPv4Address, embedding.extract(int(plain))):
            inner_block = _find_v4(inner)
            if inner_block is not None:
                return f"{embedding.form} of {inner}, which is {inner_block.describe()}"
        if embedding.translates:
            return None
    if block is not None:
        return block.describe()
    if plain not in GLOBAL_UNICAST:
        return f"a reserved address (outside {GLOBAL_UNICAST}, {GLOBAL_UNICAST_SOURCE})"
    return None


def _describe(block: Block | None) -> str | None:
    return None if block is None else block.describe()


def _find_v4(address: IPv4Address) -> Block | None:
    return next((block for block in _V4 if address in block.network), None)


def _find_v6(address: IPv6Address) -> Block | None:
    return next((block for block in _V6 if address in block.network), None)
