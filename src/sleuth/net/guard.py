"""The SSRF rules: which URLs, hosts, ports and addresses a client may reach.

Rules that need no lookup (scheme, port 0, credentials, numeric hosts, local
names, special-use and private-use domains, ports) run on every request, so on
every redirect hop too; the address rules run on the answers of the one lookup
each connection makes. The operator's allowlist (``settings.net.allow_hosts``) is
global; trusted origins belong to one client and never loosen the rules for
anyone else. A name in a private domain (``db.internal``) is refused by name
unless a name entry allows it; when the allowlist holds networks, it is looked
up instead and reaches only addresses inside them, never a public one.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from ipaddress import IPv4Network, IPv6Network, ip_network
from typing import Literal

import httpx

from sleuth.config import NetSettings
from sleuth.errors import BlockedError, ConfigError, UsageError
from sleuth.log import event
from sleuth.net.hosts import local_name_label, parse_host, special_name_label
from sleuth.net.ranges import IPAddress, blocked_reason

DEFAULT_PORTS = {"http": 80, "https": 443}
_BRACKETED = re.compile(r"\[(?P<host>[^\]]+)\](?P<prefix>/\d+)?(?::(?P<port>.*))?")

Origin = tuple[str, IPAddress | str, int]


@dataclass(frozen=True, slots=True)
class Destination:
    """A URL the rules let through, with its host as the guard reads it."""

    url: str
    host: IPAddress | str
    port: int
    trusted: bool


@dataclass(frozen=True, slots=True)
class _AllowEntry:
    """One ``allow_hosts`` entry: a name (``*.`` for subdomains) or a network, maybe a port."""

    name: str | None
    wildcard: bool
    network: IPv4Network | IPv6Network | None
    port: int | Literal["*"] | None  # None: only the ports every host may use

    def covers(self, host: IPAddress | str, address: IPAddress | None) -> bool:
        if self.network is not None:
            target = address if address is not None else host
            return not isinstance(target, str) and _strip_zone(target) in self.network
        if not isinstance(host, str) or self.name is None:
            return False
        return host.endswith("." + self.name) if self.wildcard else host == self.name

    def grants_port(self, port: int, open_ports: frozenset[int]) -> bool:
        if self.port is None:
            return port in open_ports
        return self.port in ("*", port)


def blocked(url: str, reason: str) -> BlockedError:
    """The one way a refusal leaves the guard: logged, naming the URL and the reason."""
    event("blocked", url=url, reason=reason)
    return BlockedError(f"refused {url}: {reason}", url=url)


class Guard:
    """The rules for one client: the settings' allowlist plus that client's trusted origins."""

    def __init__(self, net: NetSettings, trusted_urls: Iterable[str] = ()) -> None:
        self._open_ports = frozenset({80, 443, *net.allow_ports})
        self._entries = tuple(_parse_entry(entry) for entry in net.allow_hosts)
        self._networks = any(entry.network is not None for entry in self._entries)
        self._trusted = frozenset(_trusted_origin(url) for url in trusted_urls)

    def check_url(self, url: httpx.URL | str) -> Destination:
        """Refuse (BlockedError) what the rules forbid before any lookup or connection."""
        try:
            parsed = url if isinstance(url, httpx.URL) else httpx.URL(url)
        except httpx.InvalidURL as exc:
            raise UsageError(f"{url!r} is not a valid URL: {exc}") from None
        text = _shown(parsed)
        scheme = parsed.scheme
        if scheme not in DEFAULT_PORTS:
            raise blocked(text, f"the {scheme or 'missing'} scheme is refused; use http or https")
        port = DEFAULT_PORTS[scheme] if parsed.port is None else parsed.port
        if not 0 < port < 65536:
            shown_host = _host_text(parsed)
            shown_host = f"[{shown_host}]" if ":" in shown_host else shown_host
            origin = f"{scheme}://{shown_host}:{port}"
            raise UsageError(
                f"{origin} is not a valid URL: port {port} does not exist",
                hint="write a port from 1 to 65535, or none for the scheme's default",
            )
        try:
            host = parse_host(_host_text(parsed))
        except ValueError as exc:
            raise blocked(text, str(exc)) from None
        if (scheme, host, port) in self._trusted:
            return Destination(text, host, port, trusted=True)
        if parsed.userinfo:
            raise blocked(text, "URLs with credentials (user:password@) are refused")
        reason = self._host_rule(host, port)
        if reason is not None:
            raise blocked(text, reason)
        return Destination(text, host, port, trusted=False)

    def is_trusted(self, url: httpx.URL) -> bool:
        try:
            return _origin(url) in self._trusted
        except ValueError:
            return False

    def check_redirect(self, response: httpx.Response) -> None:
        """Refuse an https -> http downgrade, and a hop from elsewhere into a trusted origin."""
        if not response.has_redirect_location:
            return
        source = response.request.url
        try:
            target = source.join(response.headers["Location"])
        except httpx.InvalidURL:
            return  # httpx refuses it itself when it builds the next request
        except ValueError as exc:  # urljoin's "Invalid IPv6 URL", which httpx lets escape
            raise httpx.RemoteProtocolError(
                f"invalid URL in the Location header: {exc}", request=response.request
            ) from None
        shown, origin = _shown(target), _shown(source)
        if source.scheme == "https" and target.scheme == "http":
            raise blocked(shown, f"a redirect from https to http (from {origin})")
        if self.is_trusted(target) and not self.is_trusted(source):
            raise blocked(shown, f"a redirect into a trusted endpoint (from {origin})")

    def check_host(self, host: str, port: int, *, trusted: bool = False) -> IPAddress | str:
        """The lookup-free rules for a connection; returns the host as an address or name.

        ``trusted`` connections must go to one of the client's trusted origins.
        """
        if not 0 < port < 65536:
            raise BlockedError(f"port {port} does not exist")
        try:
            parsed = parse_host(host)
        except ValueError as exc:
            raise BlockedError(str(exc)) from None
        if trusted:
            if not any(origin[1:] == (parsed, port) for origin in self._trusted):
                raise BlockedError(f"{host}:{port} is not a trusted endpoint of this client")
            return parsed
        reason = self._host_rule(parsed, port)
        if reason is not None:
            raise BlockedError(reason)
        return parsed

    def check_addresses(
        self,
        host: IPAddress | str,
        port: int,
        addresses: Sequence[IPAddress],
        *,
        trusted: bool = False,
    ) -> None:
        """Every answer of a lookup must pass, or the connection is refused."""
        if trusted:
            return
        for address in addresses:
            reason = self._address_rule(host, address, port)
            if reason is not None:
                raise BlockedError(reason)

    def _host_rule(self, host: IPAddress | str, port: int) -> str | None:
        if not isinstance(host, str):
            return self._address_rule(host, host, port)
        named = any(entry.covers(host, None) for entry in self._entries)
        label = local_name_label(host)
        if label is not None and not named:
            return f"{host} is {label}"
        label = special_name_label(host)
        if label is not None and not named and not self._networks:
            return f"{host} is {label}; such names are refused before any lookup"
        if port in self._open_ports or any(
            entry.port is not None
            and entry.grants_port(port, self._open_ports)
            and (entry.network is not None or entry.covers(host, None))
            for entry in self._entries
        ):
            return None  # a network entry with this port may still match the addresses
        return self._port_reason(host, port)

    def _address_rule(self, host: IPAddress | str, address: IPAddress, port: int) -> str | None:
        covering = [entry for entry in self._entries if entry.covers(host, address)]
        if any(entry.grants_port(port, self._open_ports) for entry in covering):
            return None
        if covering:  # allowed, but not on this port
            return self._port_reason(host, port)
        label = special_name_label(host) if isinstance(host, str) else None
        if label is not None:  # only an allowlisted network may lift the name rule
            return f"{host} is {label}, and {address} is not in SLEUTH_ALLOW_HOSTS"
        label = blocked_reason(address)
        if label is not None:
            if host == address:
                return f"{address} is {label}"
            return f"{host} resolves to {address}, which is {label}"
        if port not in self._open_ports:
            return self._port_reason(host, port)
        return None

    def _port_reason(self, host: IPAddress | str, port: int) -> str:
        allowed = ", ".join(str(p) for p in sorted(self._open_ports))
        return f"port {port} of {host} is not allowed (allowed ports: {allowed})"


def _host_text(url: httpx.URL) -> str:
    """The host as written; "" when httpx holds one it can neither encode nor decode."""
    try:
        return url.raw_host.decode("latin-1")
    except UnicodeEncodeError:  # a non-ASCII IPv6 zone id, which httpx keeps as it came
        try:
            return url.host
        except ValueError:  # idna's errors are UnicodeErrors
            return ""


def _shown(url: httpx.URL) -> str:
    """The URL for messages and logs: credentials never leave in them."""
    if not url.userinfo:
        return str(url)
    try:
        return str(url.copy_with(userinfo=b""))
    except httpx.InvalidURL:  # "://user@://x" cannot be rebuilt without its credentials
        return f"{url.scheme}://{url.host} (the rest is not shown: it holds credentials)"


def _strip_zone(address: IPAddress) -> IPAddress:
    return type(address)(int(address))


def _origin(url: httpx.URL) -> Origin:
    scheme = url.scheme
    host = parse_host(url.raw_host.decode("latin-1"))
    return scheme, host, DEFAULT_PORTS.get(scheme, 0) if url.port is None else url.port


def _trusted_origin(url: str) -> Origin:
    try:
        origin = _origin(httpx.URL(url))
    except (httpx.InvalidURL, ValueError) as exc:
        raise ConfigError(f"trusted endpoint {url!r} is not a valid URL: {exc}") from None
    if origin[0] not in DEFAULT_PORTS:
        raise ConfigError(f"trusted endpoint {url!r} must be an http or https URL")
    return origin


def _parse_entry(text: str) -> _AllowEntry:
    """``host``, ``host:port``, ``host:*``, ``*.domain``, ``[v6]:port``, or a CIDR."""

    def bad(why: str) -> ConfigError:
        return ConfigError(
            f"allow_hosts entry {text!r}: {why}",
            hint="write host, host:port, host:*, *.domain, 10.0.0.0/8 or [fd00::]/8:443",
        )

    port_text: str | None = None
    match = _BRACKETED.fullmatch(text)
    if match is not None:
        host, port_text = match["host"] + (match["prefix"] or ""), match["port"]
    elif text.count(":") >= 2:
        host = text  # a bare IPv6 address or network
    else:
        host, colon, port_text = text.partition(":")
        port_text = port_text if colon else None
    port: int | Literal["*"] | None = None
    if port_text is not None:
        if port_text == "*":
            port = "*"
        elif port_text.isdigit() and 0 < int(port_text) < 65536:
            port = int(port_text)
        else:
            raise bad(f"{port_text!r} is not a port number or *")
    if "/" in host:
        try:
            return _AllowEntry(None, False, ip_network(host, strict=False), port)
        except ValueError:
            raise bad(f"{host!r} is not a network") from None
    wildcard = host.startswith("*.")
    try:
        parsed = parse_host(host.removeprefix("*."))
    except ValueError as exc:
        raise bad(str(exc)) from None
    if isinstance(parsed, str):
        return _AllowEntry(parsed, wildcard, None, port)
    if wildcard:
        raise bad("*. only goes before a domain name")
    return _AllowEntry(None, False, ip_network(_strip_zone(parsed)), port)
