"""Fixtures for the server tests: a loopback web, a loopback model server, the server process."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from loopback import serve
from search.wire import Wire, start
from server.harness import SearxngWeb, ServerProcess, build_web, stop_quietly


@pytest.fixture
def web() -> Iterator[SearxngWeb]:
    with serve() as site:
        yield build_web(site)


@pytest.fixture
def wire() -> Iterator[Wire]:
    """A scripted model server speaking the providers' wire formats (see tests/llm)."""
    wire = Wire()
    server, thread = start(wire)
    try:
        yield wire
    finally:
        with wire.lock:  # release any reply a test left stalled
            for replies in wire.routes.values():
                for reply in replies:
                    if reply.stall is not None:
                        reply.stall.set()
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


@pytest.fixture
def launch(web: SearxngWeb, tmp_path: Path) -> Iterator[Callable[..., ServerProcess]]:
    """Start servers with the web's settings plus ``env``; every one is stopped afterwards."""
    started: list[ServerProcess] = []

    def run(*args: str, ready: bool = True, host: str = "127.0.0.1", **env: str) -> ServerProcess:
        server = ServerProcess({**web.env(tmp_path), **env}, *args, host=host)
        started.append(server)
        return server.wait_ready() if ready else server

    yield run
    for server in started:
        stop_quietly(server)
