"""The one HTTP client factory: every request sleuth makes goes through these clients.

A running sleuth holds one :class:`Clients` (a session's web owns it): the resolver is given
to it once and lives inside each client's transport. The clients it makes differ only in
the origins they trust (a search provider's, a model server's) and their read timeout.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from typing import Any

import httpcore
import httpx

from sleuth.config import NetSettings
from sleuth.errors import BlockedError, NetworkError
from sleuth.net.guard import Guard, blocked
from sleuth.net.resolve import Resolver, SystemResolver
from sleuth.net.sites import CredentialTransport, Sites
from sleuth.net.transport import AsyncSafeTransport, SafeTransport

# Only what sleuth.net.body decodes itself with bounded output.
ACCEPT_ENCODING = "gzip, deflate, br"


def make_client(
    net: NetSettings,
    *,
    trusted_urls: Iterable[str] = (),
    resolver: Resolver | None = None,
    timeout: float | None = None,
    network_backend: httpcore.AsyncNetworkBackend | None = None,
    sites: Sites | None = None,
) -> httpx.AsyncClient:
    """An async client behind the SSRF guard.

    ``trusted_urls`` are operator-configured endpoints (SearXNG, Ollama ...)
    whose exact origins this client may reach even on private addresses;
    ``timeout`` overrides the read timeout; ``network_backend`` replaces the
    socket layer (tests). ``sites`` are the operator's credentials: only the
    session's page client is given them (see :mod:`sleuth.net.sites`).
    """
    safe = AsyncSafeTransport(
        net, trusted_urls=trusted_urls, resolver=resolver, network_backend=network_backend
    )
    guard = safe.guard

    async def check_redirect(response: httpx.Response) -> None:
        guard.check_redirect(response)

    hooks = {"response": [check_redirect]}
    transport = CredentialTransport(safe, sites) if sites else safe
    return httpx.AsyncClient(transport=transport, event_hooks=hooks, **_options(net, timeout))


def make_sync_client(
    net: NetSettings,
    *,
    trusted_urls: Iterable[str] = (),
    resolver: Resolver | None = None,
    timeout: float | None = None,
    network_backend: httpcore.NetworkBackend | None = None,
) -> httpx.Client:
    """The blocking twin of :func:`make_client`."""
    transport = SafeTransport(
        net, trusted_urls=trusted_urls, resolver=resolver, network_backend=network_backend
    )
    hooks = {"response": [transport.guard.check_redirect]}
    return httpx.Client(transport=transport, event_hooks=hooks, **_options(net, timeout))


def _options(net: NetSettings, timeout: float | None) -> dict[str, Any]:
    """Bounded redirects; no proxies from the environment, they would bypass the guard."""
    return {
        "timeout": httpx.Timeout(timeout or net.read_timeout, connect=net.connect_timeout),
        "headers": {"User-Agent": net.user_agent, "Accept-Encoding": ACCEPT_ENCODING},
        "follow_redirects": True,
        "max_redirects": net.max_redirects,
        "trust_env": False,
    }


class Clients:
    """Makes the guarded clients of one session, all over one resolver and socket layer.

    ``resolver`` answers name lookups (tests pin names to loopback); ``network_backend``
    replaces the socket layer (tests). Nothing else in sleuth calls :func:`make_client`.
    """

    def __init__(
        self,
        net: NetSettings,
        *,
        resolver: Resolver | None = None,
        network_backend: httpcore.AsyncNetworkBackend | None = None,
    ) -> None:
        self.net = net
        self._resolver: Resolver = resolver if resolver is not None else SystemResolver()
        self._backend = network_backend
        self._guard = Guard(net)

    def __call__(
        self,
        *,
        trusted_urls: Iterable[str] = (),
        timeout: float | None = None,
        sites: Sites | None = None,
    ) -> httpx.AsyncClient:
        """A new client; ``trusted_urls`` are operator-configured endpoints it may reach
        even on private addresses, ``timeout`` overrides the read timeout, ``sites`` the
        operator's credentials (the page client's alone)."""
        return make_client(
            self.net,
            trusted_urls=trusted_urls,
            resolver=self._resolver,
            timeout=timeout,
            network_backend=self._backend,
            sites=sites,
        )

    async def admit(self, url: str) -> None:
        """Raise unless an untrusted client would connect for ``url``: the guard's rules,
        then one lookup whose every answer must pass, as the transport decides it.

        A cached page is put to this decision, so it is refused exactly where the
        network would have refused the fetch.
        """
        destination = self._guard.check_url(url)
        if not isinstance(destination.host, str) or destination.trusted:
            return
        name, port = destination.host, destination.port
        try:
            async with asyncio.timeout(self.net.connect_timeout):
                found = list(dict.fromkeys(await self._resolver.resolve(name, port)))
        except TimeoutError:
            raise NetworkError(
                f"{url} could not be fetched: looking up {name} timed out", url=url
            ) from None
        except OSError as exc:
            raise NetworkError(
                f"{url} could not be fetched: cannot resolve {name}: {exc}", url=url
            ) from None
        if not found:
            raise NetworkError(f"{url} could not be fetched: {name} has no addresses", url=url)
        try:
            self._guard.check_addresses(name, port, found)
        except BlockedError as exc:
            raise blocked(destination.url, exc.message) from None
