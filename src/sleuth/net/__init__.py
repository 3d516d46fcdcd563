"""Network access for all of sleuth: one client factory behind one SSRF guard.

A session's :class:`Clients` makes every client (through :func:`make_client`; the blocking
:func:`make_sync_client` is for callers without a loop);
read untrusted bodies with :func:`read_body` inside :func:`deadline`. The
transports and the :class:`Guard` are exported for use on their own.
"""

from sleuth.net.body import read_body, read_body_sync
from sleuth.net.client import Clients, make_client, make_sync_client
from sleuth.net.deadline import deadline
from sleuth.net.guard import Destination, Guard
from sleuth.net.hosts import canonical_url, parse_host
from sleuth.net.ranges import IPAddress, blocked_reason
from sleuth.net.resolve import PinnedResolver, Resolver, SystemResolver, parse_resolve_pins
from sleuth.net.transport import AsyncSafeTransport, SafeTransport

__all__ = [
    "AsyncSafeTransport",
    "Clients",
    "Destination",
    "Guard",
    "IPAddress",
    "PinnedResolver",
    "Resolver",
    "SafeTransport",
    "SystemResolver",
    "blocked_reason",
    "canonical_url",
    "deadline",
    "make_client",
    "make_sync_client",
    "parse_host",
    "parse_resolve_pins",
    "read_body",
    "read_body_sync",
]
