"""Real proxies on 127.0.0.1 for the proxy tests, each logging what it was asked.

An HTTP forward proxy (CONNECT and absolute-form) and a SOCKS5 proxy. Names a proxy is
asked for are looked up in its own ``names`` table, never in DNS, so a test can show
what a proxy that resolves names itself would reach; every upstream is on loopback.
"""

from __future__ import annotations

import base64
import select
import socket
import socketserver
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from ipaddress import IPv4Address, IPv6Address
from typing import TypeVar
from urllib.parse import urlsplit


@dataclass
class Asked:
    """One request a proxy got: a CONNECT, an absolute-form GET, a SOCKS5 CONNECT."""

    method: str
    target: str
    headers: dict[str, str] = field(default_factory=dict)
    address_type: int | None = None  # SOCKS5 ATYP: 1 IPv4, 3 name, 4 IPv6
    user: str | None = None


class _Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, proxy: _Proxy) -> None:
        super().__init__(("127.0.0.1", 0), proxy.handler())
        self.proxy = proxy

    def handle_error(self, request: object, client_address: object) -> None:
        pass  # a client that hangs up mid-tunnel is expected


class _Proxy:
    def __init__(self, names: dict[str, str] | None = None) -> None:
        self.asked: list[Asked] = []
        self.names = {"docs.example": "127.0.0.1", **(names or {})}
        self.stopping = threading.Event()
        self._lock = threading.Lock()
        self._server: _Server | None = None

    @property
    def port(self) -> int:
        assert self._server is not None
        return int(self._server.server_address[1])

    def log(self, asked: Asked) -> None:
        with self._lock:
            self.asked.append(asked)

    def upstream(self, host: str, port: int) -> socket.socket | None:
        """Loopback only: a name goes through this proxy's own table."""
        address = self.names.get(host.lower(), host.strip("[]"))
        try:
            parsed = IPv6Address(address) if ":" in address else IPv4Address(address)
        except ValueError:
            return None
        if not parsed.is_loopback:
            return None
        try:
            return socket.create_connection((str(parsed), port), timeout=10)
        except OSError:
            return None

    def pipe(self, a: socket.socket, b: socket.socket, first: bytes = b"") -> None:
        if first:
            b.sendall(first)
        sockets = [a, b]
        with suppress(OSError):
            while not self.stopping.is_set():
                ready, _, _ = select.select(sockets, [], [], 0.2)
                for source in ready:
                    data = source.recv(65536)
                    if not data:
                        return
                    (b if source is a else a).sendall(data)

    def handler(self) -> type[socketserver.BaseRequestHandler]:
        raise NotImplementedError

    def start(self) -> None:
        self._server = _Server(self)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    def stop(self) -> None:
        self.stopping.set()
        assert self._server is not None
        self._server.shutdown()
        self._server.server_close()


def _read_head(sock: socket.socket) -> tuple[bytes, bytes] | None:
    data = b""
    while b"\r\n\r\n" not in data:
        part = sock.recv(65536)
        if not part:
            return None
        data += part
    head, _, rest = data.partition(b"\r\n\r\n")
    return head, rest


class HTTPProxy(_Proxy):
    """CONNECT tunnels and absolute-form requests; ``credentials`` makes it answer 407."""

    def __init__(
        self, names: dict[str, str] | None = None, credentials: tuple[str, str] | None = None
    ) -> None:
        super().__init__(names)
        self.credentials = credentials
        # Bytes a client sent first inside a CONNECT tunnel that had no upstream (a ClientHello).
        self.tunnelled: list[bytes] = []

    def handler(self) -> type[socketserver.BaseRequestHandler]:
        proxy = self

        class Handler(socketserver.BaseRequestHandler):
            def handle(self) -> None:
                proxy.serve(self.request)

        return Handler

    def serve(self, client: socket.socket) -> None:
        read = _read_head(client)
        if read is None:
            return
        head, rest = read
        line, *lines = head.decode("latin-1").split("\r\n")
        method, target, _ = line.split(" ", 2)
        headers = dict(entry.split(": ", 1) for entry in lines)
        self.log(Asked(method, target, headers))
        if self.credentials is not None:
            expected = "Basic " + base64.b64encode(":".join(self.credentials).encode()).decode()
            if headers.get("Proxy-Authorization") != expected:
                client.sendall(
                    b"HTTP/1.1 407 Proxy Authentication Required\r\n"
                    b'Proxy-Authenticate: Basic realm="test"\r\nContent-Length: 0\r\n\r\n'
                )
                return
        if method == "CONNECT":
            host, _, port = target.rpartition(":")
            upstream = self.upstream(host, int(port))
            client.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
            if upstream is None:  # keep what the client says first, then hang up
                with suppress(OSError):
                    client.settimeout(10)
                    self.tunnelled.append(client.recv(65536))
                return
            with upstream:
                self.pipe(client, upstream, rest)
            return
        parts = urlsplit(target)
        upstream = self.upstream(parts.hostname or "", parts.port or 80)
        if upstream is None:
            client.sendall(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n")
            return
        kept = [f"{k}: {v}" for k, v in headers.items() if k.lower() != "proxy-authorization"]
        path = parts.path + (f"?{parts.query}" if parts.query else "")
        forwarded = f"{method} {path or '/'} HTTP/1.1\r\n" + "".join(
            f"{entry}\r\n" for entry in kept if not entry.lower().startswith("connection:")
        )
        with upstream:
            upstream.sendall(forwarded.encode("latin-1") + b"Connection: close\r\n\r\n" + rest)
            self.pipe(client, upstream)


class SOCKS5Proxy(_Proxy):
    """RFC 1928 CONNECT, without or with RFC 1929 user name and password."""

    def __init__(
        self, names: dict[str, str] | None = None, credentials: tuple[str, str] | None = None
    ) -> None:
        super().__init__(names)
        self.credentials = credentials

    def handler(self) -> type[socketserver.BaseRequestHandler]:
        proxy = self

        class Handler(socketserver.BaseRequestHandler):
            def handle(self) -> None:
                proxy.serve(self.request)

        return Handler

    def serve(self, client: socket.socket) -> None:
        file = client.makefile("rb")
        version, count = file.read(2)
        methods = file.read(count)
        want = 2 if self.credentials is not None else 0
        if version != 5 or want not in methods:
            client.sendall(b"\x05\xff")
            return
        client.sendall(bytes([5, want]))
        user = None
        if want == 2:
            file.read(1)
            user = file.read(file.read(1)[0]).decode()
            password = file.read(file.read(1)[0]).decode()
            ok = (user, password) == self.credentials
            client.sendall(b"\x01\x00" if ok else b"\x01\x01")
            if not ok:
                return
        _, command, _, kind = file.read(4)
        if kind == 1:
            host = str(IPv4Address(file.read(4)))
        elif kind == 4:
            host = str(IPv6Address(file.read(16)))
        else:
            host = file.read(file.read(1)[0]).decode()
        port = int.from_bytes(file.read(2), "big")
        self.log(Asked("CONNECT", f"{host}:{port}", address_type=kind, user=user))
        upstream = self.upstream(host, port) if command == 1 else None
        if upstream is None:
            client.sendall(b"\x05\x05\x00\x01\x00\x00\x00\x00\x00\x00")  # connection refused
            return
        client.sendall(b"\x05\x00\x00\x01\x7f\x00\x00\x01\x00\x00")
        with upstream:
            self.pipe(client, upstream)


P = TypeVar("P", bound=_Proxy)


@contextmanager
def running(proxy: P) -> Iterator[P]:
    proxy.start()
    try:
        yield proxy
    finally:
        proxy.stop()


def closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])
