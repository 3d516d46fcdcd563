"""A loopback HTTP server that speaks whatever a test scripts, and records what it was sent.

Search providers send GET and POST with query strings, forms, JSON bodies and
key headers; every request is kept so tests can assert the exact wire format.
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from sleuth.config import NetSettings, SearchSettings, Settings


def sections(settings: Settings) -> tuple[SearchSettings, NetSettings]:
    """What a search provider is built from: the search and net sections."""
    return settings.search, settings.net


@dataclass
class Reply:
    status: int = 200
    body: str | bytes = ""
    content_type: str = "text/html; charset=utf-8"
    stall: threading.Event | None = None  # answer only once this is set
    headers: dict[str, str] = field(default_factory=dict)


def json_reply(payload: Any, status: int = 200, headers: dict[str, str] | None = None) -> Reply:
    return Reply(status, json.dumps(payload), "application/json", headers=headers or {})


@dataclass
class Request:
    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    body: bytes
    peer: tuple[str, int]  # the client's address: the same one means a reused connection

    @property
    def form(self) -> dict[str, str]:
        return {k: v[0] for k, v in parse_qs(self.body.decode(), keep_blank_values=True).items()}

    @property
    def json(self) -> Any:
        return json.loads(self.body)

    def header(self, name: str) -> str | None:
        wanted = name.lower()
        return next((v for k, v in self.headers.items() if k.lower() == wanted), None)


@dataclass
class Wire:
    """Routes map a path to replies served in turn; the last one repeats."""

    routes: dict[str, list[Reply]] = field(default_factory=dict)
    requests: list[Request] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    port: int = 0

    def on(self, path: str, *replies: Reply) -> str:
        with self.lock:
            self.routes[path] = list(replies)
        return self.url(path)

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def to(self, path: str) -> list[Request]:
        with self.lock:
            return [r for r in self.requests if r.path == path]

    def _next(self, path: str) -> Reply:
        with self.lock:
            replies = self.routes.get(path)
            if not replies:
                return Reply(404, "not found", "text/plain")
            return replies.pop(0) if len(replies) > 1 else replies[0]

    def handle(self, handler: BaseHTTPRequestHandler) -> None:
        parts = urlsplit(handler.path)
        length = int(handler.headers.get("Content-Length") or 0)
        request = Request(
            method=handler.command,
            path=parts.path,
            query={k: v[0] for k, v in parse_qs(parts.query, keep_blank_values=True).items()},
            headers=dict(handler.headers.items()),
            body=handler.rfile.read(length) if length else b"",
            peer=handler.client_address[:2],
        )
        with self.lock:
            self.requests.append(request)
        reply = self._next(parts.path)
        if reply.stall is not None:
            reply.stall.wait(30)
        body = reply.body.encode() if isinstance(reply.body, str) else reply.body
        handler.send_response(reply.status)
        handler.send_header("Content-Type", reply.content_type)
        handler.send_header("Content-Length", str(len(body)))
        for name, value in reply.headers.items():
            handler.send_header(name, value)
        handler.end_headers()
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            handler.wfile.write(body)


class _Server(ThreadingHTTPServer):
    daemon_threads = True


def start(wire: Wire) -> tuple[_Server, threading.Thread]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: object) -> None:
            pass

        def do_GET(self) -> None:
            wire.handle(self)

        def do_POST(self) -> None:
            wire.handle(self)

    server = _Server(("127.0.0.1", 0), Handler)
    wire.port = server.server_address[1]
    # A short poll interval keeps shutdown (and so every teardown) quick.
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    return server, thread


def refusing_port() -> socket.socket:
    """A bound socket that never listens: connections to it are refused, and the port stays ours."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    return sock
