"""Properties: every spelling of a blocked IPv4 address is blocked; parsing matches inet_aton."""

from __future__ import annotations

import ipaddress
import socket

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from sleuth.config import Settings
from sleuth.errors import BlockedError
from sleuth.net import Guard, blocked_reason, parse_host

BLOCKED_V4 = [
    "0.0.0.0/8",
    "10.0.0.0/8",
    "100.64.0.0/10",
    "127.0.0.0/8",
    "169.254.0.0/16",
    "172.16.0.0/12",
    "192.0.0.0/24",
    "192.0.2.0/24",
    "192.88.99.0/24",
    "192.168.0.0/16",
    "198.18.0.0/15",
    "198.51.100.0/24",
    "203.0.113.0/24",
    "224.0.0.0/4",
    "240.0.0.0/4",
]

GUARD = Guard(Settings().net)
FULLWIDTH = str.maketrans("0123456789abcdefx.", "０１２３４５６７８９ａｂｃｄｅｆｘ．")


def _parts(n: int, count: int) -> list[int]:
    """inet_aton's split: the last part holds all the remaining low bytes."""
    octets = list(n.to_bytes(4, "big"))
    return [*octets[: count - 1], int.from_bytes(bytes(octets[count - 1 :]), "big")]


def _radix(value: int, kind: str) -> str:
    return {"dec": str(value), "oct": f"0{value:o}", "hex": f"0x{value:x}", "HEX": f"0X{value:X}"}[
        kind
    ]


def numeric_forms(n: int, kinds: list[str]) -> list[str]:
    """The spellings the system resolver reads as the IPv4 address ``n``."""
    forms = []
    for count in (1, 2, 3, 4):
        for kind in ("dec", "oct", "hex", "HEX"):
            forms.append(".".join(_radix(part, kind) for part in _parts(n, count)))
        forms.append(".".join(_radix(p, k) for p, k in zip(_parts(n, count), kinds, strict=False)))
    return forms


def disguised_forms(n: int) -> list[str]:
    """Spellings that reach the same address through URL decoding or IPv6."""
    dotted = str(ipaddress.IPv4Address(n))
    high, low = n >> 16, n & 0xFFFF
    teredo_client = n ^ 0xFFFFFFFF
    return [
        dotted + ".",
        "".join(f"%{ord(c):02x}" for c in dotted),
        dotted.translate(FULLWIDTH),
        f"0x{n:x}".translate(FULLWIDTH),
        dotted.replace(".", "\u3002"),
        f"[::ffff:{dotted}]",
        f"[::ffff:{high:x}:{low:x}]",
        f"[::ffff:0:{high:x}:{low:x}]",
        f"[64:ff9b::{high:x}:{low:x}]",
        f"[2002:{high:x}:{low:x}::1]",
        f"[2001:0:808:808::{teredo_client >> 16:x}:{teredo_client & 0xFFFF:x}]",
        f"[2001:0:{high:x}:{low:x}::1]",
    ]


blocked_ipv4 = st.sampled_from(BLOCKED_V4).flatmap(
    lambda net: st.integers(
        int(ipaddress.IPv4Network(net).network_address),
        int(ipaddress.IPv4Network(net).broadcast_address),
    )
)
radix_choices = st.lists(st.sampled_from(["dec", "oct", "hex", "HEX"]), min_size=4, max_size=4)


@given(n=blocked_ipv4, kinds=radix_choices)
@example(n=0x7F000001, kinds=["hex", "dec", "oct", "dec"])
@example(n=0xA9FEA9FE, kinds=["oct", "oct", "hex", "dec"])
def test_every_spelling_of_a_blocked_ipv4_address_is_blocked(n: int, kinds: list[str]) -> None:
    address = ipaddress.IPv4Address(n)
    assert blocked_reason(address) is not None
    for form in numeric_forms(n, kinds):
        assert parse_host(form) == address, form
        with pytest.raises(BlockedError):
            GUARD.check_host(form, 80)
    for form in disguised_forms(n):
        with pytest.raises(BlockedError):
            GUARD.check_host(form, 80)


@given(n=st.integers(0, 2**32 - 1), kinds=radix_choices)
def test_numeric_spellings_round_trip_and_match_inet_aton(n: int, kinds: list[str]) -> None:
    address = ipaddress.IPv4Address(n)
    for form in numeric_forms(n, kinds):
        assert parse_host(form) == address
        assert socket.inet_aton(form) == address.packed
    assert guard_allows(address) == (blocked_reason(address) is None)


def guard_allows(address: ipaddress.IPv4Address) -> bool:
    try:
        GUARD.check_host(str(address), 443)
    except BlockedError:
        return False
    return True


@given(st.text(alphabet="0123456789xX.", min_size=1, max_size=16))
def test_the_parser_reads_numeric_hosts_like_inet_aton(text: str) -> None:
    stripped = text.removesuffix(".")  # one final dot is the DNS root, not part of the address
    try:
        system: ipaddress.IPv4Address | None = ipaddress.IPv4Address(socket.inet_aton(stripped))
    except OSError:
        system = None
    try:
        ours: object = parse_host(text)
    except ValueError:
        ours = None
    if system is not None:
        assert ours == system
    elif isinstance(ours, ipaddress.IPv4Address):
        # The one reading we add (as browsers do): "0x" with no digits is zero.
        assert "0x" in stripped.lower().split(".")
