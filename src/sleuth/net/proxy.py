"""The operator's proxy, as curl, pip and httpx configure it, asked only after the guard.

Every connection first passes the guard as it would without a proxy: the name is
resolved by sleuth's resolver and every answer vetted. Only then is the proxy asked, and
it is asked for the vetted address (``CONNECT 192.0.2.7:443`` with TLS to the name; an
absolute-form ``GET http://192.0.2.7/`` with ``Host`` naming the site; a SOCKS5 CONNECT
to the IP), so the proxy's own DNS cannot take a request where the guard would not. With
``proxy_sends_names`` the proxy gets the name instead, still only after the guard's yes.

The proxy's own address and port are reachable only as the proxy: a destination that
is the proxy is refused, even when allow-listed. A proxy that cannot be reached,
refuses, or asks for credentials (407) is a connection error naming the proxy, with its
password masked; nothing ever falls back to a direct connection.
"""

from __future__ import annotations

import base64
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from ipaddress import IPv4Network, IPv6Address, IPv6Network, ip_network
from typing import Any, Protocol
from urllib.parse import unquote, urlsplit

import httpcore
from socksio import socks5

from sleuth.config import NetSettings, mask_url
from sleuth.errors import BlockedError, ConfigError
from sleuth.net.hosts import parse_host
from sleuth.net.ranges import IPAddress
from sleuth.net.resolve import Resolver

_DEFAULT_PORTS = {"http": 80, "https": 443, "socks5": 1080}
_MAX_REPLY = 64 * 1024


@dataclass(frozen=True, slots=True)
class Proxy:
    """One proxy URL, parsed; ``shown`` is the URL with its password masked."""

    scheme: str  # http, https or socks5
    host: IPAddress | str
    port: int
    username: str | None
    password: str | None
    shown: str

    @property
    def origin(self) -> httpcore.Origin:
        return httpcore.Origin(self.scheme.encode(), _host_bytes(self.host), self.port)

    def authorization(self) -> list[tuple[bytes, bytes]]:
        """The ``Proxy-Authorization`` header an HTTP proxy gets, if it has credentials."""
        if self.username is None:
            return []
        pair = f"{self.username}:{self.password or ''}".encode()
        return [(b"Proxy-Authorization", b"Basic " + base64.b64encode(pair))]

    def failed(self, why: str) -> httpcore.ConnectError:
        """A failure of the proxy, not of the page: it names the proxy."""
        return httpcore.ConnectError(f"the proxy {self.shown} {why}")


def parse_proxy(url: str) -> Proxy:
    """An ``http://``, ``https://`` or ``socks5://`` URL (``socks5h`` reads as ``socks5``)."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower().replace("socks5h", "socks5")
    shown = mask_url(url)
    if scheme not in _DEFAULT_PORTS or not parts.hostname:
        raise ConfigError(f"proxy {shown!r} is not an http, https or socks5 URL with a host")
    try:
        host = parse_host(parts.hostname)
        port = parts.port or _DEFAULT_PORTS[scheme]
    except ValueError as exc:
        raise ConfigError(f"proxy {shown!r} is not a proxy URL: {exc}") from None
    username = unquote(parts.username) if parts.username is not None else None
    password = unquote(parts.password) if parts.password is not None else None
    return Proxy(scheme, host, port, username, password, shown)


@dataclass(frozen=True, slots=True)
class _Bypass:
    """One NO_PROXY entry: everything, a name with its subdomains, or a network; maybe a port."""

    everything: bool
    name: str | None
    network: IPv4Network | IPv6Network | None
    port: int | None

    def matches(self, host: IPAddress | str, port: int) -> bool:
        if self.everything:
            return True
        if self.port is not None and self.port != port:
            return False
        if isinstance(host, str):
            return self.name is not None and (host == self.name or host.endswith("." + self.name))
        return self.network is not None and type(host)(int(host)) in self.network


def parse_no_proxy(entries: Iterable[str]) -> tuple[_Bypass, ...]:
    """curl's NO_PROXY: ``*``; names (a leading ``.`` or ``*.`` changes nothing: a name
    covers its subdomains); IP addresses and CIDR networks; each maybe with ``:port``."""
    return tuple(_parse_bypass(entry.strip().lower()) for entry in entries if entry.strip())


def _parse_bypass(entry: str) -> _Bypass:
    if entry == "*":
        return _Bypass(True, None, None, None)
    host, port_text = entry, None
    if entry.startswith("["):
        host, _, rest = entry[1:].partition("]")
        port_text = rest.removeprefix(":") if rest.startswith(":") else None
    elif entry.count(":") == 1:
        host, _, port_text = entry.partition(":")
    if port_text is not None and not (port_text.isdigit() and 0 < int(port_text) < 65536):
        raise ConfigError(f"no_proxy entry {entry!r}: {port_text!r} is not a port number")
    port = int(port_text) if port_text is not None else None
    try:
        if "/" in host:
            return _Bypass(False, None, ip_network(host, strict=False), port)
        parsed = parse_host(host.removeprefix("*").removeprefix("."))
    except ValueError as exc:
        raise ConfigError(f"no_proxy entry {entry!r}: {exc}") from None
    if isinstance(parsed, str):
        return _Bypass(False, parsed, None, port)
    return _Bypass(False, None, ip_network(type(parsed)(int(parsed))), port)


# With neither NO_PROXY nor SLEUTH_NO_PROXY set, a local Ollama or SearXNG stays direct.
_LOOPBACK = parse_no_proxy(["localhost", "127.0.0.0/8", "::1"])


@dataclass(frozen=True, slots=True)
class Proxies:
    """The proxy for each scheme, the bypass list, and what the proxy is asked for."""

    http: Proxy | None
    https: Proxy | None
    bypass: tuple[_Bypass, ...]
    sends_names: bool

    @classmethod
    def from_settings(cls, net: NetSettings) -> Proxies | None:
        """SLEUTH_PROXY over HTTP(S)_PROXY over ALL_PROXY; None when there is no proxy."""
        http = net.proxy or net.http_proxy or net.all_proxy
        https = net.proxy or net.https_proxy or net.all_proxy
        if not (http or https):
            return None
        entries = [*net.no_proxy, *net.sleuth_no_proxy]
        return cls(
            parse_proxy(http) if http else None,
            parse_proxy(https) if https else None,
            parse_no_proxy(entries) if entries else _LOOPBACK,
            net.proxy_sends_names,
        )

    def route(self, origin: httpcore.Origin) -> Proxy | None:
        """The proxy for this origin, or None when it is reached directly."""
        proxy = self.http if origin.scheme == b"http" else self.https
        host = parse_host(origin.host.decode("ascii"))
        if proxy is None or any(entry.matches(host, origin.port) for entry in self.bypass):
            return None
        return proxy

    def _all(self) -> list[Proxy]:
        return list(dict.fromkeys(proxy for proxy in (self.http, self.https) if proxy))

    def target(self, host: str, address: IPAddress) -> bytes:
        """What the proxy is asked for: the vetted address, or the name when so configured."""
        if self.sends_names and isinstance(parse_host(host), str):
            return host.encode("ascii")
        return _host_bytes(address)

    async def refuse_self(
        self, resolver: Resolver, addresses: Sequence[IPAddress], port: int
    ) -> None:
        for proxy in self._all():
            if proxy.port == port:
                _refuse_self(proxy, addresses, await _proxy_addresses_async(resolver, proxy))

    def refuse_self_sync(
        self, resolver: Resolver, addresses: Sequence[IPAddress], port: int
    ) -> None:
        for proxy in self._all():
            if proxy.port == port:
                _refuse_self(proxy, addresses, _proxy_addresses(resolver, proxy))


def _refuse_self(proxy: Proxy, addresses: Sequence[IPAddress], own: Sequence[IPAddress]) -> None:
    plain = {type(a)(int(a)) for a in own}
    for address in addresses:
        if type(address)(int(address)) in plain:
            raise BlockedError(
                f"{address}:{proxy.port} is the proxy's own address, reachable only as the proxy"
            )


async def _proxy_addresses_async(resolver: Resolver, proxy: Proxy) -> list[IPAddress]:
    if not isinstance(proxy.host, str):
        return [proxy.host]
    try:
        return await resolver.resolve(proxy.host, proxy.port)
    except OSError as exc:
        raise proxy.failed(f"cannot be resolved: {exc}") from None


def _proxy_addresses(resolver: Resolver, proxy: Proxy) -> list[IPAddress]:
    if not isinstance(proxy.host, str):
        return [proxy.host]
    try:
        return resolver.resolve_sync(proxy.host, proxy.port)
    except OSError as exc:
        raise proxy.failed(f"cannot be resolved: {exc}") from None


def _host_bytes(host: IPAddress | str) -> bytes:
    return f"[{host}]".encode() if isinstance(host, IPv6Address) else str(host).encode("ascii")


def _ssl_for(proxy: Proxy, ssl_context: Any) -> Any:
    return ssl_context if proxy.scheme == "https" else None


_WANTS_CREDENTIALS = "answered 407 Proxy Authentication Required"


def _connect_request(proxy: Proxy, authority: bytes, timeout: float | None) -> httpcore.Request:
    """``CONNECT ADDRESS:PORT``; TLS to the site's name follows on the tunnel."""
    url = httpcore.URL(
        scheme=proxy.origin.scheme, host=proxy.origin.host, port=proxy.port, target=authority
    )
    headers = [(b"Host", authority), *proxy.authorization()]
    times = {"connect": timeout, "read": timeout, "write": timeout, "pool": timeout}
    return httpcore.Request(b"CONNECT", url, headers=headers, extensions={"timeout": times})


def _forward_request(
    proxy: Proxy, request: httpcore.Request, target: bytes, port: int
) -> httpcore.Request:
    """The absolute form ``GET http://ADDRESS:PORT/path``; the ``Host`` header names the site."""
    url = httpcore.URL(
        scheme=proxy.origin.scheme,
        host=proxy.origin.host,
        port=proxy.port,
        target=b"http://%b:%d%b" % (target, port, request.url.target),
    )
    return httpcore.Request(
        request.method,
        url,
        headers=[*request.headers, *proxy.authorization()],
        content=request.stream,
        extensions=request.extensions,
    )


def _check_connected(proxy: Proxy, response: httpcore.Response, target: bytes) -> None:
    if response.status == 407:
        raise proxy.failed(_WANTS_CREDENTIALS)
    if not 200 <= response.status < 300:
        reason = response.extensions.get("reason_phrase", b"").decode("ascii", "replace")
        raise proxy.failed(f"answered {response.status} {reason} to CONNECT {target.decode()}")


def _socks_connect(target: bytes, port: int) -> bytes:
    """A CONNECT naming an IPv4 or IPv6 address (ATYP 1 or 4), or a name (ATYP 3)."""
    host = target.decode("ascii").removeprefix("[").removesuffix("]")
    command = socks5.SOCKS5CommandRequest.from_address(socks5.SOCKS5Command.CONNECT, (host, port))
    return command.dumps()


def _socks_greeting(proxy: Proxy) -> bytes:
    method = (
        socks5.SOCKS5AuthMethod.NO_AUTH_REQUIRED
        if proxy.username is None
        else socks5.SOCKS5AuthMethod.USERNAME_PASSWORD
    )
    return socks5.SOCKS5AuthMethodsRequest([method]).dumps()


def _socks_login(proxy: Proxy) -> bytes:
    user, password = (proxy.username or "").encode(), (proxy.password or "").encode()
    return socks5.SOCKS5UsernamePasswordRequest(user, password).dumps()


def _socks_method(proxy: Proxy, reply: bytes) -> bool:
    """Whether the proxy wants the user name and password; raise if it wants anything else."""
    if reply[:1] != b"\x05":
        raise proxy.failed("is not a SOCKS5 proxy")
    if reply[1:2] == b"\x00":
        return False
    if reply[1:2] == b"\x02" and proxy.username is not None:
        return True
    raise proxy.failed("refused every authentication method sleuth offered")


def _socks_logged_in(proxy: Proxy, reply: bytes) -> None:
    if reply[1:2] != b"\x00":
        raise proxy.failed("refused the user name and password")


def _socks_reply_length(head: bytes) -> int:
    """The bytes still to read after the first five of a CONNECT reply."""
    kind = head[3]
    return {1: 4 + 2 - 1, 4: 16 + 2 - 1}.get(kind, head[4] + 2)


def _socks_check(proxy: Proxy, head: bytes, target: bytes, port: int) -> None:
    if head[:1] != b"\x05":
        raise proxy.failed("is not a SOCKS5 proxy")
    if head[1] != 0:
        try:
            why = socks5.SOCKS5ReplyCode(bytes([head[1]])).name.lower().replace("_", " ")
        except ValueError:
            why = f"error {head[1]}"
        raise proxy.failed(f"could not CONNECT {target.decode()}:{port}: {why}")


class Vetting(Protocol):
    """What the guarded connector of :mod:`sleuth.net.transport` offers this module."""

    async def vetted(self, host: str, port: int, timeout: float | None) -> list[IPAddress]: ...

    async def dial(
        self,
        addresses: Sequence[IPAddress],
        port: int,
        timeout: float | None,
        local_address: str | None,
        socket_options: Iterable[Any] | None,
    ) -> httpcore.AsyncNetworkStream: ...


class SyncVetting(Protocol):
    def vetted(self, host: str, port: int, timeout: float | None) -> list[IPAddress]: ...

    def dial(
        self,
        addresses: Sequence[IPAddress],
        port: int,
        timeout: float | None,
        local_address: str | None,
        socket_options: Iterable[Any] | None,
    ) -> httpcore.NetworkStream: ...


# --- async ---------------------------------------------------------------------------


class _AsyncToProxy(httpcore.AsyncNetworkBackend):
    """Connects to the proxy itself: the operator's endpoint, not a destination."""

    def __init__(self, inner: httpcore.AsyncNetworkBackend, resolver: Resolver, proxy: Proxy):
        self._inner, self._resolver, self._proxy = inner, resolver, proxy

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        failure = ""
        for address in await _proxy_addresses_async(self._resolver, self._proxy):
            try:
                return await self._inner.connect_tcp(
                    str(address), self._proxy.port, timeout, local_address, socket_options
                )
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as exc:
                failure = str(exc) or type(exc).__name__
        raise self._proxy.failed(f"cannot be reached: {failure}")

    async def sleep(self, seconds: float) -> None:
        await self._inner.sleep(seconds)


class _AsyncThrough(httpcore.AsyncNetworkBackend):
    """One connection's socket layer: vetted by the guard, then direct or tunnelled."""

    def __init__(
        self,
        vetting: Vetting,
        proxy: Proxy | None,
        *,
        proxies: Proxies,
        resolver: Resolver,
        inner: httpcore.AsyncNetworkBackend,
        ssl_context: Any,
    ) -> None:
        self._vetting, self._proxies, self._proxy = vetting, proxies, proxy
        self._resolver, self._inner, self._ssl = resolver, inner, ssl_context

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        addresses = await self._vetting.vetted(host, port, timeout)
        await self._proxies.refuse_self(self._resolver, addresses, port)
        if self._proxy is None:
            return await self._vetting.dial(addresses, port, timeout, local_address, socket_options)
        target = self._proxies.target(host, addresses[0])
        if self._proxy.scheme == "socks5":
            return await self._socks(target, port, timeout)
        return await self._connect(target, port, timeout)

    async def _connect(
        self, target: bytes, port: int, timeout: float | None
    ) -> httpcore.AsyncNetworkStream:
        proxy = self._proxy
        assert proxy is not None
        authority = b"%b:%d" % (target, port)
        connection = httpcore.AsyncHTTPConnection(
            origin=proxy.origin,
            ssl_context=_ssl_for(proxy, self._ssl),
            network_backend=_AsyncToProxy(self._inner, self._resolver, proxy),
        )
        response = await connection.handle_async_request(
            _connect_request(proxy, authority, timeout)
        )
        try:
            _check_connected(proxy, response, authority)
        except httpcore.ConnectError:
            await connection.aclose()
            raise
        stream: httpcore.AsyncNetworkStream = response.extensions["network_stream"]
        return stream

    async def _socks(
        self, target: bytes, port: int, timeout: float | None
    ) -> httpcore.AsyncNetworkStream:
        proxy = self._proxy
        assert proxy is not None
        stream = await _AsyncToProxy(self._inner, self._resolver, proxy).connect_tcp(
            "", proxy.port, timeout
        )
        try:
            await stream.write(_socks_greeting(proxy), timeout)
            if _socks_method(proxy, await _read_exactly(stream, 2, timeout, proxy)):
                await stream.write(_socks_login(proxy), timeout)
                _socks_logged_in(proxy, await _read_exactly(stream, 2, timeout, proxy))
            await stream.write(_socks_connect(target, port), timeout)
            head = await _read_exactly(stream, 5, timeout, proxy)
            _socks_check(proxy, head, target, port)
            await _read_exactly(stream, _socks_reply_length(head), timeout, proxy)
        except BaseException:
            await stream.aclose()
            raise
        return stream

    async def sleep(self, seconds: float) -> None:
        await self._inner.sleep(seconds)


async def _read_exactly(
    stream: httpcore.AsyncNetworkStream, size: int, timeout: float | None, proxy: Proxy
) -> bytes:
    data = b""
    while len(data) < size:
        part = await stream.read(size - len(data), timeout)
        if not part:
            raise proxy.failed("closed the connection during the SOCKS5 handshake")
        data += part
    return data


class _AsyncForward(httpcore.AsyncConnectionInterface):
    """Plain http through an HTTP proxy: ``GET http://ADDRESS:PORT/path`` with ``Host``."""

    def __init__(self, origin: httpcore.Origin, proxy: Proxy, through: _AsyncThrough) -> None:
        self._origin, self._proxy, self._through = origin, proxy, through
        self._connection = httpcore.AsyncHTTPConnection(
            origin=proxy.origin,
            ssl_context=_ssl_for(proxy, through._ssl),
            network_backend=_AsyncToProxy(through._inner, through._resolver, proxy),
        )

    async def handle_async_request(self, request: httpcore.Request) -> httpcore.Response:
        through, proxy = self._through, self._proxy
        host, port = self._origin.host.decode("ascii"), self._origin.port
        timeout = request.extensions.get("timeout", {}).get("connect")
        addresses = await through._vetting.vetted(host, port, timeout)
        await through._proxies.refuse_self(through._resolver, addresses, port)
        target = through._proxies.target(host, addresses[0])
        response = await self._connection.handle_async_request(
            _forward_request(proxy, request, target, port)
        )
        if response.status == 407:
            await response.aclose()
            raise proxy.failed(_WANTS_CREDENTIALS)
        return response

    def can_handle_request(self, origin: httpcore.Origin) -> bool:
        return origin == self._origin

    async def aclose(self) -> None:
        await self._connection.aclose()

    def info(self) -> str:
        return self._connection.info()

    def is_available(self) -> bool:
        return self._connection.is_available()

    def has_expired(self) -> bool:
        return self._connection.has_expired()

    def is_idle(self) -> bool:
        return self._connection.is_idle()

    def is_closed(self) -> bool:
        return self._connection.is_closed()


class AsyncProxyPool(httpcore.AsyncConnectionPool):
    """A pool whose connections go direct or through the proxy, per the bypass list."""

    def __init__(
        self,
        vetting: Vetting,
        proxies: Proxies,
        resolver: Resolver,
        inner: httpcore.AsyncNetworkBackend,
        **options: Any,
    ) -> None:
        super().__init__(**options)
        self._vetting, self._proxies, self._lookup, self._inner = vetting, proxies, resolver, inner

    def create_connection(self, origin: httpcore.Origin) -> httpcore.AsyncConnectionInterface:
        proxy = self._proxies.route(origin)
        through = _AsyncThrough(
            self._vetting,
            proxy,
            proxies=self._proxies,
            resolver=self._lookup,
            inner=self._inner,
            ssl_context=self._ssl_context,
        )
        if proxy is not None and proxy.scheme != "socks5" and origin.scheme == b"http":
            return _AsyncForward(origin, proxy, through)
        return httpcore.AsyncHTTPConnection(
            origin=origin,
            ssl_context=self._ssl_context,
            keepalive_expiry=self._keepalive_expiry,
            network_backend=through,
        )


# --- blocking twins --------------------------------------------------------------------


class _SyncToProxy(httpcore.NetworkBackend):
    """The blocking twin of :class:`_AsyncToProxy`."""

    def __init__(self, inner: httpcore.NetworkBackend, resolver: Resolver, proxy: Proxy):
        self._inner, self._resolver, self._proxy = inner, resolver, proxy

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.NetworkStream:
        failure = ""
        for address in _proxy_addresses(self._resolver, self._proxy):
            try:
                return self._inner.connect_tcp(
                    str(address), self._proxy.port, timeout, local_address, socket_options
                )
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as exc:
                failure = str(exc) or type(exc).__name__
        raise self._proxy.failed(f"cannot be reached: {failure}")

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


class _SyncThrough(httpcore.NetworkBackend):
    """The blocking twin of :class:`_AsyncThrough`."""

    def __init__(
        self,
        vetting: SyncVetting,
        proxy: Proxy | None,
        *,
        proxies: Proxies,
        resolver: Resolver,
        inner: httpcore.NetworkBackend,
        ssl_context: Any,
    ) -> None:
        self._vetting, self._proxies, self._proxy = vetting, proxies, proxy
        self._resolver, self._inner, self._ssl = resolver, inner, ssl_context

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.NetworkStream:
        addresses = self._vetting.vetted(host, port, timeout)
        self._proxies.refuse_self_sync(self._resolver, addresses, port)
        if self._proxy is None:
            return self._vetting.dial(addresses, port, timeout, local_address, socket_options)
        target = self._proxies.target(host, addresses[0])
        if self._proxy.scheme == "socks5":
            return self._socks(target, port, timeout)
        return self._connect(target, port, timeout)

    def _connect(self, target: bytes, port: int, timeout: float | None) -> httpcore.NetworkStream:
        proxy = self._proxy
        assert proxy is not None
        authority = b"%b:%d" % (target, port)
        connection = httpcore.HTTPConnection(
            origin=proxy.origin,
            ssl_context=_ssl_for(proxy, self._ssl),
            network_backend=_SyncToProxy(self._inner, self._resolver, proxy),
        )
        response = connection.handle_request(_connect_request(proxy, authority, timeout))
        try:
            _check_connected(proxy, response, authority)
        except httpcore.ConnectError:
            connection.close()
            raise
        stream: httpcore.NetworkStream = response.extensions["network_stream"]
        return stream

    def _socks(self, target: bytes, port: int, timeout: float | None) -> httpcore.NetworkStream:
        proxy = self._proxy
        assert proxy is not None
        stream = _SyncToProxy(self._inner, self._resolver, proxy).connect_tcp(
            "", proxy.port, timeout
        )

        def read(size: int) -> bytes:
            data = b""
            while len(data) < size:
                part = stream.read(size - len(data), timeout)
                if not part:
                    raise proxy.failed("closed the connection during the SOCKS5 handshake")
                data += part
            return data

        try:
            stream.write(_socks_greeting(proxy), timeout)
            if _socks_method(proxy, read(2)):
                stream.write(_socks_login(proxy), timeout)
                _socks_logged_in(proxy, read(2))
            stream.write(_socks_connect(target, port), timeout)
            head = read(5)
            _socks_check(proxy, head, target, port)
            read(_socks_reply_length(head))
        except BaseException:
            stream.close()
            raise
        return stream

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


class _SyncForward(httpcore.ConnectionInterface):
    """The blocking twin of :class:`_AsyncForward`."""

    def __init__(self, origin: httpcore.Origin, proxy: Proxy, through: _SyncThrough) -> None:
        self._origin, self._proxy, self._through = origin, proxy, through
        self._connection = httpcore.HTTPConnection(
            origin=proxy.origin,
            ssl_context=_ssl_for(proxy, through._ssl),
            network_backend=_SyncToProxy(through._inner, through._resolver, proxy),
        )

    def handle_request(self, request: httpcore.Request) -> httpcore.Response:
        through, proxy = self._through, self._proxy
        host, port = self._origin.host.decode("ascii"), self._origin.port
        timeout = request.extensions.get("timeout", {}).get("connect")
        addresses = through._vetting.vetted(host, port, timeout)
        through._proxies.refuse_self_sync(through._resolver, addresses, port)
        target = through._proxies.target(host, addresses[0])
        response = self._connection.handle_request(_forward_request(proxy, request, target, port))
        if response.status == 407:
            response.close()
            raise proxy.failed(_WANTS_CREDENTIALS)
        return response

    def can_handle_request(self, origin: httpcore.Origin) -> bool:
        return origin == self._origin

    def close(self) -> None:
        self._connection.close()

    def info(self) -> str:
        return self._connection.info()

    def is_available(self) -> bool:
        return self._connection.is_available()

    def has_expired(self) -> bool:
        return self._connection.has_expired()

    def is_idle(self) -> bool:
        return self._connection.is_idle()

    def is_closed(self) -> bool:
        return self._connection.is_closed()


class SyncProxyPool(httpcore.ConnectionPool):
    """The blocking twin of :class:`AsyncProxyPool`."""

    def __init__(
        self,
        vetting: SyncVetting,
        proxies: Proxies,
        resolver: Resolver,
        inner: httpcore.NetworkBackend,
        **options: Any,
    ) -> None:
        super().__init__(**options)
        self._vetting, self._proxies, self._lookup, self._inner = vetting, proxies, resolver, inner

    def create_connection(self, origin: httpcore.Origin) -> httpcore.ConnectionInterface:
        proxy = self._proxies.route(origin)
        through = _SyncThrough(
            self._vetting,
            proxy,
            proxies=self._proxies,
            resolver=self._lookup,
            inner=self._inner,
            ssl_context=self._ssl_context,
        )
        if proxy is not None and proxy.scheme != "socks5" and origin.scheme == b"http":
            return _SyncForward(origin, proxy, through)
        return httpcore.HTTPConnection(
            origin=origin,
            ssl_context=self._ssl_context,
            keepalive_expiry=self._keepalive_expiry,
            network_backend=through,
        )
