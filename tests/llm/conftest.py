"""Fixtures for the LLM suite: a scripted loopback server and settings aimed at it."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from loopback import Web, serve
from search.wire import Wire, start
from sleuth.config import Settings
from sleuth.tools import default_registry

# The tools ``sleuth ask`` hands its model (ops/ask.py chooses them; the loop names none).
ASK_TOOLS = default_registry(local=False, ask=True)


@pytest.fixture
def wire() -> Iterator[Wire]:
    wire = Wire()
    server, thread = start(wire)
    try:
        yield wire
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


@pytest.fixture
def web() -> Iterator[Web]:
    with serve() as site:
        web = Web(site)
        site.add("/search", handler=web._search)
        yield web


@pytest.fixture
def llm_settings(wire: Wire, tmp_path: Path) -> Callable[..., Settings]:
    """Settings for one provider whose base URL is the loopback server (plus ``prefix``)."""

    def build(provider: str, prefix: str = "", **overrides: Any) -> Settings:
        values: dict[str, Any] = {
            "llm_provider": provider,
            "llm_model": "test-model",
            "llm_base_url": wire.url(prefix),
            "llm_api_key": "sk-test-key",
            "llm_retries": 2,
            "cache": "memory",
            "cache_dir": tmp_path / "cache",
            "llm_cassette_dir": tmp_path / "cassettes",
        }
        values.update(overrides)
        return Settings(**values)

    return build


class Sleeps:
    """Stands in for ``asyncio.sleep`` in retry tests: records each wait, waits for none."""

    def __init__(self) -> None:
        self.waits: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


@pytest.fixture
def sleeps() -> Sleeps:
    return Sleeps()
