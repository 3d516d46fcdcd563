"""Read a URL's host the way the system resolver would, before anyone resolves it.

``0x7f.1``, ``2130706433``, ``０x7f.0.0.1``, ``%31%32%37.0.0.1`` and
``[::ffff:7f00:1]`` are all 127.0.0.1 to ``getaddrinfo``; the guard must see
that too, so numeric hosts become addresses here and never reach a resolver.
"""

from __future__ import annotations

import re
import unicodedata
from ipaddress import IPv4Address, IPv6Address
from urllib.parse import unquote, urlsplit, urlunsplit

import idna

from sleuth.net.ranges import IPAddress
from sleuth.net.special import SPECIAL_DOMAINS

# Dots that IDNA (UTS #46) maps to "." besides the ASCII one.
_UNICODE_DOTS = str.maketrans({"\u3002": ".", "\uff0e": ".", "\uff61": "."})
_IPV4_PART = re.compile(r"0[x][0-9a-f]*|0[0-7]*|[1-9][0-9]*")
_NUMERIC_LABEL = re.compile(r"[0-9]+|0x[0-9a-f]*")
_LABEL = re.compile(r"[a-z0-9_-]{1,63}")
_ZONE = re.compile(r"[A-Za-z0-9_.~-]+")

_LOCAL_NAMES = frozenset(
    {
        "localhost",
        "localhost.localdomain",
        "localhost4",
        "localhost4.localdomain4",
        "localhost6",
        "localhost6.localdomain6",
        "ip6-localhost",
        "ip6-loopback",
        "ip6-localnet",
        "ip6-allnodes",
        "ip6-allrouters",
        "ip6-mcastprefix",
        "broadcasthost",
    }
)
_METADATA_NAMES = frozenset(
    {
        "metadata",
        "metadata.google.internal",
        "metadata.goog",
        "instance-data",
        "instance-data.ec2.internal",
    }
)


def parse_host(host: str) -> IPAddress | str:
    """An address for numeric hosts, else the lower-case ASCII name without a final dot.

    Raises ValueError for hosts no resolver could take (bad IDNA, ``999.1.1.1``,
    empty labels); callers turn that into their own error.
    """
    text = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    try:
        text = unquote(text, errors="strict")
    except UnicodeDecodeError:
        raise ValueError(f"{host!r} has percent-escapes that are not UTF-8") from None
    text = unicodedata.normalize("NFKC", text).translate(_UNICODE_DOTS).lower()
    if ":" in text:
        return _parse_ipv6(text, host)
    text = text.removesuffix(".")
    if not text:
        raise ValueError("the URL has no host")
    address = _parse_ipv4(text)
    if address is not None:
        return address
    if _NUMERIC_LABEL.fullmatch(text.rsplit(".", 1)[-1]):
        raise ValueError(f"{host!r} looks like an IPv4 address but is not a valid one")
    return _ascii_name(text, host)


def local_name_label(name: str) -> str | None:
    """Why a host name must not be looked up at all, or None."""
    if name in _LOCAL_NAMES or name.endswith(".localhost"):
        return "a local host name"
    if name in _METADATA_NAMES:
        return "a cloud metadata host name"
    return None


# Longest suffix first, so home.arpa is named before arpa.
_DOMAINS = sorted(SPECIAL_DOMAINS, key=lambda domain: -len(domain.suffix))


def special_name_label(name: str) -> str | None:
    """Why a name is not on the public web whatever it resolves to, or None.

    Special-use and private-use domains, and single-label names, which the
    resolver completes with this machine's search domains (``db`` becomes
    ``db.corp.example.com``).
    """
    for domain in _DOMAINS:
        if name == domain.suffix or name.endswith("." + domain.suffix):
            return f"{domain.label} (.{domain.suffix}, {domain.source})"
    if "." not in name:
        return "a single-label name, which the resolver completes with local search domains"
    return None


def _parse_ipv4(text: str) -> IPv4Address | None:
    """inet_aton's rules: 1-4 parts, each decimal, octal (0...) or hex (0x...)."""
    parts = text.split(".")
    if len(parts) > 4 or not all(_IPV4_PART.fullmatch(part) for part in parts):
        return None
    values = [_ipv4_part_value(part) for part in parts]
    *head, last = values
    if any(value > 0xFF for value in head) or last >= 1 << (8 * (5 - len(values))):
        raise ValueError(f"{text!r} has an IPv4 part out of range")
    number = last
    for index, value in enumerate(head):
        number |= value << (8 * (3 - index))
    return IPv4Address(number)


def _ipv4_part_value(part: str) -> int:
    if part.startswith("0x"):
        return int(part[2:] or "0", 16)
    if part.startswith("0") and len(part) > 1:
        return int(part[1:], 8)
    return int(part)


def _parse_ipv6(text: str, original: str) -> IPv6Address:
    address, _, zone = text.partition("%")
    if zone and not _ZONE.fullmatch(zone):
        raise ValueError(f"{original!r} has an invalid IPv6 zone id")
    try:
        return IPv6Address(f"{address}%{zone}" if zone else address)
    except ValueError:
        raise ValueError(f"{original!r} is not a valid IPv6 address") from None


def _ascii_name(text: str, original: str) -> str:
    if not text.isascii():
        try:
            text = idna.encode(text, uts46=True).decode("ascii")
        except UnicodeError:
            raise ValueError(f"{original!r} is not a valid international host name") from None
    labels = text.split(".")
    if len(text) > 253 or not all(_LABEL.fullmatch(label) for label in labels):
        raise ValueError(f"{original!r} is not a valid host name")
    return text


def canonical_url(url: str) -> str:
    """``url`` with its host written the way the resolver reads it.

    httpx refuses some spellings the system resolver accepts (``0177.0.0.1``,
    fullwidth digits); rewriting them first means the guard, not a parse error,
    decides, and a person gets "blocked: loopback" rather than "invalid URL".
    """
    parts = urlsplit(url)
    userinfo, _, hostport = parts.netloc.rpartition("@")
    if hostport.startswith("["):
        host, _, rest = hostport.partition("]")
        host, port = host + "]", rest.removeprefix(":")
    else:
        host, _, port = hostport.rpartition(":") if ":" in hostport else (hostport, "", "")
    parsed = parse_host(host)
    shown = f"[{parsed}]" if isinstance(parsed, IPv6Address) else str(parsed)
    netloc = (f"{userinfo}@" if userinfo else "") + shown + (f":{port}" if port else "")
    return urlunsplit(parts._replace(netloc=netloc))
