"""Fixtures for the MCP server tests: a clean environment and a loopback web."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from mcp_web import SearxngWeb, build_web

from loopback import serve


@pytest.fixture
def web() -> Iterator[SearxngWeb]:
    with serve() as site:
        yield build_web(site)
