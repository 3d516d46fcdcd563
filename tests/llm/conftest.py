"""Fixtures for the LLM suite: a scripted loopback server and settings aimed at it."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from search.wire import Wire, start
from sleuth.config import Settings

# Names Settings reads besides SLEUTH_*; a developer's own keys must not leak into tests.
_FOREIGN_ENV = (
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "ANTHROPIC_API_KEY",
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
    "OLLAMA_HOST",
    "BRAVE_API_KEY",
    "BRAVE_SEARCH_API_KEY",
    "TAVILY_API_KEY",
    "SERPAPI_API_KEY",
    "SEARXNG_URL",
    "REDIS_URL",
)


@pytest.fixture(autouse=True)
def _isolated_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        if name.upper().startswith("SLEUTH_") or name.upper() in _FOREIGN_ENV:
            monkeypatch.delenv(name)


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
