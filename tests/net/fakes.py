"""Test doubles below the guard: a scripted resolver and a socket layer that records.

Nothing here opens a socket. The recording backends note every connection
attempt (address, port, TLS server name, request bytes) and answer with canned
HTTP bytes, so a test can assert both what was decided and what was (not) dialled.
"""

from __future__ import annotations

import ipaddress
import ssl
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import httpcore

from sleuth.net import IPAddress

Answer = list[IPAddress]
Reply = bytes | Callable[[bytes], bytes]


def ips(*texts: str) -> Answer:
    return [ipaddress.ip_address(text) for text in texts]


class FakeResolver:
    """Scripted answers per name; each lookup takes the next answer (the last one repeats)."""

    def __init__(self, answers: dict[str, list[Answer]] | None = None) -> None:
        self.answers: dict[str, list[Answer]] = dict(answers or {})
        self.lookups: list[tuple[str, int]] = []

    def add(self, name: str, *answers: Answer) -> None:
        self.answers[name] = list(answers)

    def resolve_sync(self, host: str, port: int) -> list[IPAddress]:
        self.lookups.append((host, port))
        script = self.answers.get(host)
        if not script:
            raise OSError(f"no such host {host}")
        return list(script.pop(0) if len(script) > 1 else script[0])

    async def resolve(self, host: str, port: int) -> list[IPAddress]:
        return self.resolve_sync(host, port)


def http_reply(
    status: int = 200, body: bytes = b"", headers: dict[str, str] | None = None
) -> bytes:
    lines = [f"HTTP/1.1 {status} X"]
    merged = {"Content-Length": str(len(body)), "Connection": "close", **(headers or {})}
    lines += [f"{name}: {value}" for name, value in merged.items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


def redirect(location: str, status: int = 302, body: bytes = b"") -> bytes:
    return http_reply(status, body, {"Location": location})


@dataclass
class Attempt:
    host: str
    port: int
    sni: str | None = None
    request: bytearray = field(default_factory=bytearray)

    @property
    def host_header(self) -> str | None:
        for line in bytes(self.request).split(b"\r\n")[1:]:
            name, _, value = line.partition(b":")
            if name.lower() == b"host":
                return value.strip().decode()
        return None


class _Exchange:
    """One connection: collect the request, then play the reply in 16 KiB pieces."""

    def __init__(self, attempt: Attempt, reply: Reply) -> None:
        self.attempt, self._reply, self._out, self._sent = attempt, reply, b"", 0
        self._answered = False

    def write(self, data: bytes) -> None:
        self.attempt.request += data

    def read(self, max_bytes: int) -> bytes:
        if not self._answered and b"\r\n\r\n" in self.attempt.request:
            reply = self._reply
            self._out = reply(bytes(self.attempt.request)) if callable(reply) else reply
            self._answered = True
        start, self._sent = self._sent, min(len(self._out), self._sent + min(max_bytes, 16384))
        return self._out[start : self._sent]

    def start_tls(self, server_hostname: str | None) -> None:
        self.attempt.sni = server_hostname


class _Recorder:
    def __init__(self) -> None:
        self.attempts: list[Attempt] = []
        self.routes: dict[tuple[str, int], Reply] = {}

    def serve(self, address: str, port: int, reply: Reply) -> None:
        self.routes[(str(ipaddress.ip_address(address)), port)] = reply

    @property
    def dialled(self) -> list[tuple[str, int]]:
        return [(attempt.host, attempt.port) for attempt in self.attempts]

    def _open(self, host: str, port: int) -> _Exchange:
        attempt = Attempt(host, port)
        self.attempts.append(attempt)
        reply = self.routes.get((host, port))
        if reply is None:
            raise httpcore.ConnectError(f"connection refused by {host}:{port}")
        return _Exchange(attempt, reply)


class _AsyncStream(httpcore.AsyncNetworkStream):
    def __init__(self, exchange: _Exchange) -> None:
        self._exchange = exchange

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._exchange.read(max_bytes)

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._exchange.write(buffer)

    async def aclose(self) -> None:
        pass

    async def start_tls(
        self,
        ssl_context: ssl.SSLContext,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> httpcore.AsyncNetworkStream:
        self._exchange.start_tls(server_hostname)
        return self


class RecordingBackend(_Recorder, httpcore.AsyncNetworkBackend):
    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        return _AsyncStream(self._open(host, port))


class _SyncStream(httpcore.NetworkStream):
    def __init__(self, exchange: _Exchange) -> None:
        self._exchange = exchange

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._exchange.read(max_bytes)

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._exchange.write(buffer)

    def close(self) -> None:
        pass

    def start_tls(
        self,
        ssl_context: ssl.SSLContext,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> httpcore.NetworkStream:
        self._exchange.start_tls(server_hostname)
        return self


class SyncRecordingBackend(_Recorder, httpcore.NetworkBackend):
    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.NetworkStream:
        return _SyncStream(self._open(host, port))


def by_path(routes: dict[str, bytes]) -> Callable[[bytes], bytes]:
    """A reply that depends on the request path (404 for others)."""

    def reply(request: bytes) -> bytes:
        path = request.split(b" ", 2)[1].decode()
        return routes.get(path, http_reply(404, b"missing"))

    return reply
