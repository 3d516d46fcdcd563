"""httpx transports that enforce the guard below TLS, at the moment of connecting.

httpcore's connection pool asks its network backend to ``connect_tcp(host,
port)``; the backends here resolve the host once, vet every answer and hand
the real backend a vetted IP. TLS and the Host header still use the URL's
name (httpcore starts TLS on the returned stream with the origin's host), so
certificates are checked as usual, and a DNS answer that changes between two
connections (rebinding) is vetted again instead of trusted.
"""

from __future__ import annotations

import ssl
from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator, Sequence
from contextlib import contextmanager
from functools import cache
from typing import Any

import anyio
import httpcore
import httpx

from sleuth.config import NetSettings
from sleuth.errors import BlockedError
from sleuth.net.guard import Guard, blocked
from sleuth.net.proxy import AsyncProxyPool, Proxies, SyncProxyPool
from sleuth.net.ranges import IPAddress
from sleuth.net.resolve import Resolver, SystemResolver

# httpx reads redirect bodies whole and decodes them without a limit while it
# follows a chain; nobody needs them, so only this much is drained for reuse.
_REDIRECT_DRAIN = 64 * 1024
_REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
_LIMITS = httpx.Limits()

_CORE_TO_HTTPX: dict[type[Exception], type[httpx.HTTPError]] = {
    httpcore.ConnectTimeout: httpx.ConnectTimeout,
    httpcore.ReadTimeout: httpx.ReadTimeout,
    httpcore.WriteTimeout: httpx.WriteTimeout,
    httpcore.PoolTimeout: httpx.PoolTimeout,
    httpcore.TimeoutException: httpx.TimeoutException,
    httpcore.ConnectError: httpx.ConnectError,
    httpcore.ReadError: httpx.ReadError,
    httpcore.WriteError: httpx.WriteError,
    httpcore.NetworkError: httpx.NetworkError,
    httpcore.UnsupportedProtocol: httpx.UnsupportedProtocol,
    httpcore.LocalProtocolError: httpx.LocalProtocolError,
    httpcore.RemoteProtocolError: httpx.RemoteProtocolError,
    httpcore.ProtocolError: httpx.ProtocolError,
}


@cache
def _ssl_context() -> ssl.SSLContext:
    """Loading the CA bundle takes about 0.1 s; one context serves every client."""
    return httpx.create_ssl_context()


@contextmanager
def _translated(url: str) -> Iterator[None]:
    """httpcore errors as their httpx twins; a connection-level refusal names its URL."""
    try:
        yield
    except BlockedError as exc:
        if exc.url is not None:
            raise
        raise blocked(url, exc.message) from None
    except Exception as exc:
        mapped = next((_CORE_TO_HTTPX[c] for c in type(exc).__mro__ if c in _CORE_TO_HTTPX), None)
        if mapped is None:
            raise
        raise mapped(str(exc)) from exc


def _vetted(
    guard: Guard, name: str, port: int, found: Iterable[IPAddress], *, trusted: bool
) -> list[IPAddress]:
    addresses = list(dict.fromkeys(found))
    if not addresses:
        raise httpcore.ConnectError(f"{name} has no addresses")
    guard.check_addresses(name, port, addresses, trusted=trusted)
    return addresses


def _pool_options() -> dict[str, Any]:
    """Shared by both pools of both transports."""
    return {
        "ssl_context": _ssl_context(),
        "max_connections": _LIMITS.max_connections,
        "max_keepalive_connections": _LIMITS.max_keepalive_connections,
        "keepalive_expiry": _LIMITS.keepalive_expiry,
    }


def _core_request(request: httpx.Request) -> httpcore.Request:
    url = request.url
    return httpcore.Request(
        method=request.method,
        url=httpcore.URL(
            scheme=url.raw_scheme, host=url.raw_host, port=url.port, target=url.raw_path
        ),
        headers=request.headers.raw,
        content=request.stream,
        extensions=request.extensions,
    )


def _is_redirect(response: httpcore.Response) -> bool:
    return response.status in _REDIRECT_STATUSES and any(
        name.lower() == b"location" for name, _ in response.headers
    )


class _AsyncConnector(httpcore.AsyncNetworkBackend):
    """Resolve once, vet every answer, connect the real backend to a vetted address."""

    def __init__(
        self,
        inner: httpcore.AsyncNetworkBackend,
        resolver: Resolver,
        guard: Guard,
        *,
        trusted: bool,
    ) -> None:
        self._inner, self._resolver, self._guard, self._trusted = inner, resolver, guard, trusted

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        addresses = await self.vetted(host, port, timeout)
        return await self.dial(addresses, port, timeout, local_address, socket_options)

    async def vetted(self, host: str, port: int, timeout: float | None) -> list[IPAddress]:
        """The addresses the guard lets this connection use (a proxy is asked for these)."""
        target = self._guard.check_host(host, port, trusted=self._trusted)
        if not isinstance(target, str):
            return [target]
        return await self._lookup(target, port, timeout)

    async def dial(
        self,
        addresses: Sequence[IPAddress],
        port: int,
        timeout: float | None,
        local_address: str | None,
        socket_options: Iterable[Any] | None,
    ) -> httpcore.AsyncNetworkStream:
        failure: httpcore.ConnectError | None = None
        for address in addresses:
            try:
                return await self._inner.connect_tcp(
                    str(address), port, timeout, local_address, socket_options
                )
            except httpcore.ConnectError as exc:
                failure = exc
        assert failure is not None
        raise failure

    async def _lookup(self, name: str, port: int, timeout: float | None) -> list[IPAddress]:
        """The one lookup of this connection; every answer must pass the guard."""
        try:
            with anyio.fail_after(timeout):
                found = await self._resolver.resolve(name, port)
        except TimeoutError:
            raise httpcore.ConnectTimeout(f"looking up {name} timed out") from None
        except OSError as exc:
            raise httpcore.ConnectError(f"cannot resolve {name}: {exc}") from exc
        return _vetted(self._guard, name, port, found, trusted=self._trusted)

    async def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Iterable[Any] | None = None
    ) -> httpcore.AsyncNetworkStream:
        raise BlockedError(f"unix socket {path} is refused")

    async def sleep(self, seconds: float) -> None:
        await self._inner.sleep(seconds)


class _SyncConnector(httpcore.NetworkBackend):
    """The blocking twin of :class:`_AsyncConnector`."""

    def __init__(
        self, inner: httpcore.NetworkBackend, resolver: Resolver, guard: Guard, *, trusted: bool
    ) -> None:
        self._inner, self._resolver, self._guard, self._trusted = inner, resolver, guard, trusted

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.NetworkStream:
        return self.dial(
            self.vetted(host, port, timeout), port, timeout, local_address, socket_options
        )

    def vetted(self, host: str, port: int, timeout: float | None) -> list[IPAddress]:
        target = self._guard.check_host(host, port, trusted=self._trusted)
        return [target] if not isinstance(target, str) else self._lookup(target, port)

    def dial(
        self,
        addresses: Sequence[IPAddress],
        port: int,
        timeout: float | None,
        local_address: str | None,
        socket_options: Iterable[Any] | None,
    ) -> httpcore.NetworkStream:
        failure: httpcore.ConnectError | None = None
        for address in addresses:
            try:
                return self._inner.connect_tcp(
                    str(address), port, timeout, local_address, socket_options
                )
            except httpcore.ConnectError as exc:
                failure = exc
        assert failure is not None
        raise failure

    def _lookup(self, name: str, port: int) -> list[IPAddress]:
        try:
            found = self._resolver.resolve_sync(name, port)
        except OSError as exc:
            raise httpcore.ConnectError(f"cannot resolve {name}: {exc}") from exc
        return _vetted(self._guard, name, port, found, trusted=self._trusted)

    def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Iterable[Any] | None = None
    ) -> httpcore.NetworkStream:
        raise BlockedError(f"unix socket {path} is refused")

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


class _AsyncBody(httpx.AsyncByteStream):
    def __init__(self, core: AsyncIterable[bytes], url: str, *, discard: bool) -> None:
        self._core, self._url, self._discard = core, url, discard

    async def __aiter__(self) -> AsyncIterator[bytes]:
        drained = 0
        with _translated(self._url):
            async for part in self._core:
                if not self._discard:
                    yield part
                    continue
                drained += len(part)
                if drained > _REDIRECT_DRAIN:
                    break

    async def aclose(self) -> None:
        close = getattr(self._core, "aclose", None)
        if close is not None:
            await close()


class _SyncBody(httpx.SyncByteStream):
    def __init__(self, core: Iterable[bytes], url: str, *, discard: bool) -> None:
        self._core, self._url, self._discard = core, url, discard

    def __iter__(self) -> Iterator[bytes]:
        drained = 0
        with _translated(self._url):
            for part in self._core:
                if not self._discard:
                    yield part
                    continue
                drained += len(part)
                if drained > _REDIRECT_DRAIN:
                    break

    def close(self) -> None:
        close = getattr(self._core, "close", None)
        if close is not None:
            close()


class AsyncSafeTransport(httpx.AsyncBaseTransport):
    """An httpx transport that only reaches destinations the guard allows.

    Every request (so every redirect hop) passes :meth:`Guard.check_url`;
    every new connection resolves its host once through ``resolver`` and
    connects only to answers that pass the guard. Redirect response bodies
    are discarded (see ``_REDIRECT_DRAIN``). ``network_backend`` is the real
    socket layer (tests pass one that records connection attempts).
    """

    def __init__(
        self,
        net: NetSettings,
        *,
        trusted_urls: Iterable[str] = (),
        resolver: Resolver | None = None,
        network_backend: httpcore.AsyncNetworkBackend | None = None,
    ) -> None:
        self.guard = Guard(net, trusted_urls)
        inner = network_backend or httpcore.AnyIOBackend()
        lookup = resolver or SystemResolver()
        proxies = Proxies.from_settings(net)
        self._pools = tuple(  # indexed by Destination.trusted: (guarded, trusted)
            httpcore.AsyncConnectionPool(network_backend=connector, **_pool_options())
            if proxies is None
            else AsyncProxyPool(connector, proxies, lookup, inner, **_pool_options())
            for connector in (
                _AsyncConnector(inner, lookup, self.guard, trusted=trusted)
                for trusted in (False, True)
            )
        )

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        destination = self.guard.check_url(request.url)
        with _translated(destination.url):
            response = await self._pools[destination.trusted].handle_async_request(
                _core_request(request)
            )
        assert isinstance(response.stream, AsyncIterable)
        return httpx.Response(
            status_code=response.status,
            headers=response.headers,
            stream=_AsyncBody(response.stream, destination.url, discard=_is_redirect(response)),
            extensions=response.extensions,
        )

    async def aclose(self) -> None:
        for pool in self._pools:
            await pool.aclose()


class SafeTransport(httpx.BaseTransport):
    """The blocking twin of :class:`AsyncSafeTransport`, for ``httpx.Client``."""

    def __init__(
        self,
        net: NetSettings,
        *,
        trusted_urls: Iterable[str] = (),
        resolver: Resolver | None = None,
        network_backend: httpcore.NetworkBackend | None = None,
    ) -> None:
        self.guard = Guard(net, trusted_urls)
        inner = network_backend or httpcore.SyncBackend()
        lookup = resolver or SystemResolver()
        proxies = Proxies.from_settings(net)
        self._pools = tuple(  # indexed by Destination.trusted: (guarded, trusted)
            httpcore.ConnectionPool(network_backend=connector, **_pool_options())
            if proxies is None
            else SyncProxyPool(connector, proxies, lookup, inner, **_pool_options())
            for connector in (
                _SyncConnector(inner, lookup, self.guard, trusted=trusted)
                for trusted in (False, True)
            )
        )

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        destination = self.guard.check_url(request.url)
        with _translated(destination.url):
            response = self._pools[destination.trusted].handle_request(_core_request(request))
        assert isinstance(response.stream, Iterable)
        return httpx.Response(
            status_code=response.status,
            headers=response.headers,
            stream=_SyncBody(response.stream, destination.url, discard=_is_redirect(response)),
            extensions=response.extensions,
        )

    def close(self) -> None:
        for pool in self._pools:
            pool.close()
