"""The one HTTP client factory: every request sleuth makes goes through these clients."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import httpcore
import httpx

from sleuth.config import NetSettings
from sleuth.net.resolve import Resolver
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
) -> httpx.AsyncClient:
    """An async client behind the SSRF guard.

    ``trusted_urls`` are operator-configured endpoints (SearXNG, Ollama ...)
    whose exact origins this client may reach even on private addresses;
    ``timeout`` overrides the read timeout; ``network_backend`` replaces the
    socket layer (tests).
    """
    transport = AsyncSafeTransport(
        net, trusted_urls=trusted_urls, resolver=resolver, network_backend=network_backend
    )
    guard = transport.guard

    async def check_redirect(response: httpx.Response) -> None:
        guard.check_redirect(response)

    hooks = {"response": [check_redirect]}
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
