"""Fixtures for the browser tests: an allowed site, a tripwire server, a renderer, log events."""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from loopback import Site, serve
from sleuth.cache import MemoryCache
from sleuth.config import Settings
from sleuth.render import Renderer
from sleuth.web import Web


class Tripwire:
    """A loopback server the browser must never reach: it counts every connection it accepts."""

    def __init__(self) -> None:
        self.connections = 0
        tripwire = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.end_headers()
                self.wfile.write(b"<p>internal secret</p>")

        class Server(ThreadingHTTPServer):
            daemon_threads = True

            def verify_request(self, request: Any, client_address: Any) -> bool:
                tripwire.connections += 1
                return True

        self.server = Server(("127.0.0.1", 0), Handler)
        self.origin = f"http://127.0.0.1:{self.server.server_address[1]}"
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class EventLog(logging.Handler):
    """Collects sleuth log events and wakes tests waiting for a number of them."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[tuple[str, dict[str, Any]]] = []
        self._waiters: list[tuple[str, int, asyncio.Event]] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append((record.getMessage(), dict(getattr(record, "fields", {}))))
        for name, count, ready in self._waiters:
            if self.count(name) >= count:
                ready.set()

    def count(self, name: str) -> int:
        return sum(1 for seen, _ in self.records if seen == name)

    async def wait_for(self, name: str, count: int) -> None:
        ready = asyncio.Event()
        self._waiters.append((name, count, ready))
        if self.count(name) >= count:
            ready.set()
        # A guard against hanging forever, not a speed assertion.
        await asyncio.wait_for(ready.wait(), 60)


@pytest.fixture
def site() -> Iterator[Site]:
    with serve() as running:
        yield running


@pytest.fixture
def tripwire() -> Iterator[Tripwire]:
    running = Tripwire()
    try:
        yield running
    finally:
        running.stop()


@pytest.fixture
def events() -> Iterator[EventLog]:
    logger = logging.getLogger("sleuth")
    handler = EventLog()
    previous = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    try:
        yield handler
    finally:
        logger.removeHandler(handler)
        logger.setLevel(previous)


def site_settings(site: Site, **overrides: Any) -> Settings:
    """Settings that let the guard through to ``site`` (and nothing else on loopback)."""
    return Settings(allow_hosts=[f"127.0.0.1:{site.port}"], **overrides)


@asynccontextmanager
async def renderer_for(settings: Settings) -> AsyncIterator[Renderer]:
    """The renderer of a Web of its own, whose guarded client makes the browser's requests."""
    async with Web(settings, MemoryCache(10)) as web:
        yield web.renderer


@pytest.fixture
async def renderer(site: Site) -> AsyncIterator[Renderer]:
    async with renderer_for(site_settings(site)) as running:
        yield running
