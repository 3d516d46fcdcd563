"""Name resolution for the guard: one lookup per connection, injectable.

The guard vets exactly the addresses a resolver returns and then connects to
one of them, so a resolver is the single source of truth for a connection.
"""

from __future__ import annotations

import socket
from collections.abc import Iterable, Mapping, Sequence
from ipaddress import ip_address
from typing import Protocol

import anyio.to_thread

from sleuth.errors import Ref, UsageError
from sleuth.net.hosts import parse_host
from sleuth.net.ranges import IPAddress

Pins = Mapping[tuple[str, int], Sequence[IPAddress]]


class Resolver(Protocol):
    """Turns a host name into addresses; raise OSError when the name does not resolve."""

    async def resolve(self, host: str, port: int) -> list[IPAddress]: ...

    def resolve_sync(self, host: str, port: int) -> list[IPAddress]: ...


class SystemResolver:
    """``getaddrinfo``, the resolver every other program on the machine uses."""

    async def resolve(self, host: str, port: int) -> list[IPAddress]:
        # Abandoned on cancel so that a fetch deadline is not held up by a slow lookup.
        return await anyio.to_thread.run_sync(self.resolve_sync, host, port, abandon_on_cancel=True)

    def resolve_sync(self, host: str, port: int) -> list[IPAddress]:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        return [ip_address(info[4][0]) for info in infos]


class PinnedResolver:
    """curl's ``--resolve``: fixed answers for some ``(host, port)``, the fallback for the rest.

    Pinned answers are vetted like any other; a pin cannot open a private address.
    """

    def __init__(self, pins: Pins, fallback: Resolver | None = None) -> None:
        self._pins = {key: list(addresses) for key, addresses in pins.items()}
        self._fallback: Resolver = fallback if fallback is not None else SystemResolver()

    async def resolve(self, host: str, port: int) -> list[IPAddress]:
        pinned = self._pins.get((host, port))
        return list(pinned) if pinned is not None else await self._fallback.resolve(host, port)

    def resolve_sync(self, host: str, port: int) -> list[IPAddress]:
        pinned = self._pins.get((host, port))
        return list(pinned) if pinned is not None else self._fallback.resolve_sync(host, port)


def parse_resolve_pins(entries: Iterable[str]) -> dict[tuple[str, int], list[IPAddress]]:
    """Parse ``HOST:PORT:ADDR[,ADDR...]`` entries (curl syntax; a leading ``+`` is accepted).

    Later entries for the same host and port replace earlier ones, as in curl.
    """
    pins: dict[tuple[str, int], list[IPAddress]] = {}
    for entry in entries:
        host, port, addresses = _parse_pin(entry)
        pins[(host, port)] = addresses
    return pins


def _parse_pin(entry: str) -> tuple[str, int, list[IPAddress]]:
    def bad(why: str) -> UsageError:
        return UsageError(
            f"{{resolve}} {entry!r}: {why}",
            hint="write HOST:PORT:ADDRESS[,ADDRESS...], e.g. example.com:443:93.184.215.14",
            refs={"resolve": Ref("resolve", words="the resolve pin")},
        )

    if entry.startswith("-"):
        raise bad("removing an entry is not supported")
    host_text, sep1, rest = entry.removeprefix("+").partition(":")
    port_text, sep2, address_text = rest.partition(":")
    if not (sep1 and sep2 and host_text and address_text):
        raise bad("expected three parts separated by ':'")
    try:
        host = parse_host(host_text)
    except ValueError as exc:
        raise bad(str(exc)) from None
    if not isinstance(host, str):
        raise bad("pin a host name, not an address")
    if not port_text.isdigit() or not 0 < int(port_text) < 65536:
        raise bad(f"{port_text!r} is not a port number")
    addresses: list[IPAddress] = []
    for text in address_text.split(","):
        try:
            addresses.append(ip_address(text.strip().removeprefix("[").removesuffix("]")))
        except ValueError:
            raise bad(f"{text!r} is not an IP address") from None
    return host, int(port_text), addresses
