"""Who may drive the server from a browser: the ``Host`` and ``Origin`` checks of every request.

A server without tokens trusts whoever reaches it, and binds to loopback for
that reason. A web page in the user's browser can still reach loopback, by DNS
rebinding (its own name now resolves to 127.0.0.1, so the browser sends
``Host: attacker.example``) or by a cross-site request (the browser sends its
``Origin``). So without tokens the ``Host`` must be a loopback name or one
listed in ``SLEUTH_SERVER_HOSTS``; with tokens it is checked only when that
list is set (a token is what a page cannot forge). An ``Origin``, when sent,
must be the server's own or listed in ``SLEUTH_CORS_ORIGINS``.

Liveness and readiness answer any ``Host``: probes address a pod by its IP.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from urllib.parse import urlsplit

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from sleuth.config import ServerSettings
from sleuth.errors import MisdirectedRequest, OriginNotAllowed, SleuthError
from sleuth.server.responses import from_error

# Answered whatever the Host: they reveal nothing and probes address pods by IP.
PROBES = frozenset({"/healthz", "/readyz"})


def split_host(value: str) -> tuple[str, str]:
    """``(name, port)`` of a ``Host`` header value; the name lower-case, without brackets or
    a trailing dot, the port ``""`` when absent."""
    value = value.strip().lower()
    if value.startswith("["):
        name, _, rest = value[1:].partition("]")
        return name, rest[1:] if rest.startswith(":") else ""
    name, colon, port = value.rpartition(":")
    if colon and port.isdigit():
        return name.rstrip("."), port
    return value.rstrip("."), ""


def is_loopback_name(name: str) -> bool:
    """``localhost`` or a loopback address (127.0.0.0/8, ::1, bracketed or not)."""
    name = name.lower().strip("[]")
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


@dataclass(frozen=True)
class RequestGuard:
    """The Host and Origin rules of one server, decided once from its settings."""

    check_host: bool
    hosts: frozenset[str]
    origins: frozenset[str]
    any_origin: bool

    @classmethod
    def from_settings(cls, server: ServerSettings, *, tokens: bool) -> RequestGuard:
        hosts = frozenset(h.strip().lower().rstrip(".") for h in server.server_hosts)
        return cls(
            check_host=not tokens or bool(hosts),
            hosts=hosts,
            origins=frozenset(o for o in server.cors_origins if o != "*"),
            any_origin="*" in server.cors_origins,
        )

    def host_allowed(self, host: str | None) -> bool:
        if not self.check_host:
            return True
        if not host:
            return False
        name, _port = split_host(host)
        if host.strip().lower() in self.hosts or name in self.hosts:
            return True
        return is_loopback_name(name)

    def origin_allowed(self, origin: str | None, host: str | None) -> bool:
        if origin is None or self.any_origin or origin in self.origins:
            return True
        parts = urlsplit(origin)
        same = parts.scheme in ("http", "https") and bool(host)
        return same and parts.netloc.lower() == (host or "").strip().lower()

    def refusal(self, headers: Headers) -> SleuthError | None:
        """Why a request with these headers is refused, or ``None``."""
        host = headers.get("host")
        if not self.host_allowed(host):
            return MisdirectedRequest(
                f"this server does not answer to the Host {host or '(none)'!r}"
            )
        origin = headers.get("origin")
        if not self.origin_allowed(origin, host):
            return OriginNotAllowed(f"requests from the origin {origin!r} are not accepted")
        return None


class GuardMiddleware:
    """Refuses, in the server's JSON error shape, what :class:`RequestGuard` refuses."""

    def __init__(self, app: ASGIApp, guard: RequestGuard) -> None:
        self.app = app
        self.guard = guard

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["path"] not in PROBES:
            error = self.guard.refusal(Headers(scope=scope))
            if error is not None:
                await from_error(error)(scope, receive, send)
                return
        await self.app(scope, receive, send)
