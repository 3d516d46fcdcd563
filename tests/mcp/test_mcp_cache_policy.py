"""Policy before the cache, through MCP: two stdio servers that share one cache directory.

One server may reach the loopback web (its allowlist holds 127.0.0.1); the
other has none. A page the first stored is refused by the second, and still a
cache hit for the first. A page a person stored with ``--ignore-robots`` is
refused to a model, whose tools always obey robots.txt. Loopback only.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from mcp.client import Client
from mcp.client.stdio import StdioServerParameters
from mcp.types import TextContent
from mcp_web import QUESTION, SearxngWeb


def server(web: SearxngWeb, tmp_path: Path, **env: str) -> StdioServerParameters:
    shared = {"SLEUTH_CACHE": "file", "SLEUTH_CACHE_DIR": str(tmp_path / "shared-cache")}
    # The SDK starts the server with a minimal environment; keep an import path if one is set.
    shared |= {name: os.environ[name] for name in ("PYTHONPATH",) if name in os.environ}
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "sleuth.server.mcp", "--transport", "stdio"],
        env={**web.env(tmp_path), **shared, **env},
    )


def text_of(result: Any) -> str:
    block = result.content[0]
    assert isinstance(block, TextContent)
    return block.text


async def test_a_server_without_the_allowlist_is_refused_what_another_cached(
    web: SearxngWeb, tmp_path: Path
) -> None:
    page = web.site.origin + "/docs/timeouts"
    async with Client(server(web, tmp_path)) as inside:
        first = await inside.call_tool("fetch_page", {"url": page})
    assert not first.is_error
    assert first.structured_content["cache"] == "miss"

    async with Client(server(web, tmp_path, SLEUTH_ALLOW_HOSTS="")) as outside:
        refused = await outside.call_tool("fetch_page", {"url": page})
        decimal = page.replace("127.0.0.1", "2130706433")
        spelt = await outside.call_tool("fetch_page", {"url": decimal})
        digest = await outside.call_tool("research", {"question": QUESTION, "max_pages": 2})
    for answer in (refused, spelt):
        assert answer.is_error
        assert text_of(answer).startswith("error blocked: ")
        assert "five seconds" not in text_of(answer)
    assert "five seconds" not in str(digest.structured_content)
    assert "five seconds" not in text_of(digest)

    async with Client(server(web, tmp_path)) as inside:
        again = await inside.call_tool("fetch_page", {"url": page})
    assert not again.is_error
    assert again.structured_content["cache"] == "hit"
    assert "default timeout of five seconds" in again.structured_content["text"]
    assert web.page_paths() == ["/docs/timeouts"]


async def test_a_page_stored_with_ignore_robots_is_refused_to_a_model(
    web: SearxngWeb, tmp_path: Path
) -> None:
    url = web.site.origin + "/private/calendar"
    person = {
        **{k: v for k, v in os.environ.items() if not k.startswith("SLEUTH_")},
        **web.env(tmp_path),
        "SLEUTH_CACHE": "file",
        "SLEUTH_CACHE_DIR": str(tmp_path / "shared-cache"),
    }
    done = subprocess.run(
        [sys.executable, "-m", "sleuth", "fetch", url, "--ignore-robots", "--json"],
        capture_output=True,
        text=True,
        env=person,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "release calendar" in done.stdout

    async with Client(server(web, tmp_path)) as model:
        refused = await model.call_tool("fetch_page", {"url": url})
    assert refused.is_error
    assert text_of(refused).startswith("error robots_disallowed: ")
    assert "release calendar" not in text_of(refused)
    assert web.page_paths().count("/private/calendar") == 1  # the person's fetch only
