"""Failures name what fired and the page asked for, so the hint points somewhere that helps."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator

import pytest

from sleuth.cache import MemoryCache
from sleuth.config import Settings
from sleuth.pages.result import Outcome
from webs import opened_fetcher


@pytest.fixture
def silent_port() -> Iterator[int]:
    """A loopback server that accepts connections and never answers."""
    listener = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()
    held: list[socket.socket] = []

    def accept() -> None:
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(listener.accept()[0])
            except TimeoutError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield listener.getsockname()[1]
    finally:
        stop.set()
        thread.join(timeout=5)
        for connection in held:
            connection.close()
        listener.close()


async def _fetch(port: int, **limits: float) -> tuple[str, str]:
    """The error's words and its hint (the message reads ``words (hint)``)."""
    settings = Settings(allow_hosts=[f"127.0.0.1:{port}"], cache="memory", render="never", **limits)
    async with opened_fetcher(settings, cache=MemoryCache(10)) as fetcher:
        result = await fetcher.fetch(f"http://127.0.0.1:{port}/page", respect_robots=False)
    assert result.outcome == Outcome.TIMEOUT
    assert result.error is not None
    words, _, hint = result.error.message.rpartition(" (")
    return words, hint


async def test_a_read_timeout_names_the_read_timeout(silent_port: int) -> None:
    message, hint = await _fetch(silent_port, read_timeout=0.3, fetch_deadline=30)
    assert "SLEUTH_READ_TIMEOUT" in message
    assert "SLEUTH_READ_TIMEOUT" in hint
    assert "SLEUTH_FETCH_DEADLINE" not in hint  # raising it would change nothing


async def test_the_overall_deadline_names_the_deadline(silent_port: int) -> None:
    message, hint = await _fetch(silent_port, read_timeout=30, fetch_deadline=0.3)
    assert "did not finish within 0.3s" in message
    assert "SLEUTH_FETCH_DEADLINE" in hint


async def test_an_unreachable_host_is_named_by_the_page_not_its_robots_txt() -> None:
    with socket.socket() as probe:  # a port nobody listens on: connections are refused
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    page = f"http://127.0.0.1:{port}/guide/page"
    settings = Settings(allow_hosts=[f"127.0.0.1:{port}"], cache="memory", render="never")
    async with opened_fetcher(settings, cache=MemoryCache(10)) as fetcher:
        result = await fetcher.fetch(page)  # robots.txt is asked first, and fails
    assert result.outcome == Outcome.NETWORK_ERROR
    assert result.error is not None
    assert page in result.error.message
    assert "robots.txt" not in result.error.message
