"""Fixtures for the MCP server tests: a clean environment and a loopback web."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from mcp_web import Web, build_web

from loopback import serve

# Names Settings reads besides SLEUTH_*; a developer's own keys must not leak into tests.
_FOREIGN_ENV = (
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
def web() -> Iterator[Web]:
    with serve() as site:
        yield build_web(site)
